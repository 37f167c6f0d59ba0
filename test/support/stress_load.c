/* The stress driver's load (stress.h): the engine and keys of a phase, the producers, the
 * pollers, the key churn, the fault thread; every call timed, and the watchdog that aborts
 * with the state printed when a call or a job outlives its bound. */
#include "support/stress_int.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BOUND_SCALE 5 /* every call is several times slower under a sanitizer */
#else
#define BOUND_SCALE 1
#endif

static const int32_t retry_statuses[] = {CUZK_ENOMEM, CUZK_EDEVICE, CUZK_EBUDGET, CUZK_EVERIFY, CUZK_EIO};

/* Whether faults may be firing now: the fault phase, before they stopped. A call or job
 * takes this at its start (its end may come after they stopped). */
static int fault_window(void) { return P->faults && !atomic_load(&P->faults_off_ns); }

/* A status an injected fault may cause (lib/fault.h's sites, retried or not). */
static int fault_code(int32_t st)
{
    for (size_t i = 0; i < sizeof retry_statuses / sizeof retry_statuses[0]; i++)
        if (st == retry_statuses[i]) return 1;
    return 0;
}

/* ---- call timing and the watchdog --------------------------------------------------------- */

static uint64_t call_bound_ms(int call)
{
    switch (call) {
    case C_LOAD: case C_CS_LOAD: return S_cfg->load_ms;
    case C_RELEASE: case C_CS_RELEASE: case C_HOST_ALLOC: case C_HOST_FREE: return S_cfg->release_ms;
    case C_CREATE: case C_DESTROY: return S_cfg->engine_ms;
    default: return S_cfg->call_ms;
    }
}

uint64_t s_call_begin(tslot *s, int call, uint64_t extra_ns)
{
    s->extra_ns = extra_ns;
    atomic_store(&s->call, call);
    atomic_store(&s->bound_ns, (uint64_t)((double)call_bound_ms(call) * 1e6 * BOUND_SCALE * S_cfg->bound_scale) + extra_ns);
    uint64_t t = s_now();
    atomic_store(&s->since, t);
    return t;
}

void s_call_end(tslot *s, int call, uint64_t t0)
{
    /* a poll's time past its timeout (it may rightly wait that long) */
    uint64_t d = s_now() - t0, m = atomic_load(&P->max_ns[call]);
    d = d > s->extra_ns ? d - s->extra_ns : 0;
    while (d > m && !atomic_compare_exchange_weak(&P->max_ns[call], &m, d)) {}
    atomic_store(&s->since, 0);
}

tslot *s_slot(const char *who)
{
    int i = atomic_fetch_add(&P->nslots, 1);
    if (i >= S_MAX_SLOTS) abort(); /* a driver bug: more threads than slots */
    P->slots[i].who = who;
    return &P->slots[i];
}

sjob *s_job_at(uint64_t i) { return &P->chunks[i / S_CHUNK][i % S_CHUNK]; }

static void print_state(void)
{
    printf("  state: %llu accepted, %llu polled (%llu ok, %llu canceled, %llu failed by faults), %llu bulk in "
           "flight, %llu key loads; faults %s\n", (unsigned long long)atomic_load(&P->accepted),
           (unsigned long long)atomic_load(&P->polled_total), (unsigned long long)atomic_load(&P->ok),
           (unsigned long long)atomic_load(&P->canceled), (unsigned long long)atomic_load(&P->fault_failed),
           (unsigned long long)atomic_load(&P->bulk_inflight), (unsigned long long)atomic_load(&P->loads),
           P->faults ? (atomic_load(&P->faults_off_ns) ? "off" : "on") : "none");
    uint64_t now = s_now(), n = atomic_load(&P->njobs);
    int shown = 0;
    for (uint64_t i = 0; i < n && shown < 16; i++) {
        sjob *j = s_job_at(i);
        uint64_t t = atomic_load(&j->t_submit);
        if (!atomic_load(&j->live) || !t) continue;
        printf("  unanswered: job %llu (%s%s) submitted %.2f s ago, released %d, cancel asked %d\n",
               (unsigned long long)i, s_kind_name[j->kind], j->alone ? ", alone" : "", (double)(now - t) / 1e9,
               atomic_load(&j->releases), atomic_load(&j->cancel_asked));
        shown++;
    }
}

