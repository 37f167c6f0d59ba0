/*
 * Host preparation for the CUDA backend (backend_cuda_prep.c): parallel staging copies and the
 * A/B density compaction, written straight into a worker's pinned buffers.
 */
#ifndef CUZK_BACKEND_CUDA_PREP_H
#define CUZK_BACKEND_CUDA_PREP_H

#include <stdint.h>
#include <stdlib.h>

#include "cuzk/cuzk.h"
#include "error.h"
#include "field/field.h"
#include "threadpool.h"

/* dst[i] = src[i] (to_mont 0) or fr_to_mont(src[i]) (to_mont 1), i < n, on tp's threads. */
void prep_copy(threadpool *tp, fr_t *dst, const cuzk_fr *src, size_t n, int to_mont);
/* The A and B MSM scalars of p in p's own scalar form, in groth16_msm_scalars_make's order,
 * into a and b, on tp's threads. *n_a and *n_b give the counts expected (the key's, which
 * submit checked against the densities): CUZK_EINVAL, with nothing written, when the
 * densities select other counts; CUZK_ENOMEM. */
int prep_compact(threadpool *tp, const cuzk_partition *p, fr_t *a, fr_t *b, uint64_t *n_a, uint64_t *n_b);

#endif
