/*
 * Groth16 verification with one multi-pairing (one final exponentiation):
 * e(A, B) · e(-alpha, beta) · e(-acc, gamma) · e(-C, delta) = 1, acc = ic[0] + sum x_i·ic[i+1];
 * and the public cuzk_verify on bellperson vk bytes.
 */
#include "groth16/groth16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "field/pairing.h"
#include "msm/msm_cpu.h"

/* Proof points as bellperson's Proof::read takes them: compressed, in the subgroup, not
 * the point at infinity. */
static int proof_point(void *dst, const uint8_t *in, int g2, const char *name, size_t off)
{
    int rc = g2 ? g2_decode(dst, in, G2_COMPRESSED_BYTES, 1) : g1_decode(dst, in, G1_COMPRESSED_BYTES, 1);
    if (rc) return err_set(CUZK_EFORMAT, "proof %s (bytes %zu..%zu): %s", name, off,
                           off + (g2 ? 96 : 48), point_strerror(rc));
    if (g2 ? g2_aff_is_inf(dst) : g1_aff_is_inf(dst))
        return err_set(CUZK_EFORMAT, "proof %s (bytes %zu..%zu) is the point at infinity", name, off,
                       off + (g2 ? 96 : 48));
    return CUZK_OK;
}

int groth16_proof_decode(const uint8_t proof[192], g1_aff *a, g2_aff *b, g1_aff *c)
{
    int rc;
    if ((rc = proof_point(a, proof, 0, "A", 0)) || (rc = proof_point(b, proof + 48, 1, "B", 48)) ||
        (rc = proof_point(c, proof + 144, 0, "C", 144)))
        return rc;
    return CUZK_OK;
}

int groth16_verify(const groth16_vk *vk, const uint8_t proof[192], const fr_t *public_inputs, size_t n)
{
    if (!vk || !proof) return err_set(CUZK_EINVAL, "verifying key or proof is NULL");
    if (n && !public_inputs) return err_set(CUZK_EINVAL, "public_inputs is NULL with n = %zu", n);
    if (!vk->ic || vk->n_ic == 0) return err_set(CUZK_EFORMAT, "verifying key has no ic points");
    if ((uint64_t)n + 1 != vk->n_ic)
        return err_set(CUZK_EMISMATCH, "verifying key has %u ic points: it takes %u public inputs, got %zu",
                       vk->n_ic, vk->n_ic - 1, n);
    g1_aff p[4];
    g2_aff q[4];
    int rc = groth16_proof_decode(proof, &p[0], &q[0], &p[3]);
    if (rc) return rc;

    fr_t *sc = malloc((n ? n : 1) * sizeof(fr_t));
    if (!sc) return err_set(CUZK_ENOMEM, "cannot allocate %zu scalars", n);
    for (size_t i = 0; i < n; i++) fr_from_mont(&sc[i], &public_inputs[i]);
    g1_jac acc;
    msm_g1(&acc, vk->ic + 1, sc, n, NULL);
    free(sc);
    g1_jac_add_aff(&acc, &acc, &vk->ic[0]);

    g1_aff_neg(&p[1], &vk->alpha_g1);
    q[1] = vk->beta_g2;
    g1_jac_to_aff(&p[2], &acc);
    g1_aff_neg(&p[2], &p[2]);
    q[2] = vk->gamma_g2;
    g1_aff_neg(&p[3], &p[3]);
    q[3] = vk->delta_g2;
    fp12_t f;
    pairing_multi(&f, p, q, 4);
    if (!fp12_is_one(&f)) return err_set(CUZK_EVERIFY, "the pairing check fails");
    return CUZK_OK;
}

CUZK_API int cuzk_verify(const uint8_t *vk, size_t vk_len, const uint8_t proof[192],
                         const cuzk_fr *public_inputs, size_t n, int32_t scalar_form)
{
    if (!vk || !proof) return err_set(CUZK_EINVAL, "vk or proof is NULL");
    if (n && !public_inputs) return err_set(CUZK_EINVAL, "public_inputs is NULL with n = %zu", n);
    if (scalar_form != CUZK_FR_MONTGOMERY && scalar_form != CUZK_FR_CANONICAL)
        return err_set(CUZK_EINVAL, "scalar_form %d is neither CUZK_FR_MONTGOMERY (0) nor CUZK_FR_CANONICAL (1)",
                       (int)scalar_form);
    /* The host's count against the key's, before anything is decoded, converted or sized
     * by n (n * 32 wraps for n >= 2^59). */
    uint32_t n_ic = 0;
    int rc = groth16_vk_ic_count(vk, vk_len, &n_ic);
    if (rc == CUZK_OK && n_ic == 0) rc = err_set(CUZK_EFORMAT, "it has no ic points");
    if (rc == CUZK_OK && n != (size_t)n_ic - 1)
        return err_set(CUZK_EMISMATCH, "the verifying key has %u ic points: it takes %u public inputs, "
                       "got %zu", n_ic, n_ic - 1, n);
    groth16_vk key;
    if (rc == CUZK_OK) rc = groth16_vk_parse(vk, vk_len, &key);
    if (rc) {
        char detail[512]; /* err_set writes the buffer err_detail() points into */
        snprintf(detail, sizeof detail, "%s", err_detail());
        return err_set(rc, "verifying key: %s", detail);
    }
    fr_t *x = malloc((n ? n : 1) * sizeof(fr_t));
    if (!x) {
        groth16_vk_clear(&key);
        return err_set(CUZK_ENOMEM, "cannot allocate %zu scalars", n);
    }
    for (size_t i = 0; i < n && !rc; i++) {
        if (!fr_is_canonical((const fr_t *)&public_inputs[i]))
            rc = err_set(CUZK_EINVAL, "public input %zu is not below r", i);
        else if (scalar_form == CUZK_FR_CANONICAL) fr_to_mont(&x[i], (const fr_t *)&public_inputs[i]);
        else x[i] = *(const fr_t *)&public_inputs[i];
    }
    if (!rc) rc = groth16_verify(&key, proof, x, n);
    free(x);
    groth16_vk_clear(&key);
    return err_done(rc);
}
