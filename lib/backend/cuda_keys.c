/*
 * The CUDA backend's keys: a key placed on each device of the engine (cuda_placement.h:
 * resident, partial or streamed from its page-locked host copy), planned on every device
 * before anything is evicted on any (cuda_evict.c takes from idle keys), its bases uploaded
 * or made, and freed with the room it kept. The job flow that reads a placed key is
 * backend_cuda.c.
 */
#if CUZK_HAVE_CUDA
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/backend_common.h"
#include "backend/cuda_internal.h"
#include "cuda_util.h"
#include "error.h"
#include "fault.h"
#include "field/curve.h"
#include "ntt.h"

static void key_vectors(cuda_key *k)
{
    const groth16_params *pk = k->pk;
    k->n[PL_H] = pk->n_h, k->n[PL_L] = pk->n_l, k->n[PL_A] = pk->n_a;
    k->n[PL_B_G1] = pk->n_b_g1, k->n[PL_B_G2] = pk->n_b_g2;
    k->host[PL_H] = (const uint8_t *)pk->h, k->host[PL_L] = (const uint8_t *)pk->l;
    k->host[PL_A] = (const uint8_t *)pk->a, k->host[PL_B_G1] = (const uint8_t *)pk->b_g1;
    k->host[PL_B_G2] = (const uint8_t *)pk->b_g2;
    k->log_m = backend_log2_ceil((uint64_t)pk->n_h + 1);
}

/* The device's second urgent slot given back once no CUZK_SRS_URGENT key is left there (the
 * last one's release marks it, d->urgent_shrink): its buffers and MSM scratch freed (into the
 * device's pool: no wait) and its committed bytes zeroed. Only while nothing holds or waits for
 * that slot. Never waits for the slot (a key's release may come from a finisher); where it
 * cannot now, the next key release or load on the device does it. */
static void urgent_room_settle(cuda_dev *d)
{
    pthread_mutex_lock(&d->lock);
    const int due = d->urgent_shrink && !d->urgent_keys;
    pthread_mutex_unlock(&d->lock);
    if (!due || !slot_pool_try_take_urgent(&d->pool, 1)) return;
    slot_shrink(&d->urgent[1]);
    pthread_mutex_lock(&d->lock);
    if (!d->urgent_keys) /* else a load kept room meanwhile */
        d->urgent_bytes[1] = d->urgent_key_bytes[1] = 0, d->urgent_shrink = 0;
    pthread_mutex_unlock(&d->lock);
    slot_pool_give(&d->pool, SLOT_POOL_URGENT_AT(1));
}

/* A CUZK_SRS_URGENT key's room in device i's second urgent slot, given back when the key goes
 * (released, or its load failed) and it was the last such key there: with others left the room
 * stays whole (their needs may be as large; what each one needs is not kept apart). */
static void urgent_room_back(cuda_dev *d, cuda_key_dev *kd)
{
    if (kd->urgent_set) {
        pthread_mutex_lock(&d->lock);
        if (!--d->urgent_keys) d->urgent_shrink = 1;
        pthread_mutex_unlock(&d->lock);
        kd->urgent_set = 0;
    }
    urgent_room_settle(d);
}

void cuda_key_free(void *be, void *key)
{
    cuda_backend *b = be;
    cuda_key *k = key;
    if (!k) return;
    pthread_mutex_lock(&b->keys_lock); /* no load may pick it as a victim from now on */
    for (cuda_key **at = &b->keys; *at; at = &(*at)->next)
        if (*at == k) {
            *at = k->next;
            break;
        }
    pthread_mutex_unlock(&b->keys_lock);
    for (uint32_t i = 0; i < k->ndev; i++) {
        cuda_dev *d = &b->dev[i];
        gpu_set_device(d->ordinal);
        for (int v = 0; v < PL_N; v++) msm_gpu_bases_free(k->dev[i].whole[v]);
        pthread_mutex_lock(&d->lock);
        d->resident -= k->dev[i].pl.resident_total + k->dev[i].pl.copies_bytes;
        pthread_mutex_unlock(&d->lock);
        urgent_room_back(d, &k->dev[i]);
    }
    if (k->registered)
        for (int v = 0; v < PL_N; v++)
            if (k->n[v]) gpu_host_unregister((void *)k->host[v]);
    if (k->pinned_block) gpu_host_free(k->pinned_block);
    if (k->synthetic) { /* the host pointers were ours */
        free(k->pk->vk.ic);
        free(k->pk);
    } else groth16_params_free(k->pk);
    free(k);
}

/* Synthetic bases of vector v: msm_gpu_bases_generate's sequence with a seed per vector, the
 * same points whether generated resident or into the host copy. */
static const uint64_t synth_seed[PL_N] = {14, 15, 13, 12, 11}; /* B_G1, B_G2, A, L, H */

