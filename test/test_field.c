/*
 * Fp, Fr and Fp2 against a naive reference (shift-and-add modular arithmetic on canonical
 * integers) and algebraic laws, on seeded random inputs with the edge values mixed in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "field/field.h"
#include "field/field_internal.h"
#include "support/fieldtest.h"
#include "support/testutil.h"

#define ITERS 300

static void fp_canon(uint64_t c[6], const fp_t *a) { fp_from_mont(c, a); }

/* The Montgomery constants against values computed by doubling 1 with the reference. */
static void fp_constants(void **state)
{
    (void)state;
    uint64_t r[6] = {1}, c[6];
    for (int i = 0; i < 384; i++) ref_add(r, r, r, FP_MODULUS, 6);
    assert_memory_equal(FP_ONE.l, r, sizeof r);
    fp_t one;
    fp_from_u64(&one, 1);
    assert_true(fp_eq(&one, &FP_ONE));
    fp_canon(c, &FP_ONE);
    uint64_t expect1[6] = {1};
    assert_memory_equal(c, expect1, sizeof c);
    assert_true(fp_is_zero(&FP_ZERO));
    uint64_t p[6];
    assert_true(ft_hex(p, 6, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab"));
    assert_memory_equal(FP_MODULUS, p, sizeof p);
}

static void fp_matches_reference_once(void)
{
    for (int i = 0; i < ITERS; i++) {
        uint64_t x[6], y[6], e[6], got[6];
        ft_rand_canonical(x, FP_MODULUS, 6);
        ft_rand_canonical(y, FP_MODULUS, 6);
        fp_t a, b, r;
        fp_to_mont(&a, x);
        fp_to_mont(&b, y);
        fp_canon(got, &a);
        assert_memory_equal(got, x, sizeof x); /* round trip */

        fp_mul(&r, &a, &b); fp_canon(got, &r); ref_mul(e, x, y, FP_MODULUS, 6);
        assert_memory_equal(got, e, sizeof e);
        fp_sqr(&r, &a); fp_canon(got, &r); ref_mul(e, x, x, FP_MODULUS, 6);
        assert_memory_equal(got, e, sizeof e);
        fp_add(&r, &a, &b); fp_canon(got, &r); ref_add(e, x, y, FP_MODULUS, 6);
        assert_memory_equal(got, e, sizeof e);
        fp_sub(&r, &a, &b); fp_canon(got, &r); ref_sub(e, x, y, FP_MODULUS, 6);
        assert_memory_equal(got, e, sizeof e);
        fp_dbl(&r, &a); fp_canon(got, &r); ref_add(e, x, x, FP_MODULUS, 6);
        assert_memory_equal(got, e, sizeof e);
        uint64_t zero[6] = {0};
        fp_neg(&r, &a); fp_canon(got, &r); ref_sub(e, zero, x, FP_MODULUS, 6);
        assert_memory_equal(got, e, sizeof e);
        /* Results stay fully reduced (the blst memory image): Montgomery limbs < p. */
        assert_true(ref_cmp(r.l, FP_MODULUS, 6) < 0);
    }
}

static void fp_matches_reference(void **state)
{
    (void)state;
    int was = field_use_adx(0); /* the portable C path, then the x86-64 ADX path if any */
    fp_matches_reference_once();
    field_use_adx(1);
    fp_matches_reference_once();
    field_use_adx(was);
}

static void fp_laws_once(void)
{
    for (int i = 0; i < ITERS; i++) {
        fp_t a, b, c, t, u, v;
        ft_rand_fp(&a); ft_rand_fp(&b); ft_rand_fp(&c);
        fp_mul(&t, &a, &b); fp_mul(&u, &b, &a);
        assert_true(fp_eq(&t, &u));
        fp_mul(&t, &t, &c); fp_mul(&u, &b, &c); fp_mul(&u, &a, &u);
        assert_true(fp_eq(&t, &u));
        fp_add(&t, &b, &c); fp_mul(&t, &a, &t);
        fp_mul(&u, &a, &b); fp_mul(&v, &a, &c); fp_add(&u, &u, &v);
        assert_true(fp_eq(&t, &u));
        fp_sub(&t, &a, &b); fp_add(&t, &t, &b);
        assert_true(fp_eq(&t, &a));
        fp_inv(&t, &a); fp_mul(&t, &t, &a);
        assert_true(fp_is_zero(&a) ? fp_is_zero(&t) : fp_eq(&t, &FP_ONE));
        /* Aliasing: output may be an input. */
        t = a; fp_mul(&t, &t, &t); fp_sqr(&u, &a);
        assert_true(fp_eq(&t, &u));
    }
    fp_t z;
    fp_inv(&z, &FP_ZERO);
    assert_true(fp_is_zero(&z));
}

static void fp_laws(void **state)
{
    (void)state;
    int was = field_use_adx(0); /* the portable C path, then the x86-64 ADX path if any */
    fp_laws_once();
    field_use_adx(1);
    fp_laws_once();
    field_use_adx(was);
}

static void fp_pow_and_sqrt(void **state)
{
    (void)state;
    for (int i = 0; i < 40; i++) {
        uint64_t x[6], e[6], got[6], ex[2] = {test_rand64(), test_rand64() & 0xff};
        ft_rand_canonical(x, FP_MODULUS, 6);
        fp_t a, r, s;
        fp_to_mont(&a, x);
        fp_pow(&r, &a, ex, 2);
        fp_canon(got, &r);
        ref_pow(e, x, ex, 2, FP_MODULUS, 6);
        assert_memory_equal(got, e, sizeof e);

        fp_sqr(&s, &a);
        assert_int_equal(fp_sqrt(&r, &s), 1);
        fp_sqr(&r, &r);
        assert_true(fp_eq(&r, &s));
        /* -1 is a non-residue (p = 3 mod 4), so exactly one of s, -s has a root. */
        if (!fp_is_zero(&a)) {
            fp_neg(&s, &s);
            assert_int_equal(fp_sqrt(&r, &s), 0);
        }
    }
    fp_t r;
    assert_int_equal(fp_sqrt(&r, &FP_ZERO), 1);
    assert_true(fp_is_zero(&r));
}

static void fp_bytes_and_sign(void **state)
{
    (void)state;
    uint8_t buf[48], back[48];
    fp_t a;
    /* p itself, p + 1 and 2^384 - 1 are not canonical; p - 1 is. */
    static const char *bad[] = {
        "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
        "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaac",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"};
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 48; k++) sscanf(bad[i] + 2 * k, "%2hhx", &buf[k]);
        assert_int_equal(fp_from_be48(&a, buf), 0);
    }
    for (int k = 0; k < 48; k++) sscanf(bad[0] + 2 * k, "%2hhx", &buf[k]);
    buf[47] -= 1;
    assert_int_equal(fp_from_be48(&a, buf), 1);
    fp_t m1;
    fp_neg(&m1, &FP_ONE);
    assert_true(fp_eq(&a, &m1));
    fp_to_be48(back, &a);
    assert_memory_equal(buf, back, 48);
    /* Known value: 0x0102 encodes as ...0102 big-endian. */
    fp_from_u64(&a, 0x0102);
    fp_to_be48(back, &a);
    for (int k = 0; k < 46; k++) assert_int_equal(back[k], 0);
    assert_int_equal(back[46], 1);
    assert_int_equal(back[47], 2);

    for (int i = 0; i < ITERS; i++) {
        ft_rand_fp(&a);
        fp_to_be48(buf, &a);
        fp_t b;
        assert_int_equal(fp_from_be48(&b, buf), 1);
        assert_true(fp_eq(&a, &b));
        /* Sign: x and -x have opposite signs unless x = 0. */
        fp_neg(&b, &a);
        if (fp_is_zero(&a)) assert_int_equal(fp_is_lex_largest(&a), 0);
        else assert_int_not_equal(fp_is_lex_largest(&a), fp_is_lex_largest(&b));
        uint64_t c[6], half[6];
        fp_from_mont(c, &a);
        memcpy(half, FP_MODULUS, sizeof half);
        half[0] -= 1; /* p - 1, then halve */
        for (int k = 0; k < 6; k++) half[k] = (half[k] >> 1) | (k < 5 ? half[k + 1] << 63 : 0);
        assert_int_equal(fp_is_lex_largest(&a), ref_cmp(c, half, 6) > 0);
    }
}

/* ---- Fr ---- */

static void fr_constants_and_roots(void **state)
{
    (void)state;
    uint64_t r[4] = {1};
    for (int i = 0; i < 256; i++) ref_add(r, r, r, FR_MODULUS, 4);
    assert_memory_equal(FR_ONE.l, r, sizeof r);
    assert_true(fr_is_one(&FR_ONE));
    fr_t seven, c;
    fr_from_u64(&seven, 7);
    assert_true(fr_eq(&seven, &FR_COSET_GEN));

    /* The 2^32-th root equals 7^((r-1)/2^32) (computed here with the reference) and the
     * constant printed in FORMATS.md. */
    uint64_t e[4], w[4], seven_c[4] = {7};
    memcpy(e, FR_MODULUS, sizeof e);
    e[0] -= 1;
    for (int k = 0; k < 4; k++) e[k] = (e[k] >> 32) | (k < 3 ? e[k + 1] << 32 : 0);
    ref_pow(w, seven_c, e, 4, FR_MODULUS, 4);
    uint64_t known[4];
    ft_hex(known, 4, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
    assert_memory_equal(w, known, sizeof w);
    fr_t root;
    fr_root_of_unity(&root, 32);
    fr_from_mont(&c, &root);
    assert_memory_equal(c.l, known, sizeof known);

    fr_t minus1;
    fr_neg(&minus1, &FR_ONE);
    for (unsigned k = 1; k <= 32; k++) {
        fr_root_of_unity(&root, k);
        for (unsigned i = 0; i + 1 < k; i++) fr_sqr(&root, &root);
        assert_true(fr_eq(&root, &minus1)); /* order exactly 2^k */
        fr_sqr(&root, &root);
        assert_true(fr_is_one(&root));
    }
    fr_root_of_unity(&root, 0);
    assert_true(fr_is_one(&root));
}

static void fr_matches_reference_once(void)
{
    for (int i = 0; i < ITERS; i++) {
        fr_t x, y, a, b, r, got;
        uint64_t e[4], zero[4] = {0};
        ft_rand_fr_canonical(&x);
        ft_rand_fr_canonical(&y);
        assert_int_equal(fr_to_mont(&a, &x), 1);
        assert_int_equal(fr_to_mont(&b, &y), 1);
        fr_from_mont(&got, &a);
        assert_memory_equal(got.l, x.l, 32);
        fr_mul(&r, &a, &b); fr_from_mont(&got, &r); ref_mul(e, x.l, y.l, FR_MODULUS, 4);
        assert_memory_equal(got.l, e, 32);
        fr_sqr(&r, &a); fr_from_mont(&got, &r); ref_mul(e, x.l, x.l, FR_MODULUS, 4);
        assert_memory_equal(got.l, e, 32);
        fr_add(&r, &a, &b); fr_from_mont(&got, &r); ref_add(e, x.l, y.l, FR_MODULUS, 4);
        assert_memory_equal(got.l, e, 32);
        fr_sub(&r, &a, &b); fr_from_mont(&got, &r); ref_sub(e, x.l, y.l, FR_MODULUS, 4);
        assert_memory_equal(got.l, e, 32);
        fr_neg(&r, &a); fr_from_mont(&got, &r); ref_sub(e, zero, x.l, FR_MODULUS, 4);
        assert_memory_equal(got.l, e, 32);
        fr_inv(&r, &a); fr_mul(&r, &r, &a);
        assert_true(fr_is_zero(&a) ? fr_is_zero(&r) : fr_is_one(&r));
        uint64_t ex = test_rand64();
        fr_pow_u64(&r, &a, ex); fr_from_mont(&got, &r); ref_pow(e, x.l, &ex, 1, FR_MODULUS, 4);
        assert_memory_equal(got.l, e, 32);
    }
}

static void fr_matches_reference(void **state)
{
    (void)state;
    int was = field_use_adx(0); /* the portable C path, then the x86-64 ADX path if any */
    fr_matches_reference_once();
    field_use_adx(1);
    fr_matches_reference_once();
    field_use_adx(was);
}

static void fr_bytes(void **state)
{
    (void)state;
    uint8_t buf[32], back[32];
    fr_t a, b, canon;
    /* r and 2^256 - 1 are rejected; r - 1 is accepted. */
    memcpy(canon.l, FR_MODULUS, 32);
    assert_int_equal(fr_is_canonical(&canon), 0);
    assert_int_equal(fr_to_mont(&a, &canon), 0);
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 8; k++) buf[8 * j + k] = (uint8_t)(FR_MODULUS[j] >> (8 * k));
    assert_int_equal(fr_from_le32(&a, buf), 0);
    memset(buf, 0xff, 32);
    assert_int_equal(fr_from_le32(&a, buf), 0);
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 8; k++) buf[8 * j + k] = (uint8_t)(FR_MODULUS[j] >> (8 * k));
    buf[0] -= 1;
    assert_int_equal(fr_from_le32(&a, buf), 1);
    fr_neg(&b, &FR_ONE);
    assert_true(fr_eq(&a, &b));
    /* Little-endian: the value 0x0102 is bytes 02 01 00 ... */
    fr_from_u64(&a, 0x0102);
    fr_to_le32(back, &a);
    assert_int_equal(back[0], 2);
    assert_int_equal(back[1], 1);
    for (int k = 2; k < 32; k++) assert_int_equal(back[k], 0);
    for (int i = 0; i < ITERS; i++) {
        ft_rand_fr(&a);
        fr_to_le32(buf, &a);
        assert_int_equal(fr_from_le32(&b, buf), 1);
        assert_true(fr_eq(&a, &b));
    }
}

