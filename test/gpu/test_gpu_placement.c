/*
 * Placement by what fits (issue 13): the same partitions proven with the key resident, partly
 * resident and streamed from pinned host memory, in full and lean slots, with one and two
 * workers, give byte-identical proofs (same r, s). Placements are forced by shrinking the
 * device budget step by step until not even one streaming worker fits: that load fails with
 * CUZK_EBUDGET naming the bytes, and the same engine still proves a smaller key.
 * Synthetic keys (bases made on the device, the same points in every placement) at 2^16,
 * 2^20 and 2^22; a real key at 2^12 streamed, with every proof verified; a pinned key that
 * fits only where an idle key gives way some of its resident bases (issue 17: eviction); on
 * two GPUs (issue 29, skipped with one), a load the second GPU refuses evicting nothing on the
 * first, and one failing past the plan leaving its victims evicted on both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "engine/engine.h"
#include "fault.h"
#include "field/curve.h"
#include "groth16/groth16.h"
#include "support/testkey.h"
#include "support/gputest.h"
#include "support/testutil.h"
#include "gpu_testutil.h"
#include "support/fieldtest.h"

/* A random partition of domain 2^log_m (PoRep-like: most aux 0 or 1, a_aux ~99 %, b_aux
 * ~25 %) in pinned memory, and the key shape it fits. */
typedef struct rand_part {
    cuzk_partition p;
    void *block;
    groth16_params shape;
} rand_part;

static void rand_scalar(fr_t *x)
{
    uint64_t r = test_rand64() % 8;
    *x = r < 3 ? FR_ZERO : r < 6 ? FR_ONE : FR_ZERO;
    if (r >= 6) ft_rand_fr(x);
}

/* b_pct: the share of aux in B (the PoRep-like 25, or a denser key's). */
static void make_part_b(rand_part *rp, unsigned log_m, unsigned b_pct)
{
    uint64_t m = (uint64_t)1 << log_m, ni = 3, len = m - 5, na = m - 64, nw = (na + 63) / 64, niw = 1;
    size_t bytes = (3 * len + ni + na) * sizeof(fr_t) + (2 * nw + niw) * 8 + 256;
    assert_int_equal(gpu_host_alloc(&rp->block, bytes), 0);
    uint8_t *at = rp->block;
    fr_t *a = (fr_t *)at, *b = a + len, *c = b + len, *in = c + len, *aux = in + ni;
    uint64_t *da = (uint64_t *)(aux + na), *db = da + nw, *dbi = db + nw;
    for (uint64_t i = 0; i < len; i++) ft_rand_fr(&a[i]), ft_rand_fr(&b[i]), ft_rand_fr(&c[i]);
    in[0] = FR_ONE;
    for (uint64_t i = 1; i < ni; i++) ft_rand_fr(&in[i]);
    for (uint64_t i = 0; i < na; i++) rand_scalar(&aux[i]);
    uint64_t pa = 0, pb = 0;
    for (uint64_t w = 0; w < nw; w++) {
        da[w] = db[w] = 0;
        for (int j = 0; j < 64 && w * 64 + j < na; j++) {
            if (test_rand64() % 100 < 99) da[w] |= 1ull << j, pa++;
            if (test_rand64() % 100 < b_pct) db[w] |= 1ull << j, pb++;
        }
    }
    /* an aux range of zeros: a streamed piece of zero scalars is skipped */
    for (uint64_t i = na / 3; i < na / 3 + na / 5; i++) aux[i] = FR_ZERO;
    dbi[0] = 0x5; /* inputs 0 and 2 in B */
    memset(&rp->p, 0, sizeof rp->p);
    rp->p.struct_size = sizeof rp->p;
    rp->p.scalar_form = CUZK_FR_MONTGOMERY;
    rp->p.a = (cuzk_fr *)a, rp->p.b = (cuzk_fr *)b, rp->p.c = (cuzk_fr *)c, rp->p.abc_len = len;
    rp->p.inputs = (cuzk_fr *)in, rp->p.num_inputs = ni;
    rp->p.aux = (cuzk_fr *)aux, rp->p.num_aux = na;
    rp->p.a_aux_density = da, rp->p.b_aux_density = db, rp->p.b_input_density = dbi;
    groth16_params *s = &rp->shape;
    memset(s, 0, sizeof *s);
    s->vk.alpha_g1 = s->vk.beta_g1 = s->vk.delta_g1 = G1_GENERATOR;
    s->vk.beta_g2 = s->vk.gamma_g2 = s->vk.delta_g2 = G2_GENERATOR;
    s->vk.n_ic = (uint32_t)ni;
    s->n_h = (uint32_t)(m - 1), s->n_l = (uint32_t)na, s->n_a = (uint32_t)(ni + pa);
    s->n_b_g1 = s->n_b_g2 = (uint32_t)(2 + pb);
}

static void make_part(rand_part *rp, unsigned log_m) { make_part_b(rp, log_m, 25); }

static cuzk_engine *engine_on(uint64_t mask, uint64_t budget, int workers, int verify, int urgent_priority)
{
    cuzk_config *cfg;
    cuzk_engine *e = NULL;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_URGENT_PRIORITY, urgent_priority), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_BACKEND, CUZK_BACKEND_CUDA), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_VERIFY, verify), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_WORKERS_PER_DEVICE, workers), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_DEVICE_MASK, (int64_t)mask), CUZK_OK);
    if (budget) assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_DEVICE_BUDGET_BYTES, (int64_t)budget), CUZK_OK);
    int rc = cuzk_engine_create(cfg, &e);
    if (rc) fprintf(stderr, "engine: %s\n", cuzk_last_error());
    assert_int_equal(rc, CUZK_OK);
    cuzk_config_free(cfg);
    return e;
}

