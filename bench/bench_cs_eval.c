/*
 * cuzk-bench cs-eval: libcuzk's CPU evaluation of a = A·w, b = B·w, c = C·w (csc_eval, what the
 * CPU backend runs for a witness-only partition) on the constraint system and witness that
 * `pipeline --witness` proves, timed on T threads: what a host that evaluates a, b, c itself
 * spends per partition. Checked against an independent oracle before it is timed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "groth16/csc.h"

#define CS_EVAL_USAGE "--shape porep|snap|wpost|winning --log N [--fill PCT] [--threads T] [--reps R]\n" \
                      "         [--samples S] [--seed X] [--json out.json]"
#define CS_EVAL_WHAT "libcuzk's CPU evaluation of a, b, c (csc_eval, the CPU backend's) on pipeline --witness's " \
                     "constraint system and witness: ms per partition, non-zeros/s, checked against an oracle.\n" \
                     "  Up to 2^22 every row is compared with the synthesized circuit's own a, b, c (ProvingAssignment's);\n" \
                     "  above (tiled from 2^20, like pipeline) S sampled rows (and the first and input rows) with a serial\n" \
                     "  evaluation in canonical form. The first run, which also faults in the outputs' pages, is checked and\n" \
                     "  printed apart; the median is over R runs after it. Host memory: witness + a, b, c + the system\n" \
                     "  (about 70 B a row); refused when that exceeds MemAvailable. --threads 0 (default): every CPU."

/* A row's value the naive way: one thread, canonical operands (coefficient out of Montgomery
 * form), the sum brought back to Montgomery form at the end. */
