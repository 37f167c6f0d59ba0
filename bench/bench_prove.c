/*
 * cuzk-bench prove: one Groth16 partition on the CPU with per-stage timings (H, each MSM,
 * assembly). The circuit is one of synth's shapes (PoRep by default); the key has the right shape but
 * arbitrary points (proving time does not depend on them), so the proof is not checked
 * unless --check builds a real test-only key by setup and verifies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"

typedef struct {
    void *bases;
    int g2;
    size_t n, chunk;
} base_job;

/* Base i = (i + 1)·G: one scalar multiplication per chunk, then additions. */
static void base_chunk(void *arg, size_t c)
{
    base_job *j = arg;
    size_t lo = c * j->chunk, hi = j->n - lo < j->chunk ? j->n : lo + j->chunk;
    fr_t s = {{lo + 1, 0, 0, 0}};
    if (!j->g2) {
        g1_jac g, p, *jac = malloc((hi - lo) * sizeof *jac);
        g1_jac_from_aff(&g, &G1_GENERATOR);
        g1_jac_mul(&p, &g, &s);
        for (size_t i = lo; i < hi; i++) { jac[i - lo] = p; g1_jac_add(&p, &p, &g); }
        g1_batch_to_aff((g1_aff *)j->bases + lo, jac, hi - lo);
        free(jac);
    } else {
        g2_jac g, p, *jac = malloc((hi - lo) * sizeof *jac);
        g2_jac_from_aff(&g, &G2_GENERATOR);
        g2_jac_mul(&p, &g, &s);
        for (size_t i = lo; i < hi; i++) { jac[i - lo] = p; g2_jac_add(&p, &p, &g); }
        g2_batch_to_aff((g2_aff *)j->bases + lo, jac, hi - lo);
        free(jac);
    }
}

static void *make_bases(int g2, size_t n, threadpool *tp)
{
    void *b = malloc((n ? n : 1) * (g2 ? sizeof(g2_aff) : sizeof(g1_aff)));
    if (!b) return NULL;
    base_job j = {b, g2, n, 4096};
    threadpool_parallel_for(tp, (n + j.chunk - 1) / j.chunk, base_chunk, &j);
    return b;
}

/* Through the public API on an engine (cuda or auto): the key goes through a file, each
 * partition is made fresh (the engine releases it), timed from the results. VERIFY is off:
 * the key's points are arbitrary. */
