/*
 * Where a proving key's bases live on one device, decided from the bytes that device has
 * (no CUDA here, so the policy is tested on any machine). Three placements:
 *   resident — every base on the device (the fast path of the 80–141 GB cards);
 *   partial  — the vectors whose streaming costs the most per byte stay, a prefix of the
 *              next one too, the rest is copied from pinned host memory per MSM;
 *   streamed — nothing stays; every MSM copies its bases in pieces, double-buffered.
 * and two working sets per worker slot: "full" (three domain vectors for the H step, every
 * scalar vector at once: the fastest) and "lean" (two domain vectors reused across stages:
 * what lets a 16 GB card prove a 2^27 partition).
 */
#ifndef CUZK_CUDA_PLACEMENT_H
#define CUZK_CUDA_PLACEMENT_H

#include <stdint.h>

/* The five base vectors, in the order the placement keeps them resident: by the device time
 * streaming them costs per byte (H200, 2^27 PoRep, PCIe Gen5 ≈ 55 GB/s): B_G1 and B_G2 are
 * copied ~4x slower than their MSMs run, A and L about as fast, and H's MSM runs ~5x longer
 * than its copy, so H streams for free behind its own arithmetic. */
enum { PL_B_G1, PL_B_G2, PL_A, PL_L, PL_H, PL_N };
enum { PL_FULL = 0, PL_LEAN = 1 };
enum { PL_RESIDENT = 0, PL_PARTIAL = 1, PL_STREAMED = 2 };

typedef struct pl_input {
    uint64_t base_bytes[PL_N];   /* bytes of each vector's bases (0 = empty vector)          */
    uint64_t piece_bytes;        /* streamed pieces; resident prefixes are whole pieces      */
    uint64_t ws_full;            /* one slot's working set, full                             */
    uint64_t ws_lean;            /* one slot's working set, lean, without stream buffers     */
    uint64_t stream_bufs;        /* the stream buffers a lean slot adds when anything streams */
    uint64_t avail;              /* device bytes this key may take: the cap minus the other  */
                                 /* keys' resident bases and the slots already committed     */
    uint32_t max_slots;          /* workers per device; with slot_bytes: the slots there are  */
    uint64_t slot_bytes;         /* 0: this key decides the slots; else their size (bytes),  */
                                 /* which the key may grow (all slots) within avail          */
    uint64_t keep;               /* of avail, bytes to leave free (the urgent workers' slot)  */
    uint32_t lean_slots;         /* streaming lean slots a first key takes where they fit     */
                                 /* (0 or 1: one; 2: two, with max_slots >= 2: the backend's */
                                 /* cuda_lean_slots_auto or CUZK_LEAN_SLOTS)                    */
} pl_input;

typedef struct pl_result {
    int32_t ws;                  /* PL_FULL or PL_LEAN: how a slot runs this key             */
    int32_t kind;                /* PL_RESIDENT, PL_PARTIAL or PL_STREAMED                   */
    uint32_t slots;              /* slots to create (0 when already committed)               */
    uint64_t slot_bytes;         /* each slot's bytes (grown, or as committed)               */
    uint64_t resident[PL_N];     /* resident prefix of each vector, bytes                    */
    uint64_t resident_total;
    uint64_t need;               /* on CUZK_EBUDGET: the bytes the streamed slot(s) need:    */
                                 /* one slot, or what the existing slots must grow by        */
    uint32_t copies[PL_N];       /* placement_copies: shifted copies of each vector's bases  */
                                 /* (the bases count as one; 0 = none chosen)               */
    uint64_t copies_bytes;       /* device bytes the copies beyond the first take           */
} pl_result;

/* CUZK_OK with *out filled, or CUZK_EBUDGET when not even one lean slot with streamed bases
 * fits (out->need says how many bytes it would take). */
int placement_decide(const pl_input *in, pl_result *out);

/* placement_decide, then the same leaving `room` bytes free for the urgent workers' slot
 * where that keeps the layout (full or lean) and the slot count: only resident bases give
 * way to it. in->keep says whether it was kept (room) or not (0). */
int placement_decide_urgent(pl_input *in, uint64_t room, pl_result *out);

