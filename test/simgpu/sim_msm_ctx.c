/*
 * MSM contexts on the simulated device (simgpu.h): their settings, and the device memory
 * they hold. A device context's buffers grow to the largest request each sees and keep it;
 * here the plan's own sizing executor (msm_size_*, kernels/msm/msm_sim.cu) runs every MSM
 * without data, and the context charges its device what that executor says the buffers hold.
 *
 * The sizing context has one configuration (entries, G2 at half, accumulation, waves) for
 * life, the device context's change in place and keep their buffers. So a change folds the
 * sizing context into `past`, each part's largest (msm_scratch_parts), and a fresh one sizes
 * the runs after: what is held is, per part, the larger of the two. Exact while the
 * configuration stays (a worker slot's case: the backend trims when the accumulation
 * changes); across changes, a part whose buffers grew under different configurations is
 * taken as its largest, where the device holds each buffer's largest, a few bytes more.
 * Not sized as on the device (what the placement's estimate leaves out too, or the backend
 * never does): a window forced by msm_gpu_ctx_set_window, runs forced onto precomputed copies
 * (sized as the cost model chooses), runs from first > 0 (sized as n points from 0),
 * persistent buckets (sized as pieces that each reduce theirs), and an empty run's few
 * 256-byte buffers. Pieces: sim_msm.c.
 */
#include "simgpu.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cuzk.h"
#include "error.h"
#include "sim_msm.h"

#define ENTRIES_DEFAULT ((size_t)1 << 28)
#define ENTRIES_MAX ((size_t)1 << 30)

static size_t entries_of(size_t max_entries)
{
    max_entries = max_entries ? max_entries : ENTRIES_DEFAULT;
    return max_entries > ENTRIES_MAX ? ENTRIES_MAX : max_entries;
}

/* What ctx holds by the sizing: per part, the larger of past and the current configuration's. */
static size_t held_now(const msm_gpu_ctx *c, msm_scratch_parts *out)
{
    msm_scratch_parts cur;
    msm_size_held_parts(c->sz, &cur); /* zeros without a sizing context */
    size_t t = 0;
    for (int i = 0; i < MSM_PARTS; i++) {
        out->part[i] = cur.part[i] > c->past.part[i] ? cur.part[i] : c->past.part[i];
        t += out->part[i];
    }
    return t;
}

/* A sizing context for the configuration now. Made as soon as the configuration is known:
 * it reads CUZK_MSM_PAIR_MIN when made, the device context when created (the same unless a
 * test changes the environment meanwhile). NULL on failure (made again at the next run). */
static void sizing_new(msm_gpu_ctx *c)
{
    msm_size_ctx_free(c->sz);
    c->sz = msm_size_ctx_new(c->max_entries, c->g2_half, c->acc, (unsigned)c->waves, 0, 0);
}

/* The configuration changes (the caller sets it, then sizing_new): the runs so far stay
 * held, in past. */
static void fold(msm_gpu_ctx *c)
{
    if (!c->sz) return;
    (void)held_now(c, &c->past);
    msm_size_ctx_free(c->sz);
    c->sz = NULL;
}

/* Every scratch buffer back to the device (the scalars' copy too). */
static void release_all(msm_gpu_ctx *c)
{
    msm_size_ctx_free(c->sz);
    c->sz = NULL;
    memset(&c->past, 0, sizeof c->past);
    if (c->charged) sim_uncharge(c->device, c->charged);
    if (c->scalars_cap) sim_uncharge(c->device, c->scalars_cap);
    c->charged = c->scalars_cap = 0;
}

/* What a loan's buffers take of it, as the device context carves them: the sort buffers of a
 * large run reserved at the loan's entries at once, a group's buckets at the shared array's
 * size where there is one, CUB's storage at its bound (msm.cu's
 * dev_exec, whose CUB share the sizing does not see: taken as that bound). A
 * buffer made anew where it grows (not the latest carved) is not counted: the device's may
 * hold a little more. */
static size_t lent_held(const msm_gpu_ctx *c)
{
    msm_scratch_parts p;
    msm_size_held_parts(c->lent_sz, &p);
    const size_t sort = c->lent_entries * 16, cub = ((size_t)8 << 20) + c->lent_entries / 4;
    if (p.part[MSM_PART_SORT] >= sort / 2 && p.part[MSM_PART_SORT] < sort) p.part[MSM_PART_SORT] = sort;
    if (p.part[MSM_PART_BUCKETS] < p.part[MSM_PART_MERGE]) p.part[MSM_PART_BUCKETS] = p.part[MSM_PART_MERGE];
    return msm_scratch_parts_total(&p) + (cub < c->lent_bytes / 16 ? cub : c->lent_bytes / 16);
}