/* ---- Fp2 ---- */

/* Schoolbook product with four Fp multiplications: a different path from Karatsuba. */
static void fp2_mul_schoolbook(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_t t0, t1, t2, t3;
    fp_mul(&t0, &a->c0, &b->c0);
    fp_mul(&t1, &a->c1, &b->c1);
    fp_mul(&t2, &a->c0, &b->c1);
    fp_mul(&t3, &a->c1, &b->c0);
    fp_sub(&r->c0, &t0, &t1);
    fp_add(&r->c1, &t2, &t3);
}

static void fp2_laws(void **state)
{
    (void)state;
    fp2_t nr = {FP_ONE, FP_ONE}; /* 1 + u */
    fp2_t uu = {FP_ZERO, FP_ONE}, t;
    fp2_sqr(&t, &uu);
    fp2_t m1;
    fp2_neg(&m1, &FP2_ONE);
    assert_true(fp2_eq(&t, &m1)); /* u^2 = -1 */
    for (int i = 0; i < ITERS; i++) {
        fp2_t a, b, c, r, s;
        ft_rand_fp2(&a); ft_rand_fp2(&b); ft_rand_fp2(&c);
        fp2_mul(&r, &a, &b); fp2_mul_schoolbook(&s, &a, &b);
        assert_true(fp2_eq(&r, &s));
        fp2_sqr(&r, &a); fp2_mul_schoolbook(&s, &a, &a);
        assert_true(fp2_eq(&r, &s));
        fp2_mul_nonresidue(&r, &a); fp2_mul_schoolbook(&s, &a, &nr);
        assert_true(fp2_eq(&r, &s));
        fp2_t bf = {b.c0, FP_ZERO};
        fp2_mul_fp(&r, &a, &b.c0); fp2_mul_schoolbook(&s, &a, &bf);
        assert_true(fp2_eq(&r, &s));
        fp2_add(&r, &a, &b); fp2_sub(&r, &r, &b);
        assert_true(fp2_eq(&r, &a));
        fp2_dbl(&r, &a); fp2_add(&s, &a, &a);
        assert_true(fp2_eq(&r, &s));
        fp2_neg(&r, &a); fp2_add(&r, &r, &a);
        assert_true(fp2_is_zero(&r));
        fp2_add(&r, &b, &c); fp2_mul(&r, &a, &r);
        fp2_mul(&s, &a, &b); fp2_mul(&t, &a, &c); fp2_add(&s, &s, &t);
        assert_true(fp2_eq(&r, &s));
        fp2_inv(&r, &a); fp2_mul(&r, &r, &a);
        assert_true(fp2_is_zero(&a) ? fp2_is_zero(&r) : fp2_eq(&r, &FP2_ONE));
        /* Frobenius: conj(a) = a^p, and conj(a·b) = conj(a)·conj(b). */
        fp2_conj(&r, &a); fp2_pow(&s, &a, FP_MODULUS, 6);
        if (i < 20) assert_true(fp2_eq(&r, &s));
        fp2_mul(&r, &a, &b); fp2_conj(&r, &r);
        fp2_conj(&s, &a); fp2_conj(&t, &b); fp2_mul(&s, &s, &t);
        assert_true(fp2_eq(&r, &s));
    }
}

