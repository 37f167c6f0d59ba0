/* The job tracker: its state machine alone (priority order, FIFO within a level, cancel of
 * queued jobs and their stale ring entries, stale and foreign handles), then the whole
 * engine under load through the test-only trivial backend: 8 submitting and 8 polling
 * threads, 1 M jobs, every job delivered exactly once with its own result. */
#include <setjmp.h>
#include <stdarg.h>
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
#include "engine/engine.h"
#include "support/backend_trivial.h"
#include "engine/tracker.h"
#include "support/testutil.h"

static int quick(void) { return getenv("CUZK_TEST_QUICK") != NULL; }

static void priority_and_fifo(void **state)
{
    (void)state;
    tracker *t = aligned_alloc(64, sizeof *t);
    assert_int_equal(tracker_init(t, 64, 7), CUZK_OK);
    test_seed();
    /* 64 jobs with random levels; the dequeue order must be by level, then submit order */
    uint64_t h[64];
    unsigned level[64];
    for (int i = 0; i < 64; i++) {
        assert_int_equal(tracker_alloc(t, &h[i]), 1);
        level[i] = (unsigned)(test_rand64() % TRACKER_LEVELS);
        tracker_enqueue(t, h[i], level[i]);
    }
    uint64_t x;
    assert_int_equal(tracker_alloc(t, &x), 0); /* table full */
    int prev = -1, prev_level = TRACKER_LEVELS;
    for (int k = 0; k < 64; k++) {
        assert_int_equal(tracker_dequeue(t, &x), 1);
        int i = -1;
        for (int m = 0; m < 64; m++) if (h[m] == x) i = m;
        assert_true(i >= 0);
        assert_true((int)level[i] <= prev_level);
        if ((int)level[i] == prev_level) assert_true(i > prev); /* FIFO within a level */
        prev = i;
        prev_level = (int)level[i];
        assert_int_equal(tracker_state(t, x), TRACKER_RUNNING);
    }
    assert_int_equal(tracker_dequeue(t, &x), 0);
    /* through finish, done and poll back to free */
    for (int i = 0; i < 64; i++) {
        tracker_to_finish(t, h[i]);
        uint64_t f;
        assert_int_equal(tracker_take_finish(t, &f), 1);
        assert_int_equal(f, h[i]);
        assert_int_equal(tracker_mark_done(t, f), 0);
        tracker_post(t, f);
        assert_int_equal(tracker_poll(t, &f), 1);
        assert_int_equal(f, h[i]);
        tracker_consume(t, f);
        assert_int_equal(tracker_state(t, h[i]), -1); /* stale now */
        assert_int_equal(tracker_cancel(t, h[i]), TRACKER_NOT_FOUND);
    }
    /* slots come back with a new generation: old handles never match again */
    for (int i = 0; i < 64; i++) {
        assert_int_equal(tracker_alloc(t, &x), 1);
        for (int m = 0; m < 64; m++) assert_true(x != h[m]);
        tracker_unalloc(t, x);
    }
    tracker_destroy(t);
    free(t);
}