static cuzk_engine *engine_with_urgent(uint64_t budget, int workers, int verify, int urgent_priority)
{
    return engine_on(1, budget, workers, verify, urgent_priority);
}

static cuzk_engine *engine_with(uint64_t budget, int workers, int verify)
{
    return engine_with_urgent(budget, workers, verify, 0);
}

/* Proves `count` copies of p at once (each with its own r, s index), proofs to out[i]. */
static void prove_n(cuzk_engine *e, cuzk_srs *srs, const cuzk_partition *p, const fr_t *r, const fr_t *s, int count,
                    uint8_t (*out)[192])
{
    for (int i = 0; i < count; i++) {
        cuzk_partition q = *p;
        q.r = (const cuzk_fr *)&r[i], q.s = (const cuzk_fr *)&s[i];
        q.user_tag = (uint64_t)i;
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(e, srs, &q, &h), CUZK_OK);
    }
    for (int i = 0; i < count; i++) {
        cuzk_result res = {.struct_size = sizeof res};
        assert_int_equal(cuzk_poll_result(e, &res, 600 * 1000000000ll), CUZK_OK);
        if (res.status) fprintf(stderr, "partition %llu: %s: %s\n", (unsigned long long)res.user_tag,
                                cuzk_strerror(res.status), cuzk_last_error());
        assert_int_equal(res.status, CUZK_OK);
        memcpy(out[res.user_tag], res.proof, 192);
    }
}

static void sweep(unsigned log_m)
{
    rand_part rp;
    make_part(&rp, log_m);
    enum { N = 3 };
    fr_t r[N], s[N];
    for (int i = 0; i < N; i++) ft_rand_fr(&r[i]), ft_rand_fr(&s[i]);
    r[0] = FR_ZERO; /* r = s = 0 on purpose once */
    s[0] = FR_ZERO;
    uint8_t want[N][192], got[N][192];
    /* the reference: no limit, two workers (resident, full) */
    cuzk_engine *e = engine_with(0, 2, 0);
    cuzk_srs *srs;
    assert_int_equal(engine_srs_load_synthetic(e, &rp.shape, 0, &srs), CUZK_OK);
    cuzk_placement pl = {.struct_size = sizeof pl};
    assert_int_equal(cuzk_srs_placement(srs, 0, &pl), CUZK_OK);
    assert_int_equal(pl.kind, CUZK_PLACEMENT_RESIDENT);
    uint64_t start = pl.resident_bytes + (uint64_t)pl.slots * pl.slot_bytes;
    prove_n(e, srs, &rp.p, r, s, N, want);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
    int seen[4][2] = {{0}}, ebudget = 0;
    for (uint64_t budget = start, step = 0; step < 40; budget = budget * 7 / 8, step++) {
        int workers = 1 + (int)(step % 2);
        e = engine_with(budget, workers, 0);
        int rc = engine_srs_load_synthetic(e, &rp.shape, 0, &srs);
        if (rc == CUZK_EBUDGET) {
            char msg[512]; /* copied: every later call that succeeds clears cuzk_last_error() */
            snprintf(msg, sizeof msg, "%s", cuzk_last_error());
            printf("2^%u: budget %llu: %s\n", log_m, (unsigned long long)budget, msg);
            assert_non_null(strstr(msg, "needs"));
            /* the engine still serves a key that fits */
            rand_part small;
            make_part(&small, 8);
            cuzk_srs *s2;
            assert_int_equal(engine_srs_load_synthetic(e, &small.shape, 0, &s2), CUZK_OK);
            uint8_t pr[1][192];
            prove_n(e, s2, &small.p, r, s, 1, pr);
            cuzk_srs_release(s2);
            gpu_host_free(small.block);
            cuzk_engine_destroy(e);
            ebudget = 1;
            /* exactly the bytes it said it needs: one streaming slot, nothing resident */
            unsigned long long need = strtoull(strstr(msg, "needs ") + 6, NULL, 10);
            e = engine_with(need, 2, 0);
            assert_int_equal(engine_srs_load_synthetic(e, &rp.shape, 0, &srs), CUZK_OK);
            assert_int_equal(cuzk_srs_placement(srs, 0, &pl), CUZK_OK);
            assert_int_equal(pl.kind, CUZK_PLACEMENT_STREAMED);
            prove_n(e, srs, &rp.p, r, s, N, got);
            for (int i = 0; i < N; i++) assert_memory_equal(got[i], want[i], 192);
            printf("2^%u: budget %llu (what it needs): streamed, proofs equal\n", log_m, need);
            seen[pl.kind][pl.working_set] = 1;
            cuzk_srs_release(srs);
            cuzk_engine_destroy(e);
            break;
        }
        if (rc) fprintf(stderr, "load: %s\n", cuzk_last_error());
        assert_int_equal(rc, CUZK_OK);
        assert_int_equal(cuzk_srs_placement(srs, 0, &pl), CUZK_OK);
        if (!seen[pl.kind][pl.working_set] || step % 4 == 1) {
            printf("2^%u: budget %llu, %d worker%s: %s, %s slots x%u (%llu bytes), resident %llu of %llu bytes\n",
                   log_m, (unsigned long long)budget, workers, workers > 1 ? "s" : "",
                   pl.kind == CUZK_PLACEMENT_RESIDENT ? "resident" : pl.kind == CUZK_PLACEMENT_PARTIAL ? "partial"
                                                                                                        : "streamed",
                   pl.working_set == CUZK_WORKING_SET_FULL ? "full" : "lean", pl.slots,
                   (unsigned long long)pl.slot_bytes, (unsigned long long)pl.resident_bytes,
                   (unsigned long long)(pl.resident_bytes + pl.streamed_bytes));
            prove_n(e, srs, &rp.p, r, s, N, got);
            for (int i = 0; i < N; i++) assert_memory_equal(got[i], want[i], 192);
            seen[pl.kind][pl.working_set] = 1;
        }
        cuzk_srs_release(srs);
        cuzk_engine_destroy(e);
    }
    gpu_host_free(rp.block);
    assert_true(ebudget);
    assert_true(seen[CUZK_PLACEMENT_RESIDENT][CUZK_WORKING_SET_FULL]);
    assert_true(seen[CUZK_PLACEMENT_STREAMED][CUZK_WORKING_SET_LEAN]);
    assert_true(seen[CUZK_PLACEMENT_PARTIAL][CUZK_WORKING_SET_LEAN] || seen[CUZK_PLACEMENT_RESIDENT][CUZK_WORKING_SET_LEAN]);
}

