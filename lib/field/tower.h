/*
 * Private to the pairing tower (fp6.c, fp12.c, pairing.c): lazy reduction. Products stay
 * double-width (768 bits, kept below N = p·2^384) while they are summed, and each output
 * coefficient pays one Montgomery reduction instead of one per product.
 */
#ifndef CUZK_FIELD_TOWER_H
#define CUZK_FIELD_TOWER_H

#include "field.h"
#include "mont.h"

#define TW_INLINE static inline __attribute__((always_inline))

/* p again, as a constant the compiler can see (FP_MODULUS is an opaque extern). */
static const uint64_t TW_P[6] = {
    0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
    0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull,
};
#define TW_P_INV 0x89f3fffcfffcfffdull   /* -p^-1 mod 2^64 */

/* Add/subtract with carry. gcc turns __int128 carry chains into long sequences; on x86-64
 * the intrinsics give plain adc/sbb chains (baseline ISA, no run-time check needed). */
#if defined(__x86_64__)
#include <immintrin.h>
TW_INLINE uint64_t tw_addc(uint64_t a, uint64_t b, unsigned char *c)
{
    unsigned long long r;
    *c = _addcarry_u64(*c, a, b, &r);
    return r;
}
TW_INLINE uint64_t tw_subb(uint64_t a, uint64_t b, unsigned char *c)
{
    unsigned long long r;
    *c = _subborrow_u64(*c, a, b, &r);
    return r;
}
#else
TW_INLINE uint64_t tw_addc(uint64_t a, uint64_t b, unsigned char *c)
{
    unsigned __int128 x = (unsigned __int128)a + b + *c;
    *c = (unsigned char)(x >> 64);
    return (uint64_t)x;
}
TW_INLINE uint64_t tw_subb(uint64_t a, uint64_t b, unsigned char *c)
{
    unsigned __int128 d = (unsigned __int128)a - b - *c;
    *c = (unsigned char)((d >> 64) & 1);
    return (uint64_t)d;
}
#endif

/* ---- reduced Fp/Fp2, inlined (the same values fp.c/fp2.c compute) ---- */
TW_INLINE void tw_fp_add(fp_t *r, const fp_t *a, const fp_t *b)
{
    uint64_t s[6], t[6];
    unsigned char c = 0, bw = 0;
    for (int j = 0; j < 6; j++) s[j] = tw_addc(a->l[j], b->l[j], &c);   /* < 2p: no carry */
    for (int j = 0; j < 6; j++) t[j] = tw_subb(s[j], TW_P[j], &bw);
    for (int j = 0; j < 6; j++) r->l[j] = bw ? s[j] : t[j];
}
TW_INLINE void tw_fp_sub(fp_t *r, const fp_t *a, const fp_t *b)
{
    uint64_t d[6];
    unsigned char bw = 0, c = 0;
    for (int j = 0; j < 6; j++) d[j] = tw_subb(a->l[j], b->l[j], &bw);
    uint64_t mask = 0 - (uint64_t)bw;
    for (int j = 0; j < 6; j++) r->l[j] = tw_addc(d[j], TW_P[j] & mask, &c);
}
TW_INLINE void tw_fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    tw_fp_add(&r->c0, &a->c0, &b->c0);
    tw_fp_add(&r->c1, &a->c1, &b->c1);
}
TW_INLINE void tw_fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    tw_fp_sub(&r->c0, &a->c0, &b->c0);
    tw_fp_sub(&r->c1, &a->c1, &b->c1);
}
TW_INLINE void tw_fp2_dbl(fp2_t *r, const fp2_t *a) { tw_fp2_add(r, a, a); }
TW_INLINE void tw_fp2_nr(fp2_t *r, const fp2_t *a)   /* ·(u + 1) = (a0 - a1) + (a0 + a1) u */
{
    fp_t t;
    tw_fp_sub(&t, &a->c0, &a->c1);
    tw_fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}
TW_INLINE void tw_fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    tw_fp2_add(&r->c0, &a->c0, &b->c0);
    tw_fp2_add(&r->c1, &a->c1, &b->c1);
    tw_fp2_add(&r->c2, &a->c2, &b->c2);
}
TW_INLINE void tw_fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b)
{
    tw_fp2_sub(&r->c0, &a->c0, &b->c0);
    tw_fp2_sub(&r->c1, &a->c1, &b->c1);
    tw_fp2_sub(&r->c2, &a->c2, &b->c2);
}

/* MULX/ADX kernels (tower_x86.c), used when the field's run-time switch mont_have_adx is
 * set (CPUID at load; CUZK_FIELD_PORTABLE=1 or field_use_adx(0) turn it off for both). */
#if MONT_HAVE_ADX_PATH && defined(__ELF__)
#define TOWER_X86_ASM 1
void tw_mul_384_adx(uint64_t r[12], const uint64_t a[6], const uint64_t b[6]);
void tw_redc_384_adx(uint64_t r[6], const uint64_t w[12]);
#else
#define TOWER_X86_ASM 0
#endif

typedef struct { uint64_t l[12]; } fpw_t;  /* double-width Fp value in [0, N) */
typedef struct { fpw_t c0, c1; } fp2w_t;
typedef struct { fp2w_t c0, c1, c2; } fp6w_t;

/* ---- double-width Fp2 (tower.c): factors fully reduced, results below N ---- */
void fp2w_mul(fp2w_t *r, const fp2_t *a, const fp2_t *b);
void fp2w_sqr(fp2w_t *r, const fp2_t *a);
void fp2w_add(fp2w_t *r, const fp2w_t *a, const fp2w_t *b);   /* mod N */
void fp2w_sub(fp2w_t *r, const fp2w_t *a, const fp2w_t *b);   /* mod N */
void fp2w_nr(fp2w_t *r, const fp2w_t *a);                      /* ·(u + 1) */
void fp2w_redc(fp2_t *r, const fp2w_t *a);                     /* fully reduced */
void tw_fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b);     /* 3 products, 2 reductions */
void tw_fp2_sqr(fp2_t *r, const fp2_t *a);
void tw_fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b);

/* ---- double-width Fp6 (fp6.c, tower.c) ---- */
void fp6w_mul(fp6w_t *r, const fp6_t *a, const fp6_t *b);
void fp6w_mul_by_01(fp6w_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1);
void fp6w_mul_by_1(fp6w_t *r, const fp6_t *a, const fp2_t *b1);

void fp6w_add(fp6w_t *r, const fp6w_t *a, const fp6w_t *b);
void fp6w_sub(fp6w_t *r, const fp6w_t *a, const fp6w_t *b);
void fp6w_mul_by_v(fp6w_t *r, const fp6w_t *a);
void fp6w_redc(fp6_t *r, const fp6w_t *a);

#endif
