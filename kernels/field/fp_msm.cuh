/*
 * The MSM's spelling of Fp and Fp2 (BLS12-381): free functions over field/mont.cuh's types
 * (fp_gpu = mont_t<fp_params>, fp2_gpu), which the curve code (curve/xyzz.cuh) calls through
 * the generic f_* names. Layout: 12 x 32-bit little-endian limbs in Montgomery form (R =
 * 2^384), bit-identical to lib/field's fp_t. Host and device, as mont.cuh.
 */
#ifndef CUZK_FP_MSM_CUH
#define CUZK_FP_MSM_CUH

#include <stdint.h>

#include "field/fp2.cuh"
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

typedef fp_gpu fp;
typedef fp2_gpu fp2;

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
    int k = bingcd::inverse_raw<fp_params::N, fp_params>(raw.v, a.v, FPM_INV_ROUNDS);
    fp r = raw * c;
    for (; k > FPM_INV_ROUNDS; k--) r = r.dbl();
    return r;
}

/* ---- Fp2 = Fp[u]/(u^2 + 1): out of line, three (two for squares) products each ---- */
static FPM_HD_CALL fp2 fp2_mul(const fp2 &a, const fp2 &b) { return a * b; }
static FPM_HD_CALL fp2 fp2_sqr(const fp2 &a) { return a.sqr(); }

/* 1/(c0 + c1 u) = (c0 - c1 u)/(c0^2 + c1^2). */
static FPM_HD_CALL fp2 fp2_inv(const fp2 &a)
{
    fp ni = fp_inv(a.c0 * a.c0 + a.c1 * a.c1);
    return fp2{a.c0 * ni, (a.c1 * ni).neg()};
}

/* ---- one generic spelling for the curve code (kernels/curve/xyzz.cuh) ---- */
FPM_HD fp f_add(const fp &a, const fp &b) { return a + b; }
FPM_HD fp f_sub(const fp &a, const fp &b) { return a - b; }
FPM_HD fp f_dbl(const fp &a) { return a.dbl(); }
FPM_HD fp f_neg(const fp &a) { return a.neg(); }
FPM_HD fp f_mul(const fp &a, const fp &b) { return a * b; }
FPM_HD fp f_sqr(const fp &a) { return a * a; }
FPM_HD fp f_inv(const fp &a) { return fp_inv(a); }
FPM_HD bool f_is_zero(const fp &a) { return a.is_zero(); }
FPM_HD void f_set_zero(fp &a) { a = fp::zero(); }
FPM_HD void f_set_one(fp &a) { a = fp::one(); }

FPM_HD fp2 f_add(const fp2 &a, const fp2 &b) { return a + b; }
FPM_HD fp2 f_sub(const fp2 &a, const fp2 &b) { return a - b; }
FPM_HD fp2 f_dbl(const fp2 &a) { return a.dbl(); }
FPM_HD fp2 f_neg(const fp2 &a) { return a.neg(); }
FPM_HD fp2 f_mul(const fp2 &a, const fp2 &b) { return fp2_mul(a, b); }
FPM_HD fp2 f_sqr(const fp2 &a) { return fp2_sqr(a); }
FPM_HD fp2 f_inv(const fp2 &a) { return fp2_inv(a); }
FPM_HD bool f_is_zero(const fp2 &a) { return a.is_zero(); }
FPM_HD void f_set_zero(fp2 &a) { a = fp2::zero(); }
FPM_HD void f_set_one(fp2 &a) { a = fp2::one(); }

} /* namespace fpm */

#endif
