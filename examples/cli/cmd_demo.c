/*
 * cuzk demo: the engine's showcase. Proves a batch of PoRep-shaped partitions (synthetic,
 * with a test-only key cached on disk), verifies every proof, and prints what the trace saw:
 * a per-stage table and a text timeline of each worker (busy with which partition, or idle).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"

#define MAX_EVENTS (1 << 16)
#define TIMELINE_COLS 64

/* Filled by the engine's trace thread only; read by main after cuzk_engine_destroy (which
 * joins that thread), so no lock is needed. */
typedef struct demo_log {
    cuzk_trace_event *ev;
    _Atomic uint32_t n;
    _Atomic uint64_t lost;
} demo_log;

static void on_event(const cuzk_trace_event *ev, void *user)
{
    demo_log *l = user;
    uint32_t i = atomic_load_explicit(&l->n, memory_order_relaxed);
    if (i < MAX_EVENTS) {
        l->ev[i] = *ev;
        atomic_store_explicit(&l->n, i + 1, memory_order_relaxed);
    } else {
        atomic_fetch_add_explicit(&l->lost, 1, memory_order_relaxed);
    }
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int mkdir_p(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0755) && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* A test-only key for the demo's circuit, made once and cached. */
static int ensure_key(const synth_cfg *cfg, const char *params, const char *vk, unsigned threads)
{
    if (exists(params) && exists(vk)) return CLI_OK;
    printf("making a TEST-ONLY key for the demo circuit (once; cached in %s) ...\n", params);
    fflush(stdout);
    uint64_t t0 = mono_ns();
    cs sys;
    fr_t *in = NULL, *aux = NULL;
    groth16_params *pk = NULL;
    groth16_toxic toxic;
    groth16_toxic_from_seed(&toxic, cfg->seed);
    threadpool *tp = threadpool_create(threads);
    int rc = synth_cs(cfg, &sys, &in, &aux);
    if (rc == CUZK_OK) {
        rc = groth16_setup(&sys, &toxic, tp, &pk);
        cs_free(&sys);
    }
    free(in);
    free(aux);
    threadpool_destroy(tp);
    if (rc == CUZK_OK && !(rc = groth16_params_write(params, pk))) rc = groth16_vk_write(vk, &pk->vk);
    groth16_params_free(pk);
    if (rc) {
        unlink(params);
        unlink(vk);
        return cli_fail_lib(rc);
    }
    printf("  done in %.1f s\n", (mono_ns() - t0) / 1e9);
    return CLI_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static const struct { int32_t kind; const char *name; } stages[] = {
    {CUZK_TRACE_QUEUE_WAIT, "queue wait"},
    {CUZK_TRACE_BUDGET_WAIT, "budget wait"},
    {CUZK_TRACE_H2D_COPY, "host to device"},
    {CUZK_TRACE_NTT_INTT, "H: iNTT a, b, c"},
    {CUZK_TRACE_NTT_COSET, "H: coset NTT"},
    {CUZK_TRACE_NTT_COSET_INTT, "H: a*b-c, coset iNTT"},
    {CUZK_TRACE_H_STEP, "H step (NTTs)"},
    {CUZK_TRACE_MSM_H, "MSM H"},
    {CUZK_TRACE_MSM_L, "MSM L"},
    {CUZK_TRACE_MSM_A, "MSM A"},
    {CUZK_TRACE_MSM_B_G1, "MSM B (G1)"},
    {CUZK_TRACE_MSM_B_G2, "MSM B (G2)"},
    {CUZK_TRACE_MSM_ALL, "MSMs"},
    {CUZK_TRACE_START, "worker, whole partition"},
    {CUZK_TRACE_ASSEMBLY, "assembly (finisher)"},
    {CUZK_TRACE_VERIFY, "self-check (pairing)"},
    {CUZK_TRACE_RELEASE, "release callback"},
    {CUZK_TRACE_FINISH, "finisher, whole"},
    {CUZK_TRACE_ARENA_TRIM, "memory back to the OS"},
};

static void print_stage_table(const demo_log *l, uint32_t n, const uint64_t *totals, int count)
{
    uint64_t *d = malloc((n ? n : 1) * sizeof *d);
    if (!d) return;
    printf("\n%-26s %6s %11s %11s %11s\n", "stage", "n", "median ms", "max ms", "total ms");
    for (size_t s = 0; s < sizeof stages / sizeof stages[0]; s++) {
        uint32_t k = 0;
        uint64_t sum = 0;
        for (uint32_t i = 0; i < n; i++)
            if (l->ev[i].kind == stages[s].kind) sum += d[k++] = l->ev[i].end_ns - l->ev[i].begin_ns;
        if (!k) continue;
        qsort(d, k, sizeof *d, cmp_u64);
        printf("%-26s %6u %11.2f %11.2f %11.2f\n", stages[s].name, k, d[k / 2] / 1e6, d[k - 1] / 1e6, sum / 1e6);
    }
    memcpy(d, totals, (size_t)count * sizeof *d);
    qsort(d, (size_t)count, sizeof *d, cmp_u64);
    printf("%-26s %6d %11.2f %11.2f\n", "submit -> result", count, d[count / 2] / 1e6, d[count - 1] / 1e6);
    free(d);
}

/* One row per worker: each column shows the partition (user_tag mod 10) the worker spent most
 * of that slice of time on, or '.' when it was idle; then a row for the finishers. */
static void print_timeline(const demo_log *l, uint32_t n, uint32_t workers, uint64_t t0, uint64_t t1)
{
    if (t1 <= t0) return;
    double dt = (double)(t1 - t0) / TIMELINE_COLS;
    printf("\ntimeline: %.2f s, one column = %.1f ms; digit = partition (number mod 10) being worked on, "
           "'.' = idle\n", (t1 - t0) / 1e9, dt / 1e6);
    for (uint32_t w = 0; w <= workers; w++) { /* the last row: finishers */
        int32_t kind = w < workers ? CUZK_TRACE_START : CUZK_TRACE_FINISH;
        char row[TIMELINE_COLS + 1];
        double busy_ns = 0;
        for (int c = 0; c < TIMELINE_COLS; c++) {
            double cb = t0 + c * dt, ce = cb + dt, best = 0;
            int tag = -1;
            for (uint32_t i = 0; i < n; i++) {
                const cuzk_trace_event *e = &l->ev[i];
                if (e->kind != kind || (w < workers && e->worker != (int32_t)w)) continue;
                double b = e->begin_ns > cb ? e->begin_ns : cb, en = e->end_ns < ce ? e->end_ns : ce;
                if (en - b > best) best = en - b, tag = (int)(e->user_tag % 10);
            }
            row[c] = tag < 0 ? '.' : (char)('0' + tag);
        }
        row[TIMELINE_COLS] = 0;
        for (uint32_t i = 0; i < n; i++)
            if (l->ev[i].kind == kind && (w == workers || l->ev[i].worker == (int32_t)w))
                busy_ns += (double)(l->ev[i].end_ns - l->ev[i].begin_ns);
        if (w < workers) printf("worker %-3u |%s| busy %5.1f %%\n", w, row, 100.0 * busy_ns / (double)(t1 - t0));
        else printf("finishers  |%s| busy %5.1f %% (all finishers together)\n", row,
                    100.0 * busy_ns / (double)(t1 - t0));
    }
}

/* GPU utilization from the device-timed stages (CUDA events on the host clock): per device,
 * busy = the union of its stage intervals over the span from the first to the last; a gap is
 * the time between the end of everything before a partition and its first device stage. */
static void print_device_summary(const demo_log *l, uint32_t n)
{
    for (int dev = 0; dev < 64; dev++) {
        uint64_t lo = UINT64_MAX, hi = 0, busy = 0, cur_b = 0, cur_e = 0, gap_max = 0, gap_sum = 0;
        uint32_t k = 0, ngaps = 0;
        uint64_t *b = malloc((n ? n : 1) * 2 * sizeof *b);
        if (!b) return;
        for (uint32_t i = 0; i < n; i++) { /* device stages, sorted by begin below */
            const cuzk_trace_event *e = &l->ev[i];
            if (e->device != dev || e->kind < CUZK_TRACE_H2D_COPY || e->kind > CUZK_TRACE_MSM_ALL) continue;
            b[2 * k] = e->begin_ns, b[2 * k + 1] = e->end_ns;
            k++;
        }
        if (!k) { free(b); continue; }
        for (uint32_t i = 1; i < k; i++) /* insertion sort of (begin, end) pairs: a demo's few hundred */
            for (uint32_t j = i; j > 0 && b[2 * j - 2] > b[2 * j]; j--) {
                uint64_t t0 = b[2 * j - 2], t1 = b[2 * j - 1];
                b[2 * j - 2] = b[2 * j], b[2 * j - 1] = b[2 * j + 1], b[2 * j] = t0, b[2 * j + 1] = t1;
            }
        lo = b[0], cur_b = b[0], cur_e = b[1];
        for (uint32_t i = 0; i < k; i++) {
            if (b[2 * i + 1] > hi) hi = b[2 * i + 1];
            if (b[2 * i] > cur_e) {
                uint64_t g = b[2 * i] - cur_e;
                busy += cur_e - cur_b, cur_b = b[2 * i], cur_e = b[2 * i + 1];
                gap_sum += g, ngaps++;
                if (g > gap_max) gap_max = g;
            } else if (b[2 * i + 1] > cur_e) cur_e = b[2 * i + 1];
        }
        busy += cur_e - cur_b;
        printf("GPU %d: busy %.1f %% of %.1f ms (union of device stages); %u idle stretches, longest %.3f ms, "
               "mean %.3f ms\n", dev, hi > lo ? 100.0 * (double)busy / (double)(hi - lo) : 0, (hi - lo) / 1e6, ngaps,
               gap_max / 1e6, ngaps ? gap_sum / 1e6 / ngaps : 0);
        free(b);
    }
}

int cmd_demo(int argc, char **argv)
{
    const char *log_s = NULL, *count_s = NULL, *workers_s = NULL, *threads_s = NULL, *cache = NULL,
               *backend = NULL;
    cli_opt opts[] = {{"log", 0, &log_s}, {"count", 0, &count_s}, {"workers", 0, &workers_s},
                      {"threads", 0, &threads_s}, {"cache", 0, &cache}, {"backend", 0, &backend},
                      {NULL, 0, NULL}};
    if (cli_parse("demo", argc, argv, opts)) return CLI_ERROR;
    int log_m = log_s ? atoi(log_s) : 14, count = count_s ? atoi(count_s) : 10;
    int workers = workers_s ? atoi(workers_s) : 1, threads = threads_s ? atoi(threads_s) : 0;
    if (log_m < 6 || log_m > 28) return cli_fail(CUZK_EINVAL, "--log must be 6..28, not '%s'", log_s);
    if (count < 1 || count > 1000) return cli_fail(CUZK_EINVAL, "--count must be 1..1000, not '%s'", count_s);
    if (workers < 1 || workers > 64) return cli_fail(CUZK_EINVAL, "--workers must be 1..64");
    if (threads < 0 || threads > 4096) return cli_fail(CUZK_EINVAL, "--threads must be 0..4096");
    int32_t kind = CUZK_BACKEND_AUTO;
    if (backend && !strcmp(backend, "cpu")) kind = CUZK_BACKEND_CPU;
    else if (backend && !strcmp(backend, "cuda")) kind = CUZK_BACKEND_CUDA;
    else if (backend && strcmp(backend, "auto"))
        return cli_fail(CUZK_EINVAL, "--backend must be auto, cpu or cuda, not '%s'", backend);
    if (!cache) cache = "build/demo";
    if (mkdir_p(cache)) return cli_fail(CUZK_EIO, "cannot create %s: %s", cache, strerror(errno));

    /* the circuit: a fixed seed, so the cached key fits every run */
    uint8_t seed[32];
    for (int i = 0; i < 32; i++) seed[i] = (uint8_t)(0xd0 + i);
    synth_cfg scfg;
    synth_cfg_for_domain(&scfg, (unsigned)log_m, seed);
    char params[4200], vkp[4200];
    snprintf(params, sizeof params, "%s/porep-2^%d.params", cache, log_m);
    snprintf(vkp, sizeof vkp, "%s/porep-2^%d.vk", cache, log_m);
    if (ensure_key(&scfg, params, vkp, (unsigned)threads)) return CLI_ERROR;

    int ret = CLI_ERROR, rc, submitted = 0;
    demo_log log = {0};
    cuzk_partition *parts = calloc((size_t)count, sizeof *parts);
    uint64_t *totals = calloc((size_t)count, sizeof *totals);
    uint8_t(*proofs)[192] = calloc((size_t)count, sizeof *proofs); /* checked after the clock stops */
    cuzk_fr *pub = NULL;
    uint8_t *vk = NULL;
    size_t vk_len = 0;
    cuzk_config *cfg = NULL;
    cuzk_engine *e = NULL;
    cuzk_srs *key = NULL;
    log.ev = malloc(MAX_EVENTS * sizeof *log.ev);
    if (!parts || !totals || !proofs || !log.ev) {
        cli_fail(CUZK_ENOMEM, "out of memory");
        goto out;
    }
    if (cli_read_file(vkp, &vk, &vk_len)) goto out;

    /* the host's side: synthesize the partitions (all of one circuit, like PoRep's ten) */
    uint64_t ts = mono_ns();
    for (int i = 0; i < count; i++) {
        if ((rc = synth_partition(&scfg, CUZK_FR_MONTGOMERY, &parts[i]))) {
            cli_fail_lib(rc);
            goto out;
        }
        parts[i].user_tag = (uint64_t)i;
    }
    uint64_t npub = parts[0].num_inputs - 1;
    if (!(pub = malloc((npub ? npub : 1) * sizeof *pub))) {
        cli_fail(CUZK_ENOMEM, "out of memory");
        goto out;
    }
    memcpy(pub, parts[0].inputs + 1, npub * sizeof *pub); /* the engine releases the partitions */
    double synth_s = (mono_ns() - ts) / 1e9;

    if ((rc = cuzk_config_new(&cfg)) || (rc = cuzk_config_set(cfg, CUZK_OPT_BACKEND, kind)) ||
        (rc = cuzk_config_set(cfg, CUZK_OPT_WORKERS_PER_DEVICE, workers)) ||
        (rc = cuzk_config_set(cfg, CUZK_OPT_CPU_THREADS, threads)) ||
        (rc = cuzk_config_set(cfg, CUZK_OPT_TRACE_CAPACITY, 1 << 16)) ||
        (rc = cuzk_config_set_trace(cfg, on_event, &log)) || (rc = cuzk_engine_create(cfg, &e))) {
        cli_fail_lib(rc);
        goto out;
    }
    if (!workers_s) { /* on a GPU two workers per device: one's host preparation overlaps the other's kernels */
        cuzk_stats s0;
        memset(&s0, 0, sizeof s0);
        s0.struct_size = sizeof s0;
        if (!cuzk_engine_stats(e, &s0) && s0.backend == CUZK_BACKEND_CUDA) {
            cuzk_engine_destroy(e);
            e = NULL;
            atomic_store(&log.n, 0);
            if ((rc = cuzk_config_set(cfg, CUZK_OPT_WORKERS_PER_DEVICE, 2)) || (rc = cuzk_engine_create(cfg, &e))) {
                cli_fail_lib(rc);
                goto out;
            }
        }
    }
    uint64_t tk = mono_ns();
    if ((rc = cuzk_srs_load(e, params, 0, &key))) {
        cli_fail_lib(rc);
        goto out;
    }
    double key_s = (mono_ns() - tk) / 1e9;
    uint64_t nc = parts[0].abc_len - parts[0].num_inputs, na = parts[0].num_aux;

    uint64_t t0 = mono_ns();
    for (; submitted < count; submitted++) {
        cuzk_job h;
        if ((rc = cuzk_submit_partition(e, key, &parts[submitted], &h))) {
            cli_fail_lib(rc);
            goto out;
        }
    }
    int ok = 0, verified = 0;
    for (int i = 0; i < count; i++) {
        cuzk_result r;
        memset(&r, 0, sizeof r);
        r.struct_size = sizeof r;
        if ((rc = cuzk_poll_result(e, &r, -1))) {
            cli_fail_lib(rc);
            goto out;
        }
        if (r.status != CUZK_OK) {
            fprintf(stderr, "cuzk demo: partition %llu: %s: %s\n", (unsigned long long)r.user_tag,
                    cuzk_strerror(r.status), r.detail);
            continue;
        }
        totals[ok] = r.total_ns;
        memcpy(proofs[ok++], r.proof, sizeof proofs[0]);
    }
    uint64_t t1 = mono_ns();
    for (int i = 0; i < ok; i++)
        if (cuzk_verify(vk, vk_len, proofs[i], pub, npub, CUZK_FR_MONTGOMERY) == CUZK_OK) verified++;
    cuzk_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    cuzk_engine_stats(e, &st);
    cuzk_srs_release(key);
    key = NULL;
    cuzk_engine_destroy(e); /* delivers the rest of the trace */
    e = NULL;

    double secs = (t1 - t0) / 1e9;
    printf("cuzk demo: %d PoRep-shaped partitions of domain 2^%d (%llu constraints, %llu public inputs, "
           "%llu aux)\n", count, log_m, (unsigned long long)nc, (unsigned long long)npub, (unsigned long long)na);
    printf("  %s backend, %u worker%s, arithmetic threads: %s; key %s (loaded in %.2f s); partitions "
           "synthesized in %.2f s\n", st.backend == CUZK_BACKEND_CUDA ? "CUDA" : "CPU", st.workers,
           st.workers == 1 ? "" : "s", threads ? threads_s : "one per CPU", params, key_s, synth_s);
    printf("  proved %d of %d in %.2f s (%.2f partitions/s); cuzk_verify accepted %d of %d\n", ok, count, secs,
           ok / secs, verified, count);
    printf("  peak host memory reserved %.1f MiB of a %.1f GiB budget; trace: %u events kept, %llu dropped\n",
           st.host_reserved_peak / 1048576.0, st.host_budget_bytes / 1073741824.0, atomic_load(&log.n),
           (unsigned long long)(st.trace_dropped + atomic_load(&log.lost)));
    uint32_t n = atomic_load(&log.n);
    print_stage_table(&log, n, totals, ok ? ok : 1);
    print_timeline(&log, n, st.workers, t0, t1);
    if (st.backend == CUZK_BACKEND_CUDA) print_device_summary(&log, n);
    if (ok == count && verified == count) ret = CLI_OK;
    else fprintf(stderr, "cuzk demo: %d of %d proofs failed\n", count - (ok < verified ? ok : verified), count);
out:
    for (int i = submitted; parts && i < count; i++)
        if (parts[i].release) parts[i].release(parts[i].release_user); /* never submitted */
    cuzk_srs_release(key);
    cuzk_engine_destroy(e);
    cuzk_config_free(cfg);
    free(vk);
    free(pub);
    free(totals);
    free(proofs);
    free(parts);
    free(log.ev);
    return ret;
}
