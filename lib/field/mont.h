/*
 * Private: Montgomery arithmetic on n 64-bit limbs, shared by Fp (n = 6) and Fr (n = 4).
 * Always inlined with a constant n so the compiler unrolls every loop fully; values are
 * kept fully reduced (< m) so the memory image matches blst/blstrs bit for bit.
 */
#ifndef CUZK_FIELD_MONT_H
#define CUZK_FIELD_MONT_H

#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 mont_u128;
#define MONT_INLINE static inline __attribute__((always_inline))
#define MONT_MAX 6

#if defined(__clang__)
#define MONT_UNROLL _Pragma("unroll")
#else
#define MONT_UNROLL _Pragma("GCC unroll 16")
#endif

/* Add and subtract with carry. On x86-64 the intrinsics become one ADC/SBB each (the
 * unsigned __int128 spelling compiles to several instructions per limb with GCC). */
#if defined(__x86_64__)
#include <x86intrin.h>
MONT_INLINE uint64_t mont_adc(uint64_t a, uint64_t b, unsigned char *c)
{
    unsigned long long r;
    *c = _addcarry_u64(*c, a, b, &r);
    return (uint64_t)r;
}
MONT_INLINE uint64_t mont_sbb(uint64_t a, uint64_t b, unsigned char *borrow)
{
    unsigned long long r;
    *borrow = _subborrow_u64(*borrow, a, b, &r);
    return (uint64_t)r;
}
#else
MONT_INLINE uint64_t mont_adc(uint64_t a, uint64_t b, unsigned char *c)
{
    mont_u128 x = (mont_u128)a + b + *c;
    *c = (unsigned char)(x >> 64);
    return (uint64_t)x;
}
MONT_INLINE uint64_t mont_sbb(uint64_t a, uint64_t b, unsigned char *borrow)
{
    mont_u128 d = (mont_u128)a - b - *borrow;
    *borrow = (unsigned char)((d >> 64) & 1);
    return (uint64_t)d;
}
#endif

/* r = t - m if t >= m, else t; branch-free so timing does not depend on the value. */
MONT_INLINE void mont_reduce_once(uint64_t *r, const uint64_t *t, const uint64_t *m, const int n)
{
    uint64_t s[MONT_MAX];
    unsigned char borrow = 0;
    MONT_UNROLL for (int j = 0; j < n; j++) s[j] = mont_sbb(t[j], m[j], &borrow);
    uint64_t keep_t = 0 - (uint64_t)borrow; /* all ones when t < m */
    MONT_UNROLL for (int j = 0; j < n; j++) r[j] = (t[j] & keep_t) | (s[j] & ~keep_t);
}

/*
 * CIOS Montgomery multiplication r = a·b·2^(-64n) mod m. Both moduli here have a top
 * limb below 2^63 - 1, so the running value never needs an (n+1)-th limb of carry: this
 * is the "no-carry" form (intermediate < 2m), which saves a limb of additions per row.
 */
