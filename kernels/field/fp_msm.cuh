/*
 * The MSM's own Fp and Fp2 (BLS12-381): 12 x 32-bit little-endian limbs, Montgomery form with
 * R = 2^384, bit-identical in memory to lib/field's fp_t. Carry chains are PTX (mad.lo.cc /
 * madc.hi.cc) on the device; on the host the same instruction sequence is emulated with an
 * explicit carry flag, so the exact algorithm can be checked on a machine without a GPU.
 */
#ifndef CUZK_FP_MSM_CUH
#define CUZK_FP_MSM_CUH

#include <stdint.h>

#include "field/inv_bingcd.cuh"

#ifdef __CUDACC__
#define FPM_HD __host__ __device__ __forceinline__
/* Out of line on the device: each copy of a curve formula inlines 10-40 Montgomery products,
 * and inlining them into every kernel makes compile times explode for little gain. */
#define FPM_HD_CALL __host__ __device__ __noinline__
#else
#define FPM_HD inline
#define FPM_HD_CALL inline
#endif

namespace fpm {

/* ---- carry-chain primitives: PTX on the device, an emulated carry flag on the host ---- */
#ifdef __CUDA_ARCH__
#define FPM_ASM(insn)                                                                            \
    __device__ __forceinline__ uint32_t insn##_(uint32_t a, uint32_t b)                          \
    {                                                                                            \
        uint32_t r;                                                                              \
        asm volatile(#insn ".u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                       \
        return r;                                                                                \
    }
#define FPM_ASM3(name, insn)                                                                     \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c)                 \
    {                                                                                            \
        uint32_t r;                                                                              \
        asm volatile(insn ".u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));            \
        return r;                                                                                \
    }
__device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b)
{ uint32_t r; asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b)
{ uint32_t r; asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b)
{ uint32_t r; asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t sub_cc(uint32_t a, uint32_t b)
{ uint32_t r; asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t subc_cc(uint32_t a, uint32_t b)
{ uint32_t r; asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ uint32_t subc(uint32_t a, uint32_t b)
{ uint32_t r; asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
FPM_ASM3(mad_lo_cc, "mad.lo.cc")
FPM_ASM3(madc_lo_cc, "madc.lo.cc")
FPM_ASM3(madc_hi_cc, "madc.hi.cc")
#undef FPM_ASM
#undef FPM_ASM3
__device__ __forceinline__ uint32_t mul_lo(uint32_t a, uint32_t b) { return a * b; }
__device__ __forceinline__ uint32_t mul_hi(uint32_t a, uint32_t b) { return __umulhi(a, b); }
#else
/* Host emulation: one carry flag, as the PTX condition code. Single-threaded use only
 * (the host path exists to check the algorithm, not to be fast). */
static uint32_t host_cc;
inline uint32_t add_cc(uint32_t a, uint32_t b)
{ uint64_t s = (uint64_t)a + b; host_cc = (uint32_t)(s >> 32); return (uint32_t)s; }
inline uint32_t addc_cc(uint32_t a, uint32_t b)
{ uint64_t s = (uint64_t)a + b + host_cc; host_cc = (uint32_t)(s >> 32); return (uint32_t)s; }
inline uint32_t addc(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a + b + host_cc); }
inline uint32_t sub_cc(uint32_t a, uint32_t b)
{ uint64_t s = (uint64_t)a - b; host_cc = (uint32_t)(s >> 63); return (uint32_t)s; }
inline uint32_t subc_cc(uint32_t a, uint32_t b)
{ uint64_t s = (uint64_t)a - b - host_cc; host_cc = (uint32_t)(s >> 63); return (uint32_t)s; }
inline uint32_t subc(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a - b - host_cc); }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{ uint64_t s = (uint64_t)(uint32_t)(a * b) + c; host_cc = (uint32_t)(s >> 32); return (uint32_t)s; }
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{ uint64_t s = (uint64_t)(uint32_t)(a * b) + c + host_cc; host_cc = (uint32_t)(s >> 32); return (uint32_t)s; }
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{ uint64_t s = (((uint64_t)a * b) >> 32) + c + host_cc; host_cc = (uint32_t)(s >> 32); return (uint32_t)s; }
inline uint32_t mul_lo(uint32_t a, uint32_t b) { return a * b; }
inline uint32_t mul_hi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
#endif

/* ---- Fp ---- */
#define FPM_N 12

struct fp {
    uint32_t l[FPM_N];
};

#ifdef __CUDA_ARCH__
#define FPM_CONST __device__ __constant__
#else
#define FPM_CONST static const
#endif

/* p, -p^-1 mod 2^32, and R mod p (the Montgomery one). */
#define FPM_P_LIMBS                                                                              \
    { 0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0, 0xf38512bf,         \
      0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea }
#define FPM_ONE_LIMBS                                                                            \
    { 0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857, 0x70525745,         \
      0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3 }
#define FPM_PINV 0xfffcfffdu

/* Limb accessors with compile-time indices: kept as literals so the compiler folds them into
 * immediates instead of loading from constant memory. */
FPM_HD uint32_t P(int i)
{
    const uint32_t p[FPM_N] = FPM_P_LIMBS;
    return p[i];
}

FPM_HD fp fp_zero()
{
    fp r;
#pragma unroll
    for (int i = 0; i < FPM_N; i++) r.l[i] = 0;
    return r;
}

FPM_HD fp fp_one()
{
    const uint32_t o[FPM_N] = FPM_ONE_LIMBS;
    fp r;
#pragma unroll
    for (int i = 0; i < FPM_N; i++) r.l[i] = o[i];
    return r;
}

FPM_HD bool fp_is_zero(const fp &a)
{
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < FPM_N; i++) acc |= a.l[i];
    return acc == 0;
}

FPM_HD bool fp_eq(const fp &a, const fp &b)
{
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < FPM_N; i++) acc |= a.l[i] ^ b.l[i];
    return acc == 0;
}

/* r = t - p if t >= p else t (t < 2p < 2^384). */
FPM_HD fp fp_reduce_once(const fp &t)
{
    fp s;
    s.l[0] = sub_cc(t.l[0], P(0));
#pragma unroll
    for (int i = 1; i < FPM_N; i++) s.l[i] = subc_cc(t.l[i], P(i));
    uint32_t borrow = subc(0, 0); /* 0xffffffff when t < p */
    fp r;
#pragma unroll
    for (int i = 0; i < FPM_N; i++) r.l[i] = (t.l[i] & borrow) | (s.l[i] & ~borrow);
    return r;
}

FPM_HD fp fp_add(const fp &a, const fp &b)
{
    fp t;
    t.l[0] = add_cc(a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < FPM_N; i++) t.l[i] = addc_cc(a.l[i], b.l[i]);
    return fp_reduce_once(t); /* 2p < 2^384: no carry out of the top limb */
}

FPM_HD fp fp_dbl(const fp &a) { return fp_add(a, a); }

FPM_HD fp fp_sub(const fp &a, const fp &b)
{
    fp t;
    t.l[0] = sub_cc(a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < FPM_N; i++) t.l[i] = subc_cc(a.l[i], b.l[i]);
    uint32_t mask = subc(0, 0); /* all ones when a < b: add p back */
    t.l[0] = add_cc(t.l[0], P(0) & mask);
#pragma unroll
    for (int i = 1; i < FPM_N; i++) t.l[i] = addc_cc(t.l[i], P(i) & mask);
    return t;
}

FPM_HD fp fp_neg(const fp &a)
{
    uint32_t nz = fp_is_zero(a) ? 0u : 0xffffffffu;
    fp t;
    t.l[0] = sub_cc(P(0) & nz, a.l[0]);
#pragma unroll
    for (int i = 1; i < FPM_N; i++) t.l[i] = subc_cc(P(i) & nz, a.l[i]);
    return t;
}

/* Montgomery product a·b·2^-384 mod p, coarsely integrated operand scanning. The running value
 * T = E + O·2^32 is kept in two accumulators so that each 32x32 product's low and high halves
 * land in consecutive limbs of one carry chain (even limbs of a in E, odd limbs in O). After the
 * reduction step E[0] is zero, T/2^32 = E[1..] + O, which is folded back into E. */
FPM_HD fp fp_mul(const fp &a, const fp &b)
{
    uint32_t e[FPM_N + 1], o[FPM_N + 1];
#pragma unroll
    for (int j = 0; j <= FPM_N; j++) e[j] = 0;
#pragma unroll
    for (int i = 0; i < FPM_N; i++) {
        const uint32_t bi = b.l[i];
        /* E += a_even·bi */
        e[0] = mad_lo_cc(a.l[0], bi, e[0]);
        e[1] = madc_hi_cc(a.l[0], bi, e[1]);
#pragma unroll
        for (int k = 2; k < FPM_N; k += 2) {
            e[k] = madc_lo_cc(a.l[k], bi, e[k]);
            e[k + 1] = madc_hi_cc(a.l[k], bi, e[k + 1]);
        }
        e[FPM_N] = addc(e[FPM_N], 0);
        /* O = a_odd·bi (fresh: products do not overlap) */
#pragma unroll
        for (int k = 0; k < FPM_N; k += 2) {
            o[k] = mul_lo(a.l[k + 1], bi);
            o[k + 1] = mul_hi(a.l[k + 1], bi);
        }
        o[FPM_N] = 0;
        /* reduction: m makes T ≡ 0 mod 2^32 */
        const uint32_t m = mul_lo(e[0], FPM_PINV);
        e[0] = mad_lo_cc(P(0), m, e[0]);
        e[1] = madc_hi_cc(P(0), m, e[1]);
#pragma unroll
        for (int k = 2; k < FPM_N; k += 2) {
            e[k] = madc_lo_cc(P(k), m, e[k]);
            e[k + 1] = madc_hi_cc(P(k), m, e[k + 1]);
        }
        e[FPM_N] = addc(e[FPM_N], 0);
        o[0] = mad_lo_cc(P(1), m, o[0]);
        o[1] = madc_hi_cc(P(1), m, o[1]);
#pragma unroll
        for (int k = 2; k < FPM_N; k += 2) {
            o[k] = madc_lo_cc(P(k + 1), m, o[k]);
            o[k + 1] = madc_hi_cc(P(k + 1), m, o[k + 1]);
        }
        o[FPM_N] = addc(o[FPM_N], 0);
        /* T/2^32 = E[1..N] + O[0..N] */
        e[0] = add_cc(o[0], e[1]);
#pragma unroll
        for (int k = 1; k < FPM_N; k++) e[k] = addc_cc(o[k], e[k + 1]);
        e[FPM_N] = addc(o[FPM_N], 0);
    }
    /* T < 2p here, so e[N] is zero and one conditional subtraction finishes. */
    fp t;
#pragma unroll
    for (int j = 0; j < FPM_N; j++) t.l[j] = e[j];
    return fp_reduce_once(t);
}

FPM_HD fp fp_sqr(const fp &a) { return fp_mul(a, a); }

/* a^(p-2) = a^-1 (0 -> 0). Slow (square and multiply over 381 bits): kept as the oracle of
 * the binary-GCD inversion below in the host simulation's tests. */
static FPM_HD_CALL fp fp_inv_fermat(const fp &a)
{
    uint32_t e[FPM_N];
#pragma unroll
    for (int i = 0; i < FPM_N; i++) e[i] = P(i);
    e[0] -= 2; /* p's low limb is 0xffffaaab: no borrow */
    fp r = fp_one();
    for (int i = FPM_N - 1; i >= 0; i--)
        for (int bit = 31; bit >= 0; bit--) {
            r = fp_sqr(r);
            if ((e[i] >> bit) & 1) r = fp_mul(r, a);
        }
    return r;
}

struct fp_modulus {
    static constexpr uint32_t N0 = FPM_PINV;
    FPM_HD static uint32_t mod(int i) { return P(i); }
};

/* Rounds every lane runs (the most 20000 random inputs needed); rarer inputs run more and
 * are corrected by a doubling per extra round. */
#define FPM_INV_ROUNDS 19

/* a^-1 (0 -> 0) by the binary GCD of field/inv_bingcd.cuh. On the Montgomery value A = a·R it
 * yields A^-1·2^-k; the Montgomery product with 2^19·R^3 (k = 19) gives a^-1·R. */
static FPM_HD_CALL fp fp_inv(const fp &a)
{
    const fp c = {{0x268f931a, 0x5610ca66, 0x2b604f9d, 0xbd5c65ad, 0x82242977, 0x17e5af7e, 0xcd273dba,
                   0x16ccd959, 0xb6da6560, 0xe171ee8d, 0x429dbf71, 0x0da15e96}}; /* 2^19·R^3 mod p */
    fp raw;
    int k = bingcd::inverse_raw<FPM_N, fp_modulus>(raw.l, a.l, FPM_INV_ROUNDS);
    fp r = fp_mul(raw, c);
    for (; k > FPM_INV_ROUNDS; k--) r = fp_dbl(r);
    return r;
}

/* ---- Fp2 = Fp[u]/(u^2 + 1) ---- */
struct fp2 {
    fp c0, c1;
};

FPM_HD fp2 fp2_zero() { return fp2{fp_zero(), fp_zero()}; }
FPM_HD fp2 fp2_one() { return fp2{fp_one(), fp_zero()}; }
FPM_HD bool fp2_is_zero(const fp2 &a) { return fp_is_zero(a.c0) && fp_is_zero(a.c1); }
FPM_HD bool fp2_eq(const fp2 &a, const fp2 &b) { return fp_eq(a.c0, b.c0) && fp_eq(a.c1, b.c1); }
FPM_HD fp2 fp2_add(const fp2 &a, const fp2 &b) { return fp2{fp_add(a.c0, b.c0), fp_add(a.c1, b.c1)}; }
FPM_HD fp2 fp2_sub(const fp2 &a, const fp2 &b) { return fp2{fp_sub(a.c0, b.c0), fp_sub(a.c1, b.c1)}; }
FPM_HD fp2 fp2_dbl(const fp2 &a) { return fp2{fp_dbl(a.c0), fp_dbl(a.c1)}; }
FPM_HD fp2 fp2_neg(const fp2 &a) { return fp2{fp_neg(a.c0), fp_neg(a.c1)}; }

/* Karatsuba: 3 Fp products. */
static FPM_HD_CALL fp2 fp2_mul(const fp2 &a, const fp2 &b)
{
    fp t0 = fp_mul(a.c0, b.c0);
    fp t1 = fp_mul(a.c1, b.c1);
    fp t2 = fp_mul(fp_add(a.c0, a.c1), fp_add(b.c0, b.c1));
    return fp2{fp_sub(t0, t1), fp_sub(fp_sub(t2, t0), t1)};
}

/* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 Fp products. */
static FPM_HD_CALL fp2 fp2_sqr(const fp2 &a)
{
    fp t = fp_mul(a.c0, a.c1);
    return fp2{fp_mul(fp_add(a.c0, a.c1), fp_sub(a.c0, a.c1)), fp_dbl(t)};
}

/* 1/(c0 + c1 u) = (c0 - c1 u)/(c0^2 + c1^2). */
static FPM_HD_CALL fp2 fp2_inv(const fp2 &a)
{
    fp n = fp_add(fp_sqr(a.c0), fp_sqr(a.c1));
    fp ni = fp_inv(n);
    return fp2{fp_mul(a.c0, ni), fp_neg(fp_mul(a.c1, ni))};
}

/* ---- one generic spelling for the curve code (kernels/curve/xyzz.cuh) ---- */
FPM_HD fp f_add(const fp &a, const fp &b) { return fp_add(a, b); }
FPM_HD fp f_sub(const fp &a, const fp &b) { return fp_sub(a, b); }
FPM_HD fp f_dbl(const fp &a) { return fp_dbl(a); }
FPM_HD fp f_neg(const fp &a) { return fp_neg(a); }
FPM_HD fp f_mul(const fp &a, const fp &b) { return fp_mul(a, b); }
FPM_HD fp f_sqr(const fp &a) { return fp_sqr(a); }
FPM_HD fp f_inv(const fp &a) { return fp_inv(a); }
FPM_HD bool f_is_zero(const fp &a) { return fp_is_zero(a); }
FPM_HD void f_set_zero(fp &a) { a = fp_zero(); }
FPM_HD void f_set_one(fp &a) { a = fp_one(); }

FPM_HD fp2 f_add(const fp2 &a, const fp2 &b) { return fp2_add(a, b); }
FPM_HD fp2 f_sub(const fp2 &a, const fp2 &b) { return fp2_sub(a, b); }
FPM_HD fp2 f_dbl(const fp2 &a) { return fp2_dbl(a); }
FPM_HD fp2 f_neg(const fp2 &a) { return fp2_neg(a); }
FPM_HD fp2 f_mul(const fp2 &a, const fp2 &b) { return fp2_mul(a, b); }
FPM_HD fp2 f_sqr(const fp2 &a) { return fp2_sqr(a); }
FPM_HD fp2 f_inv(const fp2 &a) { return fp2_inv(a); }
FPM_HD bool f_is_zero(const fp2 &a) { return fp2_is_zero(a); }
FPM_HD void f_set_zero(fp2 &a) { a = fp2_zero(); }
FPM_HD void f_set_one(fp2 &a) { a = fp2_one(); }

} /* namespace fpm */

#endif
