/*
 * The public calls on an engine: create (backend choice), keys, submit, poll, cancel,
 * stats, host memory. Submit, poll and cancel take no lock: they are a few CASes on the
 * tracker plus a wake-up when a thread sleeps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend/backends.h"
#include "engine/engine.h"
#include "error.h"
#include "fault.h"

CUZK_API int cuzk_engine_create(const cuzk_config *cfg, cuzk_engine **out)
{
    engine_opts o;
    if (!out) return err_set(CUZK_EINVAL, "cuzk_engine_create: out is NULL");
    *out = NULL;
    if (cfg && cfg->magic != CONFIG_MAGIC)
        return err_set(CUZK_EINVAL, "cuzk_engine_create: cfg is not a cuzk_config");
    config_resolve(cfg, &o);
    const backend_ops *ops, *retry_ops;
    int rc = backend_choose(o.backend, &ops, &retry_ops);
    if (rc != CUZK_OK) return rc;
    return err_done(engine_create_with_backend(cfg, ops, retry_ops, out));
}

/* ---- keys ---- */

/* Host memory a key holds page-locked for streaming (shared by every device). */
static uint64_t key_pinned_bytes(cuzk_engine *e, void *key)
{
    if (!e->ops->key_placement) return 0;
    cuzk_placement pl;
    memset(&pl, 0, sizeof pl);
    pl.struct_size = sizeof pl;
    return e->ops->key_placement(e->be, key, 0, &pl) == CUZK_OK ? pl.pinned_host_bytes : 0;
}

/* A load (a key's, or a constraint system's: engine_cs.c) may have made keys loaded before it
 * give way on a GPU (CUDA eviction): they stream from then on, from host memory page-locked
 * for them during that load, which counts in the host budget as a key loaded streamed does —
 * beyond the budget where it must, as the memory is held already. Each live key's reservation
 * is raised to what it holds now. */
void engine_srs_count_pinned(cuzk_engine *e)
{
    if (!e->ops->key_placement) return; /* no GPU placement, nothing page-locked */
    pthread_mutex_lock(&e->srs_lock); /* the list, and one recount at a time */
    for (cuzk_srs *s = e->srs_list; s; s = s->next) {
        /* a reference while its key is read: none left means it is being freed */
        uint32_t refs = atomic_load_explicit(&s->refs, memory_order_relaxed);
        do
            if (!refs) break;
        while (!atomic_compare_exchange_weak_explicit(&s->refs, &refs, refs + 1, memory_order_acquire,
                                                      memory_order_relaxed));
        if (!refs) continue;
        uint64_t now = key_pinned_bytes(e, s->key);
        if (now > s->host_reserved) {
            budget_reserve_over(&e->host, now - s->host_reserved);
            s->host_reserved = now; /* read by the last unref, which comes after ours */
        }
        engine_srs_unref(s); /* the last one frees the key; s stays listed until a reap */
    }
    pthread_mutex_unlock(&e->srs_lock);
}

