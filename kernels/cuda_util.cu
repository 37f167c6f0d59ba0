/* The CUDA runtime behind plain C calls (kernels/cuda_util.h), with errors as CUZK_EDEVICE. */
#include <atomic>
#include <mutex>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_util.cuh"
#include "cuda_util.h"

/* The GPU's hardware work queues a process's streams share: CUDA maps streams onto
 * CUDA_DEVICE_MAX_CONNECTIONS queues (8 unless set), round robin in creation order, and work in
 * one queue runs in the order it was enqueued whatever its stream. Each worker slot has three
 * streams, so with three slots an urgent slot's stream shared a queue with a bulk slot's and its
 * first copy waited for the bulk's whole enqueued MSM chain (3.5 s on the H200; trace in
 * bench/RESULTS.md). 32, the most CUDA allows, keeps ten slots per device apart. A host's own
 * setting wins; it only takes effect if set before CUDA first initializes in the process, which
 * this, the library's first CUDA call, is unless the host used CUDA before. */
/* Module loading: eager unless the host says otherwise. Lazy loading loads a kernel at its
 * first launch, and only once every running kernel of the device has ended: an urgent
 * partition's first launch of a kernel would wait for the backlog's chunk in flight. */
static void gpu_connections_setup(void)
{
    static const bool done = setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0) == 0 && /* once: C++ statics */
                             setenv("CUDA_MODULE_LOADING", "EAGER", 0) == 0;
    (void)done;
}

extern "C" int gpu_device_count(void)
{
    int n = 0;
    gpu_connections_setup();
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" int gpu_device_describe(int dev, char *buf, size_t len)
{
    cudaDeviceProp p;
    CUDA_TRY(cudaGetDeviceProperties(&p, dev));
    snprintf(buf, len, "%s (%d SMs, %.1f GiB, sm_%d%d)", p.name, p.multiProcessorCount,
             p.totalGlobalMem / 1073741824.0, p.major, p.minor);
    return 0;
}

extern "C" int gpu_set_device(int dev)
{
    CUDA_TRY(cudaSetDevice(dev));
    return 0;
}

extern "C" int gpu_get_device(int *dev)
{
    CUDA_TRY(cudaGetDevice(dev));
    return 0;
}

extern "C" int gpu_synchronize(void)
{
    CUDA_TRY(cudaDeviceSynchronize());
    return 0;
}

/* Each device's private pool and the stream its allocations and frees are ordered on (no other
 * work ever runs there, so an allocation waits only for the pool, a free for nothing). */
#define GPU_POOL_DEVICES 64
static std::mutex pool_lock;
static cudaMemPool_t pools[GPU_POOL_DEVICES];
static cudaStream_t pool_streams[GPU_POOL_DEVICES];

static cudaError_t pool_of(int dev, cudaMemPool_t *pool, cudaStream_t *stream)
{
    if (dev < 0 || dev >= GPU_POOL_DEVICES) return cudaErrorInvalidDevice;
    std::lock_guard<std::mutex> hold(pool_lock);
    if (!pools[dev]) {
        cudaMemPoolProps pp = {};
        pp.allocType = cudaMemAllocationTypePinned;
        pp.location.type = cudaMemLocationTypeDevice;
        pp.location.id = dev;
        cudaMemPool_t p = nullptr;
        cudaStream_t s = nullptr;
        cudaError_t e = cudaMemPoolCreate(&p, &pp);
        /* keep freed memory mapped: the next key or slot reuses it without the driver (a cudaMalloc
         * elsewhere in the process still gets it: the driver trims pools for it, seen on the H200) */
        unsigned long long keep = ~0ull;
        if (e == cudaSuccess) e = cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        if (e != cudaSuccess) {
            if (p) cudaMemPoolDestroy(p);
            return e;
        }
        pools[dev] = p, pool_streams[dev] = s;
    }
    *pool = pools[dev], *stream = pool_streams[dev];
    return cudaSuccess;
}

/* The current device's pool and its stream. */
static cudaError_t current_pool(cudaMemPool_t *pool, cudaStream_t *stream)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    return e == cudaSuccess ? pool_of(dev, pool, stream) : e;
}

