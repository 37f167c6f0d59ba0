/*
 * cuzk-bench gather: is gathering only the bases a streamed MSM needs (scalars not 0) into a
 * pinned staging buffer on the host worth it, against copying every base over PCIe? Measures
 * the host's gather rate (G1 affine points, 96 bytes, threads over a density like PoRep's
 * aux: a fraction `keep` of the points, in runs) and prints the break-even fraction for a
 * given PCIe rate: keep·(1/gather + 1/pcie) < 1/pcie, i.e. keep < gather / (gather + pcie) —
 * and only where PCIe, not the GPU's arithmetic, bounds the MSM.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct {
    const uint8_t *src;
    uint8_t *dst;
    const uint32_t *idx;
    size_t lo, hi;
} gather_part;

static void *gather_run(void *arg)
{
    gather_part *g = arg;
    for (size_t i = g->lo; i < g->hi; i++) memcpy(g->dst + i * 96, g->src + (size_t)g->idx[i] * 96, 96);
    return NULL;
}

int bench_gather(int argc, char **argv)
{
    int log_n = 24, threads = 2, reps = 3;
    double keep = 0.55, pcie = 55;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--log")) log_n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--keep")) keep = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--pcie-gbs")) pcie = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: cuzk-bench gather [--log N] [--threads T] [--keep F] [--pcie-gbs G] [--reps R]\n");
            return 2;
        }
    }
    if (log_n < 10 || log_n > 28 || threads < 1 || threads > 256 || keep <= 0 || keep > 1 || reps < 1) return 2;
    size_t n = (size_t)1 << log_n, k = 0;
    uint8_t *src = malloc(n * 96), *dst = malloc(n * 96);
    uint32_t *idx = malloc(n * sizeof *idx);
    if (!src || !dst || !idx) return 2;
    memset(src, 1, n * 96);
    memset(dst, 0, n * 96);
    /* runs of kept and dropped points (scalars cluster in real circuits), keep on average */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n;) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t run = 1 + (x >> 40) % 64;
        int kept = (double)(x & 0xffff) / 65536.0 < keep;
        for (size_t j = 0; j < run && i < n; j++, i++)
            if (kept) idx[k++] = (uint32_t)i;
    }
    double best = 0;
    for (int r = 0; r < reps; r++) {
        pthread_t th[256];
        gather_part parts[256];
        uint64_t t0 = bench_now_ns();
        for (int t = 0; t < threads; t++) {
            parts[t] = (gather_part){src, dst, idx, k * t / threads, k * (t + 1) / threads};
            pthread_create(&th[t], NULL, gather_run, &parts[t]);
        }
        for (int t = 0; t < threads; t++) pthread_join(th[t], NULL);
        double s = (double)(bench_now_ns() - t0) / 1e9, gbs = (double)k * 96 / 1e9 / s;
        if (gbs > best) best = gbs;
    }
    double f = (double)k / (double)n;
    /* per byte of the whole vector: copy all = 1/pcie; gather = f/gather + f/pcie */
    double all = 1 / pcie, gathered = f / best + f / pcie, even = best / (best + pcie);
    printf("gather: %zu of %zu G1 points (%.1f %%) on %d threads (%s): %.2f GB/s of gathered points (best of %d)\n",
           k, n, 100 * f, threads, bench_cpu_name(), best, reps);
    printf("  per GB of bases: copy all %.1f ms, gather then copy %.1f ms at PCIe %.0f GB/s; gathering pays below "
           "%.0f %% kept (and only where PCIe, not the MSM, bounds the stage)\n",
           all * 1e3, gathered * 1e3, pcie, 100 * even);
    printf("  cuzk-bench gather --log %d --threads %d --keep %.2f --pcie-gbs %.0f\n", log_n, threads, keep, pcie);
    free(src), free(dst), free(idx);
    return 0;
}
