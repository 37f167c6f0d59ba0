/*
 * Groth16 over BLS12-381 as bellperson computes it (FORMATS.md): proving and verifying
 * keys in bellperson's byte format, the prover in stages that backends reuse, the
 * verifier, and the test-only setup from known toxic waste.
 */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "field/curve.h"
#include "groth16/cs.h"
#include "scratch.h"
#include "threadpool.h"

typedef struct groth16_vk {
    g1_aff alpha_g1, beta_g1;
    g2_aff beta_g2, gamma_g2;
    g1_aff delta_g1;
    g2_aff delta_g2;
    g1_aff *ic;                  /* n_ic points */
    uint32_t n_ic;
} groth16_vk;

typedef struct groth16_params {  /* a proving key; the vk inside owns ic */
    groth16_vk vk;
    g1_aff *h, *l, *a, *b_g1;
    g2_aff *b_g2;
    uint32_t n_h, n_l, n_a, n_b_g1, n_b_g2;
    uint64_t trailing_bytes;     /* bytes after b_g2 that the reader ignored (as bellperson) */
} groth16_params;

/* ---- keys (params.c): EFORMAT with the byte offset and reason in cuzk_last_error() ---- */
int groth16_params_load(const char *path, int check_subgroup, threadpool *tp, groth16_params **out);
int groth16_params_parse(const uint8_t *buf, size_t len, int check_subgroup, threadpool *tp,
                         groth16_params **out);
void groth16_params_free(groth16_params *p);
int groth16_params_write(const char *path, const groth16_params *p);
int groth16_vk_parse(const uint8_t *buf, size_t len, groth16_vk *out); /* out->ic allocated */
/* The vk's ic count, read and bounds-checked (its points lie inside buf) without decoding
 * or allocating anything: a caller checks a host's count against it first. */
int groth16_vk_ic_count(const uint8_t *buf, size_t len, uint32_t *n_ic);
void groth16_vk_clear(groth16_vk *vk);
int groth16_vk_write(const char *path, const groth16_vk *vk);
int groth16_vk_serialize(const groth16_vk *vk, uint8_t **out, size_t *out_len); /* malloc'd */
int groth16_params_serialize(const groth16_params *p, uint8_t **out, size_t *out_len); /* malloc'd */

/* ---- proving (prover.c) ---- */
/* CUZK_OK if the partition's sizes fit the key, else CUZK_EMISMATCH with the numbers
 * (also CUZK_EINVAL for NULL buffers, bad struct_size or scalar_form, inputs[0] != ONE).
 * O(num_aux / 64): it counts the density bits; it does not look at the scalars. */
int groth16_check_partition(const groth16_params *pk, const cuzk_partition *p);
/* The same without a, b, c (NULL allowed): a witness-only partition's, whose abc_len and
 * densities come from its constraint system (backend_job.cs). */
int groth16_check_witness(const groth16_params *pk, const cuzk_partition *p);
/* CUZK_OK if every scalar of a, b, c, inputs and aux is below r (in either form), else
 * CUZK_EINVAL naming the first one. O(n), parallel; groth16_prove calls it. */
int groth16_check_scalars(const cuzk_partition *p, threadpool *tp);

/* The *_ex forms take their working memory from sa (NULL: malloc), allocating only on the
 * calling thread, so an engine worker can feed them its partition's heap. */
int groth16_check_scalars_ex(const cuzk_partition *p, threadpool *tp, const scratch_alloc *sa);

/* The H scalars: h[0 .. 2^log_m - 1) (m - 1 values, Montgomery), from a, b, c. */
int groth16_compute_h(fr_t *h, const cuzk_partition *p, unsigned log_m, threadpool *tp);
int groth16_compute_h_ex(fr_t *h, const cuzk_partition *p, unsigned log_m, threadpool *tp,
                         const scratch_alloc *sa);

typedef struct groth16_msm_out {
    g1_jac h, l, a, b_g1;
    g2_jac b_g2;
} groth16_msm_out;

/* Stage times of one CPU proof in nanoseconds (for benchmarks; any pointer may be NULL). */
typedef struct groth16_stage_ns {
    uint64_t h, msm_prep, msm_h, msm_l, msm_a, msm_b_g1, msm_b_g2, assemble;
} groth16_stage_ns;
uint64_t groth16_now_ns(void); /* CLOCK_MONOTONIC */