static void test_sweep_16(void **state) { (void)state; sweep(16); }
static void test_sweep_20(void **state)
{
    (void)state;
    GPU_TEST_DEVICE_ONLY("a GPU's size: minutes of host arithmetic");
    sweep(20);
}

static void test_sweep_22(void **state)
{
    (void)state;
    GPU_TEST_DEVICE_ONLY("a GPU's size: minutes of host arithmetic");
    sweep(22);
}

/* A real key (test setup), streamed: every proof checked by the engine and by cuzk_verify. */
static void test_real_key_streamed(void **state)
{
    (void)state;
    synth_cfg cfg;
    uint8_t seed[32];
    test_rand_bytes(seed, sizeof seed);
    synth_cfg_default(&cfg, 3000, seed);
    test_key k;
    assert_int_equal(test_key_make(&k, &cfg, "placement", -1), CUZK_OK);
    /* the bytes one streaming worker needs (a load refused with them), then exactly that:
     * streamed; then that plus half the key: partial */
    cuzk_engine *e = engine_with((uint64_t)1 << 20, 2, 1);
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, k.path, 0, &srs), CUZK_EBUDGET);
    unsigned long long need = strtoull(strstr(cuzk_last_error(), "needs ") + 6, NULL, 10);
    cuzk_engine_destroy(e);
    uint64_t key_bytes = 0;
    int streamed = 0;
    for (int round = 0; round < 2; round++) {
        /* pinned (CUZK_SRS_PIN) where it cannot be resident: refused, with the bytes */
        e = engine_with(need + (round ? key_bytes / 2 : 0), 2, 1);
        assert_int_equal(cuzk_srs_load(e, k.path, CUZK_SRS_PIN, &srs), CUZK_EBUDGET);
        assert_non_null(strstr(cuzk_last_error(), "pinned key"));
        cuzk_engine_destroy(e);
        e = engine_with(need + (round ? key_bytes / 2 : 0), 2, 1);
        assert_int_equal(cuzk_srs_load(e, k.path, 0, &srs), CUZK_OK);
        cuzk_placement pl = {.struct_size = sizeof pl};
        assert_int_equal(cuzk_srs_placement(srs, 0, &pl), CUZK_OK);
        key_bytes = pl.resident_bytes + pl.streamed_bytes;
        assert_int_equal(pl.kind, round ? CUZK_PLACEMENT_PARTIAL : CUZK_PLACEMENT_STREAMED);
        for (int form = 0; form < 2; form++) {
            cuzk_partition p;
            assert_int_equal(synth_partition(&k.scfg, form ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY, &p), CUZK_OK);
            cuzk_fr pub[1024]; /* the engine frees the partition's buffers when it is done */
            assert_true(p.num_inputs <= 1024);
            memcpy(pub, p.inputs, p.num_inputs * sizeof *pub);
            cuzk_job h;
            assert_int_equal(cuzk_submit_partition(e, srs, &p, &h), CUZK_OK);
            cuzk_result res = {.struct_size = sizeof res};
            assert_int_equal(cuzk_poll_result(e, &res, 120 * 1000000000ll), CUZK_OK);
            assert_int_equal(res.status, CUZK_OK);
            assert_int_equal(cuzk_verify(k.vk, k.vk_len, res.proof, pub + 1, p.num_inputs - 1,
                                         form ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY),
                             CUZK_OK);
            printf("real key %s, %s form: proof verified\n", round ? "partial" : "streamed",
                   form ? "canonical" : "Montgomery");
        }
        streamed++;
        cuzk_srs_release(srs);
        cuzk_engine_destroy(e);
    }
    assert_int_equal(streamed, 2);
    /* pinned with the device's whole memory: resident */
    e = engine_with(0, 2, 1);
    assert_int_equal(cuzk_srs_load(e, k.path, CUZK_SRS_PIN, &srs), CUZK_OK);
    cuzk_placement pl = {.struct_size = sizeof pl};
    assert_int_equal(cuzk_srs_placement(srs, 0, &pl), CUZK_OK);
    assert_int_equal(pl.kind, CUZK_PLACEMENT_RESIDENT);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
    test_key_free(&k);
}

