/*
 * Multi-scalar multiplication on the CPU: Pippenger with signed digits, window by size,
 * G1 and G2, spread over a thread pool. The oracle for the GPU MSM.
 */
#ifndef CUZK_MSM_CPU_H
#define CUZK_MSM_CPU_H

#include "field/curve.h"
#include "threadpool.h"

/* out = sum scalars[i]·bases[i]. Scalars are CANONICAL (fr_t holding values < r); bases are
 * affine, infinity (all-zero) allowed; n may be 0. tp may be NULL (single thread). */
void msm_g1(g1_jac *out, const g1_aff *bases, const fr_t *scalars, size_t n, threadpool *tp);
void msm_g2(g2_jac *out, const g2_aff *bases, const fr_t *scalars, size_t n, threadpool *tp);

/* Test hook, process-wide: force the window c (0 = by size), the bucket form (1 batch
 * affine, 0 Jacobian, -1 by size) and the point ranges per window (0 = by threads). */
void msm_cpu_tune(unsigned c, int affine, unsigned parts);

#endif