/* The engine stalled: say what and where, then abort (never hang CI). */
static void stall(const char *what)
{
    printf("STRESS STALL (seed 0x%016llx, phase %d %s; replay with CUZK_STRESS_SEED=0x%016llx): %s\n",
           (unsigned long long)S_seed, P->index, P->name, (unsigned long long)S_seed, what);
    print_state();
    fflush(stdout);
    cuzk_engine *e = atomic_load(&P->e);
    if (e && !atomic_load(&P->in_destroy)) {
        alarm(10); /* if the stats call hangs too, SIGALRM ends the process */
        cuzk_stats st = {.struct_size = sizeof st};
        if (!cuzk_engine_stats(e, &st))
            printf("  engine: %llu submitted, %llu completed, %llu failed, %llu canceled, %llu queued, %llu running, "
                   "%llu unpolled\n", (unsigned long long)st.submitted, (unsigned long long)st.completed,
                   (unsigned long long)st.failed, (unsigned long long)st.canceled, (unsigned long long)st.queued,
                   (unsigned long long)st.running, (unsigned long long)st.unpolled);
        fflush(stdout);
    }
    abort();
}

static void *watchdog(void *arg)
{
    (void)arg;
    uint64_t scan_from = 0, job_bound = (uint64_t)((double)S_cfg->job_ms * 1e6 * BOUND_SCALE * S_cfg->bound_scale);
    char what[300];
    while (!atomic_load(&P->stop_watch)) {
        s_sleep_ms(20);
        uint64_t now = s_now();
        int ns = atomic_load(&P->nslots);
        for (int i = 0; i < ns && i < S_MAX_SLOTS; i++) {
            tslot *s = &P->slots[i];
            uint64_t since = atomic_load(&s->since), bound = atomic_load(&s->bound_ns);
            int call = atomic_load(&s->call);
            /* bound and call belong to this call only if it is still the same one (its
             * owner may have ended it and begun the next between the loads) */
            if (since && atomic_load(&s->since) == since && now > since && now - since > bound) {
                snprintf(what, sizeof what, "cuzk %s on the %s thread has not returned after %.2f s (bound %.2f s)",
                         call == C_POLL ? "poll (with a timeout)" : s_call_name[call], s->who, (double)(now - since) / 1e9,
                         (double)bound / 1e9);
                stall(what);
            }
        }
        if (atomic_load(&P->jobs_unwatched)) continue; /* the phase's end: destroy discards them */
        uint64_t n = atomic_load(&P->njobs);
        for (uint64_t i = scan_from; i < n; i++) {
            sjob *j = s_job_at(i);
            uint64_t t = atomic_load(&j->t_submit);
            int live = atomic_load(&j->live);
            if (i == scan_from && t && !live) scan_from++; /* answered or refused: done with it */
            if (live && t && now > t && now - t > job_bound) {
                snprintf(what, sizeof what, "job %llu (%s, key %d%s) has no result %.3f s after its submit (bound %.3f s)",
                         (unsigned long long)i, s_kind_name[j->kind], j->key, j->alone ? ", alone" : "",
                         (double)(now - t) / 1e9, (double)job_bound / 1e9);
                stall(what);
            }
        }
    }
    return NULL;
}

void s_phase_begin(int index, const char *name, uint64_t budget, int workers, int faults)
{
    P = calloc(1, sizeof *P);
    if (!P) abort();
    P->index = index, P->name = name, P->budget = budget, P->workers = workers, P->faults = faults;
    pthread_mutex_init(&P->lock, NULL);
    pthread_mutex_init(&P->cs_lock, NULL);
    if (pthread_create(&P->watchdog, NULL, watchdog, NULL)) abort();
}

void s_phase_end(void)
{
    atomic_store(&P->stop_watch, 1);
    pthread_join(P->watchdog, NULL);
    for (int c = 0; c < S_MAX_CHUNKS && P->chunks[c]; c++) free(P->chunks[c]);
    pthread_mutex_destroy(&P->lock);
    pthread_mutex_destroy(&P->cs_lock);
    free(P);
    P = NULL;
}

/* ---- jobs ------------------------------------------------------------------------------- */

static sjob *job_new(int kind, int key)
{
    pthread_mutex_lock(&P->lock);
    uint64_t n = atomic_load(&P->njobs);
    sjob *j = NULL;
    if (n / S_CHUNK < S_MAX_CHUNKS) {
        sjob **ch = &P->chunks[n / S_CHUNK];
        if (!*ch && !(*ch = calloc(S_CHUNK, sizeof **ch))) abort();
        j = &(*ch)[n % S_CHUNK];
        j->id = n, j->kind = kind, j->key = key;
        atomic_store(&P->njobs, n + 1); /* publishes the chunk pointer to the watchdog */
    }
    pthread_mutex_unlock(&P->lock);
    return j;
}

