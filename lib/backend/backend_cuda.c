/*
 * The CUDA backend: the Groth16 prover on NVIDIA GPUs behind the engine's start/finish
 * interface. Bases live on each device once per key; each worker owns a stream, an MSM
 * context and the H-step scratch. finish assembles A, B, C on the host exactly as the CPU
 * backend does, so for the same r, s the proofs are byte-identical.
 */
#if CUZK_HAVE_CUDA
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/backend_common.h"
#include "cuda_util.h"
#include "error.h"
#include "fault.h"
#include "groth16/groth16.h"
#include "msm.h"

#include "ntt.h"
#include "prep.h"
#include "backend/backend_cuda_prep.h"
#include "field/curve.h"

#define CUDA_BE_MAX_DEV 64
/* Digit-sort scratch of one MSM context (16 bytes per entry): larger MSMs run in chunks. */
#define CUDA_BE_MSM_ENTRIES ((size_t)1 << 26)

typedef struct cuda_backend {
    threadpool *tp;              /* host work: key parsing, staging copies               */
    uint32_t ndev;
    int ordinal[CUDA_BE_MAX_DEV];
} cuda_backend;

typedef struct cuda_key {
    groth16_params *pk;
    uint32_t ndev;
    struct cuda_key_dev {
        msm_gpu_bases *h, *l, *a, *b_g1, *b_g2;
    } dev[CUDA_BE_MAX_DEV];
} cuda_key;

/* Device stages timed with CUDA events (one begin/end pair each, on the worker's streams). */
enum { ST_H, ST_COPY, ST_MSM_H, ST_MSM_L, ST_MSM_A, ST_MSM_B_G1, ST_MSM_B_G2, ST_N };
static const int32_t stage_kind[ST_N] = {CUZK_TRACE_H_STEP, CUZK_TRACE_H2D_COPY, CUZK_TRACE_MSM_H,
                                         CUZK_TRACE_MSM_L, CUZK_TRACE_MSM_A, CUZK_TRACE_MSM_B_G1,
                                         CUZK_TRACE_MSM_B_G2};

typedef struct cuda_worker {
    cuda_backend *b;
    uint32_t device_index;
    int ordinal;
    void *stream;                /* the H step and the MSMs                                 */
    void *copy_stream;           /* host -> device copies, overlapped with the compute      */
    msm_gpu_ctx *ctx;
    void *ev_ref;                /* recorded on an idle stream: maps event times to the host */
    void *ev[2 * ST_N];
    uint8_t stage_used[ST_N];
    uint64_t stage_bytes[ST_N];
    void *d_abc;                 /* 3 domain vectors for the H step, grown on demand        */
    size_t d_abc_bytes;
    void *d_sc;                  /* the L, A and B scalars on the device, grown on demand   */
    size_t d_sc_bytes;
    void *d_prep;                /* gpu_prep_result, then the compaction's scratch          */
    size_t d_prep_bytes;
    void *h_stage;               /* pinned staging, grown on demand (never per partition)   */
    size_t h_stage_bytes;
} cuda_worker;

typedef struct cuda_job {
    groth16_msm_out msm;
    fr_t r, s;
} cuda_job;

/* Bench-only (cuzk-bench pipeline at sizes no test setup reaches): while set, key_load ignores
 * the file and builds a key of this shape (counts and vk) whose bases are valid random points
 * generated on each device (msm_gpu_bases_generate); proofs made with it do not verify.
 * Hidden like every internal symbol: not part of the ABI. */
const groth16_params *cuda_backend_synthetic_shape;

static int cuda_create(const backend_config *cfg, void **be, uint32_t *devices)
{
    int n = gpu_device_count();
    if (n <= 0) return err_set(CUZK_EDEVICE, "CUDA backend: no usable CUDA device");
    cuda_backend *b = calloc(1, sizeof *b);
    if (!b) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    for (int d = 0; d < n && d < CUDA_BE_MAX_DEV; d++)
        if (!cfg->device_mask || (cfg->device_mask >> d & 1)) b->ordinal[b->ndev++] = d;
    if (!b->ndev) {
        free(b);
        return err_set(CUZK_EDEVICE, "CUDA backend: the device mask 0x%llx selects none of the %d devices",
                       (unsigned long long)cfg->device_mask, n);
    }
    if (!(b->tp = threadpool_create(cfg->cpu_threads))) {
        free(b);
        return err_set(CUZK_ENOMEM, "CUDA backend: cannot start %u host threads", cfg->cpu_threads);
    }
    *be = b;
    *devices = b->ndev;
    return CUZK_OK;
}

