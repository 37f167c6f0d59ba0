/* Fault injection (lib/fault.h) through the public API on the CPU backend: for each injected
 * fault the call or the partition fails with its own error, the release callback runs once,
 * nothing leaks (ASan/LSan in CI's second pass), the engine proves the next partition, and
 * no proof that comes back CUZK_OK fails cuzk_verify (the independent check of every proof).
 * Allocation failures are walked over every allocation of a small prove. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "engine/engine.h"
#include "fault.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "support/testkey.h"
#include "support/testutil.h"

static test_key key;

static int setup(void **state)
{
    (void)state;
    /* a domain of 2^6: each prove takes milliseconds */
    assert_int_equal(test_key_random(&key, 40, "faults"), CUZK_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_key_free(&key);
    fault_disarm_all();
    return 0;
}

static cuzk_engine *engine_with(int verify, int retry)
{
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_BACKEND, CUZK_BACKEND_CPU), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_VERIFY, verify), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_CPU_THREADS, 2), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_RETRY_ON_CPU, retry), CUZK_OK);
    cuzk_engine *e;
    assert_int_equal(cuzk_engine_create(cfg, &e), CUZK_OK);
    cuzk_config_free(cfg);
    return e;
}

/* A partition whose release is counted (the real release runs once, on the first call). */
typedef struct tracked {
    cuzk_partition p;
    void (*rel)(void *);
    void *rel_user;
    _Atomic int releases;
    cuzk_fr pub[1024];  /* the public inputs, kept past release */
    uint64_t npub;
} tracked;

static void tracked_release(void *u)
{
    tracked *t = u;
    if (atomic_fetch_add(&t->releases, 1) == 0) t->rel(t->rel_user);
}

static void tracked_make(tracked *t, int32_t form)
{
    memset(t, 0, sizeof *t);
    assert_int_equal(synth_partition(&key.scfg, form, &t->p), CUZK_OK);
    t->rel = t->p.release;
    t->rel_user = t->p.release_user;
    t->p.release = tracked_release;
    t->p.release_user = t;
    t->npub = t->p.num_inputs - 1;
    assert_true(t->npub <= 1024);
    memcpy(t->pub, t->p.inputs + 1, t->npub * sizeof(cuzk_fr));
}

/* Every CUZK_OK proof must verify on its own, whatever was injected. */
static void check_result(const tracked *t, const cuzk_result *r)
{
    assert_int_equal(atomic_load(&((tracked *)t)->releases), 1);
    if (r->status == CUZK_OK)
        assert_int_equal(cuzk_verify(key.vk, key.vk_len, r->proof, t->pub, t->npub, t->p.scalar_form), CUZK_OK);
}

static cuzk_result prove1(cuzk_engine *e, cuzk_srs *srs, int32_t form)
{
    tracked *t = malloc(sizeof *t);
    assert_non_null(t);
    tracked_make(t, form);
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, srs, &t->p, &h), CUZK_OK);
    cuzk_result r = {.struct_size = sizeof r};
    assert_int_equal(cuzk_poll_result(e, &r, 60 * 1000000000ll), CUZK_OK);
    assert_int_equal(r.job, h);
    check_result(t, &r);
    free(t);
    return r;
}

static void next_one_proves(cuzk_engine *e, cuzk_srs *srs)
{
    fault_disarm_all();
    cuzk_result r = prove1(e, srs, CUZK_FR_MONTGOMERY);
    assert_int_equal(r.status, CUZK_OK);
}

/* The N-th allocation from a partition heap fails, for every N until a prove makes fewer
 * (under CUZK_TEST_QUICK, every N up to 64, then every 7th: the sanitizers are slow). */
