/*
 * The CUDA MSM (kernels/msm.h) against the CPU MSM (lib/msm/msm_cpu.h) on fresh random inputs:
 * sizes 1, 2, 3, 2^k and 2^k ± 1 up to 2^20 in G1 and G2, edge cases (zero, one, r - 1, mixed
 * scalars; repeated, opposite and infinite bases), scalars on the device, two contexts at once,
 * at 2^24 against one scalar multiplication (bases of known logarithm), the affine and
 * pairwise bucket accumulations (their own cases; CUZK_MSM_ACC=affine or pairwise runs every
 * case through one) and both bucket reductions (CUZK_MSM_REDUCE=0 runs every other case
 * through the old one). Exits 77 without a CUDA device.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "msm.h"
#include "msm/msm_cpu.h"
#include "support/gputest.h"
#include "support/mixjob.h"
#include "support/fieldtest.h"
#include "support/testutil.h"

static threadpool *tp;
static msm_gpu_ctx *ctx;
/* test_precompute: every base vector the cases make gets this many shifted copies (window
 * pre_window, 0 = chosen for its size), and the context is forced onto them */
static unsigned pre_copies, pre_window;

static void with_copies(msm_gpu_bases *gb)
{
    if (pre_copies < 2) return;
    int rc = msm_gpu_bases_precompute(gb, pre_copies, pre_window);
    if (rc) printf("precompute: %s\n", cuzk_last_error());
    assert_int_equal(rc, 0);
    unsigned c = 0;
    assert_int_equal(msm_gpu_bases_copies(gb, &c), pre_copies);
    assert_true(c >= 4);
}

static const fr_t R_MINUS_1 = {{0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                0x73eda753299d7d48ull}};

static void rand_canonical(fr_t *k)
{
    do {
        for (int i = 0; i < 4; i++) k->l[i] = test_rand64();
        k->l[3] &= 0x7fffffffffffffffull;
    } while (!fr_is_canonical(k));
}

enum { S_RANDOM, S_ZERO, S_ONE, S_MIXED, S_RMINUS1, S_BITS };

static void make_scalar(fr_t *k, int kind)
{
    memset(k, 0, sizeof *k);
    switch (kind) {
    case S_RANDOM: rand_canonical(k); break;
    case S_ZERO: break;
    case S_ONE: k->l[0] = 1; break;
    case S_RMINUS1: *k = R_MINUS_1; break;
    case S_BITS: /* the PoRep shape: 90 % zeros and ones */
        if (test_rand64() % 10) k->l[0] = test_rand64() & 1;
        else rand_canonical(k);
        break;
    default: /* mixed: bits, small values, full width, r - 1 */
        switch (test_rand64() % 6) {
        case 0: break;
        case 1: k->l[0] = 1; break;
        case 2: k->l[0] = test_rand64() & 0xffff; break;
        case 3: *k = R_MINUS_1; break;
        case 4: k->l[0] = test_rand64(); break;
        default: rand_canonical(k);
        }
    }
}

/* Scalars handed to the GPU: canonical as they are, or converted to Montgomery form. */
static fr_t *gpu_form(const fr_t *k, size_t n, int form)
{
    fr_t *g = malloc((n ? n : 1) * sizeof *g);
    assert_non_null(g);
    for (size_t i = 0; i < n; i++) {
        if (form == CUZK_FR_CANONICAL) g[i] = k[i];
        else assert_true(fr_to_mont(&g[i], &k[i]));
    }
    return g;
}

/* GPU MSM of bases (resident) against the CPU MSM of the same host copy. */
static void check(int curve, const msm_gpu_bases *gb, const void *host_bases, const fr_t *k, size_t n,
                  int where, const char *what)
{
    int form = (int)(test_rand64() & 1);
    fr_t *g = gpu_form(k, n, form);
    void *dev = NULL;
    const void *sc = g;
    if (where == MSM_SCALARS_DEVICE && n) {
        assert_int_equal(gpu_malloc(&dev, n * sizeof *g), 0);
        assert_int_equal(gpu_memcpy_to_device(dev, g, n * sizeof *g), 0);
        sc = dev;
    }
    int ok;
    if (curve == MSM_CURVE_G1) {
        g1_jac want, got;
        msm_g1(&want, host_bases, k, n, tp);
        int rc = msm_gpu_run(ctx, gb, 0, sc, n, form, where, &got);
        if (rc) printf("msm_gpu_run: %s\n", cuzk_last_error());
        assert_int_equal(rc, 0);
        ok = g1_jac_eq(&want, &got);
    } else {
        g2_jac want, got;
        msm_g2(&want, host_bases, k, n, tp);
        int rc = msm_gpu_run(ctx, gb, 0, sc, n, form, where, &got);
        if (rc) printf("msm_gpu_run: %s\n", cuzk_last_error());
        assert_int_equal(rc, 0);
        ok = g2_jac_eq(&want, &got);
    }
    msm_gpu_stats st;
    msm_gpu_last_stats(ctx, &st);
    if (!ok)
        printf("MISMATCH %s: G%d n=%zu form=%d where=%d window=%u groups=%u copies=%u zero=%llu one=%llu rest=%llu\n",
               what, curve, n, form, where, st.window_bits, st.window_groups, st.copies, (unsigned long long)st.n_zero,
               (unsigned long long)st.n_one, (unsigned long long)st.n_rest);
    assert_true(ok);
    /* forced onto the copies: every run with scalars other than 0 and 1 summed over them */
    if (pre_copies > 1 && st.n_rest) assert_int_equal(st.copies, pre_copies);
    if (dev) gpu_free(dev);
    free(g);
}

static uint64_t rand_nonzero64(void)
{
    uint64_t v;
    do v = test_rand64(); while (!v);
    return v;
}

/* n bases (a + (i + 1)·b)·G made on the GPU and copied back for the CPU oracle; a few are
 * checked against the CPU's own scalar multiplication. */
static msm_gpu_bases *gen_bases(int curve, size_t n, void **host)
{
    uint64_t a = test_rand64(), b = rand_nonzero64();
    msm_gpu_bases *gb = NULL;
    const void *gen = curve == MSM_CURVE_G1 ? (const void *)&G1_GENERATOR : (const void *)&G2_GENERATOR;
    int rc = msm_gpu_bases_generate(&gb, 0, curve, n, gen, a, b);
    if (rc) printf("generate: %s\n", cuzk_last_error());
    assert_int_equal(rc, 0);
    size_t pb = curve == MSM_CURVE_G1 ? sizeof(g1_aff) : sizeof(g2_aff);
    *host = malloc(n * pb);
    assert_non_null(*host);
    assert_int_equal(msm_gpu_bases_download(gb, 0, n, *host), 0);
    with_copies(gb);
    for (int t = 0; t < 3; t++) {
        size_t i = t == 0 ? 0 : t == 1 ? n - 1 : test_rand64() % n;
        fr_t c, ta, tb, ti;
        fr_from_u64(&ta, a);
        fr_from_u64(&tb, b);
        fr_from_u64(&ti, i + 1);
        fr_mul(&c, &ti, &tb);
        fr_add(&c, &c, &ta);
        fr_from_mont(&c, &c);
        if (curve == MSM_CURVE_G1) {
            g1_jac g, p, q;
            g1_jac_from_aff(&g, &G1_GENERATOR);
            g1_jac_mul(&p, &g, &c);
            g1_jac_from_aff(&q, (const g1_aff *)*host + i);
            assert_true(g1_jac_eq(&p, &q));
        } else {
            g2_jac g, p, q;
            g2_jac_from_aff(&g, &G2_GENERATOR);
            g2_jac_mul(&p, &g, &c);
            g2_jac_from_aff(&q, (const g2_aff *)*host + i);
            assert_true(g2_jac_eq(&p, &q));
        }
    }
    return gb;
}

/* n random scalars (malloc'd, canonical). */
static fr_t *random_scalars(size_t n)
{
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(k);
    for (size_t j = 0; j < n; j++) make_scalar(&k[j], S_RANDOM);
    return k;
}