static int synth_into(void *d_out, int v, uint64_t first, uint64_t count)
{
    const void *g = pl_curve(v) == MSM_CURVE_G1 ? (const void *)&G1_GENERATOR : (const void *)&G2_GENERATOR;
    uint64_t seed = synth_seed[v];
    return msm_gpu_bases_generate_into(d_out, pl_curve(v), first, count, g, seed, 0x9e3779b97f4a7c15ull ^ seed);
}

/* The resident prefix of vector v on device slot i: uploaded from the host, or made. */
static int place_resident(cuda_key *k, cuda_key_dev *kd, int ordinal, int v)
{
    uint64_t pts = kd->pl.resident[v] / pl_point_bytes(v);
    if (!pts) return CUZK_OK;
    if (FAULT_HIT(FAULT_CUDA_ALLOC)) return err_set(CUZK_EDEVICE, "injected fault: no device memory for bases");
    int rc;
    if (!k->synthetic) rc = msm_gpu_bases_upload(&kd->whole[v], ordinal, pl_curve(v), k->host[v], pts);
    else {
        const void *g = pl_curve(v) == MSM_CURVE_G1 ? (const void *)&G1_GENERATOR : (const void *)&G2_GENERATOR;
        uint64_t seed = synth_seed[v];
        rc = msm_gpu_bases_generate(&kd->whole[v], ordinal, pl_curve(v), pts, g, seed, 0x9e3779b97f4a7c15ull ^ seed);
    }
    if (rc) return rc;
    kd->res[v] = (void *)msm_gpu_bases_data(kd->whole[v]);
    return CUZK_OK;
}

/* Pinned host bases for streaming: the params' own arrays registered in place, or (synthetic
 * keys) a pinned block filled from the device piece by piece. */
int cuda_key_pin_host(cuda_key *k, int ordinal)
{
    int rc;
    if (k->registered || k->pinned_block) return CUZK_OK;
    const uint64_t total = cuda_key_bases_bytes(k);
    /* a failure leaves nothing behind (no bytes counted, no block): a load that fails to pin a
     * would-be victim tries again later, and eviction trusts a pinned copy to hold the bases */
    if (!k->synthetic) {
        for (int v = 0; v < PL_N; v++) {
            if (!k->n[v]) continue;
            if ((rc = gpu_host_register((void *)k->host[v], k->n[v] * pl_point_bytes(v)))) {
                for (int u = 0; u < v; u++)
                    if (k->n[u]) gpu_host_unregister((void *)k->host[u]);
                return rc;
            }
        }
        atomic_store_explicit(&k->pinned_bytes, total, memory_order_relaxed); /* a statistic */
        k->registered = 1;
        return CUZK_OK;
    }
    uint8_t *block = NULL;
    if ((rc = gpu_host_alloc((void **)&block, total))) return err_set(CUZK_ENOMEM, "CUDA backend: %s", cuzk_last_error());
    void *tmp = NULL;
    uint64_t piece = cuda_piece_bytes(k);
    const uint8_t *host[PL_N];
    if (!(rc = gpu_set_device(ordinal)) && !(rc = gpu_malloc(&tmp, piece))) {
        uint8_t *at = block;
        for (int v = 0; v < PL_N && !rc; v++) {
            uint64_t pb = pl_point_bytes(v), per = piece / pb;
            host[v] = at;
            for (uint64_t i = 0; i < k->n[v] && !rc; i += per) {
                uint64_t cnt = k->n[v] - i < per ? k->n[v] - i : per;
                if (!(rc = synth_into(tmp, v, i, cnt))) rc = gpu_memcpy_to_host(at + i * pb, tmp, cnt * pb);
            }
            at += k->n[v] * pb;
        }
        gpu_free(tmp);
    }
    if (rc) {
        gpu_host_free(block);
        return rc;
    }
    memcpy(k->host, host, sizeof host);
    atomic_store_explicit(&k->pinned_bytes, total, memory_order_relaxed);
    k->pinned_block = block;
    return CUZK_OK;
}

uint64_t cuda_dev_used(const cuda_dev *d)
{
    uint64_t used = d->resident + d->cs_resident + (uint64_t)d->nslots * d->slot_bytes;
    for (int j = 0; j < CUDA_URGENT_SLOTS; j++) used += d->urgent_bytes[j];
    return used;
}

/* Device d's placement inputs for k, its slots' scratch sized for accumulation acc (the plain
 * one, cuda_acc_plain, as place_key places first; plan_key_entries asks for the rich one too). */
