/*
 * cuzk-bench pipeline: a backlog of PoRep-shaped partitions through the public API (engine,
 * trace callback); prints device busy %, gaps between consecutive partitions on a device,
 * per-stage medians and partitions/s; writes a Chrome trace (Perfetto) and an SVG timeline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "engine/engine.h"
#include "trace_view.h"
#ifdef CUZK_HAVE_CUDA
#include "cuda_util.h"
#endif
#include "groth16/groth16.h"
#include "groth16/synth.h"

#ifdef CUZK_HAVE_CUDA
#endif

/* What the trace does not say: the results' device time and the measured partitions' wall time. */
typedef struct {
    double *device_ms; /* per measured result: cuzk_result.device_ns in ms */
    size_t nres;
    uint64_t wall_ns;  /* first submit -> last result of the measured partitions */
} run_figures;

static void add_result(run_figures *rf, const cuzk_result *r)
{
    double *n = realloc(rf->device_ms, (rf->nres + 1) * sizeof *n);
    if (!n) return;
    rf->device_ms = n;
    rf->device_ms[rf->nres++] = (double)r->device_ns / 1e6;
}

static int write_json(const char *path, const tv_summary *s, const run_figures *rf, double dev_med, const char *desc,
                      int log_m, int parts, int workers, int synthetic)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "{\"bench\":\"pipeline\",\"shape\":\"porep\",\"log_m\":%d,\"partitions\":%d,\"workers\":%d,"
               "\"verified\":%s,\"desc\":\"%s\",\"partitions_per_s\":%.4f,\"device_ms_median\":%.3f,\"devices\":[",
            log_m, parts, workers, synthetic ? "false" : "true", desc,
            rf->wall_ns ? (double)parts * 1e9 / (double)rf->wall_ns : 0, dev_med);
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
    fprintf(f, "}}\n");
    return fclose(f);
}

#define PIPELINE_USAGE "--shape porep --log N --partitions P [--devices LIST] [--workers W]\n" \
                       "         [--backend auto|cuda|cpu] [--trace out.json] [--svg out.svg] [--json out.json]\n" \
                       "         [--events out.jsonl] [--fill PCT] [--pageable] [--synthetic-key] [--warmup K]\n" \
                       "         [--device-memory GIB]"
#define PIPELINE_WHAT "a backlog of partitions through the engine: busy %, gaps, stage medians, a Chrome trace, an " \
                      "SVG timeline, the events as JSON Lines (for cuzk trace)"

static int usage(void)
{
    fprintf(stderr,
            "usage: cuzk-bench pipeline " PIPELINE_USAGE "\n"
            "  N <= 22: a real test-only key, every proof verified; N > 22 (or --synthetic-key): a key of\n"
            "  random valid points generated on the device, proofs not verifiable (self-check off).\n"
            "  The partition's buffers live in cuzk_host_alloc memory (pinned on CUDA) unless --pageable.\n"
            "  --device-memory GIB: make each GPU that small first (hold the rest of its memory), so the\n"
            "  key is placed as on a card of that size (resident, partial or streamed).\n");
    return 2;
}

typedef struct {
    uint8_t *block;     /* one cuzk_host_alloc (or malloc) block holding every buffer */
    cuzk_partition p;   /* points into block */
} shared_part;

static void no_release(void *u) { (void)u; }

typedef struct {
    const cuzk_partition *src;
    cuzk_fr *a, *b, *c, *aux;
    uint64_t *a_dens, *b_dens;
    uint64_t abc_len, num_aux;
} tile_job;

#define TILE_CHUNK ((uint64_t)1 << 20) /* a multiple of 64 */

/* Element i of the big partition is element i mod n of the small one (a/b/c after the
 * inputs' rows keep the inputs' rows in front; aux and its densities cycle likewise). */
static void tile_chunk(void *arg, size_t ci)
{
    const tile_job *j = arg;
    const cuzk_partition *s = j->src;
    uint64_t lo = ci * TILE_CHUNK;
    for (uint64_t i = lo; i < lo + TILE_CHUNK && i < j->abc_len; i++) {
        uint64_t k = i < s->abc_len ? i : s->num_inputs + (i - s->num_inputs) % (s->abc_len - s->num_inputs);
        j->a[i] = s->a[k], j->b[i] = s->b[k], j->c[i] = s->c[k];
    }
    for (uint64_t i = lo; i < lo + TILE_CHUNK && i < j->num_aux; i++) {
        uint64_t k = i % s->num_aux, bit = (uint64_t)1 << (i % 64);
        j->aux[i] = s->aux[k];
        if (i % 64 == 0) j->a_dens[i / 64] = j->b_dens[i / 64] = 0;
        if (s->a_aux_density[k / 64] >> (k % 64) & 1) j->a_dens[i / 64] |= bit;
        if (s->b_aux_density[k / 64] >> (k % 64) & 1) j->b_dens[i / 64] |= bit;
    }
}