static void sizes(int curve, const int *logs, int nlogs)
{
    size_t max = (size_t)1 << logs[nlogs - 1];
    void *host;
    msm_gpu_bases *gb = gen_bases(curve, max + 1, &host);
    fr_t *k = malloc((max + 1) * sizeof *k);
    assert_non_null(k);
    size_t small[] = {1, 2, 3};
    for (int i = 0; i < 3; i++) {
        for (size_t j = 0; j < small[i]; j++) make_scalar(&k[j], S_RANDOM);
        check(curve, gb, host, k, small[i], MSM_SCALARS_HOST, "small");
    }
    for (int l = 0; l < nlogs; l++)
        for (int d = -1; d <= 1; d++) {
            size_t n = ((size_t)1 << logs[l]) + (size_t)(ptrdiff_t)d;
            for (size_t j = 0; j < n; j++) make_scalar(&k[j], S_RANDOM);
            check(curve, gb, host, k, n, d == 0 ? MSM_SCALARS_DEVICE : MSM_SCALARS_HOST, "2^k+-1");
        }
    free(k);
    free(host);
    msm_gpu_bases_free(gb);
}

static void test_sizes_g1(void **state)
{
    (void)state;
    const int logs[] = {4, 7, 10, 13, 16, 18, 20};
    sizes(MSM_CURVE_G1, logs, GPU_TEST_SIMULATED ? 5 : 7); /* the host's arithmetic: to 2^16 */
}

static void test_sizes_g2(void **state)
{
    (void)state;
    const int logs[] = {5, 9, 12, 15, 18, 20};
    sizes(MSM_CURVE_G2, logs, GPU_TEST_SIMULATED ? 4 : 6); /* the host's arithmetic: to 2^15 */
}

/* Scalar kinds and base shapes: all zero, all one, r - 1, mixed, PoRep bits; repeated bases,
 * a base and its negative, the point at infinity. */
static void edges(int curve)
{
    const size_t n = 5000;
    void *host;
    msm_gpu_bases *gb = gen_bases(curve, n, &host);
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(k);
    const int kinds[] = {S_ZERO, S_ONE, S_RMINUS1, S_MIXED, S_BITS};
    for (int t = 0; t < 5; t++) {
        for (size_t j = 0; j < n; j++) make_scalar(&k[j], kinds[t]);
        check(curve, gb, host, k, n, MSM_SCALARS_HOST, "scalar kinds");
    }
    /* one scalar set (one repeated value) that puts every point into the same buckets */
    make_scalar(&k[0], S_RANDOM);
    for (size_t j = 1; j < n; j++) k[j] = k[0];
    check(curve, gb, host, k, n, MSM_SCALARS_HOST, "same scalar");

    /* repeated bases, opposite pairs and infinity */
    size_t pb = curve == MSM_CURVE_G1 ? sizeof(g1_aff) : sizeof(g2_aff);
    unsigned char *shaped = malloc(n * pb);
    assert_non_null(shaped);
    for (size_t j = 0; j < n; j++) {
        size_t src = j % 7;
        memcpy(shaped + j * pb, (unsigned char *)host + src * pb, pb);
        if (j % 11 == 3) {
            if (curve == MSM_CURVE_G1) g1_aff_neg((g1_aff *)(shaped + j * pb), (g1_aff *)(shaped + j * pb));
            else g2_aff_neg((g2_aff *)(shaped + j * pb), (g2_aff *)(shaped + j * pb));
        }
        if (j % 13 == 5) memset(shaped + j * pb, 0, pb);
    }
    msm_gpu_bases *gs = NULL;
    assert_int_equal(msm_gpu_bases_upload(&gs, 0, curve, shaped, n), 0);
    with_copies(gs);
    const int kinds2[] = {S_RANDOM, S_MIXED, S_ONE, S_RMINUS1};
    for (int t = 0; t < 4; t++) {
        for (size_t j = 0; j < n; j++) make_scalar(&k[j], kinds2[t]);
        check(curve, gs, shaped, k, n, t & 1 ? MSM_SCALARS_DEVICE : MSM_SCALARS_HOST, "repeated bases");
    }
    /* equal scalars on repeated bases: the doubling path inside buckets */
    make_scalar(&k[0], S_RANDOM);
    for (size_t j = 1; j < n; j++) k[j] = k[0];
    check(curve, gs, shaped, k, n, MSM_SCALARS_HOST, "repeated bases, same scalar");
    msm_gpu_bases_free(gs);
    free(shaped);
    free(k);
    free(host);
    msm_gpu_bases_free(gb);
}

static void test_edges_g1(void **state) { (void)state; edges(MSM_CURVE_G1); }
static void test_edges_g2(void **state) { (void)state; edges(MSM_CURVE_G2); }

/* 2^20 with the PoRep mix, and small forced windows and entry caps (window groups, point
 * chunks) through a second context. */
static void test_plans(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 20;
    void *host;
    msm_gpu_bases *gb = gen_bases(MSM_CURVE_G1, n, &host);
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(k);
    for (size_t j = 0; j < n; j++) make_scalar(&k[j], S_BITS);
    check(MSM_CURVE_G1, gb, host, k, n, MSM_SCALARS_HOST, "porep mix 2^20");
    msm_gpu_ctx *saved = ctx, *small = NULL;
    assert_int_equal(msm_gpu_ctx_create(&small, 0, NULL, (size_t)1 << 18), 0);
    ctx = small;
    const unsigned windows[] = {7, 13, 17};
    for (int w = 0; w < 3; w++) {
        msm_gpu_ctx_set_window(small, windows[w]);
        for (size_t j = 0; j < n; j++) make_scalar(&k[j], w == 2 ? S_MIXED : S_RANDOM);
        check(MSM_CURVE_G1, gb, host, k, n, MSM_SCALARS_HOST, "forced window, capped entries");
    }
    /* G2 at half the entries (msm_gpu_ctx_set_g2_half, the backend's slots): 2^18 random
     * scalars at 13-bit windows (20) run in point chunks of 2^17, twice the groups */
    const size_t n2 = (size_t)1 << 18;
    void *host2;
    msm_gpu_bases *gb2 = gen_bases(MSM_CURVE_G2, n2, &host2);
    msm_gpu_ctx_set_window(small, 13);
    for (size_t j = 0; j < n2; j++) make_scalar(&k[j], S_RANDOM);
    msm_gpu_stats st;
    for (int half = 0; half < 2; half++) {
        msm_gpu_ctx_set_g2_half(small, half);
        check(MSM_CURVE_G2, gb2, host2, k, n2, MSM_SCALARS_HOST, half ? "G2, half the entries" : "G2, all entries");
        msm_gpu_last_stats(small, &st);
        /* not over copies; the simulated device has no window plan (its sums are the CPU's) */
        if (st.copies <= 1 && !GPU_TEST_SIMULATED) assert_int_equal(st.window_groups, half ? 40 : 20);
    }
    ctx = saved;
    msm_gpu_ctx_free(small);
    free(k);
    free(host);
    free(host2);
    msm_gpu_bases_free(gb);
    msm_gpu_bases_free(gb2);
}

/* Both bucket reductions (msm_gpu_ctx_set_reduce; CUZK_MSM_REDUCE for new contexts) on their
 * own context: forced windows whose windows are one segment (c = 5), two (7), a few (10), many
 * (16) and 2^14 (20), at 2^18 points (so most buckets hold a few, many hold none) with random
 * and mixed scalars, and the edge cases; the stats say which reduction ran. */