/* The engine's release callback: no engine call from here (a release can run inside
 * cuzk_engine_destroy, which no other call may race), so page-locked blocks wait on a list
 * for a poller's cuzk_host_free. The block is poisoned first: a read after the release
 * would make a proof that the engine's own check (or cuzk_verify) refuses. */
static void job_release(void *user)
{
    sjob *j = user;
    if (atomic_fetch_add(&j->releases, 1)) {
        s_fail("job %llu: its release callback ran twice", (unsigned long long)j->id);
        return;
    }
    if (atomic_load(&P->destroyed)) s_fail("a release callback ran after cuzk_engine_destroy returned");
    memset(j->block, 0xa5, j->bytes < S_cfg->poison_max ? j->bytes : (size_t)S_cfg->poison_max);
    if (!j->pinned) {
        free(j->block);
        return;
    }
    pthread_mutex_lock(&P->lock);
    j->next_free = P->free_list;
    P->free_list = j;
    pthread_mutex_unlock(&P->lock);
}

static void free_released(tslot *s)
{
    pthread_mutex_lock(&P->lock);
    sjob *j = P->free_list;
    P->free_list = NULL;
    pthread_mutex_unlock(&P->lock);
    for (; j; j = j->next_free) S_TIMED(s, C_HOST_FREE, 0, cuzk_host_free(P->e, j->block));
}

void s_drop_free_list(void) { P->free_list = NULL; }

/* Submits one partition of key `key` on srs (a copy of the template in a fresh block; with cs,
 * witness-only: a copy of its inputs and aux); the job, or NULL when the submit was refused (a
 * failure unless a fault may explain it). */
static sjob *submit(tslot *s, uint64_t *rng, cuzk_srs *srs, cuzk_cs *cs, int key, int kind, int32_t prio, int alone)
{
    sjob *j = job_new(kind, key);
    if (!j) {
        s_fail("more than %d jobs in one phase", S_CHUNK * S_MAX_CHUNKS);
        return NULL;
    }
    j->alone = alone;
    j->witness = cs != NULL;
    const skey *k = &S_keys[key];
    j->bytes = cs ? k->wbytes : k->bytes;
    int rc = -1, window = fault_window();
    if (s_rand(rng) % 2) {
        S_TIMED(s, C_HOST_ALLOC, 0, rc = cuzk_host_alloc(P->e, j->bytes, &j->block));
        /* EAGAIN: the host budget is full now; the job goes in malloc'ed memory instead */
        if (rc && window && fault_code(rc)) atomic_fetch_add(&P->fault_calls_failed, 1);
        else if (rc && rc != CUZK_EAGAIN)
            s_fail("cuzk_host_alloc(%zu): %s (%s)", j->bytes, cuzk_strerror(rc), cuzk_last_error());
    }
    j->pinned = rc == CUZK_OK;
    if (!j->pinned && !(j->block = malloc(j->bytes))) abort();
    cuzk_partition p;
    cuzk_witness_partition w;
    if (cs) {
        s_fill_witness(k, j->block, &w);
        w.priority = prio, w.user_tag = j->id, w.release = job_release, w.release_user = j;
    } else {
        s_fill_partition(k, j->block, &p);
        p.priority = prio, p.user_tag = j->id, p.release = job_release, p.release_user = j;
    }
    j->after_faults = P->faults && !window;
    if (kind == J_BULK) atomic_fetch_add(&P->bulk_inflight, 1);
    atomic_store(&j->t_submit, s_now());
    atomic_store(&j->live, 1);
    for (;;) {
        S_TIMED(s, C_SUBMIT, 0,
                rc = cs ? cuzk_submit_witness(P->e, srs, cs, &w, &j->h) : cuzk_submit_partition(P->e, srs, &p, &j->h));
        if (rc != CUZK_EAGAIN) break;
        s_sleep_ms(1); /* the queue is full: the pollers empty it */
    }
    if (rc == CUZK_OK) {
        j->accepted = 1;
        atomic_fetch_add(&P->accepted, 1);
        if (cs) atomic_fetch_add(&P->witness_accepted, 1);
        return j;
    }
    atomic_store(&j->live, 0);
    if (kind == J_BULK) atomic_fetch_sub(&P->bulk_inflight, 1);
    if (window && fault_code(rc)) atomic_fetch_add(&P->fault_calls_failed, 1);
    else s_fail("%s (%s): %s (%s)", cs ? "cuzk_submit_witness" : "cuzk_submit_partition", s_kind_name[kind],
                cuzk_strerror(rc), cuzk_last_error());
    if (j->pinned) S_TIMED(s, C_HOST_FREE, 0, cuzk_host_free(P->e, j->block));
    else free(j->block);
    return NULL;
}