static void heap_alloc_every_nth(void **state)
{
    (void)state;
    cuzk_engine *e = engine_with(1, 0);
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_OK);
    uint64_t n, failures = 0, recovered = 0, step = getenv("CUZK_TEST_QUICK") ? 7 : 1;
    for (n = 1; n < 100000; n += n < 64 ? 1 : step) {
        fault_arm(FAULT_HEAP_ALLOC, n, 1);
        cuzk_result r = prove1(e, srs, n % 2 ? CUZK_FR_MONTGOMERY : CUZK_FR_CANONICAL);
        uint64_t hits = fault_hits(FAULT_HEAP_ALLOC);
        fault_disarm_all();
        if (!hits) { /* the prove made fewer than n allocations: all walked */
            assert_int_equal(r.status, CUZK_OK);
            break;
        }
        assert_int_equal(hits, 1);
        /* a failed working allocation is CUZK_ENOMEM, or the prover found another way (an
         * MSM with less scratch) and the proof verified (prove1 checks): never a wrong proof */
        if (r.status == CUZK_OK) recovered++;
        else {
            assert_int_equal(r.status, CUZK_ENOMEM);
            failures++;
            print_message("allocation %llu failed: CUZK_ENOMEM\n", (unsigned long long)n);
        }
        if (r.status != CUZK_OK || n % 32 == 0) next_one_proves(e, srs); /* nothing stuck */
    }
    print_message("heap allocations per prove: about %llu; failing one (step %llu): %llu ended "
                  "CUZK_ENOMEM, %llu proved anyway\n", (unsigned long long)(n - 1),
                  (unsigned long long)step, (unsigned long long)failures, (unsigned long long)recovered);
    assert_true(failures >= 1); /* the site is on the prover's path */
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_int_equal(st.failed, failures);
    assert_int_equal(st.host_reserved_bytes, 0); /* budgets given back on every failure */
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
}

static void heap_new_fails(void **state)
{
    (void)state;
    cuzk_engine *e = engine_with(1, 0);
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_OK);
    fault_arm(FAULT_HEAP_NEW, 1, 1);
    cuzk_result r = prove1(e, srs, CUZK_FR_CANONICAL);
    assert_int_equal(fault_hits(FAULT_HEAP_NEW), 1);
    assert_int_equal(r.status, CUZK_ENOMEM);
    assert_true(r.detail[0] != '\0'); /* the worker's reason, carried with the result */
    print_message("detail: %s\n", r.detail);
    next_one_proves(e, srs);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
}

static void host_alloc_fails(void **state)
{
    (void)state;
    cuzk_engine *e = engine_with(1, 0);
    void *p = NULL, *q = NULL;
    size_t sizes[] = {64, (size_t)4 << 20}; /* the aligned_alloc and mmap paths */
    for (size_t i = 0; i < 2; i++) {
        fault_arm(FAULT_HOST_ALLOC, 1, 1);
        assert_int_equal(cuzk_host_alloc(e, sizes[i], &p), CUZK_ENOMEM);
        assert_null(p);
        assert_non_null(strstr(cuzk_last_error(), "injected"));
        cuzk_stats st = {.struct_size = sizeof st};
        assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
        assert_int_equal(st.host_reserved_bytes, 0); /* the reservation was given back */
        assert_int_equal(st.host_alloc_bytes, 0);
        /* the second call is not injected */
        assert_int_equal(cuzk_host_alloc(e, sizes[i], &q), CUZK_OK);
        memset(q, 0xa5, sizes[i]);
        cuzk_host_free(e, q);
    }
    fault_disarm_all();
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_OK);
    next_one_proves(e, srs);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
}

static void key_load_fails(void **state)
{
    (void)state;
    cuzk_engine *e = engine_with(1, 0);
    cuzk_srs *srs = (cuzk_srs *)1;
    fault_arm(FAULT_KEY_LOAD, 1, 1);
    assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_EIO);
    assert_null(srs);
    assert_non_null(strstr(cuzk_last_error(), "injected"));
    assert_non_null(strstr(cuzk_last_error(), key.path));
    assert_int_equal(cuzk_srs_load(e, key.path, CUZK_SRS_CHECK_SUBGROUP, &srs), CUZK_OK);
    next_one_proves(e, srs);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
}

/* A corrupted MSM output: the self-check catches it (CUZK_EVERIFY); with VERIFY off the
 * same corruption comes back as CUZK_OK and cuzk_verify refuses it — so the check, not luck,
 * is what keeps it from the host. */
static void msm_corruption_is_caught(void **state)
{
    (void)state;
    for (int verify = 1; verify >= 0; verify--) {
        cuzk_engine *e = engine_with(verify, 0);
        cuzk_srs *srs;
        assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_OK);
        fault_arm(FAULT_MSM_CORRUPT, 1, 1);
        tracked *t = malloc(sizeof *t);
        assert_non_null(t);
        tracked_make(t, CUZK_FR_CANONICAL);
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(e, srs, &t->p, &h), CUZK_OK);
        cuzk_result r = {.struct_size = sizeof r};
        assert_int_equal(cuzk_poll_result(e, &r, 60 * 1000000000ll), CUZK_OK);
        assert_int_equal(fault_hits(FAULT_MSM_CORRUPT), 1);
        assert_int_equal(atomic_load(&t->releases), 1);
        if (verify) {
            assert_int_equal(r.status, CUZK_EVERIFY);
        } else {
            assert_int_equal(r.status, CUZK_OK);
            assert_int_equal(cuzk_verify(key.vk, key.vk_len, r.proof, t->pub, t->npub, t->p.scalar_form),
                             CUZK_EVERIFY); /* it decodes, it is just wrong */
        }
        free(t);
        cuzk_stats st = {.struct_size = sizeof st};
        assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
        assert_int_equal(st.verify_failed, verify ? 1 : 0);
        next_one_proves(e, srs);
        cuzk_srs_release(srs);
        cuzk_engine_destroy(e);
    }
}

