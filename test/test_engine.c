/* The engine's life cycle through the public API, on the test-only trivial backend: NULL
 * and malformed arguments, round trips, cancel of queued and running jobs, destroy with
 * jobs in flight, exactly-once release callbacks, stale and foreign handles, priorities and
 * the urgent worker, the self-check, keys released while in use, host memory and the trace
 * path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "engine/engine.h"
#include "support/backend_trivial.h"
#include "support/testutil.h"

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static cuzk_engine *make_engine(int workers, int64_t capacity, int verify, cuzk_trace_fn fn, void *user)
{
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    if (workers) assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_WORKERS_PER_DEVICE, workers), CUZK_OK);
    if (capacity) assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_QUEUE_CAPACITY, capacity), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_VERIFY, verify), CUZK_OK);
    if (fn) assert_int_equal(cuzk_config_set_trace(cfg, fn, user), CUZK_OK);
    cuzk_engine *e = NULL;
    assert_int_equal(engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &e), CUZK_OK);
    cuzk_config_free(cfg);
    return e;
}

static cuzk_srs *load(cuzk_engine *e, const char *spec)
{
    cuzk_srs *s = NULL;
    assert_int_equal(cuzk_srs_load(e, spec, 0, &s), CUZK_OK);
    assert_non_null(s);
    return s;
}

/* Release callbacks count into this table, indexed by user_tag. */
static _Atomic uint32_t released[1024];
static void on_release(void *user) { atomic_fetch_add(&released[(uintptr_t)user], 1); }

static cuzk_partition part(uint64_t tag, int32_t priority)
{
    cuzk_partition p;
    memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    p.scalar_form = CUZK_FR_MONTGOMERY;
    p.priority = priority;
    p.user_tag = tag;
    p.release = on_release;
    p.release_user = (void *)(uintptr_t)(tag & 1023);
    return p;
}

static cuzk_job submit(cuzk_engine *e, cuzk_srs *s, uint64_t tag, int32_t priority)
{
    cuzk_partition p = part(tag, priority);
    cuzk_job h = 0;
    assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_OK);
    assert_true(h != 0);
    return h;
}

static cuzk_result poll1(cuzk_engine *e)
{
    cuzk_result r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    assert_int_equal(cuzk_poll_result(e, &r, 10 * 1000000000ll), CUZK_OK);
    return r;
}

static void reset_released(void) { for (int i = 0; i < 1024; i++) atomic_store(&released[i], 0); }

/* The trivial backend's proof for a tag, computed here independently of it. */
static void expected_proof(uint8_t out[192], uint64_t tag)
{
    for (int i = 0; i < 192; i++) out[i] = (uint8_t)(((tag >> (8 * (i % 8))) & 0xff) ^ (unsigned)i ^ 0xa5u);
}

