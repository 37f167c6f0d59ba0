/*
 * The CUDA backend: the Groth16 prover on NVIDIA GPUs behind the engine's start/finish
 * interface. A key is placed on each device by what fits (cuda_keys.c, cuda_placement.h):
 * resident, partial or streamed from pinned host memory; each device has one or two worker
 * slots (the device memory a partition works in), full or lean. start stages the partition on the host,
 * takes a slot, runs the device work (cuda_flow.c) and returns when nothing on the device
 * reads the host's buffers any more; finish assembles A, B, C on the host exactly as the CPU
 * backend does, so for the same r, s the proofs are byte-identical.
 */
#if CUZK_HAVE_CUDA
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/backend_common.h"
#include "backend/backend_cuda_prep.h"
#include "backend/cuda_env.h"
#include "backend/cuda_internal.h"
#include "cuda_util.h"
#include "error.h"
#include "fault.h"
#include "field/curve.h"
#include "ntt.h"
#include "prep.h"

static int cuda_create(const backend_config *cfg, void **be, uint32_t *devices)
{
    int rc0 = cuda_env_check(); /* a misspelt tuning variable is refused, not read as the default */
    if (rc0) return rc0;
    int n = gpu_device_count();
    if (n <= 0) return err_set(CUZK_EDEVICE, "CUDA backend: no usable CUDA device");
    cuda_backend *b = calloc(1, sizeof *b);
    if (!b) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    b->workers_per_device = cfg->workers_per_device ? cfg->workers_per_device : 1;
    b->urgent_workers = cfg->urgent_workers_per_device;
    b->urgent_priority = cfg->urgent_priority;
    b->msm_shared_bytes = cuda_msm_shared_bytes(); /* once: every key of the engine alike */
    b->lean_h_lend = cuda_lean_h_lend();
    b->budget = cfg->device_budget_bytes;
    b->host = cfg->host;
    for (int d = 0; d < n && d < CUDA_BE_MAX_DEV; d++)
        if (!cfg->device_mask || (cfg->device_mask >> d & 1)) b->dev[b->ndev++].ordinal = d;
    if (!b->ndev) {
        free(b);
        return err_set(CUZK_EDEVICE, "CUDA backend: the device mask 0x%llx selects none of the %d devices",
                       (unsigned long long)cfg->device_mask, n);
    }
    for (uint32_t i = 0; i < b->ndev; i++) {
        cuda_dev *d = &b->dev[i];
        size_t fr = 0, total = 0;
        if (gpu_set_device(d->ordinal) || gpu_mem_info(&fr, &total)) {
            int rc = err_set(CUZK_EDEVICE, "CUDA backend: device %d: %s", d->ordinal, cuzk_last_error());
            for (uint32_t j = 0; j < i; j++) slot_pool_destroy(&b->dev[j].pool), pthread_mutex_destroy(&b->dev[j].lock);
            free(b);
            return rc;
        }
        /* what libcuzk may hold: the budget, within what the device has free now */
        uint64_t have = fr > CUDA_DEVICE_MARGIN ? fr - CUDA_DEVICE_MARGIN : 0;
        d->cap = b->budget && b->budget < have ? b->budget : have;
        pthread_mutex_init(&d->lock, NULL);
        slot_pool_init(&d->pool);
    }
    /* with urgent workers, ordinary partitions pace their work (gpu_gate_pass) */
    for (uint32_t i = 0; i < b->ndev; i++) b->dev[i].paced = b->urgent_workers != 0;
    /* the urgent slots' streams and contexts, ahead (slot_warm); one that fails is made at its
     * first partition instead */
    for (uint32_t i = 0; i < b->ndev && b->urgent_workers; i++)
        for (int j = 0; j < CUDA_URGENT_SLOTS; j++)
            if (gpu_set_device(b->dev[i].ordinal) || slot_warm(&b->dev[i].urgent[j], b->dev[i].ordinal, j + 1))
                err_clear();
    pthread_mutex_init(&b->keys_lock, NULL);
    if (!(b->tp = threadpool_create(cfg->cpu_threads))) {
        pthread_mutex_destroy(&b->keys_lock);
        for (uint32_t i = 0; i < b->ndev; i++) {
            gpu_set_device(b->dev[i].ordinal);
            for (int j = 0; j < CUDA_URGENT_SLOTS; j++) slot_destroy(&b->dev[i].urgent[j]);
            slot_pool_destroy(&b->dev[i].pool), pthread_mutex_destroy(&b->dev[i].lock);
        }
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
    for (uint32_t i = 0; i < b->ndev; i++) {
        cuda_dev *d = &b->dev[i];
        gpu_set_device(d->ordinal);
        for (int s = 0; s < CUDA_MAX_SLOTS; s++) slot_destroy(&d->slot[s]);
        for (int s = 0; s < CUDA_URGENT_SLOTS; s++) slot_destroy(&d->urgent[s]);
        slot_pool_destroy(&d->pool);
        pthread_mutex_destroy(&d->lock);
    }
    gpu_mem_trim(); /* the device pools' cached memory: the devices' free memory as before the engine */
    threadpool_destroy(b->tp);
    pthread_mutex_destroy(&b->keys_lock);
    free(b);
}

static int32_t cuda_ordinal(void *be, uint32_t d) { return ((cuda_backend *)be)->dev[d].ordinal; }

static int pinned_or_empty(const void *p, size_t bytes);

/* Host memory a partition makes its worker hold in pinned staging: a/b/c, aux and the
 * densities where they are not page-locked (stage_inputs copies only those), the inputs' A
 * and B prefixes, alignment. Arrays in cuzk_host_alloc memory are counted in the host budget
 * already; counting them again made a backlog of such partitions wait for budget that no
 * job would give back (a PoRep partition's 15.5 GiB beside two streamed 2^27 keys' pinned
 * bases on a 128 GiB host: a silent stall). The worker's buffer grows to it once, then stays. */
static uint64_t stage_bytes(const cuzk_partition *p, int witness)
{
    const uint64_t fr = sizeof(fr_t), len = p->abc_len, na = p->num_aux, nw = (na + 63) / 64;
    uint64_t b = (2 * (uint64_t)p->num_inputs + 1) * fr + 4 * 32 + ((uint64_t)1 << 20);
    if (!witness &&
        (!pinned_or_empty(p->a, len * fr) || !pinned_or_empty(p->b, len * fr) || !pinned_or_empty(p->c, len * fr)))
        b += 3 * len * fr;
    if (!pinned_or_empty(p->aux, na * fr)) b += na * fr;
    if (!pinned_or_empty(p->a_aux_density, nw * 8) || !pinned_or_empty(p->b_aux_density, nw * 8)) b += 2 * nw * 8;
    return b;
}

static int cuda_check(void *be, void *key, const cuzk_partition *p, backend_estimate *est)
{
    (void)be;
    const cuda_key *k = key;
    int rc = groth16_check_partition(k->pk, p);
    if (rc) return rc;
    est->host_abc_bytes = 0;
    est->host_bytes = stage_bytes(p, 0);
    est->device_bytes = 0;
    return CUZK_OK;
}

/* A witness-only partition: the key's and the system's counts, and its staging (its a, b, c
 * are made on the device; the slots were sized for them when the system was placed). */
static int cuda_check_witness(void *be, void *key, const csc *c, void *cs_be, const cuzk_partition *p,
                              backend_estimate *est)
{
    (void)be;
    const cuda_key *k = key;
    if (!cs_be) return err_set(CUZK_EINVAL, "CUDA backend: the constraint system is not placed on the devices");
    int rc = groth16_check_witness(k->pk, p);
    if (rc) return rc;
    if (p->abc_len != c->abc_len)
        return err_set(CUZK_EMISMATCH, "the partition has %llu rows, its constraint system %llu",
                       (unsigned long long)p->abc_len, (unsigned long long)c->abc_len);
    est->host_abc_bytes = 0;
    est->host_bytes = stage_bytes(p, 1);
    est->device_bytes = 0;
    return CUZK_OK;
}

/* ---- workers ---- */

static void cuda_worker_fini(void *ws)
{
    cuda_worker *w = ws;
    if (!w) return;
    if (w->h_stage) gpu_host_free(w->h_stage);
    free(w);
}

static int ensure_stage(cuda_worker *w, size_t bytes);

static int cuda_worker_init(void *be, uint32_t device, uint32_t worker, uint32_t flags, void **ws)
{
    uint32_t w_urgent_level = 0;
    (void)worker;
    if (flags & BACKEND_WORKER_URGENT) { /* its own slot when there is room (slot_for) */
        uint32_t level = BACKEND_WORKER_LEVEL(flags);
        w_urgent_level = level ? level : 1;
        threadpool_set_urgent((int)w_urgent_level); /* its host work takes the pool's urgent lane */
        gpu_copy_use_sms(1); /* its copies do not queue behind the backlog's on a copy engine */
    }
    cuda_backend *b = be;
    cuda_worker *w = calloc(1, sizeof *w);
    if (!w) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    w->b = b;
    w->device_index = device;
    w->ordinal = b->dev[device].ordinal;
    w->urgent = w_urgent_level;
    /* the staging every partition takes (its inputs' A and B prefixes), made now: pinned
     * allocation and release can wait for the whole device (an urgent partition's first
     * staging waited 2.2 s behind a backlog's MSMs) */
    int rc = gpu_set_device(w->ordinal);
    if (!rc) rc = ensure_stage(w, CUDA_STAGE_MIN);
    if (rc) {
        free(w);
        return rc;
    }
    *ws = w;
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

/* Pinned staging carve-out: the next `bytes` (32-byte aligned) of the worker's buffer. */
static void *stage_take(uint8_t **at, size_t bytes)
{
    void *p = *at;
    *at += (bytes + 31) & ~(size_t)31;
    return p;
}

static int pinned_or_empty(const void *p, size_t bytes) { return !bytes || gpu_host_is_pinned(p); }

/* src itself when page-locked (or empty), else a parallel copy into the staging. */
static const void *stage_or_direct(threadpool *tp, uint8_t **at, const void *src, size_t bytes)
{
    if (pinned_or_empty(src, bytes)) return src;
    void *d = stage_take(at, bytes);
    prep_copy(tp, d, src, bytes);
    return d;
}

/* The host half of a partition, before any device work: what is not page-locked is copied
 * into the worker's pinned staging, and the inputs' A and B prefixes are gathered. */
static int stage_inputs(cuda_worker *w, const cuda_key *k, const cuzk_partition *p, int witness, cuda_inputs *in)
{
    const groth16_params *pk = k->pk;
    const uint64_t fr = sizeof(fr_t), len = p->abc_len, ni = p->num_inputs, na = p->num_aux, nw = (na + 63) / 64;
    uint64_t kb0 = 0;
    for (uint64_t i = 0; i < ni; i++) kb0 += p->b_input_density[i / 64] >> (i % 64) & 1;
    if (pk->n_a < ni || pk->n_b_g1 < kb0)
        return err_set(CUZK_EINVAL, "partition's %llu inputs (%llu B-selected) exceed the key's %llu A and %llu B scalars",
                       (unsigned long long)ni, (unsigned long long)kb0, (unsigned long long)pk->n_a,
                       (unsigned long long)pk->n_b_g1);
    size_t abc = witness || (pinned_or_empty(p->a, len * fr) && pinned_or_empty(p->b, len * fr) &&
                             pinned_or_empty(p->c, len * fr)) ? 0 : 3 * len * fr;
    size_t aux = pinned_or_empty(p->aux, na * fr) ? 0 : na * fr;
    size_t dens = pinned_or_empty(p->a_aux_density, nw * 8) && pinned_or_empty(p->b_aux_density, nw * 8) ? 0 : 2 * nw * 8;
    int rc = ensure_stage(w, abc + aux + dens + (ni + kb0 + 1) * fr + 4 * 32);
    if (rc) return rc;
    threadpool *tp = w->b->tp;
    uint8_t *at = w->h_stage;
    memset(in, 0, sizeof *in);
    in->a = p->a, in->b = p->b, in->c = p->c;
    if (abc) {
        fr_t *hs = stage_take(&at, abc);
        prep_copy(tp, hs, p->a, len * fr);
        prep_copy(tp, hs + len, p->b, len * fr);
        prep_copy(tp, hs + 2 * len, p->c, len * fr);
        in->a = hs, in->b = hs + len, in->c = hs + 2 * len;
    }
    in->aux = stage_or_direct(tp, &at, p->aux, na * fr);
    in->dens_a = p->a_aux_density, in->dens_b = p->b_aux_density;
    if (dens) {
        uint64_t *hd = stage_take(&at, dens);
        prep_copy(tp, hd, p->a_aux_density, nw * 8);
        prep_copy(tp, hd + nw, p->b_aux_density, nw * 8);
        in->dens_a = hd, in->dens_b = hd + nw;
    }
    fr_t *h_in = stage_take(&at, (ni + kb0 + 1) * fr);
    if (ni) memcpy(h_in, p->inputs, ni * fr);
    for (uint64_t i = 0, kb = ni; i < ni; i++)
        if (p->b_input_density[i / 64] >> (i % 64) & 1) h_in[kb++] = *(const fr_t *)&p->inputs[i];
    /* a witness-only partition's scalars are all brought to Montgomery form (its witness on the
     * device, by the range check); B's input prefix, copied from here, here (one not below r
     * fails that check) */
    if (witness && p->scalar_form == CUZK_FR_CANONICAL)
        for (uint64_t j = ni; j < ni + kb0; j++) {
            fr_t canonical = h_in[j];
            (void)fr_to_mont(&h_in[j], &canonical);
        }
    in->in_ab = h_in;
    in->len = len, in->ni = ni, in->kb0 = kb0, in->na = na, in->n_a = pk->n_a, in->n_b = pk->n_b_g1;
    in->log_m = backend_log2_ceil(len);
    in->canon = p->scalar_form == CUZK_FR_CANONICAL;
    return CUZK_OK;
}

/* Which urgent slots can run a partition of k: bit j where slot j has (or may grow to) a
 * layout for it, the key's own else the two-vector one (a larger urgent partition beside a
 * full bulk slot), lean[j] that layout. *prefer: the second slot for a CUZK_SRS_URGENT key
 * (its load committed it for it), the first for others (WinningPoSt's room, the highest
 * stream priority): a slot that keeps its layout reallocates nothing. */
static uint32_t urgent_fits(cuda_dev *d, const cuda_key *k, const cuda_key_dev *kd, const cuda_cs *wcs, uint32_t i,
                            int lean[], uint32_t *prefer)
{
    uint32_t fits = 0;
    pthread_mutex_lock(&d->lock);
    const uint64_t used = cuda_dev_used(d), free_now = d->cap > used ? d->cap - used : 0;
    for (int j = 0; j < CUDA_URGENT_SLOTS; j++)
        for (int l = kd->pl.ws == PL_LEAN; l <= 1; l++) {
            const uint64_t need = cuda_slot_need_kd(k, kd, l, d->piece_bytes) + (wcs ? cuda_cs_job_extra(wcs, i, l) : 0);
            if (need > free_now + d->urgent_bytes[j]) continue;
            fits |= 1u << j, lean[j] = l;
            break;
        }
    pthread_mutex_unlock(&d->lock);
    *prefer = 1u << (k->urgent ? 1 : 0);
    return fits;
}

/* Commits urgent slot j's bytes for a partition of k in layout lean; 0 when another urgent
 * partition took the room it would grow into after urgent_fits looked. */
static int urgent_commit(cuda_dev *d, const cuda_key *k, const cuda_key_dev *kd, const cuda_cs *wcs, uint32_t i, int j,
                         int lean)
{
    const uint64_t key_need = cuda_slot_need_kd(k, kd, lean, d->piece_bytes);
    const uint64_t need = key_need + (wcs ? cuda_cs_job_extra(wcs, i, lean) : 0);
    pthread_mutex_lock(&d->lock);
    const uint64_t used = cuda_dev_used(d), free_now = d->cap > used ? d->cap - used : 0;
    const int ok = need <= free_now + d->urgent_bytes[j];
    if (ok && need > d->urgent_bytes[j]) d->urgent_bytes[j] = need;
    if (ok && key_need > d->urgent_key_bytes[j]) d->urgent_key_bytes[j] = key_need;
    pthread_mutex_unlock(&d->lock);
    return ok;
}

/* The device's count of urgent partitions running, which ordinary partitions' gates wait on. */
static void gate_move(cuda_dev *d, int by) { __atomic_fetch_add(&d->urgent_running, (uint32_t)by, __ATOMIC_SEQ_CST); }

static int cuda_start(void *ws, backend_job *job)
{
    cuda_worker *w = ws;
    cuda_dev *d = &w->b->dev[w->device_index];
    const cuda_key *k = job->key;
    cuda_key_dev *kd = &((cuda_key *)job->key)->dev[w->device_index];
    cuda_job *st = job->priv;
    const cuda_cs *wcs = job->cs_be; /* a witness-only partition's constraint system, or NULL */
    const uint32_t di = w->device_index;
    job->device = w->ordinal;
    int rc;
    if ((rc = gpu_set_device(w->ordinal))) return rc;
    uint64_t t0 = bjob_now_ns();
    if ((rc = backend_pick_rs(&st->r, job->p->r, job->p->scalar_form, "r")) ||
        (rc = backend_pick_rs(&st->s, job->p->s, job->p->scalar_form, "s")))
        return rc;
    if (bjob_canceled(job)) return CUZK_ECANCELED;
    cuda_inputs in;
    if ((rc = stage_inputs(w, k, job->p, wcs != NULL, &in))) return rc;
    uint64_t t1 = bjob_now_ns();
    bjob_trace(job, CUZK_TRACE_HOST_PREP, t0, t1, 0);

    /* the device half: one slot of this device (a wait only when every slot is busy); an
     * urgent worker's own slot when it has one. From here to the end the key's placement
     * here stays as read: no load evicts its bases while a partition of it runs */
    pthread_mutex_lock(&d->lock);
    kd->running++;
    kd->last_used = t1;
    int lean = kd->pl.ws == PL_LEAN, own = 0;
    const int streamed = kd->pl.kind != PL_RESIDENT, acc = kd->msm_acc;
    const uint64_t keys_part = d->cs.keys[0]; /* the full slots' key part: never shrinks */
    const uint64_t lean_part = d->cs.keys[1]; /* the lean slots': likewise */
    pthread_mutex_unlock(&d->lock);
    if (FAULT_HIT(FAULT_CUDA_HOLD)) fault_hold_wait(); /* tests: a partition known to be in flight */
    /* an ordinary partition starting while an urgent one runs waits here, before it takes a
     * shared slot an urgent partition may need (it would give way at its first stage anyway) */
    const int prio = job->p->priority < 0 ? 0 : job->p->priority;
    const int urgent_job = d->paced && w->b->urgent_priority && prio >= (int)w->b->urgent_priority;
    if (d->paced && !urgent_job) gpu_gate_hold(&d->urgent_running);
    int own_lean[CUDA_URGENT_SLOTS];
    cuda_slot *s;
    for (uint32_t lost = 0;;) { /* an urgent slot whose room another took meanwhile: the other, or a shared one */
        uint32_t prefer = 0, own_fits = w->urgent ? urgent_fits(d, k, kd, wcs, di, own_lean, &prefer) & ~lost : 0;
        s = slot_acquire(d, w->urgent != 0, own_fits, prefer, &own);
        if (!own || urgent_commit(d, k, kd, wcs, di, own - 1, own_lean[own - 1])) break;
        lost |= 1u << (own - 1);
        slot_release(d, s);
    }
    if (own) lean = own_lean[own - 1];
    uint64_t t2 = bjob_now_ns();
    if (t2 - t1 > 20000) /* waited for a slot: its bytes */
        bjob_trace(job, CUZK_TRACE_BUDGET_WAIT, t1, t2,
                   cuda_slot_need_kd(k, kd, lean, d->piece_bytes) + (wcs ? cuda_cs_job_extra(wcs, di, lean) : 0));
    /* an ordinary partition paces its work (gpu_gate_pass at its stage boundaries, window groups
     * and transforms) and gives way there while an urgent one runs. An urgent one (by its
     * priority, on whichever worker) raises the count once its slot is ready: from then on it
     * waits for nothing but its own device work, which waits for nothing on the host, so the
     * ordinary partitions' waits always end */
    rc = slot_prepare(s, w->ordinal, lean, streamed, cuda_work_bytes(&in, lean), cuda_prep_bytes(in.na), d->piece_bytes,
                      own, cuda_full_entries_run(k, acc, s->ctx ? s->ctx_entries : 0, keys_part),
                      cuda_lean_entries_run(k, acc, streamed, d->piece_bytes, s->ctx ? s->ctx_entries : 0, lean_part),
                      acc);
    if (!rc && wcs) /* the witness beside a lean layout's two vectors; the system's pieces where it streams */
        rc = slot_prepare_witness(s, w->ordinal, lean ? wcs->wit_bytes : 0,
                                  wcs->dev[di].resident ? 0 : wcs->piece_bytes);
    s->pace.word = &d->urgent_running;
    s->gate = urgent_job || !d->paced || !s->ready ? NULL : &s->pace;
    if (s->ctx) msm_gpu_ctx_set_gate(s->ctx, s->gate); /* and inside its MSMs, between window groups */
    const int raised = !rc && urgent_job;
    if (raised) gate_move(d, 1);
    uint64_t t_ref = 0;
    if (!rc && !(rc = gpu_event_record(s->ev_ref, s->stream)) && !(rc = gpu_event_sync(s->ev_ref))) {
        t_ref = bjob_now_ns();
        if (wcs)
            rc = lean ? cuda_flow_witness_lean(s, k, kd, wcs, di, w->ordinal, &in, job)
                      : cuda_flow_witness_full(s, k, kd, wcs, di, w->ordinal, &in, job);
        else rc = lean ? cuda_flow_lean(s, k, kd, w->ordinal, &in, job) : cuda_flow_full(s, k, kd, w->ordinal, &in, job);
    }
    /* whatever happened, nothing on the device may still read the staging, the host's
     * buffers or the slot once start returns */
    int rc1 = s->ready ? gpu_stream_sync(s->copy_stream) : 0, rc2 = s->ready ? gpu_stream_sync(s->bases_stream) : 0,
        rc3 = s->ready ? gpu_stream_sync(s->stream) : 0;
    if (raised) gate_move(d, -1);
    if (!rc && (rc1 || rc2 || rc3)) rc = slot_fail(w->ordinal, "the partition's device work");
    if (!rc) slot_report(s, d, job, t_ref);
    if (s->ready) cuda_cs_slot_trim(d, s); /* what a system released meanwhile needed (streams idle) */
    slot_release(d, s);
    pthread_mutex_lock(&d->lock);
    kd->running--;
    pthread_mutex_unlock(&d->lock);
    return rc;
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
    .key_synthetic = cuda_key_synthetic,
    .key_free = cuda_key_free,
    .key_params = cuda_key_params,
    .key_host_reserved = cuda_key_host_reserved,
    .key_placement = cuda_key_placement,
    .check = cuda_check,
    .check_witness = cuda_check_witness,
    .cs_place = cuda_cs_place_all,
    .cs_unplace = cuda_cs_unplace_all,
    .cs_device = cuda_cs_device,
    .worker_init = cuda_worker_init,
    .worker_fini = cuda_worker_fini,
    .start = cuda_start,
    .finish = cuda_finish,
    .verify = cuda_verify,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
};
#endif