/* Copies synth's partition into one block from cuzk_host_alloc (pinned on CUDA) or malloc;
 * abc_len/num_aux larger than the source's tile it up to that size (same shape and value mix,
 * not a satisfied circuit: for the synthetic key only). */
static int place_partition(cuzk_engine *e, threadpool *tp, const cuzk_partition *src, int pageable,
                           uint64_t abc_len, uint64_t num_aux, shared_part *out)
{
    uint64_t fr = sizeof(cuzk_fr), wi = (src->num_inputs + 63) / 64, wa = (num_aux + 63) / 64;
    size_t sz[6] = {abc_len * fr, abc_len * fr, abc_len * fr, src->num_inputs * fr, num_aux * fr, (wi + 2 * wa) * 8};
    size_t total = 0;
    for (int i = 0; i < 6; i++) total += (sz[i] + 63) & ~(size_t)63;
    void *blk = NULL;
    if (pageable) blk = malloc(total);
    else if (cuzk_host_alloc(e, total, &blk)) blk = NULL;
    if (!blk) {
        fprintf(stderr, "cuzk-bench pipeline: cannot allocate %zu bytes for the partition: %s\n", total,
                cuzk_last_error());
        return 2;
    }
    uint8_t *q = blk;
    void *to[6];
    for (int i = 0; i < 6; i++) {
        to[i] = q;
        q += (sz[i] + 63) & ~(size_t)63;
    }
    uint64_t *dens = to[5];
    memcpy(to[3], src->inputs, sz[3]);
    memcpy(dens, src->b_input_density, wi * 8);
    tile_job j = {src, to[0], to[1], to[2], to[4], dens + wi, dens + wi + wa, abc_len, num_aux};
    uint64_t big = abc_len > num_aux ? abc_len : num_aux;
    threadpool_parallel_for(tp, (big + TILE_CHUNK - 1) / TILE_CHUNK, tile_chunk, &j);
    out->block = blk;
    out->p = *src;
    out->p.abc_len = abc_len, out->p.num_aux = num_aux;
    out->p.a = to[0], out->p.b = to[1], out->p.c = to[2], out->p.inputs = to[3], out->p.aux = to[4];
    out->p.b_input_density = dens, out->p.a_aux_density = dens + wi, out->p.b_aux_density = dens + wi + wa;
    out->p.release = no_release;
    out->p.release_user = NULL;
    out->p.r = out->p.s = NULL;
    return 0;
}

static uint64_t popcount_bits(const uint64_t *d, uint64_t n)
{
    uint64_t c = 0;
    for (uint64_t i = 0; i < n; i++) c += (d[i / 64] >> (i % 64)) & 1;
    return c;
}

static uint64_t parse_devices(const char *s)
{
    uint64_t mask = 0;
    while (*s) {
        char *end;
        long d = strtol(s, &end, 10);
        if (end == s || d < 0 || d > 63) return 0;
        mask |= (uint64_t)1 << d;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return 0;
    }
    return mask;
}

typedef struct {
    int log_m, parts, workers, pageable, synthetic, warmup, tile;
    int32_t backend;
    uint64_t mask, abc_len, num_aux;
    const char *key_path, *trace_path, *svg_path, *json_path, *events_path, *devices;
    const cuzk_partition *p0;
    threadpool *tp;
    double synth_s, setup_s;
    double device_gib;   /* --device-memory: hold the rest of each device first (0 = no) */
} run_cfg;

/* out.json -> out-w2.json when several worker counts run */
static const char *suffixed(char *buf, size_t len, const char *path, int workers, int many)
{
    if (!path || !many) return path;
    const char *dot = strrchr(path, '.');
    size_t stem = dot ? (size_t)(dot - path) : strlen(path);
    snprintf(buf, len, "%.*s-w%d%s", (int)stem, path, workers, dot ? dot : "");
    return buf;
}