static void fp2_roots_and_sign(void **state)
{
    (void)state;
    int nonsquares = 0;
    for (int i = 0; i < 60; i++) {
        fp2_t a, s, r, back;
        ft_rand_fp2(&a);
        if (i % 3 == 0) a.c1 = FP_ZERO; /* the purely real branch */
        if (i % 3 == 1) a.c0 = FP_ZERO;
        fp2_sqr(&s, &a);
        assert_int_equal(fp2_sqrt(&r, &s), 1);
        fp2_sqr(&back, &r);
        assert_true(fp2_eq(&back, &s));
        /* A random element is a square about half the time; a^((p^2-1)/2) decides. */
        ft_rand_fp2(&a);
        int has = fp2_sqrt(&r, &a);
        if (has) { fp2_sqr(&back, &r); assert_true(fp2_eq(&back, &a)); }
        else nonsquares++;
        /* Euler's criterion through the norm: a is a square iff N(a) is an Fp square. */
        fp_t n, t, root;
        fp_sqr(&n, &a.c0); fp_sqr(&t, &a.c1); fp_add(&n, &n, &t);
        assert_int_equal(has, fp_sqrt(&root, &n));
    }
    assert_true(nonsquares > 5);
    /* 1 + u is a non-square (that is why it defines Fp6). */
    fp2_t nr = {FP_ONE, FP_ONE}, r;
    assert_int_equal(fp2_sqrt(&r, &nr), 0);
    /* Sign rule: by c1 when c1 != 0, else by c0. */
    fp2_t a = {FP_ONE, FP_ZERO};
    assert_int_equal(fp2_is_lex_largest(&a), 0);
    fp_neg(&a.c0, &FP_ONE);
    assert_int_equal(fp2_is_lex_largest(&a), 1);
    a.c1 = FP_ONE;
    assert_int_equal(fp2_is_lex_largest(&a), 0);
    fp_neg(&a.c1, &FP_ONE);
    a.c0 = FP_ONE;
    assert_int_equal(fp2_is_lex_largest(&a), 1);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fp_constants),
        cmocka_unit_test(fp_matches_reference),
        cmocka_unit_test(fp_laws),
        cmocka_unit_test(fp_pow_and_sqrt),
        cmocka_unit_test(fp_bytes_and_sign),
        cmocka_unit_test(fr_constants_and_roots),
        cmocka_unit_test(fr_matches_reference),
        cmocka_unit_test(fr_bytes),
        cmocka_unit_test(fp2_laws),
        cmocka_unit_test(fp2_roots_and_sign),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
