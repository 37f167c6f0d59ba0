/*
 * The engine's threads and the life of a job: workers (one or more per device) take ready
 * jobs, reserve budget and run the backend's start; finishers run finish, the self-check,
 * the host's release callback and post the result. Creation and destruction live here too.
 * No lock is taken on any of these paths; threads sleep only when they have nothing to do.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "error.h"
#include "fault.h"

static _Atomic uint32_t engine_tags; /* names each engine in its handles (12 bits) */

int engine_spin(const cuzk_engine *e, spinner *sp)
{
    /* Poll for a short while before sleeping: a futex wake costs microseconds, a poll that
     * finds the work costs nanoseconds. Pointless (harmful) when there are fewer cores than
     * busy threads, so the default is 0 on small machines (config_resolve). */
    if (!e->o.spin_ns) return 0;
    if (sp->n++ == 0) {
        sp->start = now_ns();
        return 1;
    }
    if (sp->n % 64) {
        cpu_relax();
        return 1;
    }
    return now_ns() - sp->start < e->o.spin_ns;
}

/* ---- the services backends get (backend.h) ---- */

static void *svc_alloc(backend_job *bj, size_t bytes)
{
    job *j = (job *)bj;
    if (!j->heap && !(j->heap = arena_heap_new())) return NULL;
    return arena_heap_alloc(j->heap, bytes);
}

static void svc_free(backend_job *bj, void *ptr)
{
    (void)bj;
    if (ptr) arena_free(ptr);
}

static void svc_release_abc(backend_job *bj)
{
    job *j = (job *)bj;
    if (j->abc_released) return;
    j->abc_released = 1;
    uint64_t n = j->est.host_abc_bytes < j->host_reserved ? j->est.host_abc_bytes : j->host_reserved;
    j->host_reserved -= n;
    budget_release(&j->engine->host, n);
}

static int svc_canceled(const backend_job *bj)
{
    const job *j = (const job *)bj;
    /* relaxed: a hint between stages; the tracker gives the final word */
    return tracker_cancel_requested(&j->engine->trk, j->handle) ||
           atomic_load_explicit(&j->engine->shutdown, memory_order_relaxed);
}

static void svc_trace(backend_job *bj, int32_t kind, uint64_t begin_ns, uint64_t end_ns, uint64_t bytes)
{
    job *j = (job *)bj;
    trace_emit(&j->engine->tr, kind, bj->device, bj->worker, j->handle, j->p.user_tag, begin_ns,
               end_ns, bytes);
}

/* The host's buffers go back as soon as the backend no longer reads them (a witness-only
 * partition's: once evaluated or copied to the device). The self-check still needs the
 * public inputs, so they are copied first; without memory for that copy the release simply
 * waits for finish, as for any partition. */
static void svc_release_host(backend_job *bj)
{
    job *j = (job *)bj;
    if (j->host_released || !j->p.release) return;
    uint64_t n = j->p.num_inputs;
    cuzk_fr *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy) return;
    if (n) memcpy(copy, j->p.inputs, n * sizeof *copy);
    j->inputs_copy = copy;
    j->p.inputs = copy;
    uint64_t t0 = now_ns();
    j->p.release(j->p.release_user);
    j->host_released = 1;
    trace_emit(&j->engine->tr, CUZK_TRACE_RELEASE, bj->device, bj->worker, j->handle, j->p.user_tag, t0, now_ns(), 0);
}

static const backend_services engine_services = {
    .alloc = svc_alloc,
    .free = svc_free,
    .release_abc = svc_release_abc,
    .canceled = svc_canceled,
    .trace = svc_trace,
    .release_host = svc_release_host,
};

/* ---- keys ---- */

void engine_srs_unref(cuzk_srs *s)
{
    /* acq_rel: the last holder sees every other holder's use of the key before freeing */
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1) return;
    cuzk_engine *e = s->engine;
    e->ops->key_free(e->be, s->key);
    s->key = NULL;
    budget_release(&e->host, s->host_reserved);
    s->host_reserved = 0;
    /* the struct stays on the engine's list until a lock holder reaps it: push it on the
     * dead stack (lock-free, so a finisher never takes the list's lock) */
    cuzk_srs *head = atomic_load_explicit(&e->srs_dead, memory_order_relaxed);
    do s->dead_next = head;
    while (!atomic_compare_exchange_weak_explicit(&e->srs_dead, &head, s, memory_order_release,
                                                  memory_order_relaxed));
}

void engine_srs_reap(cuzk_engine *e)
{
    /* acquire: pairs with the release push above (dead_next and key = NULL are visible) */
    cuzk_srs *s = atomic_exchange_explicit(&e->srs_dead, NULL, memory_order_acquire);
    while (s) {
        cuzk_srs *next = s->dead_next;
        if (s->prev) s->prev->next = s->next;
        else e->srs_list = s->next;
        if (s->next) s->next->prev = s->prev;
        s->magic = 0;
        free(s);
        s = next;
    }
}