/* One partition of key k (fresh witness, the given r and s), proven and verified; the proof. */
static void prove_real(cuzk_engine *e, cuzk_srs *srs, test_key *k, const fr_t *r, const fr_t *s, uint8_t proof[192])
{
    cuzk_partition p;
    assert_int_equal(synth_partition(&k->scfg, CUZK_FR_MONTGOMERY, &p), CUZK_OK);
    p.r = (const cuzk_fr *)r, p.s = (const cuzk_fr *)s;
    cuzk_fr pub[1024];
    assert_true(p.num_inputs <= 1024);
    memcpy(pub, p.inputs, p.num_inputs * sizeof *pub);
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, srs, &p, &h), CUZK_OK);
    cuzk_result res = {.struct_size = sizeof res};
    assert_int_equal(cuzk_poll_result(e, &res, 120 * 1000000000ll), CUZK_OK);
    if (res.status) fprintf(stderr, "partition: %s: %s\n", cuzk_strerror(res.status), cuzk_last_error());
    assert_int_equal(res.status, CUZK_OK);
    assert_int_equal(cuzk_verify(k->vk, k->vk_len, res.proof, pub + 1, p.num_inputs - 1, CUZK_FR_MONTGOMERY), CUZK_OK);
    memcpy(proof, res.proof, 192);
}

/* A pinned key on a device the first key filled: the first key (idle, not pinned) gives way
 * with its H bases, cheapest to stream, and nothing more; it goes on proving, streamed, the
 * same bytes as when resident (same witness, r and s); both keys' proofs verify. */
/* A big key and a small one (test setups), and a device budget where the small key fits
 * resident, pinned, beside the big one only if the big one gives way some of its bases. */
static uint64_t evict_setup(test_key *big, test_key *small)
{
    synth_cfg cfg;
    uint8_t seed[32];
    test_rand_bytes(seed, sizeof seed);
    synth_cfg_default(&cfg, 6000, seed);
    assert_int_equal(test_key_make(big, &cfg, "evict-big", -1), CUZK_OK);
    test_rand_bytes(seed, sizeof seed);
    synth_cfg_default(&cfg, 300, seed);
    assert_int_equal(test_key_make(small, &cfg, "evict-small", -1), CUZK_OK);
    /* what each takes with the whole device */
    cuzk_engine *e = engine_with(0, 2, 1);
    cuzk_srs *sb, *ss;
    cuzk_placement pb = {.struct_size = sizeof pb}, ps = {.struct_size = sizeof ps};
    assert_int_equal(cuzk_srs_load(e, big->path, 0, &sb), CUZK_OK);
    assert_int_equal(cuzk_srs_load(e, small->path, CUZK_SRS_PIN, &ss), CUZK_OK);
    assert_int_equal(cuzk_srs_placement(sb, 0, &pb), CUZK_OK);
    assert_int_equal(cuzk_srs_placement(ss, 0, &ps), CUZK_OK);
    assert_int_equal(pb.kind, CUZK_PLACEMENT_RESIDENT);
    assert_int_equal(ps.kind, CUZK_PLACEMENT_RESIDENT);
    assert_true(pb.slot_bytes == ps.slot_bytes); /* the small key grew nothing */
    assert_true(pb.vector_bytes[0] > ps.resident_bytes / 2); /* the big key's H alone makes room */
    cuzk_srs_release(ss);
    cuzk_srs_release(sb);
    cuzk_engine_destroy(e);
    return pb.resident_bytes + (uint64_t)pb.slots * pb.slot_bytes + ps.resident_bytes / 2;
}

/* evict_setup's keys, an engine with its budget, and the big key loaded there: resident. */
static cuzk_engine *evict_engine(test_key *big, test_key *small, cuzk_srs **sb)
{
    cuzk_engine *e = engine_with(evict_setup(big, small), 2, 1);
    cuzk_placement pb = {.struct_size = sizeof pb};
    assert_int_equal(cuzk_srs_load(e, big->path, 0, sb), CUZK_OK);
    assert_int_equal(cuzk_srs_placement(*sb, 0, &pb), CUZK_OK);
    assert_int_equal(pb.kind, CUZK_PLACEMENT_RESIDENT);
    return e;
}