/* One polled result: checked against its job and counted. */
static void on_result(const cuzk_result *r)
{
    if (r->user_tag >= atomic_load(&P->njobs)) {
        s_fail("a result with user_tag %llu, which no job has", (unsigned long long)r->user_tag);
        return;
    }
    sjob *j = s_job_at(r->user_tag);
    if (atomic_fetch_add(&j->polls, 1)) {
        s_fail("job %llu (%s): a second result (%s)", (unsigned long long)j->id, s_kind_name[j->kind],
               cuzk_strerror(r->status));
        return;
    }
    j->t_result = s_now();
    j->status = r->status;
    j->result_job = r->job;
    if (!atomic_load(&j->live)) s_fail("job %llu: a result, but it was never submitted", (unsigned long long)j->id);
    if (atomic_load(&j->releases) != 1)
        s_fail("job %llu (%s): its result was polled after %d release calls (cuzk.h: exactly one, before the result)",
               (unsigned long long)j->id, s_kind_name[j->kind], atomic_load(&j->releases));
    const skey *k = &S_keys[j->key];
    if (r->status == CUZK_OK) {
        int v = cuzk_verify(k->k.vk, k->k.vk_len, r->proof, k->tmpl.inputs + 1, k->tmpl.num_inputs - 1,
                            CUZK_FR_MONTGOMERY);
        if (v) s_fail("job %llu (%s%s, device %d): CUZK_OK, but cuzk_verify says %s", (unsigned long long)j->id,
                      s_kind_name[j->kind], j->witness ? ", witness-only" : "", r->device, cuzk_strerror(v));
        atomic_fetch_add(&P->ok, 1);
        if (j->witness) atomic_fetch_add(&P->witness_ok, 1);
        if (j->after_faults) atomic_fetch_add(&P->ok_after_faults, 1);
    } else if (r->status == CUZK_ECANCELED) {
        if (!atomic_load(&j->cancel_asked))
            s_fail("job %llu (%s): CUZK_ECANCELED, but nobody canceled it (%s)", (unsigned long long)j->id,
                   s_kind_name[j->kind], r->detail);
        atomic_fetch_add(&P->canceled, 1);
    } else if (P->faults && !j->after_faults && fault_code(r->status) && r->detail[0]) {
        atomic_fetch_add(&P->fault_failed, 1);
        if (atomic_fetch_add(&P->failed_by_code[-r->status & 15], 1) < 2) /* what a fault did, now and then */
            printf("  fault: job %llu (%s) %.*s: %s\n", (unsigned long long)j->id, s_kind_name[j->kind],
                   (int)strcspn(cuzk_strerror(r->status), ":"), cuzk_strerror(r->status), r->detail);
    } else {
        s_fail("job %llu (%s%s, device %d) failed%s: %s (%s)", (unsigned long long)j->id, s_kind_name[j->kind],
               j->witness ? ", witness-only" : "", r->device, j->after_faults ? " after the faults stopped" : "", cuzk_strerror(r->status),
               r->detail[0] ? r->detail : "no detail");
    }
    if (j->kind == J_BULK) atomic_fetch_sub(&P->bulk_inflight, 1);
    atomic_fetch_add(&P->polled_total, 1);
    atomic_store(&j->live, 0);
    atomic_store(&j->published, 1); /* the fields above, for a cancel after the result */
}

static void *poller(void *arg)
{
    tslot *s = s_slot("poller");
    uint64_t rng = S_seed ^ (0x9011e5ull + (uint64_t)(uintptr_t)arg), next_stats = 0;
    while (!atomic_load(&P->stop_pollers)) {
        cuzk_result r = {.struct_size = sizeof r};
        int rc, zero = s_rand(&rng) % 8 == 0;
        int64_t timeout = zero ? 0 : 20000000;
        S_TIMED(s, zero ? C_POLL0 : C_POLL, (uint64_t)timeout, rc = cuzk_poll_result(P->e, &r, timeout));
        if (rc == CUZK_OK) on_result(&r);
        else if (rc != CUZK_EAGAIN) s_fail("cuzk_poll_result: %s (%s)", cuzk_strerror(rc), cuzk_last_error());
        free_released(s);
        if (arg == NULL && s_now() >= next_stats) { /* the first poller also watches the counters */
            cuzk_stats st = {.struct_size = sizeof st};
            S_TIMED(s, C_STATS, 0, rc = cuzk_engine_stats(P->e, &st));
            if (rc) s_fail("cuzk_engine_stats: %s", cuzk_strerror(rc));
            next_stats = s_now() + 100000000;
        }
    }
    return NULL;
}

