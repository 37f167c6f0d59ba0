/*
 * CUDA MSM: the device entry points of kernels/msm.h — contexts, loans, runs, accumulations and
 * their deferred results — over the executor of msm_exec.cuh, which runs msm_plan.cuh's steps
 * (the host simulation is msm_sim.cu). Every CUDA failure becomes CUZK_EDEVICE with the call,
 * its text and the source line (cuda_util.cuh).
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>
#include <vector>

#include "msm.h"
#include "msm/msm_internal.cuh"
#include "msm/msm_exec.cuh"
#include "msm/msm_plan.cuh"

#include "cuda_util.cuh"
#include "cuda_util.h"

using namespace msmk;

/* ---- the C interface ---- */
struct msm_gpu_ctx {
    int device;
    bool own_stream;
    dev_exec x;
    msm_bufs b;
    /* msm_gpu_ctx_lend: runs' buffers in the lent memory (x.arena), b untouched meanwhile */
    msm_bufs b_lent;
    bool lent = false;
    void *scalars = nullptr; /* device copy of host scalars */
    size_t scalars_cap = 0;
    size_t max_entries;
    bool g2_half = false; /* msm_gpu_ctx_set_g2_half */
    unsigned window_fix = 0;
    int pre_mode = MSM_PRE_AUTO; /* msm_gpu_ctx_set_precompute */
    cudaEvent_t ev[2];
    msm_gpu_stats last;
    /* counts for the next run (msm_gpu_ctx_set_counts) */
    bool known = false;
    uint32_t known_one = 0, known_rest = 0;
    /* runs whose window sums are on their way to the landing area (msm_gpu_run_deferred) */
    struct pending {
        bool g2;
        plan_stats st;
        size_t n;
        void *out;
    } pend[MSM_GPU_DEFERRED];
    unsigned npend = 0;
    /* an accumulated MSM in progress (msm_gpu_acc_*): its curve (0 = none), form and plan */
    int acc_curve = 0;
    int acc_mont = 0;
    size_t acc_n = 0;
    plan_stats acc;
};

extern "C" int msm_gpu_ctx_create(msm_gpu_ctx **out, int device, void *stream, size_t max_entries)
{
    *out = nullptr;
    msm_gpu_ctx *c = new (std::nothrow) msm_gpu_ctx();
    if (!c) return err_set(CUZK_ENOMEM, "msm_gpu_ctx_create");
    memset(&c->b, 0, sizeof c->b);
    c->device = device;
    c->max_entries = max_entries ? max_entries : ((size_t)1 << 28);
    if (c->max_entries > ((size_t)1 << 30)) c->max_entries = (size_t)1 << 30;
    cudaError_t e = cudaSetDevice(device);
    int sms = 0;
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess) {
        if (stream) {
            c->x.stream = (cudaStream_t)stream;
            c->own_stream = false;
        } else {
            e = cudaStreamCreateWithFlags(&c->x.stream, cudaStreamNonBlocking);
            c->own_stream = true;
        }
    }
    if (e == cudaSuccess) e = cudaEventCreate(&c->ev[0]);
    if (e == cudaSuccess) e = cudaEventCreate(&c->ev[1]);
    if (e == cudaSuccess && gpu_host_alloc(&c->x.landing, dev_exec::landing_cap)) e = cudaErrorMemoryAllocation;
    if (e != cudaSuccess) { /* what was made before the failure (the landing area fails most: pinned memory) */
        if (c->x.landing) gpu_host_free(c->x.landing);
        if (c->ev[1]) cudaEventDestroy(c->ev[1]);
        if (c->ev[0]) cudaEventDestroy(c->ev[0]);
        if (c->own_stream && c->x.stream) cudaStreamDestroy(c->x.stream);
        delete c;
        return gpu_error(e, "msm_gpu_ctx_create", __FILE__, __LINE__);
    }
    c->x.device = device;
    c->x.sms = (unsigned)sms;
    const char *mb = getenv("CUZK_MSM_AFF_MIN_BATCH"), *km = getenv("CUZK_MSM_AFF_KMUL");
    const char *pr = getenv("CUZK_MSM_PAIR_ROUNDS");
    msm_gpu_ctx_set_accumulation(c, msm_acc_from_env(), mb ? (unsigned)atoi(mb) : 0, km ? (unsigned)atoi(km) : 0);
    msm_gpu_ctx_set_pair_rounds(c, pr ? (unsigned)atoi(pr) : 0);
    c->x.acc.pair_min = msm_pair_min_from_env();
    msm_gpu_ctx_set_waves(c, msm_waves_from_env()); /* 0 (unset): 1 */
    msm_gpu_ctx_set_reduce(c, msm_reduce_from_env());
    memset(&c->last, 0, sizeof c->last);
    *out = c;
    return CUZK_OK;
}

