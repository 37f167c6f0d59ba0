/*
 * cuzk-bench mixed: a storage provider's real load on one engine. A bulk backlog (PoRep or
 * SnapDeals partitions, priority 0) is kept saturated while WinningPoSt (priority 7, the
 * daemons' CRITICAL) and WindowPoSt (priority 6, HIGH) partitions arrive at set intervals,
 * with the engine's urgent worker (CUZK_OPT_URGENT_PRIORITY) on or off. Three phases on one
 * engine: each urgent kind proven alone (its own time), the bulk backlog alone (its
 * throughput), then everything together. Prints per-kind latency p50/p99/max (submit to
 * result), bulk throughput and what the urgent work cost it, and writes the Chrome trace,
 * the SVG timeline and JSON of the mixed phase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "trace_view.h"

#define MIXED_USAGE "--log N [--bulk porep|snap] [--winning-every MS] [--winning-log N]\n" \
                    "         [--wpost-every MS] [--wpost-log N] [--seconds S] [--urgent-priority T] [--workers W]\n" \
                    "         [--depth D] [--alone K] [--backend auto|cuda|cpu] [--devices LIST] [--trace out.json]\n" \
                    "         [--svg out.svg] [--json out.json] [--device-memory GIB]"
#define MIXED_WHAT "a bulk backlog with WinningPoSt and WindowPoSt arrivals on one engine: per-kind latency, what " \
                   "the urgent work costs the bulk (see the usage on errors for every option)"

static int usage(void)
{
    fprintf(stderr,
            "usage: cuzk-bench mixed " MIXED_USAGE "\n"
            "  The bulk shape at domain 2^N (default porep) kept D partitions deep (default 2 per worker + 2);\n"
            "  a WinningPoSt partition every MS ms (default 2000; 0 = none; domain 2^(N-8), at least 2^8, or\n"
            "  --winning-log) and a WindowPoSt one every MS ms (default 5000; 0 = none; domain 2^N or\n"
            "  --wpost-log), for S seconds (default 20). T: CUZK_OPT_URGENT_PRIORITY (default 6: both PoSt\n"
            "  kinds are urgent; 0 = no urgent worker, the baseline). K: proofs of each urgent kind alone\n"
            "  first (default 5). Keys: test-only setups up to 2^22, above that synthetic (CUDA only, proofs\n"
            "  not verified); WinningPoSt's is loaded with CUZK_SRS_PIN, WindowPoSt's with CUZK_SRS_URGENT.\n"
            "  --device-memory GIB: each GPU made\n"
            "  that small first (as cuzk-bench pipeline).\n");
    return 2;
}

enum { K_BULK, K_WIN, K_WPOST, KINDS };
static const char *const kind_name[KINDS] = {"bulk", "winning", "wpost"};
static const int32_t kind_prio[KINDS] = {0, 7, 6};

typedef struct {
    bench_circuit circ;
    cuzk_partition p0;       /* synthesized (small), released at the end */
    bench_part part;         /* placed in the engine's host memory */
    cuzk_srs *srs;
    int synthetic, on;
    uint64_t every_ns;
    double own_ms, own_dev_ms; /* medians alone */
} kind_t;

typedef struct {
    double *lat_ms;          /* submit -> result, per result */
    size_t n, cap;
    double dev_ms_sum;
} lat_t;

static void lat_add(lat_t *l, double ms, double dev_ms)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        double *n = realloc(l->lat_ms, cap * sizeof *n);
        if (!n) return;
        l->lat_ms = n;
        l->cap = cap;
    }
    l->lat_ms[l->n++] = ms;
    l->dev_ms_sum += dev_ms;
}