static void test_pinned_evicts_idle_key(void **state)
{
    (void)state;
    test_key big, small;
    cuzk_srs *sb, *ss;
    cuzk_engine *e = evict_engine(&big, &small, &sb);
    cuzk_placement pb = {.struct_size = sizeof pb}, ps = {.struct_size = sizeof ps};
    fr_t r, s;
    ft_rand_fr(&r), ft_rand_fr(&s);
    uint8_t before[192], after[192], pinned[192];
    prove_real(e, sb, &big, &r, &s, before);
    assert_int_equal(cuzk_srs_load(e, small.path, CUZK_SRS_PIN, &ss), CUZK_OK);
    assert_int_equal(cuzk_srs_placement(ss, 0, &ps), CUZK_OK);
    assert_int_equal(ps.kind, CUZK_PLACEMENT_RESIDENT);
    assert_int_equal(cuzk_srs_placement(sb, 0, &pb), CUZK_OK);
    printf("evicted: big key %s, H resident %llu of %llu bytes, L %llu of %llu\n",
           pb.kind == CUZK_PLACEMENT_PARTIAL ? "partial" : "?", (unsigned long long)pb.vector_resident_bytes[0],
           (unsigned long long)pb.vector_bytes[0], (unsigned long long)pb.vector_resident_bytes[1],
           (unsigned long long)pb.vector_bytes[1]);
    assert_int_equal(pb.kind, CUZK_PLACEMENT_PARTIAL);
    assert_int_equal(pb.working_set, CUZK_WORKING_SET_LEAN);
    assert_int_equal(pb.vector_resident_bytes[0], 0);                  /* H gave way */
    assert_int_equal(pb.vector_resident_bytes[1], pb.vector_bytes[1]); /* nothing more */
    assert_true(pb.pinned_host_bytes > 0);                             /* it streams from there */
    prove_real(e, sb, &big, &r, &s, after);
    prove_real(e, ss, &small, &r, &s, pinned);
    /* synth_partition gives the same witness for the same key: the streamed proof's bytes are
     * the resident one's */
    assert_memory_equal(before, after, 192);
    /* a second pinned load finds only the pinned key and the big key's remaining bases: the
     * pinned one never gives way */
    cuzk_srs *ss2;
    assert_int_equal(cuzk_srs_load(e, small.path, CUZK_SRS_PIN, &ss2), CUZK_OK);
    assert_int_equal(cuzk_srs_placement(ss, 0, &ps), CUZK_OK);
    assert_int_equal(ps.kind, CUZK_PLACEMENT_RESIDENT);
    cuzk_srs_release(ss2);
    cuzk_srs_release(ss);
    cuzk_srs_release(sb);
    cuzk_engine_destroy(e);
    test_key_free(&small);
    test_key_free(&big);
}

/* A key with a partition in flight (held at FAULT_CUDA_HOLD, counted as running) never gives
 * way: the pinned load that needs its bases is refused, the key stays resident and its
 * partition proves; once it ends, the same load evicts. */
static void test_key_in_use_not_evicted(void **state)
{
    (void)state;
    test_key big, small;
    cuzk_srs *sb, *ss;
    cuzk_engine *e = evict_engine(&big, &small, &sb);
    cuzk_placement pb = {.struct_size = sizeof pb};
    cuzk_partition p;
    assert_int_equal(synth_partition(&big.scfg, CUZK_FR_MONTGOMERY, &p), CUZK_OK);
    fault_arm(FAULT_CUDA_HOLD, 1, 1);
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, sb, &p, &h), CUZK_OK);
    for (int i = 0; i < 20000 && fault_hits(FAULT_CUDA_HOLD) < 1; i++) usleep(1000);
    const uint64_t held = fault_hits(FAULT_CUDA_HOLD); /* 1: in flight on the device */
    int rc = cuzk_srs_load(e, small.path, CUZK_SRS_PIN, &ss);
    printf("pinned load beside a key in use: %s: %s\n", cuzk_strerror(rc), rc ? cuzk_last_error() : "");
    int prc = cuzk_srs_placement(sb, 0, &pb);
    fault_hold_release(); /* before any assert: a failed one must not leave the partition held */
    fault_disarm_all();
    assert_int_equal(held, 1);
    assert_int_equal(rc, CUZK_EBUDGET);
    assert_int_equal(prc, CUZK_OK);
    assert_int_equal(pb.kind, CUZK_PLACEMENT_RESIDENT);
    cuzk_result res = {.struct_size = sizeof res};
    assert_int_equal(cuzk_poll_result(e, &res, 120 * 1000000000ll), CUZK_OK);
    assert_int_equal(res.status, CUZK_OK);
    assert_int_equal(cuzk_srs_load(e, small.path, CUZK_SRS_PIN, &ss), CUZK_OK); /* idle now: it gives way */
    assert_int_equal(cuzk_srs_placement(sb, 0, &pb), CUZK_OK);
    assert_int_equal(pb.kind, CUZK_PLACEMENT_PARTIAL);
    cuzk_srs_release(ss);
    cuzk_srs_release(sb);
    cuzk_engine_destroy(e);
    test_key_free(&small);
    test_key_free(&big);
}

/* Loads rp's shape alone (flags) into a fresh urgent-worker engine of this budget: the load's
 * status, and where it loaded the key and its placement (the caller releases both). */
static int urgent_engine_key(const rand_part *rp, uint64_t budget, uint32_t flags, cuzk_engine **e, cuzk_srs **key,
                             cuzk_placement *pl)
{
    *e = engine_with_urgent(budget, 1, 0, 6);
    const int rc = engine_srs_load_synthetic(*e, &rp->shape, flags, key);
    if (rc == CUZK_OK) {
        *pl = (cuzk_placement){.struct_size = sizeof *pl};
        assert_int_equal(cuzk_srs_placement(*key, 0, pl), CUZK_OK);
    }
    return rc;
}

/* Its placement in such an engine, the engine gone again; 0: did not load. */
static int urgent_probe(const rand_part *rp, uint64_t budget, uint32_t flags, cuzk_placement *pl)
{
    cuzk_engine *e;
    cuzk_srs *key;
    const int ok = urgent_engine_key(rp, budget, flags, &e, &key, pl) == CUZK_OK;
    if (ok) cuzk_srs_release(key);
    cuzk_engine_destroy(e);
    return ok;
}