static void test_reduce_modes(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 18;
    void *h1, *h2;
    msm_gpu_bases *g1 = gen_bases(MSM_CURVE_G1, n, &h1), *g2 = gen_bases(MSM_CURVE_G2, n / 4, &h2);
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(k);
    msm_gpu_ctx *saved = ctx, *red = NULL;
    assert_int_equal(msm_gpu_ctx_create(&red, 0, NULL, 0), 0);
    ctx = red;
    const int modes[2] = {MSM_REDUCE_SEGMUL, MSM_REDUCE_LEVELS};
    const unsigned windows[] = {5, 7, 10, 16, 20};
    for (int m = 0; m < 2; m++) {
        msm_gpu_ctx_set_reduce(red, modes[m]);
        for (int w = 0; w < 5; w++) {
            msm_gpu_ctx_set_window(red, windows[w]);
            for (size_t j = 0; j < n; j++) make_scalar(&k[j], w % 2 ? S_MIXED : S_RANDOM);
            check(MSM_CURVE_G1, g1, h1, k, n, MSM_SCALARS_HOST, "reduction mode, G1");
            if (windows[w] <= 16) check(MSM_CURVE_G2, g2, h2, k, n / 4, MSM_SCALARS_HOST, "reduction mode, G2");
            msm_gpu_stats st;
            msm_gpu_last_stats(red, &st);
            assert_int_equal(st.reduce, modes[m]);
        }
        msm_gpu_ctx_set_window(red, 0);
        edges(MSM_CURVE_G1);
        edges(MSM_CURVE_G2);
    }
    /* the default (MSM_REDUCE_AUTO): two levels for G1 and G2 */
    msm_gpu_ctx_set_reduce(red, MSM_REDUCE_AUTO);
    msm_gpu_stats st;
    for (size_t j = 0; j < n; j++) make_scalar(&k[j], S_RANDOM);
    check(MSM_CURVE_G1, g1, h1, k, n, MSM_SCALARS_HOST, "reduction auto, G1");
    msm_gpu_last_stats(red, &st);
    assert_int_equal(st.reduce, MSM_REDUCE_LEVELS);
    check(MSM_CURVE_G2, g2, h2, k, n / 4, MSM_SCALARS_HOST, "reduction auto, G2");
    msm_gpu_last_stats(red, &st);
    assert_int_equal(st.reduce, MSM_REDUCE_LEVELS);
    ctx = saved;
    msm_gpu_ctx_free(red);
    free(k);
    free(h1);
    free(h2);
    msm_gpu_bases_free(g1);
    msm_gpu_bases_free(g2);
}

/* Two contexts driven from two threads at once: both results right. */
typedef struct {
    msm_gpu_ctx *ctx;
    const msm_gpu_bases *gb;
    const fr_t *k;
    size_t n;
    g1_jac out;
    int rc;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    for (int r = 0; r < 3 && !j->rc; r++)
        j->rc = msm_gpu_run(j->ctx, j->gb, 0, j->k, j->n, CUZK_FR_CANONICAL, MSM_SCALARS_HOST, &j->out);
    return NULL;
}

static void test_streams(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 18;
    void *host;
    msm_gpu_bases *gb = gen_bases(MSM_CURVE_G1, n, &host);
    fr_t *k[2];
    job jobs[2];
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        k[t] = malloc(n * sizeof(fr_t));
        assert_non_null(k[t]);
        for (size_t j = 0; j < n; j++) make_scalar(&k[t][j], t ? S_BITS : S_RANDOM);
        jobs[t] = (job){.gb = gb, .k = k[t], .n = n};
        assert_int_equal(msm_gpu_ctx_create(&jobs[t].ctx, 0, NULL, 0), 0);
    }
    for (int t = 0; t < 2; t++) assert_int_equal(pthread_create(&th[t], NULL, run_job, &jobs[t]), 0);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++) {
        assert_int_equal(jobs[t].rc, 0);
        g1_jac want;
        msm_g1(&want, host, k[t], n, tp);
        assert_true(g1_jac_eq(&want, &jobs[t].out));
        msm_gpu_ctx_free(jobs[t].ctx);
        free(k[t]);
    }
    free(host);
    msm_gpu_bases_free(gb);
}

/* An MSM accumulated in pieces (msm_gpu_acc_*, a streamed key's path) against the CPU: each
 * piece reducing its own buckets, and the pieces sharing one bucket array within a cap (none
 * that binds; 4 MiB, which lowers the window; 100 KiB, G1's 4-bit array and below G2's), for
 * scalar kinds whose first piece fixes different windows (random, PoRep bits, mixed, all ones
 * then random), whole pieces and a ragged last one, through a context whose entry cap makes
 * window groups and point chunks. */
static void pieces(int curve, size_t n)
{
    void *host;
    msm_gpu_bases *gb = gen_bases(curve, n, &host);
    const size_t pb = curve == MSM_CURVE_G1 ? sizeof(g1_aff) : sizeof(g2_aff);
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(k);
    void *dk = NULL;
    assert_int_equal(gpu_malloc(&dk, n * sizeof *k), 0);
    msm_gpu_ctx *pc = NULL;
    assert_int_equal(msm_gpu_ctx_create(&pc, 0, NULL, n / 3), 0);
    const size_t caps[4] = {0, (size_t)1 << 30, (size_t)4 << 20, (size_t)100 << 10}; /* 0: own reductions */
    const int kinds[4] = {S_RANDOM, S_BITS, S_MIXED, S_ONE};
    for (int t = 0; t < 4; t++) {
        for (size_t j = 0; j < n; j++) make_scalar(&k[j], t == 3 && j >= n / 2 ? S_RANDOM : kinds[t]);
        assert_int_equal(gpu_memcpy_to_device(dk, k, n * sizeof *k), 0);
        g2_jac want; /* large enough for either curve's sum */
        if (curve == MSM_CURVE_G1) msm_g1((g1_jac *)&want, host, k, n, tp);
        else msm_g2(&want, host, k, n, tp);
        for (int ci = 0; ci < 4; ci++)
            for (int ragged = 0; ragged < 2; ragged++) {
                const size_t piece = ragged ? n / 5 + 3 : n / 8;
                g2_jac got;
                assert_int_equal(msm_gpu_acc_begin(pc, curve, n, CUZK_FR_CANONICAL, caps[ci] != 0, caps[ci]), 0);
                for (size_t o = 0; o < n; o += piece) {
                    int rc = msm_gpu_acc_add(pc, (const uint8_t *)msm_gpu_bases_data(gb) + o * pb,
                                             (const uint8_t *)dk + o * sizeof *k, n - o < piece ? n - o : piece);
                    if (rc) printf("msm_gpu_acc_add: %s\n", cuzk_last_error());
                    assert_int_equal(rc, 0);
                }
                assert_int_equal(msm_gpu_acc_end(pc, &got), 0);
                const int ok = curve == MSM_CURVE_G1 ? g1_jac_eq((const g1_jac *)&want, (const g1_jac *)&got)
                                                     : g2_jac_eq(&want, &got);
                if (!ok)
                    printf("MISMATCH G%d n=%zu kind %d, pieces of %zu, shared buckets within %zu bytes\n", curve, n,
                           kinds[t], piece, caps[ci]);
                assert_true(ok);
            }
    }
    msm_gpu_ctx_free(pc);
    gpu_free(dk);
    free(k);
    free(host);
    msm_gpu_bases_free(gb);
}

static void test_pieces_shared(void **state)
{
    (void)state;
    pieces(MSM_CURVE_G1, GPU_TEST_SIMULATED ? (size_t)1 << 12 : (size_t)1 << 20);
    pieces(MSM_CURVE_G2, GPU_TEST_SIMULATED ? (size_t)1 << 10 : (size_t)1 << 17);
}

/* One accumulated G1 MSM of n points in pieces of `piece` on pc, its sum in *out; the first
 * error's code (printed). */
static int lent_pieces(msm_gpu_ctx *pc, const msm_gpu_bases *gb, const void *dk, size_t n, size_t piece,
                       size_t shared, g1_jac *out)
{
    int rc = msm_gpu_acc_begin(pc, MSM_CURVE_G1, n, CUZK_FR_CANONICAL, shared != 0, shared);
    for (size_t o = 0; !rc && o < n; o += piece)
        rc = msm_gpu_acc_add(pc, (const uint8_t *)msm_gpu_bases_data(gb) + o * sizeof(g1_aff),
                             (const uint8_t *)dk + o * sizeof(fr_t), n - o < piece ? n - o : piece);
    if (!rc) rc = msm_gpu_acc_end(pc, out);
    if (rc) printf("lent pieces: %s\n", cuzk_last_error());
    return rc;
}

/* A loan (msm_gpu_ctx_lend): pieces with and without shared buckets, and a whole run, on lent
 * device memory give the CPU MSM's sum and the unlent run's; the pool is not touched meanwhile
 * (the device's free memory does not fall); too small a loan fails cleanly (CUZK_EDEVICE) and
 * the context runs as before once it ends; a second loan, a loan while an accumulation is open
 * and a misaligned one are refused. */