/* Precomputed shifted copies of bases (issue 14, kernels/msm.h msm_gpu_bases_precompute)
 * in what an accepted resident placement leaves over: H, whose MSM sums full-width scalars
 * every partition, gets up to max_copies copies of its bases (the bases are the first; each
 * further one takes H's bytes again) while they fit beside the resident bases, the slots (as
 * created or grown) and max(in->keep, room) bytes kept free. Never when anything streams, and
 * never at the slots' or the urgent room's expense. L and A get none: their scalars are mostly
 * 0 and 1 (PoRep: ~10 % others), a window fixed at load for n points is too wide for those,
 * and the merged windows would not pay (the plan would not use them). */
void placement_copies(const pl_input *in, uint64_t room, uint32_t max_copies, pl_result *out);

/* Eviction: a key being loaded may take device memory from the resident bases of keys loaded
 * before it, whole vectors at a time, when that is what lets it load at all or, for a pinned
 * key (CUZK_SRS_PIN), be resident. A victim is a key on this device that is not pinned and has
 * no partition on the device (the caller says which may give way); vectors leave in the order
 * streaming them costs least (H, L, A, B_G2, B_G1), victims least recently used first, and no
 * more than needed (whole vectors). The victim's later partitions stream what it lost. A
 * constraint system that cannot load even streamed takes bytes the same way
 * (placement_evict_bytes). */
#define PL_MAX_VICTIMS 32
typedef struct pl_victim {
    uint64_t resident[PL_N];     /* the victim's resident bytes of each vector on the device   */
    uint64_t last_used;          /* ordering: smaller gives way first. The backend passes the */
                                 /* later of the key's load and its last partition's start:  */
                                 /* a key loaded ahead of its work is not the idlest         */
    int evictable;               /* 0: pinned, in use, or cannot stream in the slots there are */
} pl_victim;

typedef struct pl_eviction {
    uint32_t victim;             /* index into the victims passed                             */
    int32_t vector;              /* PL_H ... PL_B_G1                                          */
} pl_eviction;

/* The evictions that let placement_decide_urgent(in with avail grown by what they free, room)
 * succeed, and give a resident placement when must_be_resident. Victims are taken least
 * recently used first, each one's vectors in the order above, until it succeeds; then what
 * was not needed is given back, so without any one of the evictions it would not succeed.
 * CUZK_OK with *n_out evictions (0: none needed), *out the placement and in->avail grown by
 * what they free (in->keep as placement_decide_urgent leaves it); CUZK_EBUDGET when even every
 * evictable vector would not do (nothing to evict then, *n_out = 0, in->avail as passed, *out
 * as placement_decide_urgent leaves it: a placement that is not resident, or out->need).
 * out_ev holds PL_MAX_VICTIMS * PL_N entries. */
int placement_with_evictions(pl_input *in, uint64_t room, int must_be_resident, const pl_victim *victims,
                             uint32_t n_victims, pl_eviction *out_ev, uint32_t *n_out, pl_result *out);

/* The evictions that free at least `deficit` bytes (a constraint system that does not fit
 * even streamed: cuda_witness.c), in placement_with_evictions' order: victims least recently
 * used first, each one's vectors in the order above, until the bytes taken reach deficit;
 * then what was not needed is given back, from the last taken back, so that without any one
 * of the evictions the bytes would not reach it. CUZK_OK with *n_out evictions (0: deficit 0);
 * CUZK_EBUDGET when every evictable vector together frees less (nothing to evict then,
 * *n_out = 0). out_ev holds PL_MAX_VICTIMS * PL_N entries. */
int placement_evict_bytes(const pl_victim *victims, uint32_t n_victims, uint64_t deficit, pl_eviction *out_ev,
                          uint32_t *n_out);

/* placement_with_evictions keeping base_room + own_room (WinningPoSt's room, and a
 * CUZK_SRS_URGENT key's own urgent slot) where that keeps the layout, else base_room alone
 * (from the same in->avail). *room: the room asked for in the end (in->keep says whether it
 * was kept). */
int placement_with_rooms(pl_input *in, uint64_t base_room, uint64_t own_room, int must_be_resident,
                         const pl_victim *victims, uint32_t n_victims, pl_eviction *out_ev, uint32_t *n_out,
                         pl_result *out, uint64_t *room);