static void cuda_destroy(void *be)
{
    cuda_backend *b = be;
    threadpool_destroy(b->tp);
    free(b);
}

static int32_t cuda_ordinal(void *be, uint32_t d) { return ((cuda_backend *)be)->ordinal[d]; }

static void cuda_key_free(void *be, void *key)
{
    cuda_backend *b = be;
    cuda_key *k = key;
    if (!k) return;
    for (uint32_t d = 0; d < k->ndev; d++) {
        gpu_set_device(b->ordinal[d]);
        msm_gpu_bases_free(k->dev[d].h);
        msm_gpu_bases_free(k->dev[d].l);
        msm_gpu_bases_free(k->dev[d].a);
        msm_gpu_bases_free(k->dev[d].b_g1);
        msm_gpu_bases_free(k->dev[d].b_g2);
    }
    groth16_params_free(k->pk);
    free(k);
}

static int upload(msm_gpu_bases **out, int dev, int curve, const void *pts, uint32_t n)
{
    if (!n) return CUZK_OK; /* an empty MSM is skipped (its result is infinity) */
    if (FAULT_HIT(FAULT_CUDA_ALLOC)) return err_set(CUZK_EDEVICE, "injected fault: no device memory for bases");
    return msm_gpu_bases_upload(out, dev, curve, pts, n);
}

static int gen(msm_gpu_bases **out, int dev, int curve, uint32_t n, uint64_t seed)
{
    if (!n) return CUZK_OK;
    const void *g = curve == MSM_CURVE_G1 ? (const void *)&G1_GENERATOR : (const void *)&G2_GENERATOR;
    return msm_gpu_bases_generate(out, dev, curve, n, g, seed, 0x9e3779b97f4a7c15ull ^ seed);
}

/* The synthetic key (cuda_backend_synthetic_shape): host copy of the counts and the vk only. */
static int synthetic_params(groth16_params **out)
{
    const groth16_params *sh = cuda_backend_synthetic_shape;
    groth16_params *pk = calloc(1, sizeof *pk);
    if (!pk) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    pk->vk = sh->vk;
    pk->vk.ic = malloc((sh->vk.n_ic ? sh->vk.n_ic : 1) * sizeof(g1_aff));
    if (!pk->vk.ic) {
        free(pk);
        return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    }
    for (uint32_t i = 0; i < sh->vk.n_ic; i++) pk->vk.ic[i] = G1_GENERATOR;
    pk->n_h = sh->n_h, pk->n_l = sh->n_l, pk->n_a = sh->n_a, pk->n_b_g1 = sh->n_b_g1, pk->n_b_g2 = sh->n_b_g2;
    *out = pk;
    return CUZK_OK;
}

static int cuda_key_load(void *be, const char *path, uint32_t flags, void **key)
{
    cuda_backend *b = be;
    cuda_key *k = calloc(1, sizeof *k);
    if (!k) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    int synthetic = cuda_backend_synthetic_shape != NULL;
    int rc = synthetic ? synthetic_params(&k->pk)
                       : groth16_params_load(path, (flags & CUZK_SRS_CHECK_SUBGROUP) != 0, b->tp, &k->pk);
    if (rc) {
        free(k);
        return rc;
    }
    const groth16_params *pk = k->pk;
    for (uint32_t d = 0; d < b->ndev && synthetic; d++) {
        int dev = b->ordinal[d];
        k->ndev = d + 1;
        if ((rc = gen(&k->dev[d].h, dev, MSM_CURVE_G1, pk->n_h, 11)) ||
            (rc = gen(&k->dev[d].l, dev, MSM_CURVE_G1, pk->n_l, 12)) ||
            (rc = gen(&k->dev[d].a, dev, MSM_CURVE_G1, pk->n_a, 13)) ||
            (rc = gen(&k->dev[d].b_g1, dev, MSM_CURVE_G1, pk->n_b_g1, 14)) ||
            (rc = gen(&k->dev[d].b_g2, dev, MSM_CURVE_G2, pk->n_b_g2, 15))) {
            cuda_key_free(be, k);
            return rc;
        }
    }
    for (uint32_t d = 0; d < b->ndev && !synthetic; d++) {
        int dev = b->ordinal[d];
        k->ndev = d + 1;
        if ((rc = upload(&k->dev[d].h, dev, MSM_CURVE_G1, pk->h, pk->n_h)) ||
            (rc = upload(&k->dev[d].l, dev, MSM_CURVE_G1, pk->l, pk->n_l)) ||
            (rc = upload(&k->dev[d].a, dev, MSM_CURVE_G1, pk->a, pk->n_a)) ||
            (rc = upload(&k->dev[d].b_g1, dev, MSM_CURVE_G1, pk->b_g1, pk->n_b_g1)) ||
            (rc = upload(&k->dev[d].b_g2, dev, MSM_CURVE_G2, pk->b_g2, pk->n_b_g2))) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", cuzk_last_error());
            cuda_key_free(be, k);
            return err_set(rc == CUZK_EDEVICE ? CUZK_EDEVICE : rc,
                           "CUDA backend: cannot upload the key's bases to device %d: %s", dev, msg);
        }
    }
    *key = k;
    return CUZK_OK;
}