extern "C" void msm_gpu_ctx_free(msm_gpu_ctx *c)
{
    if (!c) return;
    cudaSetDevice(c->device);
    cudaStreamSynchronize(c->x.stream);
    c->x.release_all(c->b);
    if (c->scalars) (void)cudaFreeAsync(c->scalars, c->x.stream);
    cudaStreamSynchronize(c->x.stream); /* the frees done: the pool may give the memory back */
    gpu_host_free(c->x.landing);
    cudaEventDestroy(c->ev[0]);
    cudaEventDestroy(c->ev[1]);
    if (c->own_stream) cudaStreamDestroy(c->x.stream);
    delete c;
}

extern "C" int msm_gpu_ctx_trim(msm_gpu_ctx *c)
{
    if (!c) return CUZK_OK;
    CUDA_TRY(cudaSetDevice(c->device));
    msm_gpu_ctx_discard(c);
    CUDA_TRY(cudaStreamSynchronize(c->x.stream));
    c->x.release_all(c->b);
    if (c->scalars) CUDA_TRY(cudaFreeAsync(c->scalars, c->x.stream));
    c->scalars = nullptr;
    c->scalars_cap = 0;
    c->acc_curve = 0; /* an accumulation begun before points at the freed buckets */
    CUDA_TRY(cudaStreamSynchronize(c->x.stream)); /* the frees done: the pool may give the memory back */
    return CUZK_OK;
}

extern "C" int msm_gpu_ctx_set_max_entries(msm_gpu_ctx *c, size_t max_entries)
{
    max_entries = max_entries ? max_entries : ((size_t)1 << 28);
    if (max_entries > ((size_t)1 << 30)) max_entries = (size_t)1 << 30;
    if (max_entries == c->max_entries) return CUZK_OK;
    /* fewer entries: the scratch sized for more goes (it is remade at the next run's size) */
    const bool shrink = max_entries < c->max_entries;
    c->max_entries = max_entries;
    return shrink ? msm_gpu_ctx_trim(c) : CUZK_OK;
}

extern "C" void msm_gpu_ctx_set_g2_half(msm_gpu_ctx *c, int on) { c->g2_half = on != 0; }

/* The sort entries a group of a run on curve F takes: a loan's own cap (its memory was sized
 * for that many entries of either curve, msm_gpu_lent_config), else the context's. */
template <class F> static size_t ctx_entries(const msm_gpu_ctx *c)
{
    if (c->lent) return c->x.arena_entries;
    return sizeof(F) > sizeof(fp) && c->g2_half ? c->max_entries / 2 : c->max_entries;
}

/* The buffers a run takes: the loan's while there is one. */
static msm_bufs &bufs(msm_gpu_ctx *c) { return c->lent ? c->b_lent : c->b; }

/* The loan ends: the stream's work on it done, its buffers forgotten (never freed: the lender
 * owns them), the pool's CUB storage back. An accumulation still open was begun on the loan
 * (msm_gpu_ctx_lend refuses while one is open): it is abandoned. */
static int lend_end(msm_gpu_ctx *c)
{
    if (!c->lent) return CUZK_OK;
    cudaError_t e = cudaSetDevice(c->device);
    if (e == cudaSuccess) e = cudaStreamSynchronize(c->x.stream);
    if (e != cudaSuccess) cudaGetLastError();
    c->acc_curve = 0;
    dev_exec &x = c->x;
    x.caps.erase(std::remove_if(x.caps.begin(), x.caps.end(),
                                [&](const std::pair<void *, size_t> &p) { return x.in_arena(p.first); }),
                 x.caps.end());
    x.cub_tmp = x.pool_cub;
    x.cub_cap = x.pool_cub_cap;
    x.pool_cub = nullptr;
    x.pool_cub_cap = 0;
    x.arena = nullptr;
    x.arena_bytes = x.arena_used = x.arena_entries = 0;
    x.arena_last = nullptr;
    x.arena_b = nullptr;
    memset(&c->b_lent, 0, sizeof c->b_lent);
    c->lent = false;
    return e == cudaSuccess ? CUZK_OK : gpu_error(e, "msm_gpu_ctx_lend (ending the loan)", __FILE__, __LINE__);
}

