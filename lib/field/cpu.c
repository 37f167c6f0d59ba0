/*
 * Run-time choice of the field arithmetic path: the x86-64 MULX/ADX code when the CPU has
 * BMI2 and ADX, else portable C. CUZK_FIELD_PORTABLE=1 forces the portable path.
 */
#include <stdlib.h>

#include "field/field_internal.h"
#include "field/mont.h"

#if MONT_HAVE_ADX_PATH
#include <cpuid.h>

int mont_have_adx;

/* CPUID leaf 7, subleaf 0, EBX: bit 8 is BMI2 (MULX), bit 19 is ADX (ADCX/ADOX). They use
 * no extended register state, so no OS support check (XGETBV) is needed. */
static int cpu_has_adx(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return ((b >> 8) & 1) && ((b >> 19) & 1);
}

__attribute__((constructor)) static void field_cpu_init(void)
{
    const char *env = getenv("CUZK_FIELD_PORTABLE");
    mont_have_adx = cpu_has_adx() && !(env && *env && *env != '0');
}

int field_adx_active(void) { return mont_have_adx; }

int field_use_adx(int enable)
{
    int was = mont_have_adx;
    mont_have_adx = enable && cpu_has_adx();
    return was;
}
#else
int field_adx_active(void) { return 0; }

int field_use_adx(int enable)
{
    (void)enable;
    return 0;
}
#endif