static void fill_pl_input(const cuda_backend *b, const cuda_dev *d, const cuda_key *k, int acc, pl_input *in)
{
    memset(in, 0, sizeof *in);
    for (int v = 0; v < PL_N; v++) in->base_bytes[v] = k->n[v] * pl_point_bytes(v);
    uint64_t used = cuda_dev_used(d);
    in->avail = d->cap > used ? d->cap - used : 0;
    in->max_slots = d->nslots ? d->nslots
                  : b->workers_per_device < CUDA_MAX_SLOTS ? b->workers_per_device : CUDA_MAX_SLOTS;
    const uint32_t forced = cuda_lean_slots();
    in->lean_slots = in->max_slots < 2 ? 1 /* as placement_decide can give */
                   : forced            ? forced
                                       : cuda_lean_slots_auto(k, in->avail, cuda_cs_slot_extra(d, 1), b->urgent_workers);
    in->slot_bytes = d->nslots ? d->slot_bytes : 0;
    /* the first key sets the device's pieces: larger where it streams and they fit; not with
     * urgent workers, whose own slot for a CUZK_SRS_URGENT key (WindowPoSt, as large as the
     * bulk key) holds two of the device's pieces: loaded later, it would find no room for
     * that slot beside the larger bulk one on a 24 GiB card, and wait for the bulk slot */
    uint64_t piece = d->nslots ? d->piece_bytes
                   : b->urgent_workers ? cuda_piece_bytes(k)
                                       : cuda_piece_bytes_first(k, in->avail, cuda_cs_slot_extra(d, 1), in->lean_slots);
    in->piece_bytes = piece;
    /* slots hold witness-only partitions of the loaded constraint systems too */
    in->ws_full = cuda_ws_full_acc(k, acc) + cuda_cs_slot_extra(d, 0);
    in->ws_lean = cuda_ws_lean_acc(k, piece, acc) + cuda_cs_slot_extra(d, 1);
    in->stream_bufs = 2 * piece;
}

/* The same key in slots sized for cuda_acc_rich (pairwise's scratch where its MSMs are large
 * enough), taken only where that costs nothing the plain placement has: the same kind, layout,
 * slot count, resident prefixes, precomputed copies and urgent room, and no evictions (in0:
 * the inputs as filled, before the plain placement changed them). A 2^27 PoRep key's full slot
 * grows from 25.0 to 28.4 GiB (27.95 to 32.26 before the scratch estimate was tightened, when
 * its partitions ran 5.3 % faster on an H200: bench/RESULTS.md, session 12), which an 80 GB
 * card now holds beside the key; on a GPU made 16 GiB pairwise would stream more bases and
 * lose 6.4 %, and the key keeps XYZZ. 1: *in, *pl and *room replaced. */
static int place_rich(const cuda_dev *d, const cuda_key *k, const pl_input *in0, uint64_t base_room, uint64_t own_room,
                      pl_input *in, pl_result *pl, uint64_t *room)
{
    if (cuda_acc_rich() == cuda_acc_plain()) return 0;
    pl_input rin = *in0;
    rin.ws_full = cuda_ws_full_acc(k, cuda_acc_rich()) + cuda_cs_slot_extra(d, 0);
    rin.ws_lean = cuda_ws_lean_acc(k, rin.piece_bytes, cuda_acc_rich()) + cuda_cs_slot_extra(d, 1);
    if (rin.ws_full == in0->ws_full && rin.ws_lean == in0->ws_lean) return 0; /* too small to take pairwise */
    pl_result r;
    uint64_t rroom = 0;
    uint32_t nev = 0;
    pl_eviction none[PL_MAX_VICTIMS * PL_N]; /* no victims, so none chosen */
    if (placement_with_rooms(&rin, base_room, own_room, k->pinned, NULL, 0, none, &nev, &r, &rroom) != CUZK_OK)
        return 0;
    if (nev || !placement_same_layout(&r, pl) || rroom != *room || rin.keep != in->keep) return 0;
    /* the copies placement_copies would make next, in what each leaves over */
    pl_result plain_c = *pl, rich_c = r;
    placement_copies(in, *room, cuda_copies_max(), &plain_c);
    placement_copies(&rin, rroom, cuda_copies_max(), &rich_c);
    if (rich_c.copies_bytes < plain_c.copies_bytes) return 0;
    *in = rin, *pl = r, *room = rroom;
    return 1;
}

/* What the placement keeps free for the first urgent slot (WinningPoSt's): CUDA_URGENT_ROOM
 * less what that slot has committed, with urgent workers. */
uint64_t cuda_winning_room(const cuda_backend *b, const cuda_dev *d)
{
    return b->urgent_workers && CUDA_URGENT_ROOM > d->urgent_bytes[0] ? CUDA_URGENT_ROOM - d->urgent_bytes[0] : 0;
}

/* The urgent slot a CUZK_SRS_URGENT key commits at load (the second; the first keeps
 * WinningPoSt's room): its lean layout, streaming (what its urgent partitions run in). */
static uint64_t urgent_key_need(const cuda_backend *b, const cuda_key *k, const pl_input *in)
{
    return b->urgent_workers && k->urgent ? cuda_slot_need(k, 1, 1, in->piece_bytes) : 0;
}

