/*
 * The MSM scratch estimate (msm_gpu_scratch_parts: what the CUDA backend sizes a worker slot's
 * MSM context by) against what the plan itself asks of a context's buffers, at the sizes a
 * storage provider runs: msm_size_run runs kernels/msm/msm_plan.cuh without data or arithmetic.
 * A context's buffers grow and never shrink, so a slot that runs a partition's five MSMs ends
 * holding, per buffer, the largest any of them asked for, whatever their scalars: the estimate
 * must bound that for every share of 0 and 1 scalars, and should not waste gigabytes of a
 * card's bases doing so. Needs no GPU; skipped (77) without CUDA.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "support/testutil.h"

#ifdef CUZK_HAVE_CUDA
#include "cuzk/cuzk.h"
#include "msm.h"

#define GiB 1073741824.0

/* A key's vectors in the order a slot runs them: H, L, A, B_G1, B_G2 */
typedef struct {
    const char *name;
    size_t n[5];
} key_shape;

static const int curve_of[5] = {MSM_CURVE_G1, MSM_CURVE_G1, MSM_CURVE_G1, MSM_CURVE_G1, MSM_CURVE_G2};

/* PoRep 2^27 (counts rounded, FORMATS.md) and WinningPoSt 2^19's proportions */
static const key_shape porep = {"PoRep 2^27", {(1u << 27) - 1, 130000000, 130000000, 32000000, 32000000}};
static const key_shape winning = {"WinningPoSt 2^19", {(1u << 19) - 1, (1u << 19) - 64, 1u << 19, 1u << 17, 1u << 17}};

typedef struct {
    size_t entries;     /* the context's sort entries a group */
    int g2_half, acc;   /* msm_gpu_ctx_set_g2_half, MSM_ACC_* */
    unsigned waves;
    size_t piece_bytes; /* 0: whole vectors (msm_gpu_run) */
    size_t wave_g1, wave_g2;
    size_t shared; /* pieces share buckets within this many bytes (CUZK_MSM_SHARED_BUCKETS_MB); 0: not */
} slot_cfg;

static size_t piece_pts(const slot_cfg *c, int v)
{
    return c->piece_bytes ? c->piece_bytes / (curve_of[v] == MSM_CURVE_G1 ? 96 : 192) : 0;
}

/* The backend's rule (lib/backend/cuda_flow.c, msm_scratch): each part's largest over the
 * key's vectors, G2's at half the entries where the context halves them. */
static size_t estimate(const key_shape *k, const slot_cfg *c, msm_scratch_parts *parts)
{
    msm_scratch_parts most, p;
    memset(&most, 0, sizeof most);
    for (int v = 0; v < 5; v++) {
        const size_t e = curve_of[v] == MSM_CURVE_G2 && c->g2_half ? c->entries / 2 : c->entries;
        const size_t shared = c->piece_bytes ? c->shared : 0;
        msm_gpu_scratch_parts(curve_of[v], k->n[v], e, piece_pts(c, v), shared, c->waves, c->acc, &p);
        assert_int_equal(msm_scratch_parts_total(&p),
                         msm_gpu_scratch_bytes(curve_of[v], k->n[v], e, piece_pts(c, v), shared, c->waves, c->acc));
        msm_scratch_parts_max(&most, &p);
    }
    if (parts) *parts = most;
    return msm_scratch_parts_total(&most);
}

static void run(msm_size_ctx *s, const slot_cfg *c, int v, size_t n, size_t n1, size_t nr, int spread)
{
    /* H over two precomputed copies where the slot made them (full slots) */
    const unsigned copies = v == 0 && !c->piece_bytes ? 2 : 1;
    assert_int_equal(msm_size_run(s, curve_of[v], n, n1, nr, piece_pts(c, v), spread, copies, 0), CUZK_OK);
}

/* Every vector of k on context s, over a grid of counts (n·1.08^-i scalars other than 0 and 1,
 * the rest zeros or ones; pieces spread evenly, front-first, and late, the first piece's one
 * such scalar fixing the smallest window) and random ones. */