extern "C" int gpu_malloc(void **p, size_t bytes)
{
    *p = NULL;
    cudaMemPool_t pool;
    cudaStream_t st = nullptr;
    cudaError_t e = current_pool(&pool, &st);
    if (e == cudaSuccess) e = cudaMallocFromPoolAsync(p, bytes ? bytes : 1, pool, st);
    /* usable from every stream once the pool's stream has passed it */
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (*p) (void)cudaFreeAsync(*p, st);
        *p = NULL;
        return err_set(CUZK_EDEVICE, "device allocation of %zu bytes (cudaMallocFromPoolAsync) failed: %s (%s)", bytes,
                       cudaGetErrorName(e), cudaGetErrorString(e));
    }
    return 0;
}

cudaError_t gpu_pool_malloc_async(void **p, size_t bytes, cudaStream_t stream)
{
    cudaMemPool_t pool;
    cudaStream_t own;
    cudaError_t e = current_pool(&pool, &own);
    return e == cudaSuccess ? cudaMallocFromPoolAsync(p, bytes, pool, stream) : e;
}

extern "C" void gpu_free(void *p)
{
    if (!p) return;
    cudaPointerAttributes a;
    cudaMemPool_t pool;
    cudaStream_t st;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess || pool_of(a.device, &pool, &st) != cudaSuccess ||
        cudaFreeAsync(p, st) != cudaSuccess)
        (void)cudaGetLastError();
}

extern "C" int gpu_pool_used(int dev, uint64_t *used, uint64_t *reserved)
{
    cudaMemPool_t pool;
    cudaStream_t st;
    unsigned long long u = 0, r = 0;
    CUDA_TRY(pool_of(dev, &pool, &st));
    CUDA_TRY(cudaStreamSynchronize(st));
    CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &u));
    CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &r));
    *used = u, *reserved = r;
    return 0;
}

extern "C" void gpu_mem_trim(void)
{
    /* pools are never destroyed once made: read them under the lock, wait outside it (a
     * gpu_malloc of another engine does not wait behind these syncs) */
    cudaMemPool_t p[GPU_POOL_DEVICES];
    cudaStream_t st[GPU_POOL_DEVICES];
    {
        std::lock_guard<std::mutex> hold(pool_lock);
        for (int d = 0; d < GPU_POOL_DEVICES; d++) p[d] = pools[d], st[d] = pool_streams[d];
    }
    for (int d = 0; d < GPU_POOL_DEVICES; d++)
        if (p[d] && (cudaStreamSynchronize(st[d]) != cudaSuccess || cudaMemPoolTrimTo(p[d], 0) != cudaSuccess))
            (void)cudaGetLastError();
}

thread_local bool cuzk_copy_by_sms = false;
static std::atomic<uint64_t> sm_copies{0};

extern "C" void gpu_copy_use_sms(int on) { cuzk_copy_by_sms = on != 0; }

extern "C" uint64_t gpu_copy_sm_count(void) { return sm_copies.load(std::memory_order_relaxed); }

/* Reads from host memory over the bus: four 16-byte loads in flight per thread before their
 * stores keep enough requests outstanding to approach the link's rate. */
__global__ void h2d_sm_copy_kernel(uint4 *__restrict__ dst, const uint4 *__restrict__ src, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a, dst[i + stride] = b, dst[i + 2 * stride] = c, dst[i + 3 * stride] = d;
    }
    for (; i < n; i += stride) dst[i] = src[i];
}

cudaError_t copy_h2d_by_sms(void *dst, const void *src, size_t bytes, cudaStream_t stream)
{
    if (((uintptr_t)dst | (uintptr_t)src | bytes) & 15) return cudaErrorNotSupported;
    cudaPointerAttributes as, ad;
    if (cudaPointerGetAttributes(&as, src) != cudaSuccess || cudaPointerGetAttributes(&ad, dst) != cudaSuccess) {
        (void)cudaGetLastError(); /* the failed lookup's error is not the caller's */
        return cudaErrorNotSupported;
    }
    if (as.type != cudaMemoryTypeHost || !as.devicePointer || ad.type != cudaMemoryTypeDevice)
        return cudaErrorNotSupported;
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return cudaGetLastError();
    const size_t n = bytes / 16, want = (n + 1023) / 1024; /* a block of 256 per 16 KiB, at most 2 per SM */
    const unsigned blocks = (unsigned)(want < 1 ? 1 : want > (size_t)2 * sms ? (size_t)2 * sms : want);
    h2d_sm_copy_kernel<<<blocks, 256, 0, stream>>>((uint4 *)dst, (const uint4 *)as.devicePointer, n);
    const cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) sm_copies.fetch_add(1, std::memory_order_relaxed); /* a statistic, for tests */
    return e;
}

