/* The thread pool: every index exactly once, real parallelism, concurrent and nested callers
 * (normal and urgent), and an urgent loop overtaking a long normal one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "support/testutil.h"
#include "threadpool.h"

typedef struct {
    atomic_int *hits;
    size_t n;
} count_arg;

static void count_body(void *p, size_t i)
{
    count_arg *a = p;
    if (i < a->n) atomic_fetch_add(&a->hits[i], 1);
}

/* Runs a loop of n on tp and asserts every index ran exactly once. */
static void check_once(threadpool *tp, size_t n)
{
    atomic_int *hits = calloc(n + 1, sizeof *hits);
    assert_non_null(hits);
    count_arg a = {hits, n};
    threadpool_parallel_for(tp, n, count_body, &a);
    for (size_t i = 0; i < n; i++)
        if (atomic_load(&hits[i]) != 1) fail_msg("n=%zu: index %zu ran %d times", n, i, atomic_load(&hits[i]));
    free(hits);
}

static const size_t sizes[] = {0, 1, 2, 3, 7, 16, 17, 1000, 100003};

static void every_index_once(void **state)
{
    (void)state;
    static const unsigned threads[] = {1, 2, 3, 8};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) check_once(NULL, sizes[s]);
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        threadpool *tp = threadpool_create(threads[t]);
        assert_non_null(tp);
        assert_int_equal(threadpool_size(tp), threads[t]);
        for (int rep = 0; rep < 20; rep++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) check_once(tp, sizes[s]);
        threadpool_destroy(tp);
    }
    assert_int_equal(threadpool_size(NULL), 1);
    threadpool *tp = threadpool_create(0);
    assert_non_null(tp);
    assert_true(threadpool_size(tp) >= 1);
    check_once(tp, 12345);
    threadpool_destroy(tp);
    threadpool_destroy(NULL);
}

/* Each body waits until the other has started: a pool that ran them one after the other
 * would never get there (the wait gives up after 20 s and the test fails). */
static atomic_int started;
static atomic_int gave_up;

static void rendezvous_body(void *p, size_t i)
{
    (void)p; (void)i;
    atomic_fetch_add(&started, 1);
    time_t t0 = time(NULL);
    while (atomic_load(&started) < 2) {
        if (time(NULL) - t0 > 20) { atomic_store(&gave_up, 1); return; }
        sched_yield();
    }
}

static void runs_in_parallel(void **state)
{
    (void)state;
    threadpool *tp = threadpool_create(2);
    assert_non_null(tp);
    for (int rep = 0; rep < 5; rep++) {
        atomic_store(&started, 0);
        atomic_store(&gave_up, 0);
        threadpool_parallel_for(tp, 2, rendezvous_body, NULL);
        assert_int_equal(atomic_load(&started), 2);
        assert_int_equal(atomic_load(&gave_up), 0);
    }
    threadpool_destroy(tp);
}

typedef struct {
    threadpool *tp;
    uint64_t rng; /* test_rand64 is not thread-safe: each caller has its own stream */
    int failures;
    int urgent;
} caller_arg;

static void *caller_thread(void *p)
{
    caller_arg *c = p;
    threadpool_set_urgent(c->urgent);
    for (int rep = 0; rep < 200; rep++) {
        c->rng = c->rng * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t n = 1 + (size_t)((c->rng >> 33) % 5000);
        atomic_int *hits = calloc(n, sizeof *hits);
        count_arg a = {hits, n};
        threadpool_parallel_for(c->tp, n, count_body, &a);
        for (size_t i = 0; i < n; i++)
            if (atomic_load(&hits[i]) != 1) c->failures++;
        free(hits);
    }
    return NULL;
}

