/*
 * What msm.cu, msm_sim.cu and msm_bases.cu share: the resident-bases handle and the host's
 * Horner step.
 */
#ifndef CUZK_MSM_INTERNAL_CUH
#define CUZK_MSM_INTERNAL_CUH

#ifdef __CUDACC__
#include <cuda_runtime.h>
#endif
#include <stddef.h>

#include "curve/xyzz.cuh"

struct msm_gpu_bases {
    int device;
    int curve; /* MSM_CURVE_G1 / MSM_CURVE_G2 */
    size_t n;
    void *d;   /* affine points, g1_aff / g2_aff layout */
    /* msm_gpu_bases_precompute: copies - 1 shifted copies after d's (copy j of point i at
     * d_pre[(j - 1)·n + i] = 2^(pre_c·g·j)·d[i]), NULL when copies <= 1 */
    void *d_pre;
    unsigned copies, pre_c;
};

/* out = sum over w < nwin of 2^(c·w)·w[w], plus w[nwin] (the ones), with lib/field's Jacobian
 * arithmetic (a single GPU thread is slower at ~255 doublings than a CPU core). */
void msm_horner(curve::jacobian<fpm::fp> *out, const curve::jacobian<fpm::fp> *w, unsigned nwin, unsigned c);
void msm_horner(curve::jacobian<fpm::fp2> *out, const curve::jacobian<fpm::fp2> *w, unsigned nwin, unsigned c);

#endif
