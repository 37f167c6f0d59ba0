/*
 * What the CUDA backend's files share: keys with their per-device placement, devices with
 * their worker slots (the device memory one partition works in), workers (host threads with
 * pinned staging). A worker stages a partition on the host, then takes a slot of its device
 * for the device work, so a second worker's host work overlaps the first one's kernels even
 * where only one slot fits (a 16 GB card).
 */
#ifndef CUZK_CUDA_INTERNAL_H
#define CUZK_CUDA_INTERNAL_H
#if CUZK_HAVE_CUDA

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backend/cs_slots.h"
#include "backend/cuda_cs.h"
#include "backend/cuda_placement.h"
#include "backend/slot_pool.h"
#include "cuda_util.h"
#include "field/field.h"
#include "groth16/groth16.h"
#include "msm.h"
#include "prep.h"
#include "threadpool.h"

#define CUDA_BE_MAX_DEV 64
#define CUDA_MAX_SLOTS 2
_Static_assert(CUDA_MAX_SLOTS <= SLOT_POOL_MAX, "the slot pool indexes every slot");
/* Digit-sort scratch of one MSM context (16 bytes per entry), full and lean slots (the full
 * one: cuda_msm_entries_full). */
#define CUDA_MSM_ENTRIES_FULL ((size_t)1 << 26)
#define CUDA_MSM_ENTRIES_LEAN ((size_t)1 << 25)
#define CUDA_MSM_ENTRIES_LEAN_MAX ((size_t)1 << 27) /* a widened lean slot's (cuda_keys.c) */
#define CUDA_MSM_ENTRIES_MAX ((size_t)1 << 28) /* the most a key's load chooses (plan_key_entries) */
/* One stream buffer (two per lean slot): at most 2^22 G2 or 2^23 G1 points, at least an
 * eighth of the key's largest vector (so small keys stream in several pieces too). */
#define CUDA_PIECE_BYTES ((uint64_t)192 << 22)
#define CUDA_PIECE_BYTES_STREAMED ((uint64_t)192 << 23) /* cuda_piece_bytes_first */
#define CUDA_PIECE_MIN ((uint64_t)192 << 8)
/* Room a placement keeps for the urgent workers' slot: a WinningPoSt partition (2^19, pinned,
 * MSMs in one wave: a 0.46 GiB full slot + 0.18 GiB of bases). */
#define CUDA_URGENT_ROOM ((uint64_t)1 << 30)
/* Urgent workers' own slots per device: WinningPoSt beside a running WindowPoSt (the first
 * sized by CUDA_URGENT_ROOM, the second by the largest CUZK_SRS_URGENT key) */
#define CUDA_URGENT_SLOTS SLOT_POOL_URGENT_SLOTS
/* Level-0 waves of the MSMs where urgent workers exist (msm_gpu_ctx_set_waves): 8 took the
 * WinningPoSt p99 beside a 2^27 PoRep backlog from 649 to 217 ms on the H200 (RESULTS.md) */
#define CUDA_URGENT_WAVES 8
/* Device memory kept free for the CUDA context, CUB and the NTT tables. */
#define CUDA_DEVICE_MARGIN ((uint64_t)640 << 20)
/* Each worker's pinned staging, made with the worker: a partition's inputs (A and B prefixes,
 * a few thousand at most in Filecoin's circuits) stage without allocating. */
#define CUDA_STAGE_MIN ((size_t)4 << 20)
/* Copies of one partition timed individually (the rest are counted, not timed). */
#define CUDA_COPY_EVENTS 256

/* Device stages timed with CUDA events (a begin/end pair each, on the slot's streams). */
enum { ST_H, ST_COPY, ST_MSM_H, ST_MSM_L, ST_MSM_A, ST_MSM_B_G1, ST_MSM_B_G2,
       ST_CS_A, ST_CS_B, ST_CS_C, /* a witness-only partition's a = A·w, b = B·w, c = C·w */
       ST_N };