static void null_and_malformed_arguments(void **state)
{
    (void)state;
    /* config */
    assert_int_equal(cuzk_config_new(NULL), CUZK_EINVAL);
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    assert_int_equal(cuzk_config_set(NULL, CUZK_OPT_VERIFY, 1), CUZK_EINVAL);
    assert_int_equal(cuzk_config_set(cfg, 0, 1), CUZK_EINVAL);
    assert_int_equal(cuzk_config_set(cfg, 999, 1), CUZK_EINVAL);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_VERIFY, 2), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "CUZK_OPT_VERIFY"));
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_QUEUE_CAPACITY, -1), CUZK_EINVAL);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_QUEUE_CAPACITY, (1 << 20) + 1), CUZK_EINVAL);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_BACKEND, 3), CUZK_EINVAL);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_TRACE_CAPACITY, 15), CUZK_EINVAL);
    int64_t v = -5;
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_QUEUE_CAPACITY, 77), CUZK_OK);
    assert_int_equal(cuzk_config_get(cfg, CUZK_OPT_QUEUE_CAPACITY, &v), CUZK_OK);
    assert_int_equal(v, 77);
    assert_int_equal(cuzk_config_get(cfg, CUZK_OPT_VERIFY, &v), CUZK_OK);
    assert_int_equal(v, 1); /* on by default */
    assert_int_equal(cuzk_config_get(cfg, 42, &v), CUZK_EINVAL);
    assert_int_equal(cuzk_config_get(cfg, CUZK_OPT_VERIFY, NULL), CUZK_EINVAL);
    assert_int_equal(cuzk_config_set_trace(NULL, NULL, NULL), CUZK_EINVAL);
    cuzk_config_free(NULL);
    /* engine */
    assert_int_equal(cuzk_engine_create(NULL, NULL), CUZK_EINVAL);
    int garbage[64] = {0};
    cuzk_engine *e = (cuzk_engine *)1;
    assert_int_equal(cuzk_engine_create((const cuzk_config *)garbage, &e), CUZK_EINVAL);
    assert_null(e);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_BACKEND, CUZK_BACKEND_CUDA), CUZK_OK);
    assert_int_equal(cuzk_engine_create(cfg, &e), CUZK_EDEVICE); /* no CUDA backend in this build */
    assert_null(e);
    cuzk_config_free(cfg);
    cuzk_engine_destroy(NULL);
    e = make_engine(1, 16, 1, NULL, NULL);
    cuzk_engine *other = make_engine(1, 16, 1, NULL, NULL);
    cuzk_srs *s = load(e, "trivial:"), *s_other = load(other, "trivial:");
    cuzk_srs *x = (cuzk_srs *)1;
    assert_int_equal(cuzk_srs_load(NULL, "trivial:", 0, &x), CUZK_EINVAL);
    assert_null(x);
    assert_int_equal(cuzk_srs_load(e, NULL, 0, &x), CUZK_EINVAL);
    assert_int_equal(cuzk_srs_load(e, "trivial:", 0, NULL), CUZK_EINVAL);
    assert_int_equal(cuzk_srs_load(e, "trivial:", 0x80, &x), CUZK_EINVAL);
    assert_int_equal(cuzk_srs_load(e, "not-a-key", 0, &x), CUZK_EFORMAT);
    assert_int_equal(cuzk_srs_load(e, "trivial:bogus=1", 0, &x), CUZK_EFORMAT);
    cuzk_srs_release(NULL);
    /* submit */
    cuzk_partition p = part(1, 0);
    cuzk_job h = 123;
    assert_int_equal(cuzk_submit_partition(NULL, s, &p, &h), CUZK_EINVAL);
    assert_int_equal(cuzk_submit_partition(e, NULL, &p, &h), CUZK_EINVAL);
    assert_int_equal(h, 0);
    assert_int_equal(cuzk_submit_partition(e, s, NULL, &h), CUZK_EINVAL);
    assert_int_equal(cuzk_submit_partition(e, s, &p, NULL), CUZK_EINVAL);
    assert_int_equal(cuzk_submit_partition(e, s_other, &p, &h), CUZK_EINVAL); /* another engine's key */
    assert_int_equal(cuzk_submit_partition(e, (cuzk_srs *)garbage, &p, &h), CUZK_EINVAL);
    p.struct_size = 8;
    assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_EINVAL);
    p.struct_size = sizeof p;
    p.scalar_form = 2;
    assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_EINVAL);
    p.scalar_form = -1;
    assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_EINVAL);
    p.scalar_form = CUZK_FR_CANONICAL;
    p.reserved = 1;
    assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_EINVAL);
    p.reserved = 0;
    /* a newer host's bigger struct: accepted when its new fields are zero */
    struct { cuzk_partition p; uint64_t more[4]; } big;
    memset(&big, 0, sizeof big);
    big.p = part(2, 0);
    big.p.struct_size = sizeof big;
    big.more[2] = 7;
    assert_int_equal(cuzk_submit_partition(e, s, &big.p, &h), CUZK_EINVAL);
    big.more[2] = 0;
    reset_released();
    assert_int_equal(cuzk_submit_partition(e, s, &big.p, &h), CUZK_OK);
    cuzk_result r = poll1(e);
    assert_int_equal(r.status, CUZK_OK);
    assert_int_equal(r.user_tag, 2);
    assert_int_equal(atomic_load(&released[2]), 1);
    /* a failed submit never calls release */
    assert_int_equal(atomic_load(&released[1]), 0);
    /* poll, cancel, stats */
    r.struct_size = sizeof r;
    assert_int_equal(cuzk_poll_result(NULL, &r, 0), CUZK_EINVAL);
    assert_int_equal(cuzk_poll_result(e, NULL, 0), CUZK_EINVAL);
    r.struct_size = 16;
    assert_int_equal(cuzk_poll_result(e, &r, 0), CUZK_EINVAL);
    assert_int_equal(cuzk_cancel(NULL, h), CUZK_EINVAL);
    cuzk_stats st;
    st.struct_size = sizeof st;
    assert_int_equal(cuzk_engine_stats(NULL, &st), CUZK_EINVAL);
    assert_int_equal(cuzk_engine_stats(e, NULL), CUZK_EINVAL);
    st.struct_size = 4;
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_EINVAL);
    /* host memory */
    void *m = (void *)1;
    assert_int_equal(cuzk_host_alloc(NULL, 64, &m), CUZK_EINVAL);
    assert_int_equal(cuzk_host_alloc(e, 0, &m), CUZK_EINVAL);
    assert_null(m);
    assert_int_equal(cuzk_host_alloc(e, 64, NULL), CUZK_EINVAL);
    cuzk_host_free(NULL, garbage);
    cuzk_host_free(e, NULL);
    cuzk_host_free(e, garbage); /* not ours: ignored */
    /* a released key cannot take new jobs */
    cuzk_srs_release(s);
    assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_EINVAL);
    cuzk_engine_destroy(e);
    cuzk_engine_destroy(other);
}

