/*
 * Eviction (cuda_placement.h, "Eviction"): a key being loaded takes device memory from the
 * resident bases of keys loaded before it, whole vectors at a time, when that is what lets it
 * load at all or, pinned, be resident; a constraint system, when that is what lets it load
 * streamed. The policy (which vectors, how many) is placement_with_evictions or
 * placement_evict_bytes; this is the backend's side: who may give way, and the
 * bookkeeping when they do. A victim keeps working: its later partitions run the lean flow
 * and copy what it lost from its pinned host copy, as a key placed partial from the start.
 */
#if CUZK_HAVE_CUDA
#include <string.h>

#include "backend/cuda_internal.h"

/* Whether the device's slots can run k streamed (what k needs after losing a vector): their
 * bytes, with what they keep for the constraint systems' witness-only partitions (kept: as a
 * system's commit will leave them), and their pieces (the device's, which a small first key
 * made small) few enough for one MSM's plan (CUDA_MAX_PIECES): its later partitions would
 * fail otherwise. */
static int slots_stream(const cuda_dev *d, const cuda_key *k, cs_need kept)
{
    if (!d->nslots || !cs_slots_lean_fits(&d->cs, kept, cuda_slot_need(k, 1, 1, d->piece_bytes))) return 0;
    for (int v = 0; v < PL_N; v++) {
        uint64_t per = d->piece_bytes / pl_point_bytes(v);
        if (k->n[v] && (!per || (k->n[v] + per - 1) / per > CUDA_MAX_PIECES)) return 0;
    }
    return 1;
}

static int host_copy(const cuda_key *k) { return k->registered || k->pinned_block; }

uint32_t cuda_evict_candidates(cuda_backend *b, const cuda_key *k, uint32_t i, int host_needed, const cs_need *kept,
                               pl_victim *victims, cuda_key **owners)
{
    const cuda_dev *d = &b->dev[i];
    const cs_need as_kept = kept ? *kept : d->cs.kept; /* a system's commit to come, or as they are */
    uint32_t n = 0;
    for (cuda_key *o = b->keys; o && n < PL_MAX_VICTIMS; o = o->next) {
        if (o == k || o->ndev <= i) continue;
        const cuda_key_dev *od = &o->dev[i];
        if (!od->pl.resident_total) continue;
        pl_victim *v = &victims[n];
        for (int x = 0; x < PL_N; x++) v->resident[x] = od->pl.resident[x] + cuda_copies_bytes(od, x); /* + copies */
        v->last_used = od->last_used;
        v->evictable = !o->pinned && !od->running && (!host_needed || host_copy(o)) && slots_stream(d, o, as_kept);
        owners[n++] = o;
    }
    return n;
}

void cuda_evict_apply(cuda_dev *d, uint32_t i, cuda_key **owners, const pl_eviction *ev, uint32_t n,
                      msm_gpu_bases **stash, uint32_t *nstash)
{
    for (uint32_t j = 0; j < n; j++) {
        cuda_key_dev *od = &owners[ev[j].victim]->dev[i];
        const int v = ev[j].vector;
        const uint64_t bytes = od->pl.resident[v], copies = cuda_copies_bytes(od, v); /* freed with it */
        stash[(*nstash)++] = od->whole[v];
        od->whole[v] = NULL;
        od->res[v] = NULL;
        od->pl.resident[v] = 0;
        od->pl.resident_total -= bytes;
        od->pl.copies_bytes -= copies;
        od->pl.copies[v] = 0;
        od->pl.kind = od->pl.resident_total ? PL_PARTIAL : PL_STREAMED;
        od->pl.ws = PL_LEAN; /* what streams runs lean (cuda_flow_lean) */
        od->msm_acc = cuda_acc_plain(); /* slots_stream checked the slots with its scratch; its
                                         * next MSM frees pairwise's (msm_gpu_ctx_set_acc_kind) */
        d->resident -= bytes + copies;
        /* the slots' lean part (cs_slots.h) as the victim streams now: within slot_bytes
         * (slots_stream), which it leaves as it is */
        cs_slots_key(&d->cs, 1, cuda_slot_need(owners[ev[j].victim], 1, 1, d->piece_bytes) + cuda_cs_slot_extra(d, 1));
    }
}
#endif
