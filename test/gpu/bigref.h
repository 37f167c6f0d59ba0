/*
 * A slow, obviously-correct big-integer reference for GPU field tests: schoolbook
 * products and bit-by-bit modular reduction over 32-bit limbs. It shares no code or
 * algorithm with the Montgomery kernels it checks.
 */
#ifndef CUZK_TEST_BIGREF_H
#define CUZK_TEST_BIGREF_H

#include <stdint.h>
#include <string.h>

#define BIG_MAX 64

/* Compare n-limb a and b: -1, 0, 1. */
static int big_cmp(const uint32_t *a, const uint32_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* out = x mod m, x of xn limbs, m of mn limbs (m's top limb non-zero). */
static void big_mod(uint32_t *out, const uint32_t *x, int xn, const uint32_t *m, int mn)
{
    uint32_t rem[BIG_MAX + 1] = {0}, mm[BIG_MAX + 1] = {0};
    memcpy(mm, m, (size_t)mn * 4);
    for (int bit = xn * 32 - 1; bit >= 0; bit--) {
        /* rem = 2·rem + bit */
        uint32_t carry = (x[bit / 32] >> (bit % 32)) & 1;
        for (int i = 0; i <= mn; i++) {
            uint32_t nc = rem[i] >> 31;
            rem[i] = (rem[i] << 1) | carry;
            carry = nc;
        }
        if (big_cmp(rem, mm, mn + 1) >= 0) {
            uint64_t borrow = 0;
            for (int i = 0; i <= mn; i++) {
                uint64_t d = (uint64_t)rem[i] - mm[i] - borrow;
                rem[i] = (uint32_t)d;
                borrow = (d >> 63) & 1;
            }
        }
    }
    memcpy(out, rem, (size_t)mn * 4);
}

/* out (2n limbs) = a · b (n limbs each). */
static void big_mul(uint32_t *out, const uint32_t *a, const uint32_t *b, int n)
{
    memset(out, 0, (size_t)2 * n * 4);
    for (int i = 0; i < n; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < n; j++) {
            uint64_t t = (uint64_t)a[i] * b[j] + out[i + j] + carry;
            out[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        out[i + n] = (uint32_t)carry;
    }
}

/* r = (a + b) mod m, a, b < m. */
static void big_addmod(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *m, int n)
{
    uint32_t s[BIG_MAX + 1];
    uint64_t c = 0;
    for (int i = 0; i < n; i++) {
        c += (uint64_t)a[i] + b[i];
        s[i] = (uint32_t)c;
        c >>= 32;
    }
    s[n] = (uint32_t)c;
    big_mod(r, s, n + 1, m, n);
}

/* r = (a - b) mod m, a, b < m. */
static void big_submod(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *m, int n)
{
    uint32_t s[BIG_MAX + 1];
    uint64_t c = 0;
    for (int i = 0; i < n; i++) { /* s = a + m - b */
        c += (uint64_t)a[i] + m[i];
        s[i] = (uint32_t)c;
        c >>= 32;
    }
    s[n] = (uint32_t)c;
    uint64_t borrow = 0;
    for (int i = 0; i <= n; i++) {
        uint64_t d = (uint64_t)s[i] - (i < n ? b[i] : 0) - borrow;
        s[i] = (uint32_t)d;
        borrow = (d >> 63) & 1;
    }
    big_mod(r, s, n + 1, m, n);
}

/* r = a · b mod m. */
static void big_mulmod(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *m, int n)
{
    uint32_t p[2 * BIG_MAX];
    big_mul(p, a, b, n);
    big_mod(r, p, 2 * n, m, n);
}

/* Montgomery form: r = a · 2^(32n) mod m. */
static void big_to_mont(uint32_t *r, const uint32_t *a, const uint32_t *m, int n)
{
    uint32_t x[2 * BIG_MAX] = {0};
    memcpy(x + n, a, (size_t)n * 4);
    big_mod(r, x, 2 * n, m, n);
}

#endif