/* One key on one device: its placement and its resident bases (prefixes). */
typedef struct cuda_key_dev {
    pl_result pl;
    void *res[PL_N];             /* device memory of each resident prefix (NULL: none)     */
    msm_gpu_bases *whole[PL_N];  /* full mode: the resident vectors as msm_gpu_bases       */
    /* under the device's lock: partitions of this key on the device now (its resident bases
     * are never evicted then), and when the last one started or, before any did, when the
     * key was placed there (eviction order: loaded counts as used) */
    uint32_t running;
    uint64_t last_used;
    /* CUZK_SRS_URGENT: the device's second urgent slot's bytes after this load kept room
     * there (0: it did not) */
    uint64_t urgent_set;
    /* its MSMs' accumulation in the shared slots (msm_gpu_ctx_set_acc_kind): what its placement
     * budgeted, cuda_acc_rich or cuda_acc_plain; plain once an eviction left it streaming */
    int msm_acc;
} cuda_key_dev;

typedef struct cuda_key {
    groth16_params *pk;
    int synthetic;               /* bases made on the device; proofs do not verify         */
    const uint8_t *host[PL_N];   /* each vector's bases in pinned host memory (streaming)  */
    uint64_t n[PL_N];            /* points per vector                                      */
    void *pinned_block;          /* synthetic keys: the pinned host copy we allocated       */
    int registered;              /* file keys: the params' arrays are registered (pinned)  */
    _Atomic uint64_t pinned_bytes; /* set once pinned; read by cuzk_srs_placement any time (a
                                    load may pin it as a victim meanwhile)               */
    uint64_t host_reserved;      /* host budget its load reserved for its own host copy
                                  * (backend_config.host), the engine's once loaded        */
    unsigned log_m;
    int pinned;                  /* CUZK_SRS_PIN: resident, never evicted                   */
    int urgent;                  /* CUZK_SRS_URGENT: room for its own urgent slot is kept   */
    unsigned msm_waves;          /* its MSMs' level-0 waves (msm_gpu_ctx_set_waves): more
                                  * where urgent workers share the device (CUDA_URGENT_WAVES) */
    size_t msm_entries_full;     /* a full slot's sort entries per window group for its MSMs,
                                  * chosen once at load (plan_key_entries; 0: the default) */
    size_t msm_entries_lean;     /* a streaming lean slot's, chosen once at load where the key
                                  * streams (plan_key_entries; 0: CUDA_MSM_ENTRIES_LEAN)    */
    uint64_t msm_shared_bytes;   /* its streamed MSMs' pieces share a bucket array of at most
                                  * this many bytes (the backend's; 0: each piece reduces
                                  * its own)                                                 */
    int lean_h_lend;             /* CUZK_LEAN_H_LEND (the backend's): its lean partitions
                                  * lend the H MSM their free domain vector                 */
    struct cuda_key *next;       /* the backend's loaded keys (under keys_lock)             */
    uint32_t ndev;
    cuda_key_dev dev[CUDA_BE_MAX_DEV];
} cuda_key;

/* Which base vector a stage reads, and its curve. */
static inline int pl_curve(int v) { return v == PL_B_G2 ? MSM_CURVE_G2 : MSM_CURVE_G1; }
static inline uint64_t pl_point_bytes(int v) { return v == PL_B_G2 ? 192 : 96; }

/* What a stream buffer holds or is receiving (host bytes copied into it). */
typedef struct piece_buf {
    void *d;
    const void *src;             /* NULL: nothing useful                                   */
    size_t bytes;
    void *ready, *free;          /* events: copied (copy stream), consumed (compute stream)  */
} piece_buf;

/* What a lean flow gives its H MSM (CUZK_LEAN_H_LEND): memory of the slot's own that holds
 * nothing while it runs, to borrow as its scratch (msm_gpu_ctx_lend; NULL: none), and a hook
 * called once for each piece of its scalars, [first, first + n), when the MSM has no further
 * use for them: after the event `read` (recorded on the slot's stream) has passed, or at once
 * where `read` is NULL. Run whole (not in pieces), the MSM calls it for none. */
typedef struct slot_h_loan {
    void *mem;
    uint64_t bytes;
    int (*scalars_read)(void *user, void *read, uint64_t first, uint64_t n);
    void *user;
} slot_h_loan;

#define CUDA_SMALL_BYTES 8192                  /* h_small: result (256) + one flag per piece */
#define CUDA_MAX_PIECES (CUDA_SMALL_BYTES - 256) /* pieces of one MSM                        */