static void test_lend(void **state)
{
    (void)state;
    const size_t n = GPU_TEST_SIMULATED ? (size_t)1 << 12 : (size_t)1 << 20, piece = n / 8 + 5;
    void *host;
    msm_gpu_bases *gb = gen_bases(MSM_CURVE_G1, n, &host);
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(k);
    for (size_t j = 0; j < n; j++) make_scalar(&k[j], j % 7 ? S_RANDOM : S_MIXED);
    void *dk = NULL;
    assert_int_equal(gpu_malloc(&dk, n * sizeof *k), 0);
    assert_int_equal(gpu_memcpy_to_device(dk, k, n * sizeof *k), 0);
    g1_jac want, unlent, got;
    msm_g1(&want, host, k, n, tp);
    msm_gpu_ctx *pc = NULL;
    assert_int_equal(msm_gpu_ctx_create(&pc, 0, NULL, n / 4), 0);
    assert_int_equal(msm_gpu_ctx_set_acc_kind(pc, MSM_ACC_XYZZ), 0);
    assert_int_equal(lent_pieces(pc, gb, dk, n, piece, 0, &unlent), 0);
    assert_true(g1_jac_eq(&want, &unlent));
    /* a loan twice what the estimate of its widest configuration says, CUB's share on top */
    const size_t e = n / 2, shared = (size_t)64 << 20;
    const size_t bytes = 2 * msm_gpu_scratch_bytes(MSM_CURVE_G1, n, e, piece, shared, 1, MSM_ACC_XYZZ) + ((size_t)32 << 20);
    void *arena = NULL;
    assert_int_equal(gpu_malloc(&arena, bytes), 0);
    assert_int_not_equal(msm_gpu_ctx_lend(pc, (uint8_t *)arena + 16, bytes - 16, e), 0); /* misaligned */
    size_t free0, free1, total;
    assert_int_equal(gpu_mem_info(&free0, &total), 0);
    assert_int_equal(msm_gpu_ctx_lend(pc, arena, bytes, e), 0);
    assert_int_not_equal(msm_gpu_ctx_lend(pc, arena, bytes, e), 0); /* one loan at a time */
    const size_t caps[3] = {0, shared, (size_t)100 << 10};
    for (int ci = 0; ci < 3; ci++) {
        assert_int_equal(lent_pieces(pc, gb, dk, n, piece, caps[ci], &got), 0);
        if (!g1_jac_eq(&want, &got)) printf("MISMATCH lent pieces, shared buckets within %zu bytes\n", caps[ci]);
        assert_true(g1_jac_eq(&want, &got));
    }
    int rc = msm_gpu_run(pc, gb, 0, dk, n, CUZK_FR_CANONICAL, MSM_SCALARS_DEVICE, &got);
    if (rc) printf("lent run: %s\n", cuzk_last_error());
    assert_int_equal(rc, 0);
    assert_true(g1_jac_eq(&want, &got));
    assert_int_equal(gpu_mem_info(&free1, &total), 0);
    printf("lent runs: device free %zu bytes before, %zu after (%zu lent)\n", free0, free1, bytes);
    assert_true(free1 >= free0);
    assert_int_equal(msm_gpu_ctx_lend(pc, NULL, 0, 0), 0);
    assert_int_equal(msm_gpu_ctx_lend(pc, NULL, 0, 0), 0); /* no loan: nothing to end */
    /* too small: the first piece fails, the loan ends, the context's own scratch runs on */
    assert_int_equal(msm_gpu_ctx_lend(pc, arena, 64 << 10, e), 0);
    rc = lent_pieces(pc, gb, dk, n, piece, 0, &got);
    assert_int_equal(rc, CUZK_EDEVICE);
    assert_int_equal(msm_gpu_ctx_lend(pc, NULL, 0, 0), 0);
    assert_int_equal(lent_pieces(pc, gb, dk, n, piece, 0, &got), 0);
    assert_true(g1_jac_eq(&want, &got));
    /* an accumulation open on the context's own scratch: no loan */
    assert_int_equal(msm_gpu_acc_begin(pc, MSM_CURVE_G1, n, CUZK_FR_CANONICAL, 0, 0), 0);
    assert_int_not_equal(msm_gpu_ctx_lend(pc, arena, bytes, e), 0);
    assert_int_equal(msm_gpu_acc_end(pc, &got), 0);
    msm_gpu_ctx_free(pc);
    gpu_free(arena);
    gpu_free(dk);
    free(k);
    free(host);
    msm_gpu_bases_free(gb);
}

/* 2^24: bases c_i·G with c_i = a + (i + 1)·b, so the MSM is (Σ k_i·c_i)·G. */
static void big(int curve, int log_n)
{
    const size_t n = (size_t)1 << log_n;
    uint64_t a = test_rand64(), b = rand_nonzero64();
    msm_gpu_bases *gb = NULL;
    const void *gen = curve == MSM_CURVE_G1 ? (const void *)&G1_GENERATOR : (const void *)&G2_GENERATOR;
    int rc = msm_gpu_bases_generate(&gb, 0, curve, n, gen, a, b);
    if (rc) printf("generate: %s\n", cuzk_last_error());
    assert_int_equal(rc, 0);
    with_copies(gb);
    fr_t *k = malloc(n * sizeof *k), sum = FR_ZERO, ta, tb, c, ci, t;
    assert_non_null(k);
    fr_from_u64(&ta, a);
    fr_from_u64(&tb, b);
    c = ta;
    for (size_t i = 0; i < n; i++) {
        make_scalar(&k[i], i & 1 ? S_RANDOM : S_MIXED);
        fr_add(&c, &c, &tb); /* c = a + (i + 1)·b */
        fr_to_mont(&ci, &k[i]);
        fr_mul(&t, &ci, &c);
        fr_add(&sum, &sum, &t);
    }
    fr_from_mont(&sum, &sum);
    int ok;
    if (curve == MSM_CURVE_G1) {
        g1_jac g, want, got;
        g1_jac_from_aff(&g, &G1_GENERATOR);
        g1_jac_mul(&want, &g, &sum);
        assert_int_equal(msm_gpu_run(ctx, gb, 0, k, n, CUZK_FR_CANONICAL, MSM_SCALARS_HOST, &got), 0);
        ok = g1_jac_eq(&want, &got);
    } else {
        g2_jac g, want, got;
        g2_jac_from_aff(&g, &G2_GENERATOR);
        g2_jac_mul(&want, &g, &sum);
        assert_int_equal(msm_gpu_run(ctx, gb, 0, k, n, CUZK_FR_CANONICAL, MSM_SCALARS_HOST, &got), 0);
        ok = g2_jac_eq(&want, &got);
    }
    msm_gpu_stats st;
    msm_gpu_last_stats(ctx, &st);
    printf("G%d 2^%d: %s, window %u, %u groups, %u copies, %.1f ms\n", curve, log_n, ok ? "ok" : "MISMATCH",
           st.window_bits, st.window_groups, st.copies, (double)st.device_ms);
    assert_true(ok);
    free(k);
    msm_gpu_bases_free(gb);
}

static void test_big_g1(void **state)
{
    (void)state;
    GPU_TEST_DEVICE_ONLY("a GPU's size: minutes of host arithmetic");
    big(MSM_CURVE_G1, 24);
}

static void test_big_g2(void **state)
{
    (void)state;
    GPU_TEST_DEVICE_ONLY("a GPU's size: minutes of host arithmetic");
    big(MSM_CURVE_G2, 24);
}

static void test_errors(void **state)
{
    (void)state;
    msm_gpu_bases *gb = NULL;
    /* 2^31 - 1 G2 points = 412 GB: the allocation fails as CUZK_EDEVICE, not a crash */
    int rc = msm_gpu_bases_generate(&gb, 0, MSM_CURVE_G2, 0x7fffffff, &G2_GENERATOR, 1, 1);
    assert_int_equal(rc, CUZK_EDEVICE);
    assert_null(gb);
    assert_non_null(strstr(cuzk_last_error(), "cudaMalloc"));
    void *host;
    gb = gen_bases(MSM_CURVE_G1, 16, &host);
    fr_t k[17];
    memset(k, 0, sizeof k);
    g1_jac out;
    assert_int_equal(msm_gpu_run(ctx, gb, 0, k, 17, CUZK_FR_CANONICAL, MSM_SCALARS_HOST, &out), CUZK_EINVAL);
    assert_int_equal(msm_gpu_run(ctx, gb, 8, k, 9, CUZK_FR_CANONICAL, MSM_SCALARS_HOST, &out), CUZK_EINVAL);
    assert_int_equal(msm_gpu_run(ctx, gb, 0, k, 4, 7, MSM_SCALARS_HOST, &out), CUZK_EINVAL);
    /* n = 0 is the point at infinity; the context still works after the errors */
    assert_int_equal(msm_gpu_run(ctx, gb, 0, k, 0, CUZK_FR_CANONICAL, MSM_SCALARS_HOST, &out), 0);
    assert_true(g1_jac_is_inf(&out));
    for (int j = 0; j < 16; j++) make_scalar(&k[j], S_RANDOM);
    check(MSM_CURVE_G1, gb, host, k, 16, MSM_SCALARS_HOST, "after errors");
    free(host);
    msm_gpu_bases_free(gb);
}