extern "C" int msm_gpu_ctx_lend(msm_gpu_ctx *c, void *d_base, size_t bytes, size_t max_entries)
{
    if (!c) return err_set(CUZK_EINVAL, "msm_gpu_ctx_lend: NULL context");
    if (!d_base) return lend_end(c);
    if (c->lent)
        return err_set(CUZK_EINVAL, "msm_gpu_ctx_lend: the context already has a loan of %zu bytes", c->x.arena_bytes);
    if (c->acc_curve)
        return err_set(CUZK_EINVAL, "msm_gpu_ctx_lend: an accumulation begun on the context's own scratch is open");
    if ((uintptr_t)d_base & 255 || !bytes || !max_entries || max_entries > ((size_t)1 << 30))
        return err_set(CUZK_EINVAL, "msm_gpu_ctx_lend: %zu bytes at %p (256-byte aligned), %zu entries (1..2^30)",
                       bytes, d_base, max_entries);
    dev_exec &x = c->x;
    memset(&c->b_lent, 0, sizeof c->b_lent);
    x.arena = (char *)d_base;
    x.arena_bytes = bytes;
    x.arena_used = 0;
    x.arena_last = nullptr;
    x.arena_entries = max_entries;
    x.arena_b = &c->b_lent;
    x.pool_cub = x.cub_tmp; /* kept for after the loan, its runs' storage from the loan */
    x.pool_cub_cap = x.cub_cap;
    x.cub_tmp = nullptr;
    x.cub_cap = 0;
    c->lent = true;
    return CUZK_OK;
}

extern "C" void msm_gpu_ctx_set_window(msm_gpu_ctx *c, unsigned bits)
{
    c->window_fix = bits >= 4 && bits <= 22 ? bits : 0;
}

extern "C" void msm_gpu_ctx_set_precompute(msm_gpu_ctx *c, int mode)
{
    c->pre_mode = mode == MSM_PRE_OFF || mode == MSM_PRE_FORCE ? mode : MSM_PRE_AUTO;
}

extern "C" void msm_gpu_ctx_set_accumulation(msm_gpu_ctx *c, int mode, unsigned min_batch, unsigned kmul)
{
    (void)msm_gpu_ctx_set_acc_kind(c, mode); /* a new context's, or a benchmark's: nothing to free */
    /* pairwise (AUTO's too): a round's inversion (~70 products) pays once a thread has ~16
     * pairs (4 products saved on each) */
    const bool pair = c->x.acc.kind == MSM_ACC_PAIRWISE || c->x.acc.kind == MSM_ACC_AUTO;
    c->x.acc.min_batch = min_batch ? min_batch : pair ? 16 : acc_mode{}.min_batch;
    c->x.acc.kmul = kmul ? kmul : 1;
}

extern "C" int msm_gpu_ctx_set_acc_kind(msm_gpu_ctx *c, int mode)
{
    c->x.acc.kind = mode == MSM_ACC_AFFINE || mode == MSM_ACC_PAIRWISE || mode == MSM_ACC_AUTO ? mode : MSM_ACC_XYZZ;
    if (c->x.acc.kind == MSM_ACC_PAIRWISE || c->x.acc.kind == MSM_ACC_AUTO || (!c->b.pair_pts && !c->b.pair_pre))
        return CUZK_OK;
    /* a mode without pairwise rounds: their scratch goes (a slot that ran a pairwise key's MSMs
     * and now runs one whose slot bytes were counted without it would hold it on top) */
    CUDA_TRY(cudaSetDevice(c->device));
    GPU_TRY(c->x.drop(&c->b.pair_pts));
    return c->x.drop(&c->b.pair_pre);
}

extern "C" size_t msm_gpu_ctx_pair_scratch_bytes(const msm_gpu_ctx *c)
{
    return c->x.cap_of(c->b.pair_pts) + c->x.cap_of(c->b.pair_pre);
}

