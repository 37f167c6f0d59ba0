/*
 * Which CUDA runtime calls wait for other streams' work, and which block other threads' calls
 * while they wait: the facts the engine's no-stall design rests on (issue 25). Each call is
 * timed from a second thread while a spin kernel of SPIN_MS holds a non-blocking stream; a call
 * that takes about the kernel's remaining time waited for it. Then a launch from a third thread
 * is timed while the second one sits in a waiting call (driver lock or not). Last, a private
 * stream-ordered pool: what a freed block lets later allocations reuse.
 *   nvcc -O2 -std=c++17 -arch=sm_90 bench/probe/sync_probe.cu -o build/sync_probe -lpthread
 * Not part of the build: a one-off measurement, recorded in bench/RESULTS.md.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#define SPIN_MS 800
#define MB (1ull << 20)

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

__global__ void spin(unsigned long long ns)
{
    unsigned long long t0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (;;) {
        unsigned long long t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 >= ns) break;
        __nanosleep(1000);
    }
}

__global__ void tiny(int *p) { if (p) *p = 1; }

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            printf("  %s: %s\n", #x, cudaGetErrorString(e_));                                  \
            (void)cudaGetLastError();                                                          \
        }                                                                                      \
    } while (0)

static cudaStream_t busy, other;
static cudaMemPool_t pool;

/* Starts a spin kernel on `busy`, waits until it runs, returns when it started (ms). */
static double start_spin(void)
{
    spin<<<1, 1, 0, busy>>>((unsigned long long)SPIN_MS * 1000000ull);
    usleep(50 * 1000);
    return now_ms() - 50;
}

typedef void (*op_fn)(void *);
struct op { const char *name; op_fn fn; };

static void *d_keep, *h_keep, *h_plain;

static void op_malloc(void *) { CK(cudaMalloc(&d_keep, 64 * MB)); }
static void op_free(void *) { CK(cudaFree(d_keep)); d_keep = NULL; }
static void op_malloc_pool(void *) { CK(cudaMallocFromPoolAsync(&d_keep, 64 * MB, pool, other)); CK(cudaStreamSynchronize(other)); }
static void op_free_pool(void *) { CK(cudaFreeAsync(d_keep, other)); CK(cudaStreamSynchronize(other)); d_keep = NULL; }
static void op_host_alloc(void *) { CK(cudaHostAlloc(&h_keep, 64 * MB, cudaHostAllocPortable)); }
static void op_free_host(void *) { CK(cudaFreeHost(h_keep)); h_keep = NULL; }
static void op_register(void *) { CK(cudaHostRegister(h_plain, 64 * MB, cudaHostRegisterPortable)); }
static void op_unregister(void *) { CK(cudaHostUnregister(h_plain)); }
static void op_memcpy_pageable(void *)
{
    void *d;
    CK(cudaMallocFromPoolAsync(&d, 64 * MB, pool, other));
    CK(cudaStreamSynchronize(other));
    CK(cudaMemcpy(d, h_plain, 64 * MB, cudaMemcpyHostToDevice));
    CK(cudaFreeAsync(d, other));
}
static void op_memcpy_async_other(void *)
{
    void *d;
    CK(cudaMallocFromPoolAsync(&d, 64 * MB, pool, other));
    CK(cudaMemcpyAsync(d, h_plain, 64 * MB, cudaMemcpyHostToDevice, other));
    CK(cudaStreamSynchronize(other));
    CK(cudaFreeAsync(d, other));
}
static void op_stream_create(void *) { cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); CK(cudaStreamDestroy(s)); }
static void op_event(void *) { cudaEvent_t e; CK(cudaEventCreate(&e)); CK(cudaEventDestroy(e)); }
static void op_meminfo(void *) { size_t f, t; CK(cudaMemGetInfo(&f, &t)); }
static void op_trim(void *) { CK(cudaMemPoolTrimTo(pool, 0)); }
static void op_launch_legacy(void *) { tiny<<<1, 1>>>(NULL); CK(cudaStreamSynchronize(0)); }