static void round_trip_and_result_fields(void **state)
{
    (void)state;
    cuzk_engine *e = make_engine(2, 64, 1, NULL, NULL);
    cuzk_srs *s = load(e, "trivial:work_ns=1000000");
    reset_released();
    uint64_t t0 = mono_ns();
    cuzk_job h = submit(e, s, 0x1122334455667788ull & 0x3fffffffffffffffull, 0);
    cuzk_result r = poll1(e);
    uint64_t t1 = mono_ns();
    assert_int_equal(r.struct_size, sizeof r);
    assert_int_equal(r.status, CUZK_OK);
    assert_int_equal(r.job, h);
    assert_int_equal(r.user_tag, 0x1122334455667788ull & 0x3fffffffffffffffull);
    assert_int_equal(r.device, -1);
    uint8_t expect[192];
    expected_proof(expect, r.user_tag);
    assert_memory_equal(r.proof, expect, 192);
    assert_true(r.device_ns >= 1000000);          /* start waited 1 ms */
    assert_true(r.total_ns >= r.device_ns + r.queued_ns);
    assert_true(r.total_ns <= t1 - t0);
    assert_int_equal(atomic_load(&released[r.user_tag & 1023]), 1);
    /* nothing else is there; a bounded wait returns EAGAIN after its timeout */
    r.struct_size = sizeof r;
    assert_int_equal(cuzk_poll_result(e, &r, 0), CUZK_EAGAIN);
    uint64_t w0 = mono_ns();
    assert_int_equal(cuzk_poll_result(e, &r, 30000000), CUZK_EAGAIN);
    assert_true(mono_ns() - w0 >= 30000000);
    assert_int_equal(cuzk_cancel(e, h), CUZK_ENOTFOUND); /* polled: stale */
    /* a start failure and a failed self-check come back as statuses, proof zeroed */
    cuzk_job hf = submit(e, s, (1ull << 62) | 5, 0);
    r = poll1(e);
    assert_int_equal(r.job, hf);
    assert_int_equal(r.status, CUZK_ENOMEM);
    cuzk_job hv = submit(e, s, (1ull << 63) | 6, 0);
    r = poll1(e);
    assert_int_equal(r.job, hv);
    assert_int_equal(r.status, CUZK_EVERIFY);
    uint8_t zero[192] = {0};
    assert_memory_equal(r.proof, zero, 192);
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_int_equal(st.submitted, 3);
    assert_int_equal(st.completed, 1);
    assert_int_equal(st.failed, 1);
    assert_int_equal(st.verify_failed, 1);
    assert_int_equal(st.workers, 2);
    assert_int_equal(st.backend, CUZK_BACKEND_CPU);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
    /* with VERIFY off the same "bad" proof is returned (the check is what stopped it) */
    e = make_engine(1, 16, 0, NULL, NULL);
    s = load(e, "trivial:");
    submit(e, s, (1ull << 63) | 6, 0);
    r = poll1(e);
    assert_int_equal(r.status, CUZK_OK);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
}