/* sim_msm_ctx_grow on a loan: nothing charged, a run past the lent bytes fails as there. */
static int grow_lent(msm_gpu_ctx *c, int curve, size_t n, size_t n_one, size_t n_rest, size_t piece, size_t shared,
                     unsigned copies, unsigned pre_c)
{
    msm_size_ctx_set_shared(c->lent_sz, shared);
    int rc = msm_size_run(c->lent_sz, curve, n, n_one, n_rest, piece, 1, copies, pre_c);
    if (rc) return rc;
    const size_t held = lent_held(c);
    if (held > c->lent_bytes)
        return err_set(CUZK_EDEVICE, "msm: a run on lent memory needs %zu bytes, but only %zu bytes are lent", held,
                       c->lent_bytes);
    return CUZK_OK;
}

static _Atomic size_t loans; /* taken, for tests (sim_msm_loans) */

size_t sim_msm_loans(void) { return loans; }

int msm_gpu_ctx_lend(msm_gpu_ctx *c, void *d_base, size_t bytes, size_t max_entries)
{
    if (!c) return err_set(CUZK_EINVAL, "msm_gpu_ctx_lend: NULL context");
    if (!d_base) { /* the end: the simulated stream is done already; an open accumulation goes */
        if (c->lent_sz) c->acc_curve = 0;
        msm_size_ctx_free(c->lent_sz);
        c->lent_sz = NULL;
        c->lent_bytes = c->lent_entries = 0;
        return CUZK_OK;
    }
    if (c->lent_sz)
        return err_set(CUZK_EINVAL, "msm_gpu_ctx_lend: the context already has a loan of %zu bytes", c->lent_bytes);
    if (c->acc_curve)
        return err_set(CUZK_EINVAL, "msm_gpu_ctx_lend: an accumulation begun on the context's own scratch is open");
    if ((uintptr_t)d_base & 255 || !bytes || !max_entries || max_entries > ENTRIES_MAX)
        return err_set(CUZK_EINVAL, "msm_gpu_ctx_lend: %zu bytes at %p (256-byte aligned), %zu entries (1..2^30)",
                       bytes, d_base, max_entries);
    /* either curve sorts max_entries a group on the loan (no G2 at half) */
    c->lent_sz = msm_size_ctx_new(max_entries, 0, c->acc, (unsigned)c->waves, 0, 0);
    if (!c->lent_sz) return CUZK_ENOMEM; /* error set */
    c->lent_bytes = bytes;
    c->lent_entries = max_entries;
    loans++;
    return CUZK_OK;
}

int sim_msm_ctx_grow(msm_gpu_ctx *c, int curve, size_t n, size_t n_one, size_t n_rest, size_t piece, size_t shared,
                     unsigned copies, unsigned pre_c)
{
    if (c->lent_sz) return grow_lent(c, curve, n, n_one, n_rest, piece, shared, copies, pre_c);
    if (!c->sz) sizing_new(c);
    if (!c->sz) return CUZK_ENOMEM; /* error set */
    msm_size_ctx_set_shared(c->sz, shared);
    int rc = msm_size_run(c->sz, curve, n, n_one, n_rest, piece, 1, copies, pre_c);
    if (rc) return rc;
    msm_scratch_parts p;
    const size_t want = held_now(c, &p);
    if (want <= c->charged) return CUZK_OK;
    if ((rc = sim_charge(c->device, want - c->charged, "msm scratch (cudaMallocFromPoolAsync)"))) {
        /* the device context keeps what it held before the failing allocation; this one gives
         * everything back: holding less after an error can only let later work fit, never
         * fail where the device would not */
        release_all(c);
        sizing_new(c);
        return rc;
    }
    c->charged = want;
    return CUZK_OK;
}

int sim_msm_ctx_grow_scalars(msm_gpu_ctx *c, size_t n)
{
    if (c->scalars_cap >= n * 32) return CUZK_OK;
    /* freed first, then the larger one (as the device context's) */
    if (c->scalars_cap) sim_uncharge(c->device, c->scalars_cap);
    c->scalars_cap = 0;
    int rc = sim_charge(c->device, n * 32, "msm scalars (cudaMallocFromPoolAsync)");
    if (rc == CUZK_OK) c->scalars_cap = n * 32;
    return rc;
}

int msm_gpu_ctx_create(msm_gpu_ctx **out, int device, void *stream, size_t max_entries)
{
    *out = NULL;
    msm_gpu_ctx *c = calloc(1, sizeof *c);
    if (!c) return err_set(CUZK_ENOMEM, "msm_gpu_ctx_create");
    c->device = device;
    c->max_entries = entries_of(max_entries);
    int rc = gpu_set_device(device);
    if (!rc && !stream) {
        rc = gpu_stream_create(&c->stream);
        c->own_stream = !rc;
    } else c->stream = stream;
    if (rc) {
        free(c);
        return rc;
    }
    /* a new device context's settings, from the environment as there */
    c->acc = msm_acc_from_env();
    c->pair_min = msm_pair_min_from_env();
    msm_gpu_ctx_set_waves(c, msm_waves_from_env());
    msm_gpu_ctx_set_reduce(c, msm_reduce_from_env());
    c->pre_mode = MSM_PRE_AUTO;
    sizing_new(c);
    if (!c->sz) {
        msm_gpu_ctx_free(c);
        return CUZK_ENOMEM; /* error set */
    }
    *out = c;
    return CUZK_OK;
}

