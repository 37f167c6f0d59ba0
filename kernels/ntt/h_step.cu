/*
 * The Groth16 H step on the GPU in six transforms (TARGETS.md): the inverse coset
 * transform is linear and turns C's coset values back into C's coefficients, which the
 * inverse transform of c already gives, so
 *     h = cosetINTT(A·B on the coset) - INTT(c), all divided by g^n - 1.
 * Every scaling is fused into a transform's first load or last store:
 *   a, b:  DIF inverse, coefficient k times g^k/n         (natural -> bit-reversed)
 *          DIT forward on the coset                        (bit-reversed -> natural)
 *          (the inverse's last pass, the scaling and the forward's first pass are one
 *          pass over memory: ntt_run_chain)
 *          b's last store multiplies by A                  (b := A·B; that pass also runs
 *          the first pass of A·B's inverse below)
 *   c:     DIF inverse, times 1/(n·(g^n - 1))              (bit-reversed coefficients;
 *          above 2^19 that factor rides on the first pass's two-level twiddles)
 *   A·B:   DIF inverse, last store: x·g^-k/(n·(g^n - 1)) - c'[pos], written to a[k]
 *          (natural order, ready for the H MSM).
 */
#include <stdlib.h>

#include "cuda_util.cuh"
#include "cuda_util.h"
#include "ntt.h"
#include "ntt/ntt_internal.cuh"

/* How many passes the transforms of a and b share (CUZK_H_FUSE, to measure one form against
 * another): 0 none; 1 the inverse's last and the coset transform's first (a and b); 2 (the
 * default) also b's last, the product with A and the first of A·B's inverse. */
static int h_fuse(void)
{
    static const int level = [] {
        const char *v = getenv("CUZK_H_FUSE");
        return v && (v[0] == '0' || v[0] == '1') ? v[0] - '0' : 2;
    }();
    return level;
}

/* x's inverse (natural -> bit-reversed, times g^k/n) and coset transform (-> natural), the
 * latter's last store times mul_by when given */
static void jobs_ab(ntt_job &j, ntt_job &f, fr_gpu *x, const fr_gpu *mul_by, const ntt_device_ctx *ctx,
                    const ntt_size_ctx *sz, unsigned log_n)
{
    j = ntt_job{};
    j.data = j.out = x;
    j.log_n = log_n;
    j.dif = true, j.inverse = true;
    j.out_hook = NTT_HOOK_COSET;
    j.out_lo = ctx->dir[0].gc_lo, j.out_hi = sz->hi_fwd_inv_n;
    f = ntt_job{};
    f.data = f.out = x;
    f.log_n = log_n;
    f.dif = false, f.inverse = false;
    if (mul_by) f.out_hook = NTT_HOOK_MUL, f.aux = mul_by;
}

/* The coset inverse of A·B (in b) minus c' (bit-reversed as h_run_c leaves it; natural: c' in
 * natural order, and then a may be c itself: h overwrites c element by element), into a. */
static void job_final(ntt_job &j, fr_gpu *a, fr_gpu *b, const fr_gpu *c, const ntt_device_ctx *ctx,
                      const ntt_size_ctx *sz, unsigned log_n, bool natural)
{
    j = ntt_job{};
    j.data = b, j.out = a;
    j.log_n = log_n;
    j.dif = true, j.inverse = true;
    j.out_hook = natural ? NTT_HOOK_HFINAL_NAT : NTT_HOOK_HFINAL;
    j.out_lo = ctx->dir[1].gc_lo, j.out_hi = sz->hi_inv_h;
    j.aux = c;
}

static int h_run_a(fr_gpu *x, const ntt_device_ctx *ctx, const ntt_size_ctx *sz, unsigned log_n, cudaStream_t st)
{
    ntt_job j, f;
    jobs_ab(j, f, x, NULL, ctx, sz, log_n);
    if (h_fuse()) return ntt_run_chain(j, f, NULL, NTT_CHAIN_ALL, ctx, st);
    GPU_TRY(ntt_run(j, ctx, st));
    return ntt_run(f, ctx, st);
}

/* b's transforms, times A (in a), and A·B's coset inverse into out (out, c and natural as
 * in job_final); part (NTT_CHAIN_*): HEAD up to the pass that reads A, MID the passes that
 * read neither A nor c, LAST the one that reads c (run h_run_c before it). */
