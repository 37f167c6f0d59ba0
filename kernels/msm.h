/*
 * CUDA multi-scalar multiplication over BLS12-381 G1 and G2 (kernels/msm/), behind a C interface.
 * Bases are uploaded once and stay resident on their device; each context owns a stream and its
 * scratch, so MSMs on different contexts (driven from different host threads) overlap.
 * Points use lib/field/curve.h's layouts bit for bit: inputs g1_aff/g2_aff (all-zero = infinity),
 * results g1_jac/g2_jac, Fp in Montgomery form (R = 2^384).
 */
#ifndef CUZK_KERNELS_MSM_H
#define CUZK_KERNELS_MSM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { MSM_CURVE_G1 = 1, MSM_CURVE_G2 = 2 };

typedef struct msm_gpu_bases msm_gpu_bases; /* bases resident on one device */
typedef struct msm_gpu_ctx msm_gpu_ctx;     /* one stream + scratch on one device */

/* Copies n affine points (g1_aff[n] or g2_aff[n], host memory, borrowed for the call) to the
 * device. *out is owned by the caller: msm_gpu_bases_free. */
int msm_gpu_bases_upload(msm_gpu_bases **out, int device, int curve, const void *affine, size_t n);
/* Makes n bases on the device without the host: bases[i] = (a + (i + 1)·b)·gen, gen an affine
 * point (g1_aff/g2_aff, host memory). For tests and benchmarks (the expected MSM is then one
 * scalar multiplication of gen), a, b < 2^64. */
int msm_gpu_bases_generate(msm_gpu_bases **out, int device, int curve, size_t n, const void *gen,
                           uint64_t a, uint64_t b);
/* Bases first .. first + count of msm_gpu_bases_generate's sequence (the same points whatever
 * the split), written to d_out (device memory of the current device). */
int msm_gpu_bases_generate_into(void *d_out, int curve, size_t first, size_t count, const void *gen, uint64_t a,
                                uint64_t b);
/* Precomputed shifted copies (issue 14): after this, bases holds copies - 1 more vectors on
 * its device, copy j = 2^(c·g·j)·bases (c = window_bits, 0 = chosen for n points as
 * msm_gpu_run would; g = ceil(windows / copies)), made from the resident bases by doublings
 * (done once, e.g. at key load; freed with the bases; copies that would hold no window are
 * not made: msm_gpu_bases_copies says how many were). msm_gpu_run then sums window j·g + l
 * of every scalar as merged window l of copy j: g bucket reductions instead of one per window,
 * whenever its cost model says that pays (msm_gpu_ctx_set_precompute). copies <= 1 frees
 * them; copies · n < 2^31. Errors: CUZK_EINVAL, CUZK_EDEVICE (out of memory among them). */
int msm_gpu_bases_precompute(msm_gpu_bases *bases, unsigned copies, unsigned window_bits);
/* Device bytes msm_gpu_bases_precompute(copies) adds for n points (0 when copies <= 1). */
size_t msm_gpu_precompute_bytes(int curve, size_t n, unsigned copies);
/* Copies a base vector holds (1 = just itself) and their window size (0 = none). */
unsigned msm_gpu_bases_copies(const msm_gpu_bases *bases, unsigned *window_bits);
/* Device pointer of a resident base vector's first point. */
const void *msm_gpu_bases_data(const msm_gpu_bases *bases);
/* d_flags[k] (device memory, ceil(n / piece) bytes) = 1 when any of scalars[k·piece ..
 * (k+1)·piece) (device memory, either form) is not zero, else 0; on the stream. */
int msm_gpu_pieces_nonzero(const void *d_scalars, size_t n, size_t piece, uint8_t *d_flags, void *stream);
/* Copies bases[first .. first + count) back to the host (g1_aff/g2_aff layout). */
int msm_gpu_bases_download(const msm_gpu_bases *bases, size_t first, size_t count, void *out);
size_t msm_gpu_bases_count(const msm_gpu_bases *bases);
void msm_gpu_bases_free(msm_gpu_bases *bases);

/* A context on `device`. stream: a cudaStream_t to run on, or NULL for a stream of its own.
 * max_entries bounds the digit-sort scratch (16 bytes per entry; 0 = 2^28): larger MSMs run in
 * window groups and point chunks within it. */
