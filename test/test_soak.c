/* Soak: for CUZK_SOAK_SECONDS (default 20; 6 with CUZK_TEST_QUICK; CUZK_SOAK_BURST caps the
 * partitions each thread submits per engine, default 44), engines are created with
 * random options and destroyed, sometimes with work still in flight; in each, several threads
 * load and release keys of three tiny circuits concurrently and submit bursts of partitions
 * with random priorities, canceling some at random, while the main thread polls. Every
 * partition's release runs exactly once, every result is accounted for, and every CUZK_OK
 * proof passes cuzk_verify against its own circuit's key. Some cycles inject faults (heap
 * allocation failures, corrupted results) with and without CUZK_OPT_RETRY_ON_CPU. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "fault.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "support/testkey.h"
#include "support/testutil.h"

enum { KEYS = 3, THREADS = 3, MAX_JOBS = 512 };
static const uint64_t key_constraints[KEYS] = {8, 20, 40}; /* domains 2^4 .. 2^6 */

static test_key keys[KEYS];

typedef struct tracked {
    cuzk_partition p;
    void (*rel)(void *);
    void *rel_user;
    _Atomic int releases;
    int key;
    _Atomic int submitted; /* set before the submit call: its result may come first */
    int canceled;        /* cuzk_cancel returned CUZK_OK (read after the submitters joined) */
    int cancel_gone;     /* ... returned CUZK_ENOTFOUND: the result was polled already */
    cuzk_job h;          /* written by submit (after the job may have run) */
    int polled;          /* the poller's: the result was seen, with this job and status */
    cuzk_job result_job;
    int32_t status;
    cuzk_fr *pub;
    uint64_t npub;
    int32_t form;
} tracked;

typedef struct cycle {
    cuzk_engine *e;
    tracked *t;
    _Atomic uint32_t next;   /* slots handed out to submitter threads */
    _Atomic uint32_t submitted, done_threads;
    uint32_t per_thread;
    uint64_t seed;
    _Atomic uint64_t loads, cancels;
} cycle;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void tracked_release(void *u)
{
    tracked *t = u;
    if (atomic_fetch_add(&t->releases, 1) == 0) t->rel(t->rel_user);
}