static int srs_wrap(cuzk_engine *e, void *key, cuzk_srs **out)
{
    engine_srs_count_pinned(e); /* first: what the others hold now may leave this one no room */
    /* The key's page-locked bases count in the host budget for as long as the key lives.
     * A backend that reserves through backend_config.host (key_host_reserved) reserved its
     * key's whole host copy before it evicted anything, whenever the load left the key
     * streaming; held is that, or 0 for a key loaded resident. Anything the key pins beyond
     * held now was pinned after its load, when a racing load evicted some of its resident
     * bases: memory held already, counted beyond the budget where it must (as
     * engine_srs_count_pinned counts every key that gave way). A refusal would free a key its own
     * reservation admitted, because another load ran beside it. A backend that does not
     * reserve (no key_host_reserved) is admitted here instead: its key's pinned bytes are
     * reserved now or the key is refused (after its evictions, the old path). */
    const uint64_t held = e->ops->key_host_reserved ? e->ops->key_host_reserved(key) : 0;
    const uint64_t pinned = key_pinned_bytes(e, key), more = pinned > held ? pinned - held : 0;
    if (e->ops->key_host_reserved) {
        budget_reserve_over(&e->host, more);
    } else if (more && !budget_try_reserve(&e->host, more)) {
        const uint64_t free_bytes = budget_free(&e->host);
        e->ops->key_free(e->be, key);
        return err_set(CUZK_EBUDGET, "cuzk_srs_load: the host budget refused the key's page-locked host copy (the "
                       "bases it streams): %llu bytes needed, %llu of the budget's %llu bytes free "
                       "(CUZK_OPT_HOST_BUDGET_BYTES)", (unsigned long long)pinned,
                       (unsigned long long)free_bytes, (unsigned long long)e->host.total);
    }
    cuzk_srs *s = calloc(1, sizeof *s);
    if (!s) {
        e->ops->key_free(e->be, key);
        budget_release(&e->host, held + more);
        return err_set(CUZK_ENOMEM, "cuzk_srs_load: out of memory");
    }
    s->host_reserved = held + more;
    s->magic = SRS_MAGIC;
    s->engine = e;
    s->key = key;
    atomic_init(&s->refs, 1);
    atomic_init(&s->released, 0);
    pthread_mutex_lock(&e->srs_lock);
    engine_srs_reap(e);
    s->next = e->srs_list;
    if (s->next) s->next->prev = s;
    e->srs_list = s;
    pthread_mutex_unlock(&e->srs_lock);
    *out = s;
    return CUZK_OK;
}

/* After the backend's load (counted since before it: engine_hold_enter) returned rc: the key
 * wrapped, or what a failed load took from other keys counted; then the load is uncounted, its
 * reservation by then the key's or given back. */
static int srs_loaded(cuzk_engine *e, int rc, void *key, cuzk_srs **out)
{
    if (rc == CUZK_OK) rc = srs_wrap(e, key, out);
    else engine_srs_count_pinned(e); /* a load that failed may have taken from keys all the same */
    engine_hold_leave(e);
    return rc;
}

CUZK_API int cuzk_srs_load(cuzk_engine *e, const char *path, uint32_t flags, cuzk_srs **out)
{
    if (out) *out = NULL;
    if (!engine_ok(e) || !path || !out)
        return err_set(CUZK_EINVAL, "cuzk_srs_load: engine, params_path and out must not be NULL");
    const uint32_t known = CUZK_SRS_CHECK_SUBGROUP | CUZK_SRS_PIN | CUZK_SRS_URGENT;
    if (flags & ~known) return err_set(CUZK_EINVAL, "cuzk_srs_load: unknown flags 0x%x", flags & ~known);
    void *key = NULL;
    engine_hold_enter(e);
    int rc = e->ops->key_load(e->be, path, flags, &key);
    return err_done(srs_loaded(e, rc, key, out));
}

int engine_srs_load_synthetic(cuzk_engine *e, const struct groth16_params *shape, uint32_t flags, cuzk_srs **out)
{
    if (out) *out = NULL;
    if (!engine_ok(e) || !shape || !out) return err_set(CUZK_EINVAL, "synthetic key: NULL argument");
    if (flags & ~(uint32_t)(CUZK_SRS_PIN | CUZK_SRS_URGENT))
        return err_set(CUZK_EINVAL, "synthetic key: flags 0x%x (only CUZK_SRS_PIN and CUZK_SRS_URGENT)", flags);
    if (!e->ops->key_synthetic)
        return err_set(CUZK_EINVAL, "synthetic key: the %s backend cannot make one", e->ops->name);
    void *key = NULL;
    engine_hold_enter(e);
    int rc = e->ops->key_synthetic(e->be, shape, flags, &key);
    return srs_loaded(e, rc, key, out);
}

/* The v0.3 placement struct ends after vector_resident_bytes (its first published size). */
_Static_assert(offsetof(cuzk_placement, vector_resident_bytes) + 5 * sizeof(uint64_t) == CUZK_PLACEMENT_SIZE_V1,
               "cuzk_placement's first published members must keep their layout");

