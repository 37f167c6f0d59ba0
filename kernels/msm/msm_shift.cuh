/*
 * Shifted copies of MSM bases (issue 14, precomputation where memory allows): dst[i] =
 * 2^dbls·src[i], affine, one thread per run of points with one shared inversion
 * (Montgomery's trick). A __host__ __device__ body so the host simulation makes its copies
 * with the same code the kernel runs (msm_bases.cu, msm_sim.cu).
 */
#ifndef CUZK_MSM_SHIFT_CUH
#define CUZK_MSM_SHIFT_CUH

#include "msm/msm_kernels.cuh"

namespace msmk {

/* Points per thread of the shift: the inversion is amortised over them. */
#define MSM_SHIFT_RUN 32

/* Thread th shifts points [th·MSM_SHIFT_RUN, +MSM_SHIFT_RUN) ∩ [0, n) of src into dst;
 * scratch holds n xyzz points (the doubled values wait there for the inversion). Infinity
 * stays infinity (all zero) and is skipped by the batched inversion. */
template <class F>
FPM_HD void shift_thread(size_t th, size_t n, unsigned dbls, const affine<F> *src, affine<F> *dst, xyzz<F> *scratch)
{
    const size_t j0 = th * MSM_SHIFT_RUN;
    if (j0 >= n) return;
    const unsigned cnt = (unsigned)(n - j0 < MSM_SHIFT_RUN ? n - j0 : MSM_SHIFT_RUN);
    xyzz<F> *s = scratch + j0;
    affine<F> *o = dst + j0;
    F prod, one;
    f_set_one(one);
    prod = one;
    for (unsigned j = 0; j < cnt; j++) {
        xyzz<F> p = from_aff(load16(src + j0 + j));
        for (unsigned d = 0; d < dbls; d++) p = dbl(p);
        store16(s + j, p);
        prod = f_mul(prod, is_inf(p) ? one : f_mul(p.zz, p.zzz));
        o[j].x = prod; /* prefix products parked in the output */
    }
    F inv = f_inv(prod);
    for (int j = (int)cnt - 1; j >= 0; j--) {
        const xyzz<F> p = load16(s + j);
        if (is_inf(p)) {
            f_set_zero(o[j].x);
            f_set_zero(o[j].y);
            continue;
        }
        const F inv_j = j ? f_mul(inv, o[j - 1].x) : inv; /* 1/(ZZ·ZZZ) of point j */
        inv = f_mul(inv, f_mul(p.zz, p.zzz));
        o[j].x = f_mul(p.x, f_mul(inv_j, p.zzz));
        o[j].y = f_mul(p.y, f_mul(inv_j, p.zz));
    }
}

} /* namespace msmk */

#endif
