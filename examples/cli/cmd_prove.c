/* cuzk prove: a circom circuit + witness + proving key -> a 192-byte bellperson proof, made by
 * the engine (the way a host uses libcuzk), which checks it against the key's verifying key
 * before handing it back. --via witness (or --cs) hands the engine the witness only and lets
 * it evaluate a, b, c from the loaded constraint system (cuzk_submit_witness). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/r1cs.h"
#include "groth16/groth16.h"

int cmd_prove(int argc, char **argv)
{
    const char *params = NULL, *r1cs_path = NULL, *wtns = NULL, *proof_path = NULL,
               *seed_hex = NULL, *backend = NULL, *cs_path = NULL, *via = NULL;
    cli_opt opts[] = {{"params", 1, &params}, {"r1cs", 0, &r1cs_path}, {"wtns", 1, &wtns},
                      {"proof", 1, &proof_path}, {"seed", 0, &seed_hex}, {"backend", 0, &backend},
                      {"cs", 0, &cs_path}, {"via", 0, &via}, {NULL, 0, NULL}};
    if (cli_parse("prove", argc, argv, opts)) return CLI_ERROR;
    if (!r1cs_path == !cs_path)
        return cli_fail(CUZK_EINVAL, "cuzk prove: give the circuit as --r1cs C.r1cs or --cs C.cuzkcs (one of them)");
    if (via && strcmp(via, "abc") && strcmp(via, "witness"))
        return cli_fail(CUZK_EINVAL, "cuzk prove: --via %s (abc or witness)", via);
    if (cs_path && via && !strcmp(via, "abc"))
        return cli_fail(CUZK_EINVAL, "cuzk prove: --cs proves through the witness-only path; --via abc needs --r1cs");
    if (cs_path || (via && !strcmp(via, "witness")))
        return cli_prove_witness(params, cs_path ? cs_path : r1cs_path, wtns, proof_path, seed_hex, backend);
    uint8_t seed[32];
    if (seed_hex && cli_parse_seed(seed_hex, seed)) return CLI_ERROR;
    int32_t kind;
    if (cli_parse_backend(backend, &kind)) return CLI_ERROR;

    int rc, ret = CLI_ERROR, part_ours = 0;
    cuzk_r1cs *r1cs = NULL;
    cuzk_fr *w = NULL;
    uint64_t nw = 0;
    cuzk_partition part;
    cuzk_config *cfg = NULL;
    cuzk_engine *engine = NULL;
    cuzk_srs *key = NULL;

    if ((rc = cuzk_r1cs_load(r1cs_path, &r1cs)) || (rc = cuzk_wtns_load(wtns, &w, &nw)) ||
        (rc = cuzk_r1cs_partition(r1cs, w, nw, &part))) {
        cli_fail_lib(rc);
        goto out;
    }
    part_ours = 1; /* until the engine accepts it, the partition's buffers are ours to release */
    /* seeded r and s, handed over in the partition's own (canonical) form */
    cuzk_fr r_c, s_c;
    if (seed_hex) {
        fr_t r, s;
        groth16_rs_from_seed(&r, &s, seed);
        fr_from_mont((fr_t *)&r_c, &r);
        fr_from_mont((fr_t *)&s_c, &s);
        part.r = &r_c;
        part.s = &s_c;
    }
    uint64_t constraints = part.abc_len - part.num_inputs, npub = part.num_inputs - 1;

    /* the engine checks every proof (CUZK_OPT_VERIFY is on by default): a wrong proof is
     * worse than none, and never comes back */
    if ((rc = cuzk_config_new(&cfg)) || (rc = cuzk_config_set(cfg, CUZK_OPT_BACKEND, kind)) ||
        (rc = cuzk_engine_create(cfg, &engine)) || (rc = cuzk_srs_load(engine, params, 0, &key))) {
        cli_fail_lib(rc);
        goto out;
    }
    cuzk_job job;
    if ((rc = cuzk_submit_partition(engine, key, &part, &job))) {
        cli_fail_lib(rc);
        goto out;
    }
    part_ours = 0;
    cuzk_result res;
    if (cli_wait_proof(engine, proof_path, &res)) goto out;
    printf("wrote %s (%llu constraints, %llu public inputs, %s r and s; %.1f ms in the engine)\n",
           proof_path, (unsigned long long)constraints, (unsigned long long)npub,
           seed_hex ? "seeded" : "random", res.total_ns / 1e6);
    ret = CLI_OK;
out:
    if (part_ours && part.release) part.release(part.release_user);
    cuzk_srs_release(key);
    cuzk_engine_destroy(engine);
    cuzk_config_free(cfg);
    cuzk_free(w);
    cuzk_r1cs_free(r1cs);
    return ret;
}