/* ---- workers ---- */

static int budget_give_up(void *arg)
{
    job *j = arg;
    return svc_canceled(&j->bj);
}

/* e->holding: in its low 32 bits the jobs that hold host budget, are about to try for it, or
 * are being finished (a finished job can still free a key's page-locked bases: the key's last
 * reference goes in finish_job), and the key loads in flight (a load reserves its key's host
 * copy before it evicts, and gives it back if it fails); in its high 32 bits a generation,
 * advanced by every count. A job waiting for room is not counted. */
#define HOLD_ONE (((uint64_t)1 << 32) | 1)

static void hold_enter(cuzk_engine *e) { atomic_fetch_add_explicit(&e->holding, HOLD_ONE, memory_order_acq_rel); }

/* Uncounts one; the waiters re-check when that was the last. */
static void hold_leave(cuzk_engine *e)
{
    if ((uint32_t)atomic_fetch_sub_explicit(&e->holding, 1, memory_order_acq_rel) == 1) budget_kick(&e->host);
}

void engine_hold_enter(cuzk_engine *e) { hold_enter(e); }
void engine_hold_leave(cuzk_engine *e) { hold_leave(e); }

/* Reserves the job's host budget (counted from here until finish_job), waiting while it does
 * not fit. A waiter whose uncounting leaves no job counted checks the room once more without
 * reserving (fits: it counts itself again and tries as usual); if it does not fit and no job
 * has counted itself since (same generation), nothing the engine holds will come back: what is
 * reserved (keys' page-locked bases, cuzk_host_alloc memory) stays until the host frees it,
 * and a host polling for this result never will. The job then fails (never_fits) instead of
 * stalling, and the other waiters are woken to find the same. Every release comes before its
 * job (or key load) is uncounted and every reservation after it is counted, so a waiter that
 * sees no one counted and an unchanged generation has seen all the room there will be.
 * Returns 1 (reserved), 0 (canceled, or never fits). */
static int host_reserve(cuzk_engine *e, job *j)
{
    budget *b = &e->host;
    const uint64_t bytes = j->est.host_bytes;
    hold_enter(e);
    j->holds_host = 1;
    int ok = budget_try_reserve(b, bytes);
    if (!ok) atomic_fetch_add_explicit(&b->waits, 1, memory_order_relaxed); /* a statistic */
    while (!ok) {
        uint32_t key = evc_prepare(&b->room);
        if ((ok = budget_try_reserve(b, bytes))) {
            evc_cancel(&b->room);
            break;
        }
        if (svc_canceled(&j->bj)) {
            evc_cancel(&b->room);
            return 0; /* still counted: finish_job uncounts it */
        }
        const uint64_t left = atomic_fetch_sub_explicit(&e->holding, 1, memory_order_acq_rel) - 1;
        if ((uint32_t)left == 0) {
            const uint64_t used = budget_reserved(b);
            if (bytes <= b->total && used <= b->total - bytes) { /* room now: try again, counted */
                evc_cancel(&b->room);
                hold_enter(e);
                continue;
            }
            if (atomic_load_explicit(&e->holding, memory_order_acquire) == left) {
                evc_cancel(&b->room);
                hold_enter(e); /* counted until finish_job, like every job */
                j->never_fits = 1;
                budget_kick(b); /* the other waiters: nothing will come for them either */
                return 0;
            }
        }
        evc_wait(&b->room, key, 0);
        hold_enter(e);
    }
    j->host_reserved = bytes;
    return 1;
}

/* A job's host reservation ends (its count stays until finish_job). */
static void host_release(cuzk_engine *e, job *j)
{
    budget_release(&e->host, j->host_reserved); /* 0 (all given back early) is a no-op */
    j->host_reserved = 0;
}

/* ---- why a job failed (cuzk_result.detail) ---- */

const char *engine_cancel_text(const cuzk_engine *e)
{
    /* acquire: pairs with destroy's release store */
    return atomic_load_explicit(&e->shutdown, memory_order_acquire)
               ? "canceled: the engine is being destroyed"
               : "canceled by cuzk_cancel";
}

/* Records why the job failed, on the thread where it failed: its first failure is the one
 * reported (as its status is). A cancel gets a fixed text; any other error the detail the
 * failing call left in this thread's err_detail() (cleared before the call), or, when it
 * left none, the code's name and the stage. */
