/*
 * Partitions and keys for the engine benches (pipeline, mixed): one circuit's partition
 * placed in one host block (cuzk_host_alloc, pinned on CUDA, or malloc), tiled up to sizes
 * synthesis cannot reach quickly, and its key — a real test-only one, or above 2^22 one of
 * random valid points generated on the device (CUDA only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "trace_view.h"
#include "engine/engine.h"
#include "groth16/groth16.h"
#ifdef CUZK_HAVE_CUDA
#include "cuda_util.h"
#endif

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
    for (uint64_t i = lo; j->a && i < lo + TILE_CHUNK && i < j->abc_len; i++) {
        uint64_t k = i < s->abc_len ? i : s->num_inputs + (i - s->num_inputs) % (s->abc_len - s->num_inputs);
        j->a[i] = s->a[k], j->b[i] = s->b[k], j->c[i] = s->c[k];
    }
    if (!j->a_dens) { /* witness-only: inputs and aux alone */
        for (uint64_t i = lo; i < lo + TILE_CHUNK && i < j->num_aux; i++) j->aux[i] = s->aux[i % s->num_aux];
        return;
    }
    for (uint64_t i = lo; i < lo + TILE_CHUNK && i < j->num_aux; i++) {
        uint64_t k = i % s->num_aux, bit = (uint64_t)1 << (i % 64);
        j->aux[i] = s->aux[k];
        if (i % 64 == 0) j->a_dens[i / 64] = j->b_dens[i / 64] = 0;
        if (s->a_aux_density[k / 64] >> (k % 64) & 1) j->a_dens[i / 64] |= bit;
        if (s->b_aux_density[k / 64] >> (k % 64) & 1) j->b_dens[i / 64] |= bit;
    }
}

uint64_t bench_part_layout(uint64_t num_inputs, uint64_t abc_len, uint64_t num_aux, int witness_only,
                           uint64_t sz[BP_N])
{
    const uint64_t fr = sizeof(cuzk_fr), wi = (num_inputs + 63) / 64, wa = (num_aux + 63) / 64;
    const uint64_t abc = witness_only ? 0 : abc_len * fr;
    sz[BP_A] = sz[BP_B] = sz[BP_C] = abc;
    sz[BP_INPUTS] = num_inputs * fr;
    sz[BP_AUX] = num_aux * fr;
    sz[BP_DENS] = witness_only ? 0 : (wi + 2 * wa) * 8; /* witness-only: the constraint system's */
    uint64_t total = 0;
    for (int i = 0; i < BP_N; i++) total += (sz[i] + 63) & ~(uint64_t)63;
    return total;
}

int bench_place_partition(cuzk_engine *e, threadpool *tp, const cuzk_partition *src, int pageable,
                          uint64_t abc_len, uint64_t num_aux, int witness_only, bench_part *out)
{
    uint64_t wi = (src->num_inputs + 63) / 64, wa = (num_aux + 63) / 64, sz[BP_N];
    const uint64_t total = bench_part_layout(src->num_inputs, abc_len, num_aux, witness_only, sz);
    void *blk = NULL;
    if (pageable) blk = malloc(total);
    else if (cuzk_host_alloc(e, total, &blk)) blk = NULL;
    if (!blk) {
        fprintf(stderr, "cuzk-bench: cannot allocate %llu bytes for the partition: %s\n", (unsigned long long)total,
                pageable ? "malloc failed" : cuzk_last_error());
        return 2;
    }
    uint8_t *q = blk;
    void *to[BP_N];
    for (int i = 0; i < BP_N; i++) {
        to[i] = sz[i] ? (void *)q : NULL;
        q += (sz[i] + 63) & ~(uint64_t)63;
    }
    uint64_t *dens = to[BP_DENS];
    memcpy(to[BP_INPUTS], src->inputs, sz[BP_INPUTS]);
    if (dens) memcpy(dens, src->b_input_density, wi * 8);
    tile_job j = {src, to[BP_A], to[BP_B], to[BP_C], to[BP_AUX], dens ? dens + wi : NULL,
                  dens ? dens + wi + wa : NULL, abc_len, num_aux};
    uint64_t big = abc_len > num_aux ? abc_len : num_aux;
    threadpool_parallel_for(tp, (big + TILE_CHUNK - 1) / TILE_CHUNK, tile_chunk, &j);
    out->block = blk;
    out->pageable = pageable;
    out->bytes = total;
    memcpy(out->sizes, sz, sizeof sz);
    out->p = *src;
    out->p.abc_len = abc_len, out->p.num_aux = num_aux;
    out->p.a = to[BP_A], out->p.b = to[BP_B], out->p.c = to[BP_C], out->p.inputs = to[BP_INPUTS];
    out->p.aux = to[BP_AUX];
    out->p.b_input_density = dens, out->p.a_aux_density = dens ? dens + wi : NULL;
    out->p.b_aux_density = dens ? dens + wi + wa : NULL;
    out->p.release = no_release;
    out->p.release_user = NULL;
    out->p.r = out->p.s = NULL;
    return 0;
}

