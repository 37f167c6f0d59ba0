/*
 * The CPU backend: lib/groth16's prover behind the engine's two-phase interface. start (on
 * the worker) checks the scalars, computes H into the partition's heap and runs the five
 * MSMs on the backend's thread pool; finish (on a finisher) assembles A, B, C with r, s;
 * verify runs the pairing check against the key's vk. Stage times go to the trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_common.h"
#include "backend/backend_witness.h"
#include "backend/backends.h"
#include "error.h"
#include "groth16/groth16.h"
#include "msm/msm_cpu.h"
#include "ntt/ntt_cpu.h"

typedef struct cpu_backend {
    threadpool *tp;
} cpu_backend;

typedef struct cpu_job {      /* start -> finish, in the engine's per-job space */
    groth16_msm_out msm;
    fr_t r, s;                /* Montgomery */
} cpu_job;

static int cpu_create(const backend_config *cfg, void **be, uint32_t *devices)
{
    cpu_backend *b = calloc(1, sizeof *b);
    if (!b) return err_set(CUZK_ENOMEM, "CPU backend: out of memory");
    if (!(b->tp = threadpool_create(cfg->cpu_threads))) {
        free(b);
        return err_set(CUZK_ENOMEM, "CPU backend: cannot start %u arithmetic threads", cfg->cpu_threads);
    }
    *be = b;
    *devices = 1;
    return CUZK_OK;
}

static void cpu_destroy(void *be)
{
    cpu_backend *b = be;
    threadpool_destroy(b->tp);
    free(b);
}

static int32_t cpu_ordinal(void *be, uint32_t d) { (void)be; (void)d; return -1; }

static int cpu_key_load(void *be, const char *path, uint32_t flags, void **key)
{
    cpu_backend *b = be;
    groth16_params *pk = NULL;
    int rc = groth16_params_load(path, (flags & CUZK_SRS_CHECK_SUBGROUP) != 0, b->tp, &pk);
    if (rc) return rc;
    *key = pk;
    return CUZK_OK;
}

static void cpu_key_free(void *be, void *key) { (void)be; groth16_params_free(key); }

static void *cpu_key_params(void *key) { return key; } /* the key is the params */

/* What the prover holds at its peak (lib/groth16/prover.c, lib/msm/msm_cpu.c), all from
 * the partition's heap: two domain vectors for the H step (the a/b/c share, freed when
 * H is done), h itself, then the canonical h, the inputs and MSM scalars, and the working
 * memory of the largest MSM (digits, buckets; the MSMs run one after another). */
static void cpu_estimate(const cpu_backend *b, const groth16_params *pk, const cuzk_partition *p, backend_estimate *est)
{
    uint64_t m = (uint64_t)1 << backend_log2_ceil(p->abc_len), fr = sizeof(fr_t);
    uint64_t aux_copy = p->scalar_form == CUZK_FR_CANONICAL ? 0 : p->num_aux;
    unsigned thr = threadpool_size(b->tp);
    const uint64_t msm_sizes[5] = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1, pk->n_b_g2};
    uint64_t msm_max = 0;
    for (int i = 0; i < 5; i++) {
        uint64_t x = msm_cpu_scratch_bytes((size_t)msm_sizes[i], thr, i == 4);
        if (x > msm_max) msm_max = x;
    }
    est->host_abc_bytes = 2 * m * fr + ntt_cpu_table_bytes(backend_log2_ceil(p->abc_len));
    est->host_bytes = est->host_abc_bytes + m * fr /* h */ +
                      ((uint64_t)pk->n_h + p->num_inputs + aux_copy + pk->n_a + pk->n_b_g1) * fr +
                      msm_max + msm_max / 8 /* allocator rounding */ + ((uint64_t)1 << 20);
    est->device_bytes = 0;
}

static int cpu_check(void *be, void *key, const cuzk_partition *p, backend_estimate *est)
{
    int rc = groth16_check_partition(key, p);
    if (rc) return rc;
    cpu_estimate(be, key, p, est);
    return CUZK_OK;
}

/* A witness-only partition: the a, b, c it evaluates live in its heap until the H step is
 * done, so they join the a/b/c share given back then. */
static int cpu_check_witness(void *be, void *key, const csc *cs, void *cs_be, const cuzk_partition *p,
                             backend_estimate *est)
{
    (void)cs_be;
    const groth16_params *pk = key;
    int rc = groth16_check_witness(pk, p);
    if (rc) return rc;
    if (p->abc_len != cs->abc_len)
        return err_set(CUZK_EMISMATCH, "the partition has %llu rows, its constraint system %llu",
                       (unsigned long long)p->abc_len, (unsigned long long)cs->abc_len);
    cpu_estimate(be, pk, p, est);
    est->host_abc_bytes += backend_witness_abc_bytes(cs);
    est->host_bytes += backend_witness_abc_bytes(cs);
    return CUZK_OK;
}

