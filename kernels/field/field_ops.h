/*
 * Element-wise field operations on the GPU over host arrays, for tests that compare the
 * device arithmetic with an independent CPU computation (and for quick checks by other
 * kernels' authors). Synchronous; not for hot paths.
 */
#ifndef CUZK_GPU_FIELD_OPS_H
#define CUZK_GPU_FIELD_OPS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gpu_field_op {
    GPU_FR_ADD, GPU_FR_SUB, GPU_FR_MUL, GPU_FR_SQR, GPU_FR_NEG, GPU_FR_DBL,
    GPU_FR_TO_MONT, GPU_FR_FROM_MONT, GPU_FR_INV,
    GPU_FP_ADD, GPU_FP_SUB, GPU_FP_MUL, GPU_FP_SQR, GPU_FP_NEG, GPU_FP_DBL,
    GPU_FP_TO_MONT, GPU_FP_FROM_MONT, GPU_FP_INV,
    GPU_FP2_ADD, GPU_FP2_SUB, GPU_FP2_MUL, GPU_FP2_SQR, GPU_FP2_NEG, GPU_FP2_MUL_NONRESIDUE,
    GPU_FR_MUL_FP64, /* Fr product on the FP64 pipe (field/fr52.h): the same value as GPU_FR_MUL */
    GPU_FIELD_OP_COUNT
};

/* out[i] = op(a[i], b[i]) for i < n (b unused by unary ops; elements of 32, 48 or 96 bytes,
 * Montgomery form unless the op converts). CUZK_EINVAL for an unknown op, CUZK_EDEVICE. */
int gpu_field_op(int op, const void *a, const void *b, void *out, size_t n);

/* Throughput of the device multiplication (products per second on the whole current
 * device; field 0 = Fr, 1 = Fp, 2 = Fr with the generic reduction), from independent chains timed with CUDA events. */
int gpu_field_mul_rate(int field, double *per_second);

/* Fr products per second on the whole current device, `chains` independent products per
 * thread (1, 2 or 4; 1 = a dependent chain), fp64 of them on the FP64 pipe (fr52.h) and the
 * rest on the integer one, both in one kernel. square: products of two chain values (x_k·x_(k+1),
 * the last chain squares: both operands converted to 52-bit limbs per product) instead of x·y with
 * y's limbs converted once (a table twiddle's case).
 * ns_per_product (optional): the latency of one product in a dependent chain, from one warp
 * alone on the device running the same kernel. CUZK_EINVAL for a combination not built. */
int gpu_fr_mul_mix_rate(int chains, int fp64, int square, double *per_second, double *ns_per_product);

#ifdef __cplusplus
}
#endif

#endif