static void cancel_queued_and_running(void **state)
{
    (void)state;
    cuzk_engine *e = make_engine(1, 16, 1, NULL, NULL);
    cuzk_srs *s = load(e, "trivial:work_ns=400000000"); /* 0.4 s per job, cancellable */
    reset_released();
    cuzk_job a = submit(e, s, 1, 0), b = submit(e, s, 2, 0), c = submit(e, s, 3, 0);
    /* wait until a runs (b and c stay queued behind the only worker) */
    cuzk_stats st = {.struct_size = sizeof st};
    uint64_t t0 = mono_ns();
    do assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    while (st.running < 1 && mono_ns() - t0 < 5000000000ull);
    assert_int_equal(st.running, 1);
    assert_int_equal(st.queued, 2);
    /* cancel queued c: its result comes at once, long before a finishes */
    assert_int_equal(cuzk_cancel(e, c), CUZK_OK);
    int again = cuzk_cancel(e, c); /* twice: harmless (or too late: it may be posted already) */
    assert_true(again == CUZK_OK || again == CUZK_EAGAIN);
    cuzk_result r = poll1(e);
    assert_int_equal(r.job, c);
    assert_int_equal(r.status, CUZK_ECANCELED);
    assert_string_equal(r.detail, "canceled by cuzk_cancel");
    assert_true(mono_ns() - t0 < 300000000ull);
    assert_int_equal(atomic_load(&released[3]), 1);
    /* c's result is polled (its ready entry still waits behind b while a runs): a cancel
     * finds no such job, it is not "too late, its result waiting for a poll" */
    assert_int_equal(cuzk_cancel(e, c), CUZK_ENOTFOUND);
    /* cancel running a: it stops at its next check, not after 0.4 s */
    uint64_t t1 = mono_ns();
    assert_int_equal(cuzk_cancel(e, a), CUZK_OK);
    again = cuzk_cancel(e, a); /* twice is harmless (EAGAIN only if a already ended) */
    assert_true(again == CUZK_OK || again == CUZK_EAGAIN);
    r = poll1(e);
    assert_int_equal(r.job, a);
    assert_int_equal(r.status, CUZK_ECANCELED);
    assert_string_equal(r.detail, "canceled by cuzk_cancel");
    assert_true(mono_ns() - t1 < 300000000ull);
    assert_int_equal(atomic_load(&released[1]), 1);
    /* b runs to completion; cancel after it finished is too late */
    r = poll1(e);
    assert_int_equal(r.job, b);
    assert_int_equal(r.status, CUZK_OK);
    assert_string_equal(r.detail, "");
    cuzk_job d = submit(e, s, 4, 0);
    /* wait for d's result to be posted without taking it */
    do assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    while (st.unpolled < 1 && mono_ns() - t1 < 5000000000ull);
    assert_int_equal(cuzk_cancel(e, d), CUZK_EAGAIN);
    r = poll1(e);
    assert_int_equal(r.job, d);
    assert_int_equal(r.status, CUZK_OK);
    for (int t = 1; t <= 4; t++) assert_int_equal(atomic_load(&released[t]), 1);
    /* every handle is stale now; foreign and made-up handles are unknown */
    assert_int_equal(cuzk_cancel(e, a), CUZK_ENOTFOUND);
    assert_int_equal(cuzk_cancel(e, c), CUZK_ENOTFOUND);
    assert_int_equal(cuzk_cancel(e, 0), CUZK_ENOTFOUND);
    assert_int_equal(cuzk_cancel(e, ~0ull), CUZK_ENOTFOUND);
    cuzk_engine *other = make_engine(1, 16, 1, NULL, NULL);
    cuzk_srs *so = load(other, "trivial:work_ns=200000000");
    cuzk_job f = submit(other, so, 9, 0);
    assert_int_equal(cuzk_cancel(e, f), CUZK_ENOTFOUND); /* live in `other`, foreign here */
    assert_int_equal(cuzk_cancel(other, f), CUZK_OK);
    r = poll1(other);
    assert_int_equal(r.status, CUZK_ECANCELED);
    cuzk_srs_release(so);
    cuzk_engine_destroy(other);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
}

