/*
 * cuzk-bench h: the Groth16 H step on the GPU (six transforms, kernels/ntt.h), inputs
 * resident on the device, CUDA events, median of several runs after a warm-up; with
 * --from-host also the end-to-end time with a, b, c copied from pinned host memory.
 *   cuzk-bench h --log 27 [--runs N] [--from-host] [--json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuzk/cuzk.h"
#ifdef CUZK_HAVE_CUDA
#include "cuda_util.h"
#include "ntt.h"
#endif

#define MAX_RUNS 64

int bench_parse_log_range(const char *s, unsigned *lo, unsigned *hi); /* bench_ntt.c */

#ifdef CUZK_HAVE_CUDA
static int fail(void)
{
    fprintf(stderr, "cuzk-bench h: %s\n", cuzk_last_error());
    return 1;
}

static int bench_h_gpu(unsigned lo, unsigned hi, int runs, int from_host, int json)
{
    char name[256] = "?";
    if (gpu_device_count() == 0) {
        fprintf(stderr, "cuzk-bench h: no CUDA device\n");
        return 1;
    }
    gpu_device_describe(0, name, sizeof name);
    const size_t bytes = (size_t)32 << hi;
    void *d[3], *h[3] = {NULL, NULL, NULL}, *s, *cp, *e0, *e1;
    for (int k = 0; k < 3; k++)
        if (gpu_malloc(&d[k], bytes)) return fail();
    if (gpu_stream_create(&s) || gpu_stream_create(&cp) || gpu_event_create(&e0) || gpu_event_create(&e1)) return fail();
    if (from_host)
        for (int k = 0; k < 3; k++) {
            if (gpu_host_alloc(&h[k], bytes)) return fail();
            if (gpu_fr_fill_random(d[k], 1ull << hi, 100 + k, s) || gpu_stream_sync(s) ||
                gpu_memcpy_to_host(h[k], d[k], bytes))
                return fail();
        }
    if (!json) printf("cuzk-bench h on %s (median of %d after 1 warm-up, CUDA events)\n", name, runs);
    for (unsigned L = lo; L <= hi; L++) {
        const uint64_t n = 1ull << L;
        double v[MAX_RUNS], vh[MAX_RUNS];
        for (int r = -1; r < runs; r++) {
            for (int k = 0; k < 3; k++)
                if (gpu_fr_fill_random(d[k], n, 7 * r + k + 1000 * L, s)) return fail();
            float ms;
            if (gpu_event_record(e0, s) || gpu_h_step(d[0], d[1], d[2], L, s) || gpu_event_record(e1, s) ||
                gpu_event_sync(e1) || gpu_event_elapsed_ms(&ms, e0, e1))
                return fail();
            if (r >= 0) v[r] = ms;
            if (from_host) {
                if (gpu_event_record(e0, s) || gpu_stream_wait_event(cp, e0) ||
                    gpu_h_step_from_host(d[0], d[1], d[2], h[0], h[1], h[2], n, L, s, cp) ||
                    gpu_event_record(e1, s) || gpu_event_sync(e1) || gpu_event_elapsed_ms(&ms, e0, e1))
                    return fail();
                if (r >= 0) vh[r] = ms;
            }
        }
        double ms = bench_median(v, runs), msh = from_host ? bench_median(vh, runs) : 0;
        if (json)
            printf("{\"bench\":\"h\",\"device\":\"%s\",\"log\":%u,\"ms\":%.3f,\"from_host_ms\":%.3f,\"runs\":%d}\n",
                   name, L, ms, msh, runs);
        else if (from_host)
            printf("  H step 2^%-3u %9.3f ms on device data, %9.3f ms with a, b, c from pinned host memory\n", L, ms, msh);
        else
            printf("  H step 2^%-3u %9.3f ms (6 transforms; target for 2^27: <= 200 ms)\n", L, ms);
    }
    for (int k = 0; k < 3; k++) gpu_free(d[k]), gpu_host_free(h[k]);
    gpu_event_destroy(e0), gpu_event_destroy(e1), gpu_stream_destroy(s), gpu_stream_destroy(cp);
    return 0;
}
#endif

int bench_h(int argc, char **argv)
{
    unsigned lo = 24, hi = 24;
    int runs = 5, json = 0, from_host = 0;
    const char *log_s = NULL;
    const bench_opt opts[] = {{"log", BOPT_STR, &log_s},          {"runs", BOPT_INT, &runs},
                              {"from-host", BOPT_FLAG, &from_host}, {"json", BOPT_FLAG, &json}, {NULL, 0, NULL}};
    int parsed = bench_args("h", "--log 27 (or 20..27) [--runs N] [--from-host] [--json]",
                        "the Groth16 H step on the GPU (6 transforms), optionally from pinned host buffers", argc,
                        argv, opts);
    if (parsed >= 0) return parsed;
    if (log_s && bench_parse_log_range(log_s, &lo, &hi)) {
        fprintf(stderr, "cuzk-bench h: bad --log %s (N or LO..HI, 1..28)\n", log_s);
        return 2;
    }
    if (runs < 1) runs = 1;
    if (runs > MAX_RUNS) runs = MAX_RUNS;
    setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef CUZK_HAVE_CUDA
    return bench_h_gpu(lo, hi, runs, from_host, json);
#else
    (void)json, (void)from_host;
    fprintf(stderr, "cuzk-bench h: built without CUDA\n");
    return 1;
#endif
}