void msm_gpu_ctx_free(msm_gpu_ctx *c)
{
    if (!c) return;
    release_all(c);
    msm_size_ctx_free(c->lent_sz);
    if (c->own_stream) gpu_stream_destroy(c->stream);
    free(c);
}

int msm_gpu_ctx_trim(msm_gpu_ctx *c)
{
    if (!c) return CUZK_OK;
    int rc = gpu_set_device(c->device);
    if (rc) return rc;
    msm_gpu_ctx_discard(c);
    release_all(c);
    sizing_new(c);
    c->acc_curve = 0; /* an accumulation begun before points at the freed buckets */
    return CUZK_OK;
}

int msm_gpu_ctx_set_max_entries(msm_gpu_ctx *c, size_t max_entries)
{
    max_entries = entries_of(max_entries);
    if (max_entries == c->max_entries) return CUZK_OK;
    const int shrink = max_entries < c->max_entries;
    if (!shrink) fold(c); /* more entries: the buffers stay and grow at the next runs */
    c->max_entries = max_entries;
    if (shrink) return msm_gpu_ctx_trim(c);
    sizing_new(c);
    return CUZK_OK;
}

void msm_gpu_ctx_set_g2_half(msm_gpu_ctx *c, int on)
{
    if ((on != 0) == c->g2_half) return;
    fold(c);
    c->g2_half = on != 0;
    sizing_new(c);
}

void msm_gpu_ctx_set_window(msm_gpu_ctx *c, unsigned bits) { c->window_fix = bits >= 4 && bits <= 22 ? bits : 0; }

void msm_gpu_ctx_set_precompute(msm_gpu_ctx *c, int mode)
{
    c->pre_mode = mode == MSM_PRE_OFF || mode == MSM_PRE_FORCE ? mode : MSM_PRE_AUTO;
}

int msm_gpu_ctx_set_acc_kind(msm_gpu_ctx *c, int mode)
{
    mode = mode == MSM_ACC_AFFINE || mode == MSM_ACC_PAIRWISE || mode == MSM_ACC_AUTO ? mode : MSM_ACC_XYZZ;
    if (mode != c->acc) {
        fold(c);
        c->acc = mode;
        sizing_new(c);
    }
    if (mode == MSM_ACC_PAIRWISE || mode == MSM_ACC_AUTO || !c->past.part[MSM_PART_PAIR]) return CUZK_OK;
    /* a kind without pairwise rounds frees their scratch (the device context drops exactly the
     * buffers of MSM_PART_PAIR); the fold above put all of it in past */
    const size_t pair = c->past.part[MSM_PART_PAIR];
    c->past.part[MSM_PART_PAIR] = 0;
    sim_uncharge(c->device, pair);
    c->charged -= pair;
    return CUZK_OK;
}

void msm_gpu_ctx_set_accumulation(msm_gpu_ctx *c, int mode, unsigned min_batch, unsigned kmul)
{
    /* the thresholds change no sizes the plan's sizing sees (kmul > 1 is outside the estimate
     * too): only the kind is kept */
    (void)min_batch, (void)kmul;
    (void)msm_gpu_ctx_set_acc_kind(c, mode);
}

size_t msm_gpu_ctx_pair_scratch_bytes(const msm_gpu_ctx *c)
{
    msm_scratch_parts p;
    (void)held_now(c, &p);
    return p.part[MSM_PART_PAIR];
}

/* A cap on rounds changes no buffer's size (the sizing runs them all), nor any sum. */
void msm_gpu_ctx_set_pair_rounds(msm_gpu_ctx *c, unsigned rounds) { (void)c, (void)rounds; }

void msm_gpu_ctx_set_waves(msm_gpu_ctx *c, unsigned waves)
{
    const int w = waves < 1 ? 1 : waves > MSM_MAX_WAVES ? MSM_MAX_WAVES : (int)waves;
    if (w == c->waves) return;
    fold(c);
    c->waves = w;
    sizing_new(c);
}

void msm_gpu_ctx_set_reduce(msm_gpu_ctx *c, int mode)
{
    c->reduce = mode == MSM_REDUCE_SEGMUL || mode == MSM_REDUCE_LEVELS ? mode : MSM_REDUCE_AUTO;
}

void msm_gpu_ctx_set_gate(msm_gpu_ctx *c, const gpu_gate *gate) { c->gate = gate; }

void *msm_gpu_ctx_stream(const msm_gpu_ctx *c) { return c ? c->stream : NULL; }

void msm_gpu_last_stats(const msm_gpu_ctx *c, msm_gpu_stats *out) { *out = c->last; }

void msm_gpu_ctx_set_counts(msm_gpu_ctx *c, uint32_t n_one, uint32_t n_rest)
{
    c->known = 1;
    c->known_one = n_one, c->known_rest = n_rest;
}