static void concurrent_callers(void **state)
{
    (void)state;
    threadpool *tp = threadpool_create(3);
    assert_non_null(tp);
    enum { CALLERS = 4 };
    pthread_t th[CALLERS];
    caller_arg args[CALLERS];
    for (int i = 0; i < CALLERS; i++) {
        args[i] = (caller_arg){tp, test_rand64(), 0, i}; /* levels 0 (normal) .. 3 */
        assert_int_equal(pthread_create(&th[i], NULL, caller_thread, &args[i]), 0);
    }
    for (int i = 0; i < CALLERS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
    threadpool_destroy(tp);
}

/* An outer loop whose bodies each run an inner loop on the same pool. */
typedef struct {
    threadpool *tp;
    atomic_int *hits; /* outer x inner */
    size_t inner;
} nest_arg;

typedef struct {
    nest_arg *n;
    size_t row;
} row_arg;

static void inner_body(void *p, size_t j)
{
    row_arg *r = p;
    atomic_fetch_add(&r->n->hits[r->row * r->n->inner + j], 1);
}

static void outer_body(void *p, size_t i)
{
    nest_arg *n = p;
    row_arg r = {n, i};
    threadpool_parallel_for(n->tp, n->inner, inner_body, &r);
}

static void nested_calls(void **state)
{
    (void)state;
    threadpool *tp = threadpool_create(3);
    assert_non_null(tp);
    enum { OUTER = 37, INNER = 101 };
    atomic_int *hits = calloc(OUTER * INNER, sizeof *hits);
    nest_arg n = {tp, hits, INNER};
    for (int rep = 0; rep < 10; rep++) {
        for (size_t k = 0; k < OUTER * INNER; k++) atomic_store(&hits[k], 0);
        threadpool_parallel_for(tp, OUTER, outer_body, &n);
        for (size_t k = 0; k < OUTER * INNER; k++) assert_int_equal(atomic_load(&hits[k]), 1);
    }
    /* The pool still works normally afterwards. */
    check_once(tp, 999);
    free(hits);
    threadpool_destroy(tp);
}

/* A normal loop of 64 bodies of 4 ms runs on a pool of 2 (about 130 ms); once it is under
 * way an urgent loop of 16 bodies of 1 ms is started from another thread. The urgent loop
 * must end long before the normal one (a pool that queued it behind the normal loop would
 * return it only after) and every index of both must run once. */
static atomic_int normal_started, normal_done;

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void normal_body(void *p, size_t i)
{
    atomic_fetch_add(&normal_started, 1);
    sleep_ms(4);
    count_body(p, i);
}

static void urgent_body(void *p, size_t i)
{
    sleep_ms(1);
    count_body(p, i);
}

typedef struct {
    threadpool *tp;
    count_arg a;
    int normal_done_at_return;
    double ms;
} urgent_arg;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *urgent_caller(void *p)
{
    urgent_arg *u = p;
    while (atomic_load(&normal_started) < 4) sched_yield();
    threadpool_set_urgent(1);
    double t0 = now_ms();
    threadpool_parallel_for(u->tp, u->a.n, urgent_body, &u->a);
    u->ms = now_ms() - t0;
    u->normal_done_at_return = atomic_load(&normal_done);
    return NULL;
}

static void urgent_overtakes(void **state)
{
    (void)state;
    threadpool *tp = threadpool_create(2);
    assert_non_null(tp);
    enum { NN = 64, NU = 16 };
    atomic_int *hn = calloc(NN, sizeof *hn), *hu = calloc(NU, sizeof *hu);
    atomic_store(&normal_started, 0);
    atomic_store(&normal_done, 0);
    urgent_arg u = {tp, {hu, NU}, -1, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, urgent_caller, &u), 0);
    count_arg an = {hn, NN};
    double t0 = now_ms();
    threadpool_parallel_for(tp, NN, normal_body, &an);
    double normal_ms = now_ms() - t0;
    atomic_store(&normal_done, 1);
    pthread_join(th, NULL);
    print_message("normal loop %.1f ms; urgent loop %.1f ms, started while it ran\n", normal_ms, u.ms);
    assert_int_equal(u.normal_done_at_return, 0);
    assert_true(u.ms < normal_ms / 2);
    for (int i = 0; i < NN; i++) assert_int_equal(atomic_load(&hn[i]), 1);
    for (int i = 0; i < NU; i++) assert_int_equal(atomic_load(&hu[i]), 1);
    check_once(tp, 999); /* both lanes idle again */
    free(hn);
    free(hu);
    threadpool_destroy(tp);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_index_once),
        cmocka_unit_test(runs_in_parallel),
        cmocka_unit_test(concurrent_callers),
        cmocka_unit_test(nested_calls),
        cmocka_unit_test(urgent_overtakes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