/* A batched bucket accumulation (MSM_ACC_AFFINE or MSM_ACC_PAIRWISE) through a second context:
 * sizes with random and PoRep-mixed scalars, G1 and G2, for each variant v of (min batch,
 * kmul, pairwise rounds): every step or round batched (min batch 1) or the default threshold,
 * and more entries per thread (kmul) so that each thread holds many buckets. */
static void batched(int mode, const unsigned *minb, const unsigned *kmul, const unsigned *rounds, int nv)
{
    msm_gpu_ctx *saved = ctx, *aff = NULL;
    assert_int_equal(msm_gpu_ctx_create(&aff, 0, NULL, 0), 0);
    ctx = aff;
    const size_t n = ((size_t)1 << 20) + 3;
    for (int curve = MSM_CURVE_G1; curve <= MSM_CURVE_G2; curve++) {
        void *host;
        msm_gpu_bases *gb = gen_bases(curve, n, &host);
        fr_t *k = malloc(n * sizeof *k);
        assert_non_null(k);
        const size_t sizes[] = {1000, (size_t)1 << 16, n};
        for (int v = 0; v < nv; v++) {
            msm_gpu_ctx_set_accumulation(aff, mode, minb[v], kmul[v]);
            msm_gpu_ctx_set_pair_rounds(aff, rounds[v]);
            for (int z = 0; z < 3; z++) {
                if (curve == MSM_CURVE_G2 && z == 2) continue; /* the CPU oracle's G2 2^20 is slow */
                for (size_t j = 0; j < sizes[z]; j++) make_scalar(&k[j], z == 1 ? S_BITS : S_RANDOM);
                check(curve, gb, host, k, sizes[z], MSM_SCALARS_HOST,
                      mode == MSM_ACC_PAIRWISE ? "pairwise rounds" : "affine buckets");
            }
        }
        free(k);
        free(host);
        msm_gpu_bases_free(gb);
    }
    ctx = saved;
    msm_gpu_ctx_free(aff);
}

/* The affine bucket steps (msm_affine.cuh). */
static void test_affine(void **state)
{
    (void)state;
    const unsigned minb[] = {1, 0, 1}, kmul[] = {1, 0, 16}, rounds[] = {0, 0, 0};
    batched(MSM_ACC_AFFINE, minb, kmul, rounds, 3);
}

/* Bases in equal neighbours (j / 2 % 3 of a few), negated in pairs of pairs, infinity now and
 * then, all under one scalar: every window is one bucket of all n points, and its sorted run
 * pairs P + P, P + (-P) and infinity in every pairwise round (long runs per thread: kmul). */
static void neighbours(int curve, size_t n)
{
    void *host;
    msm_gpu_bases *g0 = gen_bases(curve, 3, &host);
    size_t pb = curve == MSM_CURVE_G1 ? sizeof(g1_aff) : sizeof(g2_aff);
    unsigned char *b = malloc(n * pb);
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(b);
    assert_non_null(k);
    for (size_t j = 0; j < n; j++) {
        memcpy(b + j * pb, (unsigned char *)host + (j / 2 % 3) * pb, pb);
        if (j / 4 % 2) {
            if (curve == MSM_CURVE_G1) g1_aff_neg((g1_aff *)(b + j * pb), (g1_aff *)(b + j * pb));
            else g2_aff_neg((g2_aff *)(b + j * pb), (g2_aff *)(b + j * pb));
        }
        if (j % 17 == 9) memset(b + j * pb, 0, pb);
    }
    msm_gpu_bases *gb = NULL;
    assert_int_equal(msm_gpu_bases_upload(&gb, 0, curve, b, n), 0);
    make_scalar(&k[0], S_RANDOM);
    for (size_t j = 1; j < n; j++) k[j] = k[0];
    check(curve, gb, b, k, n, MSM_SCALARS_HOST, "neighbours, same scalar");
    k[0] = R_MINUS_1;
    for (size_t j = 1; j < n; j++) k[j] = k[0];
    check(curve, gb, b, k, n, MSM_SCALARS_HOST, "neighbours, r - 1");
    msm_gpu_bases_free(gb);
    msm_gpu_bases_free(g0);
    free(b);
    free(k);
    free(host);
}

/* Pairwise rounds (msm_pairwise.cuh): the sizes above with every round batched, the default
 * threshold, many entries per thread, and two rounds then XYZZ; the edge cases (zero, one,
 * r - 1, repeated, opposite and infinite bases), also with 1024 sort entries a group (the ones
 * in chunks); and neighbours whose runs hit the special cases in every round. */
static void test_pairwise(void **state)
{
    (void)state;
    const unsigned minb[] = {1, 0, 1, 1}, kmul[] = {1, 0, 16, 4}, rounds[] = {0, 0, 0, 2};
    batched(MSM_ACC_PAIRWISE, minb, kmul, rounds, 4);
    msm_gpu_ctx *saved = ctx, *pw = NULL;
    assert_int_equal(msm_gpu_ctx_create(&pw, 0, NULL, 0), 0);
    msm_gpu_ctx_set_accumulation(pw, MSM_ACC_PAIRWISE, 1, 0);
    ctx = pw;
    edges(MSM_CURVE_G1);
    edges(MSM_CURVE_G2);
    /* the ones' sum in chunks of the entry cap (plan_ones: each chunk into its own slot, then
     * the running ones), the rest in point chunks */
    assert_int_equal(msm_gpu_ctx_set_max_entries(pw, 1024), CUZK_OK);
    edges(MSM_CURVE_G1);
    assert_int_equal(msm_gpu_ctx_set_max_entries(pw, 0), CUZK_OK);
    msm_gpu_ctx_set_accumulation(pw, MSM_ACC_PAIRWISE, 1, 256);
    neighbours(MSM_CURVE_G1, 20000);
    neighbours(MSM_CURVE_G2, 4000);
    ctx = saved;
    msm_gpu_ctx_free(pw);
}

/* What a worker slot's context holds after a partition's five MSMs, measured as the device
 * pool's bytes in use, against the placement's estimate (each part's largest over the vectors,
 * G2 at half the entries with pairwise: lib/backend/cuda_flow.c) and against the plan run
 * without data (msm_size_run at the estimate's wave bounds): the sizing executor must see every
 * buffer the device context makes, and CUB's temporary storage and the pool's rounding must fit
 * what the estimate allows them. A PoRep-like partition scaled down (H, L, A at 2^21, B at
 * 2^19), each vector run with full-width and with PoRep-bit scalars, AUTO accumulation: whole
 * vectors at 2^22 entries a group (a full slot), then in pieces of 2^18 points at 2^20 (a lean
 * slot's msm_gpu_acc_*, the pieces read from the resident bases), each reducing its own
 * buckets and sharing them within 64 MiB (CUZK_MSM_SHARED_BUCKETS_MB). */
enum { SH_VECS = 5 };
static const int sh_curves[SH_VECS] = {MSM_CURVE_G1, MSM_CURVE_G1, MSM_CURVE_G1, MSM_CURVE_G1, MSM_CURVE_G2};
static const size_t sh_n[SH_VECS] = {((size_t)1 << 21) - 1, (size_t)1 << 21, (size_t)1 << 21, (size_t)1 << 19,
                                     (size_t)1 << 19};

