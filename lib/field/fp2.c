/*
 * Fp2 = Fp[u]/(u^2 + 1): Karatsuba multiplication, complex squaring, inversion through
 * the norm, square roots through the norm (p = 3 mod 4), and the zcash sign rule.
 */
#include "field/field.h"
#include "field/field_internal.h"

const fp2_t FP2_ZERO = {{{0}}, {{0}}};
const fp2_t FP2_ONE = {{{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
                         0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
                       {{0}}};

void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_add(&r->c0, &a->c0, &b->c0);
    fp_add(&r->c1, &a->c1, &b->c1);
}

void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_sub(&r->c0, &a->c0, &b->c0);
    fp_sub(&r->c1, &a->c1, &b->c1);
}

void fp2_dbl(fp2_t *r, const fp2_t *a)
{
    fp_dbl(&r->c0, &a->c0);
    fp_dbl(&r->c1, &a->c1);
}

void fp2_neg(fp2_t *r, const fp2_t *a)
{
    fp_neg(&r->c0, &a->c0);
    fp_neg(&r->c1, &a->c1);
}

/* (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u:
 * three Fp multiplications instead of four. */
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp_t t0, t1, s0, s1;
    fp_mul(&t0, &a->c0, &b->c0);
    fp_mul(&t1, &a->c1, &b->c1);
    fp_add(&s0, &a->c0, &a->c1);
    fp_add(&s1, &b->c0, &b->c1);
    fp_mul(&s0, &s0, &s1);
    fp_sub(&r->c0, &t0, &t1);
    fp_sub(&s0, &s0, &t0);
    fp_sub(&r->c1, &s0, &t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: two multiplications. */
void fp2_sqr(fp2_t *r, const fp2_t *a)
{
    fp_t s, d, m;
    fp_add(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    fp_mul(&m, &a->c0, &a->c1);
    fp_mul(&r->c0, &s, &d);
    fp_dbl(&r->c1, &m);
}

void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b)
{
    fp_mul(&r->c0, &a->c0, b);
    fp_mul(&r->c1, &a->c1, b);
}

/* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
void fp2_mul_nonresidue(fp2_t *r, const fp2_t *a)
{
    fp_t t;
    fp_sub(&t, &a->c0, &a->c1);
    fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

void fp2_conj(fp2_t *r, const fp2_t *a)
{
    r->c0 = a->c0;
    fp_neg(&r->c1, &a->c1);
}

/* 1/a = conj(a) / (a0^2 + a1^2); inv(0) = 0 follows from fp_inv(0) = 0. */
void fp2_inv(fp2_t *r, const fp2_t *a)
{
    fp_t n, t;
    fp_sqr(&n, &a->c0);
    fp_sqr(&t, &a->c1);
    fp_add(&n, &n, &t);
    fp_inv(&n, &n);
    fp_mul(&r->c0, &a->c0, &n);
    fp_mul(&t, &a->c1, &n);
    fp_neg(&r->c1, &t);
}

int fp2_is_zero(const fp2_t *a) { return fp_is_zero(&a->c0) && fp_is_zero(&a->c1); }
int fp2_eq(const fp2_t *a, const fp2_t *b) { return fp_eq(&a->c0, &b->c0) && fp_eq(&a->c1, &b->c1); }

int fp2_is_lex_largest(const fp2_t *a)
{
    return fp_is_zero(&a->c1) ? fp_is_lex_largest(&a->c0) : fp_is_lex_largest(&a->c1);
}

void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t *exp, size_t exp_limbs)
{
    fp2_t acc = FP2_ONE, base = *a;
    for (size_t i = exp_limbs; i-- > 0;)
        for (int b = 63; b >= 0; b--) {
            fp2_sqr(&acc, &acc);
            if ((exp[i] >> b) & 1) fp2_mul(&acc, &acc, &base);
        }
    *r = acc;
}

/*
 * Square root through the norm. a = x^2 with x = x0 + x1 u means N(a) = a0^2 + a1^2 =
 * N(x)^2, so N(a) must be an Fp square s^2; then x0^2 = (a0 ± s)/2 for one choice of the
 * sign, and x1 = a1 / (2 x0). When a1 = 0 the root is purely real or purely imaginary
 * (-1 is not a square because p = 3 mod 4). The result is checked by squaring.
 */
int fp2_sqrt(fp2_t *r, const fp2_t *a)
{
    fp2_t x, check;
    if (fp_is_zero(&a->c1)) {
        fp_t t;
        if (fp_sqrt(&t, &a->c0)) {
            x.c0 = t;
            x.c1 = FP_ZERO;
        } else {
            fp_neg(&t, &a->c0);
            if (!fp_sqrt(&x.c1, &t)) return 0;
            x.c0 = FP_ZERO;
        }
    } else {
        fp_t n, t, s, d;
        fp_sqr(&n, &a->c0);
        fp_sqr(&t, &a->c1);
        fp_add(&n, &n, &t);
        if (!fp_sqrt(&s, &n)) return 0;
        fp_add(&t, &a->c0, &s);
        fp_half(&t, &t);
        if (!fp_sqrt(&x.c0, &t)) {
            fp_sub(&t, &a->c0, &s);
            fp_half(&t, &t);
            if (!fp_sqrt(&x.c0, &t)) return 0;
        }
        fp_dbl(&d, &x.c0);
        fp_inv(&d, &d);
        fp_mul(&x.c1, &a->c1, &d);
    }
    fp2_sqr(&check, &x);
    if (!fp2_eq(&check, a)) return 0;
    *r = x;
    return 1;
}