extern "C" void msm_gpu_ctx_set_pair_rounds(msm_gpu_ctx *c, unsigned rounds) { c->x.acc.rounds = rounds; }

extern "C" void msm_gpu_ctx_set_waves(msm_gpu_ctx *c, unsigned waves)
{
    c->x.acc.waves = waves < 1 ? 1 : waves > MSM_MAX_WAVES ? MSM_MAX_WAVES : waves;
}

extern "C" void msm_gpu_ctx_set_reduce(msm_gpu_ctx *c, int mode)
{
    c->x.reduce = mode == MSM_REDUCE_SEGMUL || mode == MSM_REDUCE_LEVELS ? mode : MSM_REDUCE_AUTO;
}


extern "C" void msm_gpu_ctx_set_gate(msm_gpu_ctx *c, const gpu_gate *gate) { c->x.gate = gate; }


extern "C" void *msm_gpu_ctx_stream(const msm_gpu_ctx *c) { return c ? (void *)c->x.stream : nullptr; }

extern "C" void msm_gpu_last_stats(const msm_gpu_ctx *c, msm_gpu_stats *out) { *out = c->last; }

/* A finished plan's window sums on their way to landing slot npend, and what combines them. */
template <class F> static int result_enqueue(msm_gpu_ctx *c, const plan_stats &st, size_t n, void *out)
{
    if (c->npend == MSM_GPU_DEFERRED)
        return err_set(CUZK_EINVAL, "msm: more than %d runs before msm_gpu_ctx_collect", MSM_GPU_DEFERRED);
    void *slot = (char *)c->x.landing + dev_exec::fetch_cap + c->npend * dev_exec::result_cap;
    CUDA_TRY(cudaMemcpyAsync(slot, bufs(c).result, (st.nwin + 1) * sizeof(jacobian<F>), cudaMemcpyDeviceToHost,
                             c->x.stream));
    CUDA_TRY(cudaEventRecord(c->ev[1], c->x.stream));
    c->pend[c->npend++] = {sizeof(F) > sizeof(fp), st, n, out};
    return 0;
}

template <class F> static void result_combine(msm_gpu_ctx *c, unsigned i)
{
    const msm_gpu_ctx::pending &p = c->pend[i];
    jacobian<F> w[MSM_MAX_WINDOWS + 1];
    memcpy(w, (const char *)c->x.landing + dev_exec::fetch_cap + i * dev_exec::result_cap,
           (p.st.nwin + 1) * sizeof(jacobian<F>));
    msm_horner((jacobian<F> *)p.out, w, p.st.nwin, p.st.c);
    c->last.window_bits = p.st.c;
    c->last.window_groups = p.st.groups;
    c->last.pauses = p.st.pauses;
    c->last.copies = p.st.copies;
    c->last.acc = (uint32_t)p.st.acc;
    c->last.reduce = (uint32_t)p.st.reduce;
    c->last.n_one = p.st.n_one;
    c->last.n_rest = p.st.n_rest;
    c->last.n_zero = p.n - p.st.n_one - p.st.n_rest;
}

/* Drops what is pending after an error: nothing more reaches the outputs. */
static int run_failed(msm_gpu_ctx *c, int rc)
{
    cudaStreamSynchronize(c->x.stream);
    cudaGetLastError();
    c->npend = 0;
    c->known = false;
    c->x.drop_marks();
    return rc;
}

extern "C" void msm_gpu_ctx_discard(msm_gpu_ctx *c)
{
    if (!c) return;
    c->known = false;
    if (c->npend) (void)run_failed(c, 0);
}

/* CUZK_MSM_PROFILE's account of one collected run's plan, appended at buf + *at (cap bytes in
 * all): inside the engine (five MSMs collected after one wait) nothing else shows how each ran. */
static void plan_line(char *buf, size_t cap, size_t *at, unsigned i, const msm_gpu_stats &l, size_t max_entries)
{
    if (*at >= cap) return;
    const int w = snprintf(buf + *at, cap - *at,
                           " [run %u: %llu scalars, %llu other than 0 and 1; window %u, %u groups, %u copies, %s, %s; "
                           "at most %zu entries a group]",
                           i, (unsigned long long)(l.n_zero + l.n_one + l.n_rest), (unsigned long long)l.n_rest,
                           l.window_bits, l.window_groups, l.copies,
                           l.acc == MSM_ACC_PAIRWISE ? "pairwise" : l.acc == MSM_ACC_AFFINE ? "affine" : "xyzz",
                           l.reduce == MSM_REDUCE_SEGMUL ? "segmul" : "levels", max_entries);
    *at = w < 0 ? cap : *at + (size_t)w;
}

