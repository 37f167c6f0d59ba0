/* The CPU backend's proving path takes its working memory from the partition's mimalloc heap,
 * not from the C heap: the library's references to malloc & co. are wrapped at link time
 * (Makefile: --wrap) and counted while the engine proves; no block of 64 KiB or more may come
 * from them. Oracle for the counter itself: the standalone prover, which uses malloc. */
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
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "ntt/ntt_cpu.h"
#include "support/testengine.h"
#include "support/testkey.h"
#include "support/testutil.h"

#define BIG ((size_t)64 << 10)

static _Atomic int counting;
static _Atomic uint64_t big_calls, big_max;
static void *_Atomic big_caller; /* return address of the first big call */

static void note(size_t bytes, void *caller)
{
    if (!atomic_load_explicit(&counting, memory_order_relaxed) || bytes < BIG) return;
    if (atomic_fetch_add(&big_calls, 1) == 0) atomic_store(&big_caller, caller);
    uint64_t m = atomic_load(&big_max);
    while (bytes > m && !atomic_compare_exchange_weak(&big_max, &m, bytes)) {
    }
}

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void *__real_aligned_alloc(size_t, size_t);
int __real_posix_memalign(void **, size_t, size_t);

void *__wrap_malloc(size_t n)
{
    note(n, __builtin_return_address(0));
    return __real_malloc(n);
}
void *__wrap_calloc(size_t a, size_t b)
{
    note(a * b, __builtin_return_address(0));
    return __real_calloc(a, b);
}
void *__wrap_realloc(void *p, size_t n)
{
    note(n, __builtin_return_address(0));
    return __real_realloc(p, n);
}
void *__wrap_aligned_alloc(size_t al, size_t n)
{
    note(n, __builtin_return_address(0));
    return __real_aligned_alloc(al, n);
}
int __wrap_posix_memalign(void **p, size_t al, size_t n)
{
    note(n, __builtin_return_address(0));
    return __real_posix_memalign(p, al, n);
}

static void count_start(void)
{
    atomic_store(&big_calls, 0);
    atomic_store(&big_max, 0);
    atomic_store(&big_caller, NULL);
    atomic_store(&counting, 1);
}

static void count_stop(void) { atomic_store(&counting, 0); }

#define LOG_M 12 /* 2^12: every H vector, scalar copy and MSM's digits is above 64 KiB */

static test_key key;

static int setup(void **state)
{
    (void)state;
    uint8_t seed[32];
    synth_cfg cfg;
    test_seed();
    /* NTT twiddle tables above 2^11 built per call, as PoRep's 2^27 ones are (the process
     * keeps those up to 2^20): the H step must take them from the partition's heap too */
    ntt_cpu_set_cache_limit(LOG_M - 1);
    test_rand_bytes(seed, sizeof seed);
    synth_cfg_for_domain(&cfg, LOG_M, seed);
    assert_int_equal(test_key_make(&key, &cfg, "prove-alloc", -1), CUZK_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_key_free(&key);
    return 0;
}

/* The counter sees the library's malloc: the standalone H step and MSMs use it. */
static void counter_sees_standalone_prover(void **state)
{
    (void)state;
    cuzk_partition p;
    assert_int_equal(synth_partition(&key.scfg, CUZK_FR_MONTGOMERY, &p), CUZK_OK);
    fr_t *h = malloc(((size_t)1 << LOG_M) * sizeof *h);
    assert_non_null(h);
    count_start();
    assert_int_equal(groth16_compute_h(h, &p, LOG_M, NULL), CUZK_OK);
    groth16_msm_out out;
    assert_int_equal(groth16_msms_cpu(&out, key.pk, &p, h, NULL), CUZK_OK);
    count_stop();
    printf("standalone prover: %llu blocks >= 64 KiB from malloc, largest %llu bytes\n",
           (unsigned long long)big_calls, (unsigned long long)big_max);
    assert_true(big_calls >= 3); /* x and y of the H step, the MSM digits at least */
    free(h);
    p.release(p.release_user);
}

static cuzk_result prove_one(cuzk_engine *e, cuzk_srs *srs, cuzk_partition p, uint64_t tag)
{
    p.user_tag = tag;
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, srs, &p, &h), CUZK_OK);
    cuzk_result r = {.struct_size = sizeof r};
    assert_int_equal(cuzk_poll_result(e, &r, 120 * 1000000000ll), CUZK_OK);
    return r;
}

/* The engine's CPU path: everything large comes from the partition's heap. */
static void engine_prove_path_leaves_malloc_alone(void **state)
{
    (void)state;
    cuzk_engine *e = TEST_ENGINE({CUZK_OPT_BACKEND, CUZK_BACKEND_CPU}, {CUZK_OPT_CPU_THREADS, 2});
    assert_non_null(e);
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_OK);
    /* Once first: process-lifetime tables (NTT twiddles up to 2^20) are built on first use. */
    cuzk_partition p;
    assert_int_equal(synth_partition(&key.scfg, CUZK_FR_MONTGOMERY, &p), CUZK_OK);
    cuzk_result r = prove_one(e, srs, p, 1);
    assert_int_equal(r.status, CUZK_OK);
    for (int form = 0; form < 2; form++) { /* Montgomery copies aux to canonical; canonical borrows it */
        int32_t f = form ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY;
        assert_int_equal(synth_partition(&key.scfg, f, &p), CUZK_OK); /* its buffers: not counted */
        count_start();
        r = prove_one(e, srs, p, 2 + (uint64_t)form);
        count_stop();
        assert_int_equal(r.status, CUZK_OK); /* verified by the engine (VERIFY is on) */
        if (big_calls) {
            void *caller = atomic_load(&big_caller);
            fail_msg("%s form: %llu blocks >= 64 KiB from the C heap while the engine proved "
                     "(largest %llu bytes; first called from %p: addr2line -e build/test/test_prove_alloc)",
                     form ? "canonical" : "Montgomery", (unsigned long long)big_calls,
                     (unsigned long long)big_max, caller);
        }
    }
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counter_sees_standalone_prover),
        cmocka_unit_test(engine_prove_path_leaves_malloc_alone),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