/* --device-memory: makes each device in use really that small before any engine starts, by
 * allocating and holding the rest of its free memory, so the placement cannot see more. */
static int hold_device_memory(const run_cfg *c, void **held, int *nheld)
{
#ifdef CUZK_HAVE_CUDA
    int n = gpu_device_count();
    for (int d = 0; d < n && d < TV_MAX_DEV; d++) {
        if (c->mask && !(c->mask >> d & 1)) continue;
        size_t fr = 0, total = 0;
        if (gpu_set_device(d) || gpu_mem_info(&fr, &total)) return 2;
        uint64_t want = (uint64_t)(c->device_gib * (double)(1ull << 30)), chunk = (uint64_t)4 << 30;
        while (fr > want + (64ull << 20) && *nheld < 64 * TV_MAX_DEV) {
            uint64_t take = fr - want < chunk ? fr - want : chunk;
            if (gpu_malloc(&held[*nheld], take)) break;
            (*nheld)++;
            if (gpu_mem_info(&fr, &total)) return 2;
        }
        printf("device %d made small: %.2f GiB free of %.2f GiB (held the rest before the engine starts)\n", d,
               (double)fr / (double)(1ull << 30), (double)total / (double)(1ull << 30));
    }
    return 0;
#else
    (void)held, (void)nheld;
    fprintf(stderr, "cuzk-bench pipeline: --device-memory %.1f needs a CUDA build\n", c->device_gib);
    return 2;
#endif
}

