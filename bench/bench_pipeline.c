/*
 * cuzk-bench pipeline: a backlog of partitions of one shape (PoRep by default) through the
 * public API (engine, trace callback); prints device busy %, gaps between consecutive partitions on a device,
 * per-stage medians and partitions/s; writes a Chrome trace (Perfetto), an SVG timeline and the
 * events as JSON Lines (examples/trace's views, shared with `cuzk demo` and `cuzk trace`).
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "trace_view.h"
#include "engine/engine.h"
#include "groth16/csc.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"

#define PIPELINE_USAGE "--shape porep|snap|wpost|winning --log N --partitions P [--devices LIST]\n" \
                       "         [--workers W] [--backend auto|cuda|cpu] [--trace out.json] [--svg out.svg] [--json out.json]\n" \
                       "         [--events out.jsonl] [--fill PCT] [--pageable] [--synthetic-key] [--warmup K]\n" \
                       "         [--device-memory GIB] [--witness [--cs-stream]] [--distinct]"
#define PIPELINE_WHAT "a backlog of partitions through the engine: busy %, gaps, stage medians, a Chrome trace, an " \
                      "SVG timeline, the events as JSON Lines (for cuzk trace); the host memory per partition in " \
                      "flight, and with --distinct (each partition in its own buffers) the RSS before and the peak"

/* What the trace does not say: the results' device time, the measured partitions' wall time
 * and the host memory they took. */
typedef struct {
    double *device_ms; /* per measured result: cuzk_result.device_ns in ms */
    size_t nres;
    uint64_t wall_ns;  /* first submit -> last result of the measured partitions */
    uint64_t part_bytes, abc_part_bytes, witness_part_bytes; /* per partition: this run's, each path's */
    int distinct, hwm_reset;
    int64_t rss_before, rss_made, rss_peak; /* --distinct: VmRSS before they were made, after, VmHWM */
} run_figures;

static void add_result(run_figures *rf, const cuzk_result *r)
{
    double *n = realloc(rf->device_ms, (rf->nres + 1) * sizeof *n);
    if (!n) return;
    rf->device_ms = n;
    rf->device_ms[rf->nres++] = (double)r->device_ns / 1e6;
}

static int write_json(const char *path, const tv_summary *s, const run_figures *rf, double dev_med, const char *shape,
                      const char *desc, int log_m, int parts, int workers, int synthetic)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "{\"bench\":\"pipeline\",\"shape\":\"%s\",\"log_m\":%d,\"partitions\":%d,\"workers\":%d,"
               "\"verified\":%s,\"desc\":\"%s\",\"partitions_per_s\":%.4f,\"device_ms_median\":%.3f,",
            shape, log_m, parts, workers, synthetic ? "false" : "true", desc,
            rf->wall_ns ? (double)parts * 1e9 / (double)rf->wall_ns : 0, dev_med);
    fprintf(f, "\"host_bytes_per_partition\":%llu,\"abc_host_bytes_per_partition\":%llu,"
               "\"witness_host_bytes_per_partition\":%llu,", (unsigned long long)rf->part_bytes,
            (unsigned long long)rf->abc_part_bytes, (unsigned long long)rf->witness_part_bytes);
    if (rf->distinct)
        fprintf(f, "\"distinct\":true,\"rss_before_bytes\":%lld,\"rss_made_bytes\":%lld,\"rss_peak_bytes\":%lld,"
                   "\"peak_reset_before\":%s,", (long long)rf->rss_before, (long long)rf->rss_made,
                (long long)rf->rss_peak, rf->hwm_reset ? "true" : "false");
    fprintf(f, "\"devices\":[");
    for (int d = 0; d < s->ndev; d++)
        fprintf(f, "%s{\"device\":%d,\"busy_pct\":%.3f,\"window_ms\":%.3f,\"gap_p50_ms\":%.4f,\"gap_p99_ms\":%.4f,"
                   "\"gap_max_ms\":%.4f,\"idle_max_ms\":%.4f}",
                d ? "," : "", s->dev[d], s->busy_pct[d], s->dev_window_ms[d], s->gap_p50_ms[d], s->gap_p99_ms[d],
                s->gap_max_ms[d], s->hole_max_ms[d]);
    fprintf(f, "],\"stage_median_ms\":{");
    int first = 1;
    for (int k = 1; k < TV_KINDS; k++)
        if (s->stage_n[k]) {
            fprintf(f, "%s\"%s\":%.3f", first ? "" : ",", tv_kind_name(k), s->stage_med_ms[k]);
            first = 0;
        }
    fprintf(f, "},\"stage_copy_pct\":{");
    first = 1;
    for (int k = 1; k < TV_KINDS; k++)
        if (s->stage_n[k] && s->stage_copy_pct[k] >= 0) {
            fprintf(f, "%s\"%s\":%.2f", first ? "" : ",", tv_kind_name(k), s->stage_copy_pct[k]);
            first = 0;
        }
    fprintf(f, "}}\n");
    return fclose(f);
}

