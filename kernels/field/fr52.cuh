/*
 * fr_gpu products on the FP64 pipe (field/fr52.h), same values as fr_gpu's operator*: a second
 * multiplier next to the integer one, so that a kernel can spread its products over both.
 */
#ifndef CUZK_FIELD_FR52_CUH
#define CUZK_FIELD_FR52_CUH

#include "field/fr.cuh"
#include "field/fr52.h"

/* An operand in 52-bit limbs (doubles); "left" ones hold 16x (see fr52.h). An operand used
 * by many products (a twiddle) is converted once. */
struct fr52_op {
    double l[5];
};

__device__ __forceinline__ void fr52_to_u64(uint64_t *x, const fr_gpu &a)
{
#pragma unroll
    for (int i = 0; i < 4; i++) x[i] = (uint64_t)a.v[2 * i] | (uint64_t)a.v[2 * i + 1] << 32;
}

__device__ __forceinline__ fr52_op fr52_left(const fr_gpu &a)
{
    uint64_t x[4];
    fr52_to_u64(x, a);
    fr52_op r;
    fr52_from_u64(r.l, x, 4);
    return r;
}

__device__ __forceinline__ fr52_op fr52_right(const fr_gpu &a)
{
    uint64_t x[4];
    fr52_to_u64(x, a);
    fr52_op r;
    fr52_from_u64(r.l, x, 0);
    return r;
}

/* a·b (Montgomery, R = 2^256) from a left and a right operand */
__device__ __forceinline__ fr_gpu fr52_mul_gpu(const fr52_op &a16, const fr52_op &b)
{
    uint64_t o[4];
    fr52_mul_core(o, a16.l, b.l);
    fr_gpu r;
#pragma unroll
    for (int i = 0; i < 4; i++) r.v[2 * i] = (uint32_t)o[i], r.v[2 * i + 1] = (uint32_t)(o[i] >> 32);
    fr_gpu::reduce_once(r.v);
    return r;
}

__device__ __forceinline__ fr_gpu fr52_mul_gpu(const fr_gpu &a, const fr_gpu &b)
{
    return fr52_mul_gpu(fr52_left(a), fr52_right(b));
}

/* x·w with w already converted (a left operand) */
__device__ __forceinline__ fr_gpu fr52_mul_gpu(const fr_gpu &x, const fr52_op &w16)
{
    return fr52_mul_gpu(w16, fr52_right(x));
}

#endif