static void destroy_with_jobs_in_flight(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        cuzk_engine *e = make_engine(2, 64, 1, NULL, NULL);
        /* one key released while its jobs still run, one left for destroy to free */
        cuzk_srs *s = load(e, "trivial:work_ns=100000000,finish_ns=1000000,host_bytes=1048576,abc_pct=50");
        cuzk_srs *s2 = load(e, "trivial:");
        reset_released();
        for (int i = 0; i < 40; i++) submit(e, i % 2 ? s : s2, (uint64_t)i, i % 8);
        cuzk_srs_release(s);
        if (round == 1) { /* let some run first */
            struct timespec ts = {0, 50000000};
            nanosleep(&ts, NULL);
        }
        if (round == 2) { /* and some with results waiting unpolled */
            cuzk_result r = poll1(e);
            assert_true(r.status == CUZK_OK);
        }
        void *m;
        assert_int_equal(cuzk_host_alloc(e, 3 << 20, &m), CUZK_OK); /* freed by destroy */
        assert_int_equal(cuzk_host_alloc(e, 100, &m), CUZK_OK);
        uint64_t t0 = mono_ns();
        cuzk_engine_destroy(e);
        uint64_t took = mono_ns() - t0;
        /* running jobs (2 workers, 0.1 s each) finish; the queued ones never start */
        assert_true(took < 2000000000ull);
        for (int i = 0; i < 40; i++)
            if (atomic_load(&released[i]) != 1) fail_msg("round %d job %d released %u times", round, i, atomic_load(&released[i]));
    }
}

static _Atomic int prio_order[16], prio_n;
static void prio_release(void *user) { atomic_store(&prio_order[atomic_fetch_add(&prio_n, 1)], (int)(uintptr_t)user); }

static void priorities_then_fifo(void **state)
{
    (void)state;
    /* one worker and one finisher: release order is run order */
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_FINISHER_THREADS, 1), CUZK_OK);
    cuzk_engine *e;
    assert_int_equal(engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &e), CUZK_OK);
    cuzk_config_free(cfg);
    cuzk_srs *slow = load(e, "trivial:work_ns=200000000"), *s = load(e, "trivial:");
    atomic_store(&prio_n, 0);
    cuzk_partition p = part(100, 0);
    p.release = prio_release;
    p.release_user = (void *)(uintptr_t)100;
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, slow, &p, &h), CUZK_OK); /* occupies the worker */
    cuzk_stats st = {.struct_size = sizeof st};
    do assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    while (st.running < 1);
    /* queued behind it: priorities 0, 5, -3 (clamped to 0), 99 (clamped to 7), 5 */
    int32_t prios[5] = {0, 5, -3, 99, 5};
    for (int i = 0; i < 5; i++) {
        p = part((uint64_t)i, prios[i]);
        p.release = prio_release;
        p.release_user = (void *)(uintptr_t)i;
        assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_OK);
    }
    for (int i = 0; i < 6; i++) assert_int_equal(poll1(e).status, CUZK_OK);
    /* one worker: release order = run order: the long job, then 7, 5, 5 (FIFO), 0, 0 (FIFO) */
    int expect[6] = {100, 3, 1, 4, 0, 2};
    for (int i = 0; i < 6; i++) assert_int_equal(atomic_load(&prio_order[i]), expect[i]);
    cuzk_srs_release(slow);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
}