static void cancel_states_and_foreign_handles(void **state)
{
    (void)state;
    tracker *t = aligned_alloc(64, sizeof *t), *u = aligned_alloc(64, sizeof *u);
    assert_int_equal(tracker_init(t, 4, 1), CUZK_OK);
    assert_int_equal(tracker_init(u, 4, 2), CUZK_OK);
    uint64_t a, b, x;
    assert_int_equal(tracker_alloc(t, &a), 1);
    assert_int_equal(tracker_cancel(t, a), TRACKER_NOT_FOUND); /* RESERVED: not handed out yet */
    tracker_enqueue(t, a, 3);
    assert_int_equal(tracker_alloc(t, &b), 1);
    tracker_enqueue(t, b, 3);
    /* another tracker's handle with the same index and generation is foreign */
    uint64_t ua;
    assert_int_equal(tracker_alloc(u, &ua), 1);
    tracker_enqueue(u, ua, 0);
    assert_int_equal(tracker_index(ua), tracker_index(a));
    assert_int_equal(tracker_cancel(t, ua), TRACKER_NOT_FOUND);
    assert_int_equal(tracker_cancel(u, a), TRACKER_NOT_FOUND);
    assert_int_equal(tracker_cancel(t, 0), TRACKER_NOT_FOUND);
    assert_int_equal(tracker_cancel(t, a ^ (1ull << 25)), TRACKER_NOT_FOUND); /* wrong generation */
    assert_int_equal(tracker_cancel(t, (a & ~0xfffffull) | 9), TRACKER_NOT_FOUND); /* index out of range */

    /* cancel a queued job: the canceler owns it; its ring entry is skipped later */
    assert_int_equal(tracker_cancel(t, a), TRACKER_CANCEL_CLAIMED);
    assert_int_equal(tracker_cancel_requested(t, a), 1);
    tracker_to_finish(t, a);
    assert_int_equal(tracker_take_finish(t, &x), 1);
    assert_int_equal(x, a);
    assert_int_equal(tracker_mark_done(t, a), 1);
    tracker_post(t, a);
    assert_int_equal(tracker_cancel(t, a), TRACKER_CANCEL_TOO_LATE);
    assert_int_equal(tracker_poll(t, &x), 1);
    tracker_consume(t, a); /* its ready entry is still queued: CONSUMED, not yet FREE */
    assert_int_equal(tracker_state(t, a), TRACKER_CONSUMED);
    /* its result is taken: a cancel finds nothing (not "too late, waiting for a poll") */
    assert_int_equal(tracker_cancel(t, a), TRACKER_NOT_FOUND);
    /* three slots are in use or pending: only two can be allocated */
    uint64_t c, d;
    assert_int_equal(tracker_alloc(t, &c), 1);
    assert_int_equal(tracker_alloc(t, &d), 1);
    assert_int_equal(tracker_alloc(t, &x), 0);
    tracker_unalloc(t, c);
    tracker_unalloc(t, d);
    /* the worker pops a's stale entry (skipped, slot freed), then gets b */
    assert_int_equal(tracker_dequeue(t, &x), 1);
    assert_int_equal(x, b);
    assert_int_equal(tracker_state(t, a), -1);
    /* cancel a running job: flagged, reported at mark_done */
    assert_int_equal(tracker_cancel(t, b), TRACKER_CANCEL_FLAGGED);
    assert_int_equal(tracker_cancel(t, b), TRACKER_CANCEL_FLAGGED); /* twice is harmless */
    tracker_to_finish(t, b);
    assert_int_equal(tracker_take_finish(t, &x), 1);
    assert_int_equal(tracker_mark_done(t, b), 1);
    tracker_post(t, b);
    assert_int_equal(tracker_poll(t, &x), 1);
    tracker_consume(t, b);
    assert_int_equal(tracker_state(t, b), -1);
    /* every slot is free again */
    uint64_t all[4];
    for (int i = 0; i < 4; i++) assert_int_equal(tracker_alloc(t, &all[i]), 1);
    tracker_destroy(t);
    tracker_destroy(u);
    free(t);
    free(u);
}

/* ---- the engine under load ---- */

#define SUBMITTERS 8
#define POLLERS 8

typedef struct {
    cuzk_engine *e;
    cuzk_srs *srs;
    uint64_t per_thread, total;
    uint64_t *handles;            /* [tag]: what submit returned */
    uint64_t *result_job;         /* [tag]: what the result said */
    _Atomic uint32_t *delivered;  /* [tag]: results seen          */
    _Atomic uint32_t *released;   /* [tag]: release callbacks     */
    _Atomic uint64_t polled;
    _Atomic int bad;
} stress;

typedef struct {
    stress *s;
    uint64_t tag;
} rel_arg;

static void on_release(void *user)
{
    /* user encodes the stress pointer's tag table index: see submitter */
    stress *s = *(stress **)user;
    uint64_t tag = ((uint64_t *)user)[1];
    atomic_fetch_add(&s->released[tag], 1);
}

typedef struct {
    stress *s;
    int id;
    uint64_t (*rel)[2];           /* per-job release_user storage */
} sub_arg;

static void *submitter(void *p)
{
    sub_arg *a = p;
    stress *s = a->s;
    for (uint64_t i = 0; i < s->per_thread; i++) {
        uint64_t tag = (uint64_t)a->id * s->per_thread + i;
        a->rel[i][0] = (uint64_t)(uintptr_t)s;
        a->rel[i][1] = tag;
        cuzk_partition part = {.struct_size = sizeof part, .scalar_form = CUZK_FR_CANONICAL,
                               .priority = (int32_t)(tag % 3), .user_tag = tag,
                               .release = on_release, .release_user = a->rel[i]};
        cuzk_job h;
        int rc;
        while ((rc = cuzk_submit_partition(s->e, s->srs, &part, &h)) == CUZK_EAGAIN) sched_yield();
        if (rc != CUZK_OK) { atomic_store(&s->bad, 1); return NULL; }
        s->handles[tag] = h;
    }
    return NULL;
}

static void *poller(void *p)
{
    stress *s = p;
    cuzk_result r;
    while (atomic_load(&s->polled) < s->total) {
        r.struct_size = sizeof r;
        int rc = cuzk_poll_result(s->e, &r, 20000000);
        if (rc == CUZK_EAGAIN) continue;
        if (rc != CUZK_OK || r.status != CUZK_OK || r.user_tag >= s->total) { atomic_store(&s->bad, 2); continue; }
        atomic_fetch_add(&s->polled, 1);
        if (atomic_fetch_add(&s->delivered[r.user_tag], 1) != 0) atomic_store(&s->bad, 3);
        if (atomic_load(&s->released[r.user_tag]) != 1) atomic_store(&s->bad, 4); /* release before result */
        s->result_job[r.user_tag] = r.job;
    }
    return NULL;
}