/* a launch + event record from another thread while one thread waits in a call */
struct side { double ms; };
static void *side_launch(void *arg)
{
    usleep(100 * 1000); /* the main thread is in its call by now */
    double t0 = now_ms();
    tiny<<<1, 1, 0, other>>>(NULL);
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    cudaEventRecord(e, other);
    cudaEventSynchronize(e);
    cudaEventDestroy(e);
    ((side *)arg)->ms = now_ms() - t0;
    return NULL;
}

int main(void)
{
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&busy, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    cudaMemPoolProps pp = {};
    pp.allocType = cudaMemAllocationTypePinned;
    pp.location.type = cudaMemLocationTypeDevice;
    pp.location.id = 0;
    CK(cudaMemPoolCreate(&pool, &pp));
    unsigned long long thr = ~0ull;
    CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
    h_plain = malloc(64 * MB);
    memset(h_plain, 1, 64 * MB);
    tiny<<<1, 1, 0, busy>>>(NULL);
    CK(cudaDeviceSynchronize());

    const op ops[] = {
        {"cudaMalloc 64 MiB", op_malloc},           {"cudaFree", op_free},
        {"cudaMallocFromPoolAsync+sync own", op_malloc_pool}, {"cudaFreeAsync+sync own", op_free_pool},
        {"cudaHostAlloc 64 MiB", op_host_alloc},    {"cudaFreeHost", op_free_host},
        {"cudaHostRegister 64 MiB", op_register},   {"cudaHostUnregister", op_unregister},
        {"cudaMemcpy pageable H2D", op_memcpy_pageable}, {"cudaMemcpyAsync other+sync", op_memcpy_async_other},
        {"stream create+destroy", op_stream_create}, {"event create+destroy", op_event},
        {"cudaMemGetInfo", op_meminfo},             {"cudaMemPoolTrimTo", op_trim},
        {"launch+sync legacy stream", op_launch_legacy},
    };
    printf("call (a %d ms kernel holds another stream)   call ms   waited-for-kernel   side launch ms\n", SPIN_MS);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        double t_spin = start_spin();
        side sd = {0};
        pthread_t th;
        pthread_create(&th, NULL, side_launch, &sd);
        double t0 = now_ms();
        ops[i].fn(NULL);
        double t1 = now_ms();
        pthread_join(th, NULL);
        double left = SPIN_MS - (t0 - t_spin);
        printf("%-40s %8.1f   %s   %8.1f\n", ops[i].name, t1 - t0, t1 - t0 > 0.5 * left ? "YES" : "no ", sd.ms);
        CK(cudaStreamSynchronize(busy));
    }

    /* the pool's reuse: a freed 2 GiB block, then two 1 GiB allocations, then one of 3 GiB */
    size_t fr0, tot;
    CK(cudaMemGetInfo(&fr0, &tot));
    void *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    CK(cudaMallocFromPoolAsync(&a, 2048 * MB, pool, other));
    CK(cudaFreeAsync(a, other));
    CK(cudaStreamSynchronize(other));
    CK(cudaMallocFromPoolAsync(&b, 1024 * MB, pool, other));
    CK(cudaMallocFromPoolAsync(&c, 1024 * MB, pool, other));
    CK(cudaStreamSynchronize(other));
    unsigned long long reserved = 0, used = 0;
    CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    printf("pool: 2 GiB freed, then 2 x 1 GiB: reserved %.0f MiB, used %.0f MiB\n", reserved / 1048576.0, used / 1048576.0);
    CK(cudaFreeAsync(b, other));
    CK(cudaFreeAsync(c, other));
    CK(cudaStreamSynchronize(other));
    CK(cudaMallocFromPoolAsync(&d, 3072 * MB, pool, other));
    CK(cudaStreamSynchronize(other));
    CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    printf("pool: then 3 GiB: reserved %.0f MiB\n", reserved / 1048576.0);
    CK(cudaFreeAsync(d, other));
    CK(cudaStreamSynchronize(other));
    /* a plain cudaMalloc of (almost) all free memory while the pool holds its cache */
    size_t fr1;
    CK(cudaMemGetInfo(&fr1, &tot));
    printf("free before pool %.0f MiB, with the pool's cache %.0f MiB\n", fr0 / 1048576.0, fr1 / 1048576.0);
    void *big = NULL;
    cudaError_t e = cudaMallocFromPoolAsync(&big, fr0 - 512 * MB, pool, other);
    if (e == cudaSuccess) e = cudaStreamSynchronize(other);
    printf("pool alloc of (free before pool - 512 MiB) with the cache held: %s\n", cudaGetErrorString(e));
    (void)cudaGetLastError();
    if (big) CK(cudaFreeAsync(big, other));
    CK(cudaStreamSynchronize(other));
    CK(cudaMemPoolTrimTo(pool, 0));
    size_t fr2;
    CK(cudaMemGetInfo(&fr2, &tot));
    printf("after trim: free %.0f MiB (before pool %.0f)\n", fr2 / 1048576.0, fr0 / 1048576.0);
    /* a cudaMalloc that needs the pool's cache released: does the driver trim for it? */
    CK(cudaMallocFromPoolAsync(&a, fr2 / 2, pool, other));
    CK(cudaFreeAsync(a, other));
    CK(cudaStreamSynchronize(other));
    e = cudaMalloc(&big, fr2 * 3 / 4);
    printf("cudaMalloc of 3/4 free while the pool caches 1/2: %s\n", cudaGetErrorString(e));
    (void)cudaGetLastError();
    if (e == cudaSuccess) cudaFree(big);
    CK(cudaMemPoolDestroy(pool));

    /* a partition-sized page-locked buffer (4 GiB) made and freed with the device idle: how long,
     * and how long another thread's launch waits meanwhile (the driver lock, not the device).
     * mode 0: cudaHostAlloc/cudaFreeHost; 1: malloc'd and touched, then registered; 2: what
     * libcuzk does since session 10 (kernels/host_pinned.cu): an untouched anonymous mapping
     * with huge pages asked for, registered portable and mapped, unregistered and unmapped */
    static const char *const mode_name[3] = {"cudaHostAlloc/FreeHost", "cudaHostRegister/Unregister (touched)",
                                             "mmap+cudaHostRegister(Portable|Mapped)/Unregister+munmap"};
    for (int mode = 0; mode < 3; mode++) {
        void *h = NULL;
        size_t big4 = 4096 * MB;
        double t0 = now_ms();
        if (mode == 1) {
            h = malloc(big4);
            memset(h, 1, big4);
            t0 = now_ms();
            CK(cudaHostRegister(h, big4, cudaHostRegisterPortable));
        } else if (mode == 2) {
            h = mmap(NULL, big4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (h == MAP_FAILED) return 1;
            madvise(h, big4, MADV_HUGEPAGE);
            CK(cudaHostRegister(h, big4, cudaHostRegisterPortable | cudaHostRegisterMapped));
        } else CK(cudaHostAlloc(&h, big4, cudaHostAllocPortable));
        double t1 = now_ms();
        side sd = {0};
        pthread_t th;
        pthread_create(&th, NULL, side_launch, &sd);
        usleep(50 * 1000);
        double t2 = now_ms();
        if (mode) CK(cudaHostUnregister(h));
        else CK(cudaFreeHost(h));
        if (mode == 2) munmap(h, big4);
        double t3 = now_ms();
        pthread_join(th, NULL);
        if (mode == 1) free(h);
        printf("4 GiB %s: make %.1f ms, free %.1f ms, a launch from another thread during the free %.1f ms\n",
               mode_name[mode], t1 - t0, t3 - t2, sd.ms);
    }
    return 0;
}