/* CUZK_OPT_URGENT_PRIORITY = 5 on one worker busy with a 0.5 s partition and two more
 * queued: the engine has 3 urgent workers (levels 5, 6, 7). A slow priority-5 partition
 * takes the level-5 worker; then a priority-6 and a priority-7 partition still start at once
 * (levels 6 and 7) and their results come first, while a priority-4 one is not urgent and
 * waits for the ordinary worker (ahead of the backlog). Without the option everything runs
 * on the one worker in priority order after the running partition. The trace shows which
 * worker ran what: no urgent worker ever takes a partition below its level. */
static _Atomic int32_t start_worker[32];
static void on_start(const cuzk_trace_event *ev, void *user)
{
    (void)user;
    if (ev->kind == CUZK_TRACE_START && ev->user_tag < 32) atomic_store(&start_worker[ev->user_tag], ev->worker);
}

static void urgent_workers_skip_the_backlog(void **state)
{
    (void)state;
    for (int on = 1; on >= 0; on--) {
        cuzk_config *cfg;
        assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
        assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_URGENT_PRIORITY, 8), CUZK_EINVAL);
        assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_URGENT_PRIORITY, -1), CUZK_EINVAL);
        assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_URGENT_PRIORITY, on ? 5 : 0), CUZK_OK);
        assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_FINISHER_THREADS, 1), CUZK_OK);
        assert_int_equal(cuzk_config_set_trace(cfg, on_start, NULL), CUZK_OK);
        cuzk_engine *e;
        assert_int_equal(engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &e), CUZK_OK);
        cuzk_config_free(cfg);
        cuzk_stats st = {.struct_size = sizeof st};
        assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
        assert_int_equal(st.workers, on ? 4 : 1);
        for (int i = 0; i < 32; i++) atomic_store(&start_worker[i], -2);
        cuzk_srs *slow = load(e, "trivial:work_ns=500000000"), *fast = load(e, "trivial:work_ns=1000000");
        for (uint64_t t = 1; t <= 3; t++) submit(e, slow, t, 0);
        do assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
        while (st.running < 1);
        submit(e, slow, 12, 5);
        if (on) {
            do assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
            while (st.running < 2);
        }
        uint64_t t0 = mono_ns();
        submit(e, fast, 10, 6);
        submit(e, fast, 11, 4);
        submit(e, fast, 13, 7);
        uint64_t order[7];
        for (int i = 0; i < 7; i++) {
            order[i] = poll1(e).user_tag;
            if (on && i == 1) assert_true(mono_ns() - t0 < 300000000ull); /* the slow ones have >= 400 ms left */
        }
        if (on) {
            assert_true((order[0] == 10 && order[1] == 13) || (order[0] == 13 && order[1] == 10));
            /* the ordinary worker's run order: 1 (running), 11 (priority 4), 2, 3; 12 anywhere */
            uint64_t normal[4], n = 0;
            for (int i = 2; i < 7; i++)
                if (order[i] != 12) normal[n++] = order[i];
            assert_int_equal(n, 4);
            const uint64_t expect[4] = {1, 11, 2, 3};
            for (int i = 0; i < 4; i++) assert_int_equal(normal[i], expect[i]);
        } else {
            const uint64_t expect[7] = {1, 13, 10, 12, 11, 2, 3};
            for (int i = 0; i < 7; i++) assert_int_equal(order[i], expect[i]);
        }
        cuzk_srs_release(slow);
        cuzk_srs_release(fast);
        cuzk_engine_destroy(e); /* delivers the trace */
        for (int t = 1; t <= 13; t++) {
            if (t > 3 && t < 10) continue;
            int32_t w = atomic_load(&start_worker[t]);
            if (!on || t <= 3 || t == 11) assert_int_equal(w, 0);
            else if (t == 12) assert_int_equal(w, 1);  /* level 5: the only free one it may use */
            else if (t == 10) assert_int_equal(w, 2);  /* level 6 (level 5 busy, level 7 too high) */
            else assert_true(w == 2 || w == 3);        /* 13: level 7, or level 6 once 10 is done */
        }
    }
}

/* A key released while a partition uses it lives until that partition ends: the job
 * completes with its proof, the key is freed before the result is posted, and the handle
 * refuses new work meanwhile. CUZK_SRS_PIN and CUZK_SRS_URGENT are known flags; 8 is not. */