static void job_note_failure(job *j, const char *stage)
{
    char *d = j->result.detail;
    if (j->bj.status == CUZK_OK || d[0]) return;
    if (j->bj.status == CUZK_ECANCELED)
        snprintf(d, sizeof j->result.detail, "%s", engine_cancel_text(j->engine));
    else if (err_detail()[0])
        snprintf(d, sizeof j->result.detail, "%s", err_detail());
    else
        snprintf(d, sizeof j->result.detail, "%s: %s", stage, cuzk_strerror(j->bj.status));
}

/* The backend's start, its failure noted. */
static void job_start(const backend_ops *ops, void *ws, job *j)
{
    err_clear();
    int rc = ops->start(ws, &j->bj);
    if (rc != CUZK_OK && j->bj.status == CUZK_OK) j->bj.status = rc;
    job_note_failure(j, "start");
}

static void hand_to_finisher(cuzk_engine *e, job *j)
{
    tracker_to_finish(&e->trk, j->handle);
    evc_notify_if_waiting(&e->finish, 1);
}

static void run_job(worker *w, uint64_t h)
{
    cuzk_engine *e = w->engine;
    job *j = engine_job(e, h);
    j->t_dequeue = now_ns();
    j->worker = w;
    j->bj.worker = (int32_t)w->index;
    j->bj.device = w->device;
    j->bj.urgent = w->min_level;
    atomic_fetch_add_explicit(&e->dequeued.v, 1, memory_order_relaxed); /* a statistic */
    trace_emit(&e->tr, CUZK_TRACE_QUEUE_WAIT, w->device, (int32_t)w->index, h, j->p.user_tag,
               j->t_submit, j->t_dequeue, 0);
    if (svc_canceled(&j->bj)) {
        j->bj.status = CUZK_ECANCELED;
        job_note_failure(j, "queue");
        hand_to_finisher(e, j);
        return;
    }
    /* Budget: wait here (the worker has nothing else it could do) until it fits. */
    int ok = host_reserve(e, j);
    if (ok && j->est.device_bytes) {
        ok = budget_reserve_wait(&e->dev[w->device_index], j->est.device_bytes, budget_give_up, j, 0);
        if (ok) {
            j->device_reserved = j->est.device_bytes;
            j->device_index = w->device_index;
        }
    }
    uint64_t t_budget = now_ns();
    if (t_budget - j->t_dequeue > 20000) /* more than a CAS: it waited */
        trace_emit(&e->tr, CUZK_TRACE_BUDGET_WAIT, w->device, (int32_t)w->index, h, j->p.user_tag,
                   j->t_dequeue, t_budget, j->est.host_bytes);
    if (!ok) {
        host_release(e, j);
        j->bj.status = CUZK_ECANCELED;
        if (j->never_fits) {
            j->bj.status = CUZK_EBUDGET;
            snprintf(j->result.detail, sizeof j->result.detail,
                     "host budget: the partition needs %llu bytes, %llu of %llu stay reserved (page-locked "
                     "key bases, cuzk_host_alloc) with no partition running: it can never fit",
                     (unsigned long long)j->est.host_bytes, (unsigned long long)budget_reserved(&e->host),
                     (unsigned long long)e->host.total);
        }
        job_note_failure(j, "budget");
        hand_to_finisher(e, j);
        return;
    }
    atomic_fetch_add_explicit(&w->inflight, 1, memory_order_relaxed); /* only we increment */
    j->started = 1;
    if (e->ops->priv_size) memset(j->bj.priv, 0, e->ops->priv_size);
    j->t_start = now_ns();
    job_start(e->ops, w->ws, j);
    j->t_started = now_ns();
    trace_emit(&e->tr, CUZK_TRACE_START, w->device, (int32_t)w->index, h, j->p.user_tag, j->t_start,
               j->t_started, j->est.host_bytes);
    /* start is synchronous (backend.h): nothing reads the working memory any more, so it
     * is gone, and its budget back, before the next partition starts */
    if (j->heap) {
        arena_heap_destroy(j->heap);
        j->heap = NULL;
        housekeeper_poke(&e->hk);
    }
    host_release(e, j);
    hand_to_finisher(e, j);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    cuzk_engine *e = w->engine;
    uint32_t flags = w->min_level ? BACKEND_WORKER_URGENT | w->min_level << BACKEND_WORKER_LEVEL_SHIFT : 0;
    w->init_rc = e->ops->worker_init(e->be, w->device_index, w->index, flags, &w->ws);
    if (w->init_rc != CUZK_OK) snprintf(w->init_detail, sizeof w->init_detail, "%s", err_detail());
    /* release: engine creation reads init_rc after seeing the count */
    atomic_fetch_add_explicit(&e->workers_ready, 1, memory_order_release);
    evc_notify(&e->results, EVC_ALL);
    if (w->init_rc != CUZK_OK) return NULL;
    const uint32_t max_inflight = e->ops->inflight_per_worker ? e->ops->inflight_per_worker : 1;
    /* an urgent worker sleeps on its own count, so a notification meant for the others is
     * never spent on a worker that may not take the job */
    evcount *work = w->min_level ? &e->urgent_work[w->min_level] : &e->work;
    uint64_t idle_since = now_ns();
    for (;;) {
        /* acquire: pairs with destroy's release store; all jobs are posted by then */
        if (atomic_load_explicit(&e->stop, memory_order_acquire)) break;
        /* relaxed: finishers decrement; the evc below orders the sleep */
        if (atomic_load_explicit(&w->inflight, memory_order_relaxed) >= max_inflight) {
            uint32_t key = evc_prepare(&w->slot_free);
            if (atomic_load_explicit(&w->inflight, memory_order_relaxed) >= max_inflight &&
                !atomic_load_explicit(&e->stop, memory_order_acquire))
                evc_wait(&w->slot_free, key, 0);
            else evc_cancel(&w->slot_free);
            continue;
        }
        uint64_t h;
        spinner spin = {0, 0};
        int got = 0;
        for (;;) {
            if ((got = tracker_dequeue_min(&e->trk, &h, w->min_level))) break;
            if (atomic_load_explicit(&e->stop, memory_order_acquire)) break;
            if (engine_spin(e, &spin)) continue;
            uint32_t key = evc_prepare(work);
            if (tracker_has_ready_min(&e->trk, w->min_level) || atomic_load_explicit(&e->stop, memory_order_acquire)) {
                evc_cancel(work);
                continue;
            }
            evc_wait(work, key, 0);
            spin.n = 0;
        }
        if (!got) continue;
        uint64_t t = now_ns();
        if (trace_on(&e->tr) && t > idle_since)
            trace_emit(&e->tr, CUZK_TRACE_DEVICE_IDLE, w->device, (int32_t)w->index, 0, 0, idle_since, t, 0);
        run_job(w, h);
        idle_since = now_ns();
    }
    if (e->ops->worker_fini) e->ops->worker_fini(w->ws);
    return NULL;
}