int msm_gpu_ctx_create(msm_gpu_ctx **out, int device, void *stream, size_t max_entries);
void msm_gpu_ctx_free(msm_gpu_ctx *ctx);
/* Forces the window size (bits, 4..22) for benchmarks; 0 = chosen by size (the default). */
void msm_gpu_ctx_set_window(msm_gpu_ctx *ctx, unsigned bits);
/* Whether msm_gpu_run uses bases' precomputed copies: MSM_PRE_AUTO (the default: when the cost
 * model says they pay for this run's scalars other than 0 and 1), MSM_PRE_OFF, MSM_PRE_FORCE. */
enum { MSM_PRE_OFF = 0, MSM_PRE_AUTO = 1, MSM_PRE_FORCE = 2 };
void msm_gpu_ctx_set_precompute(msm_gpu_ctx *ctx, int mode);

/* How buckets are accumulated: MSM_ACC_XYZZ (mixed XYZZ additions, 10 products each),
 * MSM_ACC_AFFINE (each thread advances its buckets together in affine coordinates, one shared
 * inversion per step: ~6 products each plus the inversion's share; kernels/msm/msm_affine.cuh)
 * or MSM_ACC_PAIRWISE (rounds that halve every bucket's run of sorted entries by affine pair
 * additions, one shared inversion per thread and round; kernels/msm/msm_pairwise.cuh; scratch
 * of ~60 bytes per sort entry for G1, 120 for G2).
 * min_batch: affine steps while at least this many of a thread's buckets still take points
 * (0 = default 24); pairwise rounds while a thread has at least this many pairs (0 = default
 * 16). kmul: entries per level-0 thread as a multiple of one full wave's share (0 = 1). A new
 * context takes CUZK_MSM_ACC=xyzz|affine|pairwise|auto, CUZK_MSM_AFF_MIN_BATCH, CUZK_MSM_AFF_KMUL,
 * CUZK_MSM_PAIR_ROUNDS and CUZK_MSM_PAIR_MIN from the environment (default MSM_ACC_AUTO). */
enum { MSM_ACC_XYZZ = 0, MSM_ACC_AFFINE = 1, MSM_ACC_PAIRWISE = 2, MSM_ACC_AUTO = 3 };
/* MSM_ACC_AUTO (a new context's default): pairwise rounds for a run (or piece) with at least
 * MSM_PAIR_MIN_N scalars other than 0 and 1 (CUZK_MSM_PAIR_MIN overrides it), XYZZ below,
 * where pairwise loses (measured: bench/RESULTS.md, session 12). Its scratch is pairwise's
 * (msm_gpu_scratch_bytes): the CUDA backend gives it to a key only where that scratch costs
 * none of the key's resident bases, else XYZZ. */
#define MSM_PAIR_MIN_N ((size_t)1 << 20)
/* CUZK_MSM_PAIR_MIN from the environment, else MSM_PAIR_MIN_N. */
size_t msm_pair_min_from_env(void);
void msm_gpu_ctx_set_accumulation(msm_gpu_ctx *ctx, int mode, unsigned min_batch, unsigned kmul);
/* MSM_ACC_PAIRWISE: at most this many rounds, the rest in XYZZ (0 = while they pay). */
void msm_gpu_ctx_set_pair_rounds(msm_gpu_ctx *ctx, unsigned rounds);
/* Only the accumulation kind, keeping the context's thresholds (what the CUDA backend switches
 * per partition: MSM_ACC_AUTO where the key's slot has pairwise's scratch, else MSM_ACC_XYZZ).
 * A kind without pairwise rounds frees their scratch, stream-ordered: a context never holds
 * pairwise's scratch while running a kind its owner budgeted without it. CUZK_OK or
 * CUZK_EDEVICE. */
int msm_gpu_ctx_set_acc_kind(msm_gpu_ctx *ctx, int mode);
/* Device bytes of pairwise-round scratch the context holds now (for tests). */
size_t msm_gpu_ctx_pair_scratch_bytes(const msm_gpu_ctx *ctx);
/* The accumulation CUZK_MSM_ACC names: xyzz, affine, pairwise; MSM_ACC_AUTO when unset, "auto"
 * or unknown. */
int msm_acc_from_env(void);
/* Level-0 accumulation in this many waves of threads (1..MSM_MAX_WAVES, clamped): blocks
 * retire `waves` times as often, so another stream's higher-priority kernels (an urgent
 * partition's) wait that much less for SMs; more partial sums to add (~1 % at 8 waves, G1
 * 2^24..2^26 on the H200). A new context has 1, or CUZK_MSM_WAVES from the environment;
 * msm_gpu_scratch_bytes must be given the same value. */
