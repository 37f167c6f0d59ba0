/*
 * The MSM's device executor (dev_exec): what runs msm_plan.cuh's steps on one stream — the
 * kernel launcher, CUB's radix sort and selection, scratch that grows on demand from the
 * stream-ordered pool or, during msm_gpu_ctx_lend, from lent memory, the page-locked landing
 * area of read-backs and the optional per-phase profile. Only msm.cu includes it.
 */
#ifndef CUZK_MSM_EXEC_CUH
#define CUZK_MSM_EXEC_CUH

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "msm.h"
#include "msm/msm_plan.cuh"

#include "cuda_util.cuh"
#include "cuda_util.h"

namespace msmk {

/* Occupancy hint per kernel: a functor that sets min_blocks asks the compiler for that many
 * resident blocks (a register cap). msm_plan.cuh (acc_fn: XYZZ, no cap) and msm_pairwise.cuh
 * (acc_pair_fn: G1 at 3 blocks) say what it gave. */
template <class Fn, class = void> struct min_blocks_of {
    static constexpr unsigned value = 1;
};
template <class Fn> struct min_blocks_of<Fn, decltype((void)Fn::min_blocks)> {
    static constexpr unsigned value = Fn::min_blocks;
};

template <unsigned BS, class Fn> __global__ void __launch_bounds__(BS, min_blocks_of<Fn>::value) k_for(Fn f, size_t n)
{
    size_t t = (size_t)blockIdx.x * BS + threadIdx.x;
    if (t < n) f(t);
}

/* ---- the device executor ---- */
struct dev_exec {
    int device;
    acc_mode acc;
    cudaStream_t stream;
    unsigned sms;
    void *cub_tmp = nullptr;
    size_t cub_cap = 0;
    std::vector<std::pair<void *, size_t>> caps; /* buffer -> capacity */