static int usage(void)
{
    fprintf(stderr,
            "usage: cuzk-bench pipeline " PIPELINE_USAGE "\n"
            "  The shape's circuit (lib/groth16/synth_shape.c) at domain 2^N, filling the domain as the real\n"
            "  circuit fills its own (or PCT %%). N <= 22: a real test-only key, every proof verified; N > 22\n"
            "  (or --synthetic-key): a key of random valid points generated on the device, proofs not\n"
            "  verifiable (self-check off). The partition's buffers live in cuzk_host_alloc memory (pinned\n"
            "  on CUDA) unless --pageable. --device-memory GIB: make each GPU that small first (hold the rest\n"
            "  of its memory), so the key is placed as on a card of that size (resident, partial or streamed).\n"
            "  --witness: witness-only partitions (cuzk_submit_witness) of the same circuit, its constraint system\n"
            "  loaded before the key (resident where it fits, or with --cs-stream streamed: CUZK_CS_STREAM, what a\n"
            "  card too small for both needs); prints the evaluation's own time. Every run prints the host memory\n"
            "  per partition in flight: the bytes of the buffers this bench allocates for one partition (a, b, c,\n"
            "  inputs, aux, densities; --witness: inputs and aux) and those of the other path.\n"
            "  --distinct: the P measured partitions each in buffers of their own, all made before the first\n"
            "  submit and freed at the engine's release callback (the warm-up's shared partition freed first);\n"
            "  prints the RSS before they were made and the peak RSS while they were in flight (VmHWM, reset\n"
            "  before them). Refused when P x the bytes per partition exceed MemAvailable.\n");
    return 2;
}

typedef struct {
    int log_m, parts, workers, pageable, synthetic, warmup, tile, witness, cs_stream, distinct;
    int32_t backend;
    uint64_t mask, abc_len, num_aux;
    const bench_circuit *circ;
    double device_gib;   /* --device-memory: hold the rest of each device first (0 = no) */
    const char *key_path, *trace_path, *svg_path, *json_path, *events_path, *devices;
    const cuzk_partition *p0;
    threadpool *tp;
    double synth_s, setup_s;
} run_cfg;

/* Host-to-device traffic of the measured partitions: bytes and copy-engine busy time. */
static void print_copies(const tv_log *log, uint64_t parts)
{
    uint64_t bytes = 0, busy = 0;
    for (size_t i = 0; i < log->n; i++) {
        const cuzk_trace_event *e = &log->ev[i];
        if (e->kind != CUZK_TRACE_H2D_COPY || e->user_tag < 1 || e->user_tag > parts) continue;
        bytes += e->bytes;
        busy += e->end_ns - e->begin_ns;
    }
    printf("  host->device per partition: %.2f GB (witness scalars and streamed bases), copy streams busy %.1f ms\n",
           (double)bytes / 1e9 / (double)parts, (double)busy / 1e6 / (double)parts);
}