/* CUZK_EBUDGET: device d cannot hold even one worker that streams k (need: the bytes it would take). */
static int budget_error(const cuda_dev *d, const cuda_key *k, const pl_input *in, uint64_t need)
{
    if (in->slot_bytes) /* the slots exist: each must grow to stream this key */
        return err_set(CUZK_EBUDGET,
                       "CUDA backend: device %d cannot hold a streaming worker for this key (2^%u domain): "
                       "its %u worker slots of %llu bytes must grow to %llu, which needs %llu bytes; %llu are "
                       "available (device budget %llu, %llu held by other keys and slots, of which keys in use, "
                       "pinned or that these slots cannot stream do not give way)",
                       d->ordinal, k->log_m, in->max_slots, (unsigned long long)in->slot_bytes,
                       (unsigned long long)(in->ws_lean + in->stream_bufs), (unsigned long long)need,
                       (unsigned long long)in->avail, (unsigned long long)d->cap,
                       (unsigned long long)(d->cap - in->avail));
    return err_set(CUZK_EBUDGET,
                   "CUDA backend: device %d cannot hold even one streaming worker for this key (2^%u domain): "
                   "it needs %llu bytes, %llu are available (device budget %llu, %llu held by other keys and "
                   "slots)",
                   d->ordinal, k->log_m, (unsigned long long)need, (unsigned long long)in->avail,
                   (unsigned long long)d->cap, (unsigned long long)(d->cap - in->avail));
}

/* Places k on device i (bookkeeping under the device's lock, then the uploads). With urgent
 * workers the placement leaves CUDA_URGENT_ROOM free for their first slot where only resident
 * bases give way to it, and for a CUZK_SRS_URGENT key also room for the second slot sized for
 * it (committed here: later keys leave it); a larger urgent partition of another key gets its
 * own slot where the card has room left.
 * Where k cannot load at all, or pinned cannot be resident, idle keys loaded before it give
 * way (cuda_evict.c): their host copies are pinned first, outside the device's lock, and the
 * choice is made again once they are. b->keys_lock is held from the first choice to the
 * bookkeeping (the victims stay loaded), not for the uploads: a key freed meanwhile (its last
 * partition's finisher) waits for the choice, not for gigabytes of bases. */
