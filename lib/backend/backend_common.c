/* The helpers of backend_common.h. */
#include "backend/backend_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "groth16/groth16.h"

unsigned backend_log2_ceil(uint64_t n)
{
    unsigned k = 0;
    while (k < 64 && ((uint64_t)1 << k) < n) k++;
    return k;
}

int backend_fr_below_r(const cuzk_fr *x)
{
    for (int i = 3; i >= 0; i--)
        if (x->l[i] != FR_MODULUS[i]) return x->l[i] < FR_MODULUS[i];
    return 0;
}

int backend_pick_rs(fr_t *out, const cuzk_fr *given, int32_t form, const char *name)
{
    if (!given) return groth16_random_fr(out);
    if (!backend_fr_below_r(given)) return err_set(CUZK_EINVAL, "partition's %s is not below r", name);
    if (form == CUZK_FR_CANONICAL) fr_to_mont(out, (const fr_t *)given);
    else memcpy(out, given, sizeof *out);
    return CUZK_OK;
}

int backend_verify_proof(const groth16_params *pk, const backend_job *job)
{
    const cuzk_partition *p = job->p;
    uint64_t n = p->num_inputs - 1; /* ONE excluded */
    fr_t small[64] = {{{0}}}, *pub = n <= 64 ? small : malloc(n * sizeof *pub);
    if (!pub) return err_set(CUZK_ENOMEM, "self-check: cannot allocate %llu public inputs", (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) {
        if (p->scalar_form == CUZK_FR_CANONICAL) fr_to_mont(&pub[i], (const fr_t *)&p->inputs[i + 1]);
        else memcpy(&pub[i], &p->inputs[i + 1], sizeof pub[i]);
    }
    int rc = groth16_verify(&pk->vk, job->proof, pub, n);
    if (pub != small) free(pub);
    if (rc == CUZK_EFORMAT) {
        /* The proof just made does not decode: a point off the subgroup or at infinity, from a
         * corrupted key (loaded without CUZK_SRS_CHECK_SUBGROUP) or a faulty device. It fails
         * the self-check like any wrong proof. */
        char detail[400];
        snprintf(detail, sizeof detail, "%s", err_detail());
        rc = err_set(CUZK_EVERIFY, "the proof made fails its self-check: %s (a corrupted key?)", detail);
    }
    return rc;
}
