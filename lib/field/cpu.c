/*
 * Run-time choice of the field arithmetic path: the x86-64 MULX/ADX code when the CPU has
 * BMI2 and ADX, else portable C. CUZK_FIELD_PORTABLE=1 forces the portable path.
 */
#include <stdlib.h>

#include "field/field_internal.h"
#include "field/mont.h"

#if MONT_HAVE_ADX_PATH
int mont_have_adx;

static int cpu_has_adx(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
}

__attribute__((constructor)) static void field_cpu_init(void)
{
    const char *env = getenv("CUZK_FIELD_PORTABLE");
    mont_have_adx = cpu_has_adx() && !(env && *env && *env != '0');
}

int field_use_adx(int enable)
{
    int was = mont_have_adx;
    mont_have_adx = enable && cpu_has_adx();
    return was;
}
#else
int field_use_adx(int enable)
{
    (void)enable;
    return 0;
}
#endif