static void run_key(msm_size_ctx *s, const key_shape *k, const slot_cfg *c, int randoms)
{
    for (int v = 0; v < 5; v++) {
        const size_t n = k->n[v];
        for (double f = 1.0; (size_t)(n * f) > 0; f /= 1.08) {
            const size_t nr = (size_t)(n * f);
            for (int spread = 0; spread < (c->piece_bytes ? 3 : 1); spread++) {
                run(s, c, v, n, 0, nr, spread);
                run(s, c, v, n, n - nr, nr, spread);
            }
        }
        run(s, c, v, n, n, 0, 1);
        run(s, c, v, n, 0, 0, 1);
        for (int i = 0; i < randoms; i++) {
            const size_t nr = test_rand64() % (n + 1), n1 = test_rand64() % (n - nr + 1);
            run(s, c, v, n, n1, nr, (int)(test_rand64() & 1));
        }
    }
}

/* What a context ends holding after run_key. */
static size_t worst_held(const key_shape *k, const slot_cfg *c, int randoms, msm_scratch_parts *parts)
{
    msm_size_ctx *s = msm_size_ctx_new(c->entries, c->g2_half, c->acc, c->waves, c->wave_g1, c->wave_g2);
    assert_non_null(s);
    msm_size_ctx_set_shared(s, c->piece_bytes ? c->shared : 0);
    run_key(s, k, c, randoms);
    const size_t held = msm_size_held(s);
    if (parts) msm_size_held_parts(s, parts);
    msm_size_ctx_free(s);
    return held;
}

static const char *acc_name(int acc)
{
    return acc == MSM_ACC_XYZZ ? "xyzz" : acc == MSM_ACC_PAIRWISE ? "pairwise" : "auto";
}

/* held <= estimate, part by part, in every slot layout the backend makes (full at 2^25..2^28
 * entries, lean in pieces: 768 and 1536 MiB at 2^25..2^27 entries, and an eighth of a small key's H,
 * cuda_piece_bytes; lean pieces sharing buckets within 256 MiB .. 2 GiB),
 * every accumulation, with and without urgent waves, at the estimate's wave bounds and at an
 * H200's occupancy (G1 3 blocks of 128 on 132 SMs, G2 2 of 64) */
static void test_bound_holds(void **state)
{
    (void)state;
    const int accs[3] = {MSM_ACC_XYZZ, MSM_ACC_AUTO, MSM_ACC_PAIRWISE};
    const key_shape *keys[2] = {&porep, &winning};
    for (int ki = 0; ki < 2; ki++)
        for (int a = 0; a < 3; a++)
            for (int half = 0; half < 2; half++)
                for (int layout = 0; layout < 15; layout++) {
                    const size_t small_piece = keys[ki]->n[0] * 96 / 8 / 192 * 192; /* cuda_piece_bytes */
                    /* 7..10: lean slots widened at load (cuda_keys.c, widest_lean_entries) */
                    /* 11..14: pieces sharing buckets (CUZK_MSM_SHARED_BUCKETS_MB) */
                    static const int logs[15] = {25, 26, 27, 28, 25, 25, 25, 26, 27, 26, 27, 25, 25, 27, 26};
                    static const unsigned piece_mb[15] = {0, 0, 0, 0, 768, 1536, 0, 768, 768, 1536, 1536,
                                                          768, 768, 1536, 1536};
                    static const unsigned shared_mb[15] = {[11] = 512, [12] = 2048, [13] = 1024, [14] = 256};
                    slot_cfg c = {(size_t)1 << logs[layout], half, accs[a], 1,
                                  layout == 6 ? small_piece : (size_t)piece_mb[layout] << 20, 0, 0,
                                  (size_t)shared_mb[layout] << 20};
                    for (int wv = 0; wv < 3; wv++) {
                        c.waves = wv == 1 ? 8 : 1;
                        c.wave_g1 = wv == 2 ? 132 * 384 : 0, c.wave_g2 = wv == 2 ? 132 * 128 : 0;
                        msm_scratch_parts hp, ep;
                        const size_t held = worst_held(keys[ki], &c, 8, &hp), est = estimate(keys[ki], &c, &ep);
                        int part_over = 0;
                        for (int i = 0; i < MSM_PARTS; i++) part_over |= hp.part[i] > ep.part[i];
                        if (held > est || part_over || (ki == 0 && wv == 0))
                            printf("%s, %s, g2 half %d, 2^%d entries, pieces %zu MiB (shared %zu), %u waves%s: held "
                                   "%.3f GiB, estimate %.3f GiB\n", keys[ki]->name, acc_name(c.acc), half,
                                   __builtin_ctzll(c.entries), c.piece_bytes >> 20, c.shared >> 20, c.waves,
                                   wv == 2 ? " (H200 occupancy)" : "", held / GiB, est / GiB);
                        for (int i = 0; i < MSM_PARTS; i++)
                            if (hp.part[i] > ep.part[i])
                                printf("  part %d: held %.3f GiB, estimate %.3f GiB\n", i, hp.part[i] / GiB,
                                       ep.part[i] / GiB);
                        assert_true(held <= est);
                        assert_false(part_over);
                    }
                }
}