/* The key's params for a CPU retry (CUZK_OPT_RETRY_ON_CPU); none for the synthetic key,
 * which has no points on the host. */
static void *cuda_key_params(void *key)
{
    cuda_key *k = key;
    return k->pk->h || !k->pk->n_h ? k->pk : NULL;
}

static int cuda_check(void *be, void *key, const cuzk_partition *p, backend_estimate *est)
{
    (void)be;
    const cuda_key *k = key;
    const groth16_params *pk = k->pk;
    int rc = groth16_check_partition(pk, p);
    if (rc) return rc;
    uint64_t m = (uint64_t)1 << backend_log2_ceil(p->abc_len), fr = sizeof(fr_t);
    /* host: what this partition makes its worker hold in pinned staging (a/b/c, aux and the
     * densities when they are not page-locked, the inputs' A and B prefixes); the worker's
     * buffers are grown to it once and then reused */
    est->host_abc_bytes = 0;
    est->host_bytes = (3 * (uint64_t)p->abc_len + p->num_aux + 2 * (uint64_t)p->num_inputs) * fr +
                      (p->num_aux + 63) / 64 * 16 + ((uint64_t)1 << 20);
    /* device: the H step's three vectors, the L/A/B scalars, the compaction's scratch, the
     * MSM sort scratch */
    est->device_bytes = 3 * m * fr + ((uint64_t)pk->n_l + pk->n_a + pk->n_b_g1) * fr +
                        gpu_prep_scratch_bytes(p->num_aux) + 256 + CUDA_BE_MSM_ENTRIES * 16;
    return CUZK_OK;
}

static void cuda_worker_fini(void *ws)
{
    cuda_worker *w = ws;
    if (!w) return;
    gpu_set_device(w->ordinal);
    if (w->ctx) msm_gpu_ctx_free(w->ctx);
    gpu_free(w->d_abc);
    gpu_free(w->d_sc);
    gpu_free(w->d_prep);
    if (w->h_stage) gpu_host_free(w->h_stage);
    if (w->ev_ref) gpu_event_destroy(w->ev_ref);
    for (int i = 0; i < 2 * ST_N; i++)
        if (w->ev[i]) gpu_event_destroy(w->ev[i]);
    if (w->copy_stream) gpu_stream_destroy(w->copy_stream);
    if (w->stream) gpu_stream_destroy(w->stream);
    free(w);
}

static int cuda_worker_init(void *be, uint32_t device, uint32_t worker, uint32_t flags, void **ws)
{
    (void)worker;
    (void)flags; /* BACKEND_WORKER_URGENT: streams of the highest priority (the lead wires it) */
    cuda_backend *b = be;
    cuda_worker *w = calloc(1, sizeof *w);
    if (!w) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    w->b = b;
    w->device_index = device;
    w->ordinal = b->ordinal[device];
    int rc;
    if ((rc = gpu_set_device(w->ordinal)) || (rc = gpu_stream_create(&w->stream)) ||
        (rc = gpu_stream_create(&w->copy_stream)) || (rc = gpu_event_create(&w->ev_ref)) ||
        (rc = msm_gpu_ctx_create(&w->ctx, w->ordinal, w->stream, CUDA_BE_MSM_ENTRIES))) {
        cuda_worker_fini(w);
        return rc;
    }
    for (int i = 0; i < 2 * ST_N; i++)
        if ((rc = gpu_event_create(&w->ev[i]))) {
            cuda_worker_fini(w);
            return rc;
        }
    *ws = w;
    return CUZK_OK;
}

