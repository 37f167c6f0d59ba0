/*
 * The CUDA backend: the Groth16 prover on NVIDIA GPUs behind the engine's start/finish
 * interface. A key is placed on each device by what fits (cuda_placement.h): resident,
 * partial or streamed from pinned host memory; each device has one or two worker slots (the
 * device memory a partition works in), full or lean. start stages the partition on the host,
 * takes a slot, runs the device work (cuda_flow.c) and returns when nothing on the device
 * reads the host's buffers any more; finish assembles A, B, C on the host exactly as the CPU
 * backend does, so for the same r, s the proofs are byte-identical.
 */
#if CUZK_HAVE_CUDA
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/backend_common.h"
#include "backend/backend_cuda_prep.h"
#include "backend/cuda_env.h"
#include "backend/cuda_internal.h"
#include "cuda_util.h"
#include "error.h"
#include "fault.h"
#include "field/curve.h"
#include "ntt.h"
#include "prep.h"

static int cuda_create(const backend_config *cfg, void **be, uint32_t *devices)
{
    int rc0 = cuda_env_check(); /* a misspelt tuning variable is refused, not read as the default */
    if (rc0) return rc0;
    int n = gpu_device_count();
    if (n <= 0) return err_set(CUZK_EDEVICE, "CUDA backend: no usable CUDA device");
    cuda_backend *b = calloc(1, sizeof *b);
    if (!b) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    b->workers_per_device = cfg->workers_per_device ? cfg->workers_per_device : 1;
    b->urgent_workers = cfg->urgent_workers_per_device;
    b->urgent_priority = cfg->urgent_priority;
    b->budget = cfg->device_budget_bytes;
    for (int d = 0; d < n && d < CUDA_BE_MAX_DEV; d++)
        if (!cfg->device_mask || (cfg->device_mask >> d & 1)) b->dev[b->ndev++].ordinal = d;
    if (!b->ndev) {
        free(b);
        return err_set(CUZK_EDEVICE, "CUDA backend: the device mask 0x%llx selects none of the %d devices",
                       (unsigned long long)cfg->device_mask, n);
    }
    for (uint32_t i = 0; i < b->ndev; i++) {
        cuda_dev *d = &b->dev[i];
        size_t fr = 0, total = 0;
        if (gpu_set_device(d->ordinal) || gpu_mem_info(&fr, &total)) {
            int rc = err_set(CUZK_EDEVICE, "CUDA backend: device %d: %s", d->ordinal, cuzk_last_error());
            for (uint32_t j = 0; j < i; j++) slot_pool_destroy(&b->dev[j].pool), pthread_mutex_destroy(&b->dev[j].lock);
            free(b);
            return rc;
        }
        /* what libcuzk may hold: the budget, within what the device has free now */
        uint64_t have = fr > CUDA_DEVICE_MARGIN ? fr - CUDA_DEVICE_MARGIN : 0;
        d->cap = b->budget && b->budget < have ? b->budget : have;
        pthread_mutex_init(&d->lock, NULL);
        slot_pool_init(&d->pool);
    }
    /* with urgent workers, ordinary partitions pace their work (gpu_gate_pass) */
    for (uint32_t i = 0; i < b->ndev; i++) b->dev[i].paced = b->urgent_workers != 0;
    /* the urgent slots' streams and contexts, ahead (slot_warm); one that fails is made at its
     * first partition instead */
    for (uint32_t i = 0; i < b->ndev && b->urgent_workers; i++)
        for (int j = 0; j < CUDA_URGENT_SLOTS; j++)
            if (gpu_set_device(b->dev[i].ordinal) || slot_warm(&b->dev[i].urgent[j], b->dev[i].ordinal, j + 1))
                err_clear();
    pthread_mutex_init(&b->keys_lock, NULL);
    if (!(b->tp = threadpool_create(cfg->cpu_threads))) {
        pthread_mutex_destroy(&b->keys_lock);
        for (uint32_t i = 0; i < b->ndev; i++) {
            gpu_set_device(b->dev[i].ordinal);
            for (int j = 0; j < CUDA_URGENT_SLOTS; j++) slot_destroy(&b->dev[i].urgent[j]);
            slot_pool_destroy(&b->dev[i].pool), pthread_mutex_destroy(&b->dev[i].lock);
        }
        free(b);
        return err_set(CUZK_ENOMEM, "CUDA backend: cannot start %u host threads", cfg->cpu_threads);
    }
    *be = b;
    *devices = b->ndev;
    return CUZK_OK;
}