/* Each part alone, MSM by MSM, at counts just below and above every window change: a run's sort
 * entries are not monotone in its count (4433132 scalars take 16 windows, 4433133 take 15),
 * and over precomputed copies of any count (13 windows in two merged ones of 7 copies: 14 a
 * point). */
static void test_window_changes(void **state)
{
    (void)state;
    const int accs[3] = {MSM_ACC_XYZZ, MSM_ACC_AUTO, MSM_ACC_PAIRWISE};
    size_t runs = 0;
    for (int curve = MSM_CURVE_G1; curve <= MSM_CURVE_G2; curve++)
        for (int a = 0; a < 3; a++)
            for (size_t e = (size_t)1 << 25; e <= (size_t)1 << 28; e <<= 1)
                for (double nf = 64; nf < 6e7; nf *= 1.03) {
                    const size_t n = (size_t)nf;
                    msm_scratch_parts est, held;
                    msm_gpu_scratch_parts(curve, n, e, 0, 0, 1, accs[a], &est);
                    for (unsigned copies = 1; copies <= 16; copies += copies < 2 ? 1 : 5) {
                        msm_size_ctx *s = msm_size_ctx_new(e, 0, accs[a], 1, 0, 0);
                        assert_non_null(s);
                        for (double f = 1.0; f > 0.75; f /= 1.02, runs++)
                            assert_int_equal(msm_size_run(s, curve, n, 0, (size_t)(n * f), 0, 1, copies, 0), CUZK_OK);
                        msm_size_held_parts(s, &held);
                        for (int i = 0; i < MSM_PARTS; i++)
                            if (held.part[i] > est.part[i]) {
                                printf("G%d, %zu points, 2^%d entries, %s, %u copies: part %d held %zu > estimate %zu\n",
                                       curve == MSM_CURVE_G1 ? 1 : 2, n, __builtin_ctzll(e), acc_name(accs[a]), copies, i,
                                       held.part[i], est.part[i]);
                                fail();
                            }
                        msm_size_ctx_free(s);
                    }
                }
    printf("%zu runs within their estimate, part by part\n", runs);
}

/* ... and wastes little: every GiB over what the plan can take is a GiB of bases a card does
 * not hold resident. The precomputed copies' buckets (counted for every whole vector: copies
 * are made after the slots are sized) and CUB's share are what remains. */
