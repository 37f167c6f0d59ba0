/*
 * cuzk_setup: the public, TEST-ONLY way to make a key pair for a circom circuit: toxic waste
 * from a 32-byte seed, bellperson's generator (groth16_setup), both files written.
 */
#include <string.h>

#include "error.h"
#include "groth16/circom_file.h"
#include "groth16/groth16.h"
#include "threadpool.h"

CUZK_API int cuzk_setup(const cuzk_r1cs *r1cs, const uint8_t seed[32], const char *params_path,
                        const char *vk_path)
{
    if (!r1cs || !seed) return err_set(CUZK_EINVAL, "cuzk_setup: r1cs or seed is NULL");
    if (!params_path && !vk_path)
        return err_set(CUZK_EINVAL, "cuzk_setup: neither a params nor a vk path given");
    if (cs_abc_len(&r1cs->sys) > ((uint64_t)1 << 32))
        return err_set(CUZK_EMISMATCH, "%llu constraints + inputs need a domain above 2^32",
                       (unsigned long long)cs_abc_len(&r1cs->sys));
    groth16_toxic t;
    groth16_toxic_from_seed(&t, seed);
    threadpool *tp = threadpool_create(0);
    if (!tp) return err_set(CUZK_ENOMEM, "cannot start the setup's threads");
    groth16_params *pk = NULL;
    int rc = groth16_setup(&r1cs->sys, &t, tp, &pk);
    memset(&t, 0, sizeof t); /* toxic waste: do not leave it lying around */
    threadpool_destroy(tp);
    if (rc) return rc;
    if (params_path) rc = groth16_params_write(params_path, pk);
    if (!rc && vk_path) rc = groth16_vk_write(vk_path, &pk->vk);
    groth16_params_free(pk);
    return err_done(rc);
}

