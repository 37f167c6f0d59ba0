/*
 * cuzk-bench ntt: Fr NTT timings, GPU (CUDA events, median of several runs after warm-up,
 * data resident on the device) or CPU (wall clock, lib/ntt/ntt_cpu.h), over a range of sizes.
 *   cuzk-bench ntt --log 20..27 [--backend cuda|cpu] [--runs N] [--json]
 *   cuzk-bench ntt --mul [--chains 1|2|4] [--json]   (the Fr multipliers: integer, FP64, both at once)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuzk/cuzk.h"
#include "field/field.h"
#include "ntt/ntt_cpu.h"
#include "threadpool.h"
#ifdef CUZK_HAVE_CUDA
#include "cuda_util.h"
#include "field/field_ops.h"
#include "ntt.h"
#endif

#define MAX_RUNS 64

/* "20..27" or "24" */
int bench_parse_log_range(const char *s, unsigned *lo, unsigned *hi)
{
    char *end;
    unsigned long a = strtoul(s, &end, 10), b = a;
    if (end == s) return -1;
    if (!strncmp(end, "..", 2)) {
        const char *t = end + 2;
        b = strtoul(t, &end, 10);
        if (end == t) return -1;
    }
    if (*end || a < 1 || b < a || b > 28) return -1;
    *lo = (unsigned)a, *hi = (unsigned)b;
    return 0;
}

#ifdef CUZK_HAVE_CUDA
/* Median ms of `runs` timed calls of one variant after two warm-ups. */
static int time_gpu(double *ms_out, void *d, unsigned L, int dir, int coset, int oi, int oo, int runs,
                    void *stream, void *e0, void *e1)
{
    double v[MAX_RUNS];
    for (int r = -2; r < runs; r++) {
        int rc = gpu_event_record(e0, stream);
        if (!rc) rc = gpu_ntt(d, L, dir, coset, oi, oo, stream);
        if (!rc) rc = gpu_event_record(e1, stream);
        if (!rc) rc = gpu_event_sync(e1);
        float ms = 0;
        if (!rc) rc = gpu_event_elapsed_ms(&ms, e0, e1);
        if (rc) return rc;
        if (r >= 0) v[r] = ms;
    }
    *ms_out = bench_median(v, runs);
    return 0;
}

/* --mul: Fr products/s of the integer multiplier, the FP64 one (kernels/field/fr52.h) and both
 * in one kernel, over 1, 2 or 4 independent chains per thread; the latency of one product from
 * a single warp. */
static int bench_mul(int only_chains, int json)
{
    char name[256] = "?";
    if (gpu_device_count() == 0) {
        fprintf(stderr, "cuzk-bench ntt: no CUDA device\n");
        return 1;
    }
    gpu_device_describe(0, name, sizeof name);
    double base_y = 0, base_s = 0; /* the integer multiplier's, same chains */
    if (!json) {
        printf("cuzk-bench ntt --mul on %s: Fr products/s, whole device (best of 4 after a warm-up)\n", name);
        printf("x·y: y's 52-bit limbs converted once (a twiddle); x·x': both operands converted per product;\n"
               "vs int: against fp64 = 0 at the same chains; latency: x·y / x·x' in one warp's dependent chain\n");
        printf("%7s %5s %12s %7s %12s %7s %14s\n", "chains", "fp64", "x·y /s", "vs int", "x·x' /s", "vs int",
               "latency ns");
    }
    for (int chains = 1; chains <= 4; chains *= 2)
        for (int f = 0; f <= chains && (!only_chains || only_chains == chains); f++) {
            double ry = 0, rs = 0, lat = 0, lat_s = 0;
            int rc = gpu_fr_mul_mix_rate(chains, f, 0, &ry, chains == 1 ? &lat : NULL);
            if (!rc) rc = gpu_fr_mul_mix_rate(chains, f, 1, &rs, chains == 1 ? &lat_s : NULL);
            if (rc) {
                fprintf(stderr, "cuzk-bench ntt: %s\n", cuzk_last_error());
                return 1;
            }
            if (f == 0) base_y = ry, base_s = rs;
            if (json)
                printf("{\"bench\":\"ntt-mul\",\"device\":\"%s\",\"chains\":%d,\"fp64_chains\":%d,"
                       "\"xy_per_s\":%.4g,\"xx_per_s\":%.4g,\"xy_latency_ns\":%.1f,\"xx_latency_ns\":%.1f}\n",
                       name, chains, f, ry, rs, lat, lat_s);
            else if (chains == 1)
                printf("%7d %5d %12.3g %6.2fx %12.3g %6.2fx %6.0f / %5.0f\n", chains, f, ry, ry / base_y, rs,
                       rs / base_s, lat, lat_s);
            else
                printf("%7d %5d %12.3g %6.2fx %12.3g %6.2fx\n", chains, f, ry, ry / base_y, rs, rs / base_s);
        }
    return 0;
}