typedef struct cuda_slot {
    int ready;                   /* streams and events exist                               */
    /* this partition's pacing (gpu_gate_pass at each stage boundary, each MSM's window group
     * and the H step's transforms: msm_gpu_ctx_set_gate): &pace for an ordinary worker's
     * partition on a device with urgent workers, NULL for an urgent one's */
    const gpu_gate *gate;
    gpu_gate pace;               /* the slot's gate: its event, the device's urgent count  */
    int pool_id;                 /* what slot_pool_take returned for the holder             */
    int urgent_own;              /* an urgent worker's own slot (sized for cuda_acc_plain)   */
    void *stream, *copy_stream, *bases_stream;
    msm_gpu_ctx *ctx;
    size_t ctx_entries;
    /* what a lean flow gives its H MSM, set around that one slot_msm (NULL: nothing)      */
    const slot_h_loan *h_loan;
    void *ev_read;               /* recorded after each of those pieces' scalars were read   */
    int ctx_acc;                 /* the accumulation (MSM_ACC_*) its context last ran a      */
                                 /* partition with; -1: none since it was made or trimmed */
    void *ev_ref;
    void *ev[2 * ST_N];
    uint8_t stage_used[ST_N];
    uint64_t stage_bytes[ST_N];
    void *d_work;                /* the H step's vectors, then the MSM scalars             */
    size_t d_work_bytes;
    void *d_prep;                /* gpu_prep_result, piece flags, compaction scratch        */
    size_t d_prep_bytes;
    size_t piece_bytes;          /* lean: the MSM's piece (its plan's scratch is sized for it) */
    piece_buf buf[2];
    size_t buf_bytes;            /* stream buffers made: only when a key streams bases      */
    uint8_t *h_small;            /* pinned: the prep result and piece flags read back       */
    uint16_t piece_q[CUDA_MAX_PIECES]; /* an MSM's non-zero streamed pieces, in order (no malloc
                                           between device stages)                           */
    /* this partition's base copies: timing pairs, bytes */
    void *ev_copy[2 * CUDA_COPY_EVENTS];
    uint32_t copy_len[CUDA_COPY_EVENTS]; /* bytes of each timed copy */
    uint32_t ncopy;
    uint64_t copy_bytes;
    /* witness-only partitions (cuda_witness.c): the witness where the layout has no room for
     * it (lean), and the constraint system's two piece buffers where it streams */
    void *d_wit;
    size_t d_wit_bytes;
    void *cs_piece[2];
    size_t cs_piece_bytes;
    uint64_t cs_h2d;             /* this partition's constraint-system bytes copied          */
} cuda_slot;

typedef struct cuda_dev {
    int ordinal;
    pthread_mutex_t lock;        /* key load and free only (placement bookkeeping)          */
    uint64_t cap;                /* bytes libcuzk may hold on this device                   */
    uint64_t resident;           /* resident bases of every key                             */
    uint32_t nslots;             /* committed by the first key                              */
    uint64_t slot_bytes;
    uint64_t piece_bytes;        /* stream buffers of the slots (a multiple of 192)          */
    slot_pool pool;              /* who takes slot[i] or urgent, urgent workers first       */
    cuda_slot slot[CUDA_MAX_SLOTS];
    /* urgent workers' own slots (CUZK_OPT_URGENT_PRIORITY): made at their first partition when
     * the budget has room beside the keys and the other slots (placement_decide_urgent leaves
     * it; a CUZK_SRS_URGENT key commits its size at load), streams of the highest priority */
    cuda_slot urgent[CUDA_URGENT_SLOTS];
    uint64_t urgent_bytes[CUDA_URGENT_SLOTS]; /* committed to each (under lock)              */
    /* of urgent_bytes, the largest need without the constraint systems' part (a partition's
     * key layout, a CUZK_SRS_URGENT key's room at load): a slot's witness buffers trimmed once
     * a system went (cuda_cs_slot_trim) give back the rest */
    uint64_t urgent_key_bytes[CUDA_URGENT_SLOTS];
    uint32_t urgent_keys;        /* loaded CUZK_SRS_URGENT keys whose room urgent[1] keeps   */
    int urgent_shrink;           /* the last of them went: urgent[1] to be given back        */
    /* urgent partitions running on the device now (host atomics), which ordinary partitions'
     * gates wait on (gpu_gate_pass); paced: the device has urgent workers, so ordinary
     * partitions pace their work (none do without) */
    uint32_t urgent_running;
    int paced;
    _Atomic uint64_t h2d_bytes, copy_busy_ns; /* statistics: bases streamed, copy-stream busy */
    /* constraint systems (cuda_witness.c), under lock: their device bytes (tables, resident
     * matrices), and what every slot keeps for witness-only partitions (the largest witness,
     * counted in lean slots; two pieces of the largest streamed system) beside the keys' part:
     * slot_bytes is cs_slots_bytes(&cs) once slots exist, and drops when a system goes */
    uint64_t cs_resident;
    cs_slots cs;
} cuda_dev;

