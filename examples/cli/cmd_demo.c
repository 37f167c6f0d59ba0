/*
 * cuzk demo: the engine's showcase. Proves a backlog of PoRep-shaped partitions (synthetic,
 * with a test-only key cached on disk), verifies every proof, and shows what the trace saw:
 * busy % of each GPU (or CPU worker), a per-stage table, a text timeline of each worker, and
 * the same timeline as an SVG picture (plus the events as JSON Lines for `cuzk trace`).
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
#include "trace_view.h"
#include "user_cache.h"

#define TIMELINE_COLS 64
/* Sizes when --log/--count are not given: a GPU proves a backlog big enough to show it busy
 * (a few seconds; the key is made once on the CPU), the CPU a small one (seconds). */
#define GPU_LOG 20
#define GPU_COUNT 16
#define CPU_LOG 14
#define CPU_COUNT 6

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

/* Per event, in ms; the median is tv_median's, the one `cuzk trace` prints for the same events
 * (it sorts d, so the largest is last after it). */
static void print_stage_table(const tv_log *l, size_t n, const uint64_t *totals, int count)
{
    double *d = malloc(((n > (size_t)count ? n : (size_t)count) + 1) * sizeof *d);
    if (!d) return;
    printf("\n%-26s %6s %11s %11s %11s\n", "stage", "n", "median ms", "max ms", "total ms");
    for (size_t s = 0; s < sizeof stages / sizeof stages[0]; s++) {
        uint32_t k = 0;
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++)
            if (l->ev[i].kind == stages[s].kind) {
                uint64_t ns = l->ev[i].end_ns - l->ev[i].begin_ns;
                sum += ns;
                d[k++] = (double)ns / 1e6;
            }
        if (!k) continue;
        double med = tv_median(d, k);
        printf("%-26s %6u %11.2f %11.2f %11.2f\n", stages[s].name, k, med, d[k - 1], sum / 1e6);
    }
    for (int i = 0; i < count; i++) d[i] = (double)totals[i] / 1e6;
    double med = tv_median(d, (size_t)count);
    printf("%-26s %6d %11.2f %11.2f\n", "submit -> result", count, med, count ? d[count - 1] : 0);
    free(d);
}

/* One row per worker: each column shows the partition (user_tag mod 10) the worker spent most
 * of that slice of time on, or '.' when it was idle; then a row for the finishers. */
static void print_timeline(const tv_log *l, size_t n, uint32_t workers, uint64_t t0, uint64_t t1)
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
            for (size_t i = 0; i < n; i++) {
                const cuzk_trace_event *e = &l->ev[i];
                if (e->kind != kind || (w < workers && e->worker != (int32_t)w)) continue;
                double b = e->begin_ns > cb ? e->begin_ns : cb, en = e->end_ns < ce ? e->end_ns : ce;
                if (en - b > best) best = en - b, tag = (int)(e->user_tag % 10);
            }
            row[c] = tag < 0 ? '.' : (char)('0' + tag);
        }
        row[TIMELINE_COLS] = 0;
        for (size_t i = 0; i < n; i++)
            if (l->ev[i].kind == kind && (w == workers || l->ev[i].worker == (int32_t)w))
                busy_ns += (double)(l->ev[i].end_ns - l->ev[i].begin_ns);
        if (w < workers) printf("worker %-3u |%s| busy %5.1f %%\n", w, row, 100.0 * busy_ns / (double)(t1 - t0));
        else printf("finishers  |%s| busy %5.1f %% (all finishers together)\n", row,
                    100.0 * busy_ns / (double)(t1 - t0));
    }
}

/* One witness behind every partition: the synthesizer's release runs after the last one. */
typedef struct {
    void (*release)(void *);
    void *user;
    atomic_int refs;
} shared_witness;

static void shared_release(void *u)
{
    shared_witness *w = u;
    if (atomic_fetch_sub(&w->refs, 1) == 1 && w->release) w->release(w->user);
}

static int engine_start(int32_t kind, int workers, int threads, tv_log *log, cuzk_config **cfg, cuzk_engine **e)
{
    int rc;
    if ((rc = cuzk_config_new(cfg)) || (rc = cuzk_config_set(*cfg, CUZK_OPT_BACKEND, kind)) ||
        (rc = cuzk_config_set(*cfg, CUZK_OPT_WORKERS_PER_DEVICE, workers)) ||
        (rc = cuzk_config_set(*cfg, CUZK_OPT_CPU_THREADS, threads)) ||
        (rc = cuzk_config_set(*cfg, CUZK_OPT_TRACE_CAPACITY, 1 << 16)) ||
        (rc = cuzk_config_set_trace(*cfg, tv_collect, log)) || (rc = cuzk_engine_create(*cfg, e)))
        return cli_fail_lib(rc);
    return CLI_OK;
}

