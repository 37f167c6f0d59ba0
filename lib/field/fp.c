/*
 * Fp, the 381-bit base field of BLS12-381: Montgomery form with R = 2^384 in six
 * little-endian limbs (the blst memory image), plus byte conversions, roots and signs.
 */
#include <string.h>

#include "field/field.h"
#include "field/mont.h"
#include "field/field_internal.h"

#define N 6

const uint64_t FP_MODULUS[6] = {
    0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
    0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull};
/* -p^(-1) mod 2^64: the per-row Montgomery factor. */
#define FP_INV 0x89f3fffcfffcfffdull
const fp_t FP_ZERO = {{0}};
/* R mod p. */
const fp_t FP_ONE = {{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
                      0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}};
/* R^2 mod p: mont_mul(x, R^2) = x·R, the conversion into Montgomery form. */
static const uint64_t FP_R2[6] = {
    0xf4df1f341c341746ull, 0x0a76e6a609d104f1ull, 0x8de5476c4c95b6d5ull,
    0x67eb88a9939d83c0ull, 0x9a793e85b519952dull, 0x11988fe592cae3aaull};
/* Exponents: (p-1)/2 (the sign threshold), (p+1)/4 (square root, since p = 3 mod 4),
 * p-2 (Fermat inverse). */
static const uint64_t FP_HALF_P[6] = {
    0xdcff7fffffffd555ull, 0x0f55ffff58a9ffffull, 0xb39869507b587b12ull,
    0xb23ba5c279c2895full, 0x258dd3db21a5d66bull, 0x0d0088f51cbff34dull};
static const uint64_t FP_SQRT_EXP[6] = {
    0xee7fbfffffffeaabull, 0x07aaffffac54ffffull, 0xd9cc34a83dac3d89ull,
    0xd91dd2e13ce144afull, 0x92c6e9ed90d2eb35ull, 0x0680447a8e5ff9a6ull};
static const uint64_t FP_P_MINUS_2[6] = {
    0xb9feffffffffaaa9ull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
    0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull};

void fp_add(fp_t *r, const fp_t *a, const fp_t *b) { mont_add(r->l, a->l, b->l, FP_MODULUS, N); }
void fp_sub(fp_t *r, const fp_t *a, const fp_t *b) { mont_sub(r->l, a->l, b->l, FP_MODULUS, N); }
void fp_dbl(fp_t *r, const fp_t *a) { mont_add(r->l, a->l, a->l, FP_MODULUS, N); }
void fp_neg(fp_t *r, const fp_t *a) { mont_neg(r->l, a->l, FP_MODULUS, N); }
void fp_mul(fp_t *r, const fp_t *a, const fp_t *b)
{
#if MONT_HAVE_ADX_PATH
    if (mont_have_adx) {
        uint64_t t[N];
        mont_mul6_adx(t, a->l, b->l, FP_MODULUS, FP_INV);
        mont_reduce_once(r->l, t, FP_MODULUS, N);
        return;
    }
#endif
    mont_mul(r->l, a->l, b->l, FP_MODULUS, FP_INV, N);
}

void fp_sqr(fp_t *r, const fp_t *a)
{
#if MONT_HAVE_ADX_PATH
    if (mont_have_adx) {
        uint64_t t[N];
        mont_mul6_adx(t, a->l, a->l, FP_MODULUS, FP_INV);
        mont_reduce_once(r->l, t, FP_MODULUS, N);
        return;
    }
#endif
    mont_sqr(r->l, a->l, FP_MODULUS, FP_INV, N);
}
int fp_is_zero(const fp_t *a) { return mont_is_zero(a->l, N); }
int fp_eq(const fp_t *a, const fp_t *b) { return mont_eq(a->l, b->l, N); }

/* a/2: an odd representative becomes even by adding p (the sum fits: p < 2^382). */
void fp_half(fp_t *r, const fp_t *a)
{
    uint64_t mask = 0 - (a->l[0] & 1), t[N], c = 0;
    for (int j = 0; j < N; j++) {
        mont_u128 x = (mont_u128)a->l[j] + (FP_MODULUS[j] & mask) + c;
        t[j] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
    for (int j = 0; j < N - 1; j++) r->l[j] = (t[j] >> 1) | (t[j + 1] << 63);
    r->l[N - 1] = t[N - 1] >> 1;
}

void fp_to_mont(fp_t *r, const uint64_t canonical[6])
{
    mont_mul(r->l, canonical, FP_R2, FP_MODULUS, FP_INV, N);
}

void fp_from_mont(uint64_t canonical[6], const fp_t *a)
{
    static const uint64_t one[6] = {1};
    mont_mul(canonical, a->l, one, FP_MODULUS, FP_INV, N);
}

void fp_from_u64(fp_t *r, uint64_t v)
{
    uint64_t c[6] = {v};
    fp_to_mont(r, c);
}

/* Left-to-right square-and-multiply with a 4-bit fixed window: 15 precomputed powers
 * cut the multiplications to about a quarter of the exponent's bits. Not constant time
 * in the exponent; every exponent used inside the library is public. */
void fp_pow(fp_t *r, const fp_t *a, const uint64_t *exp, size_t exp_limbs)
{
    fp_t table[16], acc = FP_ONE;
    table[0] = FP_ONE;
    table[1] = *a;
    for (int i = 2; i < 16; i++) fp_mul(&table[i], &table[i - 1], a);
    int started = 0;
    for (size_t i = exp_limbs; i-- > 0;) {
        for (int s = 60; s >= 0; s -= 4) {
            unsigned w = (unsigned)(exp[i] >> s) & 15;
            if (started)
                for (int k = 0; k < 4; k++) fp_sqr(&acc, &acc);
            if (w) {
                fp_mul(&acc, &acc, &table[w]);
                started = 1;
            }
        }
    }
    *r = acc;
}

void fp_inv(fp_t *r, const fp_t *a)
{
    fp_pow(r, a, FP_P_MINUS_2, 6); /* Fermat; 0^(p-2) = 0 as the contract wants */
}

int fp_sqrt(fp_t *r, const fp_t *a)
{
    fp_t s, check;
    fp_pow(&s, a, FP_SQRT_EXP, 6);
    fp_sqr(&check, &s);
    if (!fp_eq(&check, a)) return 0;
    *r = s;
    return 1;
}

int fp_is_square(const fp_t *a)
{
    fp_t t;
    return fp_sqrt(&t, a);
}

int fp_from_be48(fp_t *r, const uint8_t in[48])
{
    uint64_t c[6];
    for (int j = 0; j < 6; j++) {
        uint64_t v = 0;
        for (int k = 0; k < 8; k++) v = (v << 8) | in[(5 - j) * 8 + k];
        c[j] = v;
    }
    if (!mont_lt(c, FP_MODULUS, N)) return 0;
    fp_to_mont(r, c);
    return 1;
}

void fp_to_be48(uint8_t out[48], const fp_t *a)
{
    uint64_t c[6];
    fp_from_mont(c, a);
    for (int j = 0; j < 6; j++)
        for (int k = 0; k < 8; k++) out[(5 - j) * 8 + k] = (uint8_t)(c[j] >> (56 - 8 * k));
}

int fp_is_lex_largest(const fp_t *a)
{
    uint64_t c[6];
    fp_from_mont(c, a);
    return mont_lt(FP_HALF_P, c, N);
}