extern "C" int msm_gpu_ctx_collect(msm_gpu_ctx *c)
{
    if (!c) return err_set(CUZK_EINVAL, "msm_gpu_ctx_collect: NULL context");
    if (!c->npend) return CUZK_OK;
    cudaError_t e = cudaStreamSynchronize(c->x.stream);
    if (e != cudaSuccess) return run_failed(c, gpu_error(e, "msm_gpu_ctx_collect", __FILE__, __LINE__));
    char plans[1024] = "";
    size_t at = 0;
    for (unsigned i = 0; i < c->npend; i++) {
        if (c->pend[i].g2) result_combine<fp2>(c, i);
        else result_combine<fp>(c, i);
        if (c->x.profile)
            plan_line(plans, sizeof plans, &at, i, c->last,
                      c->pend[i].g2 ? ctx_entries<fp2>(c) : ctx_entries<fp>(c));
    }
    c->npend = 0;
    CUDA_TRY(cudaEventElapsedTime(&c->last.device_ms, c->ev[0], c->ev[1]));
    c->x.print_profile(c->ev[0], plans);
    return CUZK_OK;
}

extern "C" void msm_gpu_ctx_set_counts(msm_gpu_ctx *c, uint32_t n_one, uint32_t n_rest)
{
    c->known = true;
    c->known_one = n_one, c->known_rest = n_rest;
}

template <class F>
static int run_typed(msm_gpu_ctx *c, const msm_gpu_bases *gb, size_t first, const void *scalars, size_t n, int mont,
                     void *out, plan_stats st)
{
    msm_pre pre; /* the bases' precomputed copies, from point first on */
    if (gb->d_pre && c->pre_mode != MSM_PRE_OFF) {
        pre.pre = (const affine<F> *)gb->d_pre + first;
        pre.split = (uint32_t)gb->n;
        pre.copies = gb->copies;
        pre.c = gb->pre_c;
        pre.force = c->pre_mode == MSM_PRE_FORCE;
    }
    int rc = plan_run<F>(c->x, bufs(c), (const affine<F> *)gb->d + first, (const sc256 *)scalars, n, mont,
                         c->window_fix, ctx_entries<F>(c), &st, pre);
    return rc ? rc : result_enqueue<F>(c, st, n, out);
}

/* Everything of one run enqueued, its result pending. */
static int run_enqueue(msm_gpu_ctx *c, const msm_gpu_bases *bases, size_t first, const void *scalars, size_t n,
                       int scalar_form, int scalars_where, void *out)
{
    if (!c) return err_set(CUZK_EINVAL, "msm_gpu_run: NULL context");
    plan_stats st; /* the counts set for this run, used by it or by none */
    st.known = c->known, st.known_one = c->known_one, st.known_rest = c->known_rest;
    c->known = false;
    if (!bases || !out || (n && !scalars))
        return err_set(CUZK_EINVAL, "msm_gpu_run: NULL argument");
    if (st.known && st.known_one + (uint64_t)st.known_rest > n)
        return err_set(CUZK_EINVAL, "msm_gpu_run: %u ones and %u others among %zu scalars", st.known_one,
                       st.known_rest, n);
    if (scalar_form != 0 && scalar_form != 1)
        return err_set(CUZK_EINVAL, "msm_gpu_run: scalar form %d (0 Montgomery, 1 canonical)", scalar_form);
    if (bases->device != c->device)
        return err_set(CUZK_EINVAL, "msm_gpu_run: bases on device %d, context on device %d", bases->device,
                       c->device);
    if (first > bases->n || n > bases->n - first)
        return err_set(CUZK_EINVAL, "msm_gpu_run: %zu scalars from base %zu, but only %zu bases", n, first,
                       bases->n);
    if (n > 0x7fffffffu)
        return err_set(CUZK_EINVAL, "msm_gpu_run: %zu points (at most 2^31 - 1)", n);
    if (scalars_where == MSM_SCALARS_DEVICE && ((uintptr_t)scalars & 15))
        return err_set(CUZK_EINVAL, "msm_gpu_run: device scalars must be 16-byte aligned");
    CUDA_TRY(cudaSetDevice(c->device));
    CUDA_TRY(cudaEventRecord(c->ev[0], c->x.stream));
    c->x.profile = getenv("CUZK_MSM_PROFILE") && *getenv("CUZK_MSM_PROFILE") == '1';
    if (!c->npend) c->x.mark("begin"); /* the profile's start: the first of the runs collected together */
    const void *sc = scalars;
    if (scalars_where != MSM_SCALARS_DEVICE && n) {
        if (c->scalars_cap < n * 32) {
            if (c->scalars) CUDA_TRY(cudaFreeAsync(c->scalars, c->x.stream));
            c->scalars = nullptr;
            c->scalars_cap = 0;
            CUDA_TRY(gpu_pool_malloc_async((void **)&c->scalars, n * 32, c->x.stream));
            c->scalars_cap = n * 32;
        }
        CUDA_TRY(cudaMemcpyAsync(c->scalars, scalars, n * 32, cudaMemcpyHostToDevice, c->x.stream));
        sc = c->scalars;
    }
    int mont = scalar_form == 0;
    int rc;
    c->x.mark("upload");
    if (bases->curve == MSM_CURVE_G1) rc = run_typed<fp>(c, bases, first, sc, n, mont, out, st);
    else rc = run_typed<fp2>(c, bases, first, sc, n, mont, out, st);
    return rc ? run_failed(c, rc) : CUZK_OK;
}