static void key_lives_while_used(void **state)
{
    (void)state;
    cuzk_engine *e = make_engine(1, 16, 1, NULL, NULL);
    int64_t live0 = backend_trivial_keys_live();
    cuzk_srs *s = load(e, "trivial:work_ns=200000000"), *pinned = NULL;
    assert_int_equal(cuzk_srs_load(e, "trivial:", CUZK_SRS_PIN | CUZK_SRS_URGENT | CUZK_SRS_CHECK_SUBGROUP, &pinned),
                     CUZK_OK);
    cuzk_srs *refused = NULL;
    assert_int_equal(cuzk_srs_load(e, "trivial:", 8, &refused), CUZK_EINVAL);
    assert_null(refused);
    assert_non_null(strstr(cuzk_last_error(), "unknown flags 0x8"));
    assert_int_equal(backend_trivial_keys_live(), live0 + 2);
    submit(e, s, 1, 0);
    cuzk_stats st = {.struct_size = sizeof st};
    do assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    while (st.running < 1);
    cuzk_srs_release(s);
    assert_int_equal(backend_trivial_keys_live(), live0 + 2); /* still in use */
    cuzk_partition p = part(2, 0);
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "released"));
    cuzk_result r = poll1(e);
    assert_int_equal(r.status, CUZK_OK);
    uint8_t want[192];
    expected_proof(want, 1);
    assert_memory_equal(r.proof, want, 192);
    assert_int_equal(backend_trivial_keys_live(), live0 + 1); /* freed with its last job */
    submit(e, pinned, 3, 0);
    assert_int_equal(poll1(e).status, CUZK_OK);
    cuzk_srs_release(pinned);
    assert_int_equal(backend_trivial_keys_live(), live0);
    cuzk_engine_destroy(e);
}

static void queue_capacity_and_host_memory(void **state)
{
    (void)state;
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_QUEUE_CAPACITY, 4), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_HOST_BUDGET_BYTES, 8 << 20), CUZK_OK);
    cuzk_engine *e;
    assert_int_equal(engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &e), CUZK_OK);
    cuzk_config_free(cfg);
    cuzk_srs *s = load(e, "trivial:work_ns=20000000");
    reset_released();
    /* 4 jobs fill the engine: the fifth is refused (without a release call) until one is polled */
    for (int i = 0; i < 4; i++) submit(e, s, (uint64_t)i, 0);
    cuzk_partition p = part(4, 0);
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_EAGAIN);
    assert_int_equal(atomic_load(&released[4]), 0);
    assert_int_equal(poll1(e).status, CUZK_OK);
    assert_int_equal(cuzk_submit_partition(e, s, &p, &h), CUZK_OK);
    for (int i = 0; i < 4; i++) assert_int_equal(poll1(e).status, CUZK_OK);
    /* host memory: counted in the budget, aligned, writable, refused beyond it */
    void *a, *b, *c;
    assert_int_equal(cuzk_host_alloc(e, 5 << 20, &a), CUZK_OK);
    assert_int_equal((uintptr_t)a % 64, 0);
    memset(a, 0x5a, 5 << 20);
    assert_int_equal(cuzk_host_alloc(e, 9 << 20, &b), CUZK_EBUDGET); /* more than the budget */
    assert_int_equal(cuzk_host_alloc(e, 4 << 20, &b), CUZK_EAGAIN);  /* not now */
    assert_int_equal(cuzk_host_alloc(e, 1000, &c), CUZK_OK);
    assert_int_equal((uintptr_t)c % 64, 0);
    memset(c, 1, 1000);
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_int_equal(st.host_alloc_bytes, (5 << 20) + 1000);
    assert_int_equal(st.host_reserved_bytes, (5 << 20) + 1000);
    cuzk_host_free(e, (char *)a + 64); /* not the start of a block: ignored */
    cuzk_host_free(e, a);
    cuzk_host_free(e, a); /* twice: no longer ours, ignored */
    assert_int_equal(cuzk_host_alloc(e, 4 << 20, &b), CUZK_OK);
    cuzk_host_free(e, b);
    cuzk_host_free(e, c);
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_int_equal(st.host_alloc_bytes, 0);
    assert_int_equal(st.host_reserved_bytes, 0);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
}

