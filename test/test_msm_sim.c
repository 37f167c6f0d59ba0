/*
 * The CUDA MSM's plan (kernels/msm: digits, sort, bucket levels, reductions, 0/1 split, window
 * groups, point chunks) run on the host by msm_sim_run, against the CPU MSM. Needs no GPU, so
 * CI checks the kernels' logic too; skipped (77) in builds without CUDA.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "msm/msm_cpu.h"
#include "support/testutil.h"

#ifdef CUZK_HAVE_CUDA
#include "msm.h"

static const fr_t R_MINUS_1 = {{0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                0x73eda753299d7d48ull}};

static void rand_canonical(fr_t *k)
{
    do {
        for (int i = 0; i < 4; i++) k->l[i] = test_rand64();
        k->l[3] &= 0x7fffffffffffffffull;
    } while (!fr_is_canonical(k));
}

static void scalar(fr_t *k, int kind)
{
    memset(k, 0, sizeof *k);
    switch (kind) {
    case 0: rand_canonical(k); break;
    case 1: break;                      /* all zero */
    case 2: k->l[0] = 1; break;         /* all one */
    case 3: *k = R_MINUS_1; break;
    default:
        switch (test_rand64() % 6) {
        case 0: break;
        case 1: k->l[0] = 1; break;
        case 2: k->l[0] = test_rand64() & 0xff; break;
        case 3: *k = R_MINUS_1; break;
        case 4: k->l[0] = test_rand64(); break;
        default: rand_canonical(k);
        }
    }
}

/* bases: a few random multiples of the generator, repeated, with negatives and infinity mixed
 * in when shaped */
static void make_bases(int g2, void *out, size_t n, int shaped)
{
    size_t distinct = shaped ? 5 : n;
    for (size_t i = 0; i < n; i++) {
        fr_t c;
        if (i < distinct) rand_canonical(&c);
        if (!g2) {
            g1_aff *b = (g1_aff *)out + i;
            if (i >= distinct) *b = ((g1_aff *)out)[i % distinct];
            else {
                g1_jac g, p;
                g1_jac_from_aff(&g, &G1_GENERATOR);
                g1_jac_mul(&p, &g, &c);
                g1_jac_to_aff(b, &p);
            }
            if (shaped && i % 7 == 3) g1_aff_neg(b, b);
            if (shaped && i % 11 == 6) memset(b, 0, sizeof *b);
        } else {
            g2_aff *b = (g2_aff *)out + i;
            if (i >= distinct) *b = ((g2_aff *)out)[i % distinct];
            else {
                g2_jac g, p;
                g2_jac_from_aff(&g, &G2_GENERATOR);
                g2_jac_mul(&p, &g, &c);
                g2_jac_to_aff(b, &p);
            }
            if (shaped && i % 7 == 3) g2_aff_neg(b, b);
            if (shaped && i % 11 == 6) memset(b, 0, sizeof *b);
        }
    }
}

/* piece = 0: one MSM; else the same accumulated in pieces of that many points (the streamed
 * bases' path, msm_gpu_acc_*). */
static void run_case_pieces(int g2, size_t n, int kind, int shaped, unsigned window, size_t max_entries, size_t threads,
                            size_t piece)
{
    void *bases = malloc((n ? n : 1) * sizeof(g2_aff));
    fr_t *k = malloc((n ? n : 1) * sizeof *k), *mk = malloc((n ? n : 1) * sizeof *k);
    assert_non_null(bases);
    assert_non_null(k);
    assert_non_null(mk);
    make_bases(g2, bases, n, shaped);
    for (size_t i = 0; i < n; i++) scalar(&k[i], kind);
    int form = (int)(test_rand64() & 1);
    for (size_t i = 0; i < n; i++) {
        if (form == CUZK_FR_CANONICAL) mk[i] = k[i];
        else assert_true(fr_to_mont(&mk[i], &k[i]));
    }
    int ok;
    if (!g2) {
        g1_jac want, got;
        msm_g1(&want, bases, k, n, NULL);
        assert_int_equal(msm_sim_run_pieces(MSM_CURVE_G1, bases, mk, n, form, window, max_entries, threads, piece, &got), 0);
        ok = g1_jac_eq(&want, &got);
    } else {
        g2_jac want, got;
        msm_g2(&want, bases, k, n, NULL);
        assert_int_equal(msm_sim_run_pieces(MSM_CURVE_G2, bases, mk, n, form, window, max_entries, threads, piece, &got), 0);
        ok = g2_jac_eq(&want, &got);
    }
    if (!ok)
        printf("MISMATCH G%d n=%zu kind=%d shaped=%d window=%u max_entries=%zu threads=%zu form=%d piece=%zu\n",
               g2 + 1, n, kind, shaped, window, max_entries, threads, form, piece);
    assert_true(ok);
    free(bases);
    free(k);
    free(mk);
}

static void run_case(int g2, size_t n, int kind, int shaped, unsigned window, size_t max_entries, size_t threads)
{
    run_case_pieces(g2, n, kind, shaped, window, max_entries, threads, 0);
}

/* Accumulated in pieces (bases streamed from host memory): pieces of one point, pieces that
 * do not divide n, pieces of only zeros or only ones, window groups and point chunks inside a
 * piece, and G2. */
static void test_pieces(void **state)
{
    (void)state;
    run_case_pieces(0, 64, 4, 1, 0, 0, 7, 1);
    run_case_pieces(0, 300, 4, 1, 0, 0, 7, 37);
    run_case_pieces(0, 300, 1, 0, 0, 0, 5, 100); /* all zeros */
    run_case_pieces(0, 200, 2, 0, 0, 0, 5, 64);  /* all ones */
    run_case_pieces(0, 300, 4, 1, 6, 50, 3, 128);
    run_case_pieces(1, 40, 4, 1, 0, 0, 3, 9);
}

static void test_small_g1(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 2, 3, 17, 64};
    for (int s = 0; s < 6; s++)
        for (int kind = 0; kind < 5; kind++) run_case(0, sizes[s], kind, s >= 4 && kind != 1, 0, 0, 7);
}

/* Plans that a GPU reaches only at large sizes: many window groups (tiny entry caps), point
 * chunks, one thread per entry (every bucket split across threads), wide windows. */
static void test_plans_g1(void **state)
{
    (void)state;
    run_case(0, 300, 0, 0, 5, 600, 3);    /* window groups of 2 */
    run_case(0, 300, 4, 1, 8, 100, 1);    /* point chunks of 100, one level-0 thread */
    run_case(0, 257, 0, 0, 6, 0, 257);    /* about one entry per thread */
    run_case(0, 200, 4, 1, 11, 0, 16);    /* buckets mostly empty */
    run_case(0, 500, 2, 1, 0, 0, 5);      /* all ones: one huge bucket-free sum */
}

static void test_g2(void **state)
{
    (void)state;
    run_case(1, 1, 0, 0, 0, 0, 7);
    run_case(1, 3, 3, 0, 0, 0, 7);
    run_case(1, 40, 4, 1, 5, 50, 3);
    run_case(1, 33, 0, 0, 0, 0, 64);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_g1),
        cmocka_unit_test(test_plans_g1),
        cmocka_unit_test(test_g2),
        cmocka_unit_test(test_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
    printf("SKIP: built without CUDA (msm_sim_run lives in kernels/msm)\n");
    return 77;
}
#endif
