/*
 * cuzk-bench msm: times one multi-scalar multiplication (G1 or G2) over random bases and
 * full-width random scalars, and prints the median of the repetitions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "msm/msm_cpu.h"

typedef struct {
    void *bases;
    int g2;
    size_t n, chunk;
    fr_t a, b; /* base i = (a + i·b)·G */
} base_job;

/* Bases of a chunk by one scalar multiplication and then one addition per point. */
static void base_chunk(void *arg, size_t c)
{
    base_job *j = arg;
    size_t lo = c * j->chunk, hi = j->n - lo < j->chunk ? j->n : lo + j->chunk;
    fr_t s, step, t;
    fr_from_u64(&t, lo);
    fr_mul(&t, &t, &j->b);
    fr_add(&t, &t, &j->a);
    fr_from_mont(&s, &t);
    fr_from_mont(&step, &j->b);
    if (!j->g2) {
        g1_jac g, p, q, *jac = malloc((hi - lo) * sizeof *jac);
        g1_jac_from_aff(&g, &G1_GENERATOR);
        g1_jac_mul(&p, &g, &s);
        g1_jac_mul(&q, &g, &step);
        for (size_t i = lo; i < hi; i++) { jac[i - lo] = p; g1_jac_add(&p, &p, &q); }
        g1_batch_to_aff((g1_aff *)j->bases + lo, jac, hi - lo);
        free(jac);
    } else {
        g2_jac g, p, q, *jac = malloc((hi - lo) * sizeof *jac);
        g2_jac_from_aff(&g, &G2_GENERATOR);
        g2_jac_mul(&p, &g, &s);
        g2_jac_mul(&q, &g, &step);
        for (size_t i = lo; i < hi; i++) { jac[i - lo] = p; g2_jac_add(&p, &p, &q); }
        g2_batch_to_aff((g2_aff *)j->bases + lo, jac, hi - lo);
        free(jac);
    }
}

/* CPU time of the whole process (all threads): on a shared machine it shows the work done
 * apart from time spent waiting for a core. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next64(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static void rand_scalar(fr_t *k)
{
    do {
        for (int i = 0; i < 4; i++) k->l[i] = next64();
        k->l[3] &= 0x7fffffffffffffffull;
    } while (!fr_is_canonical(k));
}

#define MSM_USAGE "--backend cpu|cuda --curve g1|g2 --log N [--threads T] [--reps R] [--window C] [--json]\n" \
                  "       (cuda: [--bits-fraction F] [--streams S] [--scalars host|device] [--device D])"
#define MSM_WHAT "multi-scalar multiplication of 2^N random points (bases made untimed), median of R runs"

static int usage(void)
{
    fprintf(stderr, "usage: cuzk-bench msm " MSM_USAGE "\n");
    return 2;
}

int bench_msm_cuda(int argc, char **argv); /* bench_msm_cuda.c */

int bench_msm(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--backend") && !strcmp(argv[i + 1], "cuda")) return bench_msm_cuda(argc, argv);
    const char *backend = "cpu", *curve = "g1";
    int log_n = -1, reps = 3, json = 0, threads_i = 1, window_i = 0;
    const bench_opt opts[] = {{"backend", BOPT_STR, &backend}, {"curve", BOPT_STR, &curve},
                              {"log", BOPT_INT, &log_n},        {"threads", BOPT_INT, &threads_i},
                              {"reps", BOPT_INT, &reps},        {"window", BOPT_INT, &window_i}, /* tuning: force c */
                              {"json", BOPT_FLAG, &json},       {NULL, 0, NULL}};
    int parsed = bench_args("msm", MSM_USAGE, MSM_WHAT, argc, argv, opts);
    if (parsed >= 0) return parsed;
    int g2 = !strcmp(curve, "g2");
    if ((!g2 && strcmp(curve, "g1")) || log_n < 0 || log_n > 30 || reps < 1 || threads_i < 0 || window_i < 0)
        return usage();
    unsigned threads = (unsigned)threads_i, window = (unsigned)window_i;
    if (strcmp(backend, "cpu")) return usage();

    size_t n = (size_t)1 << log_n;
    threadpool *tp = threads == 1 ? NULL : threadpool_create(threads);
    if (threads != 1 && !tp) { fprintf(stderr, "cuzk-bench msm: cannot start %u threads\n", threads); return 2; }
    void *bases = malloc(n * (g2 ? sizeof(g2_aff) : sizeof(g1_aff)));
    fr_t *k = malloc(n * sizeof *k);
    double *ms = malloc((size_t)reps * sizeof *ms), *cpu = malloc((size_t)reps * sizeof *cpu);
    if (!bases || !k || !ms || !cpu) { fprintf(stderr, "cuzk-bench msm: out of memory\n"); return 2; }

    /* Setup (not timed): bases (a + i·b)·G in parallel chunks, random scalars. */
    base_job bj = {.bases = bases, .g2 = g2, .n = n, .chunk = 4096};
    fr_t t;
    rand_scalar(&t); fr_to_mont(&bj.a, &t);
    rand_scalar(&t); fr_to_mont(&bj.b, &t);
    threadpool *setup = threadpool_create(0);
    threadpool_parallel_for(setup, (n + bj.chunk - 1) / bj.chunk, base_chunk, &bj);
    threadpool_destroy(setup);
    for (size_t i = 0; i < n; i++) rand_scalar(&k[i]);

    msm_cpu_tune(window, -1, 0);
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = bench_now_ns(), c0 = cpu_ns();
        if (g2) { g2_jac out; msm_g2(&out, bases, k, n, tp); }
        else { g1_jac out; msm_g1(&out, bases, k, n, tp); }
        ms[r] = (double)(bench_now_ns() - t0) / 1e6;
        cpu[r] = (double)(cpu_ns() - c0) / 1e6;
    }
    double lo = ms[0];
    for (int r = 1; r < reps; r++) if (ms[r] < lo) lo = ms[r];
    double med = bench_median(ms, reps), cmed = bench_median(cpu, reps);
    unsigned nt = threadpool_size(tp);
    if (json)
        printf("{\"bench\":\"msm\",\"backend\":\"cpu\",\"curve\":\"%s\",\"log_n\":%d,\"threads\":%u,"
               "\"reps\":%d,\"median_ms\":%.3f,\"min_ms\":%.3f,\"cpu_ms\":%.3f,\"device\":\"%s\"}\n",
               curve, log_n, nt, reps, med, lo, cmed, bench_cpu_name());
    else
        printf("msm %s cpu 2^%d, %u thread%s: median %.1f ms (min %.1f, %d reps; CPU time %.1f ms) on %s\n"
               "  cuzk-bench msm --backend cpu --curve %s --log %d --threads %u --reps %d\n",
               curve, log_n, nt, nt == 1 ? "" : "s", med, lo, reps, cmed, bench_cpu_name(), curve,
               log_n, nt, reps);
    threadpool_destroy(tp);
    free(bases);
    free(k);
    free(ms);
    free(cpu);
    return 0;
}
