/* The tracker's state machine under contention, without the engine around it: submitters,
 * workers, finishers, pollers and a canceler hammer a tiny slot table (every ring laps
 * constantly, stale ready entries of canceled jobs abound). An ownership counter per slot
 * fails the test the moment two threads own a slot at once; every job must be delivered
 * exactly once, with its own payload, and a job canceled while queued never runs. The
 * payload is plain memory, so ThreadSanitizer (make test-tsan) checks the publication. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "engine/tracker.h"
#include "support/testutil.h"

static int quick(void) { return getenv("CUZK_TEST_QUICK") != NULL; }

enum { SUBMITTERS = 3, WORKERS = 2, FINISHERS = 2, POLLERS = 2, CANCELERS = 2, RECENT = 16 };

typedef struct {
    uint64_t job;      /* which job the slot holds (written by the submitter)   */
    uint64_t handle;   /* the handle it was issued under                        */
    int32_t ran;       /* a worker ran it                                       */
    int32_t canceled;  /* the finisher saw a cancel                             */
} payload;

typedef struct {
    tracker *t;
    uint32_t cap;
    uint64_t per_sub, total;
    payload *pl;                 /* [slot], owned by whoever owns the slot */
    _Atomic int *owners;         /* [slot]: threads that believe they own it */
    _Atomic uint32_t *delivered; /* [job] */
    _Atomic uint32_t *claimed;   /* [job]: canceled while queued (claimed by the canceler) */
    _Atomic uint32_t *ran;       /* [job] */
    _Atomic uint64_t recent[RECENT];
    _Atomic uint64_t polled, finished_canceled;
    _Atomic int done, bad;
    char why[160];
    pthread_mutex_t why_lock;
} rig;

static void flag(rig *r, const char *what, uint64_t a, uint64_t b)
{
    pthread_mutex_lock(&r->why_lock);
    if (!atomic_load(&r->bad)) snprintf(r->why, sizeof r->why, "%s (%llx, %llx)", what,
                                        (unsigned long long)a, (unsigned long long)b);
    atomic_store(&r->bad, 1);
    pthread_mutex_unlock(&r->why_lock);
}

static void own(rig *r, uint64_t h)
{
    int was = atomic_fetch_add(&r->owners[tracker_index(h)], 1);
    if (was != 0) flag(r, "two owners of one slot", h, (uint64_t)was);
}

static void disown(rig *r, uint64_t h) { atomic_fetch_sub(&r->owners[tracker_index(h)], 1); }

typedef struct {
    rig *r;
    int id;
    uint64_t seed;
} targ;

static void *submitter(void *p)
{
    targ *a = p;
    rig *r = a->r;
    for (uint64_t i = 0; i < r->per_sub && !atomic_load(&r->bad); i++) {
        uint64_t job = (uint64_t)a->id * r->per_sub + i, h;
        while (!tracker_alloc(r->t, &h)) {
            if (atomic_load(&r->bad)) return NULL;
            sched_yield();
        }
        own(r, h);
        if (tracker_state(r->t, h) != TRACKER_RESERVED) flag(r, "fresh slot not RESERVED", h, 0);
        payload *pl = &r->pl[tracker_index(h)];
        pl->job = job;
        pl->handle = h;
        pl->ran = 0;
        pl->canceled = 0;
        atomic_store(&r->recent[job % RECENT], h);
        disown(r, h);
        tracker_enqueue(r->t, h, (unsigned)(job % 3));
    }
    return NULL;
}

static void check_payload(rig *r, uint64_t h, const char *who)
{
    const payload *pl = &r->pl[tracker_index(h)];
    if (pl->handle != h || pl->job >= r->total) flag(r, who, h, pl->handle);
}

static void *worker(void *p)
{
    rig *r = ((targ *)p)->r;
    while (!atomic_load(&r->done)) {
        uint64_t h;
        if (!tracker_dequeue(r->t, &h)) { sched_yield(); continue; }
        own(r, h);
        check_payload(r, h, "worker: payload of another job");
        payload *pl = &r->pl[tracker_index(h)];
        if (atomic_load(&r->claimed[pl->job])) flag(r, "a job canceled while queued ran", h, pl->job);
        atomic_fetch_add(&r->ran[pl->job], 1);
        pl->ran = 1;
        disown(r, h);
        tracker_to_finish(r->t, h);
        /* slow workers keep the table full of queued jobs: cancels claim many of them, and
         * their ready entries outlive the jobs (finished, polled) before a worker pops them */
        for (int k = 0; k < 4; k++) sched_yield();
    }
    return NULL;
}

static void *canceler(void *p)
{
    targ *a = p;
    rig *r = a->r;
    uint64_t s = a->seed;
    while (!atomic_load(&r->done)) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t h = atomic_load(&r->recent[(s >> 33) % RECENT]);
        if (!h) continue;
        int rc = tracker_cancel(r->t, h);
        if (rc == TRACKER_CANCEL_CLAIMED) {
            own(r, h);
            check_payload(r, h, "canceler: payload of another job");
            payload *pl = &r->pl[tracker_index(h)];
            if (pl->ran || atomic_load(&r->ran[pl->job])) flag(r, "claimed a job that ran", h, pl->job);
            atomic_store(&r->claimed[pl->job], 1);
            disown(r, h);
            tracker_to_finish(r->t, h);
        }
        if ((s >> 20) % 2 == 0) sched_yield();
    }
    return NULL;
}