/* ---- finishers ---- */

/* FAULT_MSM_CORRUPT: C becomes -C (the sign flag of its compressed encoding flipped), as a
 * wrong L or H MSM output would make it wrong (C sums them). A byte edit, no curve
 * arithmetic: the proof still decodes (-C is on the curve and in the subgroup) and only the
 * self-check can tell. C at infinity (flag 0x40; never in a real proof) has no sign: A is
 * negated instead. */
static void fault_corrupt_proof(uint8_t proof[192])
{
    proof[proof[144] & 0x40 ? 0 : 144] ^= 0x20;
}

/* finish, then the self-check: bj->status says how it went. */
static void finish_and_check(cuzk_engine *e, job *j, const backend_ops *ops, void *be, void *key)
{
    backend_job *bj = &j->bj;
    uint64_t t0 = now_ns();
    if (bj->status == CUZK_OK && svc_canceled(bj)) bj->status = CUZK_ECANCELED;
    if (bj->status == CUZK_OK) {
        err_clear();
        int rc = ops->finish(be, bj);
        if (rc != CUZK_OK) bj->status = rc;
    }
    job_note_failure(j, "finish");
    if (bj->status == CUZK_OK && FAULT_HIT(FAULT_MSM_CORRUPT)) fault_corrupt_proof(bj->proof);
    uint64_t t1 = now_ns();
    if (bj->status == CUZK_OK && e->o.verify && !svc_canceled(bj)) {
        err_clear();
        int rc = ops->verify(be, key, bj);
        uint64_t t2 = now_ns();
        trace_emit(&e->tr, CUZK_TRACE_VERIFY, bj->device, bj->worker, j->handle, j->p.user_tag, t1, t2, 0);
        /* a proof that fails its check is never returned */
        if (rc != CUZK_OK) bj->status = rc == CUZK_EVERIFY ? CUZK_EVERIFY : rc;
        job_note_failure(j, "the proof's pairing self-check");
    }
    trace_emit(&e->tr, CUZK_TRACE_FINISH, bj->device, bj->worker, j->handle, j->p.user_tag, t0, now_ns(), 0);
}

static int retry_wanted(cuzk_engine *e, job *j)
{
    int32_t s = j->bj.status;
    return e->o.retry_on_cpu && e->retry_be && j->started && !j->retried && !j->host_released &&
           (s == CUZK_EDEVICE || s == CUZK_EBUDGET || s == CUZK_EVERIFY) && !svc_canceled(&j->bj);
}

/* CUZK_OPT_RETRY_ON_CPU: the partition once more on the retry backend (the CPU's), here on
 * the finisher (a rare path: the device's worker and budget are already free for the next
 * partition; not given urgent precedence). Its own heap (created and destroyed on this
 * thread), per-job state and host reservation; on any obstacle the first error stands. */
