/*
 * G1 and G2 group law against a naive affine reference (slope formulas with one inversion
 * per step), scalar multiplication laws, batch conversion, curve and subgroup checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "field/curve.h"
#include "field/field_internal.h"
#include "support/fieldtest.h"
#include "support/testutil.h"

/* G1 cofactor h1 = 0x396c8c005555e1568c00aaab0000aaab. */
static const fr_t G1_COFACTOR = {{0x8c00aaab0000aaabull, 0x396c8c005555e156ull, 0, 0}};

/* The reference and the random helpers are written once for both groups. */
#define GROUP_HELPERS(G, GEN, FE, fe)                                                               \
    /* Affine sum by the textbook slope formulas: an independent path from Jacobian. */     \
    static void G##_ref_add(G##_aff *r, const G##_aff *p, const G##_aff *q)                 \
    {                                                                                        \
        if (G##_aff_is_inf(p)) { *r = *q; return; }                                          \
        if (G##_aff_is_inf(q)) { *r = *p; return; }                                          \
        FE l, t, x3, y3;                                                                     \
        if (fe##_eq(&p->x, &q->x)) {                                                         \
            fe##_add(&t, &p->y, &q->y);                                                      \
            if (fe##_is_zero(&t)) { memset(r, 0, sizeof *r); return; }                       \
            fe##_sqr(&l, &p->x);                                                             \
            fe##_add(&t, &l, &l);                                                            \
            fe##_add(&l, &t, &l);                                                            \
            fe##_dbl(&t, &p->y);                                                             \
        } else {                                                                             \
            fe##_sub(&l, &q->y, &p->y);                                                      \
            fe##_sub(&t, &q->x, &p->x);                                                      \
        }                                                                                    \
        fe##_inv(&t, &t);                                                                    \
        fe##_mul(&l, &l, &t);                                                                \
        fe##_sqr(&x3, &l);                                                                   \
        fe##_sub(&x3, &x3, &p->x);                                                           \
        fe##_sub(&x3, &x3, &q->x);                                                           \
        fe##_sub(&t, &p->x, &x3);                                                            \
        fe##_mul(&y3, &l, &t);                                                               \
        fe##_sub(&r->y, &y3, &p->y);                                                         \
        r->x = x3;                                                                           \
    }                                                                                        \
    /* k·P by double-and-add over the reference. */                                          \
    static void G##_ref_mul(G##_aff *r, const G##_aff *p, const fr_t *k)                    \
    {                                                                                        \
        G##_aff acc;                                                                         \
        memset(&acc, 0, sizeof acc);                                                         \
        for (int i = 255; i >= 0; i--) {                                                     \
            G##_ref_add(&acc, &acc, &acc);                                                   \
            if ((k->l[i / 64] >> (i % 64)) & 1) G##_ref_add(&acc, &acc, p);                   \
        }                                                                                    \
        *r = acc;                                                                            \
    }                                                                                        \
    /* The same point with a random z (X·λ^2, Y·λ^3, λ·Z), so equal points differ in memory. */\
    static void G##_rescale(G##_jac *p)                                                      \
    {                                                                                        \
        FE lam, l2;                                                                          \
        ft_rand_##fe(&lam);                                                                  \
        if (fe##_is_zero(&lam)) return;                                                      \
        fe##_sqr(&l2, &lam);                                                                 \
        fe##_mul(&p->x, &p->x, &l2);                                                         \
        fe##_mul(&l2, &l2, &lam);                                                            \
        fe##_mul(&p->y, &p->y, &l2);                                                         \
        fe##_mul(&p->z, &p->z, &lam);                                                        \
    }                                                                                        \
    static void G##_rand_point(G##_jac *r)                                                   \
    {                                                                                        \
        fr_t k; /* uniform, so distinct calls give distinct finite points */                 \
        do {                                                                                 \
            for (int i = 0; i < 4; i++) k.l[i] = test_rand64();                              \
            k.l[3] >>= 1;                                                                    \
        } while (!fr_is_canonical(&k) || fr_is_zero(&k));                                    \
        G##_jac g;                                                                           \
        G##_jac_from_aff(&g, &GEN);                                                \
        G##_jac_mul(r, &g, &k);                                                              \
        G##_rescale(r);                                                                      \
    }                                                                                        \
    static void G##_assert_jac_is_aff(const G##_jac *j, const G##_aff *a)                    \
    {                                                                                        \
        G##_aff t;                                                                           \
        G##_jac_to_aff(&t, j);                                                               \
        assert_true(fe##_eq(&t.x, &a->x) && fe##_eq(&t.y, &a->y));                            \
    }

static void ft_rand_fp2_(fp2_t *r) { ft_rand_fp2(r); }
#define ft_rand_fp2 ft_rand_fp2_
GROUP_HELPERS(g1, G1_GENERATOR, fp_t, fp)
GROUP_HELPERS(g2, G2_GENERATOR, fp2_t, fp2)

/* The group laws, run for G1 and G2 from one body. */
#define GROUP_LAW_TEST(G, ITERS)                                                             \
    static void G##_group_law(void **state)                                                  \
    {                                                                                        \
        (void)state;                                                                         \
        for (int i = 0; i < ITERS; i++) {                                                    \
            G##_jac p, q, s, t, u, inf;                                                      \
            G##_aff pa, qa, ra;                                                              \
            G##_rand_point(&p);                                                              \
            G##_rand_point(&q);                                                              \
            G##_jac_to_aff(&pa, &p);                                                         \
            G##_jac_to_aff(&qa, &q);                                                         \
            assert_true(G##_aff_is_on_curve(&pa));                                           \
            G##_ref_add(&ra, &pa, &qa);                                                      \
            G##_jac_add(&s, &p, &q);                                                         \
            G##_assert_jac_is_aff(&s, &ra);                                                  \
            G##_jac_add_aff(&s, &p, &qa);                                                    \
            G##_assert_jac_is_aff(&s, &ra);                                                  \
            G##_jac_add(&s, &q, &p);                                                         \
            G##_assert_jac_is_aff(&s, &ra);                                                  \
            /* Doubling, through every entry point, with a differently scaled copy. */       \
            G##_ref_add(&ra, &pa, &pa);                                                      \
            G##_jac_dbl(&s, &p);                                                             \
            G##_assert_jac_is_aff(&s, &ra);                                                  \
            t = p;                                                                           \
            G##_rescale(&t);                                                                 \
            assert_true(G##_jac_eq(&t, &p));                                                 \
            G##_jac_add(&s, &p, &t);                                                         \
            G##_assert_jac_is_aff(&s, &ra);                                                  \
            G##_jac_add_aff(&s, &t, &pa);                                                    \
            G##_assert_jac_is_aff(&s, &ra);                                                  \
            /* P + (-P) = O; O is the identity on both sides; aliasing output = input. */    \
            G##_jac_neg(&t, &p);                                                             \
            G##_rescale(&t);                                                                 \
            G##_jac_add(&s, &p, &t);                                                         \
            assert_true(G##_jac_is_inf(&s));                                                 \
            G##_aff_neg(&ra, &pa);                                                           \
            G##_jac_add_aff(&s, &p, &ra);                                                    \
            assert_true(G##_jac_is_inf(&s));                                                 \
            G##_jac_set_inf(&inf);                                                           \
            G##_jac_add(&s, &inf, &p);                                                       \
            assert_true(G##_jac_eq(&s, &p));                                                 \
            G##_jac_add(&s, &p, &inf);                                                       \
            assert_true(G##_jac_eq(&s, &p));                                                 \
            G##_jac_add_aff(&s, &inf, &pa);                                                  \
            assert_true(G##_jac_eq(&s, &p));                                                 \
            memset(&ra, 0, sizeof ra);                                                       \
            G##_jac_add_aff(&s, &p, &ra);                                                    \
            assert_true(G##_jac_eq(&s, &p));                                                 \
            G##_jac_dbl(&s, &inf);                                                           \
            assert_true(G##_jac_is_inf(&s));                                                 \
            assert_false(G##_jac_eq(&p, &inf));                                              \
            assert_false(G##_jac_eq(&p, &q));                                                \
            /* Associativity. */                                                             \
            G##_rand_point(&u);                                                              \
            G##_jac_add(&s, &p, &q);                                                         \
            G##_jac_add(&s, &s, &u);                                                         \
            G##_jac_add(&t, &q, &u);                                                         \
            G##_jac_add(&t, &p, &t);                                                         \
            assert_true(G##_jac_eq(&s, &t));                                                 \
            s = p;                                                                           \
            G##_jac_add(&s, &s, &s);                                                         \
            G##_jac_dbl(&t, &p);                                                             \
            assert_true(G##_jac_eq(&s, &t));                                                 \
        }                                                                                    \
    }

GROUP_LAW_TEST(g1, 60)
GROUP_LAW_TEST(g2, 30)

#define SCALAR_TEST(G, GEN, ITERS)                                                               \
    static void G##_scalar_mul(void **state)                                                 \
    {                                                                                        \
        (void)state;                                                                         \
        G##_jac g, s, t, u;                                                                  \
        G##_aff ga = GEN, ra;                                                      \
        G##_jac_from_aff(&g, &ga);                                                           \
        fr_t k = {{0}};                                                                      \
        G##_jac_mul(&s, &g, &k);                                                             \
        assert_true(G##_jac_is_inf(&s));                                                     \
        k.l[0] = 1;                                                                          \
        G##_jac_mul(&s, &g, &k);                                                             \
        assert_true(G##_jac_eq(&s, &g));                                                     \
        memcpy(k.l, FR_MODULUS, 32); /* r·G = O */                                           \
        G##_jac_mul(&s, &g, &k);                                                             \
        assert_true(G##_jac_is_inf(&s));                                                     \
        k.l[0] -= 1; /* (r-1)·G = -G */                                                      \
        G##_jac_mul(&s, &g, &k);                                                             \
        G##_jac_neg(&t, &g);                                                                 \
        assert_true(G##_jac_eq(&s, &t));                                                     \
        for (int i = 0; i < ITERS; i++) {                                                    \
            fr_t a, b, am, bm, c, cm;                                                        \
            ft_rand_fr_canonical(&a);                                                        \
            ft_rand_fr_canonical(&b);                                                        \
            G##_jac_mul(&s, &g, &a);                                                         \
            if (i < 4) { G##_ref_mul(&ra, &ga, &a); G##_assert_jac_is_aff(&s, &ra); }        \
            /* (a + b)·G = a·G + b·G and (a·b)·G = a·(b·G), scalars mod r. */                \
            fr_to_mont(&am, &a);                                                             \
            fr_to_mont(&bm, &b);                                                             \
            fr_add(&cm, &am, &bm);                                                           \
            fr_from_mont(&c, &cm);                                                           \
            G##_jac_mul(&t, &g, &b);                                                         \
            G##_jac_add(&t, &s, &t);                                                         \
            G##_jac_mul(&u, &g, &c);                                                         \
            assert_true(G##_jac_eq(&t, &u));                                                 \
            fr_mul(&cm, &am, &bm);                                                           \
            fr_from_mont(&c, &cm);                                                           \
            G##_jac_mul(&t, &g, &b);                                                         \
            G##_jac_mul(&t, &t, &a);                                                         \
            G##_jac_mul(&u, &g, &c);                                                         \
            assert_true(G##_jac_eq(&t, &u));                                                 \
        }                                                                                    \
    }

SCALAR_TEST(g1, G1_GENERATOR, 8)
SCALAR_TEST(g2, G2_GENERATOR, 4)

#define BATCH_TEST(G)                                                                        \
    static void G##_batch_affine(void **state)                                               \
    {                                                                                        \
        (void)state;                                                                         \
        enum { N = 37 };                                                                     \
        G##_jac in[N];                                                                       \
        G##_aff out[N], one;                                                                 \
        for (int i = 0; i < N; i++) {                                                        \
            if (i % 7 == 3 || i == 0 || i == N - 1) G##_jac_set_inf(&in[i]);                 \
            else G##_rand_point(&in[i]);                                                     \
        }                                                                                    \
        G##_batch_to_aff(out, in, N);                                                        \
        for (int i = 0; i < N; i++) {                                                        \
            G##_jac_to_aff(&one, &in[i]);                                                    \
            assert_memory_equal(&one, &out[i], sizeof one);                                  \
            assert_int_equal(G##_aff_is_inf(&out[i]), G##_jac_is_inf(&in[i]));               \
        }                                                                                    \
        G##_batch_to_aff(out, in, 0);                                                        \
        G##_batch_to_aff(out, in, 1);                                                        \
        assert_true(G##_aff_is_inf(&out[0]));                                                \
    }

BATCH_TEST(g1)
BATCH_TEST(g2)

static void generators_known(void **state)
{
    (void)state;
    uint64_t x[6], y[6];
    fp_t t;
    ft_hex(x, 6, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    ft_hex(y, 6, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
    fp_to_mont(&t, x);
    assert_true(fp_eq(&t, &G1_GENERATOR.x));
    fp_to_mont(&t, y);
    assert_true(fp_eq(&t, &G1_GENERATOR.y));
    static const char *g2[4] = {
        "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
        "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e",
        "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
        "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"};
    const fp_t *want[4] = {&G2_GENERATOR.x.c0, &G2_GENERATOR.x.c1, &G2_GENERATOR.y.c0, &G2_GENERATOR.y.c1};
    for (int i = 0; i < 4; i++) {
        ft_hex(x, 6, g2[i]);
        fp_to_mont(&t, x);
        assert_true(fp_eq(&t, want[i]));
    }
    assert_true(g1_aff_is_on_curve(&G1_GENERATOR));
    assert_true(g2_aff_is_on_curve(&G2_GENERATOR));
    assert_true(g1_aff_in_subgroup(&G1_GENERATOR));
    assert_true(g2_aff_in_subgroup(&G2_GENERATOR));
    g1_aff i1;
    g2_aff i2;
    memset(&i1, 0, sizeof i1);
    memset(&i2, 0, sizeof i2);
    assert_true(g1_aff_is_on_curve(&i1) && g1_aff_in_subgroup(&i1));
    assert_true(g2_aff_is_on_curve(&i2) && g2_aff_in_subgroup(&i2));
}

/* Points of E(Fp) and E'(Fp2) outside the prime-order subgroup: random x until x^3 + b
 * is a square. A G1 point times the cofactor lands in the subgroup. */
static int g1_point_from_x(g1_aff *r, const fp_t *x)
{
    fp_t rhs, four;
    fp_from_u64(&four, 4);
    fp_sqr(&rhs, x);
    fp_mul(&rhs, &rhs, x);
    fp_add(&rhs, &rhs, &four);
    r->x = *x;
    return fp_sqrt(&r->y, &rhs);
}

static int g2_point_from_x(g2_aff *r, const fp2_t *x)
{
    fp2_t rhs, b;
    fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    fp2_sqr(&rhs, x);
    fp2_mul(&rhs, &rhs, x);
    fp2_add(&rhs, &rhs, &b);
    r->x = *x;
    return fp2_sqrt(&r->y, &rhs);
}

static void curve_and_subgroup_checks(void **state)
{
    (void)state;
    int found1 = 0, found2 = 0;
    for (int i = 0; i < 40; i++) {
        g1_aff p;
        fp_t x;
        ft_rand_fp(&x);
        if (g1_point_from_x(&p, &x)) {
            found1++;
            assert_true(g1_aff_is_on_curve(&p));
            assert_false(g1_aff_in_subgroup(&p));
            assert_int_equal(g1_aff_in_subgroup(&p), g1_aff_in_subgroup_slow(&p));
            g1_jac j;
            g1_jac_from_aff(&j, &p);
            g1_jac_mul(&j, &j, &G1_COFACTOR);
            g1_jac_to_aff(&p, &j);
            assert_true(g1_aff_in_subgroup(&p));
            assert_true(g1_aff_in_subgroup_slow(&p));
            fp_add(&p.y, &p.y, &FP_ONE); /* off the curve */
            assert_false(g1_aff_is_on_curve(&p));
        } else {
            p.x = x;
            ft_rand_fp(&p.y);
            if (!fp_is_zero(&p.y)) assert_false(g1_aff_is_on_curve(&p));
        }
        g2_aff q;
        fp2_t x2;
        ft_rand_fp2(&x2);
        if (g2_point_from_x(&q, &x2)) {
            found2++;
            assert_true(g2_aff_is_on_curve(&q));
            assert_false(g2_aff_in_subgroup(&q));
            if (i < 4) assert_false(g2_aff_in_subgroup_slow(&q));
            fp_add(&q.y.c1, &q.y.c1, &FP_ONE);
            assert_false(g2_aff_is_on_curve(&q));
        }
    }
    assert_true(found1 > 5 && found2 > 5);
    /* Multiples of the generators are in the subgroup (fast and slow agree). */
    for (int i = 0; i < 6; i++) {
        g1_jac p;
        g2_jac q;
        g1_aff pa;
        g2_aff qa;
        g1_rand_point(&p);
        g2_rand_point(&q);
        g1_jac_to_aff(&pa, &p);
        g2_jac_to_aff(&qa, &q);
        assert_true(g1_aff_in_subgroup(&pa));
        assert_true(g2_aff_in_subgroup(&qa));
        if (i < 2) assert_true(g1_aff_in_subgroup_slow(&pa) && g2_aff_in_subgroup_slow(&qa));
    }
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generators_known),
        cmocka_unit_test(g1_group_law),
        cmocka_unit_test(g2_group_law),
        cmocka_unit_test(g1_scalar_mul),
        cmocka_unit_test(g2_scalar_mul),
        cmocka_unit_test(g1_batch_affine),
        cmocka_unit_test(g2_batch_affine),
        cmocka_unit_test(curve_and_subgroup_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
