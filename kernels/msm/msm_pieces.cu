/*
 * Which pieces of a scalar vector hold anything but zeros: a streamed MSM copies only the
 * bases of those pieces (a piece of zero scalars adds nothing).
 */
#include <cuda_runtime.h>

#include "msm.h"
#include "cuda_util.cuh"
#include "msm/msm_internal.cuh"

extern "C" {
#include "error.h"
}

__global__ void k_pieces_nonzero(const uint64_t *s, size_t n, size_t piece, uint8_t *flags)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint64_t *v = s + 4 * i; /* 16-byte aligned at best: four plain loads */
    if (v[0] | v[1] | v[2] | v[3]) flags[i / piece] = 1; /* racing stores of the same 1: benign */
}

extern "C" int msm_gpu_pieces_nonzero(const void *d_scalars, size_t n, size_t piece, uint8_t *d_flags, void *stream)
{
    if (!piece || (n && (!d_scalars || !d_flags))) return err_set(CUZK_EINVAL, "msm_gpu_pieces_nonzero: bad argument");
    if (!n) return CUZK_OK;
    cudaStream_t st = (cudaStream_t)stream;
    CUDA_TRY(cudaMemsetAsync(d_flags, 0, (n + piece - 1) / piece, st));
    k_pieces_nonzero<<<(unsigned)((n + 255) / 256), 256, 0, st>>>((const uint64_t *)d_scalars, n, piece, d_flags);
    CUDA_TRY_LAUNCH("pieces_nonzero");
    return CUZK_OK;
}