static void cuda_destroy(void *be)
{
    cuda_backend *b = be;
    for (uint32_t i = 0; i < b->ndev; i++) {
        cuda_dev *d = &b->dev[i];
        gpu_set_device(d->ordinal);
        for (int s = 0; s < CUDA_MAX_SLOTS; s++) slot_destroy(&d->slot[s]);
        for (int s = 0; s < CUDA_URGENT_SLOTS; s++) slot_destroy(&d->urgent[s]);
        slot_pool_destroy(&d->pool);
        pthread_mutex_destroy(&d->lock);
    }
    gpu_mem_trim(); /* the device pools' cached memory: the devices' free memory as before the engine */
    threadpool_destroy(b->tp);
    pthread_mutex_destroy(&b->keys_lock);
    free(b);
}

static int32_t cuda_ordinal(void *be, uint32_t d) { return ((cuda_backend *)be)->dev[d].ordinal; }

/* ---- keys ---- */

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
    if (!d->urgent_keys) d->urgent_bytes[1] = 0, d->urgent_shrink = 0; /* else a load kept room meanwhile */
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

static void cuda_key_free(void *be, void *key)
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
    uint64_t total = 0;
    if (k->registered || k->pinned_block) return CUZK_OK;
    for (int v = 0; v < PL_N; v++) total += k->n[v] * pl_point_bytes(v);
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

static void fill_pl_input(const cuda_backend *b, const cuda_dev *d, const cuda_key *k, pl_input *in)
{
    memset(in, 0, sizeof *in);
    for (int v = 0; v < PL_N; v++) in->base_bytes[v] = k->n[v] * pl_point_bytes(v);
    uint64_t piece = d->nslots ? d->piece_bytes : cuda_piece_bytes(k);
    in->piece_bytes = piece;
    /* slots hold witness-only partitions of the loaded constraint systems too */
    in->ws_full = cuda_ws_full(k) + cuda_cs_slot_extra(d, 0);
    in->ws_lean = cuda_ws_lean(k, piece) + cuda_cs_slot_extra(d, 1);
    in->stream_bufs = 2 * piece;
    uint64_t used = cuda_dev_used(d);
    in->avail = d->cap > used ? d->cap - used : 0;
    in->max_slots = d->nslots ? d->nslots
                  : b->workers_per_device < CUDA_MAX_SLOTS ? b->workers_per_device : CUDA_MAX_SLOTS;
    in->slot_bytes = d->nslots ? d->slot_bytes : 0;
}

/* What the placement keeps free for the first urgent slot (WinningPoSt's): CUDA_URGENT_ROOM
 * less what that slot has committed, with urgent workers. */