static int h_run_b(fr_gpu *b, const fr_gpu *a, fr_gpu *out, const fr_gpu *c, bool natural, int part,
                   const ntt_device_ctx *ctx, const ntt_size_ctx *sz, unsigned log_n, cudaStream_t st)
{
    ntt_job j, f, fin;
    jobs_ab(j, f, b, a, ctx, sz, log_n);
    job_final(fin, out, b, c, ctx, sz, log_n, natural);
    if (h_fuse() == 2) return ntt_run_chain(j, f, &fin, part, ctx, st);
    if (part & NTT_CHAIN_HEAD) {
        if (h_fuse()) GPU_TRY(ntt_run_chain(j, f, NULL, NTT_CHAIN_ALL, ctx, st));
        else {
            GPU_TRY(ntt_run(j, ctx, st));
            GPU_TRY(ntt_run(f, ctx, st));
        }
    }
    return part & NTT_CHAIN_LAST ? ntt_run(fin, ctx, st) : 0;
}

static int h_run_c(fr_gpu *c, const ntt_device_ctx *ctx, const ntt_size_ctx *sz, unsigned log_n, cudaStream_t st)
{
    ntt_job j = {};
    j.data = j.out = c;
    j.log_n = log_n;
    j.dif = true, j.inverse = true;
    if (sz->tw_inv_h) j.tw0_hi = sz->tw_inv_h; /* the scale rides on the first pass's twiddles */
    else j.out_hook = NTT_HOOK_SCALE, j.scale = sz->h_scale;
    return ntt_run(j, ctx, st);
}

/* Between two of the step's transforms: where a gate is given, the calling thread waits for
 * the transform before, then while an urgent partition runs on the device (gpu_gate_pass). */
static int h_pause(const gpu_gate *gate, cudaStream_t st) { return gpu_gate_pass(gate, st); }

static int check(const void *a, const void *b, const void *c, unsigned log_n)
{
    if (log_n < 1 || log_n > NTT_MAX_LOG) return err_set(CUZK_EINVAL, "H step domain 2^%u is outside 2^1..2^%d", log_n, NTT_MAX_LOG);
    if (!a || !b || !c) return err_set(CUZK_EINVAL, "H step: NULL device buffer");
    if (a == b || a == c || b == c) return err_set(CUZK_EINVAL, "H step: a, b and c must be distinct buffers");
    return 0;
}

extern "C" int gpu_h_step(void *d_a, void *d_b, void *d_c, unsigned log_n, void *stream)
{
    GPU_TRY(check(d_a, d_b, d_c, log_n));
    const ntt_device_ctx *ctx;
    const ntt_size_ctx *sz;
    GPU_TRY(ntt_ctx_get(log_n, &ctx, &sz));
    cudaStream_t st = (cudaStream_t)stream;
    fr_gpu *a = (fr_gpu *)d_a, *b = (fr_gpu *)d_b, *c = (fr_gpu *)d_c;
    GPU_TRY(h_run_a(a, ctx, sz, log_n, st));
    GPU_TRY(h_run_b(b, a, a, c, false, NTT_CHAIN_HEAD | NTT_CHAIN_MID, ctx, sz, log_n, st));
    GPU_TRY(h_run_c(c, ctx, sz, log_n, st));
    return h_run_b(b, a, a, c, false, NTT_CHAIN_LAST, ctx, sz, log_n, st);
}

extern "C" int gpu_h_step_from_host(void *d_a, void *d_b, void *d_c, const void *a, const void *b,
                                    const void *c, uint64_t len, unsigned log_n, void *stream,
                                    void *copy_stream)
{
    return gpu_h_step_from_host_checked(d_a, d_b, d_c, a, b, c, len, log_n, 0, NULL, NULL, stream, copy_stream);
}

