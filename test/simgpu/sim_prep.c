/*
 * kernels/prep.h on the simulated device (simgpu.h): the range check of the witness scalars
 * (the smallest bad (array, index) over every call into one result, as the device's atomicMin)
 * and the A/B density compaction, on the host over device memory (host memory here).
 */
#include "simgpu.h"

#include <stdint.h>
#include <string.h>

#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "error.h"
#include "field/field.h"
#include "prep.h"

int gpu_prep_reset(gpu_prep_result *d_res, void *stream)
{
    if (!d_res) return err_set(CUZK_EINVAL, "scalar check: NULL result");
    return gpu_memset_async(d_res, 0xff, sizeof *d_res, stream); /* bad, n_a, n_b = all ones */
}

/* *bad = min(*bad, v): other host threads may check into the same result, as other blocks do
 * on the device (GCC's builtins: the field is a plain uint64_t of a shared struct) */
static void bad_min(uint64_t *bad, uint64_t v)
{
    uint64_t was = __atomic_load_n(bad, __ATOMIC_RELAXED);
    while (v < was && !__atomic_compare_exchange_n(bad, &was, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* v mod r for any 256-bit v (2^256 < 3r: at most two subtractions) */
static void reduce(fr_t *v)
{
    while (!fr_is_canonical(v)) {
        unsigned borrow = 0;
        for (int k = 0; k < 4; k++) {
            const uint64_t m = FR_MODULUS[k], x = v->l[k];
            v->l[k] = x - m - borrow;
            borrow = x < m || (x == m && borrow);
        }
    }
}

int gpu_prep_check(void *d_x, uint64_t n, unsigned array, int to_mont, gpu_prep_result *d_res, void *stream)
{
    (void)stream;
    if (array > 255 || n >> 56)
        return err_set(CUZK_EINVAL, "scalar check: array %u of %llu values", array, (unsigned long long)n);
    if (!n) return CUZK_OK;
    if (!d_x || !d_res) return err_set(CUZK_EINVAL, "scalar check: NULL %s", d_x ? "result" : "device buffer");
    fr_t *x = d_x;
    uint64_t first = GPU_PREP_OK;
    for (uint64_t i = 0; i < n; i++) {
        fr_t v = x[i];
        if (!fr_is_canonical(&v)) {
            if (first == GPU_PREP_OK) first = (uint64_t)array << 56 | i;
            /* the device's conversion is a Montgomery product, which reduces: never read
             * once bad is seen, but the same value */
            reduce(&v);
        }
        if (to_mont) fr_to_mont(&x[i], &v);
    }
    if (first != GPU_PREP_OK) bad_min(&d_res->bad, first);
    return CUZK_OK;
}

/* As the device lays it out (kernels/prep/prep.cu): both densities, the counts and offsets of
 * each (one word per density word plus the total), 256 bytes of alignment and the prefix
 * sum's temporary room; the same bytes, so the backend's estimates meet the same demand. */
size_t gpu_prep_scratch_bytes(uint64_t num_aux)
{
    const uint64_t nw = (num_aux + 63) / 64, scan_room = (nw + 1) * 8 + ((uint64_t)1 << 16);
    return (size_t)((2 * nw + 4 * (nw + 1)) * 8 + 256 + scan_room);
}

/* d[k] = the k-th scalar of aux whose bit is set in den (first n bits only), for k < cap; the
 * count of all of them */
static uint64_t compact(fr_t *d, uint64_t cap, const fr_t *aux, uint64_t n, const uint64_t *den)
{
    uint64_t k = 0;
    for (uint64_t i = 0; i < n; i++)
        if (den[i / 64] >> (i % 64) & 1) {
            if (k < cap) d[k] = aux[i];
            k++;
        }
    return k;
}

int gpu_prep_compact(void *d_a, uint64_t cap_a, void *d_b, uint64_t cap_b, const void *d_aux, uint64_t num_aux,
                     const uint64_t *a_density, const uint64_t *b_density, void *d_scratch, size_t scratch_bytes,
                     gpu_prep_result *d_res, void *stream)
{
    const uint64_t nw = (num_aux + 63) / 64;
    if (scratch_bytes < gpu_prep_scratch_bytes(num_aux))
        return err_set(CUZK_EINVAL, "density compaction: %zu bytes of scratch for %llu scalars", scratch_bytes,
                       (unsigned long long)num_aux);
    if (!d_res || !d_scratch) return err_set(CUZK_EINVAL, "density compaction: NULL %s", d_res ? "scratch" : "result");
    if (num_aux && (!d_aux || !a_density || !b_density))
        return err_set(CUZK_EINVAL, "density compaction: %llu scalars with a NULL %s", (unsigned long long)num_aux,
                       d_aux ? "density" : "aux");
    if ((cap_a && !d_a) || (cap_b && !d_b))
        return err_set(CUZK_EINVAL, "density compaction: room for %llu A and %llu B scalars at a NULL output",
                       (unsigned long long)cap_a, (unsigned long long)cap_b);
    /* the densities cross into the scratch first, as on the device, and are read there */
    uint64_t *dena = d_scratch, *denb = dena + nw;
    int rc;
    if (nw && ((rc = gpu_memcpy_async(dena, a_density, nw * 8, stream)) ||
               (rc = gpu_memcpy_async(denb, b_density, nw * 8, stream))))
        return rc;
    d_res->n_a = compact(d_a, cap_a, d_aux, num_aux, dena);
    d_res->n_b = compact(d_b, cap_b, d_aux, num_aux, denb);
    return CUZK_OK;
}
