/*
 * The CUDA backend's scalar preparation (kernels/prep.h): range check (atomicMin of the first
 * offending (array, index)) and the density compaction as popcount per 64-bit word ->
 * exclusive prefix sum (CUB) -> scatter, one thread per scalar.
 */
#include <cub/device/device_scan.cuh>

#include "cuda_util.cuh"
#include "field/fr.cuh"
#include "prep.h"

__global__ void prep_check_kernel(fr_gpu *x, uint64_t n, uint64_t tag, int to_mont, unsigned long long *bad)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_gpu v = x[i];
    bool below = false;
    for (int k = 7; k >= 0; k--) /* lexicographic from the top limb, as the CPU's is_below_r */
        if (v.v[k] != fr_params::mod(k)) {
            below = v.v[k] < fr_params::mod(k);
            break;
        }
    if (!below) atomicMin(bad, (unsigned long long)(tag | i));
    if (to_mont) x[i] = v.to_mont();
}

__global__ void prep_popcount_kernel(const uint64_t *da, const uint64_t *db, uint64_t *ca, uint64_t *cb, uint64_t n)
{
    uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, nw = (n + 63) / 64;
    if (w > nw) return;
    /* bits past n in the last word select nothing; entry nw = 0: its exclusive sum is the total */
    uint64_t mask = w + 1 == nw && n % 64 ? ((uint64_t)1 << (n % 64)) - 1 : ~(uint64_t)0;
    ca[w] = w < nw ? __popcll(da[w] & mask) : 0;
    cb[w] = w < nw ? __popcll(db[w] & mask) : 0;
}

__global__ void prep_scatter_kernel(fr_gpu *a, uint64_t cap_a, fr_gpu *b, uint64_t cap_b, const fr_gpu *aux,
                                    uint64_t n, const uint64_t *da, const uint64_t *db, const uint64_t *oa,
                                    const uint64_t *ob)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t w = i / 64, below = ((uint64_t)1 << (i % 64)) - 1, wa = da[w], wb = db[w];
    bool sa = wa >> (i % 64) & 1, sb = wb >> (i % 64) & 1;
    if (!sa && !sb) return;
    fr_gpu v = aux[i];
    if (sa) {
        uint64_t k = oa[w] + __popcll(wa & below);
        if (k < cap_a) a[k] = v;
    }
    if (sb) {
        uint64_t k = ob[w] + __popcll(wb & below);
        if (k < cap_b) b[k] = v;
    }
}

__global__ void prep_totals_kernel(const uint64_t *oa, const uint64_t *ob, uint64_t nw, gpu_prep_result *res)
{
    res->n_a = oa[nw];
    res->n_b = ob[nw];
}

/* Room for the prefix sums' CUB temporary storage, known without a CUDA call so the backend's
 * estimate (on the submitting thread) touches no device: CUB's decoupled look-back keeps one
 * 16-byte status word per tile of hundreds of items plus a warp of padding, far below one word
 * per item plus 64 KiB; gpu_prep_compact checks it. Small, so a tiny partition's estimate
 * stays tiny (test_gpu_engine's budget case). */
static uint64_t scan_temp_room(uint64_t nw) { return (nw + 1) * 8 + ((uint64_t)1 << 16); }

/* Layout: densities a, b (nw words each), counts a, b and offsets a, b (nw + 1 each), CUB temp
 * (256-aligned). */
extern "C" size_t gpu_prep_scratch_bytes(uint64_t num_aux)
{
    uint64_t nw = (num_aux + 63) / 64;
    return (size_t)((2 * nw + 4 * (nw + 1)) * 8 + 256 + scan_temp_room(nw));
}

extern "C" int gpu_prep_reset(gpu_prep_result *d_res, void *stream)
{
    CUDA_TRY(cudaMemsetAsync(d_res, 0xff, sizeof *d_res, (cudaStream_t)stream));
    return 0;
}

extern "C" int gpu_prep_check(void *d_x, uint64_t n, unsigned array, int to_mont, gpu_prep_result *d_res, void *stream)
{
    if (array > 255 || n >> 56) return err_set(CUZK_EINVAL, "scalar check: array %u of %llu values", array, (unsigned long long)n);
    if (!n) return 0;
    prep_check_kernel<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
        (fr_gpu *)d_x, n, (uint64_t)array << 56, to_mont, (unsigned long long *)&d_res->bad);
    CUDA_TRY_LAUNCH("scalar range check");
    return 0;
}

extern "C" int gpu_prep_compact(void *d_a, uint64_t cap_a, void *d_b, uint64_t cap_b, const void *d_aux,
                                uint64_t num_aux, const uint64_t *a_density, const uint64_t *b_density,
                                void *d_scratch, size_t scratch_bytes, gpu_prep_result *d_res, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    uint64_t nw = (num_aux + 63) / 64;
    if (scratch_bytes < gpu_prep_scratch_bytes(num_aux))
        return err_set(CUZK_EINVAL, "density compaction: %zu bytes of scratch for %llu scalars", scratch_bytes,
                       (unsigned long long)num_aux);
    uint64_t *dena = (uint64_t *)d_scratch, *denb = dena + nw, *ca = denb + nw, *cb = ca + nw + 1,
             *oa = cb + nw + 1, *ob = oa + nw + 1;
    uint8_t *temp = (uint8_t *)(ob + nw + 1);
    temp += (256 - (uintptr_t)temp % 256) % 256;
    size_t tb = 0;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(NULL, tb, (const uint64_t *)NULL, (uint64_t *)NULL, (int64_t)(nw + 1)));
    if (tb > scan_temp_room(nw))
        return err_set(CUZK_EDEVICE, "density compaction: the prefix sum wants %zu bytes of scratch, %llu planned", tb,
                       (unsigned long long)scan_temp_room(nw));
    if (nw) {
        CUDA_TRY(cudaMemcpyAsync(dena, a_density, nw * 8, cudaMemcpyHostToDevice, st));
        CUDA_TRY(cudaMemcpyAsync(denb, b_density, nw * 8, cudaMemcpyHostToDevice, st));
    }
    prep_popcount_kernel<<<(unsigned)((nw + 1 + 255) / 256), 256, 0, st>>>(dena, denb, ca, cb, num_aux);
    CUDA_TRY_LAUNCH("density popcount");
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp, tb, ca, oa, (int64_t)(nw + 1), st));
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp, tb, cb, ob, (int64_t)(nw + 1), st));
    if (num_aux) {
        prep_scatter_kernel<<<(unsigned)((num_aux + 255) / 256), 256, 0, st>>>(
            (fr_gpu *)d_a, cap_a, (fr_gpu *)d_b, cap_b, (const fr_gpu *)d_aux, num_aux, dena, denb, oa, ob);
        CUDA_TRY_LAUNCH("density scatter");
    }
    prep_totals_kernel<<<1, 1, 0, st>>>(oa, ob, nw, d_res);
    CUDA_TRY_LAUNCH("density totals");
    return 0;
}