extern "C" int gpu_gate_init(gpu_gate *g, const uint32_t *word)
{
    cudaEvent_t e = nullptr;
    g->word = word;
    g->done = nullptr;
    CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventBlockingSync));
    g->done = (void *)e;
    return 0;
}

extern "C" void gpu_gate_fini(gpu_gate *g)
{
    if (g->done) (void)cudaEventDestroy((cudaEvent_t)g->done);
    g->done = nullptr;
}

extern "C" void gpu_gate_hold(const uint32_t *word)
{
    /* urgent partitions run for tens of ms at least: a 100 us nap is far below their time */
    while (word && __atomic_load_n(word, __ATOMIC_ACQUIRE)) {
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
}

extern "C" int gpu_gate_pass(const gpu_gate *g, void *stream)
{
    if (!g) return 0;
    cudaEvent_t ev = (cudaEvent_t)g->done;
    CUDA_TRY(cudaEventRecord(ev, (cudaStream_t)stream));
    CUDA_TRY(cudaEventSynchronize(ev)); /* this chunk done: nothing of this stream is left queued */
    gpu_gate_hold(g->word);
    return 0;
}

extern "C" int gpu_memcpy_to_device(void *dst, const void *src, size_t bytes)
{
    CUDA_TRY(cuda_copy_to_device_done(dst, src, bytes));
    return 0;
}

extern "C" int gpu_memcpy_to_host(void *dst, const void *src, size_t bytes)
{
    CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int gpu_memcpy_async(void *dst, const void *src, size_t bytes, void *stream)
{
    CUDA_TRY(copy_async_pieces(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream));
    return 0;
}

extern "C" int gpu_memset_async(void *dst, int value, size_t bytes, void *stream)
{
    CUDA_TRY(cudaMemsetAsync(dst, value, bytes, (cudaStream_t)stream));
    return 0;
}

extern "C" int gpu_stream_create(void **stream)
{
    cudaStream_t s;
    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    *stream = (void *)s;
    return 0;
}

extern "C" void gpu_stream_destroy(void *stream)
{
    if (stream) (void)cudaStreamDestroy((cudaStream_t)stream);
}

extern "C" int gpu_stream_sync(void *stream)
{
    CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream));
    return 0;
}

extern "C" int gpu_event_create(void **ev)
{
    cudaEvent_t e;
    CUDA_TRY(cudaEventCreate(&e));
    *ev = (void *)e;
    return 0;
}

extern "C" void gpu_event_destroy(void *ev)
{
    if (ev) (void)cudaEventDestroy((cudaEvent_t)ev);
}

extern "C" int gpu_event_record(void *ev, void *stream)
{
    CUDA_TRY(cudaEventRecord((cudaEvent_t)ev, (cudaStream_t)stream));
    return 0;
}

extern "C" int gpu_event_sync(void *ev)
{
    CUDA_TRY(cudaEventSynchronize((cudaEvent_t)ev));
    return 0;
}

extern "C" int gpu_stream_wait_event(void *stream, void *ev)
{
    CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)ev, 0));
    return 0;
}

extern "C" int gpu_event_elapsed_ms(float *ms, void *start, void *end)
{
    CUDA_TRY(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end));
    return 0;
}

extern "C" int gpu_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    CUDA_TRY(cudaMemGetInfo(free_bytes, total_bytes));
    return 0;
}

extern "C" int gpu_stream_create_priority(void **stream, int urgent)
{
    int least = 0, greatest = 0;
    CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s;
    /* urgent n >= 1: the n-th highest priority, above the lowest (numerically: greatest is the
     * smallest number) */
    int prio = least;
    if (urgent > 0) prio = greatest + (urgent - 1) < least ? greatest + (urgent - 1) : (least > greatest ? least - 1 : least);
    CUDA_TRY(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, prio));
    *stream = (void *)s;
    return 0;
}

extern "C" int gpu_event_create_sync_only(void **ev)
{
    cudaEvent_t e;
    CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    *ev = (void *)e;
    return 0;
}