/* Many partitions in flight while allocations fail and results are corrupted at random
 * (seeded): every partition ends, releases once, and every CUZK_OK proof verifies. */
static void random_faults_in_flight(void **state)
{
    (void)state;
    cuzk_engine *e = engine_with(1, 0);
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_OK);
    enum { N = 48 };
    tracked *t = calloc(N, sizeof *t);
    assert_non_null(t);
    int ok = 0, bad = 0;
    for (int round = 0; round < 3; round++) {
        /* round 0: every heap allocation fails from a random one on; round 1: N/2 results
         * corrupted from a random one on; round 2: no fault */
        fault_disarm_all();
        if (round == 0) fault_arm(FAULT_HEAP_ALLOC, 1 + test_rand64() % 4, 0);
        if (round == 1) fault_arm(FAULT_MSM_CORRUPT, 1 + test_rand64() % 3, N / 2);
        cuzk_job h[N];
        for (int i = 0; i < N; i++) {
            tracked_make(&t[i], i % 2 ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY);
            t[i].p.user_tag = (uint64_t)i;
            t[i].p.priority = (int32_t)(test_rand64() % 4);
            assert_int_equal(cuzk_submit_partition(e, srs, &t[i].p, &h[i]), CUZK_OK);
        }
        for (int k = 0; k < N; k++) {
            cuzk_result r = {.struct_size = sizeof r};
            assert_int_equal(cuzk_poll_result(e, &r, 60 * 1000000000ll), CUZK_OK);
            assert_true(r.user_tag < N);
            check_result(&t[r.user_tag], &r);
            if (r.status == CUZK_OK) ok++;
            else {
                assert_true(r.status == CUZK_ENOMEM || r.status == CUZK_EVERIFY);
                if (round == 2) fail_msg("round 2 has no faults but got %d", r.status);
                bad++;
            }
        }
    }
    fault_disarm_all();
    print_message("%d proofs ok, %d failed by injection\n", ok, bad);
    assert_true(bad >= N / 2 && ok >= N);
    free(t);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
}

static uint64_t retries(cuzk_engine *e) { return atomic_load(&e->retried.v); }

/* CUZK_OPT_RETRY_ON_CPU on the CPU backend (the path a GPU failure takes, testable without
 * one): a corrupted result is proven again once; a second failure is the result; errors
 * outside the retried set (ENOMEM) are not retried; a failure inside the retry cleans up. */
