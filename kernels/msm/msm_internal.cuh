/*
 * What msm.cu and msm_bases.cu share: the resident-bases handle and the CUDA error mapping.
 */
#ifndef CUZK_MSM_INTERNAL_CUH
#define CUZK_MSM_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>

struct msm_gpu_bases {
    int device;
    int curve; /* MSM_CURVE_G1 / MSM_CURVE_G2 */
    size_t n;
    void *d;   /* affine points, g1_aff / g2_aff layout */
};

/* Clears the (non-sticky) error state and returns CUZK_EDEVICE naming the call. */
int msm_cuda_fail(cudaError_t e, const char *what);

#endif