/* ---- trace ---- */

typedef struct {
    _Atomic uint64_t n, by_kind[32], bad;
    uint64_t sleep_ns;
} trace_log;

static void on_event(const cuzk_trace_event *ev, void *user)
{
    trace_log *l = user;
    if (ev->struct_size != sizeof *ev || ev->kind < 1 || ev->kind >= 32 || ev->end_ns < ev->begin_ns)
        atomic_fetch_add(&l->bad, 1);
    else atomic_fetch_add(&l->by_kind[ev->kind], 1);
    atomic_fetch_add(&l->n, 1);
    if (l->sleep_ns) {
        struct timespec ts = {0, (long)l->sleep_ns};
        nanosleep(&ts, NULL);
    }
}

static void trace_events_and_slow_callback(void **state)
{
    (void)state;
    static trace_log log;
    memset(&log, 0, sizeof log);
    cuzk_engine *e = make_engine(1, 64, 1, on_event, &log);
    cuzk_srs *s = load(e, "trivial:work_ns=100000");
    for (int i = 0; i < 20; i++) submit(e, s, (uint64_t)i, 0);
    for (int i = 0; i < 20; i++) assert_int_equal(poll1(e).status, CUZK_OK);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e); /* delivers what is left in the ring */
    assert_int_equal(atomic_load(&log.bad), 0);
    int per_job[] = {CUZK_TRACE_SUBMIT, CUZK_TRACE_QUEUE_WAIT, CUZK_TRACE_START, CUZK_TRACE_H_STEP,
                     CUZK_TRACE_MSM_ALL, CUZK_TRACE_ASSEMBLY, CUZK_TRACE_VERIFY, CUZK_TRACE_FINISH,
                     CUZK_TRACE_RELEASE, CUZK_TRACE_RESULT};
    for (size_t k = 0; k < sizeof per_job / sizeof per_job[0]; k++)
        if (atomic_load(&log.by_kind[per_job[k]]) != 20)
            fail_msg("kind %d: %llu events, expected 20", per_job[k], (unsigned long long)atomic_load(&log.by_kind[per_job[k]]));

    /* a callback sleeping 10 ms per event with a 16-event ring: events are dropped and
     * counted, proving goes on (all 200 jobs finish while the callback crawls) */
    memset(&log, 0, sizeof log);
    log.sleep_ns = 10000000;
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_TRACE_CAPACITY, 16), CUZK_OK);
    assert_int_equal(cuzk_config_set_trace(cfg, on_event, &log), CUZK_OK);
    assert_int_equal(engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &e), CUZK_OK);
    cuzk_config_free(cfg);
    s = load(e, "trivial:");
    uint64_t t0 = mono_ns();
    for (int i = 0; i < 200; i++) submit(e, s, (uint64_t)i, 0);
    for (int i = 0; i < 200; i++) assert_int_equal(poll1(e).status, CUZK_OK);
    uint64_t took = mono_ns() - t0;
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    printf("200 jobs in %.1f ms with a 10 ms/event callback: %llu delivered, %llu dropped\n", took / 1e6,
           (unsigned long long)st.trace_events, (unsigned long long)st.trace_dropped);
    assert_true(st.trace_dropped > 0);
    /* ~2000 events at 10 ms each would take 20 s if proving waited for the callback */
    assert_true(took < 10000000000ull);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
    assert_int_equal(atomic_load(&log.bad), 0);
    assert_true(atomic_load(&log.n) + st.trace_dropped >= 200 * 10);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_and_malformed_arguments),
        cmocka_unit_test(round_trip_and_result_fields),
        cmocka_unit_test(cancel_queued_and_running),
        cmocka_unit_test(destroy_with_jobs_in_flight),
        cmocka_unit_test(priorities_then_fifo),
        cmocka_unit_test(urgent_workers_skip_the_backlog),
        cmocka_unit_test(key_lives_while_used),
        cmocka_unit_test(queue_capacity_and_host_memory),
        cmocka_unit_test(trace_events_and_slow_callback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
