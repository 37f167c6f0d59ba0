/*
 * The Groth16 H step on the GPU in six transforms (TARGETS.md): the inverse coset
 * transform is linear and turns C's coset values back into C's coefficients, which the
 * inverse transform of c already gives, so
 *     h = cosetINTT(A·B on the coset) - INTT(c), all divided by g^n - 1.
 * Every scaling is fused into a transform's first load or last store:
 *   a, b:  DIF inverse, coefficient k times g^k/n         (natural -> bit-reversed)
 *          DIT forward on the coset                        (bit-reversed -> natural)
 *          b's last store multiplies by A                  (b := A·B)
 *   c:     DIF inverse, times 1/(n·(g^n - 1))              (bit-reversed coefficients)
 *   A·B:   DIF inverse, last store: x·g^-k/(n·(g^n - 1)) - c'[pos], written to a[k]
 *          (natural order, ready for the H MSM).
 */
#include "cuda_util.cuh"
#include "ntt.h"
#include "ntt/ntt_internal.cuh"

static int h_run_ab(fr_gpu *x, const fr_gpu *mul_by, const ntt_device_ctx *ctx, const ntt_size_ctx *sz,
                    unsigned log_n, cudaStream_t st)
{
    ntt_job j = {};
    j.data = j.out = x;
    j.log_n = log_n;
    j.dif = true, j.inverse = true;
    j.out_hook = NTT_HOOK_COSET;
    j.out_lo = ctx->dir[0].gc_lo, j.out_hi = sz->hi_fwd_inv_n;
    GPU_TRY(ntt_run(j, ctx, st));
    ntt_job f = {};
    f.data = f.out = x;
    f.log_n = log_n;
    f.dif = false, f.inverse = false;
    if (mul_by) f.out_hook = NTT_HOOK_MUL, f.aux = mul_by;
    return ntt_run(f, ctx, st);
}

static int h_run_c(fr_gpu *c, const ntt_device_ctx *ctx, const ntt_size_ctx *sz, unsigned log_n, cudaStream_t st)
{
    ntt_job j = {};
    j.data = j.out = c;
    j.log_n = log_n;
    j.dif = true, j.inverse = true;
    j.out_hook = NTT_HOOK_SCALE;
    j.scale = sz->h_scale;
    return ntt_run(j, ctx, st);
}

/* c in bit-reversed order (as h_run_c leaves it); natural: c in natural order, and then a may
 * be c itself (h overwrites c element by element). */
static int h_run_final(fr_gpu *a, fr_gpu *b, const fr_gpu *c, const ntt_device_ctx *ctx,
                       const ntt_size_ctx *sz, unsigned log_n, cudaStream_t st, bool natural = false)
{
    ntt_job j = {};
    j.data = b, j.out = a;
    j.log_n = log_n;
    j.dif = true, j.inverse = true;
    j.out_hook = natural ? NTT_HOOK_HFINAL_NAT : NTT_HOOK_HFINAL;
    j.out_lo = ctx->dir[1].gc_lo, j.out_hi = sz->hi_inv_h;
    j.aux = c;
    return ntt_run(j, ctx, st);
}

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
    GPU_TRY(h_run_ab(a, NULL, ctx, sz, log_n, st));
    GPU_TRY(h_run_ab(b, a, ctx, sz, log_n, st));
    GPU_TRY(h_run_c(c, ctx, sz, log_n, st));
    return h_run_final(a, b, c, ctx, sz, log_n, st);
}

extern "C" int gpu_h_step_from_host(void *d_a, void *d_b, void *d_c, const void *a, const void *b,
                                    const void *c, uint64_t len, unsigned log_n, void *stream,
                                    void *copy_stream)
{
    return gpu_h_step_from_host_checked(d_a, d_b, d_c, a, b, c, len, log_n, 0, NULL, stream, copy_stream);
}

extern "C" int gpu_h_step_from_host_checked(void *d_a, void *d_b, void *d_c, const void *a, const void *b,
                                            const void *c, uint64_t len, unsigned log_n, int canonical,
                                            gpu_prep_result *d_res, void *stream, void *copy_stream)
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
    int rc = 0;
    for (int i = 0; i < 3 && !rc; i++) {
        cudaError_t e = cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming);
        if (e == cudaSuccess) e = copy_async_pieces(dev[i], host[i], len * sizeof(fr_gpu), cudaMemcpyHostToDevice, cp);
        if (e == cudaSuccess && len < n)
            e = cudaMemsetAsync((fr_gpu *)dev[i] + len, 0, (n - len) * sizeof(fr_gpu), cp);
        if (e == cudaSuccess) e = cudaEventRecord(ev[i], cp);
        if (e != cudaSuccess) rc = gpu_error(e, "H step input copy", __FILE__, __LINE__);
    }
    fr_gpu *da = (fr_gpu *)d_a, *db = (fr_gpu *)d_b, *dc = (fr_gpu *)d_c;
    cudaError_t e = cudaSuccess;
    /* each input, once arrived: checked (d_res) and brought to Montgomery form (canonical) */
    for (int i = 0; i < 3 && !rc && e == cudaSuccess; i++) {
        if ((e = cudaStreamWaitEvent(st, ev[i], 0)) != cudaSuccess) break;
        if (d_res || canonical) {
            if (!d_res) rc = err_set(CUZK_EINVAL, "H step: canonical inputs need a check result");
            else rc = gpu_prep_check(dev[i], len, (unsigned)i, canonical, d_res, st);
            if (rc) break;
        }
        rc = i == 0 ? h_run_ab(da, NULL, ctx, sz, log_n, st)
           : i == 1 ? h_run_ab(db, da, ctx, sz, log_n, st)
                    : h_run_c(dc, ctx, sz, log_n, st);
    }
    if (!rc && e == cudaSuccess) rc = h_run_final(da, db, dc, ctx, sz, log_n, st);
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
                                         void *stream, void *copy_stream)
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
    if (!rc) rc = h_run_ab(x, NULL, ctx, sz, log_n, st);
    /* b's copy starts at once on cp (behind a's), st takes it up after A's transforms */
    if (!rc) rc = h_upload(y, b, len, log_n, 1, canonical, d_res, NULL, ev[1], st, cp);
    if (!rc) rc = h_run_ab(y, x, ctx, sz, log_n, st);
    if (!rc) {
        cudaError_t e = cudaEventRecord(ev[3], st);
        if (e != cudaSuccess) rc = gpu_error(e, "cudaEventRecord", __FILE__, __LINE__);
    }
    if (!rc) rc = h_upload(x, c, len, log_n, 2, canonical, d_res, ev[3], ev[2], st, cp);
    if (!rc) rc = h_run_c(x, ctx, sz, log_n, st);
    /* c's coefficients in natural order, so that h can overwrite them in place: the final
     * transform's last pass scatters its output, which rules out writing over its own input */
    if (!rc) rc = ntt_bitrev_permute(x, log_n, st);
    if (!rc) rc = h_run_final(x, y, x, ctx, sz, log_n, st, true);
    for (int i = 0; i < 4; i++)
        if (ev[i]) cudaEventDestroy(ev[i]); /* released once the recorded work completes */
    return rc;
}