static uint64_t winning_room(const cuda_backend *b, const cuda_dev *d)
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
        fill_pl_input(b, d, k, &in);
        /* urgent workers: room for a WinningPoSt-sized slot, where the bulk layout stays, and
         * for an urgent key's own slot (from its own resident bases: it is placed last) */
        const uint64_t base_room = winning_room(b, d);
        own = urgent_key_need(b, k, &in);
        own_room = own > d->urgent_bytes[1] ? own - d->urgent_bytes[1] : 0;
        uint64_t room = 0;
        uint32_t nv = cuda_evict_candidates(b, k, i, host_ready, vs, owners);
        rc = placement_with_rooms(&in, base_room, own_room, k->pinned, vs, nv, ev, &nev, &kd->pl, &room);
        if (own_room && (room == base_room || !in.keep)) own = own_room = 0; /* WinningPoSt's room alone */
        if (rc == CUZK_EBUDGET && k->pinned) /* placed as it fits, evicting nothing: check_pinned refuses it */
            rc = placement_with_evictions(&in, room, 0, vs, 0, ev, &nev, &kd->pl);
        /* precomputed copies in what is left over, never from what an eviction freed */
        if (rc == CUZK_OK && !nev) placement_copies(&in, room, cuda_copies_max(), &kd->pl);
        if (rc != CUZK_OK || !nev || host_ready) break;
        pthread_mutex_unlock(&d->lock); /* pin the victims' host copies, then choose again */
        for (uint32_t j = 0; j < nev; j++)
            (void)cuda_key_pin_host(owners[ev[j].victim], d->ordinal); /* failed: not a victim then */
        if ((rc = gpu_set_device(d->ordinal))) {
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
        d->slot_bytes = kd->pl.slot_bytes; /* set, or grown for this key */
        d->resident += kd->pl.resident_total + kd->pl.copies_bytes;
        /* its urgent slot, where the placement kept the room (in.keep: not where keeping it
         * would have changed the layout), or the slot has it already, and WinningPoSt's room
         * stays free beside it (a key streamed whole keeps "room" it does not have) */
        if (own && cuda_dev_used(d) + own_room + winning_room(b, d) <= d->cap) {
            d->urgent_bytes[1] = kd->urgent_set = d->urgent_bytes[1] + own_room; /* back: urgent_room_back */
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
    uint64_t all = 0;
    for (int v = 0; v < PL_N; v++) all += k->n[v] * pl_point_bytes(v);
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
static int plan_key(cuda_backend *b, cuda_key *k, int *streams)
{
    pl_device *pd = calloc(b->ndev, sizeof *pd);
    cuda_key *owners[PL_MAX_VICTIMS]; /* not needed: nothing is applied from the plan */
    if (!pd) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    for (uint32_t i = 0; i < b->ndev; i++) /* as place_key does: a released key's room back first */
        if (gpu_set_device(b->dev[i].ordinal) == CUZK_OK) urgent_room_settle(&b->dev[i]);
    pthread_mutex_lock(&b->keys_lock);
    for (uint32_t i = 0; i < b->ndev; i++) {
        cuda_dev *d = &b->dev[i];
        pthread_mutex_lock(&d->lock);
        fill_pl_input(b, d, k, &pd[i].in);
        pd[i].base_room = winning_room(b, d);
        const uint64_t own = urgent_key_need(b, k, &pd[i].in);
        pd[i].own_room = own > d->urgent_bytes[1] ? own - d->urgent_bytes[1] : 0;
        /* victims whose host copies are not page-locked yet count: place_key pins them */
        pd[i].n_victims = cuda_evict_candidates(b, k, i, 0, pd[i].victims, owners);
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
    free(pd);
    return rc;
}

static int load_common(cuda_backend *b, cuda_key *k, uint32_t flags)
{
    key_vectors(k);
    k->pinned = (flags & CUZK_SRS_PIN) != 0;
    k->urgent = (flags & CUZK_SRS_URGENT) != 0;
    k->msm_waves = cuda_msm_waves(b->urgent_workers, k->pinned, msm_waves_from_env());
    int streams = 0;
    int rc = plan_key(b, k, &streams);
    /* its host copy before anything is evicted: a failure to page-lock it takes nothing */
    if (!rc && streams) rc = cuda_key_pin_host(k, b->dev[0].ordinal);
    for (uint32_t i = 0; i < b->ndev && !rc; i++) {
        k->ndev = i + 1;
        if ((rc = gpu_set_device(b->dev[i].ordinal)) == CUZK_OK) rc = place_key(b, k, i);
        if (!rc && k->pinned) rc = check_pinned(b, k, i, &k->dev[i].pl);
    }
    if (!rc && key_streams(k)) rc = cuda_key_pin_host(k, b->dev[0].ordinal);
    if (!rc) { /* loaded: a later load may take from it */
        pthread_mutex_lock(&b->keys_lock);
        k->next = b->keys;
        b->keys = k;
        pthread_mutex_unlock(&b->keys_lock);
    }
    if (rc) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s", cuzk_last_error());
        cuda_key_free(b, k); /* the urgent slot's room it committed back too */
        return err_set(rc == CUZK_EBUDGET || rc == CUZK_ENOMEM ? rc : CUZK_EDEVICE,
                       "CUDA backend: cannot place the key: %s", msg);
    }
    return CUZK_OK;
}

static int cuda_key_load(void *be, const char *path, uint32_t flags, void **key)
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
static int cuda_key_synthetic(void *be, const groth16_params *shape, uint32_t shape_flags, void **key)
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
static void *cuda_key_params(void *key)
{
    cuda_key *k = key;
    return k->synthetic ? NULL : k->pk;
}

static int cuda_key_placement(void *be, void *key, uint32_t device_index, cuzk_placement *out)
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

static int pinned_or_empty(const void *p, size_t bytes);

/* Host memory a partition makes its worker hold in pinned staging: a/b/c, aux and the
 * densities where they are not page-locked (stage_inputs copies only those), the inputs' A
 * and B prefixes, alignment. Arrays in cuzk_host_alloc memory are counted in the host budget
 * already; counting them again made a backlog of such partitions wait for budget that no
 * job would give back (a PoRep partition's 15.5 GiB beside two streamed 2^27 keys' pinned
 * bases on a 128 GiB host: a silent stall). The worker's buffer grows to it once, then stays. */
static uint64_t stage_bytes(const cuzk_partition *p, int witness)
{
    const uint64_t fr = sizeof(fr_t), len = p->abc_len, na = p->num_aux, nw = (na + 63) / 64;
    uint64_t b = (2 * (uint64_t)p->num_inputs + 1) * fr + 4 * 32 + ((uint64_t)1 << 20);
    if (!witness &&
        (!pinned_or_empty(p->a, len * fr) || !pinned_or_empty(p->b, len * fr) || !pinned_or_empty(p->c, len * fr)))
        b += 3 * len * fr;
    if (!pinned_or_empty(p->aux, na * fr)) b += na * fr;
    if (!pinned_or_empty(p->a_aux_density, nw * 8) || !pinned_or_empty(p->b_aux_density, nw * 8)) b += 2 * nw * 8;
    return b;
}

static int cuda_check(void *be, void *key, const cuzk_partition *p, backend_estimate *est)
{
    (void)be;
    const cuda_key *k = key;
    int rc = groth16_check_partition(k->pk, p);
    if (rc) return rc;
    est->host_abc_bytes = 0;
    est->host_bytes = stage_bytes(p, 0);
    est->device_bytes = 0;
    return CUZK_OK;
}

/* A witness-only partition: the key's and the system's counts, and its staging (its a, b, c
 * are made on the device; the slots were sized for them when the system was placed). */
static int cuda_check_witness(void *be, void *key, const csc *c, void *cs_be, const cuzk_partition *p,
                              backend_estimate *est)
{
    (void)be;
    const cuda_key *k = key;
    if (!cs_be) return err_set(CUZK_EINVAL, "CUDA backend: the constraint system is not placed on the devices");
    int rc = groth16_check_witness(k->pk, p);
    if (rc) return rc;
    if (p->abc_len != c->abc_len)
        return err_set(CUZK_EMISMATCH, "the partition has %llu rows, its constraint system %llu",
                       (unsigned long long)p->abc_len, (unsigned long long)c->abc_len);
    est->host_abc_bytes = 0;
    est->host_bytes = stage_bytes(p, 1);
    est->device_bytes = 0;
    return CUZK_OK;
}

/* ---- workers ---- */

static void cuda_worker_fini(void *ws)
{
    cuda_worker *w = ws;
    if (!w) return;
    if (w->h_stage) gpu_host_free(w->h_stage);
    free(w);
}

static int ensure_stage(cuda_worker *w, size_t bytes);

static int cuda_worker_init(void *be, uint32_t device, uint32_t worker, uint32_t flags, void **ws)
{
    uint32_t w_urgent_level = 0;
    (void)worker;
    if (flags & BACKEND_WORKER_URGENT) { /* its own slot when there is room (slot_for) */
        uint32_t level = BACKEND_WORKER_LEVEL(flags);
        w_urgent_level = level ? level : 1;
        threadpool_set_urgent((int)w_urgent_level); /* its host work takes the pool's urgent lane */
        gpu_copy_use_sms(1); /* its copies do not queue behind the backlog's on a copy engine */
    }
    cuda_backend *b = be;
    cuda_worker *w = calloc(1, sizeof *w);
    if (!w) return err_set(CUZK_ENOMEM, "CUDA backend: out of memory");
    w->b = b;
    w->device_index = device;
    w->ordinal = b->dev[device].ordinal;
    w->urgent = w_urgent_level;
    /* the staging every partition takes (its inputs' A and B prefixes), made now: pinned
     * allocation and release can wait for the whole device (an urgent partition's first
     * staging waited 2.2 s behind a backlog's MSMs) */
    int rc = gpu_set_device(w->ordinal);
    if (!rc) rc = ensure_stage(w, CUDA_STAGE_MIN);
    if (rc) {
        free(w);
        return rc;
    }
    *ws = w;
    return CUZK_OK;
}

static int ensure_stage(cuda_worker *w, size_t bytes)
{
    if (w->h_stage_bytes >= bytes) return CUZK_OK;
    if (w->h_stage) gpu_host_free(w->h_stage);
    w->h_stage = NULL;
    w->h_stage_bytes = 0;
    if (gpu_host_alloc(&w->h_stage, bytes)) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cuzk_last_error());
        return err_set(CUZK_ENOMEM, "CUDA backend: no pinned staging memory (%zu bytes): %s", bytes, msg);
    }
    w->h_stage_bytes = bytes;
    return CUZK_OK;
}