static void scratch_held(msm_gpu_bases *const gb[SH_VECS], void *const dsc[SH_VECS][2],
                         uint32_t counts[SH_VECS][2][2], size_t entries, size_t piece, size_t shared)
{
    msm_gpu_ctx *sc = NULL;
    assert_int_equal(msm_gpu_ctx_create(&sc, 0, NULL, entries), 0);
    msm_gpu_ctx_set_accumulation(sc, MSM_ACC_AUTO, 0, 0);
    msm_gpu_ctx_set_g2_half(sc, 1);
    /* as the sizing executor and the estimate run: one wave, the default reduction (not
     * CUZK_MSM_WAVES' or CUZK_MSM_REDUCE's, which a run of the whole file may set) */
    msm_gpu_ctx_set_waves(sc, 1);
    msm_gpu_ctx_set_reduce(sc, MSM_REDUCE_AUTO);
    msm_size_ctx *sz = msm_size_ctx_new(entries, 1, MSM_ACC_AUTO, 1, 0, 0);
    assert_non_null(sz);
    msm_size_ctx_set_shared(sz, shared);
    uint64_t before, after, res_before, res_after;
    assert_int_equal(gpu_pool_used(0, &before, &res_before), 0);
    msm_scratch_parts est, p;
    memset(&est, 0, sizeof est);
    for (int v = 0; v < SH_VECS; v++) {
        const size_t n = sh_n[v], e = sh_curves[v] == MSM_CURVE_G2 ? entries / 2 : entries;
        const size_t pb = sh_curves[v] == MSM_CURVE_G1 ? sizeof(g1_aff) : sizeof(g2_aff);
        msm_gpu_scratch_parts(sh_curves[v], n, e, piece < n ? piece : 0, piece < n ? shared : 0, 1, MSM_ACC_AUTO, &p);
        msm_scratch_parts_max(&est, &p);
        for (int mix = 0; mix < 2; mix++) {
            g2_jac out; /* large enough for either curve's sum */
            if (!piece) {
                assert_int_equal(
                    msm_gpu_run(sc, gb[v], 0, dsc[v][mix], n, CUZK_FR_CANONICAL, MSM_SCALARS_DEVICE, &out), 0);
            } else {
                assert_int_equal(msm_gpu_acc_begin(sc, sh_curves[v], n, CUZK_FR_CANONICAL, shared != 0, shared), 0);
                for (size_t o = 0; o < n; o += piece)
                    assert_int_equal(msm_gpu_acc_add(sc, (const uint8_t *)msm_gpu_bases_data(gb[v]) + o * pb,
                                                     (const uint8_t *)dsc[v][mix] + o * 32,
                                                     n - o < piece ? n - o : piece),
                                     0);
                assert_int_equal(msm_gpu_acc_end(sc, &out), 0);
            }
            /* the counts spread evenly over the pieces: the scalars are drawn alike for all */
            assert_int_equal(msm_size_run(sz, sh_curves[v], n, counts[v][mix][0], counts[v][mix][1],
                                          piece < n ? piece : 0, 1, 1, 0),
                             0);
        }
    }
    assert_int_equal(gpu_pool_used(0, &after, &res_after), 0);
    const uint64_t held = after - before, planned = msm_size_held(sz), bound = msm_scratch_parts_total(&est);
    /* the estimate's allowance for CUB and the pool's rounding (msm.cu, MSM_PART_FIXED: 25
     * buffers at most 2 MiB over their requests each) */
    const uint64_t cub = ((uint64_t)32 << 20) + entries / 4 + 25 * ((uint64_t)2 << 20);
    /* the pool's reservation too (freed memory stays mapped: a buffer grown in steps may leave
     * its smaller blocks reserved), printed for the record: the budget counts what is held */
    printf("%s%s: context holds %.1f MiB (the pool reserved %.1f MiB more); the plan without data %.1f MiB (held - "
           "planned %.1f MiB; CUB's and rounding's allowance %.1f); estimate %.1f MiB\n",
           piece ? "pieces" : "whole vectors", shared ? " sharing buckets" : "", held / 1048576.0,
           ((double)res_after - (double)res_before) / 1048576.0,
           planned / 1048576.0, ((double)held - (double)planned) / 1048576.0, cub / 1048576.0, bound / 1048576.0);
    assert_true(held <= planned + cub);
    assert_true(held <= bound);
    msm_size_ctx_free(sz);
    msm_gpu_ctx_free(sc);
}

static void test_scratch_held(void **state)
{
    (void)state;
    msm_gpu_bases *gb[SH_VECS];
    void *dsc[SH_VECS][2];
    uint32_t counts[SH_VECS][2][2];
    for (int v = 0; v < SH_VECS; v++) {
        const void *gen = sh_curves[v] == MSM_CURVE_G1 ? (const void *)&G1_GENERATOR : (const void *)&G2_GENERATOR;
        assert_int_equal(msm_gpu_bases_generate(&gb[v], 0, sh_curves[v], sh_n[v], gen, test_rand64(), rand_nonzero64()),
                         0);
        fr_t *k = malloc(sh_n[v] * sizeof *k);
        assert_non_null(k);
        for (int mix = 0; mix < 2; mix++) {
            for (size_t j = 0; j < sh_n[v]; j++) make_scalar(&k[j], mix ? S_BITS : S_RANDOM);
            msm_count_classes_host(k, sh_n[v], CUZK_FR_CANONICAL, counts[v][mix]);
            assert_int_equal(gpu_malloc(&dsc[v][mix], sh_n[v] * sizeof *k), 0);
            assert_int_equal(gpu_memcpy_to_device(dsc[v][mix], k, sh_n[v] * sizeof *k), 0);
        }
        free(k);
    }
    scratch_held(gb, dsc, counts, (size_t)1 << 22, 0, 0);
    scratch_held(gb, dsc, counts, (size_t)1 << 20, (size_t)1 << 18, 0);
    scratch_held(gb, dsc, counts, (size_t)1 << 20, (size_t)1 << 18, (size_t)64 << 20);
    for (int v = 0; v < SH_VECS; v++) {
        gpu_free(dsc[v][0]);
        gpu_free(dsc[v][1]);
        msm_gpu_bases_free(gb[v]);
    }
}

/* MSM_ACC_AUTO, a new context's default: pairwise from CUZK_MSM_PAIR_MIN scalars other than
 * 0 and 1 (read when the context is made; 1000 here), XYZZ below; switched to XYZZ
 * (msm_gpu_ctx_set_acc_kind, as the backend does per key) the context frees the pairwise
 * scratch and does not make it again; switched back, pairwise runs again. */
static void test_auto_switch(void **state)
{
    (void)state;
    setenv("CUZK_MSM_PAIR_MIN", "1000", 1);
    msm_gpu_ctx *saved = ctx, *au = NULL;
    assert_int_equal(msm_gpu_ctx_create(&au, 0, NULL, 0), 0);
    unsetenv("CUZK_MSM_PAIR_MIN");
    ctx = au;
    enum { N = 5000 };
    void *host;
    msm_gpu_bases *gb = gen_bases(MSM_CURVE_G1, N, &host);
    fr_t *k = random_scalars(N);
    msm_gpu_stats st;
    check(MSM_CURVE_G1, gb, host, k, 500, MSM_SCALARS_HOST, "auto below the threshold");
    msm_gpu_last_stats(au, &st);
    assert_int_equal(st.acc, MSM_ACC_XYZZ);
    assert_int_equal(msm_gpu_ctx_pair_scratch_bytes(au), 0);
    check(MSM_CURVE_G1, gb, host, k, N, MSM_SCALARS_HOST, "auto above the threshold");
    msm_gpu_last_stats(au, &st);
    assert_int_equal(st.acc, MSM_ACC_PAIRWISE);
    assert_true(msm_gpu_ctx_pair_scratch_bytes(au) > 0);
    assert_int_equal(msm_gpu_ctx_set_acc_kind(au, MSM_ACC_XYZZ), CUZK_OK);
    assert_int_equal(msm_gpu_ctx_pair_scratch_bytes(au), 0);
    check(MSM_CURVE_G1, gb, host, k, N, MSM_SCALARS_HOST, "switched to XYZZ");
    msm_gpu_last_stats(au, &st);
    assert_int_equal(st.acc, MSM_ACC_XYZZ);
    assert_int_equal(msm_gpu_ctx_pair_scratch_bytes(au), 0);
    assert_int_equal(msm_gpu_ctx_set_acc_kind(au, MSM_ACC_AUTO), CUZK_OK);
    check(MSM_CURVE_G1, gb, host, k, N, MSM_SCALARS_HOST, "back to auto");
    msm_gpu_last_stats(au, &st);
    assert_int_equal(st.acc, MSM_ACC_PAIRWISE);
    ctx = saved;
    msm_gpu_ctx_free(au);
    msm_gpu_bases_free(gb);
    free(k);
    free(host);
}