static int place_key(cuda_backend *b, cuda_key *k, uint32_t i)
{
    cuda_dev *d = &b->dev[i];
    cuda_key_dev *kd = &k->dev[i];
    pl_input in;
    pl_victim vs[PL_MAX_VICTIMS];
    cuda_key *owners[PL_MAX_VICTIMS];
    pl_eviction ev[PL_MAX_VICTIMS * PL_N];
    msm_gpu_bases *stash[PL_MAX_VICTIMS * PL_N];
    uint32_t nev = 0, nstash = 0;
    int rc;
    uint64_t own = 0, own_room = 0; /* k's own urgent slot, and what the placement keeps for it */
    urgent_room_settle(d); /* a room a released key left, where its release could not give it back */
    pthread_mutex_lock(&b->keys_lock);
    for (int host_ready = 0;; host_ready = 1) {
        pthread_mutex_lock(&d->lock);
        fill_pl_input(b, d, k, cuda_acc_plain(), &in);
        const pl_input in0 = in;
        /* urgent workers: room for a WinningPoSt-sized slot, where the bulk layout stays, and
         * for an urgent key's own slot (from its own resident bases: it is placed last) */
        const uint64_t base_room = cuda_winning_room(b, d);
        own = urgent_key_need(b, k, &in);
        own_room = own > d->urgent_bytes[1] ? own - d->urgent_bytes[1] : 0;
        uint64_t room = 0;
        uint32_t nv = cuda_evict_candidates(b, k, i, host_ready, NULL, vs, owners);
        rc = placement_with_rooms(&in, base_room, own_room, k->pinned, vs, nv, ev, &nev, &kd->pl, &room);
        if (own_room && (room == base_room || !in.keep)) own = own_room = 0; /* WinningPoSt's room alone */
        if (rc == CUZK_EBUDGET && k->pinned) /* placed as it fits, evicting nothing: check_pinned refuses it */
            rc = placement_with_evictions(&in, room, 0, vs, 0, ev, &nev, &kd->pl);
        kd->msm_acc = cuda_acc_plain();
        if (rc == CUZK_OK && !nev && place_rich(d, k, &in0, base_room, own_room, &in, &kd->pl, &room))
            kd->msm_acc = cuda_acc_rich();
        /* precomputed copies in what is left over, never from what an eviction freed */
        if (rc == CUZK_OK && !nev) placement_copies(&in, room, cuda_copies_max(), &kd->pl);
        if (rc != CUZK_OK || !nev || host_ready) break;
        pthread_mutex_unlock(&d->lock); /* pin the victims' host copies, then choose again */
        for (uint32_t j = 0; j < nev; j++)
            (void)cuda_key_pin_host(owners[ev[j].victim], d->ordinal); /* failed: not a victim then */
        if ((rc = gpu_set_device(d->ordinal))) {
            /* nothing of the plan was applied: cuda_key_free must not take it off the device */
            memset(&kd->pl, 0, sizeof kd->pl);
            pthread_mutex_unlock(&b->keys_lock);
            return rc;
        }
    }
    if (rc == CUZK_OK) {
        cuda_evict_apply(d, i, owners, ev, nev, stash, &nstash);
        if (kd->pl.slots) {
            d->nslots = kd->pl.slots;
            d->piece_bytes = in.piece_bytes;
            slot_pool_add(&d->pool, kd->pl.slots);
        }
        /* set, or grown for this key: its own part recorded (cs_slots.h), so a constraint
         * system's release takes back only the systems' part */
        cs_slots_key(&d->cs, kd->pl.ws == PL_LEAN, kd->pl.slot_bytes);
        d->slot_bytes = cs_slots_bytes(&d->cs);
        d->resident += kd->pl.resident_total + kd->pl.copies_bytes;
        /* loaded counts as used (eviction order): a key loaded ahead of its work is not idle,
         * and gives way after keys last used before it was loaded, not first */
        kd->last_used = bjob_now_ns();
        /* its urgent slot, where the placement kept the room (in.keep: not where keeping it
         * would have changed the layout), or the slot has it already, and WinningPoSt's room
         * stays free beside it (a key streamed whole keeps "room" it does not have) */
        if (own && cuda_dev_used(d) + own_room + cuda_winning_room(b, d) <= d->cap) {
            d->urgent_bytes[1] = kd->urgent_set = d->urgent_bytes[1] + own_room; /* back: urgent_room_back */
            if (d->urgent_bytes[1] > d->urgent_key_bytes[1]) d->urgent_key_bytes[1] = d->urgent_bytes[1];
            d->urgent_keys++;
        }
    }
    pthread_mutex_unlock(&d->lock);
    pthread_mutex_unlock(&b->keys_lock);
    /* no partition of theirs reads them: none ran at the choice, later ones read the new placement */
    for (uint32_t j = 0; j < nstash; j++) msm_gpu_bases_free(stash[j]);
    if (rc) {
        uint64_t need = kd->pl.need;
        memset(&kd->pl, 0, sizeof kd->pl);
        return budget_error(d, k, &in, need);
    }
    for (int v = 0; v < PL_N && !rc; v++) rc = place_resident(k, kd, d->ordinal, v);
    if (!rc) cuda_make_copies(d, kd);
    /* the H step's tables now: built at a partition's first H step they allocate device memory
     * inside it, an urgent partition's too */
    if (!rc && k->log_m >= 1) rc = gpu_ntt_prepare(k->log_m);
    return rc;
}

static int key_streams(const cuda_key *k)
{
    for (uint32_t i = 0; i < k->ndev; i++)
        if (k->dev[i].pl.kind != PL_RESIDENT) return 1;
    return 0;
}

/* A pinned key (CUZK_SRS_PIN) must be resident on every device: never streamed (pl: its
 * placement on device i). */
static int check_pinned(const cuda_backend *b, const cuda_key *k, uint32_t i, const pl_result *pl)
{
    if (pl->kind == PL_RESIDENT) return CUZK_OK;
    const uint64_t all = cuda_key_bases_bytes(k);
    return err_set(CUZK_EBUDGET,
                   "CUDA backend: the pinned key (CUZK_SRS_PIN, 2^%u domain) cannot be resident on device %d: "
                   "%llu of its %llu bytes of bases fit beside the workers and the keys loaded before it, after "
                   "what idle unpinned keys could give way (device budget %llu); load it first or raise "
                   "CUZK_OPT_DEVICE_BUDGET_BYTES",
                   k->log_m, b->dev[i].ordinal, (unsigned long long)pl->resident_total, (unsigned long long)all,
                   (unsigned long long)b->dev[i].cap);
}

/* Every device's choice before any device's is applied (placement_plan): a load that one of
 * them cannot take fails here, with nothing evicted and no host copy page-locked on any device
 * (evicting on the 80 GB card, then finding that the 24 GB one cannot take the key, cost the
 * first card's victims their bases for nothing). place_key chooses again on each device, from
 * what it holds then; what changed meanwhile (an urgent slot grown, a victim's partition
 * started, a victim's host copy that cannot be page-locked) may still refuse it there, past
 * the devices already done. *streams: whether the plan streams anything. */
