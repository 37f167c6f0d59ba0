/*
 * The GPU NTT (kernels/ntt.h) against the CPU NTT (lib/ntt/ntt_cpu.h) on fresh random inputs:
 * every size 2^1..2^22, forward/inverse, with and without coset, all four input/output
 * orders; round trips at 2^26; two transforms in flight on two streams; bad arguments.
 * Exits 77 without a CUDA device.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "gpu_testutil.h"
#include "support/gputest.h"
#include "ntt.h"
#include "ntt/ntt_cpu.h"
#include "threadpool.h"

static threadpool *tp;

static unsigned max_log(void)
{
    /* to 2^16 when quick, and on the simulated device (its transform is the CPU's, checked
     * against itself: the sizes are the GPU's business) */
    const char *q = getenv("CUZK_TEST_QUICK");
    return GPU_TEST_SIMULATED || (q && *q && *q != '0') ? 16 : 22;
}

/* The CPU result of one (direction, coset) on natural-order x. */
static void cpu_transform(fr_t *y, const fr_t *x, unsigned L, int inverse, int coset)
{
    memcpy(y, x, sizeof(fr_t) << L);
    if (!inverse) (coset ? ntt_coset_forward : ntt_forward)(y, L, tp);
    else (coset ? ntt_coset_inverse : ntt_inverse)(y, L, tp);
}

static void test_all_sizes_and_variants(void **state)
{
    (void)state;
    const unsigned maxl = max_log();
    const uint64_t nmax = 1ull << maxl;
    fr_t *x = malloc(nmax * sizeof(fr_t)), *want = malloc(nmax * sizeof(fr_t));
    fr_t *in = malloc(nmax * sizeof(fr_t)), *got = malloc(nmax * sizeof(fr_t));
    fr_t *want_o = malloc(nmax * sizeof(fr_t));
    void *d;
    assert_non_null(x && want && in && got && want_o);
    assert_int_equal(gpu_malloc(&d, nmax * sizeof(fr_t)), 0);
    static const char *oname[] = {"N", "R"};
    int failures = 0;
    for (unsigned L = 1; L <= maxl; L++) {
        const uint64_t n = 1ull << L;
        rand_fr_vec(x, n);
        for (int inverse = 0; inverse < 2; inverse++)
            for (int coset = 0; coset < 2; coset++) {
                cpu_transform(want, x, L, inverse, coset);
                for (int oi = 0; oi < 2; oi++)
                    for (int oo = 0; oo < 2; oo++) {
                        if (oi) ref_permute(in, x, L);
                        else memcpy(in, x, n * sizeof(fr_t));
                        if (oo) ref_permute(want_o, want, L);
                        else memcpy(want_o, want, n * sizeof(fr_t));
                        assert_int_equal(gpu_memcpy_to_device(d, in, n * sizeof(fr_t)), 0);
                        int rc = gpu_ntt(d, L, inverse ? GPU_NTT_INVERSE : GPU_NTT_FORWARD, coset, oi, oo, NULL);
                        if (rc) fprintf(stderr, "gpu_ntt: %s\n", cuzk_last_error());
                        assert_int_equal(rc, 0);
                        assert_int_equal(gpu_memcpy_to_host(got, d, n * sizeof(fr_t)), 0);
                        char what[96];
                        snprintf(what, sizeof what, "2^%u %s%s %s->%s", L, inverse ? "inverse" : "forward",
                                 coset ? " coset" : "", oname[oi], oname[oo]);
                        if (fr_vec_diff(what, got, want_o, n) >= 0) failures++;
                    }
            }
        if (L % 4 == 0 || L == maxl) printf("2^%u: 16 variants checked\n", L);
    }
    gpu_free(d);
    free(x), free(want), free(in), free(got), free(want_o);
    assert_int_equal(failures, 0);
}

/* Forward then inverse (plain and coset, both order pairs) gives the input back; the
 * forward result differs from the input. */