static int setup(void **state)
{
    (void)state;
    test_seed();
    for (int k = 0; k < KEYS; k++) {
        uint8_t seed[32];
        test_rand_bytes(seed, sizeof seed);
        synth_cfg cfg;
        synth_cfg_default(&cfg, key_constraints[k], seed);
        assert_int_equal(test_key_make(&keys[k], &cfg, "soak", k), CUZK_OK);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fault_disarm_all();
    for (int k = 0; k < KEYS; k++) test_key_free(&keys[k]);
    return 0;
}

/* A submitter: loads a key (sometimes with the subgroup check), submits a few partitions on
 * it, cancels some, releases the key at once (the jobs hold it), again and again. */
static void *submitter(void *arg)
{
    cycle *c = arg;
    uint64_t s = c->seed ^ (uint64_t)(uintptr_t)pthread_self();
    while (atomic_load(&c->next) < MAX_JOBS) {
        int k = (int)(splitmix(&s) % KEYS);
        cuzk_srs *srs;
        int rc = cuzk_srs_load(c->e, keys[k].path, splitmix(&s) % 8 == 0 ? CUZK_SRS_CHECK_SUBGROUP : 0, &srs);
        if (rc != CUZK_OK) {
            fprintf(stderr, "cuzk_srs_load: %d %s\n", rc, cuzk_last_error());
            abort();
        }
        atomic_fetch_add(&c->loads, 1);
        uint32_t burst = 1 + (uint32_t)(splitmix(&s) % 6);
        for (uint32_t b = 0; b < burst; b++) {
            uint32_t i = atomic_fetch_add(&c->next, 1);
            if (i >= MAX_JOBS || i >= c->per_thread * THREADS) {
                atomic_store(&c->next, MAX_JOBS);
                break;
            }
            tracked *t = &c->t[i];
            t->key = k;
            t->form = splitmix(&s) % 2 ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY;
            if (synth_partition(&keys[k].scfg, t->form, &t->p) != CUZK_OK) abort();
            t->rel = t->p.release;
            t->rel_user = t->p.release_user;
            t->p.release = tracked_release;
            t->p.release_user = t;
            t->p.user_tag = i;
            t->p.priority = (int32_t)(splitmix(&s) % 10) - 1; /* -1 and 8 are clamped */
            t->npub = t->p.num_inputs - 1;
            t->pub = malloc((t->npub ? t->npub : 1) * sizeof(cuzk_fr));
            if (!t->pub) abort();
            memcpy(t->pub, t->p.inputs + 1, t->npub * sizeof(cuzk_fr));
            atomic_store(&t->submitted, 1);
            for (;;) {
                rc = cuzk_submit_partition(c->e, srs, &t->p, &t->h);
                if (rc != CUZK_EAGAIN) break;
                usleep(200); /* the queue is full: the poller drains it */
            }
            if (rc != CUZK_OK) {
                fprintf(stderr, "cuzk_submit_partition: %d %s\n", rc, cuzk_last_error());
                abort();
            }
            atomic_fetch_add(&c->submitted, 1);
            if (splitmix(&s) % 6 == 0) {
                if (splitmix(&s) % 2) usleep((useconds_t)(splitmix(&s) % 500));
                rc = cuzk_cancel(c->e, t->h);
                /* OK; too late (finished, the result waits); or the result was polled
                 * already and the handle is stale (checked after the join) */
                if (rc == CUZK_ENOTFOUND) t->cancel_gone = 1;
                else if (rc != CUZK_OK && rc != CUZK_EAGAIN) {
                    fprintf(stderr, "cuzk_cancel: %d %s\n", rc, cuzk_last_error());
                    abort();
                }
                if (rc == CUZK_OK) {
                    t->canceled = 1;
                    atomic_fetch_add(&c->cancels, 1);
                }
            }
        }
        cuzk_srs_release(srs);
    }
    atomic_fetch_add(&c->done_threads, 1);
    return NULL;
}

static void check_result(cycle *c, const cuzk_result *r, uint64_t *ok, uint64_t *canceled, uint64_t *failed,
                         int faults)
{
    assert_true(r->user_tag < MAX_JOBS);
    tracked *t = &c->t[r->user_tag];
    assert_true(atomic_load(&t->submitted));
    assert_false(t->polled); /* one result per partition */
    t->polled = 1;
    t->result_job = r->job;
    t->status = r->status;
    assert_int_equal(atomic_load(&t->releases), 1); /* before the result is visible */
    if (r->status == CUZK_OK) {
        int v = cuzk_verify(keys[t->key].vk, keys[t->key].vk_len, r->proof, t->pub, t->npub, t->form);
        if (v != CUZK_OK) fail_msg("partition %llu (key %d) came back CUZK_OK but does not verify: %d",
                                   (unsigned long long)r->user_tag, t->key, v);
        (*ok)++;
    } else if (r->status == CUZK_ECANCELED) {
        (*canceled)++;
    } else {
        /* only injected faults may fail a partition */
        if (!faults || (r->status != CUZK_ENOMEM && r->status != CUZK_EVERIFY))
            fail_msg("partition %llu failed with %d", (unsigned long long)r->user_tag, r->status);
        (*failed)++;
    }
}

static void soak(void **state)
{
    (void)state;
    const char *env = getenv("CUZK_SOAK_SECONDS");
    double secs = env ? atof(env) : getenv("CUZK_TEST_QUICK") ? 6 : 20;
    const char *burst_env = getenv("CUZK_SOAK_BURST");
    uint32_t burst = burst_env && atoi(burst_env) > 4 ? (uint32_t)atoi(burst_env) : 44;
    if (burst > MAX_JOBS / THREADS) burst = MAX_JOBS / THREADS;
    uint64_t deadline = now_ns() + (uint64_t)(secs * 1e9);
    /* a loaded machine (valgrind beside other jobs) may end the time in cycles that proved
     * nothing (one destroyed early, one all canceled): more cycles, up to 4x the time, until
     * one proof verifies; an engine that proves nothing still fails */
    const uint64_t last_chance = now_ns() + (uint64_t)(4 * secs * 1e9);
    uint64_t cycles = 0, parts = 0, ok = 0, canceled = 0, failed = 0, loads = 0, cancels = 0, early = 0;
    uint64_t t0 = now_ns();
    while (cycles == 0 || now_ns() < deadline || (!ok && now_ns() < last_chance)) {
        cycle *c = calloc(1, sizeof *c);
        assert_non_null(c);
        c->t = calloc(MAX_JOBS, sizeof *c->t);
        assert_non_null(c->t);
        c->seed = test_rand64();
        c->per_thread = 4 + (uint32_t)(test_rand64() % (burst - 3));
        int faults = test_rand64() % 4 == 0;
        int retry = (int)(test_rand64() % 2);
        cuzk_config *cfg;
        assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
        assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_BACKEND, CUZK_BACKEND_CPU), CUZK_OK);
        assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_CPU_THREADS, 1 + (int64_t)(test_rand64() % 2)), CUZK_OK);
        assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_WORKERS_PER_DEVICE, 1 + (int64_t)(test_rand64() % 2)), CUZK_OK);
        assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_FINISHER_THREADS, 1 + (int64_t)(test_rand64() % 3)), CUZK_OK);
        assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_QUEUE_CAPACITY, 4 + (int64_t)(test_rand64() % 64)), CUZK_OK);
        assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_RETRY_ON_CPU, retry), CUZK_OK);
        assert_int_equal(cuzk_engine_create(cfg, &c->e), CUZK_OK);
        cuzk_config_free(cfg);
        if (faults) { /* from a random call on: some heap allocations fail, some results corrupt */
            if (test_rand64() % 2) fault_arm(FAULT_HEAP_ALLOC, 1 + test_rand64() % 50, 1 + test_rand64() % 5);
            else fault_arm(FAULT_MSM_CORRUPT, 1 + test_rand64() % 50, 1 + test_rand64() % 5);
        }
        pthread_t th[THREADS];
        for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_create(&th[i], NULL, submitter, c), 0);
        /* poll while they submit; one cycle in four destroys the engine with work in flight */
        int destroy_early = test_rand64() % 4 == 0;
        uint64_t polled = 0;
        for (;;) {
            int all_in = atomic_load(&c->done_threads) == THREADS;
            if (all_in && (polled == atomic_load(&c->submitted) || destroy_early)) break;
            cuzk_result r = {.struct_size = sizeof r};
            int rc = cuzk_poll_result(c->e, &r, 2000000);
            if (rc == CUZK_EAGAIN) continue;
            assert_int_equal(rc, CUZK_OK);
            check_result(c, &r, &ok, &canceled, &failed, faults);
            polled++;
        }
        for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
        cuzk_engine_destroy(c->e); /* running jobs finish; queued ones are canceled */
        fault_disarm_all();
        uint32_t n = atomic_load(&c->submitted);
        for (uint32_t i = 0; i < MAX_JOBS; i++) {
            tracked *t = &c->t[i];
            if (!atomic_load(&t->submitted)) {
                if (t->p.release) t->rel(t->rel_user); /* built, never accepted (not expected) */
                continue;
            }
            if (atomic_load(&t->releases) != 1)
                fail_msg("cycle %llu: partition %u released %d times", (unsigned long long)cycles, i,
                         atomic_load(&t->releases));
            if (t->polled) {
                assert_int_equal(t->result_job, t->h);
                /* an accepted cancel always ends in CUZK_ECANCELED (cuzk.h) */
                if (t->canceled && t->status != CUZK_ECANCELED)
                    fail_msg("partition %u: cancel accepted but the result is %d", i, t->status);
            } else {
                assert_true(destroy_early); /* only a destroy discards results */
            }
            if (t->cancel_gone && !t->polled)
                fail_msg("partition %u: cancel said not found before its result was polled", i);
            free(t->pub);
        }
        if (destroy_early) early++;
        parts += n;
        loads += atomic_load(&c->loads);
        cancels += atomic_load(&c->cancels);
        free(c->t);
        free(c);
        cycles++;
    }
    double el = (double)(now_ns() - t0) / 1e9;
    print_message("soak: %.1f s, %llu engines (%llu destroyed with work in flight), %llu key loads, "
                  "%llu partitions: %llu proofs verified, %llu canceled (%llu cancel calls accepted), "
                  "%llu failed by injected faults, %llu unpolled at destroy\n",
                  el, (unsigned long long)cycles, (unsigned long long)early, (unsigned long long)loads,
                  (unsigned long long)parts, (unsigned long long)ok, (unsigned long long)canceled,
                  (unsigned long long)cancels, (unsigned long long)failed,
                  (unsigned long long)(parts - ok - canceled - failed));
    assert_true(ok > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(soak),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