#define MSM_MAX_WAVES 8
void msm_gpu_ctx_set_waves(msm_gpu_ctx *ctx, unsigned waves);
/* CUZK_MSM_WAVES clamped to 1..MSM_MAX_WAVES; 0 when unset. */
unsigned msm_waves_from_env(void);
/* How a window's buckets are reduced to its sum (kernels/msm/msm_reduce.cuh, which counts
 * the products): MSM_REDUCE_SEGMUL, running sums over segments of 32 buckets and a scalar
 * multiplication per segment (the reduction before CUZK_MSM_REDUCE existed), or
 * MSM_REDUCE_LEVELS, the segments' sums reduced by a second level of running sums with one
 * multiplication per 4..32 segments (~17 % fewer products a bucket at large windows; G1 2^24
 * reduce 21.2 -> 12.5 ms on the H200), or MSM_REDUCE_AUTO (a new context's default): LEVELS
 * for G1 and G2. Its kernels' stack frames are no larger than SEGMUL's (G2: 2880 bytes, every
 * MSM kernel at most 3280), which matters because the CUDA context keeps local memory for the
 * largest frame launched times every resident thread until the process ends (a 5952-byte G2
 * level-1 frame once cost ~690 MiB more on an H200: test_gpu_stress, session 14).
 * CUZK_MSM_REDUCE=0 (SEGMUL) or 1 (LEVELS). */
enum { MSM_REDUCE_SEGMUL = 0, MSM_REDUCE_LEVELS = 1, MSM_REDUCE_AUTO = 2 };
void msm_gpu_ctx_set_reduce(msm_gpu_ctx *ctx, int mode);
/* CUZK_MSM_REDUCE: MSM_REDUCE_SEGMUL for "0", MSM_REDUCE_LEVELS for "1", else (unset or any
 * other value) MSM_REDUCE_AUTO. */
int msm_reduce_from_env(void);
/* A gate (gpu_gate_init) the context's MSMs pass between window groups (gpu_gate_pass: the
 * enqueuing thread waits there for the group before and while an urgent partition runs): an
 * MSM of a backlog then gives the device to an urgent partition within one window group (~40 ms
 * of a 2^27 MSM on an H200), not at its end. NULL (a new context's): no pauses. The gate must
 * outlive its use by the context. */
struct gpu_gate;
void msm_gpu_ctx_set_gate(msm_gpu_ctx *ctx, const struct gpu_gate *gate);

enum { MSM_SCALARS_HOST = 0, MSM_SCALARS_DEVICE = 1 };

/* out (g1_jac or g2_jac, host memory) = sum over i < n of scalars[i]·bases[first + i].
 * scalars: n 32-byte values (cuzk_fr / fr_t layout) below r, in CUZK_FR_MONTGOMERY (0) or
 * CUZK_FR_CANONICAL (1) form; in host memory (pinned is faster) or, with MSM_SCALARS_DEVICE,
 * in this context's device memory (16-byte aligned), borrowed for the call. Scalars 0 are
 * skipped and bases whose scalar is 1 are summed without buckets. Blocks the calling thread
 * until the result is on the host. Errors: CUZK_EINVAL, CUZK_EDEVICE (with the CUDA detail). */
int msm_gpu_run(msm_gpu_ctx *ctx, const msm_gpu_bases *bases, size_t first, const void *scalars, size_t n,
                int scalar_form, int scalars_where, void *out);

/* Fewer host round trips (each one lets another stream's long kernels take the SMs back):
 * msm_gpu_count_classes adds the counts of n device scalars' classes (d_counts[0] ones,
 * d_counts[1] neither 0 nor 1; uint32, zeroed by the caller) on `stream`, so a caller reads
 * several MSMs' counts back at once; msm_gpu_ctx_set_counts hands them to the context's next
 * msm_gpu_run, which then reads nothing back before its end. Wrong counts give a wrong sum. */