/* CUZK_SRS_URGENT (issue 17): with urgent workers, a key loaded with it leaves room for its
 * own urgent slot out of its own resident bases. The key: 2^23 with B as dense as A (bases
 * ~4.5 GiB, twice its lean streaming slot: a 2^22 key's bases are smaller than that slot and
 * cannot give its room). The budget: the largest, in steps of 1/64 of the bases below the
 * first (in steps of 1/8) where it streams, where the key alone streams part of its bases
 * beside WinningPoSt's 1 GiB of room (a room is kept only where the layout stays: a wholly
 * resident key would gain stream buffers) and, with the flag, less of them stays resident
 * (placement arithmetic for this shape: a window ~0.3 GiB wide below ~6.5 GiB). Its urgent
 * partitions, proven while a backlog of the same key runs (whose stages then yield to them), give the bytes the same partitions give alone; once it
 * is released, a key loaded in its place is placed as one loaded without the flag. */
static void test_urgent_key_room(void **state)
{
    (void)state;
    GPU_TEST_DEVICE_ONLY("a 2^23 key: a GPU's size, minutes of host arithmetic");
    rand_part rp;
    make_part_b(&rp, 23, 99);
    enum { N = 2, BACKLOG = 3 };
    setenv("CUZK_MSM_PRECOMPUTE", "1", 1); /* no precomputed copies: the budget is the keys' */
    fr_t r[N], s[N];
    for (int i = 0; i < N; i++) ft_rand_fr(&r[i]), ft_rand_fr(&s[i]);
    uint8_t want[N][192], got[N][192];
    /* sizes: the key's bases and its layout with no limit; the proofs alone */
    cuzk_engine *e;
    cuzk_srs *key;
    cuzk_placement pl;
    assert_int_equal(urgent_engine_key(&rp, 0, 0, &e, &key, &pl), CUZK_OK);
    const uint64_t bases = pl.resident_bytes + pl.streamed_bytes;
    uint64_t budget = pl.resident_bytes + (uint64_t)pl.slots * pl.slot_bytes + ((uint64_t)1 << 30);
    prove_n(e, key, &rp.p, r, s, N, want);
    cuzk_srs_release(key);
    cuzk_engine_destroy(e);
    for (uint64_t step = bases / 8, found = 0; !found;) {
        assert_true(budget > step);
        budget -= step;
        cuzk_placement without, with = {0};
        assert_true(urgent_probe(&rp, budget, 0, &without)); /* it loads down to one streaming slot */
        if (without.streamed_bytes && step == bases / 8) { /* streams: back up, then finer */
            budget += step;
            step = bases / 64;
            continue;
        }
        found = without.streamed_bytes && urgent_probe(&rp, budget, CUZK_SRS_URGENT, &with) &&
                with.resident_bytes < without.resident_bytes;
        printf("budget %.3f GiB: resident %.3f GiB, with the flag %.3f\n", budget / 1073741824.0,
               without.resident_bytes / 1073741824.0, with.resident_bytes / 1073741824.0);
    }
    uint64_t resident[2], after_release = 0;
    for (int flag = 0; flag <= 1; flag++) {
        assert_int_equal(urgent_engine_key(&rp, budget, flag ? CUZK_SRS_URGENT : 0, &e, &key, &pl), CUZK_OK);
        resident[flag] = pl.resident_bytes;
        printf("budget %llu, the key%s: resident %llu of %llu bytes, %u slots of %llu\n", (unsigned long long)budget,
               flag ? " (CUZK_SRS_URGENT)" : "", (unsigned long long)pl.resident_bytes, (unsigned long long)bases,
               pl.slots, (unsigned long long)pl.slot_bytes);
        /* a backlog, then urgent partitions */
        for (int i = 0; i < BACKLOG + N; i++) {
            const int u = i >= BACKLOG;
            cuzk_partition q = rp.p;
            q.r = (const cuzk_fr *)&r[u ? i - BACKLOG : 0], q.s = (const cuzk_fr *)&s[u ? i - BACKLOG : 0];
            q.user_tag = u ? (uint64_t)(i - BACKLOG) : 100 + (uint64_t)i;
            q.priority = u ? 7 : 0;
            cuzk_job h;
            assert_int_equal(cuzk_submit_partition(e, key, &q, &h), CUZK_OK);
        }
        for (int i = 0; i < N + BACKLOG; i++) {
            cuzk_result res = {.struct_size = sizeof res};
            assert_int_equal(cuzk_poll_result(e, &res, 600 * 1000000000ll), CUZK_OK);
            if (res.status) fprintf(stderr, "partition %llu: %s\n", (unsigned long long)res.user_tag, cuzk_last_error());
            assert_int_equal(res.status, CUZK_OK);
            if (res.user_tag < N) memcpy(got[res.user_tag], res.proof, 192);
            else assert_memory_equal(res.proof, want[0], 192);
        }
        for (int i = 0; i < N; i++) assert_memory_equal(got[i], want[i], 192);
        cuzk_srs_release(key);
        if (flag) { /* its slot's room went with it */
            assert_int_equal(engine_srs_load_synthetic(e, &rp.shape, 0, &key), CUZK_OK);
            assert_int_equal(cuzk_srs_placement(key, 0, &pl), CUZK_OK);
            after_release = pl.resident_bytes;
            printf("after its release, the key again without the flag: resident %llu bytes\n",
                   (unsigned long long)after_release);
            cuzk_srs_release(key);
        }
        cuzk_engine_destroy(e);
    }
    unsetenv("CUZK_MSM_PRECOMPUTE");
    /* the search found the flag taking its slot's room out of the bases (resident[1] <
     * resident[0] there); the same budget gives the same placements again */
    assert_true(resident[0] > 0 && resident[0] < bases); /* partial without the flag */
    assert_true(resident[1] < resident[0]);
    assert_int_equal(after_release, resident[0]); /* its room went with it */
    gpu_host_free(rp.block);
}