static fr_t naive_row(const csc *cs, int which, const fr_t *inputs, const fr_t *aux, uint64_t k)
{
    const csc_matrix *m = &cs->m[which];
    fr_t acc = FR_ZERO, coef, t, out;
    for (uint64_t i = m->row[k]; i < m->row[k + 1]; i++) {
        uint32_t v = m->col[i];
        fr_from_mont(&coef, &cs->coeffs[m->coef[i]]);
        /* canonical coef · Montgomery x · R^-1 = coef · x, canonical */
        fr_mul(&t, &coef, v < cs->num_inputs ? &inputs[v] : &aux[v - cs->num_inputs]);
        fr_add(&acc, &acc, &t);
    }
    fr_to_mont(&out, &acc);
    return out;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Rows compared, and the first mismatch printed: 0 if none, 1 otherwise. */
static int check_sample(const csc *cs, const fr_t *inputs, const fr_t *aux, fr_t *const out[3], uint64_t samples,
                        uint64_t seed, uint64_t *rows)
{
    const uint64_t n = cs->abc_len, ni = cs->num_inputs;
    uint64_t s = seed;
    *rows = 0;
    for (uint64_t j = 0; j < samples + 32; j++) {
        /* the first 16 rows, the last 16 (input rows), then random ones */
        uint64_t k = j < 16 ? j : j < 32 ? (n > 16 ? n - 32 + j : j - 16) : splitmix(&s) % n;
        if (k >= n) continue;
        for (int w = 0; w < 3; w++) {
            fr_t want = naive_row(cs, w, inputs, aux, k);
            if (!fr_eq(&want, &out[w][k])) {
                fprintf(stderr, "cuzk-bench cs-eval: row %" PRIu64 " of %c (%s row): csc_eval differs from the serial "
                        "evaluation\n", k, "abc"[w], k >= n - ni ? "an input" : "a constraint");
                return 1;
            }
        }
        (*rows)++;
    }
    return 0;
}

/* Every row against the synthesized partition's a, b, c (bellperson's ProvingAssignment). */
static int check_all(const cuzk_partition *p0, fr_t *const out[3])
{
    const cuzk_fr *want[3] = {p0->a, p0->b, p0->c};
    for (int w = 0; w < 3; w++)
        for (uint64_t k = 0; k < p0->abc_len; k++)
            if (memcmp(&want[w][k], &out[w][k], sizeof(fr_t))) {
                fprintf(stderr, "cuzk-bench cs-eval: row %" PRIu64 " of %c differs from the synthesized circuit's\n", k,
                        "abc"[w]);
                return 1;
            }
    return 0;
}

int bench_cs_eval(int argc, char **argv)
{
    const char *shape = "porep", *json = NULL;
    int log_m = -1, fill = 0, threads = 0, reps = 3;
    long long samples = 4096, seed = -1;
    const bench_opt opts[] = {{"shape", BOPT_STR, &shape},     {"log", BOPT_INT, &log_m},
                              {"fill", BOPT_INT, &fill},       {"threads", BOPT_INT, &threads},
                              {"reps", BOPT_INT, &reps},       {"samples", BOPT_I64, &samples},
                              {"seed", BOPT_I64, &seed},       {"json", BOPT_STR, &json},
                              {NULL, 0, NULL}};
    int parsed = bench_args("cs-eval", CS_EVAL_USAGE, CS_EVAL_WHAT, argc, argv, opts);
    if (parsed >= 0) return parsed;
    if (reps < 1 || threads < 0 || samples < 0) {
        fprintf(stderr, "cuzk-bench cs-eval: --reps must be >= 1, --threads and --samples >= 0\nusage: cuzk-bench "
                        "cs-eval " CS_EVAL_USAGE "\n");
        return 2;
    }
    bench_circuit circ;
    if (bench_shape_cfg(shape, log_m, fill, &circ)) return 2;
    if (seed < 0) seed = (long long)(time(NULL) ^ ((uint64_t)bench_now_ns() << 16));
    threadpool *tp = threadpool_create((unsigned)threads);
    if (!tp) {
        fprintf(stderr, "cuzk-bench cs-eval: cannot start %d threads\n", threads);
        return 2;
    }
    cuzk_partition p0;
    uint64_t abc_len, num_aux;
    double synth_s, build_s;
    if (bench_circuit_partition(&circ, tp, &p0, &abc_len, &num_aux, &synth_s)) return 2;
    /* witness + a, b, c + the system at ~6 non-zeros a row (PoRep 5.54) of 8 B, 3 row offsets of 8 B */
    uint64_t sz[BP_N], wit = bench_part_layout(p0.num_inputs, abc_len, num_aux, 1, sz),
                       need = wit + 3 * abc_len * sizeof(fr_t) + abc_len * (6 * 8 + 3 * 8);
    if (bench_check_mem_available("cs-eval", need, "the witness, a, b, c and the constraint system", "a smaller --log")) {
        if (p0.release) p0.release(p0.release_user);
        threadpool_destroy(tp);
        return 2;
    }
    bench_part w;
    if (bench_place_partition(NULL, tp, &p0, 1, abc_len, num_aux, 1, &w)) return 2;
    csc *cs;
    if (bench_witness_cs(&circ, tp, abc_len, num_aux, &cs, &build_s)) return 2;
    fr_t *abc = malloc(3 * abc_len * sizeof(fr_t));
    if (!abc) {
        fprintf(stderr, "cuzk-bench cs-eval: cannot allocate a, b, c (%" PRIu64 " bytes)\n", 3 * abc_len * 32);
        return 2;
    }
    fr_t *out[3] = {abc, abc + abc_len, abc + 2 * abc_len};
    const fr_t *in = (const fr_t *)w.p.inputs, *ax = (const fr_t *)w.p.aux;

    uint64_t t0 = bench_now_ns();
    csc_eval(cs, in, ax, out[0], out[1], out[2], tp);
    double first_ms = (double)(bench_now_ns() - t0) / 1e6;
    const int whole = abc_len == p0.abc_len && num_aux == p0.num_aux; /* not tiled: p0's a, b, c are the oracle */
    uint64_t checked = 0;
    int bad = whole ? check_all(&p0, out) : 0;
    if (!bad) bad = check_sample(cs, in, ax, out, (uint64_t)samples, (uint64_t)seed, &checked);
    double *ms = calloc((size_t)reps, sizeof *ms);
    for (int r = 0; ms && r < reps && !bad; r++) {
        memset(abc, 0, 3 * abc_len * sizeof(fr_t) < 4096 ? 3 * abc_len * sizeof(fr_t) : 4096); /* a stale result fails */
        t0 = bench_now_ns();
        csc_eval(cs, in, ax, out[0], out[1], out[2], tp);
        ms[r] = (double)(bench_now_ns() - t0) / 1e6;
    }
    /* the timed runs gave what the checked one did (the first rows, zeroed before each) */
    uint64_t again;
    if (!bad && check_sample(cs, in, ax, out, 0, (uint64_t)seed, &again)) bad = 1;
    const uint64_t nnz = cs->m[0].nnz + cs->m[1].nnz + cs->m[2].nnz;
    double best = 1e300;
    for (int r = 0; ms && r < reps; r++) best = ms[r] < best ? ms[r] : best;
    double med = ms && !bad ? bench_median(ms, reps) : 0;
    unsigned nt = threadpool_size(tp);
    printf("cs-eval: %s shape, domain 2^%d: %" PRIu64 " rows (%" PRIu64 " constraints + %" PRIu64 " inputs), %" PRIu64
           " aux%s; %" PRIu64 " + %" PRIu64 " + %" PRIu64 " = %" PRIu64 " non-zeros (%.2f a row), %u coefficients, "
           "system %.2f GiB\n", circ.shape->name, log_m, abc_len, abc_len - p0.num_inputs, p0.num_inputs, num_aux,
           whole ? "" : ", tiled from a 2^20 circuit", cs->m[0].nnz, cs->m[1].nnz, cs->m[2].nnz, nnz,
           (double)nnz / (double)abc_len, cs->n_coeffs, (double)csc_bytes(cs) / (1 << 30));
    printf("  on %s, %u thread%s; synth %.1f s, system built in %.1f s (not timed)\n", bench_cpu_name(), nt,
           nt == 1 ? "" : "s", synth_s, build_s);
    if (bad) {
        printf("  FAILED: the evaluation is wrong (see above); nothing timed\n");
    } else {
        printf("  check: %s%" PRIu64 " sampled rows x 3 matrices equal a serial canonical-form evaluation (seed %lld)\n",
               whole ? "every row equals the synthesized circuit's a, b, c; " : "", checked, seed);
        printf("  evaluation of a, b, c per partition: %.1f ms median of %d (best %.1f; first run, pages untouched, "
               "%.1f ms): %.1f M non-zeros/s, %.2f M rows/s\n", med, reps, best, first_ms,
               (double)nnz / med / 1e3, (double)abc_len / med / 1e3);
    }
    printf("  cuzk-bench cs-eval --shape %s --log %d --fill %d --threads %u --reps %d --samples %lld --seed %lld\n",
           circ.shape->name, log_m, circ.fill, nt, reps, samples, seed);
    if (json && !bad) {
        FILE *f = fopen(json, "w");
        if (f) {
            fprintf(f, "{\"bench\":\"cs-eval\",\"shape\":\"%s\",\"log_m\":%d,\"fill\":%d,\"threads\":%u,\"cpu\":\"%s\","
                       "\"rows\":%" PRIu64 ",\"num_aux\":%" PRIu64 ",\"nnz\":[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "],"
                       "\"tiled\":%s,\"reps\":%d,\"ms_median\":%.3f,\"ms_best\":%.3f,\"ms_first\":%.3f,"
                       "\"nnz_per_s\":%.0f,\"rows_checked\":%" PRIu64 ",\"all_rows_checked\":%s}\n",
                    circ.shape->name, log_m, circ.fill, nt, bench_cpu_name(), abc_len, num_aux, cs->m[0].nnz,
                    cs->m[1].nnz, cs->m[2].nnz, whole ? "false" : "true", reps, med, best, first_ms,
                    (double)nnz / med * 1e3, checked, whole ? "true" : "false");
            fclose(f);
        }
    }
    free(ms);
    free(abc);
    csc_free(cs);
    free(cs);
    bench_part_free(NULL, &w);
    if (p0.release) p0.release(p0.release_user);
    threadpool_destroy(tp);
    return bad ? 1 : 0;
}