static int bench_gpu(unsigned lo, unsigned hi, int runs, int json)
{
    char name[256] = "?";
    if (gpu_device_count() == 0) {
        fprintf(stderr, "cuzk-bench ntt: no CUDA device\n");
        return 1;
    }
    gpu_device_describe(0, name, sizeof name);
    void *d, *s, *e0, *e1;
    if (gpu_malloc(&d, (size_t)32 << hi) || gpu_stream_create(&s) || gpu_event_create(&e0) || gpu_event_create(&e1)) {
        fprintf(stderr, "cuzk-bench ntt: %s\n", cuzk_last_error());
        return 1;
    }
    double frate = 0, fgen = 0, fprate = 0;
    if (gpu_field_mul_rate(0, &frate) || gpu_field_mul_rate(2, &fgen) || gpu_field_mul_rate(1, &fprate)) {
        fprintf(stderr, "cuzk-bench ntt: %s\n", cuzk_last_error());
        return 1;
    }
    if (!json) {
        printf("cuzk-bench ntt --backend cuda on %s (median of %d after 2 warm-ups, CUDA events)\n", name, runs);
        printf("multiplication rates: Fr %.3g /s (generic reduction %.3g /s), Fp %.3g /s\n", frate, fgen, fprate);
        printf("%5s %12s %12s %12s %12s %12s  %s\n", "log", "fwd N->R ms", "fwd N->N ms", "inv R->N ms",
               "coset R->N", "fwd R->N ms", "Fr mul/s in N->R (radix-2 count)");
    }
    for (unsigned L = lo; L <= hi; L++) {
        double t[5];
        int rc = gpu_fr_fill_random(d, 1ull << L, L, s);
        static const int var[5][4] = {{0, 0, 0, 1}, {0, 0, 0, 0}, {1, 0, 1, 0}, {1, 1, 1, 0}, {0, 0, 1, 0}};
        for (int k = 0; k < 5 && !rc; k++)
            rc = time_gpu(&t[k], d, L, var[k][0], var[k][1], var[k][2], var[k][3], runs, s, e0, e1);
        if (rc) {
            fprintf(stderr, "cuzk-bench ntt: %s\n", cuzk_last_error());
            return 1;
        }
        /* radix-2 count: n/2 · log n products */
        double muls = (double)(1ull << (L - 1)) * L, rate = muls / (t[0] * 1e-3);
        if (json)
            printf("{\"bench\":\"ntt\",\"backend\":\"cuda\",\"device\":\"%s\",\"log\":%u,\"fwd_nr_ms\":%.4f,"
                   "\"fwd_nn_ms\":%.4f,\"inv_rn_ms\":%.4f,\"inv_coset_rn_ms\":%.4f,\"fwd_rn_ms\":%.4f,\"runs\":%d,"
                   "\"fr_mul_rate\":%.4g}\n", name, L, t[0], t[1], t[2], t[3], t[4], runs, frate);
        else
            printf("%5u %12.3f %12.3f %12.3f %12.3f %12.3f  %.3g (%.0f%% of the measured rate)\n", L, t[0], t[1],
                   t[2], t[3], t[4], rate, frate > 0 ? 100 * rate / frate : 0);
    }
    gpu_event_destroy(e0), gpu_event_destroy(e1), gpu_stream_destroy(s), gpu_free(d);
    return 0;
}
#endif

static int bench_cpu(unsigned lo, unsigned hi, int runs, int json)
{
    threadpool *tp = threadpool_create(0);
    fr_t *a = malloc((size_t)32 << hi);
    if (!a || !tp) return 1;
    for (uint64_t i = 0; i < (1ull << hi); i++) fr_from_u64(&a[i], i * 0x9e3779b97f4a7c15ull);
    if (!json) printf("cuzk-bench ntt --backend cpu on %s, %u threads (median of %d after 1 warm-up)\n",
                      bench_cpu_name(), threadpool_size(tp), runs);
    for (unsigned L = lo; L <= hi; L++) {
        double v[MAX_RUNS];
        for (int r = -1; r < runs; r++) {
            uint64_t t0 = bench_now_ns();
            ntt_forward(a, L, tp);
            if (r >= 0) v[r] = (bench_now_ns() - t0) / 1e6;
        }
        double ms = bench_median(v, runs);
        if (json) printf("{\"bench\":\"ntt\",\"backend\":\"cpu\",\"log\":%u,\"fwd_nn_ms\":%.3f,\"threads\":%u}\n", L, ms, threadpool_size(tp));
        else printf("  2^%-3u forward N->N %10.3f ms\n", L, ms);
    }
    free(a);
    threadpool_destroy(tp);
    return 0;
}

int bench_ntt(int argc, char **argv)
{
    unsigned lo = 20, hi = 24;
    int runs = 10, json = 0, cuda = 1, mul = 0, chains = 0;
    const char *log_s = NULL, *backend = "cuda";
    const bench_opt opts[] = {{"log", BOPT_STR, &log_s}, {"backend", BOPT_STR, &backend},
                              {"runs", BOPT_INT, &runs}, {"json", BOPT_FLAG, &json}, {"mul", BOPT_FLAG, &mul},
                              {"chains", BOPT_INT, &chains}, {NULL, 0, NULL}};
    int parsed = bench_args("ntt", "--log 20..27 [--backend cuda|cpu] [--runs N] [--json] [--mul [--chains 1|2|4]]",
                        "forward, inverse and coset NTTs over Fr; --mul: the device's Fr multipliers (integer, FP64, both) instead",
                        argc, argv, opts);
    if (parsed >= 0) return parsed;
    if (log_s && bench_parse_log_range(log_s, &lo, &hi)) {
        fprintf(stderr, "cuzk-bench ntt: bad --log %s (N or LO..HI, 1..28)\n", log_s);
        return 2;
    }
    if (!strcmp(backend, "cpu")) cuda = 0;
    else if (strcmp(backend, "cuda")) { fprintf(stderr, "cuzk-bench ntt: unknown backend %s\n", backend); return 2; }
    if (runs < 1) runs = 1;
    if (runs > MAX_RUNS) runs = MAX_RUNS;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!cuda) return bench_cpu(lo, hi, runs, json);
#ifdef CUZK_HAVE_CUDA
    if (mul) return bench_mul(chains, json);
    return bench_gpu(lo, hi, runs, json);
#else
    fprintf(stderr, "cuzk-bench ntt: built without CUDA; use --backend cpu\n");
    return 1;
#endif
}