/* Pinned staging carve-out: the next `bytes` (32-byte aligned) of the worker's buffer. */
static void *stage_take(uint8_t **at, size_t bytes)
{
    void *p = *at;
    *at += (bytes + 31) & ~(size_t)31;
    return p;
}

static int pinned_or_empty(const void *p, size_t bytes) { return !bytes || gpu_host_is_pinned(p); }

/* src itself when page-locked (or empty), else a parallel copy into the staging. */
static const void *stage_or_direct(threadpool *tp, uint8_t **at, const void *src, size_t bytes)
{
    if (pinned_or_empty(src, bytes)) return src;
    void *d = stage_take(at, bytes);
    prep_copy(tp, d, src, bytes);
    return d;
}

/* The host half of a partition, before any device work: what is not page-locked is copied
 * into the worker's pinned staging, and the inputs' A and B prefixes are gathered. */
static int stage_inputs(cuda_worker *w, const cuda_key *k, const cuzk_partition *p, int witness, cuda_inputs *in)
{
    const groth16_params *pk = k->pk;
    const uint64_t fr = sizeof(fr_t), len = p->abc_len, ni = p->num_inputs, na = p->num_aux, nw = (na + 63) / 64;
    uint64_t kb0 = 0;
    for (uint64_t i = 0; i < ni; i++) kb0 += p->b_input_density[i / 64] >> (i % 64) & 1;
    if (pk->n_a < ni || pk->n_b_g1 < kb0)
        return err_set(CUZK_EINVAL, "partition's %llu inputs (%llu B-selected) exceed the key's %llu A and %llu B scalars",
                       (unsigned long long)ni, (unsigned long long)kb0, (unsigned long long)pk->n_a,
                       (unsigned long long)pk->n_b_g1);
    size_t abc = witness || (pinned_or_empty(p->a, len * fr) && pinned_or_empty(p->b, len * fr) &&
                             pinned_or_empty(p->c, len * fr)) ? 0 : 3 * len * fr;
    size_t aux = pinned_or_empty(p->aux, na * fr) ? 0 : na * fr;
    size_t dens = pinned_or_empty(p->a_aux_density, nw * 8) && pinned_or_empty(p->b_aux_density, nw * 8) ? 0 : 2 * nw * 8;
    int rc = ensure_stage(w, abc + aux + dens + (ni + kb0 + 1) * fr + 4 * 32);
    if (rc) return rc;
    threadpool *tp = w->b->tp;
    uint8_t *at = w->h_stage;
    memset(in, 0, sizeof *in);
    in->a = p->a, in->b = p->b, in->c = p->c;
    if (abc) {
        fr_t *hs = stage_take(&at, abc);
        prep_copy(tp, hs, p->a, len * fr);
        prep_copy(tp, hs + len, p->b, len * fr);
        prep_copy(tp, hs + 2 * len, p->c, len * fr);
        in->a = hs, in->b = hs + len, in->c = hs + 2 * len;
    }
    in->aux = stage_or_direct(tp, &at, p->aux, na * fr);
    in->dens_a = p->a_aux_density, in->dens_b = p->b_aux_density;
    if (dens) {
        uint64_t *hd = stage_take(&at, dens);
        prep_copy(tp, hd, p->a_aux_density, nw * 8);
        prep_copy(tp, hd + nw, p->b_aux_density, nw * 8);
        in->dens_a = hd, in->dens_b = hd + nw;
    }
    fr_t *h_in = stage_take(&at, (ni + kb0 + 1) * fr);
    if (ni) memcpy(h_in, p->inputs, ni * fr);
    for (uint64_t i = 0, kb = ni; i < ni; i++)
        if (p->b_input_density[i / 64] >> (i % 64) & 1) h_in[kb++] = *(const fr_t *)&p->inputs[i];
    /* a witness-only partition's scalars are all brought to Montgomery form (its witness on the
     * device, by the range check); B's input prefix, copied from here, here (one not below r
     * fails that check) */
    if (witness && p->scalar_form == CUZK_FR_CANONICAL)
        for (uint64_t j = ni; j < ni + kb0; j++) {
            fr_t canonical = h_in[j];
            (void)fr_to_mont(&h_in[j], &canonical);
        }
    in->in_ab = h_in;
    in->len = len, in->ni = ni, in->kb0 = kb0, in->na = na, in->n_a = pk->n_a, in->n_b = pk->n_b_g1;
    in->log_m = backend_log2_ceil(len);
    in->canon = p->scalar_form == CUZK_FR_CANONICAL;
    return CUZK_OK;
}