static void retry_on_cpu(cuzk_engine *e, job *j)
{
    const backend_ops *cpu = e->retry_ops;
    backend_job *bj = &j->bj;
    void *key = e->ops->key_params(j->srs->key);
    backend_estimate est = {0, 0, 0};
    if (!key) return;
    int checked = j->cs ? cpu->check_witness ? cpu->check_witness(e->retry_be, key, j->bj.cs, NULL, &j->p, &est) : CUZK_EINVAL
                        : cpu->check(e->retry_be, key, &j->p, &est);
    if (checked != CUZK_OK) return;
    if (!j->holds_host) { /* counted before it reserves (host_reserve); finish_job uncounts */
        hold_enter(e);
        j->holds_host = 1;
    }
    if (!budget_try_reserve(&e->host, est.host_bytes)) return;
    size_t priv_bytes = ((size_t)cpu->priv_size + 63) & ~(size_t)63;
    void *priv = priv_bytes ? aligned_alloc(64, priv_bytes) : NULL;
    void *ws = NULL;
    if ((priv_bytes && !priv) || cpu->worker_init(e->retry_be, 0, bj->worker < 0 ? 0 : (uint32_t)bj->worker, 0, &ws) != CUZK_OK) {
        free(priv);
        budget_release(&e->host, est.host_bytes);
        return;
    }
    if (priv) memset(priv, 0, priv_bytes);
    atomic_fetch_add_explicit(&e->retried.v, 1, memory_order_relaxed); /* a statistic */
    j->retried = 1;
    void *saved_priv = bj->priv, *saved_key = bj->key;
    backend_estimate saved_est = j->est;
    bj->priv = priv;
    bj->key = key;
    bj->device = -1;
    bj->device_ns = 0;
    bj->status = CUZK_OK;
    j->result.detail[0] = '\0'; /* the retry's own outcome is the result */
    j->est = est;
    j->host_reserved = est.host_bytes;
    j->abc_released = 0;
    uint64_t t0 = now_ns();
    job_start(cpu, ws, j);
    finish_and_check(e, j, cpu, e->retry_be, key);
    bj->device_ns = now_ns() - t0;
    if (j->heap) { /* made by svc_alloc on this thread; kept through finish either way */
        arena_heap_destroy(j->heap);
        j->heap = NULL;
        housekeeper_poke(&e->hk);
    }
    if (cpu->worker_fini) cpu->worker_fini(ws);
    host_release(e, j);
    j->est = saved_est;
    bj->priv = saved_priv;
    bj->key = saved_key;
    free(priv);
}

static void finish_job(cuzk_engine *e, uint64_t h)
{
    job *j = engine_job(e, h);
    backend_job *bj = &j->bj;
    finish_and_check(e, j, e->ops, e->be, j->srs->key);
    /* give the worker its pipeline slot back */
    if (j->device_reserved) {
        budget_release(&e->dev[j->device_index], j->device_reserved);
        j->device_reserved = 0;
    }
    if (j->started) {
        worker *w = j->worker;
        atomic_fetch_sub_explicit(&w->inflight, 1, memory_order_relaxed); /* evc orders it */
        evc_notify_if_waiting(&w->slot_free, 1);
    }
    if (retry_wanted(e, j)) retry_on_cpu(e, j);
    /* the host's buffers are free once release returns: before the result is visible */
    if (j->p.release && !j->host_released) {
        uint64_t t3 = now_ns();
        j->p.release(j->p.release_user);
        trace_emit(&e->tr, CUZK_TRACE_RELEASE, bj->device, bj->worker, h, j->p.user_tag, t3, now_ns(), 0);
    }
    int32_t status = bj->status;
    if (tracker_mark_done(&e->trk, h) && status != CUZK_ECANCELED) {
        status = CUZK_ECANCELED;
        snprintf(j->result.detail, sizeof j->result.detail, "%s", engine_cancel_text(e));
    }
    uint64_t t_end = now_ns();
    cuzk_result *r = &j->result;
    memset(r, 0, offsetof(cuzk_result, detail)); /* detail: noted where the job failed */
    if (status == CUZK_OK) r->detail[0] = '\0';
    else if (!r->detail[0]) snprintf(r->detail, sizeof r->detail, "%s", cuzk_strerror(status));
    r->struct_size = sizeof *r;
    r->status = status;
    r->job = h;
    r->user_tag = j->p.user_tag;
    if (status == CUZK_OK) memcpy(r->proof, bj->proof, sizeof r->proof);
    r->device = bj->device;
    r->queued_ns = j->t_dequeue > j->t_submit ? j->t_dequeue - j->t_submit : 0;
    r->device_ns = bj->device_ns ? bj->device_ns : (j->started ? j->t_started - j->t_start : 0);
    r->total_ns = t_end - j->t_submit;
    counter *c = status == CUZK_OK ? &e->ok : status == CUZK_ECANCELED ? &e->canceled
               : status == CUZK_EVERIFY ? &e->verify_failed : &e->failed;
    atomic_fetch_add_explicit(&c->v, 1, memory_order_relaxed); /* statistics */
    cuzk_srs *srs = j->srs;
    j->srs = NULL;
    engine_srs_unref(srs); /* may free a key's page-locked bases: before the uncount */
    if (j->cs) {
        cuzk_cs *cs = j->cs;
        j->cs = NULL;
        j->bj.cs = NULL;
        engine_cs_unref(cs);
    }
    free(j->inputs_copy); /* the self-check is done */
    j->inputs_copy = NULL;
    if (j->holds_host) {
        j->holds_host = 0;
        hold_leave(e);
    }
    trace_emit(&e->tr, CUZK_TRACE_RESULT, bj->device, bj->worker, h, j->p.user_tag, t_end, t_end, 0);
    /* release: destroy reads posted to decide everything is done; the ring publishes r */
    atomic_fetch_add_explicit(&e->posted.v, 1, memory_order_release);
    tracker_post(&e->trk, h);
    evc_notify_if_waiting(&e->results, 1);
}