typedef struct cuda_backend {
    threadpool *tp;
    uint32_t ndev;
    uint32_t workers_per_device;
    uint32_t urgent_workers;     /* per device (CUZK_OPT_URGENT_PRIORITY): keep room for their slot */
    uint64_t msm_shared_bytes;   /* CUZK_MSM_SHARED_BUCKETS_MB at engine start, every key's:
                                  * keys that share a slot must agree (a context keeps each
                                  * buffer's largest request, across keys) */
    int lean_h_lend;             /* CUZK_LEAN_H_LEND at engine start                        */
    uint32_t urgent_priority;    /* CUZK_OPT_URGENT_PRIORITY (0: none): its partitions count in urgent_running */
    uint64_t budget;             /* CUZK_OPT_DEVICE_BUDGET_BYTES, 0 = the device's free memory */
    backend_host_budget host;    /* the engine's host budget: a key's own host copy, before evicting */
    /* the loaded keys, which eviction walks for ones that may give way to a key being loaded;
     * held (before any device's lock) while a load chooses, pins and takes its victims, so
     * they stay loaded, and while a key joins or leaves the list */
    pthread_mutex_t keys_lock;
    cuda_key *keys;
    struct cuda_cs *systems;     /* the constraint systems placed or being placed (keys_lock):
                                  * what the slots keep is the largest of their needs        */
    cuda_dev dev[CUDA_BE_MAX_DEV];
} cuda_backend;

typedef struct cuda_worker {
    cuda_backend *b;
    uint32_t urgent;             /* 0, or the level of an urgent worker                     */
    uint32_t device_index;
    int ordinal;
    void *h_stage;               /* pinned staging, grown on demand (never per partition)   */
    size_t h_stage_bytes;
} cuda_worker;

typedef struct cuda_job {
    groth16_msm_out msm;
    fr_t r, s;
} cuda_job;

/* A constraint system on the backend's devices (cuda_witness.c; backend_job.cs_be). */
typedef struct cuda_cs {
    const struct csc *sys;
    /* what the streamed evaluations copy from: sys itself, its arrays page-locked in place, or
     * (where that fails: arrays sharing a page) the same system over a page-locked copy */
    struct csc host;
    void *pinned_copy;           /* that copy's block (gpu_host_alloc), or NULL             */
    uint64_t piece_bytes;        /* each of a slot's two piece buffers where it streams     */
    uint64_t wit_bytes;          /* its witness on the device: (inputs + aux) × 32          */
    int registered;              /* sys's arrays page-locked in place                       */
    struct cuda_cs *next;        /* the backend's systems (keys_lock)                       */
    uint32_t ndev;
    cuda_cs_dev dev[CUDA_BE_MAX_DEV];
    cs_need need[CUDA_BE_MAX_DEV]; /* what it committed in every slot of each device (keys_lock
                                    * and the device's lock)                                */
} cuda_cs;

/* The partition's inputs as the device flows read them: page-locked host pointers. */
typedef struct cuda_inputs {
    const void *a, *b, *c, *aux;
    const uint64_t *dens_a, *dens_b;
    const fr_t *in_ab;           /* inputs (ni), then the B-selected inputs (kb0)           */
    uint64_t len, ni, kb0, na, n_a, n_b;
    unsigned log_m;
    int canon;
} cuda_inputs;

/* ---- cuda_copies.c: precomputed shifted copies of resident bases (placement_copies) ---- */
#define CUDA_COPIES_DEFAULT 2
uint32_t cuda_copies_max(void);
void cuda_make_copies(cuda_dev *d, cuda_key_dev *kd);
/* Device bytes vector v's copies beyond its bases take (they leave with it when evicted). */
uint64_t cuda_copies_bytes(const cuda_key_dev *kd, int v);