/* Which urgent slots can run a partition of k: bit j where slot j has (or may grow to) a
 * layout for it, the key's own else the two-vector one (a larger urgent partition beside a
 * full bulk slot), lean[j] that layout. *prefer: the second slot for a CUZK_SRS_URGENT key
 * (its load committed it for it), the first for others (WinningPoSt's room, the highest
 * stream priority): a slot that keeps its layout reallocates nothing. */
static uint32_t urgent_fits(cuda_dev *d, const cuda_key *k, const cuda_key_dev *kd, const cuda_cs *wcs, uint32_t i,
                            int lean[], uint32_t *prefer)
{
    const int streamed = kd->pl.kind != PL_RESIDENT;
    uint32_t fits = 0;
    pthread_mutex_lock(&d->lock);
    const uint64_t used = cuda_dev_used(d), free_now = d->cap > used ? d->cap - used : 0;
    for (int j = 0; j < CUDA_URGENT_SLOTS; j++)
        for (int l = kd->pl.ws == PL_LEAN; l <= 1; l++) {
            const uint64_t need = cuda_slot_need(k, l, streamed, d->piece_bytes) + (wcs ? cuda_cs_job_extra(wcs, i, l) : 0);
            if (need > free_now + d->urgent_bytes[j]) continue;
            fits |= 1u << j, lean[j] = l;
            break;
        }
    pthread_mutex_unlock(&d->lock);
    *prefer = 1u << (k->urgent ? 1 : 0);
    return fits;
}