extern "C" int msm_gpu_run(msm_gpu_ctx *c, const msm_gpu_bases *bases, size_t first, const void *scalars, size_t n,
                           int scalar_form, int scalars_where, void *out)
{
    int rc = run_enqueue(c, bases, first, scalars, n, scalar_form, scalars_where, out);
    return rc ? rc : msm_gpu_ctx_collect(c);
}

extern "C" int msm_gpu_run_deferred(msm_gpu_ctx *c, const msm_gpu_bases *bases, size_t first, const void *d_scalars,
                                    size_t n, int scalar_form, void *out)
{
    return run_enqueue(c, bases, first, d_scalars, n, scalar_form, MSM_SCALARS_DEVICE, out);
}

/* ---- device memory beyond the buffers' requests, for the placement (msm_host.cu) ---- */

/* CUB's temporary storage and the pool's alignment. The radix sort's (onesweep, DoubleBuffer:
 * no copy of keys or values) is its look-back state, a tile's 256 4-byte counters per 384 x 23
 * keys on sm_90 (x 21 on sm_80): ~0.13 bytes a key, 34 MB at 2^28; DeviceSelect's tile state
 * over 2^31 flags ~13 MB (CCCL 3.0's dispatch headers, read in session 17's review). And each
 * of the context's buffers (and CUB's) rounded up to the pool's granularity, taken as 2 MiB
 * (the device's large page), where the parts count exact requests. */
extern "C" size_t msm_gpu_library_bytes(size_t entries, size_t buffers)
{
    return ((size_t)32 << 20) + entries / 4 + buffers * ((size_t)2 << 20);
}

/* ---- an MSM accumulated over pieces (bases streamed from host memory) ---- */

extern "C" int msm_gpu_acc_begin(msm_gpu_ctx *c, int curve, size_t n_total, int scalar_form, int persist,
                                 size_t bucket_bytes_max)
{
    if (!c) return err_set(CUZK_EINVAL, "msm_gpu_acc_begin: NULL context");
    if (curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2) return err_set(CUZK_EINVAL, "msm_gpu_acc_begin: curve %d", curve);
    if (scalar_form != 0 && scalar_form != 1)
        return err_set(CUZK_EINVAL, "msm_gpu_acc_begin: scalar form %d (0 Montgomery, 1 canonical)", scalar_form);
    CUDA_TRY(cudaSetDevice(c->device));
    c->acc_curve = 0;
    c->x.profile = false;
    CUDA_TRY(cudaEventRecord(c->ev[0], c->x.stream));
    /* the window: the context's fixed one, else chosen at the first piece with scalars other
     * than 0 and 1 (their share there stands for the MSM's): for that piece alone, or with
     * shared buckets for the whole MSM within bucket_bytes_max (msm_shared_window) */
    const unsigned cfix = c->window_fix;
    int rc = curve == MSM_CURVE_G1
                 ? plan_begin<fp>(c->x, bufs(c), cfix, persist != 0, &c->acc, n_total, bucket_bytes_max)
                 : plan_begin<fp2>(c->x, bufs(c), cfix, persist != 0, &c->acc, n_total, bucket_bytes_max);
    if (rc) return rc;
    c->acc_curve = curve;
    c->acc_mont = scalar_form == 0;
    c->acc_n = 0;
    return CUZK_OK;
}