static void *finisher_main(void *arg)
{
    cuzk_engine *e = arg;
    for (;;) {
        uint64_t h;
        spinner spin = {0, 0};
        int got = 0;
        for (;;) {
            if ((got = tracker_take_finish(&e->trk, &h))) break;
            if (atomic_load_explicit(&e->stop, memory_order_acquire)) break;
            if (engine_spin(e, &spin)) continue;
            uint32_t key = evc_prepare(&e->finish);
            if (ring_count(&e->trk.finish) || atomic_load_explicit(&e->stop, memory_order_acquire)) {
                evc_cancel(&e->finish);
                continue;
            }
            evc_wait(&e->finish, key, 0);
            spin.n = 0;
        }
        if (!got) break;
        finish_job(e, h);
    }
    return NULL;
}

static void hk_trace(void *arg, uint64_t begin_ns, uint64_t end_ns)
{
    cuzk_engine *e = arg;
    trace_emit(&e->tr, CUZK_TRACE_ARENA_TRIM, -1, -1, 0, 0, begin_ns, end_ns, 0);
}

/* ---- create and destroy ---- */

static void engine_free(cuzk_engine *e);

/* backend_config.host: a key load's page-locked host copy, reserved before it evicts */
static int host_budget_reserve(void *ctx, uint64_t bytes) { return budget_try_reserve(ctx, bytes); }
static void host_budget_release(void *ctx, uint64_t bytes) { budget_release(ctx, bytes); }
static uint64_t host_budget_free(void *ctx) { return budget_free(ctx); }