static void print_placement(cuzk_srs *srs, uint32_t devices)
{
    static const char *vec[5] = {"H", "L", "A", "B_G1", "B_G2"};
    for (uint32_t d = 0; d < (devices ? devices : 1); d++) {
        cuzk_placement pl = {.struct_size = sizeof pl};
        if (cuzk_srs_placement(srs, d, &pl)) continue;
        if (pl.kind == CUZK_PLACEMENT_HOST) return;
        printf("  placement on device %d: %s, %s slots x%u of %.2f GiB (budget %.2f GiB); resident %.2f GiB, "
               "streamed %.2f GiB, pinned host %.2f GiB;",
               pl.device, pl.kind == CUZK_PLACEMENT_RESIDENT ? "resident" : pl.kind == CUZK_PLACEMENT_PARTIAL ? "partial"
                                                                                                            : "streamed",
               pl.working_set == CUZK_WORKING_SET_FULL ? "full" : "lean", pl.slots, (double)pl.slot_bytes / (1 << 30),
               (double)pl.device_budget_bytes / (1 << 30), (double)pl.resident_bytes / (1 << 30),
               (double)pl.streamed_bytes / (1 << 30), (double)pl.pinned_host_bytes / (1 << 30));
        for (int v = 0; v < 5; v++)
            printf(" %s %.2f/%.2f", vec[v], (double)pl.vector_resident_bytes[v] / (1 << 30),
                   (double)pl.vector_bytes[v] / (1 << 30));
        printf(" GiB resident\n");
    }
}

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
    shared_part sp;
    if (place_partition(e, c->tp, c->p0, c->pageable, c->abc_len, c->num_aux, &sp)) return 2;
    double place_s = (double)(bench_now_ns() - t0) / 1e9;
    const cuzk_partition *p = &sp.p;
    uint64_t pa = popcount_bits(p->a_aux_density, p->num_aux), pbi = popcount_bits(p->b_input_density, p->num_inputs),
             pba = popcount_bits(p->b_aux_density, p->num_aux);
    groth16_params shape_pk = {0};
    if (c->synthetic) {
        unsigned lm = 0;
        while (((uint64_t)1 << lm) < p->abc_len) lm++;
        shape_pk.vk.alpha_g1 = shape_pk.vk.beta_g1 = shape_pk.vk.delta_g1 = G1_GENERATOR;
        shape_pk.vk.beta_g2 = shape_pk.vk.gamma_g2 = shape_pk.vk.delta_g2 = G2_GENERATOR;
        shape_pk.vk.n_ic = (uint32_t)p->num_inputs;
        shape_pk.n_h = (uint32_t)(((uint64_t)1 << lm) - 1);
        shape_pk.n_l = (uint32_t)p->num_aux;
        shape_pk.n_a = (uint32_t)(p->num_inputs + pa);
        shape_pk.n_b_g1 = shape_pk.n_b_g2 = (uint32_t)(pbi + pba);
    }
    t0 = bench_now_ns();
    rc = c->synthetic ? engine_srs_load_synthetic(e, &shape_pk, &srs) : cuzk_srs_load(e, c->key_path, 0, &srs);
    if (rc) { fprintf(stderr, "cuzk-bench pipeline: key: %s: %s\n", cuzk_strerror(rc), cuzk_last_error()); return 2; }
    double load_s = (double)(bench_now_ns() - t0) / 1e9;
    cuzk_stats st = {.struct_size = sizeof st};
    cuzk_engine_stats(e, &st);
    print_placement(srs, st.devices);

    /* warm-up (twiddles, scratch growth, pinned staging): one partition per worker */
    int warmup = c->warmup < 0 ? (int)st.workers : c->warmup, failures = 0;
    for (int phase = 0; phase < 2; phase++) {
        int n = phase ? c->parts : warmup;
        uint64_t ts = bench_now_ns();
        for (int i = 0; i < n; i++) {
            cuzk_partition q = sp.p;
            q.user_tag = phase ? (uint64_t)i + 1 : ((uint64_t)1 << 40) + (uint64_t)i;
            cuzk_job h;
            while ((rc = cuzk_submit_partition(e, srs, &q, &h)) == CUZK_EAGAIN) usleep(1000);
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
    }
    cuzk_srs_release(srs);
    if (c->pageable) free(sp.block);
    else cuzk_host_free(e, sp.block);
    cuzk_engine_destroy(e); /* delivers the trace events still in the ring */
    cuzk_config_free(cc);

    char desc[320];
    uint64_t cons = p->abc_len - p->num_inputs;
    snprintf(desc, sizeof desc,
             "PoRep shape, domain 2^%d: %llu constraints, %llu inputs, %llu aux (a_aux %.1f %%, b_aux %.1f %%%s); "
             "%s key; %u device%s x %d worker%s; %s buffers",
             c->log_m, (unsigned long long)cons, (unsigned long long)p->num_inputs, (unsigned long long)p->num_aux,
             100.0 * (double)pa / (double)(p->num_aux ? p->num_aux : 1),
             100.0 * (double)pba / (double)(p->num_aux ? p->num_aux : 1), c->tile ? ", tiled from a 2^20 circuit" : "",
             c->synthetic ? "synthetic (unverifiable)" : "test-setup (every proof verified)", st.devices,
             st.devices == 1 ? "" : "s", c->workers, c->workers == 1 ? "" : "s",
             c->pageable ? "pageable" : "cuzk_host_alloc");
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
    char b1[512], b2[512], b3[512], b4[512];
    const char *jp = suffixed(b1, sizeof b1, c->json_path, c->workers, many),
               *tp = suffixed(b2, sizeof b2, c->trace_path, c->workers, many),
               *vp = suffixed(b3, sizeof b3, c->svg_path, c->workers, many),
               *ep = suffixed(b4, sizeof b4, c->events_path, c->workers, many);
    if (ep) tv_write_jsonl(ep, &log);
    if (jp) write_json(jp, &sum, &rf, dev_med, desc, c->log_m, c->parts, c->workers, c->synthetic);
    if (tp) tv_write_chrome(tp, &log);
    if (vp) tv_write_svg(vp, &log, desc);
    printf("  cuzk-bench pipeline --shape porep --log %d --partitions %d --workers %d%s%s%s%s\n", c->log_m, c->parts,
           c->workers, c->devices ? " --devices " : "", c->devices ? c->devices : "", c->pageable ? " --pageable" : "",
           c->synthetic && c->log_m <= 22 ? " --synthetic-key" : "");
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
    int fill = 97;
    const bench_opt opts[] = {{"shape", BOPT_STR, &shape},          {"log", BOPT_INT, &c.log_m},
                              {"partitions", BOPT_INT, &c.parts},    {"devices", BOPT_STR, &c.devices},
                              {"workers", BOPT_STR, &workers_s},     {"backend", BOPT_STR, &backend},
                              {"trace", BOPT_STR, &c.trace_path},    {"svg", BOPT_STR, &c.svg_path},
                              {"json", BOPT_STR, &c.json_path},      {"events", BOPT_STR, &c.events_path},
                              {"fill", BOPT_INT, &fill},             {"warmup", BOPT_INT, &c.warmup},
                              {"device-memory", BOPT_DOUBLE, &c.device_gib},
                              {"pageable", BOPT_FLAG, &c.pageable},  {"synthetic-key", BOPT_FLAG, &c.synthetic},
                              {NULL, 0, NULL}};
    int parsed = bench_args("pipeline", PIPELINE_USAGE, PIPELINE_WHAT, argc, argv, opts);
    if (parsed >= 0) return parsed;
    if (c.log_m < 4 || c.log_m > 28 || c.parts < 1 || fill < 1 || fill > 100 || strcmp(shape, "porep")) return usage();
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
    c.backend = !strcmp(backend, "cuda") ? CUZK_BACKEND_CUDA : !strcmp(backend, "cpu") ? CUZK_BACKEND_CPU
                                                                                     : CUZK_BACKEND_AUTO;
    c.mask = c.devices ? parse_devices(c.devices) : 0;
    if (c.devices && !c.mask) return usage();
#ifndef CUZK_HAVE_CUDA
    if (c.synthetic) {
        fprintf(stderr, "cuzk-bench pipeline: the synthetic key needs the CUDA backend (built without it)\n");
        return 2;
    }
#endif
    /* the circuit: constraints + inputs fill `fill` % of the domain (as bench prove); above
     * 2^22 a 2^20 circuit is synthesized and tiled up (synthesis is single-threaded) */
    c.tile = c.log_m > 22;
    int syn_log = c.tile ? 20 : c.log_m;
    uint64_t m = (uint64_t)1 << syn_log, target = m * (uint64_t)fill / 100, cons = target;
    uint64_t pub = cons / 32 < 327 ? cons / 32 : 327;
    cons = target - 1 - pub;
    uint8_t seed[32] = {0x91, 0x9e, (uint8_t)syn_log, (uint8_t)fill};
    synth_cfg cfg;
    synth_cfg_default(&cfg, cons, seed);
    c.tp = threadpool_create(0);
    uint64_t t0 = bench_now_ns();
    cuzk_partition p0;
    int rc = synth_partition(&cfg, CUZK_FR_MONTGOMERY, &p0);
    if (rc) { fprintf(stderr, "cuzk-bench pipeline: synth: %s\n", cuzk_last_error()); return 2; }
    c.synth_s = (double)(bench_now_ns() - t0) / 1e9;
    c.p0 = &p0;
    c.abc_len = p0.abc_len, c.num_aux = p0.num_aux;
    if (c.tile) {
        uint64_t big = ((uint64_t)1 << c.log_m) * (uint64_t)fill / 100;
        c.abc_len = big;
        c.num_aux = (uint64_t)((double)p0.num_aux * (double)(big - p0.num_inputs) /
                               (double)(p0.abc_len - p0.num_inputs));
    }
    /* the key: a real test-only one (cached in /tmp by shape), or generated on the device */
    char path[128];
    snprintf(path, sizeof path, "/tmp/cuzk-bench-pipeline-porep-2^%d-%d.params", c.log_m, fill);
    c.key_path = path;
    t0 = bench_now_ns();
    if (!c.synthetic && access(path, R_OK)) {
        cs sys;
        fr_t *in, *aux;
        groth16_params *real;
        groth16_toxic tw;
        groth16_toxic_from_seed(&tw, seed);
        if ((rc = synth_cs(&cfg, &sys, &in, &aux)) || (rc = groth16_setup(&sys, &tw, c.tp, &real)) ||
            (rc = groth16_params_write(path, real))) {
            fprintf(stderr, "cuzk-bench pipeline: setup: %s\n", cuzk_last_error());
            return 2;
        }
        groth16_params_free(real);
        free(in);
        free(aux);
        cs_free(&sys);
    }
    c.setup_s = (double)(bench_now_ns() - t0) / 1e9;
    void *held[64 * TV_MAX_DEV];
    int nheld = 0;
    if (c.device_gib > 0 && hold_device_memory(&c, held, &nheld)) return 2;
    int worst = 0;
    for (int i = 0; i < nw; i++) {
        c.workers = wl[i];
        int r = run_one(&c, nw > 1);
        if (r > worst) worst = r;
    }
    if (p0.release) p0.release(p0.release_user);
    threadpool_destroy(c.tp);
#ifdef CUZK_HAVE_CUDA
    for (int i = 0; i < nheld; i++) gpu_free(held[i]);
#endif
    return worst;
}