/* ---- two GPUs (issue 29) ---- */

/* Where synthetic key `shape` lands on device 0 of a one-GPU engine with this budget (0: the
 * whole device); pinned: CUZK_SRS_PIN. The load's status, *pl its placement. */
static int probe_one(const groth16_params *shape, uint64_t budget, uint32_t flags, cuzk_placement *pl, char *msg,
                     size_t msg_len)
{
    cuzk_engine *e = engine_with(budget, 2, 0);
    cuzk_srs *srs;
    int rc = engine_srs_load_synthetic(e, shape, flags, &srs);
    if (msg) snprintf(msg, msg_len, "%s", rc ? cuzk_last_error() : "");
    if (!rc) {
        *pl = (cuzk_placement){.struct_size = sizeof *pl};
        assert_int_equal(cuzk_srs_placement(srs, 0, pl), CUZK_OK);
        cuzk_srs_release(srs);
    }
    cuzk_engine_destroy(e);
    return rc;
}

static cuzk_placement placement_of(cuzk_srs *srs, uint32_t dev)
{
    cuzk_placement pl = {.struct_size = sizeof pl};
    assert_int_equal(cuzk_srs_placement(srs, dev, &pl), CUZK_OK);
    return pl;
}

/* Two GPUs' keys: a big 2^21 one and a small 2^19 one, where each lands alone on one GPU
 * (pb, ps), and the budget where the small one, pinned, is resident beside the big one only
 * once the big one's H gives way. 0: one GPU, nothing to test (skip). */
static int two_device_keys(rand_part *big, rand_part *small, cuzk_placement *pb, cuzk_placement *ps, uint64_t *budget)
{
    if (gpu_device_count() < 2) {
        printf("one GPU: nothing to test across devices\n");
        return 0;
    }
    make_part(big, 21);
    make_part(small, 19);
    assert_int_equal(probe_one(&big->shape, 0, 0, pb, NULL, 0), CUZK_OK);
    assert_int_equal(probe_one(&small->shape, 0, CUZK_SRS_PIN, ps, NULL, 0), CUZK_OK);
    assert_true(pb->vector_bytes[0] > ps->resident_bytes / 2); /* the big key's H alone makes room */
    *budget = pb->resident_bytes + (uint64_t)pb->slots * pb->slot_bytes + ps->resident_bytes / 2;
    return 1;
}

/* Two GPUs of different sizes (the second one's memory mostly held by this test before the
 * engine starts: what the engine may use there is just what a big 2^21 key's one streaming
 * worker needs plus half of what a small 2^19 key takes resident). The big key: resident on
 * the first GPU, streamed on the second. A pinned small key: the first GPU could hold it
 * resident once the big key's H gives way, the second cannot at all, so the load fails with
 * CUZK_EBUDGET naming the second GPU and the big key keeps every base on the first (before
 * issue 29 its H was evicted there for a load that then failed). Its partitions still prove
 * on both GPUs with the bytes they gave before. */
static void test_two_devices_plan_first(void **state)
{
    (void)state;
    rand_part big, small;
    cuzk_placement pb, ps;
    uint64_t budget;
    char msg[512];
    if (!two_device_keys(&big, &small, &pb, &ps, &budget)) skip();
    assert_int_equal(probe_one(&big.shape, (uint64_t)1 << 20, 0, &pb, msg, sizeof msg), CUZK_EBUDGET);
    const unsigned long long need = strtoull(strstr(msg, "needs ") + 6, NULL, 10);
    /* the second GPU made small: what the engine finds free there (less its 640 MiB margin) */
    size_t fr = 0, total = 0;
    void *hold = NULL;
    const uint64_t want_free = need + ps.resident_bytes / 2 + ((uint64_t)640 << 20);
    assert_int_equal(gpu_set_device(1), 0);
    assert_int_equal(gpu_mem_info(&fr, &total), 0);
    assert_true(fr > want_free);
    assert_int_equal(gpu_malloc(&hold, fr - want_free), 0);
    assert_int_equal(gpu_set_device(0), 0);

    enum { N = 4 };
    fr_t r[N], s[N];
    ft_rand_fr(&r[0]), ft_rand_fr(&s[0]);
    for (int i = 1; i < N; i++) r[i] = r[0], s[i] = s[0]; /* one r, s: equal proofs on either GPU */
    uint8_t before[N][192], after[N][192];
    cuzk_engine *e = engine_on(3, budget, 2, 0, 0);
    cuzk_srs *sb, *ss;
    assert_int_equal(engine_srs_load_synthetic(e, &big.shape, 0, &sb), CUZK_OK);
    cuzk_placement b0 = placement_of(sb, 0), b1 = placement_of(sb, 1);
    printf("big key: device 0 %s (budget %llu), device 1 %s (budget %llu)\n",
           b0.kind == CUZK_PLACEMENT_RESIDENT ? "resident" : "not resident", (unsigned long long)b0.device_budget_bytes,
           b1.kind == CUZK_PLACEMENT_STREAMED ? "streamed" : b1.kind == CUZK_PLACEMENT_PARTIAL ? "partial" : "resident",
           (unsigned long long)b1.device_budget_bytes);
    assert_int_equal(b0.kind, CUZK_PLACEMENT_RESIDENT);
    assert_true(b1.kind != CUZK_PLACEMENT_RESIDENT);
    prove_n(e, sb, &big.p, r, s, N, before);
    const int rc = engine_srs_load_synthetic(e, &small.shape, CUZK_SRS_PIN, &ss);
    snprintf(msg, sizeof msg, "%s", rc ? cuzk_last_error() : "");
    printf("pinned small key: %s: %s\n", cuzk_strerror(rc), msg);
    assert_int_equal(rc, CUZK_EBUDGET);
    assert_non_null(strstr(msg, "device 1"));
    b0 = placement_of(sb, 0);
    assert_int_equal(b0.kind, CUZK_PLACEMENT_RESIDENT); /* nothing evicted on device 0 */
    assert_int_equal(b0.vector_resident_bytes[0], b0.vector_bytes[0]);
    prove_n(e, sb, &big.p, r, s, N, after);
    for (int i = 0; i < N; i++) assert_memory_equal(after[i], before[0], 192), assert_memory_equal(before[i], before[0], 192);
    cuzk_srs_release(sb);
    cuzk_engine_destroy(e);
    gpu_free(hold);
    gpu_mem_trim();
    gpu_host_free(big.block);
    gpu_host_free(small.block);
}

