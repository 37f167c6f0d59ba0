/*
 * The benches' circuits and keys (bench.h): a shape from the table in lib/groth16 at domain
 * 2^N, and its test-only key cached in bench_cache_dir(), shared by pipeline, mixed and srs-load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cuzk/cuzk.h"
#include "groth16/groth16.h"

int bench_shape_cfg(const char *name, int log_m, int fill, bench_circuit *out)
{
    memset(out, 0, sizeof *out);
    out->shape = synth_shape_find(name);
    if (!out->shape) {
        fprintf(stderr, "cuzk-bench: --shape must be one of %s, not '%s'\n", synth_shape_names(), name);
        return 2;
    }
    if (log_m < 6 || log_m > 28 || fill < 0 || fill > 100) {
        fprintf(stderr, "cuzk-bench: --log must be 6..28 (not %d) and --fill 0..100 (not %d; 0 = the shape's own)\n",
                log_m, fill);
        return 2;
    }
    out->log_m = log_m;
    out->fill = fill ? fill : (int)out->shape->fill_pct;
    /* PoRep's seed is the one these benches used before there were shapes (same circuits,
     * same cached keys); the others add the shape's name */
    uint8_t seed[32] = {0x91, 0x9e, (uint8_t)log_m, (uint8_t)out->fill};
    if (strcmp(name, "porep")) snprintf((char *)seed + 4, 28, "%s", name);
    synth_cfg_for_shape_log(&out->cfg, out->shape, (unsigned)log_m, (unsigned)out->fill, seed);
    char dir[4096];
    if (bench_cache_dir(dir, sizeof dir)) return 2;
    snprintf(out->key_path, sizeof out->key_path, "%s/pipeline-%s-2^%d-%d-g%d.params", dir, name, log_m, out->fill,
             SYNTH_GENERATION); /* a key of another generation's circuit would not verify */
    return 0;
}

int bench_shape_key(const bench_circuit *c, threadpool *tp, double *setup_s)
{
    *setup_s = 0;
    if (!access(c->key_path, R_OK)) return 0;
    uint64_t t0 = bench_now_ns();
    cs sys;
    fr_t *in, *aux;
    groth16_params *pk;
    groth16_toxic tw;
    groth16_toxic_from_seed(&tw, c->cfg.seed);
    char tmp[sizeof c->key_path + 32];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", c->key_path, (int)getpid()); /* never leave a half-written cache */
    int rc;
    if ((rc = synth_cs(&c->cfg, &sys, &in, &aux))) goto fail;
    rc = groth16_setup(&sys, &tw, tp, &pk);
    free(in);
    free(aux);
    cs_free(&sys);
    if (rc) goto fail;
    rc = groth16_params_write(tmp, pk);
    groth16_params_free(pk);
    if (rc || rename(tmp, c->key_path)) {
        unlink(tmp);
        goto fail;
    }
    *setup_s = (double)(bench_now_ns() - t0) / 1e9;
    return 0;
fail:
    fprintf(stderr, "cuzk-bench: key setup for %s: %s\n", c->key_path, cuzk_last_error());
    return 2;
}