extern "C" int gpu_h_step_from_host_checked(void *d_a, void *d_b, void *d_c, const void *a, const void *b,
                                            const void *c, uint64_t len, unsigned log_n, int canonical,
                                            gpu_prep_result *d_res, const gpu_gate *gate, void *stream,
                                            void *copy_stream)
{
    GPU_TRY(check(d_a, d_b, d_c, log_n));
    if (!a || !b || !c) return err_set(CUZK_EINVAL, "H step: NULL host buffer");
    const uint64_t n = 1ull << log_n;
    if (len > n) return err_set(CUZK_EINVAL, "H step: %llu values do not fit the domain 2^%u", (unsigned long long)len, log_n);
    const ntt_device_ctx *ctx;
    const ntt_size_ctx *sz;
    GPU_TRY(ntt_ctx_get(log_n, &ctx, &sz));
    cudaStream_t st = (cudaStream_t)stream, cp = (cudaStream_t)copy_stream;
    void *dev[3] = {d_a, d_b, d_c};
    const void *host[3] = {a, b, c};
    cudaEvent_t ev[3] = {NULL, NULL, NULL};
    fr_gpu *da = (fr_gpu *)d_a, *db = (fr_gpu *)d_b, *dc = (fr_gpu *)d_c;
    int rc = 0;
    cudaError_t e = cudaSuccess;
    /* each input copied, then, once arrived, checked (d_res), brought to Montgomery form
     * (canonical) and transformed while the next one copies */
    for (int i = 0; i < 3 && !rc && e == cudaSuccess; i++) {
        e = cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming);
        if (e == cudaSuccess) e = copy_async_pieces(dev[i], host[i], len * sizeof(fr_gpu), cudaMemcpyHostToDevice, cp);
        if (e == cudaSuccess && len < n)
            e = cudaMemsetAsync((fr_gpu *)dev[i] + len, 0, (n - len) * sizeof(fr_gpu), cp);
        if (e == cudaSuccess) e = cudaEventRecord(ev[i], cp);
        if (e != cudaSuccess) {
            rc = gpu_error(e, "H step input copy", __FILE__, __LINE__);
            break;
        }
        if ((e = cudaStreamWaitEvent(st, ev[i], 0)) != cudaSuccess) break;
        if (i && (rc = h_pause(gate, st))) break;
        if (d_res || canonical) {
            if (!d_res) rc = err_set(CUZK_EINVAL, "H step: canonical inputs need a check result");
            else rc = gpu_prep_check(dev[i], len, (unsigned)i, canonical, d_res, st);
            if (rc) break;
        }
        rc = i == 0 ? h_run_a(da, ctx, sz, log_n, st)
           : i == 1 ? h_run_b(db, da, da, dc, false, NTT_CHAIN_HEAD | NTT_CHAIN_MID, ctx, sz, log_n, st)
                    : h_run_c(dc, ctx, sz, log_n, st);
    }
    if (!rc && e == cudaSuccess && !(rc = h_pause(gate, st)))
        rc = h_run_b(db, da, da, dc, false, NTT_CHAIN_LAST, ctx, sz, log_n, st);
    if (!rc && e != cudaSuccess) rc = gpu_error(e, "cudaStreamWaitEvent", __FILE__, __LINE__);
    for (int i = 0; i < 3; i++)
        if (ev[i]) cudaEventDestroy(ev[i]); /* released once the recorded work completes */
    return rc;
}

/* Copies len host values into d (2^log_n, zero-padded) on cp once `after` (if any) has
 * passed on the compute stream, then on st: waits for them, range-checks them (and converts
 * canonical ones) into d_res. */
static int h_upload(void *d, const void *host, uint64_t len, unsigned log_n, unsigned tag, int canonical,
                    gpu_prep_result *d_res, cudaEvent_t after, cudaEvent_t arrived, cudaStream_t st, cudaStream_t cp)
{
    const uint64_t n = 1ull << log_n;
    cudaError_t e = after ? cudaStreamWaitEvent(cp, after, 0) : cudaSuccess;
    if (e == cudaSuccess) e = copy_async_pieces(d, host, len * sizeof(fr_gpu), cudaMemcpyHostToDevice, cp);
    if (e == cudaSuccess && len < n) e = cudaMemsetAsync((fr_gpu *)d + len, 0, (n - len) * sizeof(fr_gpu), cp);
    if (e == cudaSuccess) e = cudaEventRecord(arrived, cp);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(st, arrived, 0);
    if (e != cudaSuccess) return gpu_error(e, "H step input copy", __FILE__, __LINE__);
    if (!d_res && !canonical) return 0;
    if (!d_res) return err_set(CUZK_EINVAL, "H step: canonical inputs need a check result");
    return gpu_prep_check(d, len, tag, canonical, d_res, st);
}