static void test_bound_is_tight(void **state)
{
    (void)state;
    const int accs[2] = {MSM_ACC_XYZZ, MSM_ACC_AUTO};
    for (int a = 0; a < 2; a++)
        for (int layout = 0; layout < 5; layout++) {
            const slot_cfg c = {(size_t)1 << (layout < 3 ? 26 + layout : 25), 1, accs[a], 1,
                                layout == 3 ? (size_t)768 << 20 : layout == 4 ? (size_t)1536 << 20 : 0, 0, 0, 0};
            msm_scratch_parts hp, ep;
            const size_t held = worst_held(&porep, &c, 0, &hp), est = estimate(&porep, &c, &ep);
            for (int i = 0; i < MSM_PARTS; i++)
                printf("  part %d: held %.3f GiB, estimate %.3f GiB\n", i, hp.part[i] / GiB, ep.part[i] / GiB);
            printf("PoRep, %s, 2^%d entries, pieces %zu MiB: estimate %.3f GiB over %.3f held (+%.1f %%)\n",
                   acc_name(c.acc), __builtin_ctzll(c.entries), c.piece_bytes >> 20, est / GiB, held / GiB,
                   100.0 * ((double)est / (double)held - 1));
            assert_true(est <= held + held / 8 + ((size_t)256 << 20));
        }
}

/* Halving G2's entries keeps a rich (pairwise) slot's pairwise scratch at G1's: PoRep's at
 * 2^26 entries costs the slot no more than H's own pairwise scratch over XYZZ's. */
static void test_g2_half(void **state)
{
    (void)state;
    for (size_t e = (size_t)1 << 26; e <= (size_t)1 << 28; e <<= 1) {
        slot_cfg rich = {e, 1, MSM_ACC_AUTO, 1, 0, 0, 0, 0}, plain = rich, whole = rich;
        plain.acc = MSM_ACC_XYZZ;
        whole.g2_half = 0;
        msm_scratch_parts h;
        msm_gpu_scratch_parts(MSM_CURVE_G1, porep.n[0], e, 0, 0, 1, MSM_ACC_PAIRWISE, &h);
        const size_t r = estimate(&porep, &rich, NULL), p = estimate(&porep, &plain, NULL),
                     w = estimate(&porep, &whole, NULL);
        printf("2^%d entries: rich %.2f GiB (G2 at all entries %.2f), plain %.2f, H's pairwise scratch %.2f\n",
               __builtin_ctzll(e), r / GiB, w / GiB, p / GiB, h.part[MSM_PART_PAIR] / GiB);
        assert_true(r <= p + h.part[MSM_PART_PAIR] + ((size_t)1 << 30) / 4);
        assert_true(w > r + h.part[MSM_PART_PAIR] / 2); /* G2 at all entries: twice H's pairwise */
    }
}

/* The buckets' bound per window size (msm.cu, run_buckets_bound) rests on the window never
 * falling as the count of scalars other than 0 and 1 grows: check it against every count of a
 * small MSM, each entry cap and accumulation, and a fine grid at PoRep's size. */