static int cpu_worker_init(void *be, uint32_t device, uint32_t worker, uint32_t flags, void **ws)
{
    (void)device; (void)worker;
    /* workers share the backend's thread pool (its calls queue behind each other); an
     * urgent worker's loops take the pool's lane of its level, whose chunks are handed out
     * before those of less urgent loops (this thread's calls only: worker_init runs on the
     * worker) */
    threadpool_set_urgent(flags & BACKEND_WORKER_URGENT ? (int)BACKEND_WORKER_LEVEL(flags) : 0);
    *ws = be;
    return CUZK_OK;
}

/* The prover's working memory comes from the partition's heap: allocated on this (the
 * worker) thread only; the prover hands slices to its pool threads. */
static void *job_alloc(void *ctx, size_t bytes) { return bjob_alloc(ctx, bytes); }
static void job_free(void *ctx, void *p) { bjob_free(ctx, p); }

static int cpu_start(void *ws, backend_job *job)
{
    cpu_backend *b = ws;
    const groth16_params *pk = job->key;
    const cuzk_partition *p = job->p;
    cpu_job *st = job->priv;
    const scratch_alloc sa = {job_alloc, job_free, job};
    cuzk_partition view; /* a witness-only partition with its a, b, c evaluated */
    int rc;
    if ((rc = backend_pick_rs(&st->r, p->r, p->scalar_form, "r")) ||
        (rc = backend_pick_rs(&st->s, p->s, p->scalar_form, "s")))
        return rc;
    if (job->cs) {
        if ((rc = backend_witness_eval(job, b->tp, &view))) return rc;
        p = &view;
    } else if ((rc = groth16_check_scalars_ex(p, b->tp, &sa))) {
        return rc;
    }
    if (bjob_canceled(job)) return CUZK_ECANCELED;
    unsigned log_m = backend_log2_ceil(p->abc_len);
    fr_t *h = bjob_alloc(job, ((size_t)1 << log_m) * sizeof(fr_t));
    if (!h) return err_set(CUZK_ENOMEM, "CPU backend: no working memory for 2^%u H scalars", log_m);
    uint64_t t0 = bjob_now_ns();
    if ((rc = groth16_compute_h_ex(h, p, log_m, b->tp, &sa))) return rc;
    uint64_t t1 = bjob_now_ns();
    bjob_trace(job, CUZK_TRACE_H_STEP, t0, t1, ((uint64_t)3 << log_m) * sizeof(fr_t));
    if (job->cs) backend_witness_free_abc(job, &view);
    bjob_release_abc(job);
    if (bjob_canceled(job)) return CUZK_ECANCELED;
    groth16_stage_ns t = {0};
    if ((rc = groth16_msms_cpu_ex(&st->msm, pk, p, h, b->tp, &t, &sa))) return rc;
    /* the MSMs ran one after another: rebuild their spans from the durations, ending now */
    uint64_t end = bjob_now_ns(), begin = end - (t.msm_b_g2 + t.msm_b_g1 + t.msm_a + t.msm_l + t.msm_h);
    const struct { int32_t kind; uint64_t ns, n; } spans[] = {
        {CUZK_TRACE_MSM_H, t.msm_h, pk->n_h}, {CUZK_TRACE_MSM_L, t.msm_l, pk->n_l},
        {CUZK_TRACE_MSM_A, t.msm_a, pk->n_a}, {CUZK_TRACE_MSM_B_G1, t.msm_b_g1, pk->n_b_g1},
        {CUZK_TRACE_MSM_B_G2, t.msm_b_g2, pk->n_b_g2}};
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
        bjob_trace(job, spans[i].kind, begin, begin + spans[i].ns, spans[i].n * sizeof(fr_t));
        begin += spans[i].ns;
    }
    /* a witness-only partition's host buffers are read no more (assembly needs only r, s
     * and the sums, the self-check the inputs, which the engine keeps) */
    if (job->cs) bjob_release_host(job);
    return CUZK_OK;
}

static int cpu_finish(void *be, backend_job *job)
{
    (void)be;
    cpu_job *st = job->priv;
    uint64_t t0 = bjob_now_ns();
    groth16_assemble(job->proof, job->key, &st->msm, &st->r, &st->s);
    bjob_trace(job, CUZK_TRACE_ASSEMBLY, t0, bjob_now_ns(), 0);
    return CUZK_OK;
}

static int cpu_verify(void *be, void *key, backend_job *job)
{
    (void)be;
    return backend_verify_proof(key, job);
}

const backend_ops backend_cpu_ops = {
    .name = "cpu",
    .kind = CUZK_BACKEND_CPU,
    .priv_size = sizeof(cpu_job),
    /* two: the worker starts the next partition while a finisher assembles and verifies */
    .inflight_per_worker = 2,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .device_ordinal = cpu_ordinal,
    .key_load = cpu_key_load,
    .key_free = cpu_key_free,
    .key_params = cpu_key_params,
    .check = cpu_check,
    .check_witness = cpu_check_witness,
    .worker_init = cpu_worker_init,
    .worker_fini = NULL,
    .start = cpu_start,
    .finish = cpu_finish,
    .verify = cpu_verify,
};
