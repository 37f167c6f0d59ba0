/*
 * For CUDA sources: turn every failing CUDA call into CUZK_EDEVICE with the call, the
 * error's name and text, and the source line in cuzk_last_error().
 */
#ifndef CUZK_CUDA_UTIL_CUH
#define CUZK_CUDA_UTIL_CUH

#include <cuda_runtime.h>

extern "C" {
#include "error.h"
}

/* Sets the detail and returns CUZK_EDEVICE; clears the runtime's non-sticky last error
 * (an allocation failure, say) so the next call does not report it again. */
static inline int gpu_error(cudaError_t e, const char *what, const char *file, int line)
{
    (void)cudaGetLastError();
    return err_set(CUZK_EDEVICE, "%s failed: %s (%s) at %s:%d", what, cudaGetErrorName(e),
                   cudaGetErrorString(e), file, line);
}

#define CUDA_TRY(call)                                                                    \
    do {                                                                                  \
        cudaError_t cuzk_e_ = (call);                                                     \
        if (cuzk_e_ != cudaSuccess) return gpu_error(cuzk_e_, #call, __FILE__, __LINE__); \
    } while (0)

/* After a kernel launch: launch-configuration errors surface here. */
#define CUDA_TRY_LAUNCH(what)                                                             \
    do {                                                                                  \
        cudaError_t cuzk_e_ = cudaGetLastError();                                         \
        if (cuzk_e_ != cudaSuccess) return gpu_error(cuzk_e_, what, __FILE__, __LINE__);  \
    } while (0)

/* Propagate an int status. */
#define GPU_TRY(expr)                  \
    do {                               \
        int cuzk_rc_ = (expr);         \
        if (cuzk_rc_ != 0) return cuzk_rc_; \
    } while (0)

/* cudaMemcpy host -> device that has landed when it returns. From pageable memory cudaMemcpy
 * returns once the data is staged, its DMA still queued on the legacy default stream, which our
 * non-blocking streams do not wait for: a kernel on one of them could read the destination
 * half-written (test_gpu_spmv saw it on a cold machine). Waiting for the legacy stream alone
 * waits for no other work. */
static inline cudaError_t cuda_copy_to_device_done(void *dst, const void *src, size_t bytes)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    return e != cudaSuccess ? e : cudaStreamSynchronize(cudaStreamLegacy);
}

/* Stream-ordered device memory from the current device's private pool (the one gpu_malloc
 * uses; cuda_util.cu): one pool per device, so memory a freed key or slot left cached there is
 * what an MSM's scratch reuses, and none sits cached in a second pool while the other runs out.
 * Freed with cudaFreeAsync. */
cudaError_t gpu_pool_malloc_async(void **p, size_t bytes, cudaStream_t stream);

/* Large copies in pieces of at most this many bytes (~1.3 ms on PCIe Gen5). A copy engine
 * serves the copies queued on it in order, whatever the streams' priorities: one 4 GiB copy
 * of a backlog partition would make an urgent partition's copy wait ~80 ms behind it. */
#define CUDA_COPY_PIECE ((size_t)64 << 20)
/* This thread's copies from page-locked memory to the device by kernels (gpu_copy_use_sms). */
extern thread_local bool cuzk_copy_by_sms;
/* dst (device) = src (page-locked host) by a kernel on stream; cudaErrorNotSupported (and no
 * work) when the pointers or size do not allow it. cuda_util.cu. */
cudaError_t copy_h2d_by_sms(void *dst, const void *src, size_t bytes, cudaStream_t stream);

/* cudaMemcpyAsync in CUDA_COPY_PIECE pieces, all enqueued on stream in order; by kernels for
 * a thread that asked (gpu_copy_use_sms). (Pacing the pieces, at most three queued, was
 * measured in session 6: it did not let an urgent stream's copy in sooner, the copy engine
 * still served the backlog's first, and it blocked the host where copies overlap compute.) */
static inline cudaError_t copy_async_pieces(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                                            cudaStream_t stream)
{
    if (cuzk_copy_by_sms && bytes && kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice) {
        const cudaError_t s = copy_h2d_by_sms(dst, src, bytes, stream);
        if (s != cudaErrorNotSupported) return s;
    }
    cudaError_t e = cudaSuccess;
    for (size_t off = 0; off < bytes && e == cudaSuccess; off += CUDA_COPY_PIECE)
        e = cudaMemcpyAsync((char *)dst + off, (const char *)src + off,
                            bytes - off < CUDA_COPY_PIECE ? bytes - off : CUDA_COPY_PIECE, kind, stream);
    return e;
}

#endif