static void cancel_job(tslot *s, sjob *j, int mode)
{
    int32_t before = mode == CANCEL_LATE ? j->status : 0;
    atomic_store(&j->cancel_asked, 1); /* before the call: its result may be polled first */
    int rc;
    S_TIMED(s, C_CANCEL, 0, rc = cuzk_cancel(P->e, j->h));
    j->cancel_mode = mode;
    j->cancel_rc = rc;
    atomic_fetch_add(mode == CANCEL_LATE ? &P->cancels_late : &P->cancels_soon, 1);
    if (mode == CANCEL_LATE) {
        /* the result was polled: the handle is stale (the brief allows OK too; nothing may change) */
        if (rc == CUZK_OK) atomic_fetch_add(&P->late_cancel_ok, 1);
        else if (rc != CUZK_ENOTFOUND)
            s_fail("cuzk_cancel of job %llu after its result was polled: %s", (unsigned long long)j->id, cuzk_strerror(rc));
        if (j->status != before) s_fail("job %llu: a late cancel changed its result", (unsigned long long)j->id);
    } else if (rc != CUZK_OK && rc != CUZK_EAGAIN && rc != CUZK_ENOTFOUND) {
        s_fail("cuzk_cancel of job %llu: %s (%s)", (unsigned long long)j->id, cuzk_strerror(rc), cuzk_last_error());
    }
}

/* Keeps inflight_min..inflight_max bulk jobs in flight at priorities 0..5 (every level below
 * the urgent ones, 6 and 7, which the WindowPoSt and WinningPoSt producers use); cancels about
 * cancel_pm per mille of them: right away, 0-50 ms later, or after the result came. */
static void *bulk_producer(void *arg)
{
    (void)arg;
    tslot *s = s_slot("bulk producer");
    uint64_t rng = S_seed ^ 0xb01cull;
    typedef struct pending { sjob *j; uint64_t due; int late; } pending;
    pending pend[64];
    int np = 0;
    unsigned span = S_cfg->inflight_max - S_cfg->inflight_min + 1;
    uint64_t target = S_cfg->inflight_min + s_rand(&rng) % span;
    while (!atomic_load(&P->stop_load)) {
        uint64_t now = s_now();
        for (int i = 0; i < np; i++)
            if (pend[i].late ? atomic_load(&pend[i].j->published) : now >= pend[i].due) {
                cancel_job(s, pend[i].j, pend[i].late ? CANCEL_LATE : CANCEL_SOON);
                pend[i--] = pend[--np];
            }
        if (atomic_load(&P->bulk_inflight) >= target || np == 64) {
            s_sleep_ms(1);
            continue;
        }
        /* one in four witness-only, on the constraint system of now (the churn swaps it) */
        const int32_t prio = (int32_t)(s_rand(&rng) % 6);
        const int wit = s_rand(&rng) % 4 == 0;
        if (wit) pthread_mutex_lock(&P->cs_lock);
        sjob *j = submit(s, &rng, P->srs[K_BULK], wit ? P->cs : NULL, K_BULK, J_BULK, prio, 0);
        if (wit) pthread_mutex_unlock(&P->cs_lock);
        target = S_cfg->inflight_min + s_rand(&rng) % span;
        if (!j || s_rand(&rng) % 1000 >= S_cfg->cancel_pm) continue;
        int when = (int)(s_rand(&rng) % 3);
        if (when == 0) cancel_job(s, j, CANCEL_SOON);
        else pend[np++] = (pending){j, now + s_rand(&rng) % 50000000, when == 2};
    }
    return NULL;
}

static int sleep_or_stop(double ms)
{
    for (uint64_t end = s_now() + (uint64_t)(ms * 1e6); !atomic_load(&P->stop_load);) {
        uint64_t now = s_now();
        if (now >= end) return 0;
        s_sleep_ms((double)(end - now) / 1e6 < 5 ? (double)(end - now) / 1e6 : 5);
    }
    return 1;
}

/* WinningPoSt (arg J_WINNING: priority 7, pinned key) or WindowPoSt (priority 6, urgent key)
 * partitions at their period, jittered +-30 %, whether the last one came back or not. */
static void *urgent_producer(void *arg)
{
    int kind = (int)(intptr_t)arg, key = kind == J_WINNING ? K_WINNING : K_WINDOW;
    tslot *s = s_slot(s_kind_name[kind]);
    uint64_t rng = S_seed ^ (0x0e6e47ull * (uint64_t)(kind + 1));
    double period = kind == J_WINNING ? S_cfg->winning_ms : S_cfg->window_ms;
    while (!sleep_or_stop(period * (0.7 + 0.6 * (double)(s_rand(&rng) % 1000) / 1000)))
        submit(s, &rng, P->srs[key], NULL, key, kind, kind == J_WINNING ? 7 : 6, 0);
    return NULL;
}