extern "C" int gpu_h_step_from_host_lean(void *d_x, void *d_y, const void *a, const void *b, const void *c,
                                         uint64_t len, unsigned log_n, int canonical, gpu_prep_result *d_res,
                                         const gpu_gate *gate, const gpu_h_hook *ab_arrived, void *stream,
                                         void *copy_stream)
{
    if (log_n < 1 || log_n > NTT_MAX_LOG) return err_set(CUZK_EINVAL, "H step domain 2^%u is outside 2^1..2^%d", log_n, NTT_MAX_LOG);
    if (!d_x || !d_y || d_x == d_y) return err_set(CUZK_EINVAL, "H step: two distinct device buffers are needed");
    if (!a || !b || !c) return err_set(CUZK_EINVAL, "H step: NULL host buffer");
    if (len > (1ull << log_n)) return err_set(CUZK_EINVAL, "H step: %llu values do not fit the domain 2^%u", (unsigned long long)len, log_n);
    const ntt_device_ctx *ctx;
    const ntt_size_ctx *sz;
    GPU_TRY(ntt_ctx_get(log_n, &ctx, &sz));
    cudaStream_t st = (cudaStream_t)stream, cp = (cudaStream_t)copy_stream;
    fr_gpu *x = (fr_gpu *)d_x, *y = (fr_gpu *)d_y;
    cudaEvent_t ev[4] = {NULL, NULL, NULL, NULL}; /* a, b, c arrived; x free for c */
    int rc = 0;
    for (int i = 0; i < 4 && !rc; i++) {
        cudaError_t e = cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming);
        if (e != cudaSuccess) rc = gpu_error(e, "cudaEventCreate", __FILE__, __LINE__);
    }
    /* x = A on the coset; y = b uploaded meanwhile, then A·B on the coset; x is then free for
     * c, whose copy is the one transfer the H step cannot hide behind a transform */
    if (!rc) rc = h_upload(x, a, len, log_n, 0, canonical, d_res, NULL, ev[0], st, cp);
    if (!rc) rc = h_run_a(x, ctx, sz, log_n, st);
    /* b's copy starts at once on cp (behind a's), st takes it up after A's transforms */
    if (!rc) rc = h_upload(y, b, len, log_n, 1, canonical, d_res, NULL, ev[1], st, cp);
    /* enqueued before the gate, which may hold this thread for a transform or an urgent job */
    if (!rc && ab_arrived && ab_arrived->fn) rc = ab_arrived->fn(ab_arrived->user, ev[1]);
    if (!rc) rc = h_pause(gate, st);
    if (!rc) rc = h_run_b(y, x, x, x, true, NTT_CHAIN_HEAD, ctx, sz, log_n, st);
    if (!rc) {
        cudaError_t e = cudaEventRecord(ev[3], st);
        if (e != cudaSuccess) rc = gpu_error(e, "cudaEventRecord", __FILE__, __LINE__);
    }
    /* A·B's inverse passes that need neither A nor c run while c is copied into x */
    if (!rc) rc = h_pause(gate, st);
    if (!rc) rc = h_run_b(y, x, x, x, true, NTT_CHAIN_MID, ctx, sz, log_n, st);
    if (!rc) rc = h_upload(x, c, len, log_n, 2, canonical, d_res, ev[3], ev[2], st, cp);
    if (!rc) rc = h_pause(gate, st);
    if (!rc) rc = h_run_c(x, ctx, sz, log_n, st);
    /* c's coefficients in natural order, so that h can overwrite them in place: the final
     * transform's last pass scatters its output, which rules out writing over its own input */
    if (!rc) rc = ntt_bitrev_permute(x, log_n, st);
    if (!rc) rc = h_pause(gate, st);
    if (!rc) rc = h_run_b(y, x, x, x, true, NTT_CHAIN_LAST, ctx, sz, log_n, st);
    for (int i = 0; i < 4; i++)
        if (ev[i]) cudaEventDestroy(ev[i]); /* released once the recorded work completes */
    return rc;
}

/* One input of a filled H step: fill's values, zero-padded to the domain, on st. */
static int h_fill(void *d, int input, uint64_t len, unsigned log_n, gpu_h_fill_fn fill, void *user, cudaStream_t st)
{
    const uint64_t n = 1ull << log_n;
    GPU_TRY(fill(user, input, d, (void *)st));
    if (len < n) {
        cudaError_t e = cudaMemsetAsync((fr_gpu *)d + len, 0, (n - len) * sizeof(fr_gpu), st);
        if (e != cudaSuccess) return gpu_error(e, "H step padding", __FILE__, __LINE__);
    }
    return 0;
}