/* The constraint evaluations of the measured partitions (witness-only): their own time. */
static void print_cs_eval(const tv_log *log, uint64_t parts)
{
    uint64_t busy = 0, n = 0;
    for (size_t i = 0; i < log->n; i++) {
        const cuzk_trace_event *e = &log->ev[i];
        if (e->kind != CUZK_TRACE_CS_EVAL || e->user_tag < 1 || e->user_tag > parts) continue;
        busy += e->end_ns - e->begin_ns;
        n++;
    }
    printf("  constraint evaluation (a = A·w, b = B·w, c = C·w) per partition: %.1f ms (%llu events)\n",
           (double)busy / 1e6 / (double)parts, (unsigned long long)n);
}

/* The witness-only run's constraint system, loaded into e; its densities become p's (the
 * key is made for them). 0, or 2 after printing. */
static int load_cs(const run_cfg *c, cuzk_engine *e, cuzk_partition *p, cuzk_cs **out, double *build_s)
{
    csc *sys;
    if (bench_witness_cs(c->circ, c->tp, c->abc_len, c->num_aux, &sys, build_s)) return 2;
    int rc = engine_cs_adopt(e, sys, c->cs_stream ? CUZK_CS_STREAM : 0, out);
    if (rc) {
        fprintf(stderr, "cuzk-bench pipeline: constraint system: %s: %s\n", cuzk_strerror(rc), cuzk_last_error());
        csc_free(sys);
        free(sys);
        return 2;
    }
    p->a_aux_density = sys->a_aux_density, p->b_aux_density = sys->b_aux_density;
    p->b_input_density = sys->b_input_density;
    cuzk_cs_info info = {.struct_size = sizeof info};
    cuzk_cs_get_info(*out, &info);
    printf("  constraint system: %llu + %llu + %llu non-zeros, %u coefficients, host %.2f GiB, device %.2f GiB "
           "(%u device%s resident, %u streamed), built in %.1f s\n", (unsigned long long)info.nnz[0],
           (unsigned long long)info.nnz[1], (unsigned long long)info.nnz[2], info.num_coeffs,
           (double)info.host_bytes / (1 << 30), (double)info.device_bytes / (1 << 30), info.resident_devices,
           info.resident_devices == 1 ? "" : "s", info.streamed_devices, *build_s);
    return 0;
}

/* Figure 1 of issue 27's host memory: what one partition in flight keeps on the host, from the
 * buffers placed (bench_part_layout), beside the other path's for the same circuit. */
static void print_host_bytes(const run_cfg *c, const bench_part *bp, run_figures *rf)
{
    uint64_t sz[BP_N];
    rf->part_bytes = bp->bytes;
    rf->abc_part_bytes = bench_part_layout(c->p0->num_inputs, c->abc_len, c->num_aux, 0, sz);
    rf->witness_part_bytes = bench_part_layout(c->p0->num_inputs, c->abc_len, c->num_aux, 1, sz);
    const uint64_t *z = bp->sizes;
    char h[4][32];
    printf("  host memory per partition in flight (the buffers allocated for it, kept until its release): %s "
           "(%llu B) = ", bench_bytes(h[0], (double)bp->bytes), (unsigned long long)bp->bytes);
    if (!c->witness)
        printf("a, b, c 3 x %llu x 32 B = %s + ", (unsigned long long)c->abc_len,
               bench_bytes(h[1], (double)(z[BP_A] + z[BP_B] + z[BP_C])));
    printf("inputs %llu x 32 B + aux %llu x 32 B = %s", (unsigned long long)c->p0->num_inputs,
           (unsigned long long)c->num_aux, bench_bytes(h[2], (double)(z[BP_INPUTS] + z[BP_AUX])));
    if (!c->witness) printf(" + densities %s", bench_bytes(h[1], (double)z[BP_DENS]));
    printf("; %s path: %s (witness-only / a/b/c = %.1f %%)\n", c->witness ? "the a/b/c" : "the witness-only",
           bench_bytes(h[3], (double)(c->witness ? rf->abc_part_bytes : rf->witness_part_bytes)),
           100.0 * (double)rf->witness_part_bytes / (double)(rf->abc_part_bytes ? rf->abc_part_bytes : 1));
}

