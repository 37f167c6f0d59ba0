/* cuzk setup: a TEST-ONLY Groth16 key pair for a circom circuit (toxic waste from a seed). */
#include <stdio.h>
#include <sys/random.h>

#include "cli.h"
#include "cuzk/r1cs.h"

int cmd_setup(int argc, char **argv)
{
    const char *r1cs_path = NULL, *params = NULL, *vk = NULL, *seed_hex = NULL;
    cli_opt opts[] = {{"r1cs", 1, &r1cs_path}, {"params", 1, &params}, {"vk", 1, &vk},
                      {"seed", 0, &seed_hex}, {NULL, 0, NULL}};
    if (cli_parse("setup", argc, argv, opts)) return CLI_ERROR;
    uint8_t seed[32];
    if (seed_hex) {
        if (cli_parse_seed(seed_hex, seed)) return CLI_ERROR;
    } else if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        return cli_fail(CUZK_EIO, "cannot draw a seed from the OS random source");
    }
    printf("TEST-ONLY setup: the toxic waste is derived from %s; anyone who knows it can forge "
           "proofs. Never use these keys in production.\n",
           seed_hex ? "the given --seed" : "a random seed that is not kept");
    fflush(stdout);
    cuzk_r1cs *r1cs;
    int rc = cuzk_r1cs_load(r1cs_path, &r1cs);
    if (rc) return cli_fail_lib(rc);
    rc = cuzk_setup(r1cs, seed, params, vk);
    cuzk_r1cs_free(r1cs);
    if (rc) return cli_fail_lib(rc);
    printf("wrote %s and %s\n", params, vk);
    return CLI_OK;
}