/* A filled H step's arguments, and the domain's tables. */
static int filled_ctx(uint64_t len, unsigned log_n, gpu_h_fill_fn fill, const ntt_device_ctx **ctx,
                      const ntt_size_ctx **sz)
{
    if (!fill) return err_set(CUZK_EINVAL, "H step: no fill function");
    if (len > (1ull << log_n))
        return err_set(CUZK_EINVAL, "H step: %llu values do not fit the domain 2^%u", (unsigned long long)len, log_n);
    return ntt_ctx_get(log_n, ctx, sz);
}

extern "C" int gpu_h_step_filled(void *d_a, void *d_b, void *d_c, uint64_t len, unsigned log_n, gpu_h_fill_fn fill,
                                 void *user, const gpu_gate *gate, void *stream)
{
    GPU_TRY(check(d_a, d_b, d_c, log_n));
    const ntt_device_ctx *ctx;
    const ntt_size_ctx *sz;
    GPU_TRY(filled_ctx(len, log_n, fill, &ctx, &sz));
    cudaStream_t st = (cudaStream_t)stream;
    fr_gpu *a = (fr_gpu *)d_a, *b = (fr_gpu *)d_b, *c = (fr_gpu *)d_c;
    GPU_TRY(h_fill(a, 0, len, log_n, fill, user, st));
    GPU_TRY(h_run_a(a, ctx, sz, log_n, st));
    GPU_TRY(h_pause(gate, st));
    GPU_TRY(h_fill(b, 1, len, log_n, fill, user, st));
    GPU_TRY(h_run_b(b, a, a, c, false, NTT_CHAIN_HEAD | NTT_CHAIN_MID, ctx, sz, log_n, st));
    GPU_TRY(h_pause(gate, st));
    GPU_TRY(h_fill(c, 2, len, log_n, fill, user, st));
    GPU_TRY(h_run_c(c, ctx, sz, log_n, st));
    GPU_TRY(h_pause(gate, st));
    return h_run_b(b, a, a, c, false, NTT_CHAIN_LAST, ctx, sz, log_n, st);
}

extern "C" int gpu_h_step_filled_lean(void *d_x, void *d_y, uint64_t len, unsigned log_n, gpu_h_fill_fn fill,
                                      void *user, const gpu_gate *gate, void *stream)
{
    if (log_n < 1 || log_n > NTT_MAX_LOG) return err_set(CUZK_EINVAL, "H step domain 2^%u is outside 2^1..2^%d", log_n, NTT_MAX_LOG);
    if (!d_x || !d_y || d_x == d_y) return err_set(CUZK_EINVAL, "H step: two distinct device buffers are needed");
    const ntt_device_ctx *ctx;
    const ntt_size_ctx *sz;
    GPU_TRY(filled_ctx(len, log_n, fill, &ctx, &sz));
    cudaStream_t st = (cudaStream_t)stream;
    fr_gpu *x = (fr_gpu *)d_x, *y = (fr_gpu *)d_y;
    /* as gpu_h_step_from_host_lean, everything on one stream: x = A on the coset, y = A·B on
     * the coset, then c into x (free once the pass that multiplies by A has run) */
    GPU_TRY(h_fill(x, 0, len, log_n, fill, user, st));
    GPU_TRY(h_run_a(x, ctx, sz, log_n, st));
    GPU_TRY(h_pause(gate, st));
    GPU_TRY(h_fill(y, 1, len, log_n, fill, user, st));
    GPU_TRY(h_run_b(y, x, x, x, true, NTT_CHAIN_HEAD, ctx, sz, log_n, st));
    GPU_TRY(h_pause(gate, st));
    GPU_TRY(h_run_b(y, x, x, x, true, NTT_CHAIN_MID, ctx, sz, log_n, st));
    GPU_TRY(h_fill(x, 2, len, log_n, fill, user, st));
    GPU_TRY(h_pause(gate, st));
    GPU_TRY(h_run_c(x, ctx, sz, log_n, st));
    GPU_TRY(ntt_bitrev_permute(x, log_n, st));
    GPU_TRY(h_pause(gate, st));
    return h_run_b(y, x, x, x, true, NTT_CHAIN_LAST, ctx, sz, log_n, st);
}