/* --distinct: each measured partition in its own block, freed once the engine releases it.
 * The release callback only hands the block to the bench's freer thread: cuzk_host_free of
 * page-locked memory waits for the device, which would stall the engine's worker. */
typedef struct part_freer {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bench_part **q;              /* released, not yet freed (each part once: at most total) */
    size_t nq, freed, total;
    cuzk_engine *e;
} part_freer;
typedef struct {
    bench_part bp;
    part_freer *f;
} distinct_part;

static void distinct_release(void *u)
{
    distinct_part *d = u;
    pthread_mutex_lock(&d->f->mu);
    if (d->f->nq + d->f->freed < d->f->total) d->f->q[d->f->nq++] = &d->bp; /* else released twice: ignored */
    pthread_cond_signal(&d->f->cv);
    pthread_mutex_unlock(&d->f->mu);
}

static void *freer_main(void *arg)
{
    part_freer *f = arg;
    pthread_mutex_lock(&f->mu);
    while (f->freed < f->total) {
        if (!f->nq) {
            pthread_cond_wait(&f->cv, &f->mu);
            continue;
        }
        bench_part *bp = f->q[--f->nq];
        pthread_mutex_unlock(&f->mu);
        bench_part_free(f->e, bp);
        pthread_mutex_lock(&f->mu);
        f->freed++;
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* The n measured partitions, each placed in its own block before any is submitted, RSS read
 * before and after. 0, or 2 after printing (nothing left allocated). */
static int make_distinct(const run_cfg *c, cuzk_engine *e, const cuzk_partition *shared, int n, uint64_t budget,
                         part_freer *f, distinct_part *dp, run_figures *rf)
{
    char what[160], b[3][32];
    const uint64_t need = (uint64_t)n * rf->part_bytes;
    snprintf(what, sizeof what, "--distinct with %d partitions of %s each", n, bench_bytes(b[0], (double)rf->part_bytes));
    if (bench_check_mem_available("pipeline", need, what,
                                  c->witness ? "fewer --partitions" : "fewer --partitions, or --witness"))
        return 2;
    if (!c->pageable && need > budget) { /* cuzk_host_alloc would stop part-way with CUZK_EAGAIN */
        fprintf(stderr, "cuzk-bench pipeline: %s needs %s but the engine's host budget is %s (cuzk_host_alloc memory "
                "counts against it): refused (fewer --partitions%s, or --pageable)\n", what,
                bench_bytes(b[1], (double)need), bench_bytes(b[2], (double)budget), c->witness ? "" : ", --witness");
        return 2;
    }
    rf->distinct = 1;
    /* "before" without what setup freed but the C library kept (the key's generation below
     * 2^23: glibc trims a thread's arena only at a later free in it) nor the warm-up's working
     * memory, which the engine's housekeeping thread returns a moment after its last free:
     * trimmed, then read once the RSS has stopped falling (<= 1 s) */
    malloc_trim(0);
    int64_t prev = bench_proc_bytes("/proc/self/status", "VmRSS"), now;
    for (int k = 0; k < 20; k++, prev = now) { /* falling by more than 1 MiB in 50 ms: wait */
        usleep(50000);
        if ((now = bench_proc_bytes("/proc/self/status", "VmRSS")) > prev - (1 << 20)) break;
    }
    rf->rss_before = bench_proc_bytes("/proc/self/status", "VmRSS");
    rf->hwm_reset = bench_reset_peak_rss() == 0;
    f->e = e, f->total = (size_t)n, f->nq = f->freed = 0;
    for (int i = 0; i < n; i++) {
        if (bench_place_partition(e, c->tp, c->p0, c->pageable, c->abc_len, c->num_aux, c->witness, &dp[i].bp)) {
            while (i--) bench_part_free(e, &dp[i].bp);
            return 2;
        }
        dp[i].f = f;
        dp[i].bp.p.release = distinct_release, dp[i].bp.p.release_user = &dp[i];
        if (c->witness) { /* the constraint system's, as for the shared partition */
            dp[i].bp.p.a_aux_density = shared->a_aux_density, dp[i].bp.p.b_aux_density = shared->b_aux_density;
            dp[i].bp.p.b_input_density = shared->b_input_density;
        }
    }
    rf->rss_made = bench_proc_bytes("/proc/self/status", "VmRSS");
    return 0;
}

static void print_rss(const run_figures *rf, int n)
{
    char h[7][32];
    const double before = (double)rf->rss_before, peak = (double)rf->rss_peak;
    printf("  host RSS with %d distinct partitions in flight: %s before they were made, %s once made (+%s), "
           "peak %s while in flight (VmHWM%s): +%s, %s per partition (its buffers %s)\n", n, bench_bytes(h[0], before),
           bench_bytes(h[1], (double)rf->rss_made), bench_bytes(h[2], (double)rf->rss_made - before), bench_bytes(h[3], peak),
           rf->hwm_reset ? ", reset before they were made" : ", NOT reset: it includes the setup's peak",
           bench_bytes(h[4], peak - before), bench_bytes(h[5], (peak - before) / n), bench_bytes(h[6], (double)rf->part_bytes));
    /* page-locked memory (cuzk_host_alloc on CUDA) is expected in VmRSS; say so where it was not */
    const double made = (double)n * (double)rf->part_bytes;
    printf("  (the peak's growth is the partitions' buffers plus the engine's own working memory for those it proves "
           "at once)\n");
    if (made >= 64.0 * (1 << 20) && (double)rf->rss_made - before < made / 2)
        printf("  note: RSS grew by less than half the %s made; this host's page-locked memory may not count in "
               "VmRSS: rerun with --pageable to compare\n", bench_bytes(h[0], made));
}

/* out.json -> out-w2.json when several worker counts run */
static const char *suffixed(char *buf, size_t len, const char *path, int workers, int many)
{
    if (!path || !many) return path;
    const char *dot = strrchr(path, '.');
    size_t stem = dot ? (size_t)(dot - path) : strlen(path);
    snprintf(buf, len, "%.*s-w%d%s", (int)stem, path, workers, dot ? dot : "");
    return buf;
}

static int run_one(const run_cfg *rc_, int many)
{
    const run_cfg *c = rc_;
    tv_log log = {0};
    run_figures rf = {0};
    cuzk_config *cc = NULL;
    cuzk_engine *e = NULL;
    cuzk_srs *srs = NULL;
    int rc;
    if ((rc = cuzk_config_new(&cc)) || (rc = cuzk_config_set(cc, CUZK_OPT_BACKEND, c->backend)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_DEVICE_MASK, (int64_t)c->mask)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_WORKERS_PER_DEVICE, c->workers)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_VERIFY, !c->synthetic)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_TRACE_CAPACITY, 1 << 20)) ||
        (rc = cuzk_config_set_trace(cc, tv_collect, &log)) || (rc = cuzk_engine_create(cc, &e))) {
        fprintf(stderr, "cuzk-bench pipeline: engine: %s: %s\n", cuzk_strerror(rc), cuzk_last_error());
        return 2;
    }
    uint64_t t0 = bench_now_ns();
    bench_part sp;
    if (bench_place_partition(e, c->tp, c->p0, c->pageable, c->abc_len, c->num_aux, c->witness, &sp)) return 2;
    double place_s = (double)(bench_now_ns() - t0) / 1e9;
    const cuzk_partition *p = &sp.p;
    cuzk_cs *cs = NULL; /* --witness: its system, loaded before the key (whose counts are its own) */
    double cs_s = 0;
    if (c->witness && load_cs(c, e, &sp.p, &cs, &cs_s)) return 2;
    uint64_t pa = bench_popcount(p->a_aux_density, p->num_aux), pba = bench_popcount(p->b_aux_density, p->num_aux);
    t0 = bench_now_ns();
    if (bench_load_key(e, c->key_path, p, c->synthetic, 0, &srs)) return 2;
    double load_s = (double)(bench_now_ns() - t0) / 1e9;
    cuzk_stats st = {.struct_size = sizeof st};
    cuzk_engine_stats(e, &st);
    bench_print_placement(srs, st.devices);
    print_host_bytes(c, &sp, &rf);
    part_freer fr = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    distinct_part *dp = NULL;
    pthread_t freer;
    if (c->distinct && (!(dp = calloc((size_t)c->parts, sizeof *dp)) || !(fr.q = calloc((size_t)c->parts, sizeof *fr.q)))) {
        fprintf(stderr, "cuzk-bench pipeline: out of memory\n");
        return 2;
    }

    /* warm-up (twiddles, scratch growth, pinned staging): one partition per worker */
    int warmup = c->warmup < 0 ? (int)st.workers : c->warmup, failures = 0;
    for (int phase = 0; phase < 2; phase++) {
        int n = phase ? c->parts : warmup;
        if (phase && c->distinct) {
            bench_part_free(e, &sp); /* the warm-up's: the key is loaded, the densities' counts taken */
            if (make_distinct(c, e, &sp.p, n, st.host_budget_bytes, &fr, dp, &rf)) return 2;
            if (pthread_create(&freer, NULL, freer_main, &fr)) {
                fprintf(stderr, "cuzk-bench pipeline: cannot start a thread\n");
                return 2;
            }
        }
        uint64_t ts = bench_now_ns();
        for (int i = 0; i < n; i++) {
            cuzk_partition q = phase && c->distinct ? dp[i].bp.p : sp.p;
            q.user_tag = phase ? (uint64_t)i + 1 : ((uint64_t)1 << 40) + (uint64_t)i;
            cuzk_witness_partition wq = {.struct_size = sizeof wq, .scalar_form = q.scalar_form, .inputs = q.inputs,
                                         .num_inputs = q.num_inputs, .aux = q.aux, .num_aux = q.num_aux,
                                         .user_tag = q.user_tag, .release = q.release,
                                         .release_user = q.release_user};
            cuzk_job h;
            while ((rc = cs ? cuzk_submit_witness(e, srs, cs, &wq, &h) : cuzk_submit_partition(e, srs, &q, &h)) ==
                   CUZK_EAGAIN)
                usleep(1000);
            if (rc) { fprintf(stderr, "cuzk-bench pipeline: submit: %s\n", cuzk_last_error()); return 2; }
        }
        for (int i = 0; i < n; i++) {
            cuzk_result r = {.struct_size = sizeof r};
            if ((rc = cuzk_poll_result(e, &r, 1800 * 1000000000ll))) {
                fprintf(stderr, "cuzk-bench pipeline: no result: %s\n", cuzk_strerror(rc));
                return 2;
            }
            if (r.status) {
                fprintf(stderr, "cuzk-bench pipeline: partition %llu: %s: %s\n", (unsigned long long)r.user_tag,
                        cuzk_strerror(r.status), r.detail);
                failures++;
            }
            if (phase) add_result(&rf, &r);
        }
        if (phase) rf.wall_ns = bench_now_ns() - ts;
        if (phase && c->distinct) { /* every release ran before its result could be polled */
            rf.rss_peak = bench_proc_bytes("/proc/self/status", "VmHWM");
            pthread_join(freer, NULL);
        }
    }
    cuzk_srs_release(srs);
    cuzk_cs_release(cs);
    bench_part_free(e, &sp); /* nothing if --distinct freed it */
    free(dp);
    free(fr.q);
    cuzk_engine_destroy(e); /* delivers the trace events still in the ring */
    cuzk_config_free(cc);

    char desc[320];
    uint64_t cons = p->abc_len - p->num_inputs;
    snprintf(desc, sizeof desc,
             "%s shape, domain 2^%d: %llu constraints, %llu inputs, %llu aux (a_aux %.1f %%, b_aux %.1f %%%s); "
             "%s key; %u device%s x %d worker%s; %s buffers%s",
             c->circ->shape->name, c->log_m, (unsigned long long)cons, (unsigned long long)p->num_inputs, (unsigned long long)p->num_aux,
             100.0 * (double)pa / (double)(p->num_aux ? p->num_aux : 1),
             100.0 * (double)pba / (double)(p->num_aux ? p->num_aux : 1), c->tile ? ", tiled from a 2^20 circuit" : "",
             c->synthetic ? "synthetic (unverifiable)" : "test-setup (every proof verified)", st.devices,
             st.devices == 1 ? "" : "s", c->workers, c->workers == 1 ? "" : "s",
             c->pageable ? "pageable" : "cuzk_host_alloc", c->witness ? "; witness-only (a, b, c evaluated by libcuzk)" : "");
    printf("pipeline: %s\n  backend %s; synth %.1f s, setup %.1f s, partition placed in %.1f s, key load %.2f s "
           "(not timed)\n", desc, st.backend == CUZK_BACKEND_CUDA ? "cuda" : "cpu", c->synth_s, c->setup_s, place_s,
           load_s);
    tv_summary sum;
    tv_analyze(&log, 1, (uint64_t)c->parts, &sum); /* the measured partitions: user_tag 1..parts */
    double dev_med = bench_median(rf.device_ms, (int)rf.nres);
    printf("  %d partitions in %.3f s: %.3f partitions/s; %d failed; %s\n", c->parts, (double)rf.wall_ns / 1e9,
           rf.wall_ns ? (double)c->parts * 1e9 / (double)rf.wall_ns : 0, failures,
           c->synthetic ? "proofs NOT verified (synthetic key)" : "every proof verified");
    printf("  median device time per partition (first -> last device stage): %.1f ms\n", dev_med);
    tv_print(stdout, &sum, "  ", 1);
    print_copies(&log, (uint64_t)c->parts);
    if (c->witness) print_cs_eval(&log, (uint64_t)c->parts);
    if (rf.distinct) print_rss(&rf, c->parts);
    char b1[512], b2[512], b3[512], b4[512];
    const char *jp = suffixed(b1, sizeof b1, c->json_path, c->workers, many),
               *tp = suffixed(b2, sizeof b2, c->trace_path, c->workers, many),
               *vp = suffixed(b3, sizeof b3, c->svg_path, c->workers, many),
               *ep = suffixed(b4, sizeof b4, c->events_path, c->workers, many);
    if (ep) tv_write_jsonl(ep, &log);
    if (jp) write_json(jp, &sum, &rf, dev_med, c->circ->shape->name, desc, c->log_m, c->parts, c->workers,
                       c->synthetic);
    if (tp) tv_write_chrome(tp, &log);
    if (vp) tv_write_svg(vp, &log, desc);
    printf("  cuzk-bench pipeline --shape %s --log %d --fill %d --partitions %d --workers %d%s%s%s%s%s%s\n",
           c->circ->shape->name, c->log_m, c->circ->fill, c->parts, c->workers, c->devices ? " --devices " : "", c->devices ? c->devices : "", c->pageable ? " --pageable" : "",
           c->synthetic && c->log_m <= 22 ? " --synthetic-key" : "", c->witness ? c->cs_stream ? " --witness --cs-stream" : " --witness" : "",
           c->distinct ? " --distinct" : "");
    fflush(stdout);
    tv_free(&log);
    free(rf.device_ms);
    return failures ? 1 : 0;
}