static void retry_on_cpu_policy(void **state)
{
    (void)state;
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_RETRY_ON_CPU, 2), CUZK_EINVAL);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_RETRY_ON_CPU, -1), CUZK_EINVAL);
    int64_t v = -1;
    assert_int_equal(cuzk_config_get(cfg, CUZK_OPT_RETRY_ON_CPU, &v), CUZK_OK);
    assert_int_equal(v, 0); /* off by default */
    cuzk_config_free(cfg);

    cuzk_engine *e = engine_with(1, 1);
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_OK);
    /* 1. corrupted once: the retry's proof comes back, and it verifies (prove1 checks) */
    fault_arm(FAULT_MSM_CORRUPT, 1, 1);
    cuzk_result r = prove1(e, srs, CUZK_FR_CANONICAL);
    assert_int_equal(r.status, CUZK_OK);
    assert_int_equal(r.device, -1);
    assert_int_equal(fault_calls(FAULT_MSM_CORRUPT), 2); /* two passes through the check */
    assert_int_equal(fault_hits(FAULT_MSM_CORRUPT), 1);
    assert_int_equal(retries(e), 1);
    /* 2. corrupted twice: once only, then the failure stands */
    fault_arm(FAULT_MSM_CORRUPT, 1, 2);
    r = prove1(e, srs, CUZK_FR_MONTGOMERY);
    assert_int_equal(r.status, CUZK_EVERIFY);
    assert_int_equal(fault_calls(FAULT_MSM_CORRUPT), 2);
    assert_int_equal(retries(e), 2);
    /* 3. out of working memory is not retried */
    fault_disarm_all();
    fault_arm(FAULT_HEAP_ALLOC, 1, 1);
    r = prove1(e, srs, CUZK_FR_MONTGOMERY);
    assert_int_equal(r.status, CUZK_ENOMEM);
    assert_int_equal(retries(e), 2);
    /* 4. the retry itself runs out of memory: its error is the result, its heap is gone.
     * Count one prove's heap allocations (armed, never hit), then fail all after those. */
    fault_disarm_all();
    fault_arm(FAULT_HEAP_ALLOC, UINT64_MAX, 0);
    r = prove1(e, srs, CUZK_FR_CANONICAL);
    assert_int_equal(r.status, CUZK_OK);
    uint64_t per_prove = fault_calls(FAULT_HEAP_ALLOC);
    assert_true(per_prove >= 1);
    fault_arm(FAULT_MSM_CORRUPT, 1, 1);
    fault_arm(FAULT_HEAP_ALLOC, per_prove + 1, 0);
    r = prove1(e, srs, CUZK_FR_CANONICAL);
    assert_true(fault_hits(FAULT_HEAP_ALLOC) >= 1);
    assert_int_equal(r.status, CUZK_ENOMEM);
    assert_int_equal(retries(e), 3);
    /* 5. a witness that does not satisfy the circuit fails twice, released once */
    fault_disarm_all();
    tracked *t = malloc(sizeof *t);
    assert_non_null(t);
    tracked_make(t, CUZK_FR_CANONICAL);
    ((cuzk_fr *)t->p.aux)[3].l[0] ^= 1;
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, srs, &t->p, &h), CUZK_OK);
    r = (cuzk_result){.struct_size = sizeof r};
    assert_int_equal(cuzk_poll_result(e, &r, 60 * 1000000000ll), CUZK_OK);
    assert_int_equal(r.status, CUZK_EVERIFY);
    assert_int_equal(atomic_load(&t->releases), 1);
    assert_int_equal(retries(e), 4);
    free(t);
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_int_equal(st.host_reserved_bytes, 0); /* the retries' reservations given back */
    next_one_proves(e, srs);
    assert_int_equal(retries(e), 4);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);

    /* without the option the same corruption is the result */
    e = engine_with(1, 0);
    assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_OK);
    fault_arm(FAULT_MSM_CORRUPT, 1, 1);
    r = prove1(e, srs, CUZK_FR_CANONICAL);
    assert_int_equal(r.status, CUZK_EVERIFY);
    assert_int_equal(retries(e), 0);
    fault_disarm_all();
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
}

/* The hold site (FAULT_CUDA_HOLD's mechanism): a thread that hits it waits until released,
 * is counted first, and only the armed calls hold. */
static atomic_int held_done;
static void *hold_thread(void *arg)
{
    (void)arg;
    if (FAULT_HIT(FAULT_CUDA_HOLD)) fault_hold_wait();
    atomic_store(&held_done, 1);
    return NULL;
}

static void hold_until_released(void **state)
{
    (void)state;
    atomic_store(&held_done, 0);
    fault_arm(FAULT_CUDA_HOLD, 1, 1);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, hold_thread, NULL), 0);
    for (int i = 0; i < 10000 && fault_hits(FAULT_CUDA_HOLD) < 1; i++) usleep(1000);
    assert_int_equal(fault_hits(FAULT_CUDA_HOLD), 1);
    usleep(20000);
    assert_int_equal(atomic_load(&held_done), 0); /* still waiting */
    fault_hold_release();
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(atomic_load(&held_done), 1);
    /* the second call is past the armed one: it goes through */
    atomic_store(&held_done, 0);
    hold_thread(NULL);
    assert_int_equal(atomic_load(&held_done), 1);
    assert_int_equal(fault_calls(FAULT_CUDA_HOLD), 2);
    fault_disarm_all();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heap_alloc_every_nth),
        cmocka_unit_test(heap_new_fails),
        cmocka_unit_test(host_alloc_fails),
        cmocka_unit_test(key_load_fails),
        cmocka_unit_test(msm_corruption_is_caught),
        cmocka_unit_test(random_faults_in_flight),
        cmocka_unit_test(retry_on_cpu_policy),
        cmocka_unit_test(hold_until_released),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
