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
#include "cuda_util.h"
#include "error.h"
#include "groth16/groth16.h"
#include "msm.h"

/* The GPU H step (kernels/ntt.h) when the tree has it (checked on an H200 merged with
 * gpu-ntt: byte-identical proofs); the CPU's H step otherwise. -DCUZK_GPU_H_STEP=0 forces
 * the CPU's. */
#if defined(__has_include) && !(defined(CUZK_GPU_H_STEP) && !CUZK_GPU_H_STEP)
#if __has_include("ntt.h")
#include "ntt.h"
#define CUDA_BE_GPU_H 1
#endif
#endif
#ifndef CUDA_BE_GPU_H
#define CUDA_BE_GPU_H 0
#endif

#define CUDA_BE_MAX_DEV 64
/* Digit-sort scratch of one MSM context (16 bytes per entry): larger MSMs run in chunks. */
#define CUDA_BE_MSM_ENTRIES ((size_t)1 << 26)

typedef struct cuda_backend {
    threadpool *tp;              /* host work: key parsing, scalar checks and compaction */
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

typedef struct cuda_worker {
    cuda_backend *b;
    uint32_t device_index;
    int ordinal;
    void *stream;
    msm_gpu_ctx *ctx;
    void *ev0, *ev1;
    void *d_abc;                 /* 3 domain vectors for the H step, grown on demand */
    size_t d_abc_bytes;
} cuda_worker;

typedef struct cuda_job {
    groth16_msm_out msm;
    fr_t r, s;
} cuda_job;

static unsigned log2_ceil(uint64_t n)
{
    unsigned k = 0;
    while (k < 64 && ((uint64_t)1 << k) < n) k++;
    return k;
}

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
    return msm_gpu_bases_upload(out, dev, curve, pts, n);
}

static int cuda_key_load(void *be, const char *path, uint32_t flags, void **key)
{
    cuda_backend *b = be;
    cuda_key *k = calloc(1, sizeof *k);
    if (!k) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    int rc = groth16_params_load(path, (flags & CUZK_SRS_CHECK_SUBGROUP) != 0, b->tp, &k->pk);
    if (rc) {
        free(k);
        return rc;
    }
    const groth16_params *pk = k->pk;
    for (uint32_t d = 0; d < b->ndev; d++) {
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

static int cuda_check(void *be, void *key, const cuzk_partition *p, backend_estimate *est)
{
    (void)be;
    const cuda_key *k = key;
    const groth16_params *pk = k->pk;
    int rc = groth16_check_partition(pk, p);
    if (rc) return rc;
    uint64_t m = (uint64_t)1 << log2_ceil(p->abc_len), fr = sizeof(fr_t);
    /* host: the canonical MSM scalars (and, without the GPU H step, h and its two domain
     * vectors; with it, a Montgomery copy of a, b, c when they come canonical) */
    uint64_t aux_copy = p->scalar_form == CUZK_FR_CANONICAL ? 0 : p->num_aux;
    est->host_abc_bytes = CUDA_BE_GPU_H ? (p->scalar_form == CUZK_FR_CANONICAL ? 3 * m * fr : 0) : 2 * m * fr;
    est->host_bytes = est->host_abc_bytes + (CUDA_BE_GPU_H ? 0 : m * fr) +
                      (aux_copy + pk->n_a + pk->n_b_g1) * fr + ((uint64_t)1 << 20);
    /* device: the H step's three vectors, the scalars of one MSM, the sort scratch */
    uint64_t big = pk->n_l > pk->n_a ? pk->n_l : pk->n_a;
    if (pk->n_b_g1 > big) big = pk->n_b_g1;
    est->device_bytes = (CUDA_BE_GPU_H ? 3 * m * fr : m * fr) + big * fr + CUDA_BE_MSM_ENTRIES * 16;
    return CUZK_OK;
}

static void cuda_worker_fini(void *ws)
{
    cuda_worker *w = ws;
    if (!w) return;
    gpu_set_device(w->ordinal);
    if (w->ctx) msm_gpu_ctx_free(w->ctx);
    if (w->d_abc) gpu_free(w->d_abc);
    if (w->ev0) gpu_event_destroy(w->ev0);
    if (w->ev1) gpu_event_destroy(w->ev1);
    if (w->stream) gpu_stream_destroy(w->stream);
    free(w);
}

static int cuda_worker_init(void *be, uint32_t device, uint32_t worker, void **ws)
{
    (void)worker;
    cuda_backend *b = be;
    cuda_worker *w = calloc(1, sizeof *w);
    if (!w) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    w->b = b;
    w->device_index = device;
    w->ordinal = b->ordinal[device];
    int rc;
    if ((rc = gpu_set_device(w->ordinal)) || (rc = gpu_stream_create(&w->stream)) ||
        (rc = gpu_event_create(&w->ev0)) || (rc = gpu_event_create(&w->ev1)) ||
        (rc = msm_gpu_ctx_create(&w->ctx, w->ordinal, w->stream, CUDA_BE_MSM_ENTRIES))) {
        cuda_worker_fini(w);
        return rc;
    }
    *ws = w;
    return CUZK_OK;
}

static int is_below_r(const cuzk_fr *x)
{
    for (int i = 3; i >= 0; i--)
        if (x->l[i] != FR_MODULUS[i]) return x->l[i] < FR_MODULUS[i];
    return 0;
}

static int pick_rs(fr_t *out, const cuzk_fr *given, int32_t form, const char *name)
{
    if (!given) return groth16_random_fr(out);
    if (!is_below_r(given)) return err_set(CUZK_EINVAL, "partition's %s is not below r", name);
    if (form == CUZK_FR_CANONICAL) fr_to_mont(out, (const fr_t *)given);
    else memcpy(out, given, sizeof *out);
    return CUZK_OK;
}

/* msm_gpu_run for one of the five MSMs; n = 0 leaves infinity (all-zero Jacobian). */
static int run_msm(cuda_worker *w, backend_job *job, int32_t kind, const msm_gpu_bases *bases,
                   const void *scalars, size_t n, int form, int where, void *out, size_t out_size)
{
    if (!n || !bases) {
        memset(out, 0, out_size);
        return CUZK_OK;
    }
    uint64_t t0 = bjob_now_ns();
    int rc = msm_gpu_run(w->ctx, bases, 0, scalars, n, form, where, out);
    if (rc) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cuzk_last_error());
        return err_set(CUZK_EDEVICE, "CUDA backend: MSM of %zu points on device %d failed: %s", n,
                       w->ordinal, msg);
    }
    bjob_trace(job, kind, t0, bjob_now_ns(), (uint64_t)n * sizeof(fr_t));
    return CUZK_OK;
}

