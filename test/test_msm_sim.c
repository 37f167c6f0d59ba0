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
#include "support/fieldtest.h"
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

/* kind 5: this one random scalar for every point (every window one bucket of all of them) */
static fr_t same_k;

static void scalar(fr_t *k, int kind)
{
    memset(k, 0, sizeof *k);
    switch (kind) {
    case 0: rand_canonical(k); break;
    case 5: *k = same_k; break;
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
 * in when shaped (1); shaped 2: in equal neighbours (i / 2 % 3), negated in pairs of pairs and
 * with infinity now and then, so that sorted runs of equal scalars pair P + P, P + (-P) and
 * infinity in every round of a pairwise accumulation */
static void make_bases(int g2, void *out, size_t n, int shaped)
{
    size_t distinct = shaped ? (shaped == 2 ? 3 : 5) : n;
    for (size_t i = 0; i < n; i++) {
        fr_t c;
        if (i < distinct) rand_canonical(&c);
        const size_t from = shaped == 2 ? i / 2 % 3 : i % distinct;
        const int negate = shaped == 2 ? (int)(i / 4 % 2) : shaped && i % 7 == 3;
        const int inf = shaped == 2 ? i % 17 == 9 : shaped && i % 11 == 6;
        if (!g2) {
            g1_aff *b = (g1_aff *)out + i;
            if (i >= distinct) *b = ((g1_aff *)out)[from];
            else {
                g1_jac g, p;
                g1_jac_from_aff(&g, &G1_GENERATOR);
                g1_jac_mul(&p, &g, &c);
                g1_jac_to_aff(b, &p);
            }
            if (negate) g1_aff_neg(b, b);
            if (inf) memset(b, 0, sizeof *b);
        } else {
            g2_aff *b = (g2_aff *)out + i;
            if (i >= distinct) *b = ((g2_aff *)out)[from];
            else {
                g2_jac g, p;
                g2_jac_from_aff(&g, &G2_GENERATOR);
                g2_jac_mul(&p, &g, &c);
                g2_jac_to_aff(b, &p);
            }
            if (negate) g2_aff_neg(b, b);
            if (inf) memset(b, 0, sizeof *b);
        }
    }
}

/* Bucket accumulation of the cases below: XYZZ unless a test switches to affine steps. */
static int acc_kind = MSM_ACC_XYZZ;
static unsigned acc_min_batch, acc_rounds;

/* One case's inputs: n bases, their scalars k (canonical, for the CPU MSM) and the same in
 * the form the plan is given (mk, canonical or Montgomery at random). */
typedef struct {
    void *bases;
    fr_t *k, *mk;
    int form;
} case_inputs;

static void make_inputs(case_inputs *in, int g2, size_t n, int kind, int shaped)
{
    in->bases = malloc((n ? n : 1) * sizeof(g2_aff));
    in->k = malloc((n ? n : 1) * sizeof *in->k);
    in->mk = malloc((n ? n : 1) * sizeof *in->mk);
    assert_non_null(in->bases);
    assert_non_null(in->k);
    assert_non_null(in->mk);
    make_bases(g2, in->bases, n, shaped);
    rand_canonical(&same_k);
    for (size_t i = 0; i < n; i++) scalar(&in->k[i], kind);
    in->form = (int)(test_rand64() & 1);
    for (size_t i = 0; i < n; i++) {
        if (in->form == CUZK_FR_CANONICAL) in->mk[i] = in->k[i];
        else assert_true(fr_to_mont(&in->mk[i], &in->k[i]));
    }
}

static void free_inputs(case_inputs *in)
{
    free(in->bases);
    free(in->k);
    free(in->mk);
}

/* piece = 0: one MSM; else the same accumulated in pieces of that many points (the streamed
 * bases' path, msm_gpu_acc_*). */
static void run_case_pieces(int g2, size_t n, int kind, int shaped, unsigned window, size_t max_entries, size_t threads,
                            size_t piece)
{
    /* every way of accumulating pieces: each reducing its own buckets, sharing them without a
     * limit, or within 64 KiB .. 4 MiB (below 4-bit windows' 96/192 KiB, up to a 10-bit G1's) */
    const unsigned way = piece ? (unsigned)(test_rand64() % 3) : 0;
    const int persist = way == 2 ? (int)((size_t)65536 << (test_rand64() % 7)) : (int)way;
    case_inputs in;
    make_inputs(&in, g2, n, kind, shaped);
    void *bases = in.bases;
    const fr_t *k = in.k, *mk = in.mk;
    const int form = in.form;
    int ok;
    if (!g2) {
        g1_jac want, got;
        msm_g1(&want, bases, k, n, NULL);
        assert_int_equal(msm_sim_run_acc(MSM_CURVE_G1, acc_kind, acc_min_batch, acc_rounds, bases, mk, n, form, window,
                                         max_entries, threads, piece, persist, &got), 0);
        ok = g1_jac_eq(&want, &got);
    } else {
        g2_jac want, got;
        msm_g2(&want, bases, k, n, NULL);
        assert_int_equal(msm_sim_run_acc(MSM_CURVE_G2, acc_kind, acc_min_batch, acc_rounds, bases, mk, n, form, window,
                                         max_entries, threads, piece, persist, &got), 0);
        ok = g2_jac_eq(&want, &got);
    }
    if (!ok)
        printf("MISMATCH G%d n=%zu kind=%d shaped=%d window=%u max_entries=%zu threads=%zu form=%d piece=%zu acc=%d/%u/%u "
               "persist=%d\n",
               g2 + 1, n, kind, shaped, window, max_entries, threads, form, piece, acc_kind, acc_min_batch, acc_rounds,
               persist);
    assert_true(ok);
    free_inputs(&in);
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
    for (int rep = 0; rep < 2; rep++) {
    run_case_pieces(0, 64, 4, 1, 0, 0, 7, 1);
    run_case_pieces(0, 300, 4, 1, 0, 0, 7, 37);
    run_case_pieces(0, 300, 1, 0, 0, 0, 5, 100); /* all zeros */
    run_case_pieces(0, 200, 2, 0, 0, 0, 5, 64);  /* all ones */
    run_case_pieces(0, 300, 4, 1, 6, 50, 3, 128);
    run_case_pieces(1, 40, 4, 1, 0, 0, 3, 9);
    }
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

/* The device's binary-GCD inversion (run on the host) against lib/field's: 0, 1, p - 1, the
 * slow input 2^380 (more rounds than the fixed count), and random elements. */
static void test_inverse(void **state)
{
    (void)state;
    enum { N = 300 };
    fp_t in[N], got[N], want;
    for (int i = 0; i < N; i++) {
        uint64_t c[6];
        for (int j = 0; j < 6; j++) c[j] = test_rand64();
        c[5] &= 0x0fffffffffffffffull; /* below p */
        if (i == 0) memset(c, 0, sizeof c);
        if (i == 1) memset(c, 0, sizeof c), c[0] = 1;
        if (i == 2) memset(c, 0, sizeof c), c[5] = 1ull << 60;
        if (i == 3) fp_from_u64(&in[i], 1), fp_neg(&in[i], &in[i]);
        else if (i == 4) fp_from_u64(&in[i], 1);
        else fp_to_mont(&in[i], c);
        if (i == 2) in[i] = *(const fp_t *)c; /* the raw value 2^380 itself */
    }
    msm_sim_fp_inv(got, in, N);
    for (int i = 0; i < N; i++) {
        fp_inv(&want, &in[i]);
        if (!fp_eq(&want, &got[i])) printf("inverse %d wrong\n", i);
        assert_true(fp_eq(&want, &got[i]));
    }
}

/* Affine bucket steps (every step batched, min_batch 0, and a threshold that switches to XYZZ
 * part way): the plans and scalar kinds above, G1 and G2. */
static void test_affine(void **state)
{
    (void)state;
    acc_kind = MSM_ACC_AFFINE;
    const unsigned minb[] = {0, 3};
    for (int mb = 0; mb < 2; mb++) {
        acc_min_batch = minb[mb];
        for (int kind = 0; kind < 5; kind++) run_case(0, 64, kind, kind != 1, 0, 0, 3);
        run_case(0, 300, 0, 0, 5, 600, 3);
        run_case(0, 300, 4, 1, 8, 100, 1);
        run_case(0, 257, 0, 0, 6, 0, 257);
        run_case(0, 200, 4, 1, 11, 0, 16);
        run_case(0, 500, 3, 1, 4, 0, 2);
        run_case_pieces(0, 300, 4, 1, 0, 0, 7, 37);
        run_case(1, 40, 4, 1, 5, 50, 3);
        run_case(1, 33, 0, 0, 0, 0, 2);
    }
    acc_kind = MSM_ACC_XYZZ;
    acc_min_batch = 0;
}

/* Buckets whose runs hit every special case of an affine addition (ft_msm_affine_special;
 * bucket j: scalar j + 2, window 0 only); each bucket's net sum keeps its doubling (2Q
 * followed by -Q would undo even a wrong tangent: the chord formulas cancel). Scalars near r
 * (negative digits) in a second round. */
static void affine_special(int mode)
{
    enum { NB = 24, REP = 8 };
    const size_t n = NB * REP;
    g1_aff *bases = malloc(n * sizeof *bases), q[NB];
    fr_t *k = malloc(n * sizeof *k);
    assert_non_null(bases);
    assert_non_null(k);
    for (int j = 0; j < NB; j++) {
        fr_t c;
        g1_jac g, p;
        rand_canonical(&c);
        g1_jac_from_aff(&g, &G1_GENERATOR);
        g1_jac_mul(&p, &g, &c);
        g1_jac_to_aff(&q[j], &p);
    }
    for (int round = 0; round < 2; round++) {
        ft_msm_affine_special(bases, k, q, NB, n, round);
        g1_jac want, got;
        msm_g1(&want, bases, k, n, NULL);
        for (unsigned threads = 1; threads <= 4; threads++) {
            assert_int_equal(msm_sim_run_acc(MSM_CURVE_G1, mode, 0, 0, bases, k, n, CUZK_FR_CANONICAL,
                                             round ? 0 : 6, 0, threads, 0, 0, &got), 0);
            if (!g1_jac_eq(&want, &got)) printf("special cases: mode %d, round %d, %u threads\n", mode, round, threads);
            assert_true(g1_jac_eq(&want, &got));
        }
    }
    free(bases);
    free(k);
}

/* The pauses an MSM makes for an urgent partition (msm_gpu_ctx_set_gate): one before each
 * window group but the first — whole MSMs and pieces, shared buckets or not, small entry
 * caps that make many groups — none without a gate, and the sum unchanged (the CPU's). */
static void test_gate_pauses(void **state)
{
    (void)state;
    for (int it = 0; it < 16; it++) {
        const int g2 = it % 8 == 7, kind = it % 4 == 0 ? 4 : (int)(test_rand64() % 5), gated = it % 5 != 4;
        const size_t n = 1 + test_rand64() % (g2 ? 300 : 2500);
        const size_t piece = it % 3 ? 0 : 1 + test_rand64() % n, max_entries = 16 + test_rand64() % 1024;
        const int persist = piece && (test_rand64() & 1);
        const unsigned window = test_rand64() % 2 ? 0 : 4 + (unsigned)(test_rand64() % 9);
        case_inputs in;
        make_inputs(&in, g2, n, kind, 0);
        uint32_t groups = 0, pauses = 0;
        int ok;
        if (!g2) {
            g1_jac want, got;
            msm_g1(&want, in.bases, in.k, n, NULL);
            assert_int_equal(msm_sim_run_gated(MSM_CURVE_G1, in.bases, in.mk, n, in.form, window, max_entries, 7, piece,
                                               persist, gated, &got, &groups, &pauses), 0);
            ok = g1_jac_eq(&want, &got);
        } else {
            g2_jac want, got;
            msm_g2(&want, in.bases, in.k, n, NULL);
            assert_int_equal(msm_sim_run_gated(MSM_CURVE_G2, in.bases, in.mk, n, in.form, window, max_entries, 7, piece,
                                               persist, gated, &got, &groups, &pauses), 0);
            ok = g2_jac_eq(&want, &got);
        }
        printf("G%d n=%zu kind=%d piece=%zu persist=%d max_entries=%zu gated=%d: %u groups, %u pauses\n", g2 + 1, n,
               kind, piece, persist, max_entries, gated, groups, pauses);
        assert_true(ok);
        assert_int_equal(pauses, gated && groups ? groups - 1 : 0);
        free_inputs(&in);
    }
}

/* Counts told up front (msm_gpu_ctx_set_counts' plan): the host count of the classes equals a
 * naive one on the canonical scalars; the plan told them reads none back and gives the CPU
 * MSM's sum; told one "rest" scalar too few it misses that term (the counts are really used). */
static void test_counted(void **state)
{
    (void)state;
    for (int it = 0; it < 12; it++) {
        const int g2 = it % 4 == 3, kind = it % 3 == 0 ? 4 : (int)(test_rand64() % 5);
        const size_t n = 1 + test_rand64() % (g2 ? 200 : 3000);
        case_inputs in;
        make_inputs(&in, g2, n, kind, 0);
        void *bases = in.bases;
        const fr_t *k = in.k, *mk = in.mk;
        const int form = in.form;
        uint32_t naive[2] = {0, 0}, counts[2];
        for (size_t i = 0; i < n; i++) {
            const int zero = fr_is_zero(&k[i]), one = !zero && k[i].l[0] == 1 && !k[i].l[1] && !k[i].l[2] && !k[i].l[3];
            naive[0] += one;
            naive[1] += !zero && !one;
        }
        msm_count_classes_host(mk, n, form, counts);
        assert_int_equal(counts[0], naive[0]);
        assert_int_equal(counts[1], naive[1]);
        const unsigned window = test_rand64() % 2 ? 0 : 4 + (unsigned)(test_rand64() % 9);
        uint32_t fewer[2] = {counts[0], counts[1] ? counts[1] - 1 : 0};
        if (!g2) {
            g1_jac want, got, less;
            msm_g1(&want, bases, k, n, NULL);
            assert_int_equal(msm_sim_run_counted(MSM_CURVE_G1, bases, mk, n, form, window, 0, 7, counts, &got), 0);
            assert_true(g1_jac_eq(&want, &got));
            assert_int_equal(msm_sim_run_counted(MSM_CURVE_G1, bases, mk, n, form, window, 0, 7, fewer, &less), 0);
            if (counts[1]) assert_false(g1_jac_eq(&want, &less));
        } else {
            g2_jac want, got, less;
            msm_g2(&want, bases, k, n, NULL);
            assert_int_equal(msm_sim_run_counted(MSM_CURVE_G2, bases, mk, n, form, window, 0, 7, counts, &got), 0);
            assert_true(g2_jac_eq(&want, &got));
            assert_int_equal(msm_sim_run_counted(MSM_CURVE_G2, bases, mk, n, form, window, 0, 7, fewer, &less), 0);
            if (counts[1]) assert_false(g2_jac_eq(&want, &less));
        }
        free_inputs(&in);
    }
}

static void test_affine_special(void **state)
{
    (void)state;
    affine_special(MSM_ACC_AFFINE);
}

/* Pairwise rounds (msm_pairwise.cuh) against the CPU MSM: every round while any pair is left
 * (min pairs 0), a threshold and round limits that leave scratch sums, round 1's odd entries
 * and untouched runs to the XYZZ finish; runs of one or two entries, of ~20, and of hundreds
 * per thread (one bucket per window: many rounds); bases in equal, negated and infinite
 * neighbours under one scalar (P + P, P + (-P) and infinity in the rounds); 0, 1, r - 1; G2.
 * A wrong tangent, a dropped odd entry or a misplaced sum fails them. */
static void test_pairwise(void **state)
{
    (void)state;
    acc_kind = MSM_ACC_PAIRWISE;
    const unsigned minb[] = {0, 0, 0, 5}, rounds[] = {0, 1, 2, 3};
    for (int v = 0; v < 4; v++) {
        acc_min_batch = minb[v];
        acc_rounds = rounds[v];
        const size_t small[] = {1, 2, 3, 17, 64};
        for (int s = 0; s < 5; s++)
            for (int kind = 0; kind < 6; kind++) run_case(0, small[s], kind, s >= 3 && kind != 1, 0, 0, 3);
        run_case(0, 301, 5, 2, 6, 0, 7);     /* one bucket per window: runs of ~40 a thread */
        run_case(0, 200, 4, 1, 8, 0, 16);    /* runs of one or two */
        run_case(1, 40, 4, 1, 5, 50, 3);
    }
    acc_min_batch = 0;
    acc_rounds = 0;
    run_case(0, 300, 4, 1, 8, 100, 1);       /* point chunks, one level-0 thread */
    run_case(0, 257, 0, 0, 6, 0, 257);       /* about one entry per thread */
    run_case(0, 150, 3, 1, 4, 0, 2);         /* r - 1 */
    run_case(0, 3000, 4, 1, 8, 0, 3);        /* a few thousand: runs of ~20 */
    run_case(0, 2000, 5, 2, 9, 0, 2);        /* long runs: 1000 entries a thread, 10 rounds */
    run_case(0, 1000, 0, 0, 9, 0, 5);        /* short runs (~4 entries a bucket) */
    run_case_pieces(0, 300, 4, 1, 0, 0, 7, 37);
    run_case(1, 33, 0, 0, 0, 0, 2);
    run_case(1, 60, 5, 2, 4, 0, 2);
    run_case(1, 150, 4, 1, 8, 0, 3);
    /* the ones' sum in pairwise rounds (plan_ones): chunks of the entry cap, each into its own
     * slot and then the running ones; one thread (its run stored, not a partial); G2 */
    acc_min_batch = 5;
    run_case(0, 500, 2, 2, 0, 64, 3);        /* all ones, 8 chunks: P + P, P + (-P), infinity */
    run_case(0, 40, 2, 1, 0, 0, 1);          /* one level-0 thread */
    run_case(0, 300, 2, 2, 0, 64, 1);        /* one thread, 5 chunks: each stored, then added */
    run_case_pieces(0, 200, 2, 1, 0, 0, 1, 64); /* one thread a piece: the ones of earlier pieces kept */
    run_case(0, 2000, 4, 1, 8, 300, 3);      /* ones and the rest, both in chunks */
    run_case(1, 90, 2, 2, 0, 32, 2);
    run_case_pieces(0, 300, 2, 2, 0, 64, 3, 128);
    acc_min_batch = 0;
    acc_kind = MSM_ACC_XYZZ;
}

/* MSM_ACC_AUTO (the device contexts' default): pairwise rounds for a piece of at least
 * CUZK_MSM_PAIR_MIN scalars other than 0 and 1, XYZZ below (with its own window model), also
 * both within one accumulated MSM whose pieces straddle the threshold. */
static void test_auto(void **state)
{
    (void)state;
    setenv("CUZK_MSM_PAIR_MIN", "100", 1);
    acc_kind = MSM_ACC_AUTO;
    run_case(0, 64, 4, 1, 0, 0, 7);             /* below: XYZZ */
    run_case(0, 300, 4, 1, 0, 0, 7);            /* above: pairwise */
    run_case(0, 300, 5, 2, 0, 0, 3);            /* the PoRep shape: mostly 0 and 1, the rest below */
    run_case_pieces(0, 300, 4, 1, 0, 0, 7, 128); /* pieces of 128, 128, 44: pairwise, then XYZZ */
    run_case_pieces(0, 300, 4, 1, 6, 50, 3, 37); /* every piece below, window fixed */
    run_case(1, 150, 4, 1, 0, 0, 3);
    acc_kind = MSM_ACC_XYZZ;
    unsetenv("CUZK_MSM_PAIR_MIN");
}

static void test_pairwise_special(void **state)
{
    (void)state;
    affine_special(MSM_ACC_PAIRWISE);
}

/* The plan over precomputed shifted copies of the bases (msm_sim_run_pre, copies made by the
 * device's shift run on the host): shift = 0 is the right one and must match the CPU MSM; any
 * other shift must not (so a wrong shift, or copies the plan ignored, fail). */
static void run_case_pre(int g2, size_t n, int kind, int shaped, unsigned copies, unsigned window,
                         size_t max_entries, size_t threads, unsigned shift, int mode)
{
    case_inputs in;
    make_inputs(&in, g2, n, kind, shaped);
    void *bases = in.bases;
    const fr_t *k = in.k, *mk = in.mk;
    const int form = in.form;
    int ok;
    if (!g2) {
        g1_jac want, got;
        msm_g1(&want, bases, k, n, NULL);
        int rc = msm_sim_run_pre(MSM_CURVE_G1, bases, mk, n, form, copies, window, shift, mode, max_entries, threads,
                                 &got);
        if (rc) printf("msm_sim_run_pre: %s\n", cuzk_last_error());
        assert_int_equal(rc, 0);
        ok = g1_jac_eq(&want, &got);
    } else {
        g2_jac want, got;
        msm_g2(&want, bases, k, n, NULL);
        assert_int_equal(msm_sim_run_pre(MSM_CURVE_G2, bases, mk, n, form, copies, window, shift, mode, max_entries,
                                         threads, &got), 0);
        ok = g2_jac_eq(&want, &got);
    }
    if (ok != !shift)
        printf("%s G%d n=%zu kind=%d shaped=%d copies=%u window=%u max_entries=%zu threads=%zu form=%d shift=%u\n",
               shift ? "WRONG SHIFT ACCEPTED" : "MISMATCH", g2 + 1, n, kind, shaped, copies, window, max_entries,
               threads, form, shift);
    assert_int_equal(ok, !shift);
    free_inputs(&in);
}

static void test_precompute(void **state)
{
    (void)state;
    for (int aff = 0; aff < 3; aff++) {
        setenv("CUZK_MSM_ACC", aff == 2 ? "pairwise" : aff ? "affine" : "xyzz", 1);
        for (int kind = 0; kind < 5; kind++) run_case_pre(0, 64, kind, kind != 1, 2, 5, 0, 7, 0, MSM_PRE_FORCE);
        run_case_pre(0, 1, 3, 0, 2, 6, 0, 3, 0, MSM_PRE_FORCE);       /* r - 1 alone */
        run_case_pre(0, 100, 4, 1, 3, 6, 0, 5, 0, MSM_PRE_FORCE);     /* 43 windows: 45 slots, 2 empty */
        run_case_pre(0, 100, 0, 1, 32, 8, 0, 9, 0, MSM_PRE_FORCE);    /* one copy per window: g = 1 */
        run_case_pre(0, 300, 4, 1, 2, 6, 100, 3, 0, MSM_PRE_FORCE);   /* point chunks adding into buckets */
        run_case_pre(0, 100, 0, 0, 4, 5, 2000, 4, 0, MSM_PRE_FORCE);  /* merged-window groups of 5 */
        run_case_pre(0, 120, 0, 0, 2, 7, 0, 240, 0, MSM_PRE_FORCE);   /* about one entry per thread */
        run_case_pre(1, 20, 4, 1, 2, 5, 0, 3, 0, MSM_PRE_FORCE);
        run_case_pre(0, 200, 4, 1, 2, 0, 0, 7, 0, MSM_PRE_AUTO);      /* the cost model's choice */
    }
    setenv("CUZK_MSM_ACC", "xyzz", 1);
    /* must be able to fail: copies one doubling off, or shifted by the plain window size */
    run_case_pre(0, 40, 0, 0, 2, 5, 0, 7, 5 * 26 + 1, MSM_PRE_FORCE);
    run_case_pre(0, 40, 0, 0, 3, 6, 0, 7, 6, MSM_PRE_FORCE);
    run_case_pre(1, 10, 0, 0, 2, 5, 0, 3, 5 * 26 - 1, MSM_PRE_FORCE);
}

/* ---- the bucket reduction alone (msm_sim_reduce), both modes ---- */

/* Buckets as the device lays them out (kernels/curve/xyzz.cuh): x = X/ZZ, y = Y/ZZZ, ZZ^3 =
 * ZZZ^2; infinity ZZ = 0. */
typedef struct {
    fp_t x, y, zz, zzz;
} g1_xyzz;
typedef struct {
    fp2_t x, y, zz, zzz;
} g2_xyzz;

/* An affine point in XYZZ with a random scale l (X = x·l^2, Y = y·l^3, ZZ = l^2, ZZZ = l^3):
 * the reduction must not rely on ZZ = 1. */
static void to_xyzz(int g2, void *out, const void *aff)
{
    if (!g2) {
        const g1_aff *a = aff;
        g1_xyzz *r = out;
        memset(r, 0, sizeof *r);
        if (fp_is_zero(&a->x) && fp_is_zero(&a->y)) return;
        fp_t l;
        do ft_rand_fp(&l);
        while (fp_is_zero(&l));
        fp_sqr(&r->zz, &l);
        fp_mul(&r->zzz, &r->zz, &l);
        fp_mul(&r->x, &a->x, &r->zz);
        fp_mul(&r->y, &a->y, &r->zzz);
    } else {
        const g2_aff *a = aff;
        g2_xyzz *r = out;
        memset(r, 0, sizeof *r);
        if (fp2_is_zero(&a->x) && fp2_is_zero(&a->y)) return;
        fp2_t l;
        do ft_rand_fp2(&l);
        while (fp2_is_zero(&l));
        fp2_sqr(&r->zz, &l);
        fp2_mul(&r->zzz, &r->zz, &l);
        fp2_mul(&r->x, &a->x, &r->zz);
        fp2_mul(&r->y, &a->y, &r->zzz);
    }
}

/* g windows of B = 2^(c-1) buckets drawn from `pool` random points and their negatives (a
 * small pool makes running sums meet P + P and P + (-P)), by window: w % 4 == 0 about a
 * quarter empty at random, 1 its first half empty (whole segments of infinity), 2 all empty,
 * 3 none. Each window's sum from both reductions (threads: one wave, msm_sim_reduce) against
 * the CPU MSM of its buckets' affine points with scalars k + 1, and against each other. */
static void reduce_case(int g2, unsigned c, unsigned g, size_t threads, size_t pool)
{
    const size_t B = (size_t)1 << (c - 1), n = g * B;
    const size_t pa = g2 ? sizeof(g2_aff) : sizeof(g1_aff), px = g2 ? sizeof(g2_xyzz) : sizeof(g1_xyzz);
    const size_t pj = g2 ? sizeof(g2_jac) : sizeof(g1_jac);
    unsigned char *aff = malloc(n * pa), *xyzz = malloc(n * px), *pts = malloc(pool * pa);
    unsigned char *got[2] = {malloc(g * pj), malloc(g * pj)};
    fr_t *k = calloc(B, sizeof *k);
    assert_true(aff && xyzz && pts && got[0] && got[1] && k);
    make_bases(g2, pts, pool, 0);
    for (size_t i = 0; i < B; i++) k[i].l[0] = i + 1;
    for (unsigned w = 0; w < g; w++)
        for (size_t i = 0; i < B; i++) {
            unsigned char *a = aff + (w * B + i) * pa;
            const int shape = (int)(w % 4);
            const int empty = shape == 2 || (shape == 1 && i < B / 2) || (shape == 0 && test_rand64() % 4 == 0);
            if (empty) memset(a, 0, pa);
            else {
                memcpy(a, pts + (test_rand64() % pool) * pa, pa);
                if (test_rand64() & 1) {
                    if (g2) g2_aff_neg((g2_aff *)a, (g2_aff *)a);
                    else g1_aff_neg((g1_aff *)a, (g1_aff *)a);
                }
            }
            to_xyzz(g2, xyzz + (w * B + i) * px, a);
        }
    const int curve = g2 ? MSM_CURVE_G2 : MSM_CURVE_G1;
    const int modes[2] = {MSM_REDUCE_SEGMUL, MSM_REDUCE_LEVELS};
    for (int m = 0; m < 2; m++) {
        const int rc = msm_sim_reduce(curve, modes[m], c, g, threads, xyzz, got[m]);
        if (rc) printf("msm_sim_reduce: %s\n", cuzk_last_error());
        assert_int_equal(rc, 0);
    }
    int ok = 1;
    for (unsigned w = 0; w < g; w++) {
        int eq[3];
        if (!g2) {
            g1_jac want;
            const g1_jac *o = (const g1_jac *)got[0] + w, *l = (const g1_jac *)got[1] + w;
            msm_g1(&want, (const g1_aff *)aff + w * B, k, B, NULL);
            eq[0] = g1_jac_eq(&want, o), eq[1] = g1_jac_eq(&want, l), eq[2] = g1_jac_eq(o, l);
        } else {
            g2_jac want;
            const g2_jac *o = (const g2_jac *)got[0] + w, *l = (const g2_jac *)got[1] + w;
            msm_g2(&want, (const g2_aff *)aff + w * B, k, B, NULL);
            eq[0] = g2_jac_eq(&want, o), eq[1] = g2_jac_eq(&want, l), eq[2] = g2_jac_eq(o, l);
        }
        if (!eq[0] || !eq[1] || !eq[2]) {
            printf("REDUCE MISMATCH G%d c=%u window %u of %u threads=%zu pool=%zu: segmul %s, levels %s, %s\n",
                   g2 + 1, c, w, g, threads, pool, eq[0] ? "right" : "WRONG", eq[1] ? "right" : "WRONG",
                   eq[2] ? "equal" : "different");
            ok = 0;
        }
    }
    assert_true(ok);
    free(aff), free(xyzz), free(pts), free(got[0]), free(got[1]), free(k);
}

/* Window sizes whose windows are one segment (B <= 32 = MSM_SEG: c <= 6), two (c = 7), a few
 * (c = 9), many (c = 13, 16) and 2^14 of them (c = 20, an H200 MSM's); one-thread waves keep
 * segments at 32 buckets and level 1 at 32 pairs, 64 (the simulation's default) shortens
 * them for small windows, 2^22 shortens level 0's to 2 buckets and level 1's to 4 pairs. */
static void test_reduce(void **state)
{
    (void)state;
    const unsigned cs[] = {2, 3, 4, 5, 6, 7, 9, 13};
    const size_t waves[] = {1, 64, (size_t)1 << 22};
    for (int i = 0; i < 8; i++)
        for (int t = 0; t < 3; t++) {
            reduce_case(0, cs[i], 4, waves[t], t == 1 ? 2 : 24);
            if (cs[i] <= 9 || t == 1) reduce_case(1, cs[i], 4, waves[t], t == 1 ? 24 : 2);
        }
    reduce_case(0, 16, 2, 64, 24);
    reduce_case(0, 14, 2, (size_t)1 << 22, 3);
    reduce_case(1, 14, 2, 64, 3);
    reduce_case(0, 20, 1, 64, 64); /* ~20 s: 2^19 buckets, both modes, in emulated arithmetic */
}

/* The whole plan with the old reduction (CUZK_MSM_REDUCE=0, as a device context would read
 * it; every other test runs the default, the new one, for G1 and G2): tiny and wide windows,
 * window groups, point chunks, pieces with persistent buckets, precomputed copies, G2. */
static void test_reduce_segmul_plans(void **state)
{
    (void)state;
    unsetenv("CUZK_MSM_REDUCE");
    assert_int_equal(msm_reduce_from_env(), MSM_REDUCE_AUTO);
    setenv("CUZK_MSM_REDUCE", "", 1);
    assert_int_equal(msm_reduce_from_env(), MSM_REDUCE_AUTO);
    setenv("CUZK_MSM_REDUCE", "2", 1); /* no mode: the default, not one of the two */
    assert_int_equal(msm_reduce_from_env(), MSM_REDUCE_AUTO);
    setenv("CUZK_MSM_REDUCE", "levels", 1);
    assert_int_equal(msm_reduce_from_env(), MSM_REDUCE_AUTO);
    setenv("CUZK_MSM_REDUCE", "1", 1);
    assert_int_equal(msm_reduce_from_env(), MSM_REDUCE_LEVELS);
    setenv("CUZK_MSM_REDUCE", "0", 1);
    assert_int_equal(msm_reduce_from_env(), MSM_REDUCE_SEGMUL);
    for (int kind = 0; kind < 5; kind++) run_case(0, 64, kind, kind != 1, 0, 0, 7);
    run_case(0, 300, 0, 0, 5, 600, 3);
    run_case(0, 200, 4, 1, 11, 0, 16);
    run_case(0, 300, 4, 1, 8, 100, 1);
    run_case_pieces(0, 300, 4, 1, 6, 50, 3, 128);
    run_case_pre(0, 100, 4, 1, 3, 6, 0, 5, 0, MSM_PRE_FORCE);
    run_case(1, 40, 4, 1, 5, 50, 3);
    run_case(1, 33, 0, 0, 0, 0, 64);
    unsetenv("CUZK_MSM_REDUCE");
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_g1),
        cmocka_unit_test(test_plans_g1),
        cmocka_unit_test(test_g2),
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_inverse),
        cmocka_unit_test(test_affine),
        cmocka_unit_test(test_affine_special),
        cmocka_unit_test(test_counted),
        cmocka_unit_test(test_gate_pauses),
        cmocka_unit_test(test_pairwise),
        cmocka_unit_test(test_pairwise_special),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_precompute),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_reduce_segmul_plans),
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
