/* cuzk prove --via witness and cuzk cs-convert: the witness-only path of the CLI. The .wtns
 * holds circom's wires in order (ONE, public outputs, public inputs, private signals), which
 * is bellperson's inputs followed by its aux, so it is handed over as it is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cuzk/r1cs.h"
#include "groth16/csc.h"
#include "groth16/groth16.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int cli_prove_witness(const char *params, const char *cs_path, const char *wtns, const char *proof_path,
                      const char *seed_hex, const char *backend)
{
    uint8_t seed[32];
    if (seed_hex && cli_parse_seed(seed_hex, seed)) return CLI_ERROR;
    int32_t kind;
    if (cli_parse_backend(backend, &kind)) return CLI_ERROR;
    int rc, ret = CLI_ERROR;
    cuzk_fr *w = NULL;
    uint64_t nw = 0;
    cuzk_config *cfg = NULL;
    cuzk_engine *engine = NULL;
    cuzk_srs *key = NULL;
    cuzk_cs *cs = NULL;
    cuzk_cs_info info = {.struct_size = sizeof info};
    if ((rc = cuzk_wtns_load(wtns, &w, &nw)) || (rc = cuzk_config_new(&cfg)) ||
        (rc = cuzk_config_set(cfg, CUZK_OPT_BACKEND, kind)) || (rc = cuzk_engine_create(cfg, &engine)) ||
        (rc = cuzk_srs_load(engine, params, 0, &key)) || (rc = cuzk_cs_load(engine, cs_path, 0, &cs)) ||
        (rc = cuzk_cs_get_info(cs, &info))) {
        cli_fail_lib(rc);
        goto out;
    }
    if (nw != info.num_inputs + info.num_aux) {
        cli_fail(CUZK_EINVAL, "%s has %llu values, the circuit %llu wires", wtns, (unsigned long long)nw,
                 (unsigned long long)(info.num_inputs + info.num_aux));
        goto out;
    }
    cuzk_fr r_c, s_c;
    cuzk_witness_partition wp = {.struct_size = sizeof wp, .scalar_form = CUZK_FR_CANONICAL, .inputs = w,
                                 .num_inputs = info.num_inputs, .aux = w + info.num_inputs, .num_aux = info.num_aux};
    if (seed_hex) { /* the same r, s as `cuzk prove --via abc --seed`: the same proof */
        fr_t r, s;
        groth16_rs_from_seed(&r, &s, seed);
        fr_from_mont((fr_t *)&r_c, &r);
        fr_from_mont((fr_t *)&s_c, &s);
        wp.r = &r_c, wp.s = &s_c;
    }
    cuzk_job job;
    if ((rc = cuzk_submit_witness(engine, key, cs, &wp, &job))) {
        cli_fail_lib(rc);
        goto out;
    }
    cuzk_result res;
    if (cli_wait_proof(engine, proof_path, &res)) goto out;
    printf("wrote %s (%llu constraints, %llu public inputs, %s r and s; witness only: %.1f ms in the engine)\n",
           proof_path, (unsigned long long)info.num_constraints, (unsigned long long)(info.num_inputs - 1),
           seed_hex ? "seeded" : "random", res.total_ns / 1e6);
    ret = CLI_OK;
out:
    cuzk_cs_release(cs);
    cuzk_srs_release(key);
    cuzk_engine_destroy(engine);
    cuzk_config_free(cfg);
    cuzk_free(w);
    return ret;
}

int cmd_cs_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    cli_opt opts[] = {{"r1cs", 1, &in}, {"out", 1, &out}, {NULL, 0, NULL}};
    if (cli_parse("cs-convert", argc, argv, opts)) return CLI_ERROR;
    csc c, back;
    threadpool *tp = threadpool_create(0); /* the loads' checks and reads: every CPU, as cuzk_cs_load */
    if (!tp) return cli_fail(CUZK_ENOMEM, "cuzk cs-convert: cannot start threads");
    double t0 = now_s();
    int rc = csc_load_any(in, tp, &c);
    double t1 = now_s();
    if (rc) {
        threadpool_destroy(tp);
        return cli_fail_lib(rc);
    }
    rc = csc_write(out, &c);
    double t2 = now_s();
    if (rc == CUZK_OK) rc = csc_read(out, tp, &back);
    double t3 = now_s();
    unsigned threads = threadpool_size(tp);
    threadpool_destroy(tp);
    if (rc) {
        csc_free(&c);
        return cli_fail_lib(rc);
    }
    FILE *f = fopen(in, "rb"), *g = fopen(out, "rb");
    long in_bytes = -1, out_bytes = -1;
    if (f && !fseek(f, 0, SEEK_END)) in_bytes = ftell(f);
    if (g && !fseek(g, 0, SEEK_END)) out_bytes = ftell(g);
    if (f) fclose(f);
    if (g) fclose(g);
    printf("wrote %s: %llu constraints, %llu inputs, %llu aux, non-zeros A/B/C %llu/%llu/%llu, %u distinct "
           "coefficients\n", out, (unsigned long long)c.num_constraints, (unsigned long long)c.num_inputs,
           (unsigned long long)c.num_aux, (unsigned long long)c.m[0].nnz, (unsigned long long)c.m[1].nnz,
           (unsigned long long)c.m[2].nnz, c.n_coeffs);
    printf("  %s: %ld bytes, loaded and compacted in %.3f s\n", in, in_bytes, t1 - t0);
    printf("  %s: %ld bytes (%llu in memory), written in %.3f s, loaded in %.3f s (%u threads)\n", out, out_bytes,
           (unsigned long long)csc_bytes(&c), t2 - t1, t3 - t2, threads);
    csc_free(&back);
    csc_free(&c);
    return CLI_OK;
}
