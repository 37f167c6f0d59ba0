/*
 * Precomputed shifted copies of resident MSM bases (issue 14, precomputation where memory
 * allows): copy j = 2^(c·g·j)·bases, each made from the one before by c·g doublings per point
 * (msm_shift.cuh), kept beside the bases for msm_gpu_run's merged windows (msm_plan.cuh).
 */
#include <cuda_runtime.h>

#include "msm.h"
#include "msm/msm_internal.cuh"
#include "msm/msm_plan.cuh"
#include "msm/msm_shift.cuh"

#include "cuda_util.cuh"
#include "cuda_util.h"

using namespace msmk;

template <class F>
__global__ void __launch_bounds__(64) k_shift(size_t n, unsigned dbls, const affine<F> *src, affine<F> *dst,
                                              xyzz<F> *scratch)
{
    shift_thread<F>((size_t)blockIdx.x * blockDim.x + threadIdx.x, n, dbls, src, dst, scratch);
}

static size_t point_bytes(int curve) { return curve == MSM_CURVE_G1 ? sizeof(affine<fp>) : sizeof(affine<fp2>); }

extern "C" size_t msm_gpu_precompute_bytes(int curve, size_t n, unsigned copies)
{
    return copies <= 1 ? 0 : (size_t)(copies - 1) * n * point_bytes(curve);
}

extern "C" unsigned msm_gpu_bases_copies(const msm_gpu_bases *b, unsigned *window_bits)
{
    if (window_bits) *window_bits = b && b->d_pre ? b->pre_c : 0;
    return b && b->d_pre ? b->copies : 1;
}

/* Copies 1 .. copies - 1 into b->d_pre, in slices of points through one xyzz scratch. */
template <class F> static int shift_all(msm_gpu_bases *b, unsigned copies, unsigned dbls)
{
    const size_t slice = (size_t)1 << 22, n = b->n, sp = n < slice ? n : slice;
    xyzz<F> *scratch = nullptr;
    GPU_TRY(gpu_malloc((void **)&scratch, sp * sizeof(xyzz<F>)));
    cudaError_t e = cudaSuccess;
    for (unsigned j = 1; j < copies && e == cudaSuccess; j++) {
        const affine<F> *src = j == 1 ? (const affine<F> *)b->d : (const affine<F> *)b->d_pre + (size_t)(j - 2) * n;
        affine<F> *dst = (affine<F> *)b->d_pre + (size_t)(j - 1) * n;
        for (size_t s0 = 0; s0 < n && e == cudaSuccess; s0 += slice) {
            const size_t cnt = n - s0 < slice ? n - s0 : slice, threads = (cnt + MSM_SHIFT_RUN - 1) / MSM_SHIFT_RUN;
            k_shift<F><<<(unsigned)((threads + 63) / 64), 64>>>(cnt, dbls, src + s0, dst + s0, scratch);
            e = cudaGetLastError();
        }
    }
    /* its own launches (the legacy stream), not the device; also after a failed launch, since
     * the pool may hand the scratch (and, on failure, the copies) out again at once */
    cudaError_t es = cudaStreamSynchronize(0);
    if (e == cudaSuccess) e = es;
    gpu_free(scratch);
    if (e != cudaSuccess) return gpu_error(e, "precomputing shifted bases", __FILE__, __LINE__);
    return CUZK_OK;
}

extern "C" int msm_gpu_bases_precompute(msm_gpu_bases *b, unsigned copies, unsigned window_bits)
{
    if (!b) return err_set(CUZK_EINVAL, "msm_gpu_bases_precompute: NULL bases");
    CUDA_TRY(cudaSetDevice(b->device));
    /* no copies first, then the old ones freed: a failure after leaves plain bases, never
     * fields that point at copies that may be gone */
    void *old = b->d_pre;
    b->d_pre = nullptr;
    b->copies = 1;
    b->pre_c = 0;
    gpu_free(old); /* no partition reads them: the caller holds the bases alone */
    if (copies <= 1) return CUZK_OK;
    const unsigned c = window_bits ? window_bits : msm_choose_window(b->n);
    if (c >= 4 && c <= 22 && copies <= msm_windows(c)) copies = msm_pre_copies(c, copies);
    if (c < 4 || c > 22 || copies > msm_windows(c))
        return err_set(CUZK_EINVAL, "msm_gpu_bases_precompute: %u copies of %u-bit windows (4..22 bits, at most "
                       "one copy per window)", copies, c);
    if ((double)copies * (double)b->n >= 2147483648.0)
        return err_set(CUZK_EINVAL, "msm_gpu_bases_precompute: %u copies of %zu points (at most 2^31 - 1 in all)",
                       copies, b->n);
    const unsigned dbls = c * msm_pre_windows(c, copies);
    void *fresh = nullptr;
    GPU_TRY(gpu_malloc(&fresh, msm_gpu_precompute_bytes(b->curve, b->n, copies)));
    b->d_pre = fresh;
    int rc = b->curve == MSM_CURVE_G1 ? shift_all<fp>(b, copies, dbls) : shift_all<fp2>(b, copies, dbls);
    if (rc) {
        gpu_free(b->d_pre);
        b->d_pre = nullptr;
        return rc;
    }
    b->copies = copies;
    b->pre_c = c;
    return CUZK_OK;
}
