/*
 * Test helpers for the field and curve modules: seeded random elements (with the edge
 * values mixed in on purpose) and a naive reference big-number arithmetic to check the
 * Montgomery code against (shift-and-add modular multiplication, no Montgomery at all).
 */
#ifndef CUZK_FIELDTEST_H
#define CUZK_FIELDTEST_H

#include <stddef.h>
#include <stdint.h>

#include "field/curve.h"

/* Canonical value uniformly below m (n limbs); one call in eight returns an edge value
 * (0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2, or limbs of all ones just below m). */
void ft_rand_canonical(uint64_t *out, const uint64_t *m, int n);
void ft_rand_fp(fp_t *r);     /* Montgomery, from ft_rand_canonical */
void ft_rand_fr(fr_t *r);     /* Montgomery */
void ft_rand_fr_canonical(fr_t *r);
void ft_rand_fp2(fp2_t *r);

/* Naive reference modular arithmetic on canonical n-limb values (n <= 8). */
void ref_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int n);
void ref_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int n);
void ref_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int n);
void ref_pow(uint64_t *r, const uint64_t *a, const uint64_t *e, int e_limbs, const uint64_t *m, int n);
int ref_cmp(const uint64_t *a, const uint64_t *b, int n);

/* Points on the curve but outside the prime-order subgroup (x = 1, 2, ... until one is). */
void ft_g1_off_subgroup(g1_aff *out);
void ft_g2_off_subgroup(g2_aff *out);

/* An MSM input whose buckets hit every special case of an affine bucket addition, different
 * ones in one batch (test_msm_sim, test/gpu/test_gpu_msm): point i is Q_j, -Q_j or infinity
 * (j = i mod nb) by a fixed sign pattern started at j + i / nb, so one step adds P + (-P) in
 * one bucket, P + P in another, infinity on either side in others; its canonical scalar is
 * j + 2, or r - 1 - (j + 2) when `negative` (negative signed digits). */
void ft_msm_affine_special(g1_aff *bases, fr_t *k, const g1_aff *q, size_t nb, size_t n, int negative);

/* Parse a big-endian hex string (no 0x) into n little-endian limbs; 0 on error. */
int ft_hex(uint64_t *out, int n, const char *hex);
/* Hex-encode bytes (lowercase) into out (2·len + 1 chars). */
void ft_tohex(char *out, const uint8_t *in, size_t len);

#endif