static void test_buckets_every_count(void **state)
{
    (void)state;
    const int accs[3] = {MSM_ACC_XYZZ, MSM_ACC_PAIRWISE, MSM_ACC_AUTO};
    const size_t caps[3] = {(size_t)1 << 10, (size_t)1 << 14, (size_t)1 << 20};
    for (int curve = MSM_CURVE_G1; curve <= MSM_CURVE_G2; curve++)
        for (int a = 0; a < 3; a++)
            for (int ci = 0; ci < 3; ci++) {
                const size_t n = curve == MSM_CURVE_G1 ? 20000 : 6000;
                msm_size_ctx *s = msm_size_ctx_new(caps[ci], 0, accs[a], 1, 0, 0);
                assert_non_null(s);
                for (size_t nr = 0; nr <= n; nr++) assert_int_equal(msm_size_run(s, curve, n, 0, nr, 0, 1, 1, 0), 0);
                msm_scratch_parts held, est;
                msm_size_held_parts(s, &held);
                msm_gpu_scratch_parts(curve, n, caps[ci], 0, 0, 1, accs[a], &est);
                assert_true(held.part[MSM_PART_BUCKETS] <= est.part[MSM_PART_BUCKETS]);
                assert_true(msm_size_held(s) <= msm_scratch_parts_total(&est));
                msm_size_ctx_free(s);
            }
    /* H of a PoRep key at 2^26 entries: counts n·1.001^-i */
    for (int a = 0; a < 2; a++) {
        const size_t n = ((size_t)1 << 27) - 1, cap = (size_t)1 << 26;
        msm_size_ctx *s = msm_size_ctx_new(cap, 0, a ? MSM_ACC_PAIRWISE : MSM_ACC_XYZZ, 1, 0, 0);
        assert_non_null(s);
        for (double f = 1.0; (size_t)(n * f) > 0; f /= 1.001)
            assert_int_equal(msm_size_run(s, MSM_CURVE_G1, n, 0, (size_t)(n * f), 0, 1, 1, 0), 0);
        msm_scratch_parts held, est;
        msm_size_held_parts(s, &held);
        msm_gpu_scratch_parts(MSM_CURVE_G1, n, cap, 0, 0, 1, a ? MSM_ACC_PAIRWISE : MSM_ACC_XYZZ, &est);
        printf("H 2^27 at 2^26 entries, %s: buckets at most %.3f GiB over every count, bound %.3f GiB\n",
               a ? "pairwise" : "xyzz", held.part[MSM_PART_BUCKETS] / GiB, est.part[MSM_PART_BUCKETS] / GiB);
        assert_true(held.part[MSM_PART_BUCKETS] <= est.part[MSM_PART_BUCKETS]);
        msm_size_ctx_free(s);
    }
}

/* Keys sharing a slot: its context runs them one partition after another, keeping each buffer
 * at the largest request, while the slot is budgeted for the largest key's scratch. Under one
 * accumulation the largest key's parts are each the largest (Filecoin's shapes at 2^27 and
 * WinningPoSt's: lib/groth16/synth_shape.c's proportions), so that holds; across accumulations
 * it does not (a pairwise key's scratch beside an XYZZ key's larger index lists and buckets),
 * which is why a slot empties its context when the accumulation changes (cuda_slot.c,
 * slot_prepare). */
static void test_keys_in_one_slot(void **state)
{
    (void)state;
    static const key_shape snap = {"SnapDeals 2^27", {(1u << 27) - 1, 81000000, 48600000, 20600000, 20600000}};
    static const key_shape wpost = {"WindowPoSt 2^27", {(1u << 27) - 1, 125000000, 116000000, 70000000, 70000000}};
    const key_shape *keys[4] = {&porep, &snap, &wpost, &winning};
    for (int lg = 26; lg <= 28; lg++) {
        msm_size_ctx *s[2];
        size_t most[2] = {0, 0};
        for (int a = 0; a < 2; a++) {
            /* one context runs every key's partition in turn (the plan itself, not the
             * estimate, says what it holds); the slot is budgeted for the largest key */
            const slot_cfg c = {(size_t)1 << lg, a, a ? MSM_ACC_AUTO : MSM_ACC_XYZZ, 1, 0, 0, 0, 0};
            s[a] = msm_size_ctx_new(c.entries, c.g2_half, c.acc, 1, 0, 0);
            assert_non_null(s[a]);
            for (int k = 0; k < 4; k++) {
                const size_t t = estimate(keys[k], &c, NULL);
                most[a] = t > most[a] ? t : most[a];
                run_key(s[a], keys[k], &c, 2);
            }
            printf("2^%d entries, %s: four keys in one context hold %.2f GiB, the largest key's estimate %.2f\n", lg,
                   acc_name(c.acc), msm_size_held(s[a]) / GiB, most[a] / GiB);
            assert_true(msm_size_held(s[a]) <= most[a]);
        }
        /* XYZZ keys' and pairwise keys' partitions in one context (a slot shared by keys the
         * placement gave different accumulations), for the record: slot_prepare empties the
         * context when the accumulation changes, so the slot never holds both */
        printf("2^%d entries: XYZZ and pairwise keys in one context would hold %.2f GiB, budgeted %.2f\n", lg,
               msm_size_held_both(s[0], s[1]) / GiB, (most[0] > most[1] ? most[0] : most[1]) / GiB);
        msm_size_ctx_free(s[0]);
        msm_size_ctx_free(s[1]);
    }
}