int msm_gpu_count_classes(const void *d_scalars, size_t n, int scalar_form, uint32_t *d_counts, void *stream);
void msm_gpu_ctx_set_counts(msm_gpu_ctx *ctx, uint32_t n_one, uint32_t n_rest);
/* msm_gpu_run with device scalars that returns once everything is enqueued: the sum reaches
 * out at the next msm_gpu_ctx_collect, which waits for the context's stream (up to
 * MSM_GPU_DEFERRED runs at once). msm_gpu_last_stats then describes the last of them. */
#define MSM_GPU_DEFERRED 8
int msm_gpu_run_deferred(msm_gpu_ctx *ctx, const msm_gpu_bases *bases, size_t first, const void *d_scalars, size_t n,
                         int scalar_form, void *out);
int msm_gpu_ctx_collect(msm_gpu_ctx *ctx);
/* Drops the deferred runs not yet collected (and counts set for a next run): their outputs are
 * never written. A partition that failed between its deferred MSMs and their collect left
 * them pointing into its own state; the next partition on the slot must not collect them.
 * Waits for the context's stream only when something is pending. */
void msm_gpu_ctx_discard(msm_gpu_ctx *ctx);

/* An MSM whose bases arrive in pieces (streamed from host memory in chunks, or partly
 * resident): begin fixes the scalar form; each add accumulates sum scalars[i]·bases[i] over
 * one piece whose n bases and scalars are in this context's device memory (scalars 16-byte
 * aligned), enqueued on the context's stream — the piece's buffers may be reused once the
 * stream has passed it (record an event after add); add blocks the caller only for a small
 * count read-back. end writes the sum (g1_jac/g2_jac, host memory) and blocks until it is
 * there. One accumulated MSM per context at a time; no msm_gpu_run between begin and end.
 * persist = 0: each piece reduces its own buckets, the window size chosen by the first piece
 * with scalars other than 0 and 1. persist = 1: the pieces share one bucket array over every
 * window (at most bucket_bytes_max bytes, but for 4-bit windows' 96 KiB (G1) or 192 KiB (G2),
 * the smallest, or a window msm_gpu_ctx_set_window forces; 0 = no limit, which
 * msm_gpu_scratch_parts cannot bound): each piece's window groups accumulate as a piece's do and are added into it, and
 * the reduction runs once, at end; the window is chosen at the first piece with scalars other
 * than 0 and 1 for the whole MSM of n_total points (msm_plan.cuh, msm_shared_window). The
 * CUDA backend's streamed MSMs take it where CUZK_MSM_SHARED_BUCKETS_MB is set. */
int msm_gpu_acc_begin(msm_gpu_ctx *ctx, int curve, size_t n_total, int scalar_form, int persist,
                      size_t bucket_bytes_max);
int msm_gpu_acc_add(msm_gpu_ctx *ctx, const void *d_bases, const void *d_scalars, size_t n);
int msm_gpu_acc_end(msm_gpu_ctx *ctx, void *out);
/* Frees the context's device scratch (buckets, sort keys, the scalars' copy; it grows again at
 * the next MSM): drops deferred runs not yet collected and waits for the context's stream; the
 * frees are stream-ordered (they wait for nothing else on the device). */
int msm_gpu_ctx_trim(msm_gpu_ctx *ctx);
/* The cap on digit-sort entries per chunk msm_gpu_ctx_create was given, changed in place (a
 * worker slot that runs a full and then a lean layout): fewer trims the scratch. Cheaper than a
 * new context, whose free of page-locked memory waits for the device's work in flight and holds
 * back every other thread's launches meanwhile. */
int msm_gpu_ctx_set_max_entries(msm_gpu_ctx *ctx, size_t max_entries);
/* G2 runs sort at most half of max_entries a group (on = 1; a new context's is 0): a G2 entry's
 * pairwise scratch is twice a G1 entry's (120 bytes against 60), so a context budgeted for G1
 * at max_entries holds G2's within the same bytes. The CUDA backend's worker slots set it, and
 * size their G2 MSMs' scratch at half their entries. A PoRep partition's B_G2 (~3 M scalars
 * other than 0 and 1) stays within one or two groups either way. */
