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
#include "bench_trace.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"

#ifdef CUZK_HAVE_CUDA
extern const groth16_params *cuda_backend_synthetic_shape; /* backend_cuda.c, bench-only hook */
#endif

static int usage(void)
{
    fprintf(stderr,
            "usage: cuzk-bench pipeline --shape porep --log N --partitions P [--devices LIST] [--workers W]\n"
            "         [--backend auto|cuda|cpu] [--trace out.json] [--svg out.svg] [--json out.json]\n"
            "         [--fill PCT] [--pageable] [--synthetic-key] [--warmup K]\n"
            "  N <= 22: a real test-only key, every proof verified; N > 22 (or --synthetic-key): a key of\n"
            "  random valid points generated on the device, proofs not verifiable (self-check off).\n"
            "  The partition's buffers live in cuzk_host_alloc memory (pinned on CUDA) unless --pageable.\n");
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
    const char *key_path, *trace_path, *svg_path, *json_path, *devices;
    const cuzk_partition *p0;
    threadpool *tp;
    double synth_s, setup_s;
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

static int run_one(const run_cfg *rc_, int many)
{
    const run_cfg *c = rc_;
    btrace_log log = {0};
    cuzk_config *cc = NULL;
    cuzk_engine *e = NULL;
    cuzk_srs *srs = NULL;
    int rc;
    if ((rc = cuzk_config_new(&cc)) || (rc = cuzk_config_set(cc, CUZK_OPT_BACKEND, c->backend)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_DEVICE_MASK, (int64_t)c->mask)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_WORKERS_PER_DEVICE, c->workers)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_VERIFY, !c->synthetic)) ||
        (rc = cuzk_config_set(cc, CUZK_OPT_TRACE_CAPACITY, 1 << 20)) ||
        (rc = cuzk_config_set_trace(cc, btrace_collect, &log)) || (rc = cuzk_engine_create(cc, &e))) {
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
#ifdef CUZK_HAVE_CUDA
        cuda_backend_synthetic_shape = &shape_pk;
#endif
    }
    t0 = bench_now_ns();
    rc = cuzk_srs_load(e, c->synthetic ? "(synthetic key generated on the device)" : c->key_path, 0, &srs);
#ifdef CUZK_HAVE_CUDA
    cuda_backend_synthetic_shape = NULL;
#endif
    if (rc) { fprintf(stderr, "cuzk-bench pipeline: key: %s: %s\n", cuzk_strerror(rc), cuzk_last_error()); return 2; }
    double load_s = (double)(bench_now_ns() - t0) / 1e9;
    cuzk_stats st = {.struct_size = sizeof st};
    cuzk_engine_stats(e, &st);

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
            if (phase) btrace_result(&log, &r);
        }
        if (phase) log.wall_ns = bench_now_ns() - ts;
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
    btrace_summary sum;
    btrace_analyze(&log, (uint64_t)c->parts, &sum);
    btrace_print(&sum, &log, c->parts, failures, c->synthetic);
    char b1[512], b2[512], b3[512];
    const char *jp = suffixed(b1, sizeof b1, c->json_path, c->workers, many),
               *tp = suffixed(b2, sizeof b2, c->trace_path, c->workers, many),
               *vp = suffixed(b3, sizeof b3, c->svg_path, c->workers, many);
    if (jp) btrace_write_json(jp, &sum, desc, c->log_m, c->parts, c->workers, c->synthetic);
    if (tp) btrace_write_chrome(tp, &log);
    if (vp) btrace_write_svg(vp, &log, desc);
    printf("  cuzk-bench pipeline --shape porep --log %d --partitions %d --workers %d%s%s%s%s\n", c->log_m, c->parts,
           c->workers, c->devices ? " --devices " : "", c->devices ? c->devices : "", c->pageable ? " --pageable" : "",
           c->synthetic && c->log_m <= 22 ? " --synthetic-key" : "");
    fflush(stdout);
    btrace_free(&log);
    return failures ? 1 : 0;
}

int bench_pipeline(int argc, char **argv)
{
    const char *shape = "porep", *workers_s = "2";
    run_cfg c = {.workers = 2, .parts = 20, .warmup = -1, .log_m = -1, .backend = CUZK_BACKEND_AUTO};
    const char *backend = "auto";
    int fill = 97;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--pageable")) { c.pageable = 1; continue; }
        if (!strcmp(argv[i], "--synthetic-key")) { c.synthetic = 1; continue; }
        if (!v) return usage();
        if (!strcmp(argv[i], "--shape")) shape = v;
        else if (!strcmp(argv[i], "--log")) c.log_m = atoi(v);
        else if (!strcmp(argv[i], "--partitions")) c.parts = atoi(v);
        else if (!strcmp(argv[i], "--devices")) c.devices = v;
        else if (!strcmp(argv[i], "--workers")) workers_s = v;
        else if (!strcmp(argv[i], "--backend")) backend = v;
        else if (!strcmp(argv[i], "--trace")) c.trace_path = v;
        else if (!strcmp(argv[i], "--svg")) c.svg_path = v;
        else if (!strcmp(argv[i], "--json")) c.json_path = v;
        else if (!strcmp(argv[i], "--fill")) fill = atoi(v);
        else if (!strcmp(argv[i], "--warmup")) c.warmup = atoi(v);
        else return usage();
        i++;
    }
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
    int worst = 0;
    for (int i = 0; i < nw; i++) {
        c.workers = wl[i];
        int r = run_one(&c, nw > 1);
        if (r > worst) worst = r;
    }
    if (p0.release) p0.release(p0.release_user);
    threadpool_destroy(c.tp);
    return worst;
}