static int plan_key(cuda_backend *b, cuda_key *k, int acc, pl_device *pd, int *streams)
{
    cuda_key *owners[PL_MAX_VICTIMS]; /* not needed: nothing is applied from the plan */
    for (uint32_t i = 0; i < b->ndev; i++) /* as place_key does: a released key's room back first */
        if (gpu_set_device(b->dev[i].ordinal) == CUZK_OK) urgent_room_settle(&b->dev[i]);
    pthread_mutex_lock(&b->keys_lock);
    for (uint32_t i = 0; i < b->ndev; i++) {
        cuda_dev *d = &b->dev[i];
        pthread_mutex_lock(&d->lock);
        fill_pl_input(b, d, k, acc, &pd[i].in);
        pd[i].base_room = cuda_winning_room(b, d);
        const uint64_t own = urgent_key_need(b, k, &pd[i].in);
        pd[i].own_room = own > d->urgent_bytes[1] ? own - d->urgent_bytes[1] : 0;
        /* victims whose host copies are not page-locked yet count: place_key pins them */
        pd[i].n_victims = cuda_evict_candidates(b, k, i, 0, NULL, pd[i].victims, owners);
        pthread_mutex_unlock(&d->lock);
    }
    pthread_mutex_unlock(&b->keys_lock);
    uint32_t f = 0;
    int rc = placement_plan(pd, b->ndev, k->pinned, &f);
    *streams = rc == CUZK_OK && placement_plan_streams(pd, b->ndev);
    if (rc) {
        /* out: a placement that is not resident (a pinned key: check_pinned names it), or the
         * bytes one streaming slot would need */
        const pl_device *p = &pd[f];
        rc = k->pinned && !p->out.need ? check_pinned(b, k, f, &p->out) : budget_error(&b->dev[f], k, &p->in, p->out.need);
    }
    return rc;
}

/* plan_key at a trial entry cap (placement_choose_entries): a cap that does not fit is not
 * the load's error. */
typedef struct entries_trial {
    cuda_backend *b;
    cuda_key *k;
} entries_trial;

static int plan_at_entries(void *ctx, uint64_t entries, int rich, pl_device *devs)
{
    const entries_trial *t = ctx;
    int streams;
    t->k->msm_entries_full = entries;
    const int rc = plan_key(t->b, t->k, rich ? cuda_acc_rich() : cuda_acc_plain(), devs, &streams);
    if (rc) err_clear();
    return rc;
}

int cuda_lean_plan_keeps(cuda_key *k, const pl_device *base, const pl_device *trial, uint32_t ndev)
{
    const size_t e = k->msm_entries_lean;
    for (uint32_t i = 0; i < ndev; i++) {
        const pl_device *a = &base[i], *t = &trial[i];
        if (t->out.ws != a->out.ws || t->out.kind != a->out.kind || t->out.slots != a->out.slots ||
            t->n_ev || t->in.piece_bytes != a->in.piece_bytes || t->in.lean_slots != a->in.lean_slots ||
            t->room != a->room || t->in.keep != a->in.keep)
            return 0;
        if (t->out.ws != PL_LEAN) continue;
        const uint32_t n = t->out.slots ? t->out.slots : 1;
        const uint64_t extra = t->in.ws_lean - cuda_ws_lean(k, t->in.piece_bytes); /* the systems' part */
        const int trial_fits = cuda_lean_room_fits(k, t->in.piece_bytes, extra, n, t->in.avail);
        k->msm_entries_lean = 0; /* the base's: the default entries */
        const int base_fits = cuda_lean_room_fits(k, a->in.piece_bytes, extra, n, a->in.avail);
        k->msm_entries_lean = e;
        if (base_fits && !trial_fits) return 0;
    }
    return 1;
}

/* A key that streams: its lean slots' MSM sort entries, the widest of 2^27 and 2^26 at which
 * cuda_lean_plan_keeps holds (fewer resident bases are taken: wider window groups re-read each
 * streamed piece fewer times), else CUDA_MSM_ENTRIES_LEAN. On an H200, 2^27 PoRep: made
 * 24 GiB 2^27 (+5.1 % partitions/s), 32 GiB 2^26 with two slots (+2.8 %; 2^27 leaves one),
 * 16 GiB 2^25 (wider slots leave no room for a witness-only partition's witness; without it
 * 2^27 gave +5.0 %): bench/RESULTS.md, session 19. trial: scratch for ndev devices. */
static size_t widest_lean_entries(cuda_backend *b, cuda_key *k, const pl_device *base, pl_device *trial)
{
    for (size_t e = (size_t)1 << 27; e > CUDA_MSM_ENTRIES_LEAN; e >>= 1) {
        k->msm_entries_lean = e;
        int streams;
        memset(trial, 0, b->ndev * sizeof *trial);
        const int rc = plan_key(b, k, cuda_acc_plain(), trial, &streams);
        if (rc) err_clear();
        else if (cuda_lean_plan_keeps(k, base, trial, b->ndev)) return e;
    }
    return CUDA_MSM_ENTRIES_LEAN;
}