static int prove_engine(const char *backend, const char *shape, const groth16_params *pk, const synth_cfg *cfg,
                        unsigned lm, int reps, double setup_s)
{
    char path[4200], dir[4096];
    if (bench_cache_dir(dir, sizeof dir)) return 2;
    snprintf(path, sizeof path, "%s/prove-%d.params", dir, (int)getpid());
    cuzk_config *c = NULL;
    cuzk_engine *e = NULL;
    cuzk_srs *srs = NULL;
    int rc;
    uint64_t t0 = bench_now_ns();
    if ((rc = groth16_params_write(path, pk)) || (rc = cuzk_config_new(&c)) ||
        (rc = cuzk_config_set(c, CUZK_OPT_BACKEND, strcmp(backend, "cuda") ? CUZK_BACKEND_AUTO : CUZK_BACKEND_CUDA)) ||
        (rc = cuzk_config_set(c, CUZK_OPT_VERIFY, 0)) || (rc = cuzk_engine_create(c, &e))) goto out;
    uint64_t t1 = bench_now_ns();
    if ((rc = cuzk_srs_load(e, path, 0, &srs))) goto out;
    uint64_t t2 = bench_now_ns();
    cuzk_stats st = {.struct_size = sizeof st};
    cuzk_engine_stats(e, &st);
    double *tot = malloc((size_t)reps * sizeof(double)), *dev = malloc((size_t)reps * sizeof(double));
    for (int i = 0; i < reps && !rc; i++) {
        cuzk_partition p;
        cuzk_job h;
        if ((rc = synth_partition(cfg, CUZK_FR_MONTGOMERY, &p))) break;
        if ((rc = cuzk_submit_partition(e, srs, &p, &h))) {
            if (p.release) p.release(p.release_user);
            break;
        }
        cuzk_result r = {.struct_size = sizeof r};
        if ((rc = cuzk_poll_result(e, &r, 600 * 1000000000ll)) || (rc = r.status)) break;
        tot[i] = (double)r.total_ns / 1e6;
        dev[i] = (double)r.device_ns / 1e6;
        printf("  rep %d: total %.1f ms, device %.1f ms, queued %.1f ms\n", i, tot[i], dev[i], (double)r.queued_ns / 1e6);
    }
    if (!rc) {
        printf("prove %s (engine, backend %s, %u device%s), %s shape, domain 2^%u, median of %d: total "
               "%.1f ms, device %.1f ms (key generation %.1f s, engine create %.2f s, key load+upload %.2f s)\n",
               backend, st.backend == CUZK_BACKEND_CUDA ? "cuda" : "cpu", st.devices, st.devices == 1 ? "" : "s",
               shape, lm, reps, bench_median(tot, reps), bench_median(dev, reps), setup_s, (double)(t1 - t0) / 1e9,
               (double)(t2 - t1) / 1e9);
        printf("  cuzk-bench prove --backend %s --shape %s --log %u --reps %d\n", backend, shape, lm, reps);
    }
    free(tot);
    free(dev);
out:
    if (rc) fprintf(stderr, "cuzk-bench prove: %s: %s\n", cuzk_strerror(rc), cuzk_last_error());
    if (srs) cuzk_srs_release(srs);
    if (e) cuzk_engine_destroy(e);
    if (c) cuzk_config_free(c);
    unlink(path);
    return rc ? 2 : 0;
}

#define PROVE_USAGE "--backend cpu|cuda|auto --shape porep|snap|wpost|winning --log N\n" \
                    "                        [--threads T] [--reps R] [--fill PCT] [--bits PERMILLE] [--check] [--json]"
#define PROVE_WHAT "one Groth16 partition with stage times; N: domain 2^N, the circuit fills PCT % of it " \
                   "(default: as the shape fills its own, PoRep 97); PERMILLE: the aux variables that are bits " \
                   "(default the shape's, PoRep 900)"

static int usage(void)
{
    fprintf(stderr, "usage: cuzk-bench prove " PROVE_USAGE "\n  %s\n", PROVE_WHAT);
    return 2;
}