/* A fresh copy of the bulk key every churn_ms (flags 0, PIN or URGENT), two partitions at
 * priority 2 on it, and the key released at once while they run. */
static void *churn(void *arg)
{
    (void)arg;
    tslot *s = s_slot("key churn");
    uint64_t rng = S_seed ^ 0xc4124ull;
    static const uint32_t flag_pick[4] = {0, 0, CUZK_SRS_PIN, CUZK_SRS_URGENT};
    while (!sleep_or_stop(S_cfg->churn_ms * (0.7 + 0.6 * (double)(s_rand(&rng) % 1000) / 1000))) {
        uint32_t flags = flag_pick[s_rand(&rng) % 4];
        cuzk_srs *srs = NULL;
        int rc, window = fault_window();
        S_TIMED(s, C_LOAD, 0, rc = cuzk_srs_load(P->e, S_keys[K_BULK].k.path, flags, &srs));
        if (rc) {
            /* a budget smaller than the GPU may have no room for one more key, pinned or not */
            if (rc == CUZK_EBUDGET && S_cfg->backend == CUZK_BACKEND_CUDA && P->budget) atomic_fetch_add(&P->load_refused, 1);
            else if (window && fault_code(rc)) atomic_fetch_add(&P->fault_calls_failed, 1);
            else s_fail("cuzk_srs_load (flags %u) of a fresh bulk key: %s (%s)", flags, cuzk_strerror(rc), cuzk_last_error());
            continue;
        }
        atomic_fetch_add(&P->loads, 1);
        cuzk_placement pl = {.struct_size = sizeof pl};
        S_TIMED(s, C_PLACEMENT, 0, rc = cuzk_srs_placement(srs, 0, &pl));
        if (rc) s_fail("cuzk_srs_placement: %s (%s)", cuzk_strerror(rc), cuzk_last_error());
        for (int i = 0; i < 2; i++) submit(s, &rng, srs, NULL, K_BULK, J_CHURN, 2, 0);
        cuzk_cs *cs = s_rand(&rng) % 2 ? s_cs_load(s, &rng, 0) : NULL;
        if (cs) {
            for (int i = 0; i < 2; i++) submit(s, &rng, srs, cs, K_BULK, J_CHURN, 2, 0);
            if (s_rand(&rng) % 2) { /* it replaces the bulk producer's, released in use */
                pthread_mutex_lock(&P->cs_lock);
                cuzk_cs *old = P->cs;
                P->cs = cs;
                pthread_mutex_unlock(&P->cs_lock);
                cs = old;
            }
            s_cs_release(s, cs);
        }
        S_TIMED(s, C_RELEASE, 0, cuzk_srs_release(srs));
        atomic_fetch_add(&P->releases, 1);
    }
    return NULL;
}

/* The fault phase: from 10 % to 70 % of the load, one site at a time armed for one hit at a
 * random moment; then none, so that the rest shows the engine serving on. */
static void *fault_thread(void *arg)
{
    uint64_t t0 = *(uint64_t *)arg, rng = S_seed ^ 0xfa017ull, len = (uint64_t)(S_cfg->seconds * 1e9);
    static const fault_site cuda_sites[] = {FAULT_CUDA_MSM, FAULT_CUDA_H, FAULT_CUDA_COPY, FAULT_CUDA_ALLOC,
                                            FAULT_MSM_CORRUPT};
    static const fault_site cpu_sites[] = {FAULT_MSM_CORRUPT, FAULT_HEAP_ALLOC};
    int cuda = S_cfg->backend == CUZK_BACKEND_CUDA;
    const fault_site *sites = cuda ? cuda_sites : cpu_sites;
    size_t nsites = cuda ? sizeof cuda_sites / sizeof cuda_sites[0] : sizeof cpu_sites / sizeof cpu_sites[0];
    uint64_t on = t0 + len / 10, now = s_now();
    if (!sleep_or_stop(on > now ? (double)(on - now) / 1e6 : 0))
        while (s_now() < t0 + len * 7 / 10 && !sleep_or_stop(30 + (double)(s_rand(&rng) % 170))) {
            fault_site site = sites[s_rand(&rng) % nsites];
            fault_arm(site, 1, 1);
            atomic_fetch_add(&P->faults_armed, 1);
            for (uint64_t end = s_now() + 1000000000ull; !fault_hits(site) && s_now() < end && !atomic_load(&P->stop_load);)
                s_sleep_ms(2);
            fault_disarm_all();
            atomic_fetch_add(&P->faults_fired, fault_hits(site)); /* counters stay until the next arm */
        }
    fault_disarm_all();
    atomic_store(&P->faults_off_ns, s_now());
    return NULL;
}