/* ---- cuda_keys.c: keys loaded, placed on each device, freed (backend_ops' key calls) ---- */
/* Pinned host bases for streaming (idempotent): the params' arrays registered in place, or
 * (synthetic keys) a pinned copy made on device `ordinal`. */
int cuda_key_pin_host(cuda_key *k, int ordinal);
int cuda_key_load(void *be, const char *path, uint32_t flags, void **key);
int cuda_key_synthetic(void *be, const groth16_params *shape, uint32_t shape_flags, void **key);
void cuda_key_free(void *be, void *key);
void *cuda_key_params(void *key);
uint64_t cuda_key_host_reserved(void *key);
int cuda_key_placement(void *be, void *key, uint32_t device_index, cuzk_placement *out);
/* Device bytes the keys' bases, the constraint systems, the shared slots and the urgent slots
 * hold or have committed (the device's lock held). */
uint64_t cuda_dev_used(const cuda_dev *d);

/* ---- cuda_evict.c: room for a key or system being loaded, from idle keys' resident bases ---- */
/* Up to PL_MAX_VICTIMS keys on device i that could give way to k (NULL: to a constraint
 * system; b->keys_lock and the device's lock held): each one's resident bytes, last use, and
 * whether it may (not pinned, no partition on the device, pinned host copy when host_needed,
 * and its slots can stream it: as they are, or with kept as the systems' part when not NULL,
 * the slots a system's commit leaves). owners[j] is victims[j]'s key. */
uint32_t cuda_evict_candidates(cuda_backend *b, const cuda_key *k, uint32_t i, int host_needed, const cs_need *kept,
                               pl_victim *victims, cuda_key **owners);
/* Applies evictions on device i (the device's lock held): the victims' vectors leave their
 * placement (lean, partial or streamed from now on) and the device's resident count; their
 * device memory goes to stash[] (*nstash), freed by the caller after unlocking. */
void cuda_evict_apply(cuda_dev *d, uint32_t i, cuda_key **owners, const pl_eviction *ev, uint32_t n,
                      msm_gpu_bases **stash, uint32_t *nstash);

/* ---- cuda_slot.c ---- */
/* A slot for one partition, waiting while none is free. Urgent workers (urgent != 0) take an
 * urgent slot j whose bit is in own_fits (those in prefer first) or any shared slot, ahead of
 * ordinary workers, who wait while an urgent one does. *own: urgent slot j taken (j + 1), 0. */
cuda_slot *slot_acquire(cuda_dev *d, int urgent, uint32_t own_fits, uint32_t prefer, int *own);
void slot_release(cuda_dev *d, cuda_slot *s);
int slot_prepare(cuda_slot *s, int ordinal, int lean, int streamed, size_t work_bytes, size_t prep_bytes,
                 size_t piece_bytes, int urgent, size_t full_entries, size_t lean_entries, int acc);
void slot_destroy(cuda_slot *s);
/* A witness-only partition's buffers, after slot_prepare: its witness (wit_bytes, 0: none, the
 * layout has room for it) and two constraint-system pieces (piece_bytes each, 0: resident). */
int slot_prepare_witness(cuda_slot *s, int ordinal, size_t wit_bytes, size_t piece_bytes);
/* Frees the witness buffers larger than wit_bytes, the pieces larger than piece_bytes each
 * (the holder, its streams idle; into the device's pool, no wait). */
void slot_trim_witness(cuda_slot *s, size_t wit_bytes, size_t piece_bytes);
/* An urgent slot's streams, events, pinned result buffer and MSM context made ahead (at engine
 * start): made at its first partition they would allocate page-locked memory (tens of ms). */
int slot_warm(cuda_slot *s, int ordinal, int urgent);
/* Frees the buffers slot_prepare sized (work area, preparation scratch, stream buffers) and
 * the MSM context's scratch: what cuda_slot_need counts; streams, events and the context stay.
 * The caller holds the slot; the frees go to the device's pool (no wait). */
void slot_shrink(cuda_slot *s);
int slot_fail(int ordinal, const char *what);
int slot_stage_begin(cuda_slot *s, int st, void *stream);
int slot_stage_end(cuda_slot *s, int st, void *stream, uint64_t bytes);
/* The stage-boundary pass of an ordinary partition (s->gate set): returns once the slot's
 * compute stream has run what was enqueued and no urgent partition runs on the device. */
