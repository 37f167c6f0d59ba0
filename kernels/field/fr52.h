/*
 * Fr (the BLS12-381 scalar field r, 255 bits) Montgomery products on the FP64 pipe: operands
 * in 5 limbs of 52 bits held in doubles, each 52x52-bit limb product split exactly into its
 * high and low 52 bits by two FMAs (the Emmart-Zheng-Weems technique), the columns summed
 * in 64-bit integers. The result is the same value as fr_gpu's (mont.cuh) product in the
 * 64-bit Montgomery form with R = 2^256, so it can replace any product of the NTT.
 *
 * Plain C11 and CUDA C++ at once: the kernels use it on the device (__fma_rz), and
 * test/test_fr52.c runs the identical sequence on the host, where fma() rounds to nearest
 * and the round-toward-zero step is emulated (fr52_fma_rz), so CI checks it without a GPU.
 *
 * The limb product a·b (a, b < 2^52 as doubles) in two FMAs:
 *   hi = fma_rz(a, b, 2^104)            = 2^104 + floor(ab / 2^52)·2^52  (ulp 2^52 in [2^104, 2^105))
 *   lo = fma(a, b, (2^104 + 2^52) - hi) = 2^52 + (ab mod 2^52)           (exact, ulp 1 in [2^52, 2^53))
 * Read as integers, bits(hi) = bits(2^104) + floor(ab / 2^52) and bits(lo) = bits(2^52) +
 * (ab mod 2^52): the columns add the raw bits and start from minus the exponent bits of every
 * term they will take (fr52_corr), mod 2^64, so no per-product subtraction is needed.
 *
 * Montgomery: R' = 2^260 (five 52-bit steps), so a·b·2^-260 would come out; with the left
 * operand's limbs taken from 16a (fr52_from_u64 with shift 4; 16a < 2^259 still fits five
 * limbs) the product is a·b·2^-256, the existing form's. -r^-1 mod 2^52 = -(1 + 2^32) (r's
 * low 52 bits are 2^52 - 2^32 + 1), so each step's m is two integer adds. m enters the FP64
 * pipe as the double 2^52 + m (its bits with the exponent of 2^52: no conversion
 * instruction); the constants of m's products absorb the 2^52·r_j that adds:
 *   hi = fma_rz(2^52 + m, r_j, 2^104 - 2^52·r_j),  lo = fma(2^52 + m, r_j, (2^104 + 2^52 - 2^52·r_j) - hi)
 * (both constants are 52-bit multiples of 2^52: exact).
 * Bounds: a, b < 2^255, so 16ab < 2^260·r, the result (16ab + Mr)/2^260 < 1.5 r (one
 * conditional subtraction) and every column stays below 21·2^52 < 2^57.
 */
#ifndef CUZK_FIELD_FR52_H
#define CUZK_FIELD_FR52_H

#include <stdint.h>
#ifndef __CUDA_ARCH__
#include <string.h> /* no <math.h>: its FP_ZERO collides with the CPU field's */
#endif

#ifdef __CUDACC__
#define FR52_FN static __host__ __device__ __forceinline__
#define FR52_UNROLL _Pragma("unroll")
#else
#define FR52_FN static inline
#define FR52_UNROLL
#endif

#define FR52_MASK 0xfffffffffffffull
#define FR52_E52 0x4330000000000000ull  /* bits of 2^52 */
#define FR52_E104 0x4670000000000000ull /* bits of 2^104 */

/* fma rounded to nearest (exact wherever it is used here) */
FR52_FN double fr52_fma(double a, double b, double c)
{
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return __builtin_fma(a, b, c);
#endif
}

FR52_FN uint64_t fr52_bits(double x)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

FR52_FN double fr52_double(uint64_t u)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

/* fma rounded toward zero, for the high halves (results in [2^104, 2^105)). The host has
 * only round-to-nearest: when that rounded up, the exact remainder a·b + c - r (an integer
 * below 2^52 in magnitude, c - r exact) is negative, and r is one ulp (2^52) too high. */
FR52_FN double fr52_fma_rz(double a, double b, double c)
{
#ifdef __CUDA_ARCH__
    return __fma_rz(a, b, c);
#else
    double r = fr52_fma(a, b, c);
    if (fr52_fma(a, b, c - r) < 0) r -= 0x1p52;
    return r;
#endif
}

/* r's 52-bit limbs, and m's product constants 2^104 - 2^52·r_j, 2^104 + 2^52 - 2^52·r_j */
FR52_FN double fr52_r(int j)
{
    return j == 0 ? (double)0xfffff00000001ull : j == 1 ? (double)0x2fffe5bfefffull
         : j == 2 ? (double)0x9a1d80553bda4ull : j == 3 ? (double)0x7d483339d8080ull
                  : (double)0x73eda753299dull;
}
FR52_FN double fr52_c1(int j) { return 0x1p104 - 0x1p52 * fr52_r(j); }
FR52_FN double fr52_c2(int j) { return (0x1p104 + 0x1p52) - 0x1p52 * fr52_r(j); }

/* Terms per column k: 2·cnt(k) low halves and 2·cnt(k-1) high halves (a·b and m·r each
 * have cnt(k) limb pairs with i + j = k). The column starts at minus their exponent bits. */
