/* Page-locked host memory: anonymous mappings registered with CUDA, not cudaHostAlloc.
 *
 * Why (bench/probe/sync_probe.cu, bench/RESULTS.md session 9, 4 GiB on the H200):
 * cudaHostAlloc took 2270 ms and cudaFreeHost 615 ms, and while cudaFreeHost ran it held back
 * every other thread's launches (566 ms: an urgent partition's launch waited that long behind a
 * host's cuzk_host_free). cudaHostRegister of the same size took 155 ms and cudaHostUnregister
 * 79 ms, holding launches back 29 ms. So the engine's page-locked memory (cuzk_host_alloc,
 * keys' pinned blocks, the workers' staging, slots' small areas, MSM landing areas) is an
 * mmap'd range registered portable (every device's copy engine reads it) and mapped (kernels
 * read it over the bus: copy_h2d_by_sms), unregistered and unmapped when freed. */
#include <mutex>
#include <unordered_map>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda_util.cuh"
#include "cuda_util.h"

/* Each mapping's length, for munmap: frees are rare (a key, a host buffer), so one lock. */
static std::mutex maps_lock;
static std::unordered_map<uintptr_t, size_t> maps;

/* Large ranges in 2 MiB steps with transparent huge pages asked for: fewer pages for the
 * driver to pin and for the copy engine's translation. */
static size_t mapping_length(size_t bytes, bool *huge)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), huge_page = (size_t)2 << 20;
    *huge = bytes >= huge_page;
    const size_t step = *huge ? huge_page : page;
    return bytes > SIZE_MAX - step ? 0 : (bytes + step - 1) / step * step;
}

extern "C" int gpu_host_alloc(void **p, size_t bytes)
{
    *p = NULL;
    bool huge = false;
    const size_t len = mapping_length(bytes ? bytes : 1, &huge);
    if (!len) return err_set(CUZK_EDEVICE, "page-locked allocation of %zu bytes: too large", bytes);
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return err_set(CUZK_EDEVICE, "mmap of %zu bytes for page-locked memory failed", len);
    if (huge) (void)madvise(m, len, MADV_HUGEPAGE); /* a hint: without THP the range still works */
    const cudaError_t e = cudaHostRegister(m, len, cudaHostRegisterPortable | cudaHostRegisterMapped);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        munmap(m, len);
        return err_set(CUZK_EDEVICE, "cudaHostRegister of %zu bytes failed: %s (%s)", len, cudaGetErrorName(e),
                       cudaGetErrorString(e));
    }
    try {
        std::lock_guard<std::mutex> hold(maps_lock);
        maps.emplace((uintptr_t)m, len);
    } catch (...) { /* the bookkeeping's own allocation failed: give the range back */
        (void)cudaHostUnregister(m);
        munmap(m, len);
        return err_set(CUZK_EDEVICE, "page-locked allocation of %zu bytes: out of memory for its bookkeeping", bytes);
    }
    *p = m;
    return 0;
}

extern "C" void gpu_host_free(void *p)
{
    if (!p) return;
    size_t len = 0;
    {
        std::lock_guard<std::mutex> hold(maps_lock);
        auto it = maps.find((uintptr_t)p);
        if (it != maps.end()) len = it->second, maps.erase(it);
    }
    if (!len) { /* not ours: page-locked by cudaHostAlloc (nothing in libcuzk does that now) */
        if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
        return;
    }
    if (cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
    munmap(p, len);
}

extern "C" int gpu_host_register(void *p, size_t bytes)
{
    /* portable: every device's copy engine reads it; the pages stay where they are */
    CUDA_TRY(cudaHostRegister(p, bytes, cudaHostRegisterPortable));
    return 0;
}

extern "C" void gpu_host_unregister(void *p)
{
    if (p && cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
}

extern "C" int gpu_host_is_pinned(const void *p)
{
    cudaPointerAttributes a;
    if (!p || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}