int slot_yield(cuda_slot *s, int ordinal);
/* One MSM of vector v into out (g1_jac/g2_jac): resident whole (full mode), or in pieces
 * from the resident prefix and pinned host memory (lean). next = the vector the partition
 * reads after this one (its first pieces are copied while this one finishes), -1: none.
 * counts (full mode): the scalars' class counts (msm_gpu_count_classes): the MSM is then only
 * enqueued and out is written at slot_msm_collect; NULL: out is written on return. */
int slot_msm(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, int v, int st, const void *d_scalars,
             uint64_t n, int form, int next, const uint32_t *counts, void *out, size_t out_size);
/* Waits for the MSMs slot_msm only enqueued and writes their sums. */
int slot_msm_collect(cuda_slot *s, int ordinal);
/* Starts copying the first pieces of vector v (before its scalars are known). */
int slot_prefetch(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int v);
/* A host-to-device copy on `stream`, an H2D_COPY event of the partition's trace (the first
 * CUDA_COPY_EVENTS of them; a copy over 1 GiB as several). */
int slot_copy(cuda_slot *s, void *dst, const void *src, uint64_t bytes, void *stream);
/* Stages and copies as trace events, device_ns on the job; the device's copy statistics. */
void slot_report(cuda_slot *s, cuda_dev *d, backend_job *job, uint64_t t_ref);

/* ---- cuda_witness.c: constraint systems and witness-only partitions ---- */
/* The largest piece of a streamed constraint system (two per slot; cuda_witness.c says why). */
#define CUDA_CS_PIECE_MAX ((uint64_t)64 << 20)
int cuda_cs_place_all(void *be, const struct csc *c, uint32_t flags, void **out);
void cuda_cs_unplace_all(void *be, void *cs_be);
void cuda_cs_device(void *be, void *cs_be, uint64_t *bytes, uint32_t *resident, uint32_t *streamed);
/* What every slot of device d keeps for witness-only partitions, in layout lean (d->lock). */
uint64_t cuda_cs_slot_extra(const cuda_dev *d, int lean);
/* A slot's witness buffers freed where larger than what device d's slots keep now (a system
 * that needed them went): by the slot's holder, its streams idle. */
void cuda_cs_slot_trim(cuda_dev *d, cuda_slot *s);
/* What one slot needs beyond cuda_slot_need for a witness-only partition of cs on device i. */
uint64_t cuda_cs_job_extra(const cuda_cs *cs, uint32_t i, int lean);
int cuda_flow_witness_full(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, const cuda_cs *cs, uint32_t i,
                           int ordinal, const cuda_inputs *in, backend_job *job);
int cuda_flow_witness_lean(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, const cuda_cs *cs, uint32_t i,
                           int ordinal, const cuda_inputs *in, backend_job *job);
/* Shared with cuda_flow.c: the prep area's layout, the check's verdict and read-back, the
 * full flow's class counts, the lean layout's high region. */
#define CUDA_PREP_SCRATCH_OFF (256 + CUDA_SMALL_BYTES) /* d_prep: result, piece flags, then scratch */
enum { CNT_H, CNT_L, CNT_A, CNT_B, CNT_N };
int cuda_prep_verdict(const gpu_prep_result *r, const cuda_inputs *in, int want_a, int want_b);
int cuda_read_result(cuda_slot *s, gpu_prep_result *h_res, size_t extra);
int cuda_count_classes(cuda_slot *s, const void *const sc[CNT_N], const uint64_t n[CNT_N], const int form[CNT_N]);
uint64_t cuda_lean_hi(uint64_t m, uint64_t ni, uint64_t n_a, uint64_t n_b);
/* Whether a lean partition lends its H MSM the domain vector [m, 2m) (slot_h_loan):
 * CUZK_LEAN_H_LEND, B and A below m (cuda_lean_hi 0), and a key placed lean (one placed full
 * runs its H MSM whole in an urgent lean slot, on no loan). */
int cuda_lean_lends(const cuda_key *k, const cuda_key_dev *kd, const cuda_inputs *in);

/* ---- cuda_flow.c: the device work of one partition in a slot ---- */
int cuda_flow_full(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, const cuda_inputs *in,
                   backend_job *job);
int cuda_flow_lean(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, const cuda_inputs *in,
                   backend_job *job);
