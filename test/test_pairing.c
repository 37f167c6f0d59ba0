/*
 * Fp6/Fp12 and the pairing against independent oracles: schoolbook tower products, powers
 * by square-and-multiply (Frobenius = a^(p^n), final exponentiation = f^(3(p^12-1)/r)),
 * affine double-and-add scalar multiplication, and noble's e(G1, G2) as a known answer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "field/pairing.h"
#include "field/field_internal.h"
#include "support/fieldtest.h"
#include "support/testutil.h"

static int quick(void) { const char *q = getenv("CUZK_TEST_QUICK"); return q && *q && *q != '0'; }
static int iters(int n) { return quick() ? (n + 3) / 4 : n; }

/* ---- random elements ---- */
static void rand_fp6(fp6_t *a) { ft_rand_fp2(&a->c0); ft_rand_fp2(&a->c1); ft_rand_fp2(&a->c2); }
static void rand_fp12(fp12_t *a) { rand_fp6(&a->c0); rand_fp6(&a->c1); }

/* ---- schoolbook tower: Fp6 over v (v^3 = ξ), Fp12 over w (w^6 = ξ) ---- */
static void naive_fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    const fp2_t *x[3] = {&a->c0, &a->c1, &a->c2}, *y[3] = {&b->c0, &b->c1, &b->c2};
    fp2_t acc[3] = {FP2_ZERO, FP2_ZERO, FP2_ZERO}, t;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            fp2_mul(&t, x[i], y[j]);
            if (i + j >= 3) fp2_mul_nonresidue(&t, &t);
            fp2_add(&acc[(i + j) % 3], &acc[(i + j) % 3], &t);
        }
    r->c0 = acc[0]; r->c1 = acc[1]; r->c2 = acc[2];
}

static fp2_t *wcoef(fp12_t *a, int k)   /* coefficient of w^k: w^2 = v */
{
    fp6_t *h = (k & 1) ? &a->c1 : &a->c0;
    return k / 2 == 0 ? &h->c0 : k / 2 == 1 ? &h->c1 : &h->c2;
}

static void naive_fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp12_t x = *a, y = *b, out;
    fp2_t acc[6], t;
    for (int k = 0; k < 6; k++) acc[k] = FP2_ZERO;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            fp2_mul(&t, wcoef(&x, i), wcoef(&y, j));
            if (i + j >= 6) fp2_mul_nonresidue(&t, &t);
            fp2_add(&acc[(i + j) % 6], &acc[(i + j) % 6], &t);
        }
    for (int k = 0; k < 6; k++) *wcoef(&out, k) = acc[k];
    *r = out;
}

/* a^e, e little-endian limbs, by left-to-right square-and-multiply on the schoolbook product. */
static void naive_fp12_pow(fp12_t *r, const fp12_t *a, const uint64_t *e, int limbs)
{
    fp12_t acc;
    fp12_one(&acc);
    for (int i = 64 * limbs - 1; i >= 0; i--) {
        naive_fp12_mul(&acc, &acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) naive_fp12_mul(&acc, &acc, a);
    }
    *r = acc;
}

/* r = a·b on little-endian limbs (r has an + bn limbs, must not alias). */
static void mp_mul(uint64_t *r, const uint64_t *a, int an, const uint64_t *b, int bn)
{
    memset(r, 0, 8 * (size_t)(an + bn));
    for (int i = 0; i < an; i++) {
        unsigned __int128 c = 0;
        for (int j = 0; j < bn; j++) {
            c += (unsigned __int128)a[i] * b[j] + r[i + j];
            r[i + j] = (uint64_t)c;
            c >>= 64;
        }
        r[i + bn] = (uint64_t)c;
    }
}

static void fp6_one(fp6_t *r) { r->c0 = FP2_ONE; r->c1 = FP2_ZERO; r->c2 = FP2_ZERO; }

