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
    GPU_FIELD_OP_COUNT
};

/* out[i] = op(a[i], b[i]) for i < n (b unused by unary ops; elements of 32, 48 or 96 bytes,
 * Montgomery form unless the op converts). CUZK_EINVAL for an unknown op, CUZK_EDEVICE. */
int gpu_field_op(int op, const void *a, const void *b, void *out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