    size_t cap_of(void *p) const
    {
        for (auto &c : caps)
            if (c.first == p) return c.second;
        return 0;
    }
    /* One buffer back to the pool, stream-ordered (after the work enqueued that uses it). */
    void forget(const void *p)
    {
        for (auto &c : caps)
            if (c.first == p) c = {nullptr, 0};
    }
    /* One buffer back to the pool, stream-ordered (after the work enqueued that uses it); lent
     * memory is only forgotten (msm_gpu_ctx_lend: the lender owns it). */
    int drop(void **p)
    {
        if (!*p) return 0;
        forget(*p);
        if (!in_arena(*p)) CUDA_TRY(cudaFreeAsync(*p, stream));
        *p = nullptr;
        return 0;
    }
    /* ---- msm_gpu_ctx_lend: while arena is set, every buffer (arena_b's, and CUB's storage)
     * is bump-allocated from [arena, arena + arena_bytes) and never freed: the loan is memory
     * the lender counted as its own, so a request beyond it fails rather than take the pool's
     * (the device's budget would be exceeded). A buffer that must grow grows in place when it
     * is the latest allocation, else is made anew (the old space stays unused until the loan
     * ends): the sort buffers are reserved at arena_entries at once so that a group of more
     * entries than the first piece's (a later piece with fewer scalars other than 0 and 1
     * groups more windows) never leaves its smaller buffers behind. */
    char *arena = nullptr;
    size_t arena_bytes = 0, arena_used = 0, arena_entries = 0;
    void *arena_last = nullptr;     /* the latest allocation */
    msm_bufs *arena_b = nullptr;    /* the lent buffers */
    void *pool_cub = nullptr;       /* the pool's CUB storage, set aside during the loan */
    size_t pool_cub_cap = 0;
    bool in_arena(const void *p) const
    {
        return arena && (const char *)p >= arena && (const char *)p < arena + arena_bytes;
    }
    /* The bytes to reserve for a request to buffer p of the loan: a large run's sort buffers
     * at the loan's entries, and a group's buckets, where the pieces share an array over every
     * window (made just before, plan_add), at that array's size — a later piece with fewer
     * scalars other than 0 and 1 groups more windows (up to all), and its larger group must
     * not leave the first one's buckets behind (PoRep's H at 2^26 entries: 8 windows of 13). */
    size_t lent_request(void **p, size_t bytes) const
    {
        const bool sort = arena_b && (p == &arena_b->keys[0] || p == &arena_b->keys[1] || p == &arena_b->vals[0] ||
                                      p == &arena_b->vals[1]);
        const size_t most = arena_entries * sizeof(uint32_t);
        if (sort && bytes >= most / 2 && bytes < most) return most;
        const size_t all = arena_b && p == &arena_b->buckets ? cap_of(arena_b->buckets2) : 0;
        return bytes < all ? all : bytes;
    }
    int arena_take(void **p, size_t bytes)
    {
        bytes = bytes < 256 ? 256 : (bytes + 255) & ~(size_t)255; /* 256-byte aligned, as the pool's */
        const bool last = *p && *p == arena_last;
        const size_t at = last ? arena_used - cap_of(*p) : arena_used;
        if (bytes > arena_bytes || at > arena_bytes - bytes)
            return err_set(CUZK_EDEVICE,
                           "msm: a run on lent memory needs %zu bytes at offset %zu, but only %zu bytes are lent",
                           bytes, at, arena_bytes);
        if (*p) forget(*p);
        *p = arena + at;
        arena_used = at + bytes;
        arena_last = *p;
        caps.push_back({*p, bytes});
        return 0;
    }
    int ensure(void **p, size_t bytes)
    {
        if (*p && cap_of(*p) >= bytes) return 0;
        if (arena) return arena_take(p, lent_request(p, bytes));
        /* stream-ordered: cudaFree would wait for every stream of the device (an urgent
         * partition's MSM behind a backlog's whole MSM) */
        GPU_TRY(drop(p));
        bytes = bytes < 256 ? 256 : bytes;
        CUDA_TRY(gpu_pool_malloc_async((void **)p, bytes, stream));
        caps.push_back({*p, bytes});
        return 0;
    }
    /* stream-ordered too (the caller saw the stream idle): cudaFree would hold back every other
     * thread's launches until the whole device is idle */
    void release_all(msm_bufs &b)
    {
        void **all = (void **)&b;
        for (size_t i = 0; i < sizeof b / sizeof(void *); i++)
            if (all[i] && !in_arena(all[i])) (void)cudaFreeAsync(all[i], stream);
        memset(&b, 0, sizeof b);
        /* a loan's buffers stay (their runs go on): only the pool's are forgotten */
        caps.erase(std::remove_if(caps.begin(), caps.end(), [&](const std::pair<void *, size_t> &c) {
                       return !in_arena(c.first);
                   }),
                   caps.end());
        void **cub = arena ? &pool_cub : &cub_tmp;
        if (*cub) (void)cudaFreeAsync(*cub, stream);
        *cub = nullptr;
        (arena ? pool_cub_cap : cub_cap) = 0;
    }
    const gpu_gate *gate = nullptr; /* msm_gpu_ctx_set_gate */
    bool gated() const { return gate != nullptr; }
    int pause() { return gpu_gate_pass(gate, stream); }
    int zero(void *p, size_t bytes)
    {
        CUDA_TRY(cudaMemsetAsync(p, 0, bytes, stream));
        return 0;
    }
    /* Page-locked landing area of every read-back (counts, window sums). A copy to pageable
     * memory goes through the driver's staging, which one thread at a time uses: a backlog's
     * MSM H waiting there for its whole enqueued run (seconds) held an urgent partition's
     * small read-backs until it ended. */
    void *landing = nullptr;
    static constexpr size_t fetch_cap = 4096;                                       /* counts */
    static constexpr size_t result_cap = (MSM_MAX_WINDOWS + 1) * sizeof(jacobian<fp2>); /* one run's sums */
    static constexpr size_t landing_cap = fetch_cap + MSM_GPU_DEFERRED * result_cap;
    int fetch(void *host, const void *dev, size_t bytes)
    {
        if (bytes > fetch_cap) return err_set(CUZK_EINVAL, "msm: read-back of %zu bytes", bytes);
        CUDA_TRY(cudaMemcpyAsync(landing, dev, bytes, cudaMemcpyDeviceToHost, stream));
        CUDA_TRY(cudaStreamSynchronize(stream));
        memcpy(host, landing, bytes);
        return 0;
    }
    /* Level 0 runs as one full wave (every thread the same number of entries): as many threads
     * as the multiprocessors hold at the kernel's occupancy. */
    template <class F, class Src> size_t level0_kper(size_t m) { return wave_kper<F, acc_fn<F, Src>>(m); }
    /* Entries per thread so that kernel Fn's threads over m entries make one full wave. */
    template <class F, class Fn> size_t wave_kper(size_t m)
    {
        const size_t target = reduce_threads<F, Fn>() * acc.waves;
        const size_t k = (m + target - 1) / target;
        return k < 2 ? 2 : k;
    }
    /* Threads kernel Fn can have resident at once (one full wave at its occupancy). A bucket
     * reduction's segments are serial chains of additions, so for small windows one full wave
     * of short segments beats several waves. */
    int reduce = MSM_REDUCE_AUTO; /* msm_gpu_ctx_set_reduce */
    template <class F, class Fn> size_t reduce_threads()
    {
        constexpr unsigned BS = sizeof(F) > 48 ? 64 : 128;
        int blocks = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k_for<BS, Fn>, BS, 0) != cudaSuccess ||
            blocks < 1) {
            cudaGetLastError();
            blocks = 1;
        }
        return (size_t)sms * (size_t)blocks * BS;
    }
    /* CUZK_MSM_PROFILE=1: an event after each phase, printed as a breakdown at the end. */
    bool profile = false;
    std::vector<std::pair<const char *, cudaEvent_t>> marks;
    void mark(const char *name)
    {
        if (!profile) return;
        cudaEvent_t e;
        if (cudaEventCreate(&e) != cudaSuccess) return;
        cudaEventRecord(e, stream);
        marks.push_back({name, e});
    }
    /* the phases' times since start (summed over the runs collected together), then what each
     * run's plan was (plans) */
    void print_profile(cudaEvent_t start, const char *plans)
    {
        if (!profile) return;
        std::vector<std::pair<const char *, float>> sum;
        cudaEvent_t prev = start;
        for (auto &m : marks) {
            if (!strcmp(m.first, "begin")) { /* a batch's start: no phase of its own */
                prev = m.second;
                continue;
            }
            float ms = 0;
            cudaEventElapsedTime(&ms, prev, m.second);
            bool found = false;
            for (auto &s : sum)
                if (!strcmp(s.first, m.first)) {
                    s.second += ms;
                    found = true;
                }
            if (!found) sum.push_back({m.first, ms});
            prev = m.second;
        }
        fprintf(stderr, "msm profile:");
        for (auto &s : sum) fprintf(stderr, " %s %.3f ms;", s.first, s.second);
        fprintf(stderr, "%s\n", plans);
        drop_marks();
    }
    /* a failed batch's marks go with it: the next profile starts at its own "begin" */
    void drop_marks()
    {
        for (auto &m : marks) cudaEventDestroy(m.second);
        marks.clear();
    }
    template <class F, class Fn> int launch(size_t n, const Fn &f, const char *what)
    {
        if (!n) return 0;
        constexpr unsigned BS = sizeof(F) > 48 ? 64 : 128;
        size_t grid = (n + BS - 1) / BS;
        k_for<BS><<<(unsigned)grid, BS, 0, stream>>>(f, n);
        CUDA_TRY_LAUNCH(what);
        return 0;
    }
    int tmp(size_t need)
    {
        if (need <= cub_cap) return 0;
        if (arena) { /* once, for the loan's largest sort (~0.13 bytes a key) and selection */
            size_t most = ((size_t)8 << 20) + arena_entries / 4;
            most = most < arena_bytes / 16 ? most : arena_bytes / 16; /* a small loan's runs are small */
            const int rc = arena_take(&cub_tmp, need > most ? need : most);
            cub_cap = rc ? 0 : cap_of(cub_tmp);
            return rc;
        }
        if (cub_tmp) CUDA_TRY(cudaFreeAsync(cub_tmp, stream));
        cub_tmp = nullptr;
        cub_cap = 0;
        CUDA_TRY(gpu_pool_malloc_async((void **)&cub_tmp, need, stream));
        cub_cap = need;
        return 0;
    }
    int sort(uint32_t *k0, uint32_t *k1, uint32_t *v0, uint32_t *v1, size_t m, int bits, uint32_t **ks,
             uint32_t **vs)
    {
        cub::DoubleBuffer<uint32_t> dk(k0, k1), dv(v0, v1);
        size_t need = 0;
        int rc;
        CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, need, dk, dv, (int)m, 0, bits, stream));
        if ((rc = tmp(need))) return rc;
        CUDA_TRY(cub::DeviceRadixSort::SortPairs(cub_tmp, need, dk, dv, (int)m, 0, bits, stream));
        *ks = dk.Current();
        *vs = dv.Current();
        return 0;
    }
    int select(const uint8_t *flags, size_t n, uint32_t *out, uint32_t *count)
    {
        thrust::counting_iterator<uint32_t> in(0);
        size_t need = 0;
        int rc;
        CUDA_TRY(cub::DeviceSelect::Flagged(nullptr, need, in, flags, out, count, (int)n, stream));
        if ((rc = tmp(need))) return rc;
        CUDA_TRY(cub::DeviceSelect::Flagged(cub_tmp, need, in, flags, out, count, (int)n, stream));
        return 0;
    }
};

} // namespace msmk

#endif