void msm_gpu_ctx_set_g2_half(msm_gpu_ctx *ctx, int on);
/* Lends the context device memory [d_base, d_base + bytes) of its device (256-byte aligned;
 * borrowed until the loan ends) as the scratch of its runs and accumulations, which sort at
 * most max_entries entries a group (either curve; msm_gpu_ctx_set_g2_half does not apply),
 * until msm_gpu_ctx_lend(ctx, NULL, 0, 0) ends the loan. Meanwhile the context's own scratch
 * is neither used, freed nor grown (msm_gpu_ctx_trim still frees it): the loan's buffers,
 * CUB's temporary storage included, are carved from the lent memory, and a run that needs
 * more than it holds fails with CUZK_EDEVICE rather than take pool memory (the lender's
 * budget counted the loan as its own). The copy of host scalars (msm_gpu_run's) stays the
 * context's. Refused (CUZK_EINVAL) while a loan is on or an accumulation is open; ending the
 * loan waits for the context's stream (the memory is the lender's again on return, for any
 * stream) and abandons an accumulation begun on the loan and not ended (an error path's);
 * sums of deferred runs already enqueued are kept for msm_gpu_ctx_collect. Ending no loan
 * is CUZK_OK. The CUDA backend lends a lean slot's free domain vector to its H MSM. */
int msm_gpu_ctx_lend(msm_gpu_ctx *ctx, void *d_base, size_t bytes, size_t max_entries);
/* The configuration of an XYZZ accumulation of n_total points on curve in pieces of piece_pts
 * (msm_gpu_acc_*) run on a loan of `bytes` (msm_gpu_ctx_lend): *max_entries (2^25..2^27 sort
 * entries a group) and *shared_bytes (msm_gpu_acc_begin's bucket_bytes_max, persist =
 * shared_bytes != 0: 0, 512, 1024 or 2048 MiB) whose whole scratch estimate
 * (msm_gpu_scratch_parts) fits `bytes`: the cheapest by the plan's cost model
 * (msm_shared_window's), then the most entries (fewer window groups, each a sort and a level-0
 * wave, which the model does not count), then the smaller bucket cap. CUZK_OK, or CUZK_ENOMEM
 * where none fits. Host only. */
int msm_gpu_lent_config(int curve, size_t n_total, size_t piece_pts, unsigned waves, size_t bytes,
                        size_t *max_entries, size_t *shared_bytes);
/* The stream the context runs on (a cudaStream_t). */
void *msm_gpu_ctx_stream(const msm_gpu_ctx *ctx);

/* Device bytes a context with max_entries takes for an MSM of n points, for the placement's
 * working-set estimate: msm_gpu_run (piece = 0) or msm_gpu_acc_* in pieces of `piece` points
 * (their buckets shared, msm_gpu_acc_begin's persist = 1, when bucket_bytes_max != 0),
 * whatever share of the scalars is 0 or 1, with accumulation acc (MSM_ACC_*; AUTO counts
 * pairwise's scratch where a run may take it). */
size_t msm_gpu_scratch_bytes(int curve, size_t n, size_t max_entries, size_t piece, size_t bucket_bytes_max,
                             unsigned waves, int acc);
/* The same by what holds it. A context's buffers grow to the largest request each sees and
 * keep it, so a context that runs several MSMs (a worker slot's five a partition) ends holding,
 * per buffer, the largest of them: bound it by each part's largest over the MSMs
 * (msm_scratch_parts_max), summed (msm_scratch_parts_total), not by the largest total (on a
 * PoRep slot the index lists are H's, the pairwise scratch B_G2's). test_msm_scratch checks
 * these against the plan itself (msm_size_run). */
enum {
    MSM_PART_INDEX,    /* the scalars' classes and index lists: 10 bytes a point */
    MSM_PART_SORT,     /* the digit sort's keys and values: 16 bytes an entry */
    MSM_PART_BUCKETS,  /* a window group's buckets */
    MSM_PART_MERGE,    /* precomputed copies in point chunks: a later chunk's buckets; pieces
                        * sharing buckets: the array over every window */
    MSM_PART_REDUCE,   /* the bucket reduction's points */
    MSM_PART_PARTIALS, /* the accumulation levels' partial sums */
    MSM_PART_PAIR,     /* pairwise rounds' sums and prefix products */
    MSM_PART_FIXED,    /* window sums, results; CUB's temporary storage, the pool's alignment */
    MSM_PARTS
};
typedef struct {
    size_t part[MSM_PARTS];
} msm_scratch_parts;
/* What the estimate leaves out (the backend uses none of it): a window forced by
 * msm_gpu_ctx_set_window or given to msm_gpu_bases_precompute, kmul > 1
 * (msm_gpu_ctx_set_accumulation), runs over part of a base vector (first > 0), and the copy
 * of host scalars (n·32 bytes). */