static void test_round_trips_large(void **state)
{
    (void)state;
    const unsigned L = max_log() == 22 ? 26 : 18;
    const uint64_t n = 1ull << L;
    fr_t *x = malloc(n * sizeof(fr_t)), *y = malloc(n * sizeof(fr_t));
    void *d;
    assert_non_null(x && y);
    rand_fr_vec(x, n);
    assert_int_equal(gpu_malloc(&d, n * sizeof(fr_t)), 0);
    for (int coset = 0; coset < 2; coset++)
        for (int pair = 0; pair < 2; pair++) {
            /* pair 0: forward N->R, inverse R->N; pair 1: forward N->N, inverse N->N */
            int fo = pair ? GPU_NTT_NATURAL : GPU_NTT_BITREV;
            assert_int_equal(gpu_memcpy_to_device(d, x, n * sizeof(fr_t)), 0);
            assert_int_equal(gpu_ntt(d, L, GPU_NTT_FORWARD, coset, GPU_NTT_NATURAL, fo, NULL), 0);
            assert_int_equal(gpu_memcpy_to_host(y, d, n * sizeof(fr_t)), 0);
            size_t same = 0;
            for (uint64_t i = 0; i < n; i += 4099) same += !memcmp(&x[i], &y[i], sizeof x[i]);
            assert_true(same < 8);
            assert_int_equal(gpu_ntt(d, L, GPU_NTT_INVERSE, coset, fo, GPU_NTT_NATURAL, NULL), 0);
            assert_int_equal(gpu_memcpy_to_host(y, d, n * sizeof(fr_t)), 0);
            char what[64];
            snprintf(what, sizeof what, "round trip 2^%u coset=%d pair=%d", L, coset, pair);
            assert_true(fr_vec_diff(what, y, x, n) < 0);
        }
    printf("round trips at 2^%u ok\n", L);
    gpu_free(d);
    free(x), free(y);
}

/* Two transforms in flight on two streams give the same results as the CPU. */
static void test_two_streams(void **state)
{
    (void)state;
    const unsigned L = 18;
    const uint64_t n = 1ull << L;
    fr_t *x[2], *want[2], *got = malloc(n * sizeof(fr_t));
    void *d[2], *s[2];
    for (int k = 0; k < 2; k++) {
        x[k] = malloc(n * sizeof(fr_t)), want[k] = malloc(n * sizeof(fr_t));
        assert_non_null(x[k] && want[k]);
        rand_fr_vec(x[k], n);
        cpu_transform(want[k], x[k], L, k, k);
        assert_int_equal(gpu_malloc(&d[k], n * sizeof(fr_t)), 0);
        assert_int_equal(gpu_stream_create(&s[k]), 0);
        assert_int_equal(gpu_memcpy_to_device(d[k], x[k], n * sizeof(fr_t)), 0);
    }
    for (int rep = 0; rep < 1; rep++)
        for (int k = 0; k < 2; k++)
            assert_int_equal(gpu_ntt(d[k], L, k, k, GPU_NTT_NATURAL, GPU_NTT_NATURAL, s[k]), 0);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(gpu_stream_sync(s[k]), 0);
        assert_int_equal(gpu_memcpy_to_host(got, d[k], n * sizeof(fr_t)), 0);
        assert_true(fr_vec_diff("two streams", got, want[k], n) < 0);
        gpu_stream_destroy(s[k]);
        gpu_free(d[k]);
        free(x[k]), free(want[k]);
    }
    free(got);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    void *d;
    assert_int_equal(gpu_malloc(&d, 64 * sizeof(fr_t)), 0);
    assert_int_equal(gpu_ntt(d, 0, GPU_NTT_FORWARD, 0, 0, 0, NULL), CUZK_EINVAL);
    assert_int_equal(gpu_ntt(d, 29, GPU_NTT_FORWARD, 0, 0, 0, NULL), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "2^29"));
    assert_int_equal(gpu_ntt(NULL, 4, GPU_NTT_FORWARD, 0, 0, 0, NULL), CUZK_EINVAL);
    assert_int_equal(gpu_ntt(d, 4, 7, 0, 0, 0, NULL), CUZK_EINVAL);
    assert_int_equal(gpu_h_step(d, d, d, 4, NULL), CUZK_EINVAL);
    gpu_free(d);
}

int main(void)
{
    if (gpu_test_begin()) return 77;
    tp = threadpool_create(0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_all_sizes_and_variants),
        cmocka_unit_test(test_two_streams),
        cmocka_unit_test(test_round_trips_large),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    threadpool_destroy(tp);
    return rc;
}