/* The MSM scalars of a partition, canonical and compacted by the densities: aux for L
 * (borrowed from the partition when it is canonical already), a = every input then the aux
 * in a_aux_density, b = inputs in b_input_density then aux in b_aux_density (for B_G1 and
 * B_G2). Free with groth16_msm_scalars_free. */
typedef struct groth16_msm_scalars {
    const fr_t *aux;
    fr_t *a, *b;
    uint64_t n_aux, n_a, n_b;
    fr_t *owned_aux;              /* internal */
    const scratch_alloc *sa;      /* internal: where a, b, owned_aux came from */
} groth16_msm_scalars;
int groth16_msm_scalars_make(groth16_msm_scalars *s, const cuzk_partition *p, threadpool *tp);
int groth16_msm_scalars_make_ex(groth16_msm_scalars *s, const cuzk_partition *p, threadpool *tp,
                                const scratch_alloc *sa);
void groth16_msm_scalars_free(groth16_msm_scalars *s);

/* The five MSMs of a partition on the CPU (h as computed above). */
int groth16_msms_cpu(groth16_msm_out *out, const groth16_params *pk, const cuzk_partition *p,
                     const fr_t *h, threadpool *tp);
int groth16_msms_cpu_timed(groth16_msm_out *out, const groth16_params *pk, const cuzk_partition *p,
                           const fr_t *h, threadpool *tp, groth16_stage_ns *t);
int groth16_msms_cpu_ex(groth16_msm_out *out, const groth16_params *pk, const cuzk_partition *p,
                        const fr_t *h, threadpool *tp, groth16_stage_ns *t, const scratch_alloc *sa);
/* A, B, C from the MSM results and r, s (Montgomery) -> the 192-byte proof. */
void groth16_assemble(uint8_t proof[192], const groth16_params *pk, const groth16_msm_out *m,
                      const fr_t *r, const fr_t *s);
/* Everything above in one call. r, s Montgomery; where NULL, the partition's r / s (in its
 * scalar_form) are used, and where those are NULL too, the OS CSPRNG. */
int groth16_prove(const groth16_params *pk, const cuzk_partition *p, const fr_t *r,
                  const fr_t *s, threadpool *tp, uint8_t proof[192]);
int groth16_prove_timed(const groth16_params *pk, const cuzk_partition *p, const fr_t *r,
                        const fr_t *s, threadpool *tp, uint8_t proof[192], groth16_stage_ns *t);
/* A uniform Fr element (Montgomery) from getrandom(); CUZK_EIO if the OS refuses. */
int groth16_random_fr(fr_t *out);

/* ---- verification (verify.c) ---- */
/* public_inputs Montgomery, ONE excluded. CUZK_OK, CUZK_EVERIFY, CUZK_EFORMAT, CUZK_EMISMATCH. */
int groth16_verify(const groth16_vk *vk, const uint8_t proof[192], const fr_t *public_inputs,
                   size_t n);
/* A, B, C of a proof under bellperson's Proof::read rules (compressed, on the curve, in the
 * subgroup, not infinity): the one decoder for verification and for anything that shows a
 * proof, so nothing accepts a proof that verification refuses. CUZK_EFORMAT naming the point. */
int groth16_proof_decode(const uint8_t proof[192], g1_aff *a, g2_aff *b, g1_aff *c);

/* ---- test-only setup (setup.c): KNOWN TOXIC WASTE, NEVER FOR PRODUCTION ---- */
typedef struct groth16_toxic {
    fr_t alpha, beta, gamma, delta, tau; /* Montgomery */
} groth16_toxic;
/* Each value = int_le(SHA-256(seed(32) || label)) mod r, label in ASCII without NUL:
 * "cuzk-test-setup-alpha", "-beta", "-gamma", "-delta", "-tau". Tests in Node derive the same. */
void groth16_toxic_from_seed(groth16_toxic *t, const uint8_t seed[32]);
/* r, s for reproducible proofs from a 32-byte seed: labels "cuzk-test-prove-r" / "-s". */
void groth16_rs_from_seed(fr_t *r, fr_t *s, const uint8_t seed[32]);
int groth16_setup(const cs *sys, const groth16_toxic *t, threadpool *tp, groth16_params **out);

#endif