int engine_create_with_backend(const cuzk_config *cfg, const backend_ops *ops, const backend_ops *retry_ops,
                               cuzk_engine **out)
{
    if (!out) return err_set(CUZK_EINVAL, "cuzk_engine_create: out is NULL");
    *out = NULL;
    if (cfg && cfg->magic != CONFIG_MAGIC)
        return err_set(CUZK_EINVAL, "cuzk_engine_create: cfg is not a cuzk_config");
    cuzk_engine *e = aligned_alloc(CUZK_CACHELINE, (sizeof *e + CUZK_CACHELINE - 1) & ~(size_t)(CUZK_CACHELINE - 1));
    if (!e) return err_set(CUZK_ENOMEM, "cuzk_engine_create: out of memory");
    memset(e, 0, sizeof *e);
    config_resolve(cfg, &e->o);
    e->ops = ops;
    evc_init(&e->work);
    for (int l = 0; l < TRACKER_LEVELS; l++) evc_init(&e->urgent_work[l]);
    evc_init(&e->finish);
    evc_init(&e->results);
    budget_init(&e->host, e->o.host_budget);
    pthread_mutex_init(&e->srs_lock, NULL);
    pthread_mutex_init(&e->alloc_lock, NULL);
    atomic_init(&e->srs_dead, NULL);
    e->magic = ENGINE_MAGIC;

    /* per device: one urgent worker for each level from the urgent priority T to the top */
    const uint32_t urgent_workers = e->o.urgent_priority ? TRACKER_LEVELS - e->o.urgent_priority : 0;
    backend_config bc = {.device_mask = e->o.device_mask,
                         .workers_per_device = e->o.workers_per_device,
                         .cpu_threads = e->o.cpu_threads,
                         .device_budget_bytes = e->o.device_budget,
                         .urgent_workers_per_device = urgent_workers,
                         .urgent_priority = e->o.urgent_priority,
                         .host = {host_budget_reserve, host_budget_release, host_budget_free, e->o.host_budget, &e->host}};
    int rc = ops->create(&bc, &e->be, &e->devices);
    if (rc != CUZK_OK) {
        e->be = NULL;
        engine_free(e);
        return rc;
    }
    if (e->o.retry_on_cpu && ops->key_params && retry_ops) {
        /* the backend retries run on: the engine's own, or an instance of its own */
        e->retry_ops = retry_ops;
        if (retry_ops == ops) {
            e->retry_be = e->be;
        } else {
            backend_config cbc = {.workers_per_device = 1, .cpu_threads = e->o.cpu_threads};
            uint32_t ndev = 0;
            if ((rc = retry_ops->create(&cbc, &e->retry_be, &ndev)) != CUZK_OK) {
                e->retry_be = NULL;
                engine_free(e);
                return rc;
            }
            e->retry_be_owned = 1;
        }
    }
    uint32_t tag = atomic_fetch_add_explicit(&engine_tags, 1, memory_order_relaxed) % 4095 + 1;
    rc = tracker_init(&e->trk, e->o.queue_capacity, tag);
    if (rc == CUZK_OK && !(e->jobs = aligned_alloc(CUZK_CACHELINE, e->o.queue_capacity * sizeof *e->jobs)))
        rc = CUZK_ENOMEM;
    if (rc == CUZK_OK) memset(e->jobs, 0, e->o.queue_capacity * sizeof *e->jobs);
    if (rc == CUZK_OK && ops->priv_size &&
        !(e->priv = calloc(e->o.queue_capacity, ((size_t)ops->priv_size + 63) & ~(size_t)63)))
        rc = CUZK_ENOMEM;
    size_t ndev_bytes = (e->devices ? e->devices : 1) * sizeof *e->dev; /* budgets are 64-aligned */
    if (rc == CUZK_OK && !(e->dev = aligned_alloc(CUZK_CACHELINE, ndev_bytes))) rc = CUZK_ENOMEM;
    if (rc != CUZK_OK) {
        engine_free(e);
        return rc == CUZK_ENOMEM ? err_set(rc, "cuzk_engine_create: out of memory") : rc;
    }
    for (uint32_t i = 0; i < e->o.queue_capacity; i++) {
        e->jobs[i].engine = e;
        e->jobs[i].bj.svc = &engine_services;
        if (ops->priv_size) e->jobs[i].bj.priv = e->priv + (size_t)i * (((size_t)ops->priv_size + 63) & ~(size_t)63);
    }
    for (uint32_t d = 0; d < (e->devices ? e->devices : 1); d++)
        budget_init(&e->dev[d], e->o.device_budget ? e->o.device_budget : UINT64_MAX);

    /* threads: trace first (others emit), then housekeeping, finishers, workers */
    if ((rc = trace_start(&e->tr, cfg ? cfg->trace_fn : NULL, cfg ? cfg->trace_user : NULL,
                          e->o.trace_capacity)) != CUZK_OK ||
        (rc = housekeeper_start(&e->hk, 2000000 /* 2 ms */, hk_trace, e)) != CUZK_OK) {
        engine_free(e);
        return rc;
    }
    e->nfinishers = e->o.finishers;
    if (!(e->finishers = calloc(e->nfinishers, sizeof *e->finishers))) {
        engine_free(e);
        return err_set(CUZK_ENOMEM, "cuzk_engine_create: out of memory");
    }
    for (; e->finishers_started < e->nfinishers; e->finishers_started++)
        if (pthread_create(&e->finishers[e->finishers_started], NULL, finisher_main, e) != 0) {
            engine_free(e);
            return err_set(CUZK_ENOMEM, "cuzk_engine_create: cannot start finisher threads");
        }
    /* workers 0 .. ndev*wpd-1 take any partition (wpd per device, in device order); then the
     * urgent workers (CUZK_OPT_URGENT_PRIORITY = T), 8 - T per device in device order: the
     * one of level L takes only partitions of priority >= L, so a partition of the top
     * priority never waits behind a lower urgent one */
    uint32_t ndev = e->devices ? e->devices : 1, nnormal = ndev * e->o.workers_per_device;
    e->nworkers = nnormal + ndev * urgent_workers;
    if (!(e->workers = aligned_alloc(CUZK_CACHELINE, e->nworkers * sizeof *e->workers))) {
        engine_free(e);
        return err_set(CUZK_ENOMEM, "cuzk_engine_create: out of memory");
    }
    memset(e->workers, 0, e->nworkers * sizeof *e->workers);
    for (uint32_t i = 0; i < e->nworkers; i++) {
        worker *w = &e->workers[i];
        w->engine = e;
        w->index = i;
        w->device_index = i < nnormal ? i / e->o.workers_per_device : (i - nnormal) / urgent_workers;
        w->min_level = i < nnormal ? 0 : e->o.urgent_priority + (i - nnormal) % urgent_workers;
        w->device = ops->device_ordinal ? ops->device_ordinal(e->be, w->device_index) : -1;
        evc_init(&w->slot_free);
        atomic_init(&w->inflight, 0);
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
            engine_free(e);
            return err_set(CUZK_ENOMEM, "cuzk_engine_create: cannot start worker threads");
        }
        w->running = 1;
    }
    /* wait for every worker's backend state: a worker that cannot start fails creation */
    for (;;) {
        uint32_t key = evc_prepare(&e->results);
        /* acquire: pairs with worker_main's release; init_rc is visible */
        if (atomic_load_explicit(&e->workers_ready, memory_order_acquire) == e->nworkers) {
            evc_cancel(&e->results);
            break;
        }
        evc_wait(&e->results, key, now_ns() + 100000000);
    }
    for (uint32_t i = 0; i < e->nworkers; i++)
        if (e->workers[i].init_rc != CUZK_OK) {
            rc = e->workers[i].init_rc;
            char detail[256];
            snprintf(detail, sizeof detail, "%s", e->workers[i].init_detail);
            engine_free(e);
            return err_set(rc, "worker %u could not start: %s", i, detail);
        }
    *out = e;
    return CUZK_OK;
}