/* ---- Fp6 ---- */
static void fp6_against_schoolbook(void **state)
{
    (void)state;
    for (int i = 0; i < iters(200); i++) {
        fp6_t a, b, c, e, r, t, one;
        rand_fp6(&a); rand_fp6(&b); rand_fp6(&c);
        naive_fp6_mul(&e, &a, &b);
        fp6_mul(&r, &a, &b);
        assert_true(fp6_eq(&r, &e));
        r = a; fp6_mul(&r, &r, &b);                       /* output aliases input */
        assert_true(fp6_eq(&r, &e));
        naive_fp6_mul(&e, &a, &a);
        fp6_sqr(&r, &a);
        assert_true(fp6_eq(&r, &e));

        t = (fp6_t){FP2_ZERO, FP2_ONE, FP2_ZERO};         /* v */
        naive_fp6_mul(&e, &a, &t);
        fp6_mul_by_v(&r, &a);
        assert_true(fp6_eq(&r, &e));
        t = (fp6_t){b.c0, b.c1, FP2_ZERO};
        naive_fp6_mul(&e, &a, &t);
        fp6_mul_by_01(&r, &a, &b.c0, &b.c1);
        assert_true(fp6_eq(&r, &e));
        t = (fp6_t){FP2_ZERO, b.c1, FP2_ZERO};
        naive_fp6_mul(&e, &a, &t);
        fp6_mul_by_1(&r, &a, &b.c1);
        assert_true(fp6_eq(&r, &e));

        /* distributivity and the additive group */
        fp6_add(&t, &b, &c);
        fp6_mul(&r, &a, &t);
        fp6_mul(&t, &a, &b); fp6_mul(&e, &a, &c); fp6_add(&e, &t, &e);
        assert_true(fp6_eq(&r, &e));
        fp6_sub(&t, &a, &b); fp6_add(&t, &t, &b);
        assert_true(fp6_eq(&t, &a));
        fp6_neg(&t, &a); fp6_add(&t, &t, &a);
        assert_true(fp6_is_zero(&t));

        fp6_one(&one);
        fp6_inv(&t, &a);
        naive_fp6_mul(&r, &t, &a);
        if (fp6_is_zero(&a)) assert_true(fp6_is_zero(&t));
        else assert_true(fp6_eq(&r, &one));
    }
    fp6_t z = {FP2_ZERO, FP2_ZERO, FP2_ZERO}, t;
    fp6_inv(&t, &z);
    assert_true(fp6_is_zero(&t));
    fp6_one(&z);
    assert_false(fp6_is_zero(&z));
}

/* ---- Fp12 ---- */
static void fp12_against_schoolbook(void **state)
{
    (void)state;
    for (int i = 0; i < iters(150); i++) {
        fp12_t a, b, c, e, r, t, one;
        rand_fp12(&a); rand_fp12(&b); rand_fp12(&c);
        fp12_one(&one);
        naive_fp12_mul(&e, &a, &b);
        fp12_mul(&r, &a, &b);
        assert_true(fp12_eq(&r, &e));
        r = b; fp12_mul(&r, &a, &r);
        assert_true(fp12_eq(&r, &e));
        naive_fp12_mul(&e, &a, &a);
        fp12_sqr(&r, &a);
        assert_true(fp12_eq(&r, &e));

        /* a sparse line l0 + l1 v + l4 vw */
        fp12_t l;
        memset(&l, 0, sizeof l);
        l.c0.c0 = b.c0.c0; l.c0.c1 = b.c0.c1; l.c1.c1 = b.c1.c1;
        l.c0.c2 = l.c1.c0 = l.c1.c2 = FP2_ZERO;
        naive_fp12_mul(&e, &a, &l);
        fp12_mul_by_014(&r, &a, &b.c0.c0, &b.c0.c1, &b.c1.c1);
        assert_true(fp12_eq(&r, &e));

        fp12_add(&t, &b, &c);
        fp12_mul(&r, &a, &t);
        naive_fp12_mul(&t, &a, &b); naive_fp12_mul(&e, &a, &c); fp12_add(&e, &t, &e);
        assert_true(fp12_eq(&r, &e));
        fp12_sub(&t, &a, &b); fp12_add(&t, &t, &b);
        assert_true(fp12_eq(&t, &a));

        fp12_inv(&t, &a);
        naive_fp12_mul(&r, &t, &a);
        assert_true(fp12_is_one(&r));
        assert_true(fp12_eq(&r, &one));

        fp12_conj(&t, &a);    /* w -> -w: odd powers of w negated */
        for (int k = 0; k < 6; k++) {
            fp2_t want = *wcoef(&a, k);
            if (k & 1) fp2_neg(&want, &want);
            assert_true(fp2_eq(wcoef(&t, k), &want));
        }
    }
    fp12_t one, z, t;
    fp12_one(&one);
    assert_true(fp12_is_one(&one));
    memset(&z, 0, sizeof z);
    z.c0.c0 = z.c0.c1 = z.c0.c2 = z.c1.c0 = z.c1.c1 = z.c1.c2 = FP2_ZERO;
    assert_false(fp12_is_one(&z));
    fp12_inv(&t, &z);
    assert_true(fp12_eq(&t, &z));
    t = one; t.c1.c2 = FP2_ONE;       /* one plus a stray coefficient is not one */
    assert_false(fp12_is_one(&t));
    assert_false(fp12_eq(&t, &one));
}

