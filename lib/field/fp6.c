/*
 * Fp6 = Fp2[v]/(v^3 - ξ), ξ = u + 1: the middle of the pairing tower (blst/zkcrypto layout).
 * Karatsuba-style products on Fp2 coefficients, double-width until each output coefficient
 * is reduced once (tower.h), plus the sparse products the Miller loop's lines need. Outputs
 * may alias inputs.
 */
#include "tower.h"

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    tw_fp2_add(&r->c0, &a->c0, &b->c0);
    tw_fp2_add(&r->c1, &a->c1, &b->c1);
    tw_fp2_add(&r->c2, &a->c2, &b->c2);
}

void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    tw_fp2_sub(&r->c0, &a->c0, &b->c0);
    tw_fp2_sub(&r->c1, &a->c1, &b->c1);
    tw_fp2_sub(&r->c2, &a->c2, &b->c2);
}

void fp6_neg(fp6_t *r, const fp6_t *a)
{
    fp2_neg(&r->c0, &a->c0);
    fp2_neg(&r->c1, &a->c1);
    fp2_neg(&r->c2, &a->c2);
}

int fp6_eq(const fp6_t *a, const fp6_t *b)
{
    return fp2_eq(&a->c0, &b->c0) & fp2_eq(&a->c1, &b->c1) & fp2_eq(&a->c2, &b->c2);
}

int fp6_is_zero(const fp6_t *a)
{
    return fp2_is_zero(&a->c0) & fp2_is_zero(&a->c1) & fp2_is_zero(&a->c2);
}

/* Three-term Karatsuba, double-width: 6 Fp2 products instead of 9, no reduction. The
 * Karatsuba sums are reduced (fp2w_mul wants factors below p). */