#if CUDA_BE_GPU_H
static int ensure_abc(cuda_worker *w, size_t bytes)
{
    if (w->d_abc_bytes >= bytes) return CUZK_OK;
    if (w->d_abc) gpu_free(w->d_abc);
    w->d_abc = NULL;
    w->d_abc_bytes = 0;
    if (gpu_malloc(&w->d_abc, bytes)) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cuzk_last_error());
        return err_set(CUZK_EDEVICE, "CUDA backend: device %d has no room for the H step (%zu bytes): %s",
                       w->ordinal, bytes, msg);
    }
    w->d_abc_bytes = bytes;
    return CUZK_OK;
}
#endif

static int cuda_start(void *ws, backend_job *job)
{
    cuda_worker *w = ws;
    const cuda_key *k = job->key;
    const groth16_params *pk = k->pk;
    const cuzk_partition *p = job->p;
    cuda_job *st = job->priv;
    int rc;
    job->device = w->ordinal;
    if ((rc = gpu_set_device(w->ordinal))) return rc;
    if ((rc = pick_rs(&st->r, p->r, p->scalar_form, "r")) || (rc = pick_rs(&st->s, p->s, p->scalar_form, "s")))
        return rc;
    if ((rc = groth16_check_scalars(p, w->b->tp))) return rc;
    if (bjob_canceled(job)) return CUZK_ECANCELED;
    unsigned log_m = log2_ceil(p->abc_len);
    size_t m = (size_t)1 << log_m;
    const void *hsc;
    int h_where;
    if ((rc = gpu_event_record(w->ev0, w->stream))) return rc;
    uint64_t t0 = bjob_now_ns();
#if CUDA_BE_GPU_H
    if ((rc = ensure_abc(w, 3 * m * sizeof(fr_t)))) return rc;
    const void *a = p->a, *b = p->b, *c = p->c;
    if (p->scalar_form == CUZK_FR_CANONICAL) { /* the transforms want Montgomery */
        fr_t *mt = bjob_alloc(job, 3 * (size_t)p->abc_len * sizeof(fr_t));
        if (!mt) return err_set(CUZK_ENOMEM, "CUDA backend: no host memory for a, b, c in Montgomery form");
        for (uint64_t i = 0; i < p->abc_len; i++) {
            fr_to_mont(&mt[i], (const fr_t *)&p->a[i]);
            fr_to_mont(&mt[p->abc_len + i], (const fr_t *)&p->b[i]);
            fr_to_mont(&mt[2 * p->abc_len + i], (const fr_t *)&p->c[i]);
        }
        a = mt, b = mt + p->abc_len, c = mt + 2 * p->abc_len;
    }
    uint8_t *d = w->d_abc;
    if ((rc = gpu_h_step_from_host(d, d + m * sizeof(fr_t), d + 2 * m * sizeof(fr_t), a, b, c, p->abc_len,
                                   log_m, w->stream, w->stream)) ||
        (rc = gpu_stream_sync(w->stream))) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cuzk_last_error());
        return err_set(CUZK_EDEVICE, "CUDA backend: H step of 2^%u on device %d failed: %s", log_m, w->ordinal, msg);
    }
    hsc = d;
    h_where = MSM_SCALARS_DEVICE;