/* The precomputed Frobenius constants, checked through a^(p^n) computed naively. */
static void frobenius_is_power_of_p(void **state)
{
    (void)state;
    uint64_t pn[6][36];   /* p^n, n = 1..6: 6n limbs */
    memcpy(pn[0], FP_MODULUS, sizeof FP_MODULUS);
    for (int n = 1; n < 6; n++) mp_mul(pn[n], pn[n - 1], 6 * n, FP_MODULUS, 6);
    for (int i = 0; i < iters(2); i++) {
        fp12_t a, r, e;
        rand_fp12(&a);
        for (int n = 1; n <= 6; n++) {
            if (n == 4 || n == 5) continue;   /* composed below */
            naive_fp12_pow(&e, &a, pn[n - 1], 6 * n);
            fp12_frobenius(&r, &a, (unsigned)n);
            assert_true(fp12_eq(&r, &e));
        }
        e = a;
        for (unsigned n = 1; n <= 13; n++) {      /* every power, and wrap-around at 12 */
            fp12_frobenius(&e, &e, 1);
            fp12_frobenius(&r, &a, n);
            assert_true(fp12_eq(&r, &e));
        }
        fp12_frobenius(&r, &a, 0);
        assert_true(fp12_eq(&r, &a));
        fp12_frobenius(&r, &a, 12);
        assert_true(fp12_eq(&r, &a));
    }
}

/* Lands in the cyclotomic subgroup: a^((p^6 - 1)(p^2 + 1)). */
static void easy_part(fp12_t *m, const fp12_t *a)
{
    fp12_t t;
    fp12_inv(&t, a);
    fp12_conj(m, a);
    fp12_mul(m, m, &t);
    fp12_frobenius(&t, m, 2);
    fp12_mul(m, &t, m);
}

static void cyclotomic_square(void **state)
{
    (void)state;
    for (int i = 0; i < iters(100); i++) {
        fp12_t a, m, r, e;
        rand_fp12(&a);
        easy_part(&m, &a);
        naive_fp12_mul(&e, &m, &m);
        fp12_cyclotomic_sqr(&r, &m);
        assert_true(fp12_eq(&r, &e));
        r = m; fp12_cyclotomic_sqr(&r, &r);
        assert_true(fp12_eq(&r, &e));
        fp12_conj(&r, &m);    /* the inverse there */
        naive_fp12_mul(&r, &r, &m);
        assert_true(fp12_is_one(&r));
    }
}