FR52_FN uint64_t fr52_corr(int k)
{
    const uint64_t lo = (uint64_t)(k <= 4 ? k + 1 : k <= 8 ? 9 - k : 0);
    const uint64_t hi = (uint64_t)(k == 0 ? 0 : k <= 5 ? k : 10 - k);
    return (uint64_t)0 - 2 * (lo * FR52_E52 + hi * FR52_E104);
}

/* Columns k, k+1 += the low and high halves of a·b (a, b integers below 2^52). */
FR52_FN void fr52_mac(double a, double b, uint64_t *ck, uint64_t *ck1)
{
    const double hi = fr52_fma_rz(a, b, 0x1p104);
    const double lo = fr52_fma(a, b, (0x1p104 + 0x1p52) - hi);
    *ck += fr52_bits(lo);
    *ck1 += fr52_bits(hi);
}

/* The same for (2^52 + m)·r_j, the 2^52·r_j cancelled by the constants. */
FR52_FN void fr52_mac_m(double m52, int j, uint64_t *ck, uint64_t *ck1)
{
    const double hi = fr52_fma_rz(m52, fr52_r(j), fr52_c1(j));
    const double lo = fr52_fma(m52, fr52_r(j), fr52_c2(j) - hi);
    *ck += fr52_bits(lo);
    *ck1 += fr52_bits(hi);
}

/* The limbs of x·2^shift (x < 2^255 in 4 little-endian 64-bit limbs; shift 0 or 4) as doubles:
 * each limb's bits under the exponent of 2^52, minus 2^52. */
FR52_FN void fr52_from_u64(double *l, const uint64_t *x, unsigned shift)
{
    uint64_t u[5];
    u[0] = x[0] << shift;
    u[1] = x[0] >> (52 - shift) | x[1] << (12 + shift);
    u[2] = x[1] >> (40 - shift) | x[2] << (24 + shift);
    u[3] = x[2] >> (28 - shift) | x[3] << (36 + shift);
    u[4] = x[3] >> (16 - shift);
    FR52_UNROLL
    for (int k = 0; k < 5; k++) l[k] = fr52_double((u[k] & FR52_MASK) | FR52_E52) - 0x1p52;
}

/* out = a·b·2^-256 mod r + (0 or r), below 2r: a16 the limbs of 16a, b those of b (from
 * fr52_from_u64 with shift 4 and 0), a, b < 2^255. */
FR52_FN void fr52_mul_core(uint64_t *out, const double *a16, const double *b)
{
    uint64_t c[10];
    FR52_UNROLL
    for (int k = 0; k < 10; k++) c[k] = fr52_corr(k);
    FR52_UNROLL
    for (int i = 0; i < 5; i++) {
        FR52_UNROLL
        for (int j = 0; j < 5; j++) fr52_mac(a16[i], b[j], &c[i + j], &c[i + j + 1]);
    }
    FR52_UNROLL
    for (int k = 0; k < 5; k++) {
        /* m = c_k·(-r^-1) mod 2^52 = -(c_k + c_k·2^32); the exponent bits in c_k are 0 mod 2^52.
         * c_k + c_k·2^32 in 32-bit halves: one add (written as a product by 2^32 + 1, the
         * compiler emitted a 64-bit multiplication) */
        const uint32_t tl = (uint32_t)c[k], th = (uint32_t)(c[k] >> 32) + tl;
        const uint64_t t = (uint64_t)th << 32 | tl;
        const double m52 = fr52_double(((0 - t) & FR52_MASK) | FR52_E52);
        FR52_UNROLL
        for (int j = 0; j < 5; j++) fr52_mac_m(m52, j, &c[k + j], &c[k + j + 1]);
        c[k + 1] += c[k] >> 52; /* c_k is now complete and 0 mod 2^52 */
    }
    uint64_t z[5];
    FR52_UNROLL
    for (int k = 5; k < 9; k++) {
        z[k - 5] = c[k] & FR52_MASK;
        c[k + 1] += c[k] >> 52;
    }
    z[4] = c[9]; /* below 2^48: the value is below 2r < 2^256 */
    out[0] = z[0] | z[1] << 52;
    out[1] = z[1] >> 12 | z[2] << 40;
    out[2] = z[2] >> 24 | z[3] << 28;
    out[3] = z[3] >> 36 | z[4] << 16;
}

/* x - r if that does not borrow (x < 2r). */
FR52_FN void fr52_reduce_once(uint64_t *x)
{
    const uint64_t r[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                           0x73eda753299d7d48ull};
    uint64_t t[4], borrow = 0;
    FR52_UNROLL
    for (int i = 0; i < 4; i++) {
        const uint64_t d = x[i] - r[i];
        t[i] = d - borrow;
        borrow = (x[i] < r[i]) | (d < borrow);
    }
    FR52_UNROLL
    for (int i = 0; i < 4; i++) x[i] = borrow ? x[i] : t[i];
}

/* out = a·b·2^-256 mod r (the Montgomery product of fr_t / fr_gpu), for a, b < 2^255;
 * out may alias a or b. */
FR52_FN void fr52_mul(uint64_t *out, const uint64_t *a, const uint64_t *b)
{
    double la[5], lb[5];
    fr52_from_u64(la, a, 4);
    fr52_from_u64(lb, b, 0);
    fr52_mul_core(out, la, lb);
    fr52_reduce_once(out);
}

#endif