/* Buckets whose runs hit every special case of an affine addition, different ones in one
 * batch (ft_msm_affine_special, as test_msm_sim's test_affine_special): small positive
 * digits, then scalars near r (negative digits). Many buckets per thread (kmul 64), every
 * step batched. */
static void affine_special(int mode)
{
    enum { NB = 4096, REP = 8 };
    const size_t n = (size_t)NB * REP;
    void *qh;
    msm_gpu_bases *qb = gen_bases(MSM_CURVE_G1, NB, &qh);
    const g1_aff *q = qh;
    g1_aff *bases = malloc(n * sizeof *bases);
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(bases);
    assert_non_null(k);
    ft_msm_affine_special(bases, k, q, NB, n, 0); /* the bases of both rounds */
    msm_gpu_bases *gb = NULL;
    assert_int_equal(msm_gpu_bases_upload(&gb, 0, MSM_CURVE_G1, bases, n), 0);
    msm_gpu_ctx *saved = ctx, *aff = NULL;
    assert_int_equal(msm_gpu_ctx_create(&aff, 0, NULL, 0), 0);
    msm_gpu_ctx_set_accumulation(aff, mode, 1, 64);
    ctx = aff;
    for (int round = 0; round < 2; round++) {
        ft_msm_affine_special(bases, k, q, NB, n, round);
        check(MSM_CURVE_G1, gb, bases, k, n, MSM_SCALARS_HOST,
              mode == MSM_ACC_PAIRWISE ? "pairwise special cases" : "affine special cases");
    }
    ctx = saved;
    msm_gpu_ctx_free(aff);
    msm_gpu_bases_free(gb);
    msm_gpu_bases_free(qb);
    free(qh);
    free(bases);
    free(k);
}

/* Counts ahead and deferred sums (what the backend's full flow does): the device's class
 * counts equal the host's for each form and mix; three deferred runs (G1, G2, G1 with counts)
 * collected at once equal the CPU MSMs; a run told the counts equals one that reads them. */
static void test_counted_deferred(void **state)
{
    (void)state;
    const size_t n = ((size_t)1 << 14) + 37;
    void *h1, *h2;
    msm_gpu_bases *g1 = gen_bases(MSM_CURVE_G1, n, &h1), *g2 = gen_bases(MSM_CURVE_G2, n, &h2);
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(k);
    uint32_t *d_cnt;
    assert_int_equal(gpu_malloc((void **)&d_cnt, 2 * sizeof *d_cnt), 0);
    for (int kind = 0; kind < 5; kind++) {
        for (size_t i = 0; i < n; i++) make_scalar(&k[i], kind == 4 ? 5 : kind);
        const int form = (int)(test_rand64() & 1);
        fr_t *g = gpu_form(k, n, form);
        void *dev;
        assert_int_equal(gpu_malloc(&dev, n * sizeof *g), 0);
        assert_int_equal(gpu_memcpy_to_device(dev, g, n * sizeof *g), 0);
        uint32_t want[2], got[2];
        msm_count_classes_host(g, n, form, want);
        assert_int_equal(gpu_memset_async(d_cnt, 0, 2 * sizeof *d_cnt, NULL), 0);
        assert_int_equal(msm_gpu_count_classes(dev, n, form, d_cnt, NULL), 0);
        assert_int_equal(gpu_memcpy_to_host(got, d_cnt, sizeof got), 0);
        assert_int_equal(got[0], want[0]);
        assert_int_equal(got[1], want[1]);
        g1_jac w1, r1, r1c;
        g2_jac w2, r2;
        msm_g1(&w1, h1, k, n, tp);
        msm_g2(&w2, h2, k, n, tp);
        assert_int_equal(msm_gpu_run_deferred(ctx, g1, 0, dev, n, form, &r1), 0);
        assert_int_equal(msm_gpu_run_deferred(ctx, g2, 0, dev, n, form, &r2), 0);
        msm_gpu_ctx_set_counts(ctx, got[0], got[1]);
        assert_int_equal(msm_gpu_run_deferred(ctx, g1, 0, dev, n, form, &r1c), 0);
        assert_int_equal(msm_gpu_ctx_collect(ctx), 0);
        assert_true(g1_jac_eq(&w1, &r1));
        assert_true(g2_jac_eq(&w2, &r2));
        assert_true(g1_jac_eq(&w1, &r1c));
        msm_gpu_ctx_set_counts(ctx, got[0], got[1]); /* the plain run too */
        assert_int_equal(msm_gpu_run(ctx, g2, 0, dev, n, form, MSM_SCALARS_DEVICE, &r2), 0);
        assert_true(g2_jac_eq(&w2, &r2));
        gpu_free(dev);
        free(g);
    }
    /* a deferred run discarded (a partition that failed before collecting): its output is
     * never written, and the next collect has nothing of it */
    {
        for (size_t i = 0; i < n; i++) make_scalar(&k[i], 0);
        g1_jac sentinel, r1;
        memset(&sentinel, 0xA5, sizeof sentinel);
        r1 = sentinel;
        void *dev;
        assert_int_equal(gpu_malloc(&dev, n * sizeof *k), 0);
        assert_int_equal(gpu_memcpy_to_device(dev, k, n * sizeof *k), 0);
        assert_int_equal(msm_gpu_run_deferred(ctx, g1, 0, dev, n, CUZK_FR_CANONICAL, &r1), 0);
        msm_gpu_ctx_discard(ctx);
        assert_int_equal(msm_gpu_ctx_collect(ctx), 0);
        assert_memory_equal(&r1, &sentinel, sizeof r1);
        gpu_free(dev);
    }
    /* counts that cannot be (more than n): refused, and not left for the next run */
    msm_gpu_ctx_set_counts(ctx, (uint32_t)n, 1);
    g1_jac r;
    assert_int_equal(msm_gpu_run(ctx, g1, 0, k, n, CUZK_FR_CANONICAL, MSM_SCALARS_HOST, &r), CUZK_EINVAL);
    gpu_free(d_cnt);
    free(k);
    free(h1);
    free(h2);
    msm_gpu_bases_free(g1);
    msm_gpu_bases_free(g2);
}

/* An MSM on its own thread (it waits at the gate's passes while the word is raised). */
typedef struct gated_msm {
    msm_gpu_ctx *ctx;
    msm_gpu_bases *gb;
    const void *dev;
    size_t n;
    g1_jac out;
    int rc;
    _Atomic int returned;
} gated_msm;

static void *gated_msm_thread(void *arg)
{
    gated_msm *m = arg;
    m->rc = msm_gpu_run(m->ctx, m->gb, 0, m->dev, m->n, CUZK_FR_CANONICAL, MSM_SCALARS_DEVICE, &m->out);
    atomic_store(&m->returned, 1);
    return NULL;
}

/* The gate between window groups (msm_gpu_ctx_set_gate; issue 17, paced on the host since
 * session 9): a context without it passes nowhere; with it lowered, an MSM of several groups
 * runs through having passed before each group but the first; raised, the same MSM's thread is
 * held mid-run (not returned after three times the MSM's own time) while the device is not (a
 * device-wide synchronize returns at once), and once lowered it ends with the CPU's sum. Many
 * groups on purpose (16-bit windows, one per group: 2^18 entries a group): when the pause was
 * a kernel on the device, such a run filled the driver's launch queue while paused and the
 * thread that would lower the word blocked in a launch (session 8: never returned in 170 s). */