/* 3(p^12 - 1)/r: the exponent blst, zkcrypto and noble raise the Miller loop value to. */
static const char FINAL_EXP_HEX[] =
    "8ca592196587127a538fd40dc3e541f9dca04bb7dc671be77cf17715a2b2fe3bea73dfb468d8f473094aecb7"
    "315a664019fbd84913caba6579c08fd42009fe1bd6fcbce15eacb2cf3218a165958cb8bfdae2d2d542072823"
    "14fc0dea9d6ff3a07dbd34efb77b732ba5f994816e296a72928cfee133bdc3ca9412b984b9783d9c6aa81297"
    "ab1cd294a502304773528bbae8706979f28efa0d355b0224e2513d6e4a5d3bb4dde0523678105d9167ff1323"
    "d6e99ac312d8a7d762336370c4347bb5a7e405d6f3496b2dd38e722d4c1f3ac25e3167ec2cb543d69430c37c"
    "2f98fcdd0dd36caa9f5aa7994cec31b24ed5e515911037b376e521070d29c9d56cfa8c3574363efb20f28c19"
    "e4105ab99edd44084bd23725017931d6740bda71e5f07600ce6b407e543c4bc40bcd4c0b600e6c98003bf854"
    "8986b14d9098746dc89d154af91ad54f337b31c79222145dd3ed254fdeda0300c49ebcd2352765f533883a35"
    "13435f3ee452496f5166c25bf503bd6ec0a0679efda3b46ebf86211d458de749460d4a2a19abe6ea2accb451"
    "ab9a096b98465d044dc2a7f86c253a4ee57b6df108eff598a8dbc483bf8b74c2789939db85ffd7e0fd55b32b"
    "c26877f5be26fa7d750500ce2fab93c0cbe7336b126a5693d0c16484f37addccc7642590dbe98538990b8863"
    "7e374d545d9b34b67448d0357e60280bbd8542f1f4e813caa8e8db57364b4e0cc14f35af381dd9b71ec9292b"
    "3a3f16e42362d2019e05f30";

static void final_exp_is_the_power(void **state)
{
    (void)state;
    uint64_t e[68], r3[12];
    assert_true(ft_hex(e, 68, FINAL_EXP_HEX));
    /* cross-check the constant: e·r = 3(p^12 - 1) */
    uint64_t p12[72] = {0}, t[80], er[80];
    memcpy(p12, FP_MODULUS, sizeof FP_MODULUS);
    for (int n = 1; n < 12; n++) { mp_mul(t, p12, 6 * n, FP_MODULUS, 6); memcpy(p12, t, 8 * 6 * (n + 1)); }
    p12[0] -= 1;   /* p^12 is odd: no borrow */
    mp_mul(t, p12, 72, (const uint64_t[]){3}, 1);
    memcpy(r3, FR_MODULUS, sizeof FR_MODULUS);
    mp_mul(er, e, 68, r3, 4);
    assert_int_equal(t[72], 0);
    assert_memory_equal(er, t, 72 * sizeof er[0]);

    for (int i = 0; i < iters(2); i++) {
        fp12_t f, got, want;
        rand_fp12(&f);
        pairing_final_exp(&got, &f);
        naive_fp12_pow(&want, &f, e, 68);
        assert_true(fp12_eq(&got, &want));
    }
}

/* ---- points: affine double-and-add as an independent scalar multiplication ---- */
static int fp_hex(fp_t *r, const char *hex)
{
    uint64_t c[6];
    if (!ft_hex(c, 6, hex)) return 0;
    fp_to_mont(r, c);
    return 1;
}