CUZK_API int cuzk_srs_placement(cuzk_srs *s, uint32_t device_index, cuzk_placement *out)
{
    if (!s || s->magic != SRS_MAGIC || !out)
        return err_set(CUZK_EINVAL, "cuzk_srs_placement: srs and out must be valid");
    if (out->struct_size < CUZK_PLACEMENT_SIZE_V1)
        return err_set(CUZK_EINVAL, "cuzk_srs_placement: struct_size %u (at least %u)", out->struct_size,
                       CUZK_PLACEMENT_SIZE_V1);
    cuzk_engine *e = s->engine;
    cuzk_placement p;
    memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    int rc;
    if (!e->ops->key_placement) {
        if (device_index != 0)
            return err_set(CUZK_EINVAL, "cuzk_srs_placement: device index %u on the CPU backend", device_index);
        p.device = -1;
        p.kind = CUZK_PLACEMENT_HOST;
    } else if ((rc = e->ops->key_placement(e->be, s->key, device_index, &p)) != CUZK_OK)
        return rc;
    /* a host built against a smaller (older) cuzk_placement gets the prefix it knows */
    size_t fill = out->struct_size < sizeof p ? out->struct_size : sizeof p;
    p.struct_size = (uint32_t)fill;
    memcpy(out, &p, fill);
    return err_done(CUZK_OK);
}

CUZK_API void cuzk_srs_release(cuzk_srs *s)
{
    if (!s || s->magic != SRS_MAGIC) return;
    /* relaxed: a flag for submit's sanity check; the reference count orders the key */
    if (atomic_exchange_explicit(&s->released, 1, memory_order_relaxed)) return;
    engine_srs_unref(s);
}

/* ---- submit ---- */

/* The 0.1.0 partition struct ends after release_user. */
_Static_assert(offsetof(cuzk_partition, release_user) + sizeof(void *) == CUZK_PARTITION_SIZE_V1,
               "cuzk_partition's 0.1.0 members must keep their layout");
_Static_assert(sizeof(cuzk_stats) >= CUZK_STATS_SIZE_V1 &&
               offsetof(cuzk_stats, arena_bytes) + sizeof(uint64_t) == CUZK_STATS_SIZE_V1,
               "cuzk_stats's 0.1.0 members must keep their layout");

static int check_partition(const cuzk_partition *p, cuzk_partition *copy)
{
    if (!p) return err_set(CUZK_EINVAL, "cuzk_submit_partition: partition is NULL");
    if (p->struct_size < CUZK_PARTITION_SIZE_V1 || p->struct_size > 65536)
        return err_set(CUZK_EINVAL, "cuzk_submit_partition: struct_size %u (at least %u, CUZK_PARTITION_SIZE_V1; "
                       "this library knows %zu)", p->struct_size, CUZK_PARTITION_SIZE_V1, sizeof *p);
    if (p->struct_size > sizeof *p) { /* a newer host's struct: only if its new fields are unset */
        const unsigned char *extra = (const unsigned char *)p + sizeof *p;
        for (size_t i = 0; i < p->struct_size - sizeof *p; i++)
            if (extra[i])
                return err_set(CUZK_EINVAL, "cuzk_submit_partition: struct_size %u sets fields this "
                               "library (%zu bytes) does not know", p->struct_size, sizeof *p);
    }
    memset(copy, 0, sizeof *copy);
    memcpy(copy, p, p->struct_size < sizeof *p ? p->struct_size : sizeof *p);
    /* the copy is this library's whole struct (members the host's older one lacks are 0):
     * the backends' checks see its size, not the host's */
    copy->struct_size = (uint32_t)sizeof *copy;
    if (copy->scalar_form != CUZK_FR_MONTGOMERY && copy->scalar_form != CUZK_FR_CANONICAL)
        return err_set(CUZK_EINVAL, "cuzk_submit_partition: scalar_form %d is neither "
                       "CUZK_FR_MONTGOMERY (0) nor CUZK_FR_CANONICAL (1)", copy->scalar_form);
    if (copy->reserved)
        return err_set(CUZK_EINVAL, "cuzk_submit_partition: reserved is %u, must be 0", copy->reserved);
    return CUZK_OK;
}