static int dev_fail(cuda_worker *w, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s", cuzk_last_error());
    return err_set(CUZK_EDEVICE, "CUDA backend: %s on device %d failed: %s", what, w->ordinal, msg);
}

/* Grows a per-worker device buffer (kept for the next partitions). */
static int ensure_dev(cuda_worker *w, void **buf, size_t *have, size_t bytes, const char *what)
{
    if (FAULT_HIT(FAULT_CUDA_ALLOC))
        return err_set(CUZK_EBUDGET, "CUDA backend: injected fault: device %d has no room for %s (%zu bytes)",
                       w->ordinal, what, bytes);
    if (*have >= bytes) return CUZK_OK;
    gpu_free(*buf);
    *buf = NULL;
    *have = 0;
    if (gpu_malloc(buf, bytes)) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cuzk_last_error());
        return err_set(CUZK_EBUDGET, "CUDA backend: device %d has no room for %s (%zu bytes): %s", w->ordinal,
                       what, bytes, msg);
    }
    *have = bytes;
    return CUZK_OK;
}

static int ensure_stage(cuda_worker *w, size_t bytes)
{
    if (w->h_stage_bytes >= bytes) return CUZK_OK;
    if (w->h_stage) gpu_host_free(w->h_stage);
    w->h_stage = NULL;
    w->h_stage_bytes = 0;
    if (gpu_host_alloc(&w->h_stage, bytes)) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cuzk_last_error());
        return err_set(CUZK_ENOMEM, "CUDA backend: no pinned staging memory (%zu bytes): %s", bytes, msg);
    }
    w->h_stage_bytes = bytes;
    return CUZK_OK;
}

static int stage_begin(cuda_worker *w, int st, void *stream)
{
    w->stage_used[st] = 1;
    return gpu_event_record(w->ev[2 * st], stream);
}

static int stage_end(cuda_worker *w, int st, void *stream, uint64_t bytes)
{
    w->stage_bytes[st] = bytes;
    return gpu_event_record(w->ev[2 * st + 1], stream);
}

/* One of the five MSMs, its scalars on the device; n = 0 leaves infinity (all-zero Jacobian). */
static int run_msm(cuda_worker *w, int st, const msm_gpu_bases *bases, const void *d_scalars, size_t n, int form,
                   void *out, size_t out_size)
{
    if (!n || !bases) {
        memset(out, 0, out_size);
        return CUZK_OK;
    }
    int rc;
    if ((rc = stage_begin(w, st, w->stream))) return rc;
    if (FAULT_HIT(FAULT_CUDA_MSM)) rc = err_set(CUZK_EDEVICE, "injected fault: CUDA MSM");
    else rc = msm_gpu_run(w->ctx, bases, 0, d_scalars, n, form, MSM_SCALARS_DEVICE, out);
    if (rc) {
        char what[64];
        snprintf(what, sizeof what, "MSM of %zu points", n);
        return dev_fail(w, what);
    }
    return stage_end(w, st, w->stream, (uint64_t)n * sizeof(fr_t));
}

/* Reports each device stage of this partition on the host clock: ev_ref was recorded on an
 * idle stream and seen complete at t_ref, so an event e happened at t_ref + (e - ev_ref). */
static void report_stages(cuda_worker *w, backend_job *job, uint64_t t_ref)
{
    float first = -1, last = 0;
    for (int st = 0; st < ST_N; st++) {
        float b, e;
        if (!w->stage_used[st] || gpu_event_elapsed_ms(&b, w->ev_ref, w->ev[2 * st]) ||
            gpu_event_elapsed_ms(&e, w->ev_ref, w->ev[2 * st + 1]))
            continue;
        if (first < 0 || b < first) first = b;
        if (e > last) last = e;
        bjob_trace(job, stage_kind[st], t_ref + (uint64_t)((double)b * 1e6), t_ref + (uint64_t)((double)e * 1e6),
                   w->stage_bytes[st]);
    }
    if (first >= 0) job->device_ns = (uint64_t)((double)(last - first) * 1e6);
}

static int cuda_start_work(cuda_worker *w, backend_job *job);

