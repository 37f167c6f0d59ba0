/*
 * Double-width (lazy reduction) arithmetic for the pairing tower: 6x6-limb products kept
 * unreduced below N = p·2^384, sums and differences mod N, one Montgomery reduction at the
 * end. Portable C (unsigned __int128 products, carry chains from tower.h).
 */
#include "tower.h"
#include "mont.h"

/* ---- 6-limb helpers without reduction (callers guarantee the bounds) ---- */
TW_INLINE void tw_add6(uint64_t r[6], const uint64_t a[6], const uint64_t b[6])
{
    unsigned char c = 0;
    for (int j = 0; j < 6; j++) r[j] = tw_addc(a[j], b[j], &c);
}
TW_INLINE void tw_sub6(uint64_t r[6], const uint64_t a[6], const uint64_t b[6])  /* a >= b */
{
    unsigned char c = 0;
    for (int j = 0; j < 6; j++) r[j] = tw_subb(a[j], b[j], &c);
}

/* ---- double-width Fp ---- */

/* r = a·b, operand scanning; a, b < 2^383 and the caller keeps a·b < N. */
TW_INLINE void fpw_mul(fpw_t *r, const uint64_t a[6], const uint64_t b[6])
{
#if TOWER_X86_ASM
    if (mont_have_adx) {
        tw_mul_384_adx(r->l, a, b);
        return;
    }
#endif
    uint64_t t[12];
    uint64_t c = 0;
    MONT_UNROLL for (int j = 0; j < 6; j++) {
        mont_u128 x = (mont_u128)a[j] * b[0] + c;
        t[j] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
    t[6] = c;
    MONT_UNROLL for (int i = 1; i < 6; i++) {
        c = 0;
        MONT_UNROLL for (int j = 0; j < 6; j++) {
            mont_u128 x = (mont_u128)a[j] * b[i] + t[i + j] + c;
            t[i + j] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        t[i + 6] = c;
    }
    MONT_UNROLL for (int j = 0; j < 12; j++) r->l[j] = t[j];
}

/* r = a + b mod N. N's low half is zero, so reducing touches only the high half (< 2p). */
TW_INLINE void fpw_add(fpw_t *r, const fpw_t *a, const fpw_t *b)
{
    uint64_t h[6], t[6];
    unsigned char c = 0, bw = 0;
    for (int j = 0; j < 6; j++) r->l[j] = tw_addc(a->l[j], b->l[j], &c);
    for (int j = 0; j < 6; j++) h[j] = tw_addc(a->l[6 + j], b->l[6 + j], &c);
    for (int j = 0; j < 6; j++) t[j] = tw_subb(h[j], TW_P[j], &bw);
    for (int j = 0; j < 6; j++) r->l[6 + j] = bw ? h[j] : t[j];
}

/* r = a - b mod N: on a borrow, p is added back to the high half. */
TW_INLINE void fpw_sub(fpw_t *r, const fpw_t *a, const fpw_t *b)
{
    unsigned char bw = 0, c = 0;
    for (int j = 0; j < 12; j++) r->l[j] = tw_subb(a->l[j], b->l[j], &bw);
    uint64_t mask = 0 - (uint64_t)bw;
    for (int j = 0; j < 6; j++) r->l[6 + j] = tw_addc(r->l[6 + j], TW_P[j] & mask, &c);
}

/* r = a - b exactly, when a >= b is known (Karatsuba's middle term). */
TW_INLINE void fpw_sub_exact(fpw_t *r, const fpw_t *a, const fpw_t *b)
{
    unsigned char bw = 0;
    for (int j = 0; j < 12; j++) r->l[j] = tw_subb(a->l[j], b->l[j], &bw);
}

/* Montgomery reduction a·2^-384 mod p, fully reduced: a < N gives a value < 2p before the
 * final subtraction (the deferred carries never reach a 13th limb). */
TW_INLINE void fpw_redc(fp_t *r, const fpw_t *a)
{
#if TOWER_X86_ASM
    if (mont_have_adx) {
        tw_redc_384_adx(r->l, a->l);
        return;
    }
#endif
    uint64_t w[12], carry = 0;
    MONT_UNROLL for (int j = 0; j < 12; j++) w[j] = a->l[j];
    MONT_UNROLL for (int i = 0; i < 6; i++) {
        uint64_t k = w[i] * TW_P_INV, cc = 0;
        MONT_UNROLL for (int j = 0; j < 6; j++) {
            mont_u128 x = (mont_u128)k * TW_P[j] + w[i + j] + cc;
            w[i + j] = (uint64_t)x;
            cc = (uint64_t)(x >> 64);
        }
        mont_u128 x = (mont_u128)w[i + 6] + cc + carry;
        w[i + 6] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
    mont_reduce_once(r->l, w + 6, TW_P, 6);
}

/* Karatsuba with the sums left unreduced (< 2p, so the middle product < 4p^2 < N). */
void fp2w_mul(fp2w_t *r, const fp2_t *a, const fp2_t *b)
{
    fpw_t t0, t1;
    uint64_t sa[6], sb[6];
    fpw_mul(&t0, a->c0.l, b->c0.l);
    fpw_mul(&t1, a->c1.l, b->c1.l);
    tw_add6(sa, a->c0.l, a->c1.l);
    tw_add6(sb, b->c0.l, b->c1.l);
    fpw_mul(&r->c1, sa, sb);
    fpw_sub_exact(&r->c1, &r->c1, &t0);
    fpw_sub_exact(&r->c1, &r->c1, &t1);   /* a0 b1 + a1 b0 < 2p^2 */
    fpw_sub(&r->c0, &t0, &t1);
}

/* (a0 + a1)(a0 - a1 + p) + a0·(2 a1) u: every factor < 2p, every product < 4p^2 < N. */
void fp2w_sqr(fp2w_t *r, const fp2_t *a)
{
    uint64_t s[6], d[6], t[6];
    tw_add6(s, a->c0.l, a->c1.l);
    tw_add6(d, a->c0.l, TW_P);
    tw_sub6(d, d, a->c1.l);
    tw_add6(t, a->c1.l, a->c1.l);
    fpw_mul(&r->c0, s, d);
    fpw_mul(&r->c1, a->c0.l, t);
}

void fp2w_add(fp2w_t *r, const fp2w_t *a, const fp2w_t *b)
{
    fpw_add(&r->c0, &a->c0, &b->c0);
    fpw_add(&r->c1, &a->c1, &b->c1);
}
void fp2w_sub(fp2w_t *r, const fp2w_t *a, const fp2w_t *b)
{
    fpw_sub(&r->c0, &a->c0, &b->c0);
    fpw_sub(&r->c1, &a->c1, &b->c1);
}
void fp2w_nr(fp2w_t *r, const fp2w_t *a)   /* ·(u + 1) */
{
    fpw_t t;
    fpw_sub(&t, &a->c0, &a->c1);
    fpw_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}
void fp2w_redc(fp2_t *r, const fp2w_t *a)
{
    fpw_redc(&r->c0, &a->c0);
    fpw_redc(&r->c1, &a->c1);
}

/* a·b in Fp2 with one reduction per coefficient (3 products, 2 reductions). */
void tw_fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    fp2w_t t;
    fp2w_mul(&t, a, b);
    fp2w_redc(r, &t);
}

void tw_fp2_sqr(fp2_t *r, const fp2_t *a)
{
    fp2w_t t;
    fp2w_sqr(&t, a);
    fp2w_redc(r, &t);
}

void tw_fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b)
{
    fpw_t t0, t1;
    fpw_mul(&t0, a->c0.l, b->l);
    fpw_mul(&t1, a->c1.l, b->l);
    fpw_redc(&r->c0, &t0);
    fpw_redc(&r->c1, &t1);
}

void fp6w_add(fp6w_t *r, const fp6w_t *a, const fp6w_t *b)
{
    fp2w_add(&r->c0, &a->c0, &b->c0);
    fp2w_add(&r->c1, &a->c1, &b->c1);
    fp2w_add(&r->c2, &a->c2, &b->c2);
}

void fp6w_sub(fp6w_t *r, const fp6w_t *a, const fp6w_t *b)
{
    fp2w_sub(&r->c0, &a->c0, &b->c0);
    fp2w_sub(&r->c1, &a->c1, &b->c1);
    fp2w_sub(&r->c2, &a->c2, &b->c2);
}

void fp6w_mul_by_v(fp6w_t *r, const fp6w_t *a)
{
    fp2w_t t;
    fp2w_nr(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

void fp6w_redc(fp6_t *r, const fp6w_t *a)
{
    fp2w_redc(&r->c0, &a->c0);
    fp2w_redc(&r->c1, &a->c1);
    fp2w_redc(&r->c2, &a->c2);
}
