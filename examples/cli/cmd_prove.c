/* cuzk prove: a circom circuit + witness + proving key -> a 192-byte bellperson proof, checked
 * against the key's own verifying key before it is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/r1cs.h"
#include "groth16/groth16.h"

int cmd_prove(int argc, char **argv)
{
    const char *params = NULL, *r1cs_path = NULL, *wtns = NULL, *proof_path = NULL,
               *seed_hex = NULL, *backend = NULL;
    cli_opt opts[] = {{"params", 1, &params}, {"r1cs", 1, &r1cs_path}, {"wtns", 1, &wtns},
                      {"proof", 1, &proof_path}, {"seed", 0, &seed_hex}, {"backend", 0, &backend},
                      {NULL, 0, NULL}};
    if (cli_parse("prove", argc, argv, opts)) return CLI_ERROR;
    uint8_t seed[32];
    if (seed_hex && cli_parse_seed(seed_hex, seed)) return CLI_ERROR;
    if (backend && strcmp(backend, "auto") && strcmp(backend, "cpu") && strcmp(backend, "cuda"))
        return cli_fail(CUZK_EINVAL, "--backend must be auto, cpu or cuda, not '%s'", backend);
    if (backend && !strcmp(backend, "cuda"))
        return cli_fail(CUZK_EDEVICE, "the CUDA backend is not reachable from the CLI yet (use "
                        "--backend cpu or auto)");

    int rc, ret = CLI_ERROR;
    cuzk_r1cs *r1cs = NULL;
    cuzk_fr *w = NULL;
    uint64_t nw = 0;
    cuzk_partition part;
    int have_part = 0;
    groth16_params *pk = NULL;
    fr_t *pub = NULL;
    threadpool *tp = threadpool_create(0);
    if (!tp) return cli_fail(CUZK_ENOMEM, "cannot start the prover's threads");

    if ((rc = cuzk_r1cs_load(r1cs_path, &r1cs)) || (rc = cuzk_wtns_load(wtns, &w, &nw)) ||
        (rc = cuzk_r1cs_partition(r1cs, w, nw, &part))) {
        cli_fail_lib(rc);
        goto out;
    }
    have_part = 1;
    if ((rc = groth16_params_load(params, 0, tp, &pk)) || (rc = groth16_check_partition(pk, &part))) {
        cli_fail_lib(rc);
        goto out;
    }
    fr_t r, s;
    if (seed_hex) groth16_rs_from_seed(&r, &s, seed);
    uint8_t proof[192];
    if ((rc = groth16_prove(pk, &part, seed_hex ? &r : NULL, seed_hex ? &s : NULL, tp, proof))) {
        cli_fail_lib(rc);
        goto out;
    }
    /* A wrong proof is worse than none: check it before it leaves. */
    uint64_t npub = part.num_inputs - 1;
    pub = malloc((npub ? npub : 1) * sizeof *pub);
    if (!pub) {
        cli_fail(CUZK_ENOMEM, "cannot allocate %llu public inputs", (unsigned long long)npub);
        goto out;
    }
    for (uint64_t i = 0; i < npub; i++) {
        fr_t c;
        memcpy(&c, &part.inputs[i + 1], sizeof c);
        fr_to_mont(&pub[i], &c);
    }
    if ((rc = groth16_verify(&pk->vk, proof, pub, npub))) {
        cli_fail(rc, "the proof just made does not verify against the key's vk: %s", cuzk_last_error());
        goto out;
    }
    if (cli_write_file(proof_path, proof, sizeof proof)) goto out;
    printf("wrote %s (%llu constraints, %llu public inputs, %s r and s)\n", proof_path,
           (unsigned long long)(part.abc_len - part.num_inputs), (unsigned long long)npub,
           seed_hex ? "seeded" : "random");
    ret = CLI_OK;
out:
    free(pub);
    if (pk) groth16_params_free(pk);
    if (have_part && part.release) part.release(part.release_user);
    cuzk_free(w);
    cuzk_r1cs_free(r1cs);
    threadpool_destroy(tp);
    return ret;
}