MONT_INLINE void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                          uint64_t m_inv, const int n)
{
    uint64_t t[MONT_MAX] = {0};
    MONT_UNROLL for (int i = 0; i < n; i++) {
        uint64_t c = 0;
        MONT_UNROLL for (int j = 0; j < n; j++) {
            mont_u128 x = (mont_u128)a[j] * b[i] + t[j] + c;
            t[j] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        uint64_t hi = c;
        uint64_t k = t[0] * m_inv;
        mont_u128 x = (mont_u128)k * m[0] + t[0];
        c = (uint64_t)(x >> 64);
        MONT_UNROLL for (int j = 1; j < n; j++) {
            x = (mont_u128)k * m[j] + t[j] + c;
            t[j - 1] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        t[n - 1] = hi + c;
    }
    mont_reduce_once(r, t, m, n);
}

/*
 * Squaring: the 2n-limb square computes each cross product once and doubles the sum
 * (n(n-1)/2 + n products instead of n^2), then a separate Montgomery reduction (SOS).
 */
MONT_INLINE void mont_sqr(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t m_inv,
                          const int n)
{
    uint64_t w[2 * MONT_MAX] = {0};
    /* Cross products a[i]·a[j], i < j. */
    MONT_UNROLL for (int i = 0; i < n - 1; i++) {
        uint64_t c = 0;
        MONT_UNROLL for (int j = i + 1; j < n; j++) {
            mont_u128 x = (mont_u128)a[i] * a[j] + w[i + j] + c;
            w[i + j] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        w[i + n] = c;
    }
    /* Double them, then add the squares a[i]^2 on the diagonal. */
    w[2 * n - 1] = w[2 * n - 2] >> 63;
    MONT_UNROLL for (int j = 2 * n - 2; j > 0; j--) w[j] = (w[j] << 1) | (w[j - 1] >> 63);
    w[0] <<= 1;
    uint64_t c = 0;
    MONT_UNROLL for (int i = 0; i < n; i++) {
        mont_u128 sq = (mont_u128)a[i] * a[i];
        mont_u128 x = (mont_u128)w[2 * i] + (uint64_t)sq + c;
        w[2 * i] = (uint64_t)x;
        x = (mont_u128)w[2 * i + 1] + (uint64_t)(sq >> 64) + (uint64_t)(x >> 64);
        w[2 * i + 1] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
    /* Montgomery reduction: n rounds each clearing the lowest live limb. The carry out of
     * each round is deferred into the next round's top limb; with m < 2^(64n - 2) the
     * total stays below 2m and fits in n limbs. */
    uint64_t carry = 0;
    MONT_UNROLL for (int i = 0; i < n; i++) {
        uint64_t k = w[i] * m_inv;
        uint64_t cc = 0;
        MONT_UNROLL for (int j = 0; j < n; j++) {
            mont_u128 x = (mont_u128)k * m[j] + w[i + j] + cc;
            w[i + j] = (uint64_t)x;
            cc = (uint64_t)(x >> 64);
        }
        mont_u128 x = (mont_u128)w[i + n] + cc + carry;
        w[i + n] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
    mont_reduce_once(r, w + n, m, n);
}

/* r = a + b mod m (inputs < m; m < 2^(64n-1) so the sum needs no extra limb). */
MONT_INLINE void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                          const int n)
{
    uint64_t t[MONT_MAX];
    unsigned char c = 0;
    MONT_UNROLL for (int j = 0; j < n; j++) t[j] = mont_adc(a[j], b[j], &c);
    mont_reduce_once(r, t, m, n);
}

/* r = a - b mod m: subtract, then add m back under a mask when it borrowed. */
MONT_INLINE void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                          const int n)
{
    uint64_t t[MONT_MAX];
    unsigned char borrow = 0, c = 0;
    MONT_UNROLL for (int j = 0; j < n; j++) t[j] = mont_sbb(a[j], b[j], &borrow);
    uint64_t mask = 0 - (uint64_t)borrow;
    MONT_UNROLL for (int j = 0; j < n; j++) r[j] = mont_adc(t[j], m[j] & mask, &c);
}

/* r = -a mod m (0 stays 0, so the result is always fully reduced). */
MONT_INLINE void mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, const int n)
{
    uint64_t nz = 0;
    unsigned char borrow = 0;
    MONT_UNROLL for (int j = 0; j < n; j++) nz |= a[j];
    uint64_t mask = 0 - (uint64_t)(nz != 0);
    MONT_UNROLL for (int j = 0; j < n; j++) r[j] = mont_sbb(m[j], a[j], &borrow) & mask;
}

MONT_INLINE int mont_is_zero(const uint64_t *a, const int n)
{
    uint64_t acc = 0;
    MONT_UNROLL for (int j = 0; j < n; j++) acc |= a[j];
    return acc == 0;
}

MONT_INLINE int mont_eq(const uint64_t *a, const uint64_t *b, const int n)
{
    uint64_t acc = 0;
    MONT_UNROLL for (int j = 0; j < n; j++) acc |= a[j] ^ b[j];
    return acc == 0;
}

/* 1 if a < b as n-limb integers. */
MONT_INLINE int mont_lt(const uint64_t *a, const uint64_t *b, const int n)
{
    unsigned char borrow = 0;
    MONT_UNROLL for (int j = 0; j < n; j++) (void)mont_sbb(a[j], b[j], &borrow);
    return (int)borrow;
}

/*
 * x86-64 MULX/ADCX/ADOX path (mont_adx.h), chosen at run time: mont_have_adx is set by a
 * constructor from CPUID (and cleared by CUZK_FIELD_PORTABLE=1 in the environment, or by
 * field_use_adx() in the tests, so the portable path stays tested on any machine).
 */
#if defined(__x86_64__) && !defined(CUZK_FIELD_NO_ASM)
#define MONT_HAVE_ADX_PATH 1
#include "field/mont_adx.h"
extern int mont_have_adx;
#else
#define MONT_HAVE_ADX_PATH 0
#define mont_have_adx 0
#endif


#endif