void s_load_run(void)
{
    pthread_t th[8 + 16];
    int n = 0;
    uint64_t t0 = s_now();
    unsigned np = S_cfg->pollers ? S_cfg->pollers : 1;
    for (unsigned i = 0; i < np && i < 16; i++)
        if (pthread_create(&th[n++], NULL, poller, (void *)(uintptr_t)i)) abort();
    int nload = n;
    if (pthread_create(&th[n++], NULL, bulk_producer, NULL) ||
        pthread_create(&th[n++], NULL, urgent_producer, (void *)(intptr_t)J_WINNING) ||
        pthread_create(&th[n++], NULL, urgent_producer, (void *)(intptr_t)J_WINDOW) ||
        pthread_create(&th[n++], NULL, churn, NULL) || (P->faults && pthread_create(&th[n++], NULL, fault_thread, &t0)))
        abort();
    s_sleep_ms(S_cfg->seconds * 1000);
    /* the fault phase shows the engine serving on after the faults: on a slow machine the
     * load goes on until a job submitted after them has come back CUZK_OK (the job bound at
     * most; then the check after destroy fails) */
    for (uint64_t end = s_now() + S_cfg->job_ms * 1000000ull; P->faults && !atomic_load(&P->ok_after_faults) &&
                                                               s_now() < end;)
        s_sleep_ms(10);
    /* stop the producers, but do not drain: the engine is destroyed with work in flight */
    atomic_store(&P->stop_load, 1);
    for (int i = nload; i < n; i++) pthread_join(th[i], NULL);
    fault_disarm_all();
    atomic_store(&P->stop_pollers, 1);
    for (int i = 0; i < nload; i++) pthread_join(th[i], NULL);
    atomic_store(&P->jobs_unwatched, 1);
}

/* ---- engine, keys, the alone times ------------------------------------------------------ */

int s_engine_create(tslot *s, uint64_t budget, int workers, int faults, cuzk_engine **out)
{
    cuzk_config *cfg = NULL;
    int cuda = S_cfg->backend == CUZK_BACKEND_CUDA, rc = cuzk_config_new(&cfg);
    const int64_t opts[][2] = {{CUZK_OPT_BACKEND, S_cfg->backend}, {CUZK_OPT_DEVICE_MASK, cuda ? 1 : 0},
                               {CUZK_OPT_WORKERS_PER_DEVICE, workers}, {CUZK_OPT_URGENT_PRIORITY, 6},
                               {CUZK_OPT_VERIFY, 1}, {CUZK_OPT_DEVICE_BUDGET_BYTES, cuda ? (int64_t)budget : 0},
                               {CUZK_OPT_RETRY_ON_CPU, faults ? 1 : 0}};
    for (size_t i = 0; rc == CUZK_OK && i < sizeof opts / sizeof opts[0]; i++)
        rc = cuzk_config_set(cfg, (int32_t)opts[i][0], opts[i][1]);
    *out = NULL;
    if (rc == CUZK_OK) S_TIMED(s, C_CREATE, 0, rc = cuzk_engine_create(cfg, out));
    if (rc) printf("  cuzk_engine_create (budget %llu): %s (%s)\n", (unsigned long long)budget, cuzk_strerror(rc),
                   cuzk_last_error());
    cuzk_config_free(cfg);
    return rc;
}

int s_load_keys(tslot *s, cuzk_engine *e, cuzk_srs *srs[NKEYS], int must)
{
    /* the bulk key first (later keys fit around the slots it sized), as cuzk.h advises */
    static const uint32_t flags[NKEYS] = {0, CUZK_SRS_PIN, CUZK_SRS_URGENT};
    static const char *const names[NKEYS] = {"bulk", "WinningPoSt (pinned)", "WindowPoSt (urgent)"};
    static const char *const kinds[] = {"resident", "partial", "streamed", "host"};
    for (int k = 0; k < NKEYS; k++) {
        int rc;
        srs[k] = NULL;
        S_TIMED(s, C_LOAD, 0, rc = cuzk_srs_load(e, S_keys[k].k.path, flags[k], &srs[k]));
        if (rc) {
            if (must) s_fail("cuzk_srs_load of the %s key: %s (%s)", names[k], cuzk_strerror(rc), cuzk_last_error());
            return rc;
        }
        if (!must) continue;
        cuzk_placement pl = {.struct_size = sizeof pl};
        S_TIMED(s, C_PLACEMENT, 0, rc = cuzk_srs_placement(srs[k], 0, &pl));
        if (rc) s_fail("cuzk_srs_placement: %s", cuzk_strerror(rc));
        else if (pl.kind == CUZK_PLACEMENT_HOST) printf("  %s key: on the host\n", names[k]);
        else printf("  %s key: %s, %u slots of %.1f MiB, %.1f MiB resident, %.1f MiB streamed, device budget %.1f MiB\n",
                    names[k], pl.kind >= 0 && pl.kind < 4 ? kinds[pl.kind] : "?", pl.slots,
                    (double)pl.slot_bytes / (1 << 20), (double)pl.resident_bytes / (1 << 20),
                    (double)pl.streamed_bytes / (1 << 20), (double)pl.device_budget_bytes / (1 << 20));
    }
    return CUZK_OK;
}

