/*
 * Small helpers every prover backend needs the same way (CPU and CUDA): the domain size of
 * a partition, its r and s, and the pairing self-check of a proof. One copy, so the
 * backends cannot drift apart.
 */
#ifndef CUZK_BACKEND_COMMON_H
#define CUZK_BACKEND_COMMON_H

#include <stdint.h>

#include "backend/backend.h"
#include "cuzk/cuzk.h"
#include "field/field.h"
#include "groth16/groth16.h"

/* The smallest k with 2^k >= n (0 for n <= 1). */
unsigned backend_log2_ceil(uint64_t n);
/* 1 if x (four little-endian limbs, either scalar form) is below r. */
int backend_fr_below_r(const cuzk_fr *x);
/* r or s for a proof, Montgomery: the partition's own (given, in its scalar_form `form`),
 * or a fresh one from the OS when given is NULL. CUZK_EINVAL naming `name` when given is
 * not below r; CUZK_EIO when the OS has no randomness. */
int backend_pick_rs(fr_t *out, const cuzk_fr *given, int32_t form, const char *name);
/* The self-check (backend_ops.verify) of job->proof against pk's verifying key and the
 * partition's public inputs: CUZK_OK, CUZK_EVERIFY (also for a proof that does not decode:
 * a corrupted key or device), or CUZK_ENOMEM. */
int backend_verify_proof(const groth16_params *pk, const backend_job *job);

#endif