static void engine_stress(uint64_t total, int64_t capacity)
{
    const char *env = getenv("CUZK_STRESS_JOBS");
    if (env) total = strtoull(env, NULL, 0);
    stress *s = calloc(1, sizeof *s);
    s->per_thread = (total + SUBMITTERS - 1) / SUBMITTERS;
    s->total = total = s->per_thread * SUBMITTERS;
    s->handles = calloc(total, sizeof *s->handles);
    s->result_job = calloc(total, sizeof *s->result_job);
    s->delivered = calloc(total, sizeof *s->delivered);
    s->released = calloc(total, sizeof *s->released);
    assert_true(s->handles && s->result_job && s->delivered && s->released);
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    const char *cap = getenv("CUZK_STRESS_CAPACITY");
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_QUEUE_CAPACITY, cap ? atoll(cap) : capacity), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_WORKERS_PER_DEVICE, 2), CUZK_OK);
    assert_int_equal(engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &s->e), CUZK_OK);
    cuzk_config_free(cfg);
    assert_int_equal(cuzk_srs_load(s->e, "trivial:", 0, &s->srs), CUZK_OK);
    uint64_t t0 = (uint64_t)time(NULL);
    pthread_t st[SUBMITTERS], pt[POLLERS];
    sub_arg sa[SUBMITTERS];
    for (int i = 0; i < SUBMITTERS; i++) {
        sa[i] = (sub_arg){s, i, calloc(s->per_thread, sizeof(uint64_t[2]))};
        assert_int_equal(pthread_create(&st[i], NULL, submitter, &sa[i]), 0);
    }
    for (int i = 0; i < POLLERS; i++) assert_int_equal(pthread_create(&pt[i], NULL, poller, s), 0);
    /* a watchdog: a lost job shows as results that stop coming, not as a test that hangs */
    uint64_t last = 0, still = 0;
    while (atomic_load(&s->polled) < total && still < 30) {
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
        uint64_t now = atomic_load(&s->polled);
        still = now == last ? still + 1 : 0;
        last = now;
    }
    if (still >= 30) {
        cuzk_stats st_ = {.struct_size = sizeof st_};
        cuzk_engine_stats(s->e, &st_);
        fail_msg("no result for 30 s: %llu of %llu polled; submitted %llu, queued %llu, running %llu, "
                 "unpolled %llu", (unsigned long long)last, (unsigned long long)total,
                 (unsigned long long)st_.submitted, (unsigned long long)st_.queued,
                 (unsigned long long)st_.running, (unsigned long long)st_.unpolled);
    }
    for (int i = 0; i < SUBMITTERS; i++) pthread_join(st[i], NULL);
    for (int i = 0; i < POLLERS; i++) pthread_join(pt[i], NULL);
    printf("%llu jobs through the engine (queue capacity %lld) in ~%llu s\n", (unsigned long long)total,
           (long long)capacity,
           (unsigned long long)((uint64_t)time(NULL) - t0));
    assert_int_equal(atomic_load(&s->bad), 0);
    for (uint64_t t = 0; t < total; t++) {
        if (atomic_load(&s->delivered[t]) != 1 || atomic_load(&s->released[t]) != 1 ||
            s->result_job[t] != s->handles[t])
            fail_msg("job %llu: delivered %u, released %u, handle %llx vs result %llx",
                     (unsigned long long)t, atomic_load(&s->delivered[t]), atomic_load(&s->released[t]),
                     (unsigned long long)s->handles[t], (unsigned long long)s->result_job[t]);
    }
    /* nothing more to poll, and the counters agree */
    cuzk_result r = {.struct_size = sizeof r};
    assert_int_equal(cuzk_poll_result(s->e, &r, 0), CUZK_EAGAIN);
    cuzk_stats st_ = {.struct_size = sizeof st_};
    assert_int_equal(cuzk_engine_stats(s->e, &st_), CUZK_OK);
    assert_int_equal(st_.submitted, total);
    assert_int_equal(st_.completed, total);
    assert_int_equal(st_.queued + st_.running + st_.unpolled, 0);
    /* every handle is stale now */
    for (uint64_t t = 0; t < total; t += total / 97 + 1)
        assert_int_equal(cuzk_cancel(s->e, s->handles[t]), CUZK_ENOTFOUND);
    cuzk_srs_release(s->srs);
    cuzk_engine_destroy(s->e);
    for (int i = 0; i < SUBMITTERS; i++) free(sa[i].rel);
    free(s->handles);
    free(s->result_job);
    free((void *)s->delivered);
    free((void *)s->released);
    free(s);
}

static void engine_stress_no_loss_no_duplicate(void **state)
{
    (void)state;
    engine_stress(quick() ? 40000 : 1000000, 4096);
}

/* 8 slots: every ring laps thousands of times, so a pop preempted mid-way is overtaken by a
 * whole lap (the case ring_push_wait exists for) as often as the scheduler allows. */
static void engine_stress_tiny_queue(void **state)
{
    (void)state;
    engine_stress(quick() ? 20000 : 200000, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(priority_and_fifo),
        cmocka_unit_test(cancel_states_and_foreign_handles),
        cmocka_unit_test(engine_stress_no_loss_no_duplicate),
        cmocka_unit_test(engine_stress_tiny_queue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