CUZK_API int cuzk_submit_partition(cuzk_engine *e, cuzk_srs *srs, const cuzk_partition *p, cuzk_job *out)
{
    uint64_t t0 = now_ns();
    if (!engine_ok(e) || !out)
        return err_set(CUZK_EINVAL, "cuzk_submit_partition: engine and out must not be NULL");
    *out = 0;
    if (!srs || srs->magic != SRS_MAGIC || srs->engine != e)
        return err_set(CUZK_EINVAL, "cuzk_submit_partition: srs is NULL, not a key, or another engine's");
    /* relaxed: a sanity check of the host's own ordering (submit after release is its bug) */
    if (atomic_load_explicit(&srs->released, memory_order_relaxed))
        return err_set(CUZK_EINVAL, "cuzk_submit_partition: the key was released");
    /* acquire: pairs with destroy's release store */
    if (atomic_load_explicit(&e->shutdown, memory_order_acquire))
        return err_set(CUZK_ESHUTDOWN, "cuzk_submit_partition: the engine is being destroyed");
    cuzk_partition copy;
    int rc = check_partition(p, &copy);
    if (rc != CUZK_OK) return rc;
    backend_estimate est = {0, 0, 0};
    if ((rc = e->ops->check(e->be, srs->key, &copy, &est)) != CUZK_OK) return rc;
    uint64_t h = 0;
    if ((rc = engine_submit_checked(e, srs, NULL, &copy, &est, t0, &h)) != CUZK_OK) return rc;
    *out = h;
    return err_done(CUZK_OK);
}

int engine_submit_checked(cuzk_engine *e, cuzk_srs *srs, cuzk_cs *cs, const cuzk_partition *copy,
                          const backend_estimate *est_in, uint64_t t0, uint64_t *out)
{
    const backend_estimate est = *est_in;
    if (est.host_bytes > e->host.total)
        return err_set(CUZK_EBUDGET, "cuzk_submit_partition: the partition needs %llu bytes of host "
                       "memory, the whole budget is %llu", (unsigned long long)est.host_bytes,
                       (unsigned long long)e->host.total);
    if (est.device_bytes > e->dev[0].total)
        return err_set(CUZK_EBUDGET, "cuzk_submit_partition: the partition needs %llu bytes of device "
                       "memory, the device budget is %llu", (unsigned long long)est.device_bytes,
                       (unsigned long long)e->dev[0].total);
    uint64_t h;
    if (!tracker_alloc(&e->trk, &h))
        return err_set(CUZK_EAGAIN, "cuzk_submit_partition: %u jobs in the engine (its queue "
                       "capacity); poll results, then retry", e->trk.capacity);
    job *j = engine_job(e, h);
    j->p = *copy;
    j->srs = srs;
    atomic_fetch_add_explicit(&srs->refs, 1, memory_order_relaxed); /* the host holds one already */
    j->cs = cs;
    if (cs) atomic_fetch_add_explicit(&cs->refs, 1, memory_order_relaxed); /* likewise */
    j->inputs_copy = NULL;
    j->handle = h;
    j->est = est;
    j->host_reserved = j->device_reserved = 0;
    j->abc_released = j->started = j->retried = j->never_fits = j->holds_host = j->host_released = 0;
    j->heap = NULL;
    j->worker = NULL;
    j->bj.p = &j->p;
    j->bj.cs = cs ? cs->sys : NULL;
    j->bj.cs_be = cs ? cs->be_cs : NULL;
    j->bj.key = srs->key;
    j->bj.device = -1;
    j->bj.worker = -1;
    j->bj.status = CUZK_OK;
    j->bj.device_ns = 0;
    j->t_submit = t0;
    j->t_dequeue = j->t_start = j->t_started = 0;
    j->result.detail[0] = '\0';
    int32_t prio = copy->priority < 0 ? 0 : copy->priority >= TRACKER_LEVELS ? TRACKER_LEVELS - 1 : copy->priority;
    /* relaxed: destroy compares it with posted only after submit calls have returned */
    atomic_fetch_add_explicit(&e->submitted.v, 1, memory_order_relaxed);
    tracker_enqueue(&e->trk, h, (unsigned)prio);
    evc_notify_if_waiting(&e->work, 1);
    /* an urgent job wakes the sleeping urgent workers that may take it too (levels T..prio):
     * whichever comes first takes it */
    for (uint32_t l = e->o.urgent_priority; l && l <= (uint32_t)prio; l++) evc_notify_if_waiting(&e->urgent_work[l], 1);
    trace_emit(&e->tr, CUZK_TRACE_SUBMIT, -1, -1, h, copy->user_tag, t0, now_ns(), est.host_bytes);
    *out = h;
    return CUZK_OK;
}