/* The key's full slots' MSM sort entries (k->msm_entries_full), then its plan (plan_key, with
 * the plain accumulation's slots, as place_key places first). CUZK_MSM_ENTRIES_LOG where set.
 * Else the largest cap up to 2^28 that placement_choose_entries finds, for a key whose largest
 * MSM the default cap splits into point chunks (PoRep, SnapDeals and WindowPoSt at 2^27), in
 * an engine without urgent workers: with them the spare memory is theirs (a CUZK_SRS_URGENT key
 * loaded later takes its room from what is left then, as cuda_lean_slots_auto keeps one
 * streaming slot for them). A bulk key loaded later finds that much less room (slots never
 * shrink): on the H200 with one worker, PoRep and H's copy leave 38.4 GiB instead of 54.4
 * (24.7 instead of 50.2 with the slots of session 16's looser scratch estimate, where a
 * SnapDeals key was partial instead of resident).
 * CUZK_MSM_ENTRIES_LOG=26 keeps the room. On the H200, PoRep 2^27: 2^27 entries with two
 * workers, 2^28 with one (bench/RESULTS.md, session 16). Only a plan resident on every device
 * widens, so *streams is the default's. Where a key loads at the same time on the same device,
 * place_key may choose again from less: the cap stays, the placement is what fits then. */
static int plan_key_entries(cuda_backend *b, cuda_key *k, int *streams)
{
    uint64_t most = 0;
    for (int v = 0; v < PL_N; v++) most = k->n[v] > most ? k->n[v] : most;
    const int fixed = cuda_msm_entries_fixed();
    k->msm_entries_full = cuda_msm_entries_full();
    pl_device *base = calloc(3 * (size_t)b->ndev, sizeof *base);
    if (!base) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    int rc = plan_key(b, k, cuda_acc_plain(), base, streams);
    if (!rc && !fixed && !b->urgent_workers && most > CUDA_MSM_ENTRIES_FULL) {
        entries_trial t = {b, k};
        k->msm_entries_full = placement_choose_entries(plan_at_entries, &t, base, b->ndev, CUDA_MSM_ENTRIES_FULL,
                                                       CUDA_MSM_ENTRIES_MAX, cuda_copies_max(), base + b->ndev);
    }
    if (!rc && *streams && !cuda_msm_entries_lean_fixed() && !b->urgent_workers)
        k->msm_entries_lean = widest_lean_entries(b, k, base, base + b->ndev);
    free(base);
    return rc;
}

/* The key's own host copy counted in the engine's host budget (backend_config.host), before
 * it is page-locked and before anything is evicted for it: a budget that cannot hold it
 * refuses the load with nothing taken. Once per key; given back by load_common if the load
 * fails, else held by the engine for the key. */
static int key_host_reserve(cuda_backend *b, cuda_key *k)
{
    if (k->host_reserved || !b->host.reserve) return CUZK_OK;
    const uint64_t total = cuda_key_bases_bytes(k);
    if (!b->host.reserve(b->host.ctx, total))
        return err_set(CUZK_EBUDGET, "the host budget refused the key's page-locked host copy (the bases it "
                       "streams): %llu bytes needed, %llu of the budget's %llu bytes free "
                       "(CUZK_OPT_HOST_BUDGET_BYTES); no key was evicted for it",
                       (unsigned long long)total, (unsigned long long)b->host.free_bytes(b->host.ctx),
                       (unsigned long long)b->host.total);
    k->host_reserved = total;
    return CUZK_OK;
}

/* Its host copy, counted in the host budget and page-locked (when it streams anywhere). */
static int key_host_copy(cuda_backend *b, cuda_key *k)
{
    int rc = key_host_reserve(b, k);
    return rc ? rc : cuda_key_pin_host(k, b->dev[0].ordinal);
}

static int load_common(cuda_backend *b, cuda_key *k, uint32_t flags)
{
    key_vectors(k);
    k->pinned = (flags & CUZK_SRS_PIN) != 0;
    k->urgent = (flags & CUZK_SRS_URGENT) != 0;
    k->msm_waves = cuda_msm_waves(b->urgent_workers, k->pinned, msm_waves_from_env());
    k->msm_shared_bytes = b->msm_shared_bytes; /* before the placement: it sizes lean slots */
    k->lean_h_lend = b->lean_h_lend;
    int streams = 0;
    int rc = plan_key_entries(b, k, &streams);
    /* its host copy before anything is evicted: a host budget that cannot hold it, or a
     * failure to page-lock it, takes nothing */
    if (!rc && streams) rc = key_host_copy(b, k);
    for (uint32_t i = 0; i < b->ndev && !rc; i++) {
        k->ndev = i + 1;
        if ((rc = gpu_set_device(b->dev[i].ordinal)) == CUZK_OK) rc = place_key(b, k, i);
        if (!rc && k->pinned) rc = check_pinned(b, k, i, &k->dev[i].pl);
    }
    /* streamed only once placed (room taken since the plan): counted and page-locked now,
     * past any evictions */
    if (!rc && key_streams(k)) rc = key_host_copy(b, k);
    if (!rc) { /* loaded: a later load may take from it */
        pthread_mutex_lock(&b->keys_lock);
        k->next = b->keys;
        b->keys = k;
        pthread_mutex_unlock(&b->keys_lock);
    }
    if (rc) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s", cuzk_last_error());
        const uint64_t reserved = k->host_reserved; /* k is gone after cuda_key_free */
        cuda_key_free(b, k); /* the urgent slot's room it committed back too */
        /* the budget back once the copy is no longer page-locked, not before */
        if (reserved) b->host.release(b->host.ctx, reserved);
        return err_set(rc == CUZK_EBUDGET || rc == CUZK_ENOMEM ? rc : CUZK_EDEVICE,
                       "CUDA backend: cannot place the key: %s", msg);
    }
    return CUZK_OK;
}