/* What the two flows and their witness-only twins share. Full: once the H step, the check and
 * the compaction are enqueued (h in d_h, aux, A and B with their input prefixes), the class
 * counts and the check's verdict read back, then the five MSMs (form: the scalars' but h's).
 * Lean: once the H MSM is done and the inputs sit at d_lo with B's input prefix after them,
 * B compacted, the B and L MSMs, A compacted over B, A's MSM. */
int cuda_flow_full_msms(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, const cuda_inputs *in,
                        backend_job *job, const void *d_h, const fr_t *d_aux, const fr_t *d_a, const fr_t *d_b, int form);
int cuda_flow_lean_rest(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, const cuda_inputs *in,
                        backend_job *job, fr_t *d_lo, const fr_t *d_aux, int form);
/* Working-set bytes of one slot for a key (placement inputs), its MSMs accumulating with acc
 * (MSM_ACC_*), or with cuda_acc_plain's. */
uint64_t cuda_ws_full_acc(const cuda_key *k, int acc);
uint64_t cuda_ws_lean_acc(const cuda_key *k, uint64_t piece_bytes, int acc);
uint64_t cuda_ws_full(const cuda_key *k);
uint64_t cuda_ws_lean(const cuda_key *k, uint64_t piece_bytes);
/* The accumulation of slots sized for any key (MSM_ACC_XYZZ, or CUZK_MSM_ACC's) and the one a
 * key's placement gives it where pairwise's scratch costs none of its resident bases
 * (MSM_ACC_AUTO, or CUZK_MSM_ACC's). */
int cuda_acc_plain(void);
int cuda_acc_rich(void);
/* Whether a slot's G2 MSMs sort half the entries under accumulation acc
 * (msm_gpu_ctx_set_g2_half): where pairwise's scratch is counted (AUTO, PAIRWISE), whose G2
 * entry takes twice a G1 entry's; XYZZ's entries cost the same on either curve. */
int cuda_g2_half(int acc);
/* A key's MSM level-0 waves (msm_gpu_ctx_set_waves): CUZK_MSM_WAVES (env_waves) when set,
 * else CUDA_URGENT_WAVES for an engine with urgent workers unless the key is pinned, else 1. */
unsigned cuda_msm_waves(uint32_t urgent_workers, int pinned, unsigned env_waves);
/* one slot's device bytes for key k: what the placement budgets and the urgent slot takes */
uint64_t cuda_slot_need(const cuda_key *k, int lean, int streamed, uint64_t piece_bytes);
/* ... for a partition of k as placed on the device (kd) in a slot of layout lean: as
 * cuda_slot_need, but a key placed full run lean (an urgent worker's own slot) counts the MSMs
 * over its whole resident vectors that slot_msm runs for it. */
uint64_t cuda_slot_need_kd(const cuda_key *k, const cuda_key_dev *kd, int lean, uint64_t piece_bytes);
/* The stream buffer size for a key (when it is the first on its device). */
uint64_t cuda_piece_bytes(const cuda_key *k);
/* A full slot's MSM sort entries per window group: 2^CUZK_MSM_ENTRIES_LOG where set (25..28,
 * validated by cuda_env_check), else CUDA_MSM_ENTRIES_FULL. Never below CUDA_MSM_ENTRIES_LEAN:
 * an urgent slot runs full partitions at the lean cap but is budgeted as a full slot. A key
 * takes its cap at load (cuda_key.msm_entries_full; where the variable is unset, the largest
 * its placement affords: cuda_keys.c, plan_key_entries): its placement and its partitions'
 * slots use that one value. cuda_msm_entries_fixed: whether the variable sets it. */
size_t cuda_msm_entries_full(void);
int cuda_msm_entries_fixed(void);
/* A lean slot's MSM sort entries per window group: 2^CUZK_MSM_LEAN_ENTRIES_LOG where set
 * (25..27: validated by cuda_env_check), else CUDA_MSM_ENTRIES_LEAN; cuda_key_entries_lean: a
 * key's, the variable where set, else what its load chose (cuda_key.msm_entries_lean). Urgent
 * slots keep CUDA_MSM_ENTRIES_LEAN. */