/* ---- poll and cancel ---- */

_Static_assert(offsetof(cuzk_result, detail) == CUZK_RESULT_SIZE_V1,
               "cuzk_result's 0.1.0 members must keep their layout");

CUZK_API int cuzk_poll_result(cuzk_engine *e, cuzk_result *out, int64_t timeout_ns)
{
    if (!engine_ok(e) || !out) return err_set(CUZK_EINVAL, "cuzk_poll_result: engine and out must not be NULL");
    uint32_t size = out->struct_size;
    if (size < CUZK_RESULT_SIZE_V1)
        return err_set(CUZK_EINVAL, "cuzk_poll_result: out->struct_size is %u, set it to sizeof(cuzk_result) "
                       "(%zu; at least %u)", size, sizeof(cuzk_result), CUZK_RESULT_SIZE_V1);
    /* the largest published layout the host's struct holds: V1 ends before detail */
    size_t fill = size >= sizeof(cuzk_result) ? sizeof(cuzk_result) : CUZK_RESULT_SIZE_V1;
    uint64_t deadline = timeout_ns > 0 ? now_ns() + (uint64_t)timeout_ns : 0;
    spinner spin = {0, 0};
    uint64_t h;
    for (;;) {
        if (tracker_poll(&e->trk, &h)) break;
        if (timeout_ns == 0) return err_set(CUZK_EAGAIN, "cuzk_poll_result: no result ready");
        if (deadline && now_ns() >= deadline)
            return err_set(CUZK_EAGAIN, "cuzk_poll_result: no result within %lld ns", (long long)timeout_ns);
        if (engine_spin(e, &spin)) continue;
        uint32_t key = evc_prepare(&e->results);
        if (ring_count(&e->trk.done)) {
            evc_cancel(&e->results);
            continue;
        }
        evc_wait(&e->results, key, deadline);
        spin.n = 0;
    }
    job *j = engine_job(e, h);
    memcpy(out, &j->result, fill);
    out->struct_size = (uint32_t)fill;
    atomic_fetch_add_explicit(&e->polled.v, 1, memory_order_relaxed); /* a statistic */
    tracker_consume(&e->trk, h);
    return err_done(CUZK_OK);
}

CUZK_API int cuzk_cancel(cuzk_engine *e, cuzk_job job_handle)
{
    if (!engine_ok(e)) return err_set(CUZK_EINVAL, "cuzk_cancel: engine is NULL");
    switch (tracker_cancel(&e->trk, job_handle)) {
    case TRACKER_CANCEL_CLAIMED: {
        job *j = engine_job(e, job_handle);
        atomic_fetch_add_explicit(&e->dequeued.v, 1, memory_order_relaxed); /* a statistic */
        j->bj.status = CUZK_ECANCELED;
        snprintf(j->result.detail, sizeof j->result.detail, "%s", engine_cancel_text(e));
        tracker_to_finish(&e->trk, job_handle);
        evc_notify_if_waiting(&e->finish, 1);
        return err_done(CUZK_OK);
    }
    case TRACKER_CANCEL_FLAGGED:
        /* a worker may be waiting for budget on this job: let it notice */
        budget_kick(&e->host);
        return err_done(CUZK_OK);
    case TRACKER_CANCEL_TOO_LATE:
        return err_set(CUZK_EAGAIN, "cuzk_cancel: job 0x%llx has already finished; its result is "
                       "waiting for cuzk_poll_result", (unsigned long long)job_handle);
    default:
        return err_set(CUZK_ENOTFOUND, "cuzk_cancel: job 0x%llx is not a live job of this engine",
                       (unsigned long long)job_handle);
    }
}

