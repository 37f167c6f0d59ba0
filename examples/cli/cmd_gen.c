/* cuzk gen: a synthetic circuit with the proportions of one Filecoin partition (--shape
 * porep|snap|wpost|winning: lib/groth16/synth_shape.c), written as circom's .r1cs and
 * snarkjs's .wtns so that other tools read it too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cli.h"
#include "groth16/circom_file.h"
#include "groth16/synth.h"

static int parse_count(const char *s, uint64_t *out) /* decimal, or 2^k */
{
    char *end;
    errno = 0;
    if (!strncmp(s, "2^", 2)) {
        unsigned long k = strtoul(s + 2, &end, 10);
        if (*end || end == s + 2 || k > 32) return -1;
        *out = (uint64_t)1 << k;
        return 0;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || end == s || errno || s[0] == '-') return -1;
    *out = v;
    return 0;
}

static uint64_t popcount(const uint64_t *bits, uint64_t n)
{
    uint64_t c = 0;
    for (uint64_t i = 0; i < (n + 63) / 64; i++) c += (uint64_t)__builtin_popcountll(bits[i]);
    return c;
}

int cmd_gen(int argc, char **argv)
{
    const char *shape = NULL, *count = NULL, *log_s = NULL, *r1cs_path = NULL, *wtns_path = NULL,
               *seed_hex = NULL;
    cli_opt opts[] = {{"shape", 1, &shape}, {"constraints", 0, &count}, {"log", 0, &log_s},
                      {"r1cs", 1, &r1cs_path}, {"wtns", 1, &wtns_path}, {"seed", 0, &seed_hex},
                      {NULL, 0, NULL}};
    if (cli_parse("gen", argc, argv, opts)) return CLI_ERROR;
    const synth_shape *sh = synth_shape_find(shape);
    if (!sh)
        return cli_fail(CUZK_EINVAL, "cuzk gen: --shape must be one of %s, not '%s'", synth_shape_names(), shape);
    if (!count == !log_s)
        return cli_fail(CUZK_EINVAL, "cuzk gen: give either --constraints N or --log N (the domain 2^N, "
                        "filled as the shape fills its own)");
    uint64_t n = 0, lg = 0;
    if (count && (parse_count(count, &n) || n == 0))
        return cli_fail(CUZK_EINVAL, "cuzk gen: --constraints must be a positive integer or 2^k, "
                        "not '%s'", count);
    if (log_s && (parse_count(log_s, &lg) || lg < 6 || lg > 30))
        return cli_fail(CUZK_EINVAL, "cuzk gen: --log must be 6..30, not '%s'", log_s);
    uint8_t seed[32];
    if (seed_hex) {
        if (cli_parse_seed(seed_hex, seed)) return CLI_ERROR;
    } else if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        return cli_fail(CUZK_EIO, "cannot draw a seed from the OS random source");
    }
    synth_cfg cfg;
    if (count) synth_cfg_for_shape(&cfg, sh, n, seed);
    else synth_cfg_for_shape_log(&cfg, sh, (unsigned)lg, 0, seed);
    cs sys;
    fr_t *in = NULL, *aux = NULL, *all = NULL;
    cuzk_partition part;
    int rc = synth_cs(&cfg, &sys, &in, &aux);
    if (rc) return cli_fail_lib(rc);
    int ret = CLI_ERROR;
    uint64_t nw = sys.num_inputs + sys.num_aux;
    all = malloc(nw * sizeof *all);
    if (!all) {
        cli_fail(CUZK_ENOMEM, "cannot allocate %llu witness values", (unsigned long long)nw);
        goto out;
    }
    memcpy(all, in, sys.num_inputs * sizeof *all);
    memcpy(all + sys.num_inputs, aux, sys.num_aux * sizeof *all);
    if ((rc = circom_r1cs_write(r1cs_path, &sys)) || (rc = circom_wtns_write(wtns_path, all, nw)) ||
        (rc = cs_make_partition(&sys, in, aux, &part))) {
        cli_fail_lib(rc);
        goto out;
    }
    uint64_t pa = popcount(part.a_aux_density, part.num_aux),
             pb = popcount(part.b_aux_density, part.num_aux),
             pi = popcount(part.b_input_density, part.num_inputs);
    uint64_t nnz[3];
    const cs_lc_rows *rows[3] = {&sys.a, &sys.b, &sys.c};
    for (int w = 0; w < 3; w++) nnz[w] = rows[w]->off[sys.num_constraints];
    double rows_n = (double)sys.num_constraints;
    printf("wrote %s and %s (%s shape): %llu constraints, %llu inputs (ONE included), %llu aux; density "
           "a_aux %.1f %%, b_aux %.1f %%, b_input %llu of %llu; domain 2^%u\n",
           r1cs_path, wtns_path, sh->name, (unsigned long long)sys.num_constraints,
           (unsigned long long)sys.num_inputs, (unsigned long long)sys.num_aux,
           100.0 * (double)pa / (double)sys.num_aux, 100.0 * (double)pb / (double)sys.num_aux,
           (unsigned long long)pi, (unsigned long long)sys.num_inputs, cs_log_domain(&sys));
    /* the circuit's own constraints, as the published figure (not bellperson's per-input rows) */
    printf("  non-zeros A/B/C %llu/%llu/%llu: %.2f/%.2f/%.2f per constraint (the shape aims at %.2f/%.2f/%.2f)\n",
           (unsigned long long)nnz[0], (unsigned long long)nnz[1], (unsigned long long)nnz[2], nnz[0] / rows_n,
           nnz[1] / rows_n, nnz[2] / rows_n, sh->nnz_x100[0] / 100.0, sh->nnz_x100[1] / 100.0,
           sh->nnz_x100[2] / 100.0);
    printf("  seed ");
    for (int i = 0; i < 32; i++) printf("%02x", seed[i]);
    printf("\n");
    if (part.release) part.release(part.release_user);
    ret = CLI_OK;
out:
    free(all);
    free(in);
    free(aux);
    cs_free(&sys);
    return ret;
}