size_t cuda_msm_entries_lean(void);
int cuda_msm_entries_lean_fixed(void);
uint64_t cuda_msm_shared_bytes(void);
int cuda_lean_h_lend(void);
size_t cuda_key_entries_lean(const cuda_key *k);
/* k's lean working set with its MSMs at `entries` sort entries (cuda_ws_lean_acc: at its own). */
uint64_t cuda_ws_lean_at(const cuda_key *k, uint64_t piece_bytes, int acc, size_t entries);
/* The entries a lean partition of k runs at in a slot whose MSM context holds `held`: that cap
 * (at most CUDA_MSM_ENTRIES_LEAN_MAX) where k's lean slot at it fits the lean slots' key part
 * (lean_part: cs_slots.keys[1]), else k's own. As cuda_full_entries_run: two streaming keys of
 * different caps in shared slots would otherwise trim the context (two stream synchronizations
 * and its scratch freed) and regrow it between every two partitions. */
size_t cuda_lean_entries_run(const cuda_key *k, int acc, int streamed, uint64_t piece_bytes, size_t held,
                             uint64_t lean_part);
/* Whether n streaming lean slots of k with `piece` bytes pieces, each with room for the larger
 * of lean_extra and a witness-only partition's witness, fit in avail. */
int cuda_lean_room_fits(const cuda_key *k, uint64_t piece, uint64_t lean_extra, uint32_t n, uint64_t avail);
/* Whether the plan of k at its lean entries (trial, k->msm_entries_lean set) keeps what the
 * plan at the default entries (base) has on every device: the kind and slot layout (resident
 * prefixes may shrink), the pieces and lean slot count, no eviction, the rooms, and each lean
 * slot's room for a witness-only partition's witness where the base had it (cuda_keys.c,
 * widest_lean_entries). */
int cuda_lean_plan_keeps(cuda_key *k, const pl_device *base, const pl_device *trial, uint32_t ndev);
size_t cuda_key_entries_full(const cuda_key *k);
/* k's full working set with its MSMs at `entries` sort entries (cuda_ws_full_acc: at its own). */
uint64_t cuda_ws_full_at(const cuda_key *k, int acc, size_t entries);
/* The entries a full partition of k runs at in a slot whose MSM context holds `held` (another
 * key's cap, larger): that cap where k's working set at it fits the full slots' key part
 * (keys_part: cs_slots.keys[0], the systems' part left out), else k's own. Keys that chose
 * different caps alternate in shared slots without urgent workers (a small key beside a
 * widened PoRep key): each shrink would trim the context (its scratch freed) and the next
 * partition of the other key reallocate it, between every two partitions. */
size_t cuda_full_entries_run(const cuda_key *k, int acc, size_t held, uint64_t keys_part);
uint32_t cuda_lean_slots(void); /* CUZK_LEAN_SLOTS: 1 or 2 forced; 0 (unset): cuda_lean_slots_auto */
/* The streaming lean slots the first key on a device takes where it streams, unless
 * CUZK_LEAN_SLOTS says: two where both fit in avail with their pieces and each keeps room for
 * a witness-only partition (see cuda_piece_bytes_first), in an engine without urgent workers;
 * else one. */
uint32_t cuda_lean_slots_auto(const cuda_key *k, uint64_t avail, uint64_t lean_extra, uint32_t urgent_workers);
/* What placements keep free for the first urgent slot (WinningPoSt's) on d: CUDA_URGENT_ROOM
 * less what that slot has committed, with urgent workers; else 0. Device lock held. */
uint64_t cuda_winning_room(const cuda_backend *b, const cuda_dev *d);
/* The pieces of the first key placed on a device without urgent workers, which sets the
 * device's (its slots' stream buffers): CUDA_PIECE_BYTES_STREAMED-capped where k does not fit
 * resident beside a lean slot (lean_extra: the systems' part of one) in avail and lean_slots
 * larger lean streaming slots do (0 or 1: one), each with room for the larger of lean_extra
 * and a witness-only partition's witness on k; else cuda_piece_bytes. */
uint64_t cuda_piece_bytes_first(const cuda_key *k, uint64_t avail, uint64_t lean_extra, uint32_t lean_slots);
/* The bytes of all of k's bases (affine points, every vector). */
uint64_t cuda_key_bases_bytes(const cuda_key *k);
/* Device bytes of a slot's work area and prep area for these inputs. */
uint64_t cuda_work_bytes(const cuda_inputs *in, int lean);
uint64_t cuda_prep_bytes(uint64_t na);

#endif
#endif
