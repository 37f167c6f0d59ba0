/* cuzk verify: check a proof against a verifying key and public inputs, taken from a circuit
 * and its witness or given on the command line. Exit 0 valid, 1 invalid, 2 error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/r1cs.h"

/* The public inputs (ONE excluded) of a witness, canonical, malloc'd. */
int cli_public_from_witness(const char *r1cs_path, const char *wtns_path, cuzk_fr **out, size_t *n)
{
    cuzk_r1cs *r1cs = NULL;
    cuzk_fr *w = NULL;
    uint64_t nw = 0;
    cuzk_partition part;
    int rc;
    if ((rc = cuzk_r1cs_load(r1cs_path, &r1cs)) || (rc = cuzk_wtns_load(wtns_path, &w, &nw)) ||
        (rc = cuzk_r1cs_partition(r1cs, w, nw, &part))) {
        cuzk_free(w);
        cuzk_r1cs_free(r1cs);
        return cli_fail_lib(rc);
    }
    *n = part.num_inputs - 1;
    *out = malloc((*n ? *n : 1) * sizeof **out);
    if (*out) memcpy(*out, part.inputs + 1, *n * sizeof **out);
    if (part.release) part.release(part.release_user);
    cuzk_free(w);
    cuzk_r1cs_free(r1cs);
    if (!*out) return cli_fail(CUZK_ENOMEM, "cannot allocate %zu public inputs", *n);
    return CLI_OK;
}

static int parse_public_list(const char *list, cuzk_fr **out, size_t *n)
{
    size_t cap = 1;
    for (const char *p = list; *p; p++) cap += *p == ',';
    *out = malloc(cap * sizeof **out);
    if (!*out) return cli_fail(CUZK_ENOMEM, "cannot allocate %zu public inputs", cap);
    *n = 0;
    if (!*list) return CLI_OK; /* --public "" : a circuit without public inputs */
    char *copy = strdup(list);
    if (!copy) return cli_fail(CUZK_ENOMEM, "out of memory");
    /* every item between commas counts (strtok would skip empty ones: ",X" must not read as
     * one input) */
    for (char *tok = copy, *end;; tok = end + 1) {
        if ((end = strchr(tok, ','))) *end = '\0';
        while (*tok == ' ') tok++;
        size_t len = strlen(tok);
        while (len && tok[len - 1] == ' ') tok[--len] = '\0';
        if (!len) {
            free(copy);
            return cli_fail(CUZK_EINVAL, "cuzk verify: --public item %zu is empty (in '%s'); give one "
                            "decimal or 0x-hex number per public input, separated by commas", *n + 1, list);
        }
        if (cli_parse_fr(tok, &(*out)[*n])) {
            free(copy);
            return CLI_ERROR;
        }
        (*n)++;
        if (!end) break;
    }
    free(copy);
    return CLI_OK;
}

int cmd_verify(int argc, char **argv)
{
    const char *vk_path = NULL, *proof_path = NULL, *r1cs = NULL, *wtns = NULL, *pub_list = NULL;
    cli_opt opts[] = {{"vk", 1, &vk_path}, {"proof", 1, &proof_path}, {"r1cs", 0, &r1cs},
                      {"wtns", 0, &wtns}, {"public", 0, &pub_list}, {NULL, 0, NULL}};
    if (cli_parse("verify", argc, argv, opts)) return CLI_ERROR;
    if (pub_list ? (r1cs || wtns) : !(r1cs && wtns))
        return cli_fail(CUZK_EINVAL, "cuzk verify: give either --r1cs and --wtns, or --public");

    int ret = CLI_ERROR;
    uint8_t *vk = NULL, *proof = NULL;
    size_t vk_len = 0, proof_len = 0, npub = 0;
    cuzk_fr *pub = NULL;
    if (cli_read_file(vk_path, &vk, &vk_len) || cli_read_file(proof_path, &proof, &proof_len))
        goto out;
    if (proof_len != 192) {
        cli_fail(CUZK_EFORMAT, "%s is %zu bytes; a Groth16 proof is 192 (A, B, C compressed)",
                 proof_path, proof_len);
        goto out;
    }
    if (pub_list ? parse_public_list(pub_list, &pub, &npub)
                 : cli_public_from_witness(r1cs, wtns, &pub, &npub))
        goto out;
    int rc = cuzk_verify(vk, vk_len, proof, pub, npub, CUZK_FR_CANONICAL);
    if (rc == CUZK_OK) {
        printf("valid\n");
        ret = CLI_OK;
    } else if (rc == CUZK_EVERIFY) {
        cli_fail_lib(rc);
        ret = CLI_INVALID;
    } else {
        cli_fail_lib(rc);
    }
out:
    free(vk);
    free(proof);
    free(pub);
    return ret;
}