static int cuda_start(void *ws, backend_job *job)
{
    cuda_worker *w = ws;
    job->device = w->ordinal;
    int rc = gpu_set_device(w->ordinal);
    if (rc) return rc;
    memset(w->stage_used, 0, sizeof w->stage_used);
    rc = cuda_start_work(w, job);
    /* whatever happened, nothing on the device may still read the staging or the host's
     * buffers once start returns */
    int rc1 = gpu_stream_sync(w->copy_stream), rc2 = gpu_stream_sync(w->stream);
    if (!rc && (rc1 || rc2)) rc = dev_fail(w, "the partition's device work");
    return rc;
}

/* Pinned staging carve-out: the next `bytes` (32-byte aligned) of the worker's buffer. */
static void *stage_take(uint8_t **at, size_t bytes)
{
    void *p = *at;
    *at += (bytes + 31) & ~(size_t)31;
    return p;
}

/* src itself when page-locked (or empty), else a parallel copy into the staging. */
static const void *stage_or_direct(threadpool *tp, uint8_t **at, const void *src, size_t bytes)
{
    if (!bytes || gpu_host_is_pinned(src)) return src;
    void *d = stage_take(at, bytes);
    prep_copy(tp, d, src, bytes);
    return d;
}

static int pinned_or_empty(const void *p, size_t bytes) { return !bytes || gpu_host_is_pinned(p); }

