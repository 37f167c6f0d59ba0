/*
 * The CUDA backend's scalar preparation on the device (kernels/prep/prep.cu): the range check
 * of every witness scalar (< r) and the A/B density compaction of the aux scalars, so the host
 * neither scans nor compacts and only aux (needed whole for L) and the bitmaps cross PCIe.
 */
#ifndef CUZK_KERNELS_PREP_H
#define CUZK_KERNELS_PREP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device-side outcome, read back once: bad = (array << 56 | index) of the smallest
 * (array, index) whose scalar is >= r, GPU_PREP_OK when none; n_a / n_b = how many aux
 * scalars the A / B densities select (written by gpu_prep_compact). */
#define GPU_PREP_OK UINT64_MAX
typedef struct {
    uint64_t bad;
    uint64_t n_a, n_b;
} gpu_prep_result;

/* Sets *d_res to "nothing bad, nothing counted" on the stream. */
int gpu_prep_reset(gpu_prep_result *d_res, void *stream);
/* Records in d_res->bad the first x[i] >= r (array tag `array` < 256, x in device memory, raw
 * 32-byte values); to_mont: then rewrites x[i] in Montgomery form (values >= r only ever reach
 * the output after bad has been seen by the host). */
int gpu_prep_check(void *d_x, uint64_t n, unsigned array, int to_mont, gpu_prep_result *d_res, void *stream);
/* Device scratch gpu_prep_compact needs for num_aux scalars (density words included). */
size_t gpu_prep_scratch_bytes(uint64_t num_aux);
/* The densities' 64-bit words (host memory, pinned for an asynchronous copy; valid until the
 * stream's work completes) are copied into the scratch, then d_a[k] = the k-th aux scalar
 * a_density selects (k < cap_a; further ones are only counted), likewise d_b; the counts go
 * to d_res->n_a / n_b. d_aux: num_aux scalars on the device, copied as they are (any form). */
int gpu_prep_compact(void *d_a, uint64_t cap_a, void *d_b, uint64_t cap_b, const void *d_aux, uint64_t num_aux,
                     const uint64_t *a_density, const uint64_t *b_density, void *d_scratch, size_t scratch_bytes,
                     gpu_prep_result *d_res, void *stream);

#ifdef __cplusplus
}
#endif

#endif