static void test_gate_groups(void **state)
{
    GPU_TEST_DEVICE_ONLY("the device's window groups and the pauses between them");
    (void)state;
    const size_t n = (size_t)1 << 18;
    void *host;
    msm_gpu_bases *gb = gen_bases(MSM_CURVE_G1, n, &host);
    fr_t *k = random_scalars(n);
    g1_jac want;
    msm_g1(&want, host, k, n, tp);
    msm_gpu_ctx *gc = NULL;
    assert_int_equal(msm_gpu_ctx_create(&gc, 0, NULL, (size_t)1 << 18), 0); /* one window of 2^18 a group */
    msm_gpu_ctx_set_window(gc, 16);
    void *dev = NULL;
    uint32_t word = 0;
    assert_int_equal(gpu_malloc(&dev, n * sizeof *k), 0);
    assert_int_equal(gpu_memcpy_to_device(dev, k, n * sizeof *k), 0);
    gpu_gate g;
    assert_int_equal(gpu_gate_init(&g, &word), 0);
    msm_gpu_stats st;
    float alone_ms = 0;
    gated_msm m = {.ctx = gc, .gb = gb, .dev = dev, .n = n};
    for (int gated = 0; gated <= 1; gated++) {
        msm_gpu_ctx_set_gate(gc, gated ? &g : NULL);
        gated_msm_thread(&m);
        assert_int_equal(m.rc, 0);
        assert_true(g1_jac_eq(&want, &m.out));
        msm_gpu_last_stats(gc, &st);
        printf("%s: %u window groups, %u pauses, %.1f ms\n", gated ? "gated, lowered" : "no gate", st.window_groups,
               st.pauses, st.device_ms);
        assert_true(st.window_groups >= 8);
        assert_int_equal(st.pauses, gated ? st.window_groups - 1 : 0);
        if (!gated) alone_ms = st.device_ms;
    }
    /* raised: the thread held inside the MSM, the device free */
    const long hold_ms = alone_ms * 3 > 200 ? (long)(alone_ms * 3) : 200;
    __atomic_store_n(&word, 1u, __ATOMIC_SEQ_CST);
    memset(&m.out, 0, sizeof m.out);
    atomic_store(&m.returned, 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, gated_msm_thread, &m), 0);
    nanosleep(&(struct timespec){hold_ms / 1000, (hold_ms % 1000) * 1000000}, NULL);
    assert_int_equal(atomic_load(&m.returned), 0); /* held at a pass */
    uint64_t t0 = mix_now_ns();
    assert_int_equal(gpu_synchronize(), 0);
    assert_true(mix_now_ns() - t0 < 1000000000ull); /* the device waits for no host thread */
    __atomic_store_n(&word, 0u, __ATOMIC_SEQ_CST);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(m.rc, 0);
    assert_true(g1_jac_eq(&want, &m.out));
    msm_gpu_last_stats(gc, &st);
    printf("gated, raised for %ld ms: %u pauses, %.1f ms\n", hold_ms, st.pauses, st.device_ms);
    gpu_gate_fini(&g);
    msm_gpu_ctx_free(gc);
    gpu_free(dev);
    free(k);
    free(host);
    msm_gpu_bases_free(gb);
}

static void test_affine_special(void **state)
{
    (void)state;
    affine_special(MSM_ACC_AFFINE);
}

static void test_pairwise_special(void **state)
{
    (void)state;
    affine_special(MSM_ACC_PAIRWISE);
}

/* Precomputed shifted copies (msm_gpu_bases_precompute), the context forced onto them: the
 * sizes, edge cases (zero, one, r - 1, repeated, opposite and infinite bases) and 2^24 cases
 * above with 2 copies, 3 (empty window slots), one per window (a single merged window), a
 * capped context (merged windows over point chunks adding into their buckets), bases from an
 * offset, the copies freed again, and the default (cost model) choosing them for full scalars. */
static void test_precompute(void **state)
{
    (void)state;
    msm_gpu_ctx_set_precompute(ctx, MSM_PRE_FORCE);
    const int logs1[] = {4, 10, 16, 20}, logs2[] = {5, 12};
    pre_copies = 2;
    sizes(MSM_CURVE_G1, logs1, 4);
    edges(MSM_CURVE_G1);
    edges(MSM_CURVE_G2);
    pre_copies = 3;
    pre_window = 9; /* 29 windows: 30 slots, one empty */
    edges(MSM_CURVE_G1);
    sizes(MSM_CURVE_G2, logs2, 2);
    pre_copies = 32;
    pre_window = 8; /* one copy per window: g = 1 */
    sizes(MSM_CURVE_G1, logs1, 3);
    pre_window = 0;
    pre_copies = 13; /* 2^24 at its chosen 20-bit window: one merged window */
    big(MSM_CURVE_G1, 24);
    pre_copies = 2;
    big(MSM_CURVE_G2, 22);

    /* a capped context (2^18 entries) over 2^20 points: 8 chunks add into each merged window */
    const size_t n = ((size_t)1 << 20) + 7;
    void *host;
    pre_copies = 2;
    pre_window = 16;
    msm_gpu_bases *gb = gen_bases(MSM_CURVE_G1, n, &host);
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(k);
    msm_gpu_ctx *saved = ctx, *small = NULL;
    assert_int_equal(msm_gpu_ctx_create(&small, 0, NULL, (size_t)1 << 18), 0);
    msm_gpu_ctx_set_precompute(small, MSM_PRE_FORCE);
    ctx = small;
    for (size_t j = 0; j < n; j++) make_scalar(&k[j], S_MIXED);
    check(MSM_CURVE_G1, gb, host, k, n - 7, MSM_SCALARS_HOST, "copies, capped entries");
    ctx = saved;
    msm_gpu_ctx_free(small);
    /* from an offset: copy j of point first + i */
    const size_t first = 7, m = 5000;
    g1_jac want, got;
    for (size_t j = 0; j < m; j++) make_scalar(&k[j], S_RANDOM);
    msm_g1(&want, (const g1_aff *)host + first, k, m, tp);
    assert_int_equal(msm_gpu_run(ctx, gb, first, k, m, CUZK_FR_CANONICAL, MSM_SCALARS_HOST, &got), 0);
    assert_true(g1_jac_eq(&want, &got));
    /* the cost model's choice: full-width scalars over all points take the copies */
    msm_gpu_ctx_set_precompute(ctx, MSM_PRE_AUTO);
    for (size_t j = 0; j < n; j++) make_scalar(&k[j], S_RANDOM);
    msm_gpu_stats st;
    pre_copies = 0; /* check() must not insist */
    check(MSM_CURVE_G1, gb, host, k, n, MSM_SCALARS_HOST, "copies by the cost model");
    msm_gpu_last_stats(ctx, &st);
    printf("2^20 + 7 full-width scalars, 16-bit copies x2: the cost model took %u copies\n", st.copies);
    /* freed: the plain plan again */
    assert_int_equal(msm_gpu_bases_precompute(gb, 1, 0), 0);
    assert_int_equal(msm_gpu_bases_copies(gb, NULL), 1);
    check(MSM_CURVE_G1, gb, host, k, n, MSM_SCALARS_HOST, "copies freed");
    msm_gpu_last_stats(ctx, &st);
    assert_int_equal(st.copies, 1);
    /* too many copies, or a window out of range */
    assert_int_equal(msm_gpu_bases_precompute(gb, 40, 8), CUZK_EINVAL);
    assert_int_equal(msm_gpu_bases_precompute(gb, 2, 30), CUZK_EINVAL);
    pre_window = 0;
    free(k);
    free(host);
    msm_gpu_bases_free(gb);
}

int main(void)
{
    if (gpu_test_begin()) return 77;
    tp = threadpool_create(0);
    if (msm_gpu_ctx_create(&ctx, 0, NULL, 0)) {
        printf("msm_gpu_ctx_create: %s\n", cuzk_last_error());
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_sizes_g1),
        cmocka_unit_test(test_edges_g1),
        cmocka_unit_test(test_sizes_g2),
        cmocka_unit_test(test_edges_g2),
        cmocka_unit_test(test_plans),
        cmocka_unit_test(test_reduce_modes),
        cmocka_unit_test(test_counted_deferred),
        cmocka_unit_test(test_gate_groups),
        cmocka_unit_test(test_streams),
        cmocka_unit_test(test_pieces_shared),
        cmocka_unit_test(test_lend),
        cmocka_unit_test(test_big_g1),
        cmocka_unit_test(test_big_g2),
        cmocka_unit_test(test_affine),
        cmocka_unit_test(test_affine_special),
        cmocka_unit_test(test_pairwise),
        cmocka_unit_test(test_auto_switch),
        cmocka_unit_test(test_scratch_held),
        cmocka_unit_test(test_pairwise_special),
        cmocka_unit_test(test_precompute),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    msm_gpu_ctx_free(ctx);
    threadpool_destroy(tp);
    return rc;
}