int cmd_demo(int argc, char **argv)
{
    const char *log_s = NULL, *count_s = NULL, *workers_s = NULL, *threads_s = NULL, *cache = NULL,
               *backend = NULL, *svg_s = NULL, *events_s = NULL;
    cli_opt opts[] = {{"log", 0, &log_s},         {"count", 0, &count_s}, {"workers", 0, &workers_s},
                      {"threads", 0, &threads_s}, {"cache", 0, &cache},   {"backend", 0, &backend},
                      {"svg", 0, &svg_s},         {"events", 0, &events_s}, {NULL, 0, NULL}};
    if (cli_parse("demo", argc, argv, opts)) return CLI_ERROR;
    int log_m = 0, count = 0, workers = 1, threads = 0;
    if ((log_s && cli_parse_int("log", log_s, 6, 28, &log_m)) ||
        (count_s && cli_parse_int("count", count_s, 1, 1000, &count)) ||
        (workers_s && cli_parse_int("workers", workers_s, 1, 64, &workers)) ||
        (threads_s && cli_parse_int("threads", threads_s, 0, 4096, &threads)))
        return CLI_ERROR;
    int32_t kind;
    if (cli_parse_backend(backend, &kind)) return CLI_ERROR;
    char cache_buf[4096], why[4200];
    if (!cache) { /* the user's own cache (~/.cache/cuzk/demo): no other user can plant a key there */
        if (user_cache_dir(NULL, "demo", cache_buf, sizeof cache_buf, why, sizeof why))
            return cli_fail(CUZK_EIO, "%s", why);
        cache = cache_buf;
    } else if (mkdir_p(cache, 0755))
        return cli_fail(CUZK_EIO, "cannot create %s: %s", cache, strerror(errno));

    int ret = CLI_ERROR, rc, submitted = 0, ok = 0, verified = 0;
    shared_witness shared = {0};
    tv_log log = {0};
    cuzk_partition *parts = NULL;
    uint64_t *totals = NULL;
    uint8_t(*proofs)[192] = NULL; /* checked after the clock stops */
    cuzk_fr *pub = NULL;
    uint8_t *vk = NULL;
    size_t vk_len = 0;
    cuzk_config *cfg = NULL;
    cuzk_engine *e = NULL;
    cuzk_srs *key = NULL;

    /* the engine first: its backend decides the default sizes */
    if (engine_start(kind, workers, threads, &log, &cfg, &e)) goto out;
    cuzk_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    int gpu = !cuzk_engine_stats(e, &st) && st.backend == CUZK_BACKEND_CUDA;
    if (gpu && !workers_s) { /* on a GPU two workers per device: one's host work overlaps the other's kernels */
        cuzk_engine_destroy(e);
        cuzk_config_free(cfg);
        e = NULL, cfg = NULL;
        tv_free(&log);
        if (engine_start(kind, 2, threads, &log, &cfg, &e)) goto out;
    }
    if (!log_s) log_m = gpu ? GPU_LOG : CPU_LOG;
    if (!count_s) count = gpu ? GPU_COUNT : CPU_COUNT;

    /* the circuit: a fixed seed, so the cached key fits every run */
    uint8_t seed[32];
    for (int i = 0; i < 32; i++) seed[i] = (uint8_t)(0xd0 + i);
    synth_cfg scfg;
    synth_cfg_for_domain(&scfg, (unsigned)log_m, seed);
    char params[4200], vkp[4200], svg[4200], events[4200];
    snprintf(params, sizeof params, "%s/porep-2^%d.params", cache, log_m);
    snprintf(vkp, sizeof vkp, "%s/porep-2^%d.vk", cache, log_m);
    snprintf(svg, sizeof svg, "%s", svg_s ? svg_s : "");
    if (!svg_s) snprintf(svg, sizeof svg, "%s/timeline.svg", cache);
    snprintf(events, sizeof events, "%s", events_s ? events_s : "");
    if (!events_s) snprintf(events, sizeof events, "%s/events.jsonl", cache);
    if (ensure_key(&scfg, params, vkp, (unsigned)threads)) goto out;

    parts = calloc((size_t)count, sizeof *parts);
    totals = calloc((size_t)count, sizeof *totals);
    proofs = calloc((size_t)count, sizeof *proofs);
    if (!parts || !totals || !proofs) {
        cli_fail(CUZK_ENOMEM, "out of memory");
        goto out;
    }
    if (cli_read_file(vkp, &vk, &vk_len)) goto out;

    /* the host's side: one synthesized witness handed over `count` times (a PoRep proof's
     * partitions are witnesses of one circuit; the prover's work is the same for each), its
     * buffers freed when the last partition is released */
    uint64_t ts = mono_ns();
    if ((rc = synth_partition(&scfg, CUZK_FR_MONTGOMERY, &parts[0]))) {
        cli_fail_lib(rc);
        goto out;
    }
    shared.release = parts[0].release, shared.user = parts[0].release_user;
    atomic_store(&shared.refs, count);
    for (int i = 0; i < count; i++) {
        parts[i] = parts[0];
        parts[i].user_tag = (uint64_t)i;
        parts[i].release = shared_release;
        parts[i].release_user = &shared;
    }
    uint64_t npub = parts[0].num_inputs - 1;
    if (!(pub = malloc((npub ? npub : 1) * sizeof *pub))) {
        cli_fail(CUZK_ENOMEM, "out of memory");
        goto out;
    }
    memcpy(pub, parts[0].inputs + 1, npub * sizeof *pub); /* the engine releases the partitions */
    double synth_s = (mono_ns() - ts) / 1e9; /* one witness */

    uint64_t tk = mono_ns();
    if ((rc = cuzk_srs_load(e, params, 0, &key))) {
        cli_fail_lib(rc);
        goto out;
    }
    double key_s = (mono_ns() - tk) / 1e9;
    uint64_t nc = parts[0].abc_len - parts[0].num_inputs, na = parts[0].num_aux;
    printf("proving %d PoRep-shaped partitions of domain 2^%d on the %s backend ...\n", count, log_m,
           gpu ? "CUDA" : "CPU");
    fflush(stdout);

    uint64_t t0 = mono_ns();
    for (; submitted < count; submitted++) {
        cuzk_job h;
        if ((rc = cuzk_submit_partition(e, key, &parts[submitted], &h))) {
            cli_fail_lib(rc);
            goto out;
        }
    }
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
        if (!ok) { /* the engine checked it with a pairing before returning it */
            printf("  first proof after %.2f s (partition %llu, self-checked by the engine)\n", (mono_ns() - t0) / 1e9,
                   (unsigned long long)r.user_tag);
            fflush(stdout);
        }
        totals[ok] = r.total_ns;
        memcpy(proofs[ok++], r.proof, sizeof proofs[0]);
    }
    uint64_t t1 = mono_ns();
    for (int i = 0; i < ok; i++)
        if (cuzk_verify(vk, vk_len, proofs[i], pub, npub, CUZK_FR_MONTGOMERY) == CUZK_OK) verified++;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    cuzk_engine_stats(e, &st);
    cuzk_srs_release(key);
    key = NULL;
    cuzk_engine_destroy(e); /* delivers the rest of the trace */
    e = NULL;

    double secs = (t1 - t0) / 1e9;
    printf("cuzk demo: %d PoRep-shaped partitions of domain 2^%d (%llu constraints, %llu public inputs, "
           "%llu aux; one witness, synthesized once)\n", count, log_m, (unsigned long long)nc, (unsigned long long)npub, (unsigned long long)na);
    printf("  %s backend, %u worker%s, arithmetic threads: %s; key %s (loaded in %.2f s); witness "
           "synthesized in %.2f s\n", st.backend == CUZK_BACKEND_CUDA ? "CUDA" : "CPU", st.workers,
           st.workers == 1 ? "" : "s", threads ? threads_s : "one per CPU", params, key_s, synth_s);
    printf("  proved %d of %d in %.2f s (%.2f partitions/s); cuzk_verify accepted %d of %d\n", ok, count, secs,
           ok / secs, verified, count);
    printf("  peak host memory reserved %.1f MiB of a %.1f GiB budget; trace: %zu events kept, %llu dropped\n",
           st.host_reserved_peak / 1048576.0, st.host_budget_bytes / 1073741824.0, log.n,
           (unsigned long long)(st.trace_dropped + log.lost));
    print_stage_table(&log, log.n, totals, ok);
    print_timeline(&log, log.n, st.workers, t0, t1);
    tv_summary sum;
    tv_analyze(&log, 0, UINT64_MAX, &sum);
    printf("\n");
    tv_print(stdout, &sum, "", 0);
    char title[256];
    snprintf(title, sizeof title, "cuzk demo: %d partitions of domain 2^%d, %s backend, %u worker%s", count, log_m,
             gpu ? "CUDA" : "CPU", st.workers, st.workers == 1 ? "" : "s");
    if (tv_write_svg(svg, &log, title)) fprintf(stderr, "cuzk demo: cannot write %s: %s\n", svg, strerror(errno));
    else printf("\ntimeline picture: %s (open it in a browser)\n", svg);
    if (tv_write_jsonl(events, &log)) fprintf(stderr, "cuzk demo: cannot write %s: %s\n", events, strerror(errno));
    else printf("trace events: %s (cuzk trace %s --chrome trace.json: a Chrome/Perfetto timeline)\n", events, events);
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
    tv_free(&log);
    return ret;
}