int bench_prove(int argc, char **argv)
{
    const char *backend = "cpu", *shape = "porep";
    int log_m = -1, reps = 1, json = 0, check = 0, fill = 0, bits = 0, threads_i = 0;
    const bench_opt opts[] = {{"backend", BOPT_STR, &backend}, {"shape", BOPT_STR, &shape},
                              {"log", BOPT_INT, &log_m},        {"threads", BOPT_INT, &threads_i},
                              {"reps", BOPT_INT, &reps},        {"fill", BOPT_INT, &fill},
                              {"bits", BOPT_INT, &bits},        {"check", BOPT_FLAG, &check},
                              {"json", BOPT_FLAG, &json},       {NULL, 0, NULL}};
    int parsed = bench_args("prove", PROVE_USAGE, PROVE_WHAT, argc, argv, opts);
    if (parsed >= 0) return parsed;
    const synth_shape *sh = synth_shape_find(shape);
    if (log_m < 6 || log_m > 28 || reps < 1 || fill < 0 || fill > 100 || bits < 0 || bits > 1000 || threads_i < 0 ||
        !sh)
        return usage();
    unsigned threads = (unsigned)threads_i;
    if (strcmp(backend, "cpu") && strcmp(backend, "cuda") && strcmp(backend, "auto")) {
        fprintf(stderr, "cuzk-bench prove: --backend is cpu (the prover called directly), cuda or auto "
                        "(through the engine), not %s\n", backend);
        return 2;
    }
    threadpool *tp = threadpool_create(threads);
    if (!tp) { fprintf(stderr, "cuzk-bench prove: cannot start the thread pool\n"); return 2; }

    /* the circuit: constraints + inputs fill `fill` % of 2^log_m */
    uint8_t seed[32] = {0xbe, 0x4c};
    synth_cfg cfg;
    synth_cfg_for_shape_log(&cfg, sh, (unsigned)log_m, (unsigned)fill, seed);
    if (bits) cfg.bit_share_pm = (uint32_t)bits;
    uint64_t c = cfg.constraints;
    uint64_t t0 = bench_now_ns();
    cuzk_partition p;
    int rc = synth_partition(&cfg, CUZK_FR_MONTGOMERY, &p);
    if (rc) { fprintf(stderr, "cuzk-bench prove: synth: %s: %s\n", cuzk_strerror(rc), cuzk_last_error()); return 2; }
    uint64_t pa = bench_popcount(p.a_aux_density, p.num_aux), pbi = bench_popcount(p.b_input_density, p.num_inputs),
             pba = bench_popcount(p.b_aux_density, p.num_aux);
    unsigned lm = 0;
    while (((uint64_t)1 << lm) < p.abc_len) lm++;

    /* a key of the right shape with arbitrary points; the G1 queries share one array */
    groth16_params pk = {0};
    uint64_t n_h = ((uint64_t)1 << lm) - 1, n_a = p.num_inputs + pa, n_b = pbi + pba;
    uint64_t n1 = n_h;
    if (p.num_aux > n1) n1 = p.num_aux;
    if (n_a > n1) n1 = n_a;
    g1_aff *g1 = make_bases(0, n1, tp);
    g2_aff *g2 = make_bases(1, n_b, tp);
    if (!g1 || !g2) { fprintf(stderr, "cuzk-bench prove: out of memory for the key\n"); return 2; }
    pk.vk.alpha_g1 = pk.vk.beta_g1 = pk.vk.delta_g1 = g1[0];
    pk.vk.beta_g2 = pk.vk.gamma_g2 = pk.vk.delta_g2 = g2[0];
    pk.vk.ic = g1;
    pk.h = pk.l = pk.a = pk.b_g1 = g1;
    pk.b_g2 = g2;
    pk.vk.n_ic = (uint32_t)p.num_inputs;
    pk.n_h = (uint32_t)n_h;
    pk.n_l = (uint32_t)p.num_aux;
    pk.n_a = (uint32_t)n_a;
    pk.n_b_g1 = pk.n_b_g2 = (uint32_t)n_b;
    double setup_s = (double)(bench_now_ns() - t0) / 1e9;
    if (strcmp(backend, "cpu")) {
        if (p.release) p.release(p.release_user);
        rc = prove_engine(backend, shape, &pk, &cfg, lm, reps, setup_s);
        free(g1);
        free(g2);
        threadpool_destroy(tp);
        return rc;
    }

    double *st[9];
    for (int k = 0; k < 9; k++) st[k] = malloc((size_t)reps * sizeof(double));
    fr_t r = FR_ONE, s = FR_ONE;
    uint8_t proof[192];
    for (int i = 0; i < reps; i++) {
        groth16_stage_ns t = {0};
        uint64_t a = bench_now_ns();
        rc = groth16_prove_timed(&pk, &p, &r, &s, tp, proof, &t);
        uint64_t total = bench_now_ns() - a;
        if (rc) { fprintf(stderr, "cuzk-bench prove: %s: %s\n", cuzk_strerror(rc), cuzk_last_error()); return 2; }
        uint64_t v[9] = {t.h, t.msm_prep, t.msm_h, t.msm_l, t.msm_a, t.msm_b_g1, t.msm_b_g2, t.assemble, total};
        for (int k = 0; k < 9; k++) st[k][i] = (double)v[k] / 1e6;
    }
    double med[9];
    for (int k = 0; k < 9; k++) med[k] = bench_median(st[k], reps);
    unsigned nt = threadpool_size(tp);
    const char *names[9] = {"h", "msm_prep", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2", "assemble", "total"};
    if (json) {
        printf("{\"bench\":\"prove\",\"backend\":\"cpu\",\"shape\":\"%s\",\"log_m\":%u,\"constraints\":%llu,"
               "\"inputs\":%llu,\"aux\":%llu,\"threads\":%u,\"reps\":%d,\"device\":\"%s\"",
               shape, lm, (unsigned long long)c, (unsigned long long)p.num_inputs,
               (unsigned long long)p.num_aux, nt, reps, bench_cpu_name());
        for (int k = 0; k < 9; k++) printf(",\"%s_ms\":%.3f", names[k], med[k]);
        printf("}\n");
    } else {
        printf("prove cpu, %s shape, domain 2^%u: %llu constraints, %llu inputs, %llu aux "
               "(a_aux %.1f %%, b_aux %.1f %%, b_input %llu), %u thread%s, median of %d, on %s\n",
               shape, lm, (unsigned long long)c, (unsigned long long)p.num_inputs, (unsigned long long)p.num_aux,
               100.0 * (double)pa / (double)(p.num_aux ? p.num_aux : 1),
               100.0 * (double)pba / (double)(p.num_aux ? p.num_aux : 1), (unsigned long long)pbi, nt,
               nt == 1 ? "" : "s", reps, bench_cpu_name());
        printf("  H (6 NTTs, 2^%u)        %10.1f ms\n", lm, med[0]);
        printf("  MSM scalar preparation  %10.1f ms\n", med[1]);
        printf("  MSM H    (G1, %9llu) %10.1f ms\n", (unsigned long long)n_h, med[2]);
        printf("  MSM L    (G1, %9llu) %10.1f ms\n", (unsigned long long)p.num_aux, med[3]);
        printf("  MSM A    (G1, %9llu) %10.1f ms\n", (unsigned long long)n_a, med[4]);
        printf("  MSM B_G1 (G1, %9llu) %10.1f ms\n", (unsigned long long)n_b, med[5]);
        printf("  MSM B_G2 (G2, %9llu) %10.1f ms\n", (unsigned long long)n_b, med[6]);
        printf("  assembly                %10.1f ms\n", med[7]);
        printf("  total (checks included) %10.1f ms   (circuit + key generation %.1f s, not timed)\n",
               med[8], setup_s);
        printf("  cuzk-bench prove --backend cpu --shape %s --log %d --threads %u --reps %d\n", shape, log_m, nt, reps);
    }
    for (int k = 0; k < 9; k++) free(st[k]);
    free(g1);
    free(g2);

    if (check) { /* a real test-only key for the same circuit: the proof must verify */
        cs sys;
        fr_t *in, *aux;
        groth16_params *real;
        groth16_toxic tw;
        groth16_toxic_from_seed(&tw, seed);
        if ((rc = synth_cs(&cfg, &sys, &in, &aux)) || (rc = groth16_setup(&sys, &tw, tp, &real))) {
            fprintf(stderr, "cuzk-bench prove --check: %s: %s\n", cuzk_strerror(rc), cuzk_last_error());
            return 2;
        }
        if (!(rc = groth16_prove(real, &p, NULL, NULL, tp, proof)))
            rc = groth16_verify(&real->vk, proof, in + 1, (size_t)(sys.num_inputs - 1));
        printf("  check: setup + prove + verify: %s\n", rc ? cuzk_last_error() : "valid");
        groth16_params_free(real);
        free(in);
        free(aux);
        cs_free(&sys);
        if (rc) return 1;
    }
    if (p.release) p.release(p.release_user);
    threadpool_destroy(tp);
    return 0;
}