void bench_part_free(cuzk_engine *e, bench_part *bp)
{
    if (!bp->block) return;
    if (bp->pageable) free(bp->block);
    else cuzk_host_free(e, bp->block);
    bp->block = NULL;
}

uint64_t bench_popcount(const uint64_t *d, uint64_t n)
{
    uint64_t c = 0;
    for (uint64_t i = 0; i < n; i++) c += (d[i / 64] >> (i % 64)) & 1;
    return c;
}

int bench_load_key(cuzk_engine *e, const char *key_path, const cuzk_partition *p, int synthetic, uint32_t flags,
                   cuzk_srs **srs)
{
    groth16_params shape_pk = {0};
    if (synthetic) {
        unsigned lm = 0;
        while (((uint64_t)1 << lm) < p->abc_len) lm++;
        uint64_t pa = bench_popcount(p->a_aux_density, p->num_aux), pbi = bench_popcount(p->b_input_density, p->num_inputs),
                 pba = bench_popcount(p->b_aux_density, p->num_aux);
        shape_pk.vk.alpha_g1 = shape_pk.vk.beta_g1 = shape_pk.vk.delta_g1 = G1_GENERATOR;
        shape_pk.vk.beta_g2 = shape_pk.vk.gamma_g2 = shape_pk.vk.delta_g2 = G2_GENERATOR;
        shape_pk.vk.n_ic = (uint32_t)p->num_inputs;
        shape_pk.n_h = (uint32_t)(((uint64_t)1 << lm) - 1);
        shape_pk.n_l = (uint32_t)p->num_aux;
        shape_pk.n_a = (uint32_t)(p->num_inputs + pa);
        shape_pk.n_b_g1 = shape_pk.n_b_g2 = (uint32_t)(pbi + pba);
    }
    int rc = synthetic ? engine_srs_load_synthetic(e, &shape_pk, flags, srs) : cuzk_srs_load(e, key_path, flags, srs);
    if (rc) {
        fprintf(stderr, "cuzk-bench: key: %s: %s\n", cuzk_strerror(rc), cuzk_last_error());
        return 2;
    }
    return 0;
}

int bench_circuit_partition(const bench_circuit *c, threadpool *tp, cuzk_partition *p0, uint64_t *abc_len,
                            uint64_t *num_aux, double *synth_s)
{
    /* above 2^22 a 2^20 circuit of the same shape and fill is synthesized and tiled up
     * (synthesis is single-threaded) */
    (void)tp;
    bench_circuit small = *c;
    int tile = c->log_m > 22;
    if (tile && bench_shape_cfg(c->shape->name, 20, c->fill, &small)) return 2;
    uint64_t t0 = bench_now_ns();
    int rc = synth_partition(&small.cfg, CUZK_FR_MONTGOMERY, p0);
    if (rc) {
        fprintf(stderr, "cuzk-bench: synth: %s\n", cuzk_last_error());
        return 2;
    }
    *synth_s = (double)(bench_now_ns() - t0) / 1e9;
    *abc_len = p0->abc_len, *num_aux = p0->num_aux;
    if (tile) {
        uint64_t big = ((uint64_t)1 << c->log_m) * (uint64_t)c->fill / 100;
        *abc_len = big;
        *num_aux = (uint64_t)((double)p0->num_aux * (double)(big - p0->num_inputs) /
                              (double)(p0->abc_len - p0->num_inputs));
    }
    return 0;
}

uint64_t bench_parse_devices(const char *s)
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

/* The CUZK_* variables of the run but the tests' (the CUDA backend's tuning knobs change
 * placements and kernels), so that a result says what it ran with. */
static void print_tuning(void)
{
    extern char **environ;
    int n = 0;
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "CUZK_", 5) && strncmp(*e, "CUZK_TEST_", 10)) printf("%s%s", n++ ? " " : "  tuning variables: ", *e);
    if (n) printf("\n");
}

void bench_print_placement(cuzk_srs *srs, uint32_t devices)
{
    static const char *vec[5] = {"H", "L", "A", "B_G1", "B_G2"};
    print_tuning();
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

int bench_hold_device_memory(uint64_t mask, double gib, void **held, int *nheld)
{
#ifdef CUZK_HAVE_CUDA
    int n = gpu_device_count();
    for (int d = 0; d < n && d < TV_MAX_DEV; d++) {
        if (mask && !(mask >> d & 1)) continue;
        size_t fr = 0, total = 0;
        if (gpu_set_device(d) || gpu_mem_info(&fr, &total)) return 2;
        uint64_t want = (uint64_t)(gib * (double)(1ull << 30)), chunk = (uint64_t)4 << 30;
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
    (void)mask, (void)held, (void)nheld;
    fprintf(stderr, "cuzk-bench: --device-memory %.1f needs a CUDA build\n", gib);
    return 2;
#endif
}

void bench_release_device_memory(void **held, int nheld)
{
#ifdef CUZK_HAVE_CUDA
    for (int i = 0; i < nheld; i++) gpu_free(held[i]);
#else
    (void)held, (void)nheld;
#endif
}