/* Commits urgent slot j's bytes for a partition of k in layout lean; 0 when another urgent
 * partition took the room it would grow into after urgent_fits looked. */
static int urgent_commit(cuda_dev *d, const cuda_key *k, const cuda_key_dev *kd, const cuda_cs *wcs, uint32_t i, int j,
                         int lean)
{
    const uint64_t need = cuda_slot_need(k, lean, kd->pl.kind != PL_RESIDENT, d->piece_bytes) +
                          (wcs ? cuda_cs_job_extra(wcs, i, lean) : 0);
    pthread_mutex_lock(&d->lock);
    const uint64_t used = cuda_dev_used(d), free_now = d->cap > used ? d->cap - used : 0;
    const int ok = need <= free_now + d->urgent_bytes[j];
    if (ok && need > d->urgent_bytes[j]) d->urgent_bytes[j] = need;
    pthread_mutex_unlock(&d->lock);
    return ok;
}

/* The device's count of urgent partitions running, which ordinary partitions' gates wait on. */
static void gate_move(cuda_dev *d, int by) { __atomic_fetch_add(&d->urgent_running, (uint32_t)by, __ATOMIC_SEQ_CST); }

static int cuda_start(void *ws, backend_job *job)
{
    cuda_worker *w = ws;
    cuda_dev *d = &w->b->dev[w->device_index];
    const cuda_key *k = job->key;
    cuda_key_dev *kd = &((cuda_key *)job->key)->dev[w->device_index];
    cuda_job *st = job->priv;
    const cuda_cs *wcs = job->cs_be; /* a witness-only partition's constraint system, or NULL */
    const uint32_t di = w->device_index;
    job->device = w->ordinal;
    int rc;
    if ((rc = gpu_set_device(w->ordinal))) return rc;
    uint64_t t0 = bjob_now_ns();
    if ((rc = backend_pick_rs(&st->r, job->p->r, job->p->scalar_form, "r")) ||
        (rc = backend_pick_rs(&st->s, job->p->s, job->p->scalar_form, "s")))
        return rc;
    if (bjob_canceled(job)) return CUZK_ECANCELED;
    cuda_inputs in;
    if ((rc = stage_inputs(w, k, job->p, wcs != NULL, &in))) return rc;
    uint64_t t1 = bjob_now_ns();
    bjob_trace(job, CUZK_TRACE_HOST_PREP, t0, t1, 0);

    /* the device half: one slot of this device (a wait only when every slot is busy); an
     * urgent worker's own slot when it has one. From here to the end the key's placement
     * here stays as read: no load evicts its bases while a partition of it runs */
    pthread_mutex_lock(&d->lock);
    kd->running++;
    kd->last_used = t1;
    int lean = kd->pl.ws == PL_LEAN, own = 0;
    const int streamed = kd->pl.kind != PL_RESIDENT;
    pthread_mutex_unlock(&d->lock);
    if (FAULT_HIT(FAULT_CUDA_HOLD)) fault_hold_wait(); /* tests: a partition known to be in flight */
    /* an ordinary partition starting while an urgent one runs waits here, before it takes a
     * shared slot an urgent partition may need (it would give way at its first stage anyway) */
    const int prio = job->p->priority < 0 ? 0 : job->p->priority;
    const int urgent_job = d->paced && w->b->urgent_priority && prio >= (int)w->b->urgent_priority;
    if (d->paced && !urgent_job) gpu_gate_hold(&d->urgent_running);
    int own_lean[CUDA_URGENT_SLOTS];
    cuda_slot *s;
    for (uint32_t lost = 0;;) { /* an urgent slot whose room another took meanwhile: the other, or a shared one */
        uint32_t prefer = 0, own_fits = w->urgent ? urgent_fits(d, k, kd, wcs, di, own_lean, &prefer) & ~lost : 0;
        s = slot_acquire(d, w->urgent != 0, own_fits, prefer, &own);
        if (!own || urgent_commit(d, k, kd, wcs, di, own - 1, own_lean[own - 1])) break;
        lost |= 1u << (own - 1);
        slot_release(d, s);
    }
    if (own) lean = own_lean[own - 1];
    uint64_t t2 = bjob_now_ns();
    if (t2 - t1 > 20000) /* waited for a slot: its bytes */
        bjob_trace(job, CUZK_TRACE_BUDGET_WAIT, t1, t2,
                   cuda_slot_need(k, lean, streamed, d->piece_bytes) + (wcs ? cuda_cs_job_extra(wcs, di, lean) : 0));
    /* an ordinary partition paces its work (gpu_gate_pass at its stage boundaries, window groups
     * and transforms) and gives way there while an urgent one runs. An urgent one (by its
     * priority, on whichever worker) raises the count once its slot is ready: from then on it
     * waits for nothing but its own device work, which waits for nothing on the host, so the
     * ordinary partitions' waits always end */
    rc = slot_prepare(s, w->ordinal, lean, streamed, cuda_work_bytes(&in, lean), cuda_prep_bytes(in.na), d->piece_bytes,
                      own);
    if (!rc && wcs) /* the witness beside a lean layout's two vectors; the system's pieces where it streams */
        rc = slot_prepare_witness(s, w->ordinal, lean ? wcs->wit_bytes : 0,
                                  wcs->dev[di].resident ? 0 : wcs->piece_bytes);
    s->pace.word = &d->urgent_running;
    s->gate = urgent_job || !d->paced || !s->ready ? NULL : &s->pace;
    if (s->ctx) msm_gpu_ctx_set_gate(s->ctx, s->gate); /* and inside its MSMs, between window groups */
    const int raised = !rc && urgent_job;
    if (raised) gate_move(d, 1);
    uint64_t t_ref = 0;
    if (!rc && !(rc = gpu_event_record(s->ev_ref, s->stream)) && !(rc = gpu_event_sync(s->ev_ref))) {
        t_ref = bjob_now_ns();
        if (wcs)
            rc = lean ? cuda_flow_witness_lean(s, k, kd, wcs, di, w->ordinal, &in, job)
                      : cuda_flow_witness_full(s, k, kd, wcs, di, w->ordinal, &in, job);
        else rc = lean ? cuda_flow_lean(s, k, kd, w->ordinal, &in, job) : cuda_flow_full(s, k, kd, w->ordinal, &in, job);
    }
    /* whatever happened, nothing on the device may still read the staging, the host's
     * buffers or the slot once start returns */
    int rc1 = s->ready ? gpu_stream_sync(s->copy_stream) : 0, rc2 = s->ready ? gpu_stream_sync(s->bases_stream) : 0,
        rc3 = s->ready ? gpu_stream_sync(s->stream) : 0;
    if (raised) gate_move(d, -1);
    if (!rc && (rc1 || rc2 || rc3)) rc = slot_fail(w->ordinal, "the partition's device work");
    if (!rc) slot_report(s, d, job, t_ref);
    slot_release(d, s);
    pthread_mutex_lock(&d->lock);
    kd->running--;
    pthread_mutex_unlock(&d->lock);
    return rc;
}