/* A key loaded on several devices (an engine's device mask): each device's placement and
 * evictions chosen, from what every device holds now, before any is applied. A load that one
 * device cannot take (not even one streaming slot there, or a pinned key that cannot be
 * resident there even after its idle keys give way) fails before anything is evicted on any
 * device: the 80 GB card's victims of a pinned key that a 24 GB card then refuses keep their
 * bases. Past the plan (an upload or host registration that fails, or room taken meanwhile by
 * an urgent partition, a victim's partition or a key loaded at the same time), the devices
 * placed so far keep what they gave: their victims stay evicted, streaming from their
 * page-locked host copies (docs/api.md, cuzk_srs_load, "Several GPUs"). */
typedef struct pl_device {
    pl_input in;                 /* this device's inputs; on return avail grown by its evictions */
    uint64_t base_room;          /* placement_with_rooms' rooms on this device                 */
    uint64_t own_room;
    pl_victim victims[PL_MAX_VICTIMS];
    uint32_t n_victims;
    pl_eviction ev[PL_MAX_VICTIMS * PL_N]; /* out: what this device is to evict               */
    uint32_t n_ev;
    pl_result out;               /* out: its placement (as placement_with_rooms leaves it)      */
    uint64_t room;               /* out: the room asked for                                  */
} pl_device;

/* placement_with_rooms on each of the ndev devices (must_be_resident on every one: a pinned
 * key). CUZK_OK: every device places the key, each one's evictions and placement as
 * placement_with_rooms alone gives them. CUZK_EBUDGET: *failed is the first device that cannot;
 * n_ev is 0 and in.avail as passed on every device (evict nothing anywhere), that device's
 * out as placement_with_rooms leaves it (out.need, or the placement that is not resident). */
int placement_plan(pl_device *devs, uint32_t ndev, int must_be_resident, uint32_t *failed);

/* Whether the plan streams any base on any device (the key's host copy is page-locked
 * before anything is evicted then: a failure to pin it evicts nothing). */
int placement_plan_streams(const pl_device *devs, uint32_t ndev);

/* Whether two placements of one key are the same layout: working set, kind, slots created and
 * each vector's resident bytes (the backend's place_rich, placement_wider_keeps). */
int placement_same_layout(const pl_result *a, const pl_result *b);

/* A key's full slots at a larger MSM sort-entry cap (issue 28: a 2^27 H MSM in one point chunk
 * instead of two or four ran 110-170 ms faster on the H200, bench/RESULTS.md session 16):
 * whether the key's plans at that cap keep base's shape on every one of ndev devices. base: the
 * key placement_plan'ed at the default cap; rich and plain: at the larger cap, with the slots'
 * scratch of the accumulation the key would run (pairwise) and of the plain one (XYZZ: the
 * backend places with it first, then takes the rich one where that keeps the placement and its
 * precomputed copies). Kept: base resident with full slots and no eviction, and rich the same
 * kind, layout, slot count, resident bases, urgent room and evictions (none), with as many
 * copies (up to max_copies) as plain there — so that only memory the placement would have left
 * spare pays for the larger slots, and the key still runs the rich accumulation in them. */
int placement_wider_keeps(const pl_device *base, const pl_device *rich, const pl_device *plain, uint32_t ndev,
                          uint32_t max_copies);

/* A key planned on every device (placement_plan, into devs) with full slots of `entries` sort
 * entries and the scratch of the rich (pairwise) or the plain (XYZZ) accumulation; CUZK_OK or
 * the plan's refusal (the backend's plan_key, a test's model). */
typedef int (*pl_plan_at)(void *ctx, uint64_t entries, int rich, pl_device *devs);

/* The full-slot entry cap a key takes at load: from hi down, halving, the first cap above lo
 * whose rich and plain plans both succeed and placement_wider_keeps accepts against base (the
 * key planned at lo); else lo. scratch: 2 * ndev devices. */
uint64_t placement_choose_entries(pl_plan_at plan, void *ctx, const pl_device *base, uint32_t ndev, uint64_t lo,
                                  uint64_t hi, uint32_t max_copies, pl_device *scratch);

/* "resident" / "partial" / "streamed" */
const char *placement_kind_name(int32_t kind);

#endif