void msm_gpu_scratch_parts(int curve, size_t n, size_t max_entries, size_t piece, size_t bucket_bytes_max,
                           unsigned waves, int acc, msm_scratch_parts *out);
/* What the executor adds to its buffers' exact requests for a group of `entries` sort entries
 * over `buffers` buffers (the sort's and selection's temporary storage, the pool's rounding):
 * part of MSM_PART_FIXED. The device's (msm.cu) and the simulated device's (test/simgpu) each
 * say their own. */
size_t msm_gpu_library_bytes(size_t entries, size_t buffers);
static inline void msm_scratch_parts_max(msm_scratch_parts *acc, const msm_scratch_parts *p)
{
    for (int i = 0; i < MSM_PARTS; i++)
        if (p->part[i] > acc->part[i]) acc->part[i] = p->part[i];
}
static inline size_t msm_scratch_parts_total(const msm_scratch_parts *p)
{
    size_t t = 0;
    for (int i = 0; i < MSM_PARTS; i++) t += p->part[i];
    return t;
}

/* What the last msm_gpu_run on ctx did: device time in ms (CUDA events around the whole run,
 * scalar upload included), window bits, and how many scalars were 0, 1 or other. */
typedef struct {
    float device_ms;
    uint32_t window_bits;
    uint32_t window_groups;
    uint32_t pauses;   /* gate passes between them (msm_gpu_ctx_set_gate) */
    uint32_t copies; /* 1, or the precomputed copies the run summed over */
    uint32_t acc;    /* MSM_ACC_XYZZ, _AFFINE or _PAIRWISE: what its bucket accumulation ran */
    uint32_t reduce; /* MSM_REDUCE_SEGMUL or _LEVELS: how its buckets were reduced */
    uint64_t n_zero, n_one, n_rest;
} msm_gpu_stats;
void msm_gpu_last_stats(const msm_gpu_ctx *ctx, msm_gpu_stats *out);

/* The same plan executed on the host, thread by thread (no GPU needed): for tests of the
 * digit, sort, bucket and reduction logic. acc_threads sets the level-0 thread count (small
 * values force buckets to straddle threads); window_bits 0 = chosen by size. Every msm_sim_run*
 * reduces buckets as CUZK_MSM_REDUCE says (msm_reduce_from_env), as a new context would. */
int msm_sim_run(int curve, const void *bases, const void *scalars, size_t n, int scalar_form,
                unsigned window_bits, size_t max_entries, size_t acc_threads, void *out);
/* The same as pieces of `piece` points accumulated one after another (msm_gpu_acc_*'s plan):
 * persist 0, each piece reduces its own buckets; else they share them (msm_gpu_acc_begin's
 * persist = 1) within persist bytes where persist > 1 (1: no limit). */
int msm_sim_run_pieces(int curve, const void *bases, const void *scalars, size_t n, int scalar_form,
                       unsigned window_bits, size_t max_entries, size_t acc_threads, size_t piece, int persist,
                       void *out);
/* Either with the bucket accumulation acc (MSM_ACC_*) and its min_batch (0 = always affine
 * steps, or pairwise rounds, while any bucket takes points: small simulations still exercise
 * them) and, pairwise, at most `rounds` rounds (0 = no limit). */
int msm_sim_run_acc(int curve, int acc, unsigned min_batch, unsigned rounds, const void *bases, const void *scalars, size_t n,
                    int scalar_form, unsigned window_bits, size_t max_entries, size_t acc_threads, size_t piece,
                    int persist, void *out);
/* msm_sim_run_pieces on an executor with a gate (gated != 0; msm_gpu_ctx_set_gate) that is
 * never raised: *groups the window groups the plan ran, *pauses the pauses it made (counted,
 * not waited). */
int msm_sim_run_gated(int curve, const void *bases, const void *scalars, size_t n, int scalar_form,
                      unsigned window_bits, size_t max_entries, size_t acc_threads, size_t piece, int persist,
                      int gated, void *out, uint32_t *groups, uint32_t *pauses);
/* The classes the MSM sorts n scalars into: counts[0] ones, counts[1] neither 0 nor 1. */
void msm_count_classes_host(const void *scalars, size_t n, int scalar_form, uint32_t counts[2]);
/* msm_sim_run told the counts up front (as msm_gpu_ctx_set_counts tells a device run): the
 * plan then reads none back. */
