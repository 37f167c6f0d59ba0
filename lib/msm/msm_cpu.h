/*
 * Multi-scalar multiplication on the CPU: Pippenger with signed digits, window by size,
 * G1 and G2, spread over a thread pool. The oracle for the GPU MSM.
 */
#ifndef CUZK_MSM_CPU_H
#define CUZK_MSM_CPU_H

#include "field/curve.h"
#include "scratch.h"
#include "threadpool.h"

/* out = sum scalars[i]·bases[i]. Scalars are CANONICAL (fr_t holding values < r); bases are
 * affine, infinity (all-zero) allowed; n may be 0. tp may be NULL (single thread). */
void msm_g1(g1_jac *out, const g1_aff *bases, const fr_t *scalars, size_t n, threadpool *tp);
void msm_g2(g2_jac *out, const g2_aff *bases, const fr_t *scalars, size_t n, threadpool *tp);
/* The same with the digits and buckets from sa (NULL: malloc), allocated on the calling
 * thread only: pool threads never allocate (an engine worker's heap is its own). CUZK_OK, or
 * CUZK_ENOMEM when sa cannot give the memory (with sa NULL, running out of memory falls back
 * to a slow point-by-point sum instead, and the call always succeeds). */
int msm_g1_ex(g1_jac *out, const g1_aff *bases, const fr_t *scalars, size_t n, threadpool *tp,
              const scratch_alloc *sa);
int msm_g2_ex(g2_jac *out, const g2_aff *bases, const fr_t *scalars, size_t n, threadpool *tp,
              const scratch_alloc *sa);
/* At most what msm_g1_ex (g2 = 0) or msm_g2_ex (g2 = 1) takes from sa for n points on a
 * pool of `threads` threads, allocator overheads aside (a budget estimate). */
size_t msm_cpu_scratch_bytes(size_t n, unsigned threads, int g2);

/* Test hook, process-wide: force the window c (0 = by size), the bucket form (1 batch
 * affine, 0 Jacobian, -1 by size) and the point ranges per window (0 = by threads). */
void msm_cpu_tune(unsigned c, int affine, unsigned parts);

#endif