int bench_pipeline(int argc, char **argv)
{
    const char *shape = "porep", *workers_s = "2";
    run_cfg c = {.workers = 2, .parts = 20, .warmup = -1, .log_m = -1, .backend = CUZK_BACKEND_AUTO};
    const char *backend = "auto";
    int fill = 0;
    const bench_opt opts[] = {{"shape", BOPT_STR, &shape},          {"log", BOPT_INT, &c.log_m},
                              {"partitions", BOPT_INT, &c.parts},    {"devices", BOPT_STR, &c.devices},
                              {"workers", BOPT_STR, &workers_s},     {"backend", BOPT_STR, &backend},
                              {"trace", BOPT_STR, &c.trace_path},    {"svg", BOPT_STR, &c.svg_path},
                              {"json", BOPT_STR, &c.json_path},      {"events", BOPT_STR, &c.events_path},
                              {"fill", BOPT_INT, &fill},             {"warmup", BOPT_INT, &c.warmup},
                              {"device-memory", BOPT_DOUBLE, &c.device_gib},
                              {"pageable", BOPT_FLAG, &c.pageable},  {"synthetic-key", BOPT_FLAG, &c.synthetic},
                              {"witness", BOPT_FLAG, &c.witness},    {"cs-stream", BOPT_FLAG, &c.cs_stream},
                              {"distinct", BOPT_FLAG, &c.distinct},
                              {NULL, 0, NULL}};
    int parsed = bench_args("pipeline", PIPELINE_USAGE, PIPELINE_WHAT, argc, argv, opts);
    if (parsed >= 0) return parsed;
    if (c.parts < 1 || fill < 0 || fill > 100 || (c.cs_stream && !c.witness)) return usage();
    bench_circuit circ;
    if (bench_shape_cfg(shape, c.log_m, fill, &circ)) return usage();
    c.circ = &circ;
    int wl[16], nw = 0;
    for (const char *q = workers_s; *q && nw < 16;) {
        char *end;
        long w = strtol(q, &end, 10);
        if (end == q || w < 1 || w > 64) return usage();
        wl[nw++] = (int)w;
        q = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return usage();
    }
    if (c.log_m > 22) c.synthetic = 1;
    c.tile = c.log_m > 22;
    if ((c.backend = bench_parse_backend("pipeline", backend)) < 0) return 2;
    c.mask = c.devices ? bench_parse_devices(c.devices) : 0;
    if (c.devices && !c.mask) return usage();
#ifndef CUZK_HAVE_CUDA
    if (c.synthetic) {
        fprintf(stderr, "cuzk-bench pipeline: the synthetic key needs the CUDA backend (built without it)\n");
        return 2;
    }
#endif
    void *held[64 * TV_MAX_DEV];
    int nheld = 0;
    if (c.device_gib > 0 && bench_hold_device_memory(c.mask, c.device_gib, held, &nheld)) return 2;
    c.tp = threadpool_create(0);
    cuzk_partition p0;
    if (bench_circuit_partition(&circ, c.tp, &p0, &c.abc_len, &c.num_aux, &c.synth_s)) return 2;
    c.p0 = &p0;
    if (c.distinct) { /* before the key and the constraint system are made: minutes at 2^27 */
        uint64_t sz[BP_N], one = bench_part_layout(p0.num_inputs, c.abc_len, c.num_aux, c.witness, sz);
        char what[160], b[32];
        snprintf(what, sizeof what, "--distinct with %d partitions of %s each (%s)", c.parts, bench_bytes(b, (double)one),
                 c.witness ? "witness-only: inputs + aux" : "a, b, c + inputs + aux");
        if (bench_check_mem_available("pipeline", (uint64_t)c.parts * one, what,
                                      c.witness ? "fewer --partitions" : "fewer --partitions, or --witness")) {
            if (p0.release) p0.release(p0.release_user);
            threadpool_destroy(c.tp);
            bench_release_device_memory(held, nheld);
            return 2;
        }
    }
    /* the key: a real test-only one (cached in /tmp by shape), or generated on the device */
    c.key_path = circ.key_path;
    if (!c.synthetic && bench_shape_key(&circ, c.tp, &c.setup_s)) return 2;
    int worst = 0;
    for (int i = 0; i < nw; i++) {
        c.workers = wl[i];
        int r = run_one(&c, nw > 1);
        if (r > worst) worst = r;
    }
    if (p0.release) p0.release(p0.release_user);
    threadpool_destroy(c.tp);
    bench_release_device_memory(held, nheld);
    return worst;
}