int msm_sim_run_counted(int curve, const void *bases, const void *scalars, size_t n, int scalar_form,
                        unsigned window_bits, size_t max_entries, size_t acc_threads, const uint32_t counts[2],
                        void *out);
/* msm_sim_run over precomputed copies: copies shifted bases made on the host by the device's
 * shift (window_bits c, 0 = chosen for n; shift_bits = doublings between copies, 0 = the right
 * c·g: anything else makes a wrong result, for tests that must be able to fail), the plan
 * forced onto them (MSM_PRE_FORCE) or by its cost model (MSM_PRE_AUTO). */
int msm_sim_run_pre(int curve, const void *bases, const void *scalars, size_t n, int scalar_form, unsigned copies,
                    unsigned window_bits, unsigned shift_bits, int mode, size_t max_entries, size_t acc_threads,
                    void *out);
/* The bucket reduction alone, on the host: windows[w] (g1_jac/g2_jac) = sum over k < B of
 * (k + 1)·buckets[w·B + k] for w < g, B = 2^(c-1) (c 2..22, g 1..64), buckets in the device's
 * XYZZ layout (x, y, zz, zzz of g1_jac's/g2_jac's coordinate type; zz = 0: infinity), reduced
 * as `mode` (MSM_REDUCE_*) does with `threads` a wave (0 = 64: small values keep segments
 * long, large ones shorten them). Buffers borrowed for the call. */
int msm_sim_reduce(int curve, int mode, unsigned c, unsigned g, size_t threads, const void *buckets, void *windows);
/* out[i] = in[i]^-1 (Fp, Montgomery form, 0 -> 0) by the device's inversion run on the host. */
void msm_sim_fp_inv(void *out, const void *in, size_t n);

/* The plan run for its scratch alone (no data, no arithmetic, any size): a context that
 * records what a device context's buffers would grow to, for tests of the placement's
 * estimate (msm_gpu_scratch_parts). g2_half as msm_gpu_ctx_set_g2_half; acc: MSM_ACC_*; waves
 * as msm_gpu_ctx_set_waves; wave_g1, wave_g2: level-0 threads of one wave (0 = the estimate's
 * bounds, 2^18 and 2^17). NULL with the error set (an unknown acc, out of memory). */
typedef struct msm_size_ctx msm_size_ctx;
msm_size_ctx *msm_size_ctx_new(size_t max_entries, int g2_half, int acc, unsigned waves, size_t wave_g1,
                               size_t wave_g2);
void msm_size_ctx_free(msm_size_ctx *ctx);
/* msm_size_run's accumulated runs (piece != 0) share buckets within bucket_bytes_max bytes
 * (msm_gpu_acc_begin's persist = 1) from now on; 0: each piece reduces its own (the default). */
void msm_size_ctx_set_shared(msm_size_ctx *ctx, size_t bucket_bytes_max);
/* One MSM of n points on ctx, n_one of the scalars 1 and n_rest neither 0 nor 1 (told, as
 * msm_gpu_ctx_set_counts does): msm_gpu_run's plan (piece = 0; over `copies` precomputed
 * copies at window pre_c, 0 = as msm_gpu_bases_precompute chooses, where its cost model takes
 * them) or msm_gpu_acc_*'s in pieces of `piece` points, the counts spread evenly over them
 * (spread = 1), front-first (0: the first pieces all other than 0 and 1, then the ones) or
 * late (2: the first piece one scalar other than 0 and 1, which fixes a 4-bit window, the
 * others front-first after it). CUZK_EINVAL for counts over n, n over 2^31 - 1, another
 * spread or a window outside 4..22. */
int msm_size_run(msm_size_ctx *ctx, int curve, size_t n, size_t n_one, size_t n_rest, size_t piece, int spread,
                 unsigned copies, unsigned pre_c);
/* Device bytes the context's buffers would hold now: every run's largest request per buffer. */
size_t msm_size_held(const msm_size_ctx *ctx);
/* What one context would hold after both a's and b's runs: each buffer's larger. */
size_t msm_size_held_both(const msm_size_ctx *a, const msm_size_ctx *b);
/* The same by part (msm_gpu_scratch_parts' parts). */
void msm_size_held_parts(const msm_size_ctx *ctx, msm_scratch_parts *out);

#ifdef __cplusplus
}
#endif

#endif