static int cuda_finish(void *be, backend_job *job)
{
    (void)be;
    cuda_job *st = job->priv;
    const cuda_key *k = job->key;
    uint64_t t0 = bjob_now_ns();
    groth16_assemble(job->proof, k->pk, &st->msm, &st->r, &st->s);
    bjob_trace(job, CUZK_TRACE_ASSEMBLY, t0, bjob_now_ns(), 0);
    return CUZK_OK;
}

static int cuda_verify(void *be, void *key, backend_job *job)
{
    /* the pairing check reads only the params */
    (void)be;
    return backend_verify_proof(((cuda_key *)key)->pk, job);
}

/* cuzk_host_alloc memory: page-locked for every device, so partitions built there are copied
 * to the device with no staging copy */
static int cuda_host_alloc(void *be, size_t bytes, void **out)
{
    (void)be;
    return gpu_host_alloc(out, bytes);
}

static void cuda_host_free(void *be, void *p, size_t bytes)
{
    (void)be;
    (void)bytes;
    gpu_host_free(p);
}

const backend_ops backend_cuda_ops = {
    .name = "cuda",
    .kind = CUZK_BACKEND_CUDA,
    .priv_size = sizeof(cuda_job),
    .inflight_per_worker = 2,
    .create = cuda_create,
    .destroy = cuda_destroy,
    .device_ordinal = cuda_ordinal,
    .key_load = cuda_key_load,
    .key_synthetic = cuda_key_synthetic,
    .key_free = cuda_key_free,
    .key_params = cuda_key_params,
    .key_placement = cuda_key_placement,
    .check = cuda_check,
    .check_witness = cuda_check_witness,
    .cs_place = cuda_cs_place_all,
    .cs_unplace = cuda_cs_unplace_all,
    .cs_device = cuda_cs_device,
    .worker_init = cuda_worker_init,
    .worker_fini = cuda_worker_fini,
    .start = cuda_start,
    .finish = cuda_finish,
    .verify = cuda_verify,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
};
#endif