#else
    fr_t *h = bjob_alloc(job, m * sizeof(fr_t));
    if (!h) return err_set(CUZK_ENOMEM, "CUDA backend: no working memory for 2^%u H scalars", log_m);
    if ((rc = groth16_compute_h(h, p, log_m, w->b->tp))) return rc;
    hsc = h;
    h_where = MSM_SCALARS_HOST;
#endif
    bjob_trace(job, CUZK_TRACE_H_STEP, t0, bjob_now_ns(), ((uint64_t)3 << log_m) * sizeof(fr_t));
    bjob_release_abc(job);
    if (bjob_canceled(job)) return CUZK_ECANCELED;
    const struct cuda_key_dev *kb = &k->dev[w->device_index];
    if ((rc = run_msm(w, job, CUZK_TRACE_MSM_H, kb->h, hsc, pk->n_h, CUZK_FR_MONTGOMERY, h_where, &st->msm.h,
                      sizeof st->msm.h)))
        return rc;
    /* First version: density compaction of the a/b scalars on the host (canonical). */
    groth16_msm_scalars s;
    if ((rc = groth16_msm_scalars_make(&s, p, w->b->tp))) return rc;
    if (!(rc = run_msm(w, job, CUZK_TRACE_MSM_L, kb->l, s.aux, s.n_aux, CUZK_FR_CANONICAL, MSM_SCALARS_HOST,
                       &st->msm.l, sizeof st->msm.l)) &&
        !(rc = run_msm(w, job, CUZK_TRACE_MSM_A, kb->a, s.a, s.n_a, CUZK_FR_CANONICAL, MSM_SCALARS_HOST,
                       &st->msm.a, sizeof st->msm.a)) &&
        !(rc = run_msm(w, job, CUZK_TRACE_MSM_B_G1, kb->b_g1, s.b, s.n_b, CUZK_FR_CANONICAL, MSM_SCALARS_HOST,
                       &st->msm.b_g1, sizeof st->msm.b_g1)))
        rc = run_msm(w, job, CUZK_TRACE_MSM_B_G2, kb->b_g2, s.b, s.n_b, CUZK_FR_CANONICAL, MSM_SCALARS_HOST,
                     &st->msm.b_g2, sizeof st->msm.b_g2);
    groth16_msm_scalars_free(&s);
    if (rc) return rc;
    float ms = 0;
    if (!gpu_event_record(w->ev1, w->stream) && !gpu_event_sync(w->ev1) &&
        !gpu_event_elapsed_ms(&ms, w->ev0, w->ev1))
        job->device_ns = (uint64_t)((double)ms * 1e6);
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
    /* the CPU backend's pairing check reads only the params (the first member of our key) */
    return backend_cpu_ops.verify(be, ((cuda_key *)key)->pk, job);
}

const backend_ops backend_cuda_ops = {
    .name = "cuda",
    .kind = CUZK_BACKEND_CUDA,
    .priv_size = sizeof(cuda_job),
    .heap_until_finish = 0, /* start is synchronous in this version: nothing reads the heap later */
    .inflight_per_worker = 2,
    .create = cuda_create,
    .destroy = cuda_destroy,
    .device_ordinal = cuda_ordinal,
    .key_load = cuda_key_load,
    .key_free = cuda_key_free,
    .check = cuda_check,
    .worker_init = cuda_worker_init,
    .worker_fini = cuda_worker_fini,
    .start = cuda_start,
    .finish = cuda_finish,
    .verify = cuda_verify,
};
#endif