void fp6w_mul(fp6w_t *r, const fp6_t *a, const fp6_t *b)
{
    fp2w_t t0, t1, t2, m, n;
    fp2_t s, u;
    fp2w_mul(&t0, &a->c0, &b->c0);
    fp2w_mul(&t1, &a->c1, &b->c1);
    fp2w_mul(&t2, &a->c2, &b->c2);

    /* c0 = t0 + ξ((a1 + a2)(b1 + b2) - t1 - t2) */
    tw_fp2_add(&s, &a->c1, &a->c2);
    tw_fp2_add(&u, &b->c1, &b->c2);
    fp2w_mul(&m, &s, &u);
    fp2w_sub(&m, &m, &t1);
    fp2w_sub(&m, &m, &t2);
    fp2w_nr(&m, &m);
    fp2w_add(&r->c0, &m, &t0);

    /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 + ξ t2 */
    tw_fp2_add(&s, &a->c0, &a->c1);
    tw_fp2_add(&u, &b->c0, &b->c1);
    fp2w_mul(&m, &s, &u);
    fp2w_sub(&m, &m, &t0);
    fp2w_sub(&m, &m, &t1);
    fp2w_nr(&n, &t2);
    fp2w_add(&r->c1, &m, &n);

    /* c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
    tw_fp2_add(&s, &a->c0, &a->c2);
    tw_fp2_add(&u, &b->c0, &b->c2);
    fp2w_mul(&m, &s, &u);
    fp2w_sub(&m, &m, &t0);
    fp2w_sub(&m, &m, &t2);
    fp2w_add(&r->c2, &m, &t1);
}

void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    fp6w_t t;
    fp6w_mul(&t, a, b);
    fp6w_redc(r, &t);
}

/* Chung-Hasan SQR2: 2 squarings and 3 products of Fp2. */
void fp6_sqr(fp6_t *r, const fp6_t *a)
{
    fp2_t s0, s1, s2, s3, s4, t;
    fp2_sqr(&s0, &a->c0);
    fp2_mul(&s1, &a->c0, &a->c1);
    tw_fp2_dbl(&s1, &s1);
    tw_fp2_sub(&t, &a->c0, &a->c1);
    tw_fp2_add(&t, &t, &a->c2);
    fp2_sqr(&s2, &t);                 /* (a0 - a1 + a2)^2 */
    fp2_mul(&s3, &a->c1, &a->c2);
    tw_fp2_dbl(&s3, &s3);
    fp2_sqr(&s4, &a->c2);

    tw_fp2_nr(&t, &s3);
    tw_fp2_add(&r->c0, &s0, &t);         /* s0 + ξ s3 */
    tw_fp2_add(&s2, &s2, &s1);
    tw_fp2_add(&s2, &s2, &s3);
    tw_fp2_sub(&s2, &s2, &s0);
    tw_fp2_sub(&r->c2, &s2, &s4);        /* s1 + s2 + s3 - s0 - s4 */
    tw_fp2_nr(&t, &s4);
    tw_fp2_add(&r->c1, &s1, &t);         /* s1 + ξ s4 */
}

/* Adjugate over the norm: a^-1 = (c0, c1, c2) / (a0 c0 + ξ(a2 c1 + a1 c2)). */
void fp6_inv(fp6_t *r, const fp6_t *a)
{
    fp2_t c0, c1, c2, t, n;
    fp2_sqr(&c0, &a->c0);
    fp2_mul(&t, &a->c1, &a->c2);
    tw_fp2_nr(&t, &t);
    tw_fp2_sub(&c0, &c0, &t);            /* a0^2 - ξ a1 a2 */

    fp2_sqr(&c1, &a->c2);
    tw_fp2_nr(&c1, &c1);
    fp2_mul(&t, &a->c0, &a->c1);
    tw_fp2_sub(&c1, &c1, &t);            /* ξ a2^2 - a0 a1 */

    fp2_sqr(&c2, &a->c1);
    fp2_mul(&t, &a->c0, &a->c2);
    tw_fp2_sub(&c2, &c2, &t);            /* a1^2 - a0 a2 */

    fp2_mul(&n, &a->c2, &c1);
    fp2_mul(&t, &a->c1, &c2);
    tw_fp2_add(&n, &n, &t);
    tw_fp2_nr(&n, &n);
    fp2_mul(&t, &a->c0, &c0);
    tw_fp2_add(&n, &n, &t);
    fp2_inv(&n, &n);                  /* inv(0) = 0 propagates: inv of zero is zero */

    fp2_mul(&r->c0, &c0, &n);
    fp2_mul(&r->c1, &c1, &n);
    fp2_mul(&r->c2, &c2, &n);
}

/* (a0 + a1 v + a2 v^2)·v = ξ a2 + a0 v + a1 v^2 */
void fp6_mul_by_v(fp6_t *r, const fp6_t *a)
{
    fp2_t t;
    tw_fp2_nr(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* a·(b0 + b1 v): 5 Fp2 products, double-width. */
void fp6w_mul_by_01(fp6w_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1)
{
    fp2w_t t0, t1, m;
    fp2_t s, u;
    fp2w_mul(&t0, &a->c0, b0);
    fp2w_mul(&t1, &a->c1, b1);

    fp2w_mul(&m, &a->c2, b1);
    fp2w_nr(&m, &m);
    fp2w_add(&r->c0, &m, &t0);        /* t0 + ξ a2 b1 */

    tw_fp2_add(&s, &a->c0, &a->c1);
    tw_fp2_add(&u, b0, b1);
    fp2w_mul(&m, &s, &u);
    fp2w_sub(&m, &m, &t0);
    fp2w_sub(&r->c1, &m, &t1);        /* a0 b1 + a1 b0 */

    fp2w_mul(&m, &a->c2, b0);
    fp2w_add(&r->c2, &m, &t1);        /* a1 b1 + a2 b0 */
}

/* a·(b1 v) = ξ a2 b1 + a0 b1 v + a1 b1 v^2: 3 Fp2 products, double-width. */
void fp6w_mul_by_1(fp6w_t *r, const fp6_t *a, const fp2_t *b1)
{
    fp2w_t m;
    fp2w_mul(&m, &a->c2, b1);
    fp2w_mul(&r->c1, &a->c0, b1);
    fp2w_mul(&r->c2, &a->c1, b1);
    fp2w_nr(&r->c0, &m);
}

void fp6_mul_by_01(fp6_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1)
{
    fp6w_t t;
    fp6w_mul_by_01(&t, a, b0, b1);
    fp6w_redc(r, &t);
}

void fp6_mul_by_1(fp6_t *r, const fp6_t *a, const fp2_t *b1)
{
    fp6w_t t;
    fp6w_mul_by_1(&t, a, b1);
    fp6w_redc(r, &t);
}