/* A load that fails past the plan (the first upload of its bases on the second GPU fails:
 * FAULT_CUDA_ALLOC), on two GPUs of one size: the pinned small key took the big key's H on
 * both GPUs before the upload failed, and those stay evicted (docs/api.md, "Several GPUs"):
 * the big key is partial on both, still proving the same bytes (streaming H from its host
 * copy), and a second load of the small key succeeds evicting nothing more and restoring
 * nothing. */
static void test_two_devices_failed_upload(void **state)
{
    (void)state;
    rand_part big, small;
    cuzk_placement pb, ps;
    uint64_t budget;
    if (!two_device_keys(&big, &small, &pb, &ps, &budget)) skip();
    uint32_t uploads = 0; /* the small key's non-empty vectors: one upload each per GPU */
    for (int v = 0; v < 5; v++) uploads += ps.vector_resident_bytes[v] != 0;
    enum { N = 4 };
    fr_t r[N], s[N];
    ft_rand_fr(&r[0]), ft_rand_fr(&s[0]);
    for (int i = 1; i < N; i++) r[i] = r[0], s[i] = s[0];
    uint8_t before[N][192], after[N][192];
    cuzk_engine *e = engine_on(3, budget, 2, 0, 0);
    cuzk_srs *sb, *ss;
    assert_int_equal(engine_srs_load_synthetic(e, &big.shape, 0, &sb), CUZK_OK);
    for (uint32_t d = 0; d < 2; d++) assert_int_equal(placement_of(sb, d).kind, CUZK_PLACEMENT_RESIDENT);
    prove_n(e, sb, &big.p, r, s, N, before);
    fault_arm(FAULT_CUDA_ALLOC, uploads + 1, 1); /* device 0's uploads pass, device 1's first fails */
    const int rc = engine_srs_load_synthetic(e, &small.shape, CUZK_SRS_PIN, &ss);
    const uint64_t hits = fault_hits(FAULT_CUDA_ALLOC);
    fault_disarm_all();
    printf("pinned small key, an upload on device 1 failing: %s: %s\n", cuzk_strerror(rc), rc ? cuzk_last_error() : "");
    assert_int_equal(hits, 1);
    assert_int_equal(rc, CUZK_EDEVICE);
    for (uint32_t d = 0; d < 2; d++) {
        cuzk_placement p = placement_of(sb, d);
        assert_int_equal(p.kind, CUZK_PLACEMENT_PARTIAL);  /* stays evicted: H */
        assert_int_equal(p.vector_resident_bytes[0], 0);
        assert_int_equal(p.vector_resident_bytes[1], p.vector_bytes[1]);
        assert_true(p.pinned_host_bytes > 0);
    }
    prove_n(e, sb, &big.p, r, s, N, after);
    for (int i = 0; i < N; i++) assert_memory_equal(after[i], before[i], 192);
    assert_int_equal(engine_srs_load_synthetic(e, &small.shape, CUZK_SRS_PIN, &ss), CUZK_OK);
    for (uint32_t d = 0; d < 2; d++) {
        cuzk_placement p = placement_of(sb, d);
        assert_int_equal(p.kind, CUZK_PLACEMENT_PARTIAL); /* not restored, nothing more taken */
        assert_int_equal(p.vector_resident_bytes[1], p.vector_bytes[1]);
        assert_int_equal(placement_of(ss, d).kind, CUZK_PLACEMENT_RESIDENT);
    }
    cuzk_srs_release(ss);
    cuzk_srs_release(sb);
    cuzk_engine_destroy(e);
    gpu_host_free(big.block);
    gpu_host_free(small.block);
}

int main(void)
{
    /* the simulated device (make test-simgpu) has as many GPUs as asked: two, so that the
     * two-GPU cases run there (on one real GPU they skip) */
    if (GPU_TEST_SIMULATED) setenv("CUZK_SIMGPU_DEVICES", "2", 0);
    if (gpu_test_begin()) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_16),
        cmocka_unit_test(test_sweep_20),
        cmocka_unit_test(test_sweep_22),
        cmocka_unit_test(test_real_key_streamed),
        cmocka_unit_test(test_pinned_evicts_idle_key),
        cmocka_unit_test(test_key_in_use_not_evicted),
        cmocka_unit_test(test_urgent_key_room),
        cmocka_unit_test(test_two_devices_plan_first),
        cmocka_unit_test(test_two_devices_failed_upload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