extern "C" int msm_gpu_acc_add(msm_gpu_ctx *c, const void *d_bases, const void *d_scalars, size_t n)
{
    if (!c || !c->acc_curve) return err_set(CUZK_EINVAL, "msm_gpu_acc_add: no msm_gpu_acc_begin on this context");
    if (!n) return CUZK_OK;
    if (!d_bases || !d_scalars) return err_set(CUZK_EINVAL, "msm_gpu_acc_add: NULL device buffer");
    if (n > 0x7fffffffu) return err_set(CUZK_EINVAL, "msm_gpu_acc_add: %zu points (at most 2^31 - 1)", n);
    if ((uintptr_t)d_scalars & 15) return err_set(CUZK_EINVAL, "msm_gpu_acc_add: device scalars must be 16-byte aligned");
    int rc = c->acc_curve == MSM_CURVE_G1
                 ? plan_add<fp>(c->x, bufs(c), (const affine<fp> *)d_bases, (const sc256 *)d_scalars, n, c->acc_mont,
                                ctx_entries<fp>(c), &c->acc)
                 : plan_add<fp2>(c->x, bufs(c), (const affine<fp2> *)d_bases, (const sc256 *)d_scalars, n, c->acc_mont,
                                 ctx_entries<fp2>(c), &c->acc);
    if (rc) {
        c->acc_curve = 0;
        cudaStreamSynchronize(c->x.stream);
        cudaGetLastError();
        return rc;
    }
    c->acc_n += n;
    return CUZK_OK;
}

extern "C" int msm_gpu_acc_end(msm_gpu_ctx *c, void *out)
{
    if (!c || !c->acc_curve || !out) return err_set(CUZK_EINVAL, "msm_gpu_acc_end: no MSM in progress");
    int curve = c->acc_curve, rc;
    c->acc_curve = 0;
    rc = curve == MSM_CURVE_G1 ? plan_end<fp>(c->x, bufs(c), &c->acc) : plan_end<fp2>(c->x, bufs(c), &c->acc);
    if (!rc)
        rc = curve == MSM_CURVE_G1 ? result_enqueue<fp>(c, c->acc, c->acc_n, out)
                                   : result_enqueue<fp2>(c, c->acc, c->acc_n, out);
    return rc ? run_failed(c, rc) : msm_gpu_ctx_collect(c);
}

/* ---- class counts ahead of the MSMs (msm_gpu_count_classes) ---- */

__global__ void count_classes_kernel(const sc256 *s, size_t n, int mont, uint32_t *out)
{
    uint32_t ones = 0, rest = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        count_classes_range(s, i, i + 1, mont, &ones, &rest);
    ones = __reduce_add_sync(0xffffffffu, ones);
    rest = __reduce_add_sync(0xffffffffu, rest);
    if ((threadIdx.x & 31) == 0) {
        if (ones) atomicAdd(out, ones);
        if (rest) atomicAdd(out + 1, rest);
    }
}

extern "C" int msm_gpu_count_classes(const void *d_scalars, size_t n, int scalar_form, uint32_t *d_counts,
                                     void *stream)
{
    if ((n && !d_scalars) || !d_counts) return err_set(CUZK_EINVAL, "msm_gpu_count_classes: NULL argument");
    if (scalar_form != 0 && scalar_form != 1)
        return err_set(CUZK_EINVAL, "msm_gpu_count_classes: scalar form %d (0 Montgomery, 1 canonical)", scalar_form);
    if (!n) return CUZK_OK;
    const size_t blocks = (n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096; /* grid-stride beyond */
    count_classes_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>((const sc256 *)d_scalars, n,
                                                                              scalar_form == 0, d_counts);
    CUDA_TRY_LAUNCH("count classes");
    return CUZK_OK;
}
