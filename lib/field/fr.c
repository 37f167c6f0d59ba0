/*
 * Fr, the 255-bit scalar field of BLS12-381: Montgomery form with R = 2^256 in four
 * little-endian limbs (the blstrs Scalar image), byte conversions and roots of unity.
 */
#include "field/field.h"
#include "field/mont.h"

#define N 4

const uint64_t FR_MODULUS[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                0x3339d80809a1d805ull, 0x73eda753299d7d48ull};
#define FR_INV 0xfffffffeffffffffull /* -r^(-1) mod 2^64 */
const fr_t FR_ZERO = {{0}};
const fr_t FR_ONE = {{0x00000001fffffffeull, 0x5884b7fa00034802ull, 0x998c4fefecbc4ff5ull,
                      0x1824b159acc5056full}};
static const uint64_t FR_R2[4] = {0xc999e990f3f29c6dull, 0x2b6cedcb87925c23ull,
                                  0x05d314967254398full, 0x0748d9d99f59ff11ull};
static const uint64_t FR_R_MINUS_2[4] = {0xfffffffeffffffffull, 0x53bda402fffe5bfeull,
                                         0x3339d80809a1d805ull, 0x73eda753299d7d48ull};
/* 7 in Montgomery form: the multiplicative generator bellperson uses as coset shift. */
const fr_t FR_COSET_GEN = {{0x0000000efffffff1ull, 0x17e363d300189c0full, 0xff9c57876f8457b0ull,
                            0x351332208fc5a8c4ull}};
/* 7^((r-1)/2^32), Montgomery: a primitive 2^32-th root of unity (FORMATS.md). */
static const fr_t FR_ROOT_2_32 = {{0xb9b58d8c5f0e466aull, 0x5b1b4c801819d7ecull,
                                   0x0af53ae352a31e64ull, 0x5bf3adda19e9b27bull}};

void fr_add(fr_t *r, const fr_t *a, const fr_t *b) { mont_add(r->l, a->l, b->l, FR_MODULUS, N); }
void fr_sub(fr_t *r, const fr_t *a, const fr_t *b) { mont_sub(r->l, a->l, b->l, FR_MODULUS, N); }
void fr_neg(fr_t *r, const fr_t *a) { mont_neg(r->l, a->l, FR_MODULUS, N); }
void fr_mul(fr_t *r, const fr_t *a, const fr_t *b)
{
#if MONT_HAVE_ADX_PATH
    if (mont_have_adx) {
        uint64_t t[N];
        mont_mul4_adx(t, a->l, b->l, FR_MODULUS, FR_INV);
        mont_reduce_once(r->l, t, FR_MODULUS, N);
        return;
    }
#endif
    mont_mul(r->l, a->l, b->l, FR_MODULUS, FR_INV, N);
}

void fr_sqr(fr_t *r, const fr_t *a)
{
#if MONT_HAVE_ADX_PATH
    if (mont_have_adx) {
        uint64_t t[N];
        mont_mul4_adx(t, a->l, a->l, FR_MODULUS, FR_INV);
        mont_reduce_once(r->l, t, FR_MODULUS, N);
        return;
    }
#endif
    mont_sqr(r->l, a->l, FR_MODULUS, FR_INV, N);
}
int fr_is_zero(const fr_t *a) { return mont_is_zero(a->l, N); }
int fr_is_one(const fr_t *a) { return mont_eq(a->l, FR_ONE.l, N); }
int fr_eq(const fr_t *a, const fr_t *b) { return mont_eq(a->l, b->l, N); }
int fr_is_canonical(const fr_t *canonical) { return mont_lt(canonical->l, FR_MODULUS, N); }

int fr_to_mont(fr_t *r, const fr_t *canonical)
{
    if (!fr_is_canonical(canonical)) return 0;
    mont_mul(r->l, canonical->l, FR_R2, FR_MODULUS, FR_INV, N);
    return 1;
}

void fr_from_mont(fr_t *canonical, const fr_t *a)
{
    static const uint64_t one[4] = {1};
    mont_mul(canonical->l, a->l, one, FR_MODULUS, FR_INV, N);
}

void fr_from_u64(fr_t *r, uint64_t v)
{
    fr_t c = {{v}};
    fr_to_mont(r, &c); /* v < 2^64 < r: always canonical */
}

void fr_pow_u64(fr_t *r, const fr_t *a, uint64_t e)
{
    fr_pow(r, a, &e, 1);
}

/* Plain left-to-right square-and-multiply: exponents are public. */
void fr_pow(fr_t *r, const fr_t *a, const uint64_t *exp, size_t exp_limbs)
{
    fr_t acc = FR_ONE, base = *a;
    for (size_t i = exp_limbs; i-- > 0;)
        for (int b = 63; b >= 0; b--) {
            fr_sqr(&acc, &acc);
            if ((exp[i] >> b) & 1) fr_mul(&acc, &acc, &base);
        }
    *r = acc;
}

void fr_inv(fr_t *r, const fr_t *a)
{
    fr_pow(r, a, FR_R_MINUS_2, 4); /* Fermat; inv(0) = 0 */
}

int fr_from_le32(fr_t *r, const uint8_t in[32])
{
    fr_t c;
    for (int j = 0; j < 4; j++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--) v = (v << 8) | in[8 * j + k];
        c.l[j] = v;
    }
    return fr_to_mont(r, &c);
}

void fr_to_le32(uint8_t out[32], const fr_t *a)
{
    fr_t c;
    fr_from_mont(&c, a);
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 8; k++) out[8 * j + k] = (uint8_t)(c.l[j] >> (8 * k));
}

void fr_root_of_unity(fr_t *r, unsigned log_n)
{
    /* Squaring the 2^32-th root (32 - log_n) times leaves a primitive 2^log_n-th root. */
    if (log_n > 32) {
        *r = FR_ZERO; /* no such root exists in Fr */
        return;
    }
    fr_t w = FR_ROOT_2_32;
    for (unsigned i = log_n; i < 32; i++) fr_sqr(&w, &w);
    *r = w;
}