static double pct(const double *sorted, size_t n, double q) /* nearest rank */
{
    if (!n) return 0;
    size_t k = (size_t)(q * (double)n + 0.999999);
    if (k < 1) k = 1;
    if (k > n) k = n;
    return sorted[k - 1];
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Tags: kind in bits 56..63 (+1, so 0 is never a tag), a sequence number below. The mixed
 * phase's tags are 1.. in submission order too (tv_analyze measures tags 1..seq), so the kind
 * of a tag is remembered in an array. */
typedef struct {
    cuzk_engine *e;
    kind_t *k;
    uint8_t *tag_kind;       /* kind of tag t (mixed phase) */
    size_t ntags, cap_tags;
    uint64_t seq;
    int failures;
} run_t;

static int submit_kind(run_t *r, int kind, uint64_t tag)
{
    cuzk_partition q = r->k[kind].part.p;
    q.priority = kind_prio[kind];
    q.user_tag = tag;
    cuzk_job h;
    int rc;
    while ((rc = cuzk_submit_partition(r->e, r->k[kind].srs, &q, &h)) == CUZK_EAGAIN) usleep(1000);
    if (rc) fprintf(stderr, "cuzk-bench mixed: submit %s: %s: %s\n", kind_name[kind], cuzk_strerror(rc), cuzk_last_error());
    return rc;
}

static int poll_one(run_t *r, cuzk_result *res, int64_t timeout_ns)
{
    res->struct_size = sizeof *res;
    int rc = cuzk_poll_result(r->e, res, timeout_ns);
    if (rc == CUZK_OK && res->status) {
        fprintf(stderr, "cuzk-bench mixed: partition %llx: %s\n", (unsigned long long)res->user_tag, cuzk_strerror(res->status));
        r->failures++;
    }
    return rc;
}

/* Where an urgent kind's time went in the mixed phase: per trace kind (stage), the median and
 * the largest span over its partitions — e.g. an H step that waits for the backlog's kernels. */
static void print_stages(const tv_log *log, const run_t *r, int kind)
{
    enum { NK = 32 };
    size_t cap = log->n ? log->n : 1, cnt[NK] = {0};
    double *ms[NK] = {0};
    for (size_t i = 0; i < log->n; i++) {
        const cuzk_trace_event *ev = &log->ev[i];
        if (ev->user_tag == 0 || ev->user_tag > r->seq || ev->user_tag >= r->cap_tags ||
            r->tag_kind[ev->user_tag] != kind || ev->kind <= 0 || ev->kind >= NK || ev->end_ns < ev->begin_ns)
            continue;
        if (!ms[ev->kind] && !(ms[ev->kind] = malloc(cap * sizeof(double)))) continue;
        ms[ev->kind][cnt[ev->kind]++] = (double)(ev->end_ns - ev->begin_ns) / 1e6;
    }
    printf("  %s stages in the mixed phase (median / max ms):", kind_name[kind]);
    for (int t = 0; t < NK; t++) {
        if (!cnt[t] || t == CUZK_TRACE_RESULT || t == CUZK_TRACE_SUBMIT) continue;
        qsort(ms[t], cnt[t], sizeof(double), cmp_d);
        printf(" %s %.1f/%.1f;", tv_kind_name(t), pct(ms[t], cnt[t], 0.5), ms[t][cnt[t] - 1]);
    }
    printf("\n");
    for (int t = 0; t < NK; t++) free(ms[t]);
}

/* "One stage" of the work in flight (the WindowPoSt target: p99 <= own + one stage): the
 * bulk's longest stage as it ran in the bulk-alone phase (its events from t_from on, tags
 * (K_BULK + 1) << 56 | i), the median of each stage kind, the largest of them. *kind: which. */
static double bulk_stage_ms(const tv_log *log, uint64_t t_from, uint64_t t_to, int *kind)
{
    enum { NK = CUZK_TRACE_MSM_ALL + 1 };
    size_t cnt[NK] = {0};
    double *ms[NK] = {0}, best = 0;
    *kind = 0;
    for (size_t i = 0; i < log->n; i++) {
        const cuzk_trace_event *ev = &log->ev[i];
        if (ev->user_tag >> 56 != K_BULK + 1 || ev->user_tag & (1u << 20) || ev->begin_ns < t_from ||
            ev->end_ns > t_to || ev->end_ns < ev->begin_ns || ev->kind < CUZK_TRACE_NTT_INTT || ev->kind >= NK)
            continue;
        if (!ms[ev->kind] && !(ms[ev->kind] = malloc(log->n * sizeof(double)))) continue;
        ms[ev->kind][cnt[ev->kind]++] = (double)(ev->end_ns - ev->begin_ns) / 1e6;
    }
    for (int t = 0; t < NK; t++) {
        if (!cnt[t]) continue;
        qsort(ms[t], cnt[t], sizeof(double), cmp_d);
        const double med = pct(ms[t], cnt[t], 0.5);
        if (med > best) best = med, *kind = t;
        free(ms[t]);
    }
    return best;
}

/* Phase 1: each urgent kind alone, K times one after another: its own time. */
/* A line on stderr per step, with the seconds since the bench began: a run cut short (a
 * device call's time limit) still shows how far it got; stdout keeps the report. */
static uint64_t t_start;
static void progress(const char *what, const char *detail)
{
    fprintf(stderr, "cuzk-bench mixed: +%.1f s: %s%s%s\n", (double)(bench_now_ns() - t_start) / 1e9, what,
            detail ? " " : "", detail ? detail : "");
}

static int phase_alone(run_t *r, int reps)
{
    for (int kind = K_WIN; kind < KINDS; kind++) {
        if (!r->k[kind].on) continue;
        progress("alone:", kind_name[kind]);
        double *t = calloc((size_t)reps + 1, sizeof *t), *d = calloc((size_t)reps + 1, sizeof *d);
        for (int i = 0; i <= reps; i++) { /* the first one warms up */
            if (submit_kind(r, kind, ((uint64_t)kind + 1) << 56 | (uint64_t)i)) return 2;
            cuzk_result res;
            if (poll_one(r, &res, -1)) return 2;
            if (i) t[i - 1] = (double)res.total_ns / 1e6, d[i - 1] = (double)res.device_ns / 1e6;
        }
        r->k[kind].own_ms = bench_median(t, reps);
        r->k[kind].own_dev_ms = bench_median(d, reps);
        free(t);
        free(d);
    }
    return 0;
}

/* Phases 2 and 3: the bulk backlog kept `depth` deep for `secs`, with (mixed) or without the
 * urgent arrivals; bulk results posted inside the window count for the throughput. Drains
 * everything before it returns. */
static int phase_load(run_t *r, int mixed, int depth, double secs, double *bulk_per_s, lat_t lat[KINDS])
{
    uint64_t t0 = bench_now_ns(), t_end = t0 + (uint64_t)(secs * 1e9), next[KINDS] = {0};
    for (int k = K_WIN; k < KINDS; k++) next[k] = t0 + r->k[k].every_ns / 2; /* staggered from the bulk's start */
    int outstanding = 0;
    uint64_t bulk_done = 0;
    for (int i = 0; i < depth; i++, outstanding++) {
        uint64_t tag = mixed ? ++r->seq : ((uint64_t)K_BULK + 1) << 56 | (uint64_t)i;
        if (mixed) r->tag_kind[tag] = K_BULK;
        if (submit_kind(r, K_BULK, tag)) return 2;
    }
    for (;;) {
        uint64_t now = bench_now_ns();
        int open = now < t_end;
        if (!open && !outstanding) break;
        for (int k = K_WIN; open && mixed && k < KINDS; k++)
            if (r->k[k].on && now >= next[k]) {
                uint64_t tag = ++r->seq;
                r->tag_kind[tag] = (uint8_t)k;
                if (submit_kind(r, k, tag)) return 2;
                outstanding++;
                next[k] += r->k[k].every_ns;
            }
        uint64_t wake = t_end;
        for (int k = K_WIN; mixed && k < KINDS; k++)
            if (r->k[k].on && next[k] < wake) wake = next[k];
        int64_t timeout = open ? (int64_t)(wake > now ? wake - now : 0) : 1000000000ll;
        cuzk_result res;
        int rc = poll_one(r, &res, timeout ? timeout : 1);
        if (rc == CUZK_EAGAIN) continue;
        if (rc) return 2;
        outstanding--;
        int kind = mixed ? r->tag_kind[res.user_tag] : (int)(res.user_tag >> 56) - 1;
        uint64_t posted = bench_now_ns(); /* the poll returns at once: results are waited for */
        if (kind == K_BULK && posted <= t_end) bulk_done++;
        if (lat) lat_add(&lat[kind], (double)res.total_ns / 1e6, (double)res.device_ns / 1e6);
        if (kind == K_BULK && open) { /* keep the backlog saturated */
            uint64_t tag = mixed ? ++r->seq : ((uint64_t)K_BULK + 1) << 56 | (bulk_done + (uint64_t)depth);
            if (mixed) r->tag_kind[tag] = K_BULK;
            if (submit_kind(r, K_BULK, tag)) return 2;
            outstanding++;
        }
        if (mixed && r->seq + 4 >= r->cap_tags) {
            fprintf(stderr, "cuzk-bench mixed: more than %zu partitions: shorten --seconds\n", r->cap_tags);
            return 2;
        }
    }
    *bulk_per_s = (double)bulk_done / secs;
    return 0;
}

static int prepare_kind(kind_t *k, cuzk_engine *e, threadpool *tp, uint32_t flags)
{
    char what[64];
    snprintf(what, sizeof what, "2^%d (partition, key, load)", k->circ.log_m);
    progress("preparing", what);
    uint64_t abc_len, num_aux;
    double synth_s, setup_s;
    if (bench_circuit_partition(&k->circ, tp, &k->p0, &abc_len, &num_aux, &synth_s)) return 2;
    k->synthetic = k->circ.log_m > 22;
    if (!k->synthetic && bench_shape_key(&k->circ, tp, &setup_s)) return 2;
    if (bench_place_partition(e, tp, &k->p0, 0, abc_len, num_aux, 0, &k->part)) return 2;
    return bench_load_key(e, k->circ.key_path, &k->part.p, k->synthetic, flags, &k->srs);
}

int bench_mixed(int argc, char **argv)
{
    const char *bulk = "porep", *backend = "auto", *devices = NULL, *trace_path = NULL, *svg_path = NULL,
               *json_path = NULL;
    t_start = bench_now_ns();
    int log_m = -1, win_log = -1, wpost_log = -1, urgent = 6, workers = 2, depth = -1, alone = 5;
    double win_every = 2000, wpost_every = 5000, secs = 20, device_gib = 0;
    const bench_opt opts[] = {{"log", BOPT_INT, &log_m},                {"bulk", BOPT_STR, &bulk},
                              {"winning-every", BOPT_DOUBLE, &win_every}, {"winning-log", BOPT_INT, &win_log},
                              {"wpost-every", BOPT_DOUBLE, &wpost_every}, {"wpost-log", BOPT_INT, &wpost_log},
                              {"seconds", BOPT_DOUBLE, &secs},           {"urgent-priority", BOPT_INT, &urgent},
                              {"workers", BOPT_INT, &workers},           {"depth", BOPT_INT, &depth},
                              {"alone", BOPT_INT, &alone},               {"backend", BOPT_STR, &backend},
                              {"devices", BOPT_STR, &devices},           {"trace", BOPT_STR, &trace_path},
                              {"svg", BOPT_STR, &svg_path},              {"json", BOPT_STR, &json_path},
                              {"device-memory", BOPT_DOUBLE, &device_gib}, {NULL, 0, NULL}};
    int parsed = bench_args("mixed", MIXED_USAGE, MIXED_WHAT, argc, argv, opts);
    if (parsed >= 0) return parsed;
    if (strcmp(bulk, "porep") && strcmp(bulk, "snap")) return usage();
    if (win_log < 0) win_log = log_m - 8 < 8 ? 8 : log_m - 8;
    if (wpost_log < 0) wpost_log = log_m;
    if (secs <= 0 || win_every < 0 || wpost_every < 0 || urgent < 0 || urgent > 7 || workers < 1 || alone < 1)
        return usage();
    if (depth < 0) depth = 2 * workers + 2;
    kind_t k[KINDS];
    memset(k, 0, sizeof k);
    if (bench_shape_cfg(bulk, log_m, 0, &k[K_BULK].circ) || bench_shape_cfg("winning", win_log, 0, &k[K_WIN].circ) ||
        bench_shape_cfg("wpost", wpost_log, 0, &k[K_WPOST].circ))
        return usage();
    k[K_BULK].on = 1;
    k[K_WIN].on = win_every > 0, k[K_WIN].every_ns = (uint64_t)(win_every * 1e6);
    k[K_WPOST].on = wpost_every > 0, k[K_WPOST].every_ns = (uint64_t)(wpost_every * 1e6);
    int32_t be = bench_parse_backend("mixed", backend);
    if (be < 0) return 2;
    uint64_t mask = devices ? bench_parse_devices(devices) : 0;
    if (devices && !mask) return usage();
    int any_synthetic = 0;
    for (int i = 0; i < KINDS; i++) any_synthetic |= k[i].on && k[i].circ.log_m > 22;

    void *held[64 * TV_MAX_DEV];
    int nheld = 0;
    if (device_gib > 0 && bench_hold_device_memory(mask, device_gib, held, &nheld)) return 2;
    tv_log log = {0};
    cuzk_config *cc = NULL;
    cuzk_engine *e = NULL;
    int rc;
    if ((rc = cuzk_config_new(&cc)) || (rc = cuzk_config_set(cc, CUZK_OPT_BACKEND, be)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_DEVICE_MASK, (int64_t)mask)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_WORKERS_PER_DEVICE, workers)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_URGENT_PRIORITY, urgent)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_VERIFY, !any_synthetic)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_TRACE_CAPACITY, 1 << 20)) ||
        (rc = cuzk_config_set_trace(cc, tv_collect, &log)) || (rc = cuzk_engine_create(cc, &e))) {
        fprintf(stderr, "cuzk-bench mixed: engine: %s: %s\n", cuzk_strerror(rc), cuzk_last_error());
        return 2;
    }
    threadpool *tp = threadpool_create(0);
    for (int i = 0; i < KINDS; i++)
        if (k[i].on && prepare_kind(&k[i], e, tp, i == K_WIN ? CUZK_SRS_PIN : i == K_WPOST ? CUZK_SRS_URGENT : 0)) return 2;
    cuzk_stats st = {.struct_size = sizeof st};
    cuzk_engine_stats(e, &st);
    for (int i = 0; i < KINDS; i++)
        if (k[i].on) {
            printf("%s key (2^%d):\n", kind_name[i], k[i].circ.log_m);
            bench_print_placement(k[i].srs, st.devices);
        }

    run_t r = {.e = e, .k = k, .cap_tags = 1 << 20};
    r.tag_kind = calloc(r.cap_tags, 1);
    lat_t lat[KINDS];
    memset(lat, 0, sizeof lat);
    double bulk_alone = 0, bulk_mixed = 0;
    progress("warm-up", NULL);
    /* warm-up: the bulk once per worker, then each urgent kind alone */
    for (int i = 0; i < (int)st.workers; i++)
        if (submit_kind(&r, K_BULK, ((uint64_t)K_BULK + 1) << 56 | (1u << 20) | (uint64_t)i)) return 2;
    for (int i = 0; i < (int)st.workers; i++) {
        cuzk_result res;
        if (poll_one(&r, &res, -1)) return 2;
    }
    if (phase_alone(&r, alone)) return 2;
    progress("the bulk alone", NULL);
    const uint64_t t_bulk = bench_now_ns();
    if (phase_load(&r, 0, depth, secs, &bulk_alone, NULL)) return 2;
    progress("mixed", NULL);
    uint64_t t_mixed = bench_now_ns();
    if (phase_load(&r, 1, depth, secs, &bulk_mixed, lat)) return 2;
    progress("report", NULL);
    for (int i = 0; i < KINDS; i++)
        if (k[i].on) cuzk_srs_release(k[i].srs);
    for (int i = 0; i < KINDS; i++)
        if (k[i].on) bench_part_free(e, &k[i].part);
    cuzk_engine_destroy(e); /* every trace event is delivered now */
    cuzk_config_free(cc);
    int stage_kind = 0;
    const double stage_ms = bulk_stage_ms(&log, t_bulk, t_mixed, &stage_kind);
    size_t kept = 0; /* the trace of the mixed phase only: its partitions and the engine's own events */
    for (size_t i = 0; i < log.n; i++)
        if (log.ev[i].end_ns >= t_mixed && log.ev[i].user_tag <= r.seq) log.ev[kept++] = log.ev[i];
    log.n = kept;

    /* the report */
    char desc[512];
    snprintf(desc, sizeof desc,
             "bulk %s 2^%d (%d deep) + winning 2^%d every %.0f ms + wpost 2^%d every %.0f ms; urgent priority %d; "
             "%s backend, %u device%s x (%d worker%s + %d urgent); %s keys",
             bulk, log_m, depth, win_log, win_every, wpost_log, wpost_every, urgent,
             st.backend == CUZK_BACKEND_CUDA ? "cuda" : "cpu", st.devices, st.devices == 1 ? "" : "s", workers,
             workers == 1 ? "" : "s", urgent ? 8 - urgent : 0, any_synthetic ? "synthetic (unverified)" : "test-setup (verified)");
    printf("mixed: %s\n  %g s per phase on %s\n", desc, secs, bench_cpu_name());
    double urgent_dev_ms = 0;
    printf("  %-8s %6s %10s %10s %10s %10s %10s %12s\n", "kind", "count", "own ms", "p50 ms", "p99 ms", "max ms",
           "p99-own", "own dev ms");
    for (int i = 0; i < KINDS; i++) {
        if (!k[i].on || !lat[i].n) continue;
        qsort(lat[i].lat_ms, lat[i].n, sizeof(double), cmp_d);
        double p99 = pct(lat[i].lat_ms, lat[i].n, 0.99);
        if (i != K_BULK) urgent_dev_ms += (double)lat[i].n * k[i].own_dev_ms;
        if (i == K_BULK)
            printf("  %-8s %6zu %10s %10.1f %10.1f %10.1f %10s %12s\n", kind_name[i], lat[i].n, "-",
                   pct(lat[i].lat_ms, lat[i].n, 0.5), p99, lat[i].lat_ms[lat[i].n - 1], "-", "-");
        else
            printf("  %-8s %6zu %10.1f %10.1f %10.1f %10.1f %10.1f %12.1f\n", kind_name[i], lat[i].n, k[i].own_ms,
                   pct(lat[i].lat_ms, lat[i].n, 0.5), p99, lat[i].lat_ms[lat[i].n - 1], p99 - k[i].own_ms,
                   k[i].own_dev_ms);
    }
    double loss = bulk_alone > 0 ? 100.0 * (1.0 - bulk_mixed / bulk_alone) : 0;
    double share = 100.0 * urgent_dev_ms / (secs * 1e3 * (st.devices ? st.devices : 1));
    printf("  bulk throughput: %.3f partitions/s alone, %.3f with the urgent work: %.1f %% lower; the urgent work's "
           "own device time is %.1f %% of the window, so the cost beyond it is %+.1f %%\n",
           bulk_alone, bulk_mixed, loss, share, loss - share);
    if (stage_kind) {
        printf("  one stage of the bulk in flight (its longest alone, median): %s %.1f ms;", tv_kind_name(stage_kind),
               stage_ms);
        for (int i = K_WIN; i < KINDS; i++)
            if (k[i].on && lat[i].n)
                printf(" %s p99 - own %.1f ms (%s one stage);", kind_name[i],
                       pct(lat[i].lat_ms, lat[i].n, 0.99) - k[i].own_ms,
                       pct(lat[i].lat_ms, lat[i].n, 0.99) - k[i].own_ms <= stage_ms ? "within" : "beyond");
        printf("\n");
    }
    if (r.failures) printf("  %d partitions FAILED\n", r.failures);
    for (int i = 0; i < KINDS; i++)
        if (i != K_BULK && k[i].on && lat[i].n) print_stages(&log, &r, i);
    tv_summary sum;
    tv_analyze(&log, 1, r.seq, &sum);
    for (int d = 0; d < sum.ndev; d++)
        printf("  device %d (mixed phase): busy %.2f %%, gaps between partitions p50 %.3f ms, p99 %.3f ms\n", sum.dev[d],
               sum.busy_pct[d], sum.gap_p50_ms[d], sum.gap_p99_ms[d]);
    if (trace_path) tv_write_chrome(trace_path, &log);
    if (svg_path) tv_write_svg(svg_path, &log, desc);
    if (json_path) {
        FILE *f = fopen(json_path, "w");
        if (f) {
            fprintf(f, "{\"bench\":\"mixed\",\"desc\":\"%s\",\"seconds\":%.1f,\"bulk_alone_per_s\":%.4f,"
                       "\"bulk_mixed_per_s\":%.4f,\"bulk_loss_pct\":%.2f,\"urgent_device_share_pct\":%.2f,"
                       "\"bulk_stage_ms\":%.3f,\"kinds\":[",
                    desc, secs, bulk_alone, bulk_mixed, loss, share, stage_ms);
            int first = 1;
            for (int i = 0; i < KINDS; i++) {
                if (!k[i].on || !lat[i].n) continue;
                fprintf(f, "%s{\"kind\":\"%s\",\"log_m\":%d,\"count\":%zu,\"own_ms\":%.3f,\"own_device_ms\":%.3f,"
                           "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f}",
                        first ? "" : ",", kind_name[i], k[i].circ.log_m, lat[i].n, k[i].own_ms, k[i].own_dev_ms,
                        pct(lat[i].lat_ms, lat[i].n, 0.5), pct(lat[i].lat_ms, lat[i].n, 0.99),
                        lat[i].lat_ms[lat[i].n - 1]);
                first = 0;
            }
            fprintf(f, "]}\n");
            fclose(f);
        }
    }
    printf("  cuzk-bench mixed --bulk %s --log %d --winning-every %.0f --winning-log %d --wpost-every %.0f --wpost-log %d "
           "--seconds %g --urgent-priority %d --workers %d --depth %d --backend %s%s%s",
           bulk, log_m, win_every, win_log, wpost_every, wpost_log, secs, urgent, workers, depth, backend,
           devices ? " --devices " : "", devices ? devices : "");
    if (device_gib > 0) printf(" --device-memory %g", device_gib);
    printf("\n");
    for (int i = 0; i < KINDS; i++) {
        free(lat[i].lat_ms);
        if (k[i].on && k[i].p0.release) k[i].p0.release(k[i].p0.release_user);
    }
    free(r.tag_kind);
    tv_free(&log);
    threadpool_destroy(tp);
    bench_release_device_memory(held, nheld);
    return r.failures ? 1 : 0;
}