/* ---- stats ---- */

static uint64_t rd(counter *c) { return atomic_load_explicit(&c->v, memory_order_relaxed); }
static uint64_t sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

CUZK_API int cuzk_engine_stats(cuzk_engine *e, cuzk_stats *out)
{
    if (!engine_ok(e) || !out) return err_set(CUZK_EINVAL, "cuzk_engine_stats: engine and out must not be NULL");
    uint32_t size = out->struct_size;
    if (size < CUZK_STATS_SIZE_V1)
        return err_set(CUZK_EINVAL, "cuzk_engine_stats: out->struct_size is %u, set it to sizeof(cuzk_stats) "
                       "(%zu; at least %u)", size, sizeof(cuzk_stats), CUZK_STATS_SIZE_V1);
    cuzk_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    s.backend = e->ops->kind;
    s.devices = e->ops->kind == CUZK_BACKEND_CUDA ? e->devices : 0;
    s.workers = e->nworkers;
    /* relaxed loads throughout: statistics, read one by one */
    uint64_t polled = rd(&e->polled), posted = rd(&e->posted), dequeued = rd(&e->dequeued);
    uint64_t submitted = rd(&e->submitted);
    s.submitted = submitted;
    s.completed = rd(&e->ok);
    s.failed = rd(&e->failed);
    s.canceled = rd(&e->canceled);
    s.verify_failed = rd(&e->verify_failed);
    s.queued = sub0(submitted, dequeued);
    s.running = sub0(dequeued, posted);
    s.unpolled = sub0(posted, polled);
    s.queue_capacity = e->trk.capacity;
    s.host_budget_bytes = e->host.total;
    s.host_reserved_bytes = budget_reserved(&e->host);
    s.host_reserved_peak = atomic_load_explicit(&e->host.peak, memory_order_relaxed);
    s.host_alloc_bytes = rd(&e->host_alloc_bytes);
    s.budget_waits = atomic_load_explicit(&e->host.waits, memory_order_relaxed);
    s.trace_events = atomic_load_explicit(&e->tr.delivered, memory_order_relaxed);
    s.trace_dropped = atomic_load_explicit(&e->tr.dropped, memory_order_relaxed);
    s.arena_collects = atomic_load_explicit(&e->hk.collects, memory_order_relaxed);
    s.arena_bytes = arena_size();
    s.cs_host_bytes = atomic_load_explicit(&e->cs_bytes, memory_order_relaxed);
    s.cs_device_bytes = atomic_load_explicit(&e->cs_device_bytes, memory_order_relaxed);
    /* a host built against a smaller (older) cuzk_stats gets the prefix it knows */
    size_t fill = size < sizeof s ? size : sizeof s;
    s.struct_size = (uint32_t)fill;
    memcpy(out, &s, fill);
    return err_done(CUZK_OK);
}

/* ---- host memory ---- */

#define HOST_BLOCK_MAGIC 0x686f7374626c6bull
#define HOST_MMAP_MIN ((size_t)1 << 20) /* from here on: own mapping, unmapped on free */

struct host_block {              /* sits right before the host's bytes */
    uint64_t magic;
    cuzk_engine *engine;
    size_t bytes, mapped;
    int how;                     /* 0 aligned_alloc, 1 mmap, 2 the backend */
    struct host_block *prev, *next;
};
#define HOST_HDR 64 /* keeps the host's bytes 64-byte aligned */
_Static_assert(sizeof(struct host_block) <= HOST_HDR, "host block header must fit 64 bytes");