/* A lent arena's configuration (msm_gpu_lent_config): a lean slot's free domain vector (4 GiB
 * at 2^27 scalars) lent to PoRep's H MSM of 2^27 G1 points in 768 MiB pieces (2^23 points).
 * The choice's estimate fits, and what the plan itself holds over the pieces (the sizing
 * executor; every scalar other than 0 and 1, half of them, few, the first piece's one alone)
 * with CUB's share of the arena (msm.cu: at most 8 MiB + an entry's quarter byte) fits too.
 * Too small an arena has no configuration. */
static void test_lent_config(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 27, piece = (size_t)768 << 20, pts = piece / 96, bytes = (size_t)4 << 30;
    size_t e = 0, sh = 0;
    assert_int_equal(msm_gpu_lent_config(MSM_CURVE_G1, n, pts, 1, bytes, &e, &sh), CUZK_OK);
    msm_scratch_parts p;
    msm_gpu_scratch_parts(MSM_CURVE_G1, n, e, pts, sh, 1, MSM_ACC_XYZZ, &p);
    const size_t est = msm_scratch_parts_total(&p);
    printf("PoRep H on a 4 GiB loan: 2^%d entries, shared buckets %zu MiB: estimate %.3f GiB\n",
           __builtin_ctzll(e), sh >> 20, est / GiB);
    for (int i = 0; i < MSM_PARTS; i++) printf("  part %d: %.3f GiB\n", i, p.part[i] / GiB);
    assert_true(e >= (size_t)1 << 25 && e <= (size_t)1 << 27 && !(e & (e - 1)));
    assert_true(sh == 0 || sh == (size_t)512 << 20 || sh == (size_t)1024 << 20 || sh == (size_t)2048 << 20);
    assert_true(est <= bytes);
    /* the slot's own (2^25 entries, each piece reducing) is not better */
    assert_true(e > (size_t)1 << 25 || sh);
    const double shares[4] = {1.0, 0.5, 0.001, 0};
    for (int f = 0; f < 4; f++) {
        msm_size_ctx *s = msm_size_ctx_new(e, 0, MSM_ACC_XYZZ, 1, 0, 0);
        assert_non_null(s);
        msm_size_ctx_set_shared(s, sh);
        const size_t nr = f == 3 ? n : (size_t)(n * shares[f]);
        assert_int_equal(msm_size_run(s, MSM_CURVE_G1, n, 0, nr, pts, f == 3 ? 2 : 1, 1, 0), CUZK_OK);
        /* as the loan carves them (msm.cu, lent_request): the sort buffers at e entries, a
         * group's buckets at the shared array's size, CUB's storage at its bound */
        msm_scratch_parts h;
        msm_size_held_parts(s, &h);
        if (h.part[MSM_PART_SORT] < e * 16) h.part[MSM_PART_SORT] = e * 16;
        if (h.part[MSM_PART_BUCKETS] < h.part[MSM_PART_MERGE]) h.part[MSM_PART_BUCKETS] = h.part[MSM_PART_MERGE];
        const size_t held = msm_scratch_parts_total(&h) + ((size_t)8 << 20) + e / 4;
        printf("  %s: the loan holds %.3f GiB\n", f == 3 ? "first piece's one first" : "spread", held / GiB);
        assert_true(held <= bytes);
        msm_size_ctx_free(s);
    }
    assert_int_not_equal(msm_gpu_lent_config(MSM_CURVE_G1, n, pts, 1, (size_t)256 << 20, &e, &sh), CUZK_OK);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound_holds),
        cmocka_unit_test(test_window_changes),
        cmocka_unit_test(test_bound_is_tight),
        cmocka_unit_test(test_g2_half),
        cmocka_unit_test(test_buckets_every_count),
        cmocka_unit_test(test_keys_in_one_slot),
        cmocka_unit_test(test_lent_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void) { return 77; }
#endif