cuzk_cs *s_cs_load(tslot *s, uint64_t *rng, int stream)
{
    const int gpu = S_cfg->backend == CUZK_BACKEND_CUDA;
    /* streamed where asked; else one time in two, three in four under a budget (where the
     * streaming budget was chosen to hold it streamed beside the keys) */
    const uint32_t flags = gpu && (stream || s_rand(rng) % 4 < (P->budget ? 3u : 2u)) ? CUZK_CS_STREAM : 0;
    cuzk_cs *cs = NULL;
    int rc, window = fault_window();
    S_TIMED(s, C_CS_LOAD, 0, rc = cuzk_cs_load(P->e, S_keys[K_BULK].cs_path, flags, &cs));
    if (rc == CUZK_OK) {
        atomic_fetch_add(&P->cs_loads, 1);
        return cs;
    }
    /* a budget smaller than the GPU may have no room for it beside the keys */
    if (rc == CUZK_EBUDGET && gpu && P->budget) atomic_fetch_add(&P->cs_refused, 1);
    else if (window && fault_code(rc)) atomic_fetch_add(&P->fault_calls_failed, 1);
    else s_fail("cuzk_cs_load (flags %u) of the bulk circuit: %s (%s)", flags, cuzk_strerror(rc), cuzk_last_error());
    return NULL;
}

void s_cs_release(tslot *s, cuzk_cs *cs)
{
    if (!cs) return;
    S_TIMED(s, C_CS_RELEASE, 0, cuzk_cs_release(cs));
    atomic_fetch_add(&P->cs_releases, 1);
}

/* Polls (on the idle engine) until j's result is in; j NULL: nothing. */
static void wait_result(tslot *s, sjob *j)
{
    while (j && !atomic_load(&j->published)) {
        cuzk_result r = {.struct_size = sizeof r};
        int rc;
        S_TIMED(s, C_POLL, 1000000000ull, rc = cuzk_poll_result(P->e, &r, 1000000000ll));
        if (rc == CUZK_OK) on_result(&r);
        else if (rc != CUZK_EAGAIN) {
            s_fail("cuzk_poll_result: %s", cuzk_strerror(rc));
            break;
        }
    }
    free_released(s);
}

void s_witness_alone(tslot *s)
{
    uint64_t rng = S_seed ^ 0x3175e55ull;
    if (!P->cs) return;
    sjob *j = submit(s, &rng, P->srs[K_BULK], P->cs, K_BULK, J_BULK, 5, 1);
    wait_result(s, j);
    if (j && j->status != CUZK_OK) s_fail("the witness-only partition on the idle engine: %s", cuzk_strerror(j->status));
}

void s_alone(tslot *s)
{
    uint64_t rng = S_seed ^ 0xa10e5ull;
    for (int u = 0; u < 2; u++) {
        int kind = u ? J_WINDOW : J_WINNING, key = u ? K_WINDOW : K_WINNING;
        uint64_t t[16];
        unsigned n = S_cfg->alone_n < 16 ? S_cfg->alone_n : 15, got = 0;
        for (unsigned i = 0; i <= n; i++) { /* the first one warms up (the urgent slot is made then) */
            sjob *j = submit(s, &rng, P->srs[key], NULL, key, kind, u ? 6 : 7, 1);
            wait_result(s, j);
            if (i && j && j->status == CUZK_OK) t[got++] = j->t_result - j->t_submit;
        }
        qsort(t, got, sizeof t[0], s_cmp_u64);
        P->alone_ns[u] = got ? t[(got - 1) / 2] : 0;
        printf("  %s alone: %.2f ms (median of %u)\n", s_kind_name[kind], (double)P->alone_ns[u] / 1e6, got);
    }
}
