/*
 * kernels/ntt.h's transforms on the simulated device (simgpu.h): the CPU NTT (lib/ntt) run
 * on device memory, which is host memory here, with the tables the device would hold charged
 * to it; and the benches' random fill, the device's generator bit for bit.
 */
#include "simgpu.h"

#include <pthread.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "error.h"
#include "field/field.h"
#include "ntt.h"
#include "ntt/ntt_cpu.h"
#include "sim_ntt.h"

#define FR_BYTES 32u

/* What kernels/ntt/ntt_tables.cu allocates once per device: per direction the 2^11-th root
 * powers, the 2^19 direct twiddles and four two-level tables of 2^14 (twiddles and coset
 * powers), plus 16 constants. */
static size_t device_table_bytes(void)
{
    const size_t per_dir = ((size_t)1 << 11) + ((size_t)1 << 19) + 4 * ((size_t)1 << 14);
    return (2 * per_dir + 16) * FR_BYTES;
}

/* ... and once per device and size: 2 constants, three scaled coset tables of max(1, n/2^14)
 * and, above 2^19, the inverse's scaled two-level twiddles (2^14). */
static size_t size_table_bytes(unsigned log_n)
{
    const size_t hcount = log_n > 14 ? (size_t)1 << (log_n - 14) : 1, tcount = log_n > 19 ? (size_t)1 << 14 : 0;
    return (2 + 3 * hcount + tcount) * FR_BYTES;
}

static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static int device_built[SIMGPU_MAX_DEVICES];
static uint32_t sizes_built[SIMGPU_MAX_DEVICES]; /* bit log_n: that size's tables */

int sim_ntt_tables(unsigned log_n)
{
    if (log_n < 1 || log_n > SIM_NTT_MAX_LOG)
        return err_set(CUZK_EINVAL, "NTT size 2^%u is outside 2^1..2^%d", log_n, SIM_NTT_MAX_LOG);
    const int dev = sim_current_device();
    if (dev < 0 || dev >= SIMGPU_MAX_DEVICES) return err_set(CUZK_EDEVICE, "simgpu: NTT tables on device %d", dev);
    int rc = CUZK_OK;
    pthread_mutex_lock(&tables_lock);
    if (!device_built[dev] && !(rc = sim_charge(dev, device_table_bytes(), "NTT tables"))) device_built[dev] = 1;
    if (!rc && !(sizes_built[dev] >> log_n & 1) &&
        !(rc = sim_charge(dev, size_table_bytes(log_n), "NTT tables of one size")))
        sizes_built[dev] |= (uint32_t)1 << log_n;
    pthread_mutex_unlock(&tables_lock);
    return rc;
}

int gpu_ntt_prepare(unsigned log_n) { return sim_ntt_tables(log_n); }

int gpu_ntt(void *d, unsigned log_n, int direction, int coset, int order_in, int order_out, void *stream)
{
    (void)stream;
    if (log_n < 1 || log_n > SIM_NTT_MAX_LOG)
        return err_set(CUZK_EINVAL, "NTT size 2^%u is outside 2^1..2^%d", log_n, SIM_NTT_MAX_LOG);
    if (!d) return err_set(CUZK_EINVAL, "gpu_ntt: NULL data");
    if ((direction != GPU_NTT_FORWARD && direction != GPU_NTT_INVERSE) ||
        (order_in != GPU_NTT_NATURAL && order_in != GPU_NTT_BITREV) ||
        (order_out != GPU_NTT_NATURAL && order_out != GPU_NTT_BITREV))
        return err_set(CUZK_EINVAL, "gpu_ntt: bad direction %d or order %d/%d", direction, order_in, order_out);
    int rc = sim_ntt_tables(log_n);
    if (rc) return rc;
    fr_t *x = d;
    /* the CPU transforms are natural -> natural: the orders are permutations around them */
    if (order_in == GPU_NTT_BITREV) ntt_bit_reverse(x, log_n, NULL);
    if (direction == GPU_NTT_FORWARD) (coset ? ntt_coset_forward : ntt_forward)(x, log_n, NULL);
    else (coset ? ntt_coset_inverse : ntt_inverse)(x, log_n, NULL);
    if (order_out == GPU_NTT_BITREV) ntt_bit_reverse(x, log_n, NULL);
    return CUZK_OK;
}

/* Element i: four splitmix64 outputs from seed ^ i·golden as its limbs, the top 3 bits
 * cleared (< 2^253 < r): the values kernels/ntt/ntt.cu's fill_random_kernel writes, so a test
 * that poisons or seeds with it sees the same data here. */
int gpu_fr_fill_random(void *d, uint64_t n, uint64_t seed, void *stream)
{
    (void)stream;
    if (!n) return CUZK_OK;
    if (!d) return err_set(CUZK_EINVAL, "gpu_fr_fill_random: NULL data for %llu values", (unsigned long long)n);
    fr_t *x = d;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t s = seed ^ (i * 0x9e3779b97f4a7c15ull);
        for (int k = 0; k < 4; k++) {
            uint64_t z = (s += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            x[i].l[k] = z ^ (z >> 31);
        }
        x[i].l[3] &= 0x1fffffffffffffffull;
    }
    return CUZK_OK;
}