/* Stops every thread and frees everything; jobs must all be posted already. */
static void engine_free(cuzk_engine *e)
{
    atomic_store_explicit(&e->stop, 1, memory_order_release);
    evc_notify(&e->work, EVC_ALL);
    for (int l = 0; l < TRACKER_LEVELS; l++) evc_notify(&e->urgent_work[l], EVC_ALL);
    evc_notify(&e->finish, EVC_ALL);
    for (uint32_t i = 0; e->workers && i < e->nworkers; i++) {
        worker *w = &e->workers[i];
        evc_notify(&w->slot_free, EVC_ALL);
        if (w->running) pthread_join(w->thread, NULL);
    }
    for (uint32_t i = 0; i < e->finishers_started; i++) pthread_join(e->finishers[i], NULL);
    housekeeper_stop(&e->hk);
    trace_stop(&e->tr);
    pthread_mutex_lock(&e->srs_lock);
    engine_srs_reap(e);
    while (e->srs_list) { /* keys the host never released: jobs are all done, free them */
        cuzk_srs *s = e->srs_list;
        e->srs_list = s->next;
        if (s->key) e->ops->key_free(e->be, s->key);
        s->magic = 0;
        free(s);
    }
    pthread_mutex_unlock(&e->srs_lock);
    engine_cs_free_all(e);
    engine_host_allocs_free_all(e);
    if (e->retry_be_owned) e->retry_ops->destroy(e->retry_be);
    if (e->be) e->ops->destroy(e->be);
    tracker_destroy(&e->trk);
    free(e->jobs);
    free(e->priv);
    free(e->dev);
    free(e->workers);
    free(e->finishers);
    pthread_mutex_destroy(&e->srs_lock);
    pthread_mutex_destroy(&e->alloc_lock);
    e->magic = 0;
    free(e);
}

CUZK_API void cuzk_engine_destroy(cuzk_engine *e)
{
    if (!engine_ok(e)) return;
    /* 1. no new work: queued jobs are canceled (a worker that takes one now cancels it) */
    atomic_store_explicit(&e->shutdown, 1, memory_order_release);
    budget_kick(&e->host);
    for (uint32_t d = 0; d < (e->devices ? e->devices : 1); d++) budget_kick(&e->dev[d]);
    uint64_t h;
    while (tracker_dequeue(&e->trk, &h)) {
        job *j = engine_job(e, h);
        atomic_fetch_add_explicit(&e->dequeued.v, 1, memory_order_relaxed);
        j->bj.status = CUZK_ECANCELED;
        snprintf(j->result.detail, sizeof j->result.detail, "%s", engine_cancel_text(e));
        hand_to_finisher(e, j);
    }
    /* 2. wait until every accepted job is posted (running ones finish normally) */
    for (;;) {
        uint32_t key = evc_prepare(&e->results);
        /* acquire: pairs with the finisher's release increment of posted */
        uint64_t posted = atomic_load_explicit(&e->posted.v, memory_order_acquire);
        uint64_t submitted = atomic_load_explicit(&e->submitted.v, memory_order_acquire);
        if (posted >= submitted) {
            evc_cancel(&e->results);
            break;
        }
        evc_wait(&e->results, key, now_ns() + 10000000); /* 10 ms: the finishers notify too */
    }
    /* 3. threads stop; unpolled results are discarded with the engine */
    engine_free(e);
}