static void *finisher(void *p)
{
    rig *r = ((targ *)p)->r;
    while (!atomic_load(&r->done)) {
        uint64_t h;
        if (!tracker_take_finish(r->t, &h)) { sched_yield(); continue; }
        own(r, h);
        check_payload(r, h, "finisher: payload of another job");
        if (tracker_state(r->t, h) != TRACKER_FINISHING) flag(r, "finisher: not FINISHING", h, 0);
        payload *pl = &r->pl[tracker_index(h)];
        pl->canceled = tracker_mark_done(r->t, h);
        disown(r, h);
        tracker_post(r->t, h);
    }
    return NULL;
}

static void *poller(void *p)
{
    rig *r = ((targ *)p)->r;
    while (!atomic_load(&r->done)) {
        uint64_t h;
        if (!tracker_poll(r->t, &h)) { sched_yield(); continue; }
        own(r, h);
        check_payload(r, h, "poller: payload of another job");
        payload *pl = &r->pl[tracker_index(h)];
        if (atomic_fetch_add(&r->delivered[pl->job], 1) != 0) flag(r, "delivered twice", h, pl->job);
        if (!pl->ran && !pl->canceled) flag(r, "neither ran nor canceled", h, pl->job);
        if (pl->canceled) atomic_fetch_add(&r->finished_canceled, 1);
        disown(r, h);
        tracker_consume(r->t, h);
        atomic_fetch_add(&r->polled, 1);
    }
    return NULL;
}

static void race(uint32_t cap, uint64_t total)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->t = aligned_alloc(64, (sizeof(tracker) + 63) & ~(size_t)63);
    assert_non_null(r->t);
    assert_int_equal(tracker_init(r->t, cap, 5), CUZK_OK);
    r->cap = cap;
    r->per_sub = total / SUBMITTERS;
    r->total = total = r->per_sub * SUBMITTERS;
    r->pl = calloc(cap, sizeof *r->pl);
    r->owners = calloc(cap, sizeof *r->owners);
    r->delivered = calloc(total, sizeof *r->delivered);
    r->claimed = calloc(total, sizeof *r->claimed);
    r->ran = calloc(total, sizeof *r->ran);
    assert_true(r->pl && r->owners && r->delivered && r->claimed && r->ran);
    pthread_mutex_init(&r->why_lock, NULL);
    enum { N = SUBMITTERS + WORKERS + FINISHERS + POLLERS + CANCELERS };
    pthread_t th[N];
    targ args[N];
    void *(*fn[N])(void *);
    int k = 0;
    for (int i = 0; i < SUBMITTERS; i++) fn[k++] = submitter;
    for (int i = 0; i < WORKERS; i++) fn[k++] = worker;
    for (int i = 0; i < FINISHERS; i++) fn[k++] = finisher;
    for (int i = 0; i < POLLERS; i++) fn[k++] = poller;
    for (int i = 0; i < CANCELERS; i++) fn[k++] = canceler;
    for (int i = 0; i < N; i++) {
        args[i] = (targ){r, i < SUBMITTERS ? i : 0, test_rand64() | 1};
        assert_int_equal(pthread_create(&th[i], NULL, fn[i], &args[i]), 0);
    }
    /* a watchdog: a lost job shows as results that stop coming */
    uint64_t last = 0, still = 0;
    while (atomic_load(&r->polled) < total && !atomic_load(&r->bad) && still < 100) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
        uint64_t now = atomic_load(&r->polled);
        still = now == last ? still + 1 : 0;
        last = now;
    }
    atomic_store(&r->done, 1);
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
    if (atomic_load(&r->bad)) fail_msg("capacity %u: %s", cap, r->why);
    if (still >= 100) {
        char states[256] = "";
        for (uint32_t i = 0; i < cap && i < 32; i++) {
            size_t n = strlen(states);
            snprintf(states + n, sizeof states - n, "%u:%d ", i,
                     tracker_state(r->t, r->pl[i].handle));
        }
        fail_msg("capacity %u: no result for 10 s, %llu of %llu polled; slot states %s", cap,
                 (unsigned long long)last, (unsigned long long)total, states);
    }
    uint64_t ncancel = 0;
    for (uint64_t j = 0; j < total; j++) {
        if (atomic_load(&r->delivered[j]) != 1)
            fail_msg("capacity %u: job %llu delivered %u times", cap, (unsigned long long)j,
                     atomic_load(&r->delivered[j]));
        if (atomic_load(&r->ran[j]) + atomic_load(&r->claimed[j]) != 1)
            fail_msg("capacity %u: job %llu ran %u times, claimed by cancel %u", cap, (unsigned long long)j,
                     atomic_load(&r->ran[j]), atomic_load(&r->claimed[j]));
        ncancel += atomic_load(&r->claimed[j]);
    }
    /* all slots came back, and no ring holds anything */
    uint64_t h;
    assert_int_equal(tracker_dequeue(r->t, &h), 0);
    assert_int_equal(tracker_take_finish(r->t, &h), 0);
    assert_int_equal(tracker_poll(r->t, &h), 0);
    for (uint32_t i = 0; i < cap; i++) assert_int_equal(tracker_alloc(r->t, &h), 1);
    assert_int_equal(tracker_alloc(r->t, &h), 0);
    printf("capacity %u: %llu jobs, %llu claimed by cancel while queued, %llu finished with a cancel flag\n",
           cap, (unsigned long long)total, (unsigned long long)ncancel,
           (unsigned long long)atomic_load(&r->finished_canceled));
    tracker_destroy(r->t);
    free(r->t);
    free(r->pl);
    free((void *)r->owners);
    free((void *)r->delivered);
    free((void *)r->claimed);
    free((void *)r->ran);
    pthread_mutex_destroy(&r->why_lock);
    free(r);
}

static void tiny_table(void **state)
{
    (void)state;
    race(4, quick() ? 20000 : 100000);
}

static void small_table(void **state)
{
    (void)state;
    race(64, quick() ? 20000 : 100000);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tiny_table),
        cmocka_unit_test(small_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