static int cuda_start_work(cuda_worker *w, backend_job *job)
{
    static const char *const names[5] = {"a", "b", "c", "inputs", "aux"};
    const cuda_key *k = job->key;
    const groth16_params *pk = k->pk;
    const cuzk_partition *p = job->p;
    cuda_job *st = job->priv;
    threadpool *tp = w->b->tp;
    int rc;
    uint64_t t0 = bjob_now_ns();
    if ((rc = backend_pick_rs(&st->r, p->r, p->scalar_form, "r")) || (rc = backend_pick_rs(&st->s, p->s, p->scalar_form, "s")))
        return rc;
    if (bjob_canceled(job)) return CUZK_ECANCELED;
    unsigned log_m = backend_log2_ceil(p->abc_len);
    size_t m = (size_t)1 << log_m, fr = sizeof(fr_t), len = p->abc_len;
    int canon = p->scalar_form == CUZK_FR_CANONICAL;
    uint64_t n_a = pk->n_a, n_b = pk->n_b_g1; /* submit checked them against the densities */
    uint64_t ni = p->num_inputs, na = p->num_aux, nw = (na + 63) / 64, kb0 = 0;
    for (uint64_t i = 0; i < ni; i++) kb0 += p->b_input_density[i / 64] >> (i % 64) & 1;
    if (n_a < ni || n_b < kb0)
        return err_set(CUZK_EINVAL, "partition's %llu inputs (%llu B-selected) exceed the key's %llu A and %llu B scalars",
                       (unsigned long long)ni, (unsigned long long)kb0, (unsigned long long)n_a,
                       (unsigned long long)n_b);
    /* what goes through the pinned staging buffer: a/b/c, aux and the densities unless
     * page-locked, and always the inputs' prefixes of A and B and the check result; the range
     * checks, the Montgomery conversion of canonical a/b/c and the density compaction run on
     * the device (kernels/prep.h) */
    size_t abc_stage = pinned_or_empty(p->a, len) && pinned_or_empty(p->b, len) && pinned_or_empty(p->c, len) ? 0 : 3 * len;
    size_t aux_stage = pinned_or_empty(p->aux, na) ? 0 : na;
    size_t dens_stage = pinned_or_empty(p->a_aux_density, nw) && pinned_or_empty(p->b_aux_density, nw) ? 0 : 2 * nw * 8;
    size_t prep_scratch = gpu_prep_scratch_bytes(na);
    if ((rc = ensure_stage(w, (abc_stage + aux_stage + ni + kb0 + 4) * fr + dens_stage + 256)) ||
        (rc = ensure_dev(w, &w->d_abc, &w->d_abc_bytes, 3 * m * fr, "the H step")) ||
        (rc = ensure_dev(w, &w->d_sc, &w->d_sc_bytes, (na + n_a + n_b + 1) * fr, "the MSM scalars")) ||
        (rc = ensure_dev(w, &w->d_prep, &w->d_prep_bytes, 256 + prep_scratch, "the scalar preparation")))
        return rc;
    uint8_t *at = w->h_stage;
    gpu_prep_result *h_res = stage_take(&at, sizeof *h_res), *d_res = w->d_prep;
    const void *a = p->a, *b = p->b, *c = p->c;
    if (abc_stage) {
        fr_t *hs = stage_take(&at, 3 * len * fr);
        prep_copy(tp, hs, p->a, len * fr);
        prep_copy(tp, hs + len, p->b, len * fr);
        prep_copy(tp, hs + 2 * len, p->c, len * fr);
        a = hs, b = hs + len, c = hs + 2 * len;
    }
    uint64_t t1 = bjob_now_ns();
    bjob_trace(job, CUZK_TRACE_HOST_PREP, t0, t1, abc_stage * fr);

    /* the device clock's reference: both streams are idle here */
    if ((rc = gpu_event_record(w->ev_ref, w->stream)) || (rc = gpu_event_sync(w->ev_ref))) return rc;
    uint64_t t_ref = bjob_now_ns();
    uint8_t *d = w->d_abc;
    /* a, b, c are checked (and made Montgomery) on the device as they arrive; the transforms
     * are harmless on values >= r and nothing reads their output before the host has seen
     * the check's result (the first MSM is enqueued after it) */
    if ((rc = gpu_prep_reset(d_res, w->stream)) || (rc = stage_begin(w, ST_H, w->stream)) ||
        (FAULT_HIT(FAULT_CUDA_H) && err_set(CUZK_EDEVICE, "injected fault: CUDA H step")) ||
        gpu_h_step_from_host_checked(d, d + m * fr, d + 2 * m * fr, a, b, c, len, log_m, canon, d_res, w->stream,
                                     w->copy_stream) ||
        (rc = stage_end(w, ST_H, w->stream, 3 * len * fr)))
        return rc ? rc : dev_fail(w, "the H step");

    /* while the H step runs: aux (whole, for L), the inputs' prefixes of A and B and the
     * densities go to the device; A and B are compacted there */
    uint64_t t2 = bjob_now_ns();
    const void *aux = stage_or_direct(tp, &at, p->aux, na * fr);
    const uint64_t *dens_a = p->a_aux_density, *dens_b = p->b_aux_density;
    if (dens_stage) {
        uint64_t *hd = stage_take(&at, 2 * nw * 8);
        prep_copy(tp, hd, p->a_aux_density, nw * 8);
        prep_copy(tp, hd + nw, p->b_aux_density, nw * 8);
        dens_a = hd, dens_b = hd + nw;
    }
    fr_t *h_in = stage_take(&at, (ni + kb0 + 1) * fr);
    if (ni) memcpy(h_in, p->inputs, ni * fr);
    for (uint64_t i = 0, kb = ni; i < ni; i++)
        if (p->b_input_density[i / 64] >> (i % 64) & 1) h_in[kb++] = *(const fr_t *)&p->inputs[i];
    bjob_trace(job, CUZK_TRACE_HOST_PREP, t2, bjob_now_ns(), (aux_stage + ni + kb0) * fr + dens_stage);
    fr_t *d_aux = w->d_sc, *d_a = d_aux + na, *d_b = d_a + n_a;
    size_t sc_bytes = (na + ni + kb0) * fr + 2 * nw * 8;
    if ((rc = stage_begin(w, ST_COPY, w->copy_stream)) ||
        (FAULT_HIT(FAULT_CUDA_COPY) && (rc = err_set(CUZK_EDEVICE, "injected fault: CUDA copy of the scalars"))) ||
        (na && (rc = gpu_memcpy_async(d_aux, aux, na * fr, w->copy_stream))) ||
        (ni && (rc = gpu_memcpy_async(d_a, h_in, ni * fr, w->copy_stream))) ||
        (kb0 && (rc = gpu_memcpy_async(d_b, h_in + ni, kb0 * fr, w->copy_stream))) ||
        (rc = stage_end(w, ST_COPY, w->copy_stream, sc_bytes)))
        return dev_fail(w, "copying the MSM scalars");
    /* after the H step on its stream: inputs and aux checked, A and B compacted (the
     * densities copied there), the result read back */
    if (gpu_stream_wait_event(w->stream, w->ev[2 * ST_COPY + 1]) ||
        gpu_prep_check(d_a, ni, 3, 0, d_res, w->stream) || gpu_prep_check(d_aux, na, 4, 0, d_res, w->stream) ||
        gpu_prep_compact(d_a + ni, n_a - ni, d_b + kb0, n_b - kb0, d_aux, na, dens_a, dens_b,
                         (uint8_t *)w->d_prep + 256, w->d_prep_bytes - 256, d_res, w->stream) ||
        gpu_memcpy_async(h_res, d_res, sizeof *h_res, w->stream) || gpu_stream_sync(w->stream))
        return dev_fail(w, "the scalar preparation");
    bjob_release_abc(job);
    if (h_res->bad != GPU_PREP_OK) {
        unsigned arr = (unsigned)(h_res->bad >> 56);
        return err_set(CUZK_EINVAL, "%s[%llu] is not below r (%s form)", arr < 5 ? names[arr] : "?",
                       (unsigned long long)(h_res->bad & (((uint64_t)1 << 56) - 1)), canon ? "canonical" : "Montgomery");
    }
    if (ni + h_res->n_a != n_a || kb0 + h_res->n_b != n_b) /* the densities changed since submit checked them */
        return err_set(CUZK_EINVAL, "partition's densities select %llu A and %llu B scalars, the key has %llu and %llu",
                       (unsigned long long)(ni + h_res->n_a), (unsigned long long)(kb0 + h_res->n_b),
                       (unsigned long long)n_a, (unsigned long long)n_b);
    if (bjob_canceled(job)) return CUZK_ECANCELED;

    const struct cuda_key_dev *kb_ = &k->dev[w->device_index];
    int form = canon ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY;
    if ((rc = run_msm(w, ST_MSM_H, kb_->h, d, pk->n_h, CUZK_FR_MONTGOMERY, &st->msm.h, sizeof st->msm.h)) ||
        (rc = run_msm(w, ST_MSM_L, kb_->l, d_aux, na, form, &st->msm.l, sizeof st->msm.l)) ||
        (rc = run_msm(w, ST_MSM_A, kb_->a, d_a, n_a, form, &st->msm.a, sizeof st->msm.a)) ||
        (rc = run_msm(w, ST_MSM_B_G1, kb_->b_g1, d_b, n_b, form, &st->msm.b_g1, sizeof st->msm.b_g1)) ||
        (rc = run_msm(w, ST_MSM_B_G2, kb_->b_g2, d_b, n_b, form, &st->msm.b_g2, sizeof st->msm.b_g2)))
        return rc;
    if (gpu_stream_sync(w->stream)) return dev_fail(w, "the MSMs");
    report_stages(w, job, t_ref);
    return CUZK_OK;
}

