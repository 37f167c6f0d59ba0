/*
 * BLS12-381 base field Fp, scalar field Fr and the tower Fp2/Fp6/Fp12 on the CPU.
 * Pure functions on small fixed-size structs (the blst shape): no allocation, no hidden
 * state; outputs may alias inputs. Everything is in Montgomery form unless a name says
 * otherwise, bit-compatible with blst/blstrs in memory and with kernels/field/ on the GPU.
 */
#ifndef CUZK_FIELD_H
#define CUZK_FIELD_H

#include <stddef.h>
#include <stdint.h>

/* Fp: x·2^384 mod p, 6 little-endian 64-bit limbs. */
typedef struct { uint64_t l[6]; } fp_t;
/* Fr: x·2^256 mod r, 4 little-endian 64-bit limbs (same layout as cuzk_fr).
 * The same struct also carries canonical values where a name says "canonical". */
typedef struct { uint64_t l[4]; } fr_t;
/* Fp2 = Fp[u]/(u^2 + 1): c0 + c1·u. */
typedef struct { fp_t c0, c1; } fp2_t;
/* Fp6 = Fp2[v]/(v^3 - (u + 1)). */
typedef struct { fp2_t c0, c1, c2; } fp6_t;
/* Fp12 = Fp6[w]/(w^2 - v). */
typedef struct { fp6_t c0, c1; } fp12_t;

/* ---- Fp ---- */
extern const fp_t FP_ZERO, FP_ONE;   /* FP_ONE is R mod p (Montgomery one) */
extern const uint64_t FP_MODULUS[6]; /* p, canonical */

void fp_add(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sub(fp_t *r, const fp_t *a, const fp_t *b);
void fp_dbl(fp_t *r, const fp_t *a);
void fp_neg(fp_t *r, const fp_t *a);
void fp_mul(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sqr(fp_t *r, const fp_t *a);
void fp_inv(fp_t *r, const fp_t *a);            /* inv(0) = 0 */
int fp_sqrt(fp_t *r, const fp_t *a);            /* 1 and a root if a is a square, else 0 */
void fp_pow(fp_t *r, const fp_t *a, const uint64_t *exp, size_t exp_limbs); /* canonical exponent */
int fp_is_zero(const fp_t *a);
int fp_eq(const fp_t *a, const fp_t *b);
void fp_from_u64(fp_t *r, uint64_t v);
void fp_to_mont(fp_t *r, const uint64_t canonical[6]);   /* canonical must be < p */
void fp_from_mont(uint64_t canonical[6], const fp_t *a);
int fp_from_be48(fp_t *r, const uint8_t in[48]);         /* 0 if the value is >= p */
void fp_to_be48(uint8_t out[48], const fp_t *a);
int fp_is_lex_largest(const fp_t *a);                    /* canonical a > (p-1)/2 */

/* ---- Fr ---- */
extern const fr_t FR_ZERO, FR_ONE;   /* FR_ONE is R mod r */
extern const uint64_t FR_MODULUS[4]; /* r, canonical */

void fr_add(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sub(fr_t *r, const fr_t *a, const fr_t *b);
void fr_neg(fr_t *r, const fr_t *a);
void fr_mul(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sqr(fr_t *r, const fr_t *a);
void fr_inv(fr_t *r, const fr_t *a);                      /* inv(0) = 0 */
void fr_pow_u64(fr_t *r, const fr_t *a, uint64_t e);
void fr_pow(fr_t *r, const fr_t *a, const uint64_t *exp, size_t exp_limbs);
int fr_is_zero(const fr_t *a);
int fr_is_one(const fr_t *a);
int fr_eq(const fr_t *a, const fr_t *b);
void fr_from_u64(fr_t *r, uint64_t v);
int fr_to_mont(fr_t *r, const fr_t *canonical);          /* 0 if canonical >= r */
void fr_from_mont(fr_t *canonical, const fr_t *a);
int fr_is_canonical(const fr_t *canonical);              /* value < r */
int fr_from_le32(fr_t *r, const uint8_t in[32]);         /* -> Montgomery; 0 if >= r */
void fr_to_le32(uint8_t out[32], const fr_t *a);         /* Montgomery -> canonical bytes */
/* Primitive 2^log_n-th root of unity (from 7, as bellperson): log_n <= 32. */
void fr_root_of_unity(fr_t *r, unsigned log_n);
extern const fr_t FR_COSET_GEN; /* 7, Montgomery */

/* ---- Fp2 ---- */
void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_dbl(fp2_t *r, const fp2_t *a);
void fp2_neg(fp2_t *r, const fp2_t *a);
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_sqr(fp2_t *r, const fp2_t *a);
void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b);
void fp2_mul_nonresidue(fp2_t *r, const fp2_t *a);       /* ·(u + 1) */
void fp2_conj(fp2_t *r, const fp2_t *a);                 /* Frobenius: c0 - c1·u */
void fp2_inv(fp2_t *r, const fp2_t *a);
int fp2_sqrt(fp2_t *r, const fp2_t *a);
int fp2_is_zero(const fp2_t *a);
int fp2_eq(const fp2_t *a, const fp2_t *b);
int fp2_is_lex_largest(const fp2_t *a);   /* sign rule of FORMATS.md: c1, or c0 if c1 = 0 */
extern const fp2_t FP2_ZERO, FP2_ONE;

/* ---- Fp6 / Fp12 (pairing.c's tower; see pairing.h) ---- */
void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_neg(fp6_t *r, const fp6_t *a);
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sqr(fp6_t *r, const fp6_t *a);
void fp6_inv(fp6_t *r, const fp6_t *a);
void fp6_mul_by_v(fp6_t *r, const fp6_t *a);
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sqr(fp12_t *r, const fp12_t *a);
void fp12_inv(fp12_t *r, const fp12_t *a);
void fp12_conj(fp12_t *r, const fp12_t *a);
void fp12_frobenius(fp12_t *r, const fp12_t *a, unsigned power);  /* a^(p^power) */
int fp12_eq(const fp12_t *a, const fp12_t *b);
int fp12_is_one(const fp12_t *a);
void fp12_one(fp12_t *r);
/* Additions for the pairing and its tests. */
int fp6_eq(const fp6_t *a, const fp6_t *b);
int fp6_is_zero(const fp6_t *a);
void fp6_mul_by_01(fp6_t *r, const fp6_t *a, const fp2_t *b0, const fp2_t *b1); /* ·(b0 + b1 v) */
void fp6_mul_by_1(fp6_t *r, const fp6_t *a, const fp2_t *b1);                   /* ·(b1 v) */
void fp12_add(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sub(fp12_t *r, const fp12_t *a, const fp12_t *b);
/* ·(l0 + l1 v + l4 v w): a Miller-loop line (c0.c0, c0.c1, c1.c1 set). */
void fp12_mul_by_014(fp12_t *r, const fp12_t *a, const fp2_t *l0, const fp2_t *l1,
                     const fp2_t *l4);
/* a^2 for a in the cyclotomic subgroup only (after the final exponentiation's easy part). */
void fp12_cyclotomic_sqr(fp12_t *r, const fp12_t *a);

#endif