static void host_block_release(cuzk_engine *e, struct host_block *b)
{
    size_t bytes = b->bytes, mapped = b->mapped;
    int how = b->how;
    b->magic = 0;
    if (how == 2) e->ops->host_free(e->be, b, mapped);
    else if (how == 1) munmap(b, mapped);
    else free(b);
    budget_release(&e->host, bytes);
    atomic_fetch_sub_explicit(&e->host_alloc_bytes.v, bytes, memory_order_relaxed); /* a statistic */
}

CUZK_API int cuzk_host_alloc(cuzk_engine *e, size_t bytes, void **out)
{
    if (out) *out = NULL;
    if (!engine_ok(e) || !out || bytes == 0)
        return err_set(CUZK_EINVAL, "cuzk_host_alloc: engine and out must not be NULL, bytes not 0");
    if (bytes > e->host.total)
        return err_set(CUZK_EBUDGET, "cuzk_host_alloc: %zu bytes exceed the whole host budget (%llu)",
                       bytes, (unsigned long long)e->host.total);
    if (!budget_try_reserve(&e->host, bytes))
        return err_set(CUZK_EAGAIN, "cuzk_host_alloc: %zu bytes do not fit the host budget now (%llu of "
                       "%llu reserved)", bytes, (unsigned long long)budget_reserved(&e->host),
                       (unsigned long long)e->host.total);
    size_t mapped = bytes + HOST_HDR;
    struct host_block *b = NULL;
    int how, injected = FAULT_HIT(FAULT_HOST_ALLOC);
    if (injected) {
        how = 0; /* b stays NULL: the allocation "failed" */
    } else if (e->ops->host_alloc) {
        void *m = NULL;
        how = 2;
        if (e->ops->host_alloc(e->be, mapped, &m) == CUZK_OK) b = m;
    } else if (mapped >= HOST_MMAP_MIN) {
        how = 1;
        void *m = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) b = m;
    } else {
        how = 0;
        b = aligned_alloc(HOST_HDR, (mapped + HOST_HDR - 1) & ~(size_t)(HOST_HDR - 1));
    }
    if (!b) {
        budget_release(&e->host, bytes);
        return err_set(CUZK_ENOMEM, "cuzk_host_alloc: cannot allocate %zu bytes%s", bytes,
                       injected ? " (injected fault)" : "");
    }
    b->magic = HOST_BLOCK_MAGIC;
    b->engine = e;
    b->bytes = bytes;
    b->mapped = mapped;
    b->how = how;
    b->prev = NULL;
    atomic_fetch_add_explicit(&e->host_alloc_bytes.v, bytes, memory_order_relaxed); /* a statistic */
    pthread_mutex_lock(&e->alloc_lock);
    b->next = e->allocs;
    if (b->next) b->next->prev = b;
    e->allocs = b;
    pthread_mutex_unlock(&e->alloc_lock);
    *out = (unsigned char *)b + HOST_HDR;
    return err_done(CUZK_OK);
}

CUZK_API void cuzk_host_free(cuzk_engine *e, void *p)
{
    if (!engine_ok(e) || !p || ((uintptr_t)p & (HOST_HDR - 1))) return;
    struct host_block *b = (struct host_block *)((unsigned char *)p - HOST_HDR);
    pthread_mutex_lock(&e->alloc_lock);
    /* walk the list rather than trust the header: a foreign pointer is then ignored */
    struct host_block *it = e->allocs;
    while (it && it != b) it = it->next;
    if (it) {
        if (b->prev) b->prev->next = b->next;
        else e->allocs = b->next;
        if (b->next) b->next->prev = b->prev;
    }
    pthread_mutex_unlock(&e->alloc_lock);
    if (it) host_block_release(e, b);
}

void engine_host_allocs_free_all(cuzk_engine *e)
{
    pthread_mutex_lock(&e->alloc_lock);
    struct host_block *b = e->allocs;
    e->allocs = NULL;
    pthread_mutex_unlock(&e->alloc_lock);
    while (b) {
        struct host_block *next = b->next;
        host_block_release(e, b);
        b = next;
    }
}