static int cuda_finish(void *be, backend_job *job)
{
    (void)be;
    cuda_job *st = job->priv;
    const cuda_key *k = job->key;
    uint64_t t0 = bjob_now_ns();
    groth16_assemble(job->proof, k->pk, &st->msm, &st->r, &st->s);
    bjob_trace(job, CUZK_TRACE_ASSEMBLY, t0, bjob_now_ns(), 0);
    return CUZK_OK;
}

static int cuda_verify(void *be, void *key, backend_job *job)
{
    /* the pairing check reads only the params */
    (void)be;
    return backend_verify_proof(((cuda_key *)key)->pk, job);
}

/* cuzk_host_alloc memory: page-locked for every device, so partitions built there are copied
 * to the device with no staging copy */
static int cuda_host_alloc(void *be, size_t bytes, void **out)
{
    (void)be;
    return gpu_host_alloc(out, bytes);
}

static void cuda_host_free(void *be, void *p, size_t bytes)
{
    (void)be;
    (void)bytes;
    gpu_host_free(p);
}

const backend_ops backend_cuda_ops = {
    .name = "cuda",
    .kind = CUZK_BACKEND_CUDA,
    .priv_size = sizeof(cuda_job),
    .inflight_per_worker = 2,
    .create = cuda_create,
    .destroy = cuda_destroy,
    .device_ordinal = cuda_ordinal,
    .key_load = cuda_key_load,
    .key_free = cuda_key_free,
    .key_params = cuda_key_params,
    .check = cuda_check,
    .worker_init = cuda_worker_init,
    .worker_fini = cuda_worker_fini,
    .start = cuda_start,
    .finish = cuda_finish,
    .verify = cuda_verify,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
};
#endif