static g1_aff gen1(void)
{
    g1_aff g;
    fp_hex(&g.x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    fp_hex(&g.y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
    return g;
}

static g2_aff gen2(void)
{
    g2_aff g;
    fp_hex(&g.x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    fp_hex(&g.x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
    fp_hex(&g.y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
    fp_hex(&g.y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
    return g;
}

static int g1_inf(const g1_aff *p) { return fp_is_zero(&p->x) && fp_is_zero(&p->y); }
static int g2_inf(const g2_aff *p) { return fp2_is_zero(&p->x) && fp2_is_zero(&p->y); }

static void g1_add_naive(g1_aff *r, const g1_aff *a, const g1_aff *b)
{
    if (g1_inf(a)) { *r = *b; return; }
    if (g1_inf(b)) { *r = *a; return; }
    fp_t l, t, x3, y3;
    if (fp_eq(&a->x, &b->x)) {
        fp_add(&t, &a->y, &b->y);
        if (fp_is_zero(&t)) { memset(r, 0, sizeof *r); return; }   /* a = -b */
        fp_sqr(&l, &a->x);
        fp_add(&t, &l, &l); fp_add(&l, &t, &l);                      /* 3x^2 */
        fp_add(&t, &a->y, &a->y);
    } else {
        fp_sub(&l, &b->y, &a->y);
        fp_sub(&t, &b->x, &a->x);
    }
    fp_inv(&t, &t);
    fp_mul(&l, &l, &t);
    fp_sqr(&x3, &l); fp_sub(&x3, &x3, &a->x); fp_sub(&x3, &x3, &b->x);
    fp_sub(&t, &a->x, &x3); fp_mul(&y3, &l, &t); fp_sub(&y3, &y3, &a->y);
    r->x = x3; r->y = y3;
}

static void g2_add_naive(g2_aff *r, const g2_aff *a, const g2_aff *b)
{
    if (g2_inf(a)) { *r = *b; return; }
    if (g2_inf(b)) { *r = *a; return; }
    fp2_t l, t, x3, y3;
    if (fp2_eq(&a->x, &b->x)) {
        fp2_add(&t, &a->y, &b->y);
        if (fp2_is_zero(&t)) { memset(r, 0, sizeof *r); return; }
        fp2_sqr(&l, &a->x);
        fp2_add(&t, &l, &l); fp2_add(&l, &t, &l);
        fp2_add(&t, &a->y, &a->y);
    } else {
        fp2_sub(&l, &b->y, &a->y);
        fp2_sub(&t, &b->x, &a->x);
    }
    fp2_inv(&t, &t);
    fp2_mul(&l, &l, &t);
    fp2_sqr(&x3, &l); fp2_sub(&x3, &x3, &a->x); fp2_sub(&x3, &x3, &b->x);
    fp2_sub(&t, &a->x, &x3); fp2_mul(&y3, &l, &t); fp2_sub(&y3, &y3, &a->y);
    r->x = x3; r->y = y3;
}

/* k canonical (4 limbs) */
static void g1_mul_naive(g1_aff *r, const g1_aff *p, const fr_t *k)
{
    g1_aff acc;
    memset(&acc, 0, sizeof acc);
    for (int i = 255; i >= 0; i--) {
        g1_add_naive(&acc, &acc, &acc);
        if ((k->l[i / 64] >> (i % 64)) & 1) g1_add_naive(&acc, &acc, p);
    }
    *r = acc;
}

static void g2_mul_naive(g2_aff *r, const g2_aff *p, const fr_t *k)
{
    g2_aff acc;
    memset(&acc, 0, sizeof acc);
    for (int i = 255; i >= 0; i--) {
        g2_add_naive(&acc, &acc, &acc);
        if ((k->l[i / 64] >> (i % 64)) & 1) g2_add_naive(&acc, &acc, p);
    }
    *r = acc;
}

/* Non-zero (the edge values 1 and r - 1 do come up): zero would make the point infinity. */
static void rand_scalar(fr_t *mont, fr_t *canon)
{
    do ft_rand_fr(mont);
    while (fr_is_zero(mont));
    fr_from_mont(canon, mont);
}

static void rand_g1(g1_aff *p) { fr_t m, k; rand_scalar(&m, &k); g1_aff g = gen1(); g1_mul_naive(p, &g, &k); }
static void rand_g2(g2_aff *q) { fr_t m, k; rand_scalar(&m, &k); g2_aff g = gen2(); g2_mul_naive(q, &g, &k); }

/* e(G1, G2) from @noble/curves 1.9.5 (= blst, zkcrypto), canonical, c0.c0.c0 first. */
static const char *const E_G1_G2[12] = {
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
    "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
    "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631",
};

static void known_answer_and_order(void **state)
{
    (void)state;
    g1_aff p = gen1();
    g2_aff q = gen2();
    fp12_t e, want, t, f;
    pairing(&e, &p, &q);
    /* noble lists c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2, each as (c0, c1) of Fp2 */
    fp2_t *slot[6] = {&want.c0.c0, &want.c0.c1, &want.c0.c2, &want.c1.c0, &want.c1.c1, &want.c1.c2};
    for (int k = 0; k < 6; k++) {
        assert_true(fp_hex(&slot[k]->c0, E_G1_G2[2 * k]));
        assert_true(fp_hex(&slot[k]->c1, E_G1_G2[2 * k + 1]));
    }
    assert_true(fp12_eq(&e, &want));
    assert_false(fp12_is_one(&e));                       /* non-degenerate */

    pairing_miller_loop(&f, &p, &q);
    pairing_final_exp(&t, &f);
    assert_true(fp12_eq(&t, &e));
    naive_fp12_pow(&t, &e, FR_MODULUS, 4);               /* e^r = 1 */
    assert_true(fp12_is_one(&t));
}

static void bilinearity(void **state)
{
    (void)state;
    for (int i = 0; i < iters(3); i++) {
        fr_t am, ac, bm, bc, abm, abc;
        rand_scalar(&am, &ac);
        rand_scalar(&bm, &bc);
        fr_mul(&abm, &am, &bm);
        fr_from_mont(&abc, &abm);
        g1_aff p, ap, abp;
        g2_aff q, bq;
        rand_g1(&p);
        rand_g2(&q);
        g1_mul_naive(&ap, &p, &ac);
        g2_mul_naive(&bq, &q, &bc);
        g1_mul_naive(&abp, &p, &abc);

        fp12_t e_ab, e_pq, pow, e_abp;
        pairing(&e_ab, &ap, &bq);
        pairing(&e_pq, &p, &q);
        naive_fp12_pow(&pow, &e_pq, abc.l, 4);
        assert_true(fp12_eq(&e_ab, &pow));                /* e(aP, bQ) = e(P, Q)^(ab) */
        pairing(&e_abp, &abp, &q);
        assert_true(fp12_eq(&e_ab, &e_abp));              /* = e(abP, Q) */
        assert_false(fp12_is_one(&e_pq));
        naive_fp12_pow(&pow, &e_pq, FR_MODULUS, 4);
        assert_true(fp12_is_one(&pow));                   /* e(P, Q)^r = 1 */

        /* e(aP, Q) = e(P, aQ), and a different scalar gives a different value */
        g2_aff aq;
        g2_mul_naive(&aq, &q, &ac);
        fp12_t x, y;
        pairing(&x, &ap, &q);
        pairing(&y, &p, &aq);
        assert_true(fp12_eq(&x, &y));
        pairing(&y, &p, &bq);
        assert_true(fr_eq(&am, &bm) || !fp12_eq(&x, &y));
    }
}

static void inverse_and_infinity(void **state)
{
    (void)state;
    g1_aff p, np, inf1;
    g2_aff q, nq, inf2;
    rand_g1(&p);
    rand_g2(&q);
    np = p; fp_neg(&np.y, &p.y);
    nq = q; fp2_neg(&nq.y, &q.y);
    memset(&inf1, 0, sizeof inf1);
    memset(&inf2, 0, sizeof inf2);

    fp12_t e, en, t;
    pairing(&e, &p, &q);
    pairing(&en, &np, &q);
    fp12_mul(&t, &e, &en);
    assert_true(fp12_is_one(&t));                         /* e(P, Q)·e(-P, Q) = 1 */
    pairing(&en, &p, &nq);
    fp12_mul(&t, &e, &en);
    assert_true(fp12_is_one(&t));
    fp12_conj(&t, &e);
    assert_true(fp12_eq(&t, &en));                        /* unitary: inverse = conjugate */

    g1_aff ps[2] = {p, np};
    g2_aff qs[2] = {q, q};
    pairing_multi(&t, ps, qs, 2);
    assert_true(fp12_is_one(&t));

    pairing(&t, &inf1, &q);
    assert_true(fp12_is_one(&t));
    pairing(&t, &p, &inf2);
    assert_true(fp12_is_one(&t));
    pairing(&t, &inf1, &inf2);
    assert_true(fp12_is_one(&t));
    pairing_miller_loop(&t, &inf1, &q);
    assert_true(fp12_is_one(&t));
    pairing_multi(&t, ps, qs, 0);
    assert_true(fp12_is_one(&t));
    pairing_multi(&t, &inf1, &q, 1);
    assert_true(fp12_is_one(&t));
}

static void multi_is_product(void **state)
{
    (void)state;
    enum { N = 11 };   /* more than one chunk of shared Miller loops */
    g1_aff ps[N];
    g2_aff qs[N];
    g1_aff g1 = gen1();
    g2_aff g2 = gen2();
    for (int i = 0; i < N; i++) {
        /* k·G with small distinct k keeps setup cheap; two infinities in the mix */
        fr_t k = {{(uint64_t)(i + 2) * 0x9e3779b97f4a7c15ull, 0, 0, 0}};
        g1_mul_naive(&ps[i], &g1, &k);
        k.l[0] ^= 0x5bd1e995ull;
        g2_mul_naive(&qs[i], &g2, &k);
    }
    memset(&ps[3], 0, sizeof ps[3]);
    memset(&qs[9], 0, sizeof qs[9]);
    for (size_t n = 1; n <= N; n += quick() ? 5 : 1) {
        fp12_t want, e, got;
        fp12_one(&want);
        for (size_t i = 0; i < n; i++) {
            pairing(&e, &ps[i], &qs[i]);
            fp12_mul(&want, &want, &e);
        }
        pairing_multi(&got, ps, qs, n);
        assert_true(fp12_eq(&got, &want));
    }
    /* Σ k_i = 0 across pairs with one G2 point: the product must be one */
    g1_aff a[3];
    g2_aff b[3] = {g2, g2, g2};
    a[0] = ps[0]; a[1] = ps[1];
    g1_add_naive(&a[2], &ps[0], &ps[1]);
    fp_neg(&a[2].y, &a[2].y);
    fp12_t t;
    pairing_multi(&t, a, b, 3);
    assert_true(fp12_is_one(&t));
    a[2] = ps[2];
    pairing_multi(&t, a, b, 3);
    assert_false(fp12_is_one(&t));
}

/* Every test runs twice: with the MULX/ADX kernels (where the CPU has them) and on the
 * portable C path, so both stay checked on x86-64 machines. */
static int use_adx(void **state) { (void)state; field_use_adx(1); return 0; }
static int use_portable(void **state) { (void)state; field_use_adx(0); return 0; }

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fp6_against_schoolbook),
        cmocka_unit_test(fp12_against_schoolbook),
        cmocka_unit_test(frobenius_is_power_of_p),
        cmocka_unit_test(cyclotomic_square),
        cmocka_unit_test(final_exp_is_the_power),
        cmocka_unit_test(known_answer_and_order),
        cmocka_unit_test(bilinearity),
        cmocka_unit_test(inverse_and_infinity),
        cmocka_unit_test(multi_is_product),
    };
    int failed = 0;
    field_use_adx(1);   /* returns the previous choice: the second call says whether it took */
    if (field_use_adx(1)) failed += cmocka_run_group_tests_name("mulx/adx kernels", tests, use_adx, NULL);
    else printf("no MULX/ADX on this CPU: portable path only\n");
    failed += cmocka_run_group_tests_name("portable C", tests, use_portable, NULL);
    return failed;
}