int cuda_key_load(void *be, const char *path, uint32_t flags, void **key)
{
    cuda_backend *b = be;
    cuda_key *k = calloc(1, sizeof *k);
    if (!k) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    int rc = groth16_params_load(path, (flags & CUZK_SRS_CHECK_SUBGROUP) != 0, b->tp, &k->pk);
    if (rc) {
        free(k);
        return rc;
    }
    if ((rc = load_common(b, k, flags))) return rc;
    *key = k;
    return CUZK_OK;
}

/* A key of shape's counts and vk whose bases are valid random points made on the device
 * (benches at sizes no test setup reaches); its proofs do not verify. */
int cuda_key_synthetic(void *be, const groth16_params *shape, uint32_t shape_flags, void **key)
{
    cuda_backend *b = be;
    cuda_key *k = calloc(1, sizeof *k);
    groth16_params *pk = calloc(1, sizeof *pk);
    if (!k || !pk) {
        free(k), free(pk);
        return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    }
    pk->vk = shape->vk;
    if (!(pk->vk.ic = malloc((shape->vk.n_ic ? shape->vk.n_ic : 1) * sizeof(g1_aff)))) {
        free(k), free(pk);
        return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    }
    for (uint32_t i = 0; i < shape->vk.n_ic; i++) pk->vk.ic[i] = G1_GENERATOR;
    pk->n_h = shape->n_h, pk->n_l = shape->n_l, pk->n_a = shape->n_a;
    pk->n_b_g1 = shape->n_b_g1, pk->n_b_g2 = shape->n_b_g2;
    k->pk = pk;
    k->synthetic = 1;
    int rc = load_common(b, k, shape_flags);
    if (rc) return rc;
    *key = k;
    return CUZK_OK;
}

/* The key's params for a CPU retry (CUZK_OPT_RETRY_ON_CPU); none for a synthetic key. */
void *cuda_key_params(void *key)
{
    cuda_key *k = key;
    return k->synthetic ? NULL : k->pk;
}

uint64_t cuda_key_host_reserved(void *key) { return ((const cuda_key *)key)->host_reserved; }

int cuda_key_placement(void *be, void *key, uint32_t device_index, cuzk_placement *out)
{
    cuda_backend *b = be;
    const cuda_key *k = key;
    if (device_index >= k->ndev)
        return err_set(CUZK_EINVAL, "cuzk_srs_placement: device index %u, the engine drives %u", device_index, k->ndev);
    cuda_dev *d = &b->dev[device_index];
    pl_result now;
    pthread_mutex_lock(&d->lock); /* a later load may grow the slots or evict some of its bases */
    now = k->dev[device_index].pl;
    out->slots = d->nslots;
    out->slot_bytes = d->slot_bytes;
    pthread_mutex_unlock(&d->lock);
    const pl_result *pl = &now;
    static const int order[5] = {PL_H, PL_L, PL_A, PL_B_G1, PL_B_G2}; /* the public order */
    out->device = b->dev[device_index].ordinal;
    out->kind = pl->kind == PL_RESIDENT ? CUZK_PLACEMENT_RESIDENT
              : pl->kind == PL_PARTIAL  ? CUZK_PLACEMENT_PARTIAL : CUZK_PLACEMENT_STREAMED;
    out->working_set = pl->ws == PL_FULL ? CUZK_WORKING_SET_FULL : CUZK_WORKING_SET_LEAN;
    out->device_budget_bytes = b->dev[device_index].cap;
    out->pinned_host_bytes = atomic_load_explicit(&k->pinned_bytes, memory_order_relaxed);
    out->resident_bytes = pl->resident_total;
    out->streamed_bytes = 0;
    for (int i = 0; i < 5; i++) {
        int v = order[i];
        out->vector_bytes[i] = k->n[v] * pl_point_bytes(v);
        out->vector_resident_bytes[i] = pl->resident[v];
        out->streamed_bytes += out->vector_bytes[i] - pl->resident[v];
    }
    return CUZK_OK;
}
#endif
