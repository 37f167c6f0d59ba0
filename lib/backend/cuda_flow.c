/*
 * The device work of one partition inside a worker slot, in two shapes:
 *   full — the H step in three domain vectors, aux and the compacted A and B beside them,
 *          copies overlapped with the H step, the MSMs over resident bases;
 *   lean — two domain vectors reused: the H step leaves h in the first, aux arrives in the
 *          second during the H MSM, then B and A are compacted one after the other into the
 *          first, each MSM streaming whatever bases are not resident.
 * Inputs are page-locked host memory (cuda_start staged what was not).
 */
#if CUZK_HAVE_CUDA
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_common.h"
#include "backend/cuda_internal.h"
#include "cuda_util.h"
#include "error.h"
#include "fault.h"
#include "ntt.h"
#include "prep.h"

#define FR 32ull

static const char *const array_names[5] = {"a", "b", "c", "inputs", "aux"};

/* The accumulation a slot's MSMs run when nothing else is known (urgent slots, keys whose
 * placement could not afford pairwise's scratch, keys that lost bases to an eviction), and the
 * one a key gets where its placement can: MSM_ACC_XYZZ and MSM_ACC_AUTO, or CUZK_MSM_ACC's
 * choice for both when it names one. */
int cuda_acc_plain(void)
{
    const int a = msm_acc_from_env();
    return a == MSM_ACC_AUTO ? MSM_ACC_XYZZ : a;
}

int cuda_acc_rich(void) { return msm_acc_from_env(); }

int cuda_g2_half(int acc) { return acc == MSM_ACC_AUTO || acc == MSM_ACC_PAIRWISE; }

/* What a slot's MSM context holds after the key's MSMs, whole vectors (full) or pieces (lean):
 * its buffers keep the largest request each saw, so each part's largest over the vectors, not
 * the largest vector's total (msm.h). With pairwise's scratch G2 runs sort half the entries
 * (cuda_g2_half, which slot_msm sets), so its pairwise scratch is no more than G1's. */
static uint64_t msm_scratch(const cuda_key *k, size_t entries, uint64_t piece_bytes, int acc)
{
    msm_scratch_parts most;
    memset(&most, 0, sizeof most);
    for (int v = 0; v < PL_N; v++) {
        uint64_t n = k->n[v], pts = piece_bytes ? piece_bytes / pl_point_bytes(v) : n;
        if (pts > n) pts = n;
        const size_t e = pl_curve(v) == MSM_CURVE_G2 && cuda_g2_half(acc) ? entries / 2 : entries;
        msm_scratch_parts p;
        msm_gpu_scratch_parts(pl_curve(v), n, e, piece_bytes ? pts : 0, piece_bytes ? k->msm_shared_bytes : 0,
                              k->msm_waves, acc, &p);
        msm_scratch_parts_max(&most, &p);
    }
    return msm_scratch_parts_total(&most);
}

/* Lean layout, in scalars: h at [0, m); aux at [m, m + na); inputs at [0, ni), B after them,
 * later A over B — inside [0, m) when they fit there, else after aux. */
uint64_t cuda_lean_hi(uint64_t m, uint64_t ni, uint64_t n_a, uint64_t n_b)
{
    return ni + n_b <= m && n_a <= m ? 0 : (ni + n_b > n_a ? ni + n_b : n_a);
}

int cuda_lean_lends(const cuda_key *k, const cuda_key_dev *kd, const cuda_inputs *in)
{
    return k->lean_h_lend && kd->pl.ws != PL_FULL && !cuda_lean_hi((uint64_t)1 << in->log_m, in->ni, in->n_a, in->n_b);
}

/* The scalars of d_work: the one layout rule for the estimates and for each partition. */
static uint64_t work_scalars(int lean, unsigned log_m, uint64_t na, uint64_t n_a, uint64_t n_b, uint64_t ni)
{
    uint64_t m = (uint64_t)1 << log_m;
    if (!lean) return 3 * m + na + n_a + n_b + 1;
    uint64_t hi = cuda_lean_hi(m, ni, n_a, n_b);
    return 2 * m > m + na + hi ? 2 * m : m + na + hi;
}

static uint64_t key_work_bytes(const cuda_key *k, int lean)
{
    const groth16_params *pk = k->pk;
    return work_scalars(lean, k->log_m, pk->n_l, pk->n_a, pk->n_b_g1, pk->vk.n_ic) * FR;
}

/* CUZK_MSM_ENTRIES_LOG fixes a full slot's sort entries per window group; unset, each key's
 * load chooses (cuda_keys.c, plan_key_entries). At 2^26 entries a 2^27 MSM (the H MSM of a
 * PoRep partition) runs in two point chunks, each window reduced twice, and over precomputed
 * copies in four, a bucket merge after each later one; in the engine on the H200 that MSM ran
 * in 1006 ms at 2^26, 894 at 2^27 and 839 at 2^28 (bench/RESULTS.md, session 16). Each step
 * up costs the slot 16 bytes an entry and pairwise's scratch (28.4, 33.6, 44.4 GiB a slot;
 * 32.4, 40.9 and 57.9 when those times were measured, before session 17's tighter estimate). */
/* A log2 variable's value where set within lo..hi (cuda_env_check refuses others), else 0. */
static long env_log(const char *name, long lo, long hi)
{
    const char *e = getenv(name);
    const long v = e && *e ? strtol(e, NULL, 10) : 0;
    return v >= lo && v <= hi ? v : 0;
}

static long entries_log_env(void) { return env_log("CUZK_MSM_ENTRIES_LOG", 25, 28); }
static long lean_entries_log_env(void) { return env_log("CUZK_MSM_LEAN_ENTRIES_LOG", 25, 27); }

int cuda_msm_entries_fixed(void) { return entries_log_env() != 0; }

size_t cuda_msm_entries_full(void)
{
    const long v = entries_log_env();
    return v ? (size_t)1 << v : CUDA_MSM_ENTRIES_FULL;
}

int cuda_msm_entries_lean_fixed(void) { return lean_entries_log_env() != 0; }

/* CUZK_LEAN_H_LEND (1 or unset: on; 0: off, for comparison; cuda_env_check refuses other
 * values at engine start): the lean flows lend the H MSM the domain vector [m, 2m) that holds
 * nothing while it runs (cuda_flow_lean, cuda_flow_witness_lean): −15 % MSM H, +4 to +8 %
 * partitions/s on a GPU made 16 or 32 GiB (bench/RESULTS.md, session 22). Read once, at
 * engine start. */
int cuda_lean_h_lend(void)
{
    const char *e = getenv("CUZK_LEAN_H_LEND");
    return !e || strcmp(e, "0") != 0;
}

/* CUZK_MSM_SHARED_BUCKETS_MB (0..8192; cuda_env_check refuses others at engine start, and
 * they read as 0 here), for measuring: a streamed MSM's pieces share one bucket array over
 * every window, reduced once (msm_gpu_acc_begin's persist), in place of a reduction per piece
 * (issue 28 item 3: ~10 ms each on the H200, 8 or 16 pieces in a PoRep partition's H MSM). The
 * array counts in the lean slot's estimate. Read once, at engine start (cuda_backend). */
uint64_t cuda_msm_shared_bytes(void)
{
    const char *e = getenv("CUZK_MSM_SHARED_BUCKETS_MB");
    if (!e || !*e) return 0;
    char *end;
    errno = 0;
    const long v = strtol(e, &end, 10);
    return !errno && !*end && v >= 0 && v <= 8192 ? (uint64_t)v << 20 : 0;
}

size_t cuda_msm_entries_lean(void)
{
    const long v = lean_entries_log_env();
    return v ? (size_t)1 << v : CUDA_MSM_ENTRIES_LEAN;
}

size_t cuda_key_entries_lean(const cuda_key *k)
{
    return cuda_msm_entries_lean_fixed() || !k->msm_entries_lean ? cuda_msm_entries_lean() : k->msm_entries_lean;
}

size_t cuda_key_entries_full(const cuda_key *k)
{
    return k->msm_entries_full ? k->msm_entries_full : CUDA_MSM_ENTRIES_FULL;
}

uint64_t cuda_ws_full_at(const cuda_key *k, int acc, size_t entries)
{
    return key_work_bytes(k, 0) + cuda_prep_bytes(k->pk->n_l) + msm_scratch(k, entries, 0, acc);
}

uint64_t cuda_ws_full_acc(const cuda_key *k, int acc) { return cuda_ws_full_at(k, acc, cuda_key_entries_full(k)); }

size_t cuda_full_entries_run(const cuda_key *k, int acc, size_t held, uint64_t keys_part)
{
    const size_t own = cuda_key_entries_full(k);
    return held > own && cuda_ws_full_at(k, acc, held) <= keys_part ? held : own;
}

uint64_t cuda_ws_full(const cuda_key *k) { return cuda_ws_full_acc(k, cuda_acc_plain()); }

/* CUZK_PIECE_MB, for measuring larger pieces (issue 28 item 3: each streamed piece of an MSM
 * reduces its own buckets; at 16 GiB the 2^27 H MSM's 17 pieces cost ~190 ms of reductions, and
 * the window model puts 8 pieces at −7 %, 4 at −12 % of that MSM, against two larger stream
 * buffers per lean slot taken from resident bases). Validated by cuda_env_check (1..4096). */
static uint64_t piece_bytes_env(void)
{
    const char *e = getenv("CUZK_PIECE_MB");
    return e && *e ? (uint64_t)strtoull(e, NULL, 10) << 20 : 0;
}

/* An eighth of k's largest vector, at most cap (CUZK_PIECE_MB instead where set), whole
 * points of either curve. */
static uint64_t piece_bytes_capped(const cuda_key *k, uint64_t cap)
{
    uint64_t big = 0;
    for (int v = 0; v < PL_N; v++)
        if (k->n[v] * pl_point_bytes(v) > big) big = k->n[v] * pl_point_bytes(v);
    uint64_t p = piece_bytes_env();
    if (!p) {
        p = big / 8;
        p = p > cap ? cap : p;
    }
    p = p < CUDA_PIECE_MIN ? CUDA_PIECE_MIN : p;
    return p - p % 192;
}

/* CUZK_LEAN_SLOTS (1 or 2; validated by cuda_env_check): forces one or two streaming lean
 * slots for a key that streams (two only where both fit); unset (0), cuda_lean_slots_auto
 * decides. */
uint32_t cuda_lean_slots(void)
{
    const char *e = getenv("CUZK_LEAN_SLOTS");
    const long v = e && *e ? strtol(e, NULL, 10) : 0;
    return v == 1 || v == 2 ? (uint32_t)v : 0;
}

uint64_t cuda_piece_bytes(const cuda_key *k) { return piece_bytes_capped(k, CUDA_PIECE_BYTES); }

uint64_t cuda_key_bases_bytes(const cuda_key *k)
{
    uint64_t t = 0;
    for (int v = 0; v < PL_N; v++) t += k->n[v] * pl_point_bytes(v);
    return t;
}

/* A streaming lean slot with pieces of `piece` bytes and room for the larger of lean_extra
 * (the loaded systems' part) and a witness-only partition's witness on k (its inputs and aux,
 * and a streamed system's two pieces at most): a constraint system loaded later grows the
 * lean slot by that. */
static uint64_t lean_slot_with_room(const cuda_key *k, uint64_t piece, uint64_t lean_extra)
{
    const uint64_t wit = ((uint64_t)k->pk->vk.n_ic + k->pk->n_l) * FR + 2 * CUDA_CS_PIECE_MAX;
    return cuda_ws_lean(k, piece) + (lean_extra > wit ? lean_extra : wit) + 2 * piece;
}

int cuda_lean_room_fits(const cuda_key *k, uint64_t piece, uint64_t lean_extra, uint32_t n, uint64_t avail)
{
    return (uint64_t)n * lean_slot_with_room(k, piece, lean_extra) <= avail;
}

/* Whether k fits resident beside a lean slot of the default pieces (and lean_extra): then
 * neither the larger pieces nor a second streaming slot are for it. */
static int resident_beside_lean(const cuda_key *k, uint64_t avail, uint64_t lean_extra)
{
    return cuda_key_bases_bytes(k) + cuda_ws_lean(k, cuda_piece_bytes(k)) + lean_extra <= avail;
}

/* Larger pieces where the key streams: each streamed piece of an MSM reduces its own buckets,
 * and twice the piece halves those reductions (2^27 PoRep on an H200 made 16/24/32 GiB: MSM H
 * 1460 -> 1381 ms, 0.396/0.406/0.409 -> 0.409/0.426/0.431 partitions/s, though the larger
 * stream buffers take resident bases: bench/RESULTS.md, session 13). Where the key is resident
 * the pieces only stage uploads; and the larger lean slot must leave room for a witness-only
 * partition's witness (a constraint system loaded later grows the lean slot by it): on a card
 * made 16 GiB it does not, and the smaller pieces keep witness-only partitions possible. */
uint64_t cuda_piece_bytes_first(const cuda_key *k, uint64_t avail, uint64_t lean_extra, uint32_t lean_slots)
{
    const uint64_t small = cuda_piece_bytes(k), large = piece_bytes_capped(k, CUDA_PIECE_BYTES_STREAMED);
    if (large <= small) return small;
    if (resident_beside_lean(k, avail, lean_extra)) return small;
    const uint64_t n = lean_slots > 1 ? lean_slots : 1;
    return n * lean_slot_with_room(k, large, lean_extra) <= avail ? large : small;
}

/* Two streaming lean slots overlap two partitions as the resident layout does, at the cost of
 * resident bases: on an H200 made 32 GiB, 2^27 PoRep, 0.430 -> 0.460 partitions/s (one slot
 * of 1536 MiB pieces against two of 768; bench/RESULTS.md, session 14). Made 24 GiB, two
 * slots gained 3 % but left no room for a witness-only partition's witness, so the rule asks
 * both slots to keep that room; an engine with urgent workers keeps one (their own slots need
 * the room: PoSt deadlines before bulk throughput). */
uint32_t cuda_lean_slots_auto(const cuda_key *k, uint64_t avail, uint64_t lean_extra, uint32_t urgent_workers)
{
    if (urgent_workers || resident_beside_lean(k, avail, lean_extra)) return 1;
    return 2 * lean_slot_with_room(k, cuda_piece_bytes(k), lean_extra) <= avail ? 2 : 1;
}

uint64_t cuda_ws_lean_at(const cuda_key *k, uint64_t piece_bytes, int acc, size_t entries)
{
    return key_work_bytes(k, 1) + cuda_prep_bytes(k->pk->n_l) + msm_scratch(k, entries, piece_bytes, acc);
}

uint64_t cuda_ws_lean_acc(const cuda_key *k, uint64_t piece_bytes, int acc)
{
    return cuda_ws_lean_at(k, piece_bytes, acc, cuda_key_entries_lean(k));
}

size_t cuda_lean_entries_run(const cuda_key *k, int acc, int streamed, uint64_t piece_bytes, size_t held,
                             uint64_t lean_part)
{
    const size_t own = cuda_key_entries_lean(k);
    const uint64_t need = cuda_ws_lean_at(k, piece_bytes, acc, held) + (streamed ? 2 * piece_bytes : 0);
    return held > own && held <= CUDA_MSM_ENTRIES_LEAN_MAX && need <= lean_part ? held : own;
}

uint64_t cuda_ws_lean(const cuda_key *k, uint64_t piece_bytes) { return cuda_ws_lean_acc(k, piece_bytes, cuda_acc_plain()); }

/* With urgent workers, bulk MSMs' level-0 blocks retire 8x as often (the urgent kernels wait
 * that much less for SMs; the MSM costs ~1 %): bench/RESULTS.md, session 6. Not a pinned
 * key's (WinningPoSt's: nothing waits behind its small MSMs, and the waves' scratch took its
 * slot from 0.46 to 1.30 GiB, past the 1 GiB kept for it: on a 24 GiB card it then waited for
 * a bulk partition to end, p99 2.7 s, session 7; test_cuda_sizes). */
unsigned cuda_msm_waves(uint32_t urgent_workers, int pinned, unsigned env_waves)
{
    return env_waves ? env_waves : urgent_workers && !pinned ? CUDA_URGENT_WAVES : 1;
}

uint64_t cuda_slot_need(const cuda_key *k, int lean, int streamed, uint64_t piece_bytes)
{
    return lean ? cuda_ws_lean(k, piece_bytes) + (streamed ? 2 * piece_bytes : 0) : cuda_ws_full(k);
}

uint64_t cuda_slot_need_kd(const cuda_key *k, const cuda_key_dev *kd, int lean, uint64_t piece_bytes)
{
    if (!lean || kd->pl.ws != PL_FULL) return cuda_slot_need(k, lean, kd->pl.kind != PL_RESIDENT, piece_bytes);
    /* a key placed full, run in a lean (urgent) slot: slot_msm runs its MSMs over the whole
     * resident vectors, at the lean slot's sort entries (msm_gpu_run's scratch, not a piece's:
     * its index arrays alone are 10 bytes a point) */
    return key_work_bytes(k, 1) + cuda_prep_bytes(k->pk->n_l) +
           msm_scratch(k, CUDA_MSM_ENTRIES_LEAN, 0, cuda_acc_plain());
}

uint64_t cuda_work_bytes(const cuda_inputs *in, int lean)
{
    return work_scalars(lean, in->log_m, in->na, in->n_a, in->n_b, in->ni) * FR;
}

uint64_t cuda_prep_bytes(uint64_t na) { return CUDA_PREP_SCRATCH_OFF + gpu_prep_scratch_bytes(na); }

/* The check result: the first bad scalar, or the densities against the key. */
int cuda_prep_verdict(const gpu_prep_result *r, const cuda_inputs *in, int want_a, int want_b)
{
    if (r->bad != GPU_PREP_OK) {
        unsigned arr = (unsigned)(r->bad >> 56);
        return err_set(CUZK_EINVAL, "%s[%llu] is not below r (%s form)", arr < 5 ? array_names[arr] : "?",
                       (unsigned long long)(r->bad & (((uint64_t)1 << 56) - 1)), in->canon ? "canonical" : "Montgomery");
    }
    if ((want_a && in->ni + r->n_a != in->n_a) || (want_b && in->kb0 + r->n_b != in->n_b))
        return err_set(CUZK_EINVAL, "partition's densities select %llu A and %llu B scalars, the key has %llu and %llu",
                       (unsigned long long)(in->ni + r->n_a), (unsigned long long)(in->kb0 + r->n_b),
                       (unsigned long long)in->n_a, (unsigned long long)in->n_b);
    return CUZK_OK;
}

/* Reads the check result back (a small synchronous copy on the compute stream), and `extra`
 * bytes after it at d_prep + 256 (the full flow's MSM class counts) into h_small + 256. */
int cuda_read_result(cuda_slot *s, gpu_prep_result *h_res, size_t extra)
{
    _Static_assert(sizeof(gpu_prep_result) <= 256, "the prep result fits before the flags");
    int rc;
    if ((rc = gpu_memcpy_async(h_res, s->d_prep, extra ? 256 + extra : sizeof *h_res, s->stream)) ||
        (rc = gpu_stream_sync(s->stream)))
        return rc;
    return CUZK_OK;
}

/* The class counts of each MSM's scalars, counted on the device before the check result is
 * read back and carried back with it: the MSMs then read nothing back until the last one
 * ends (every host round trip lets a backlog's long kernels take the SMs back). */
int cuda_count_classes(cuda_slot *s, const void *const sc[CNT_N], const uint64_t n[CNT_N], const int form[CNT_N])
{
    uint32_t *d_cnt = (uint32_t *)((uint8_t *)s->d_prep + 256);
    int rc = gpu_memset_async(d_cnt, 0, CNT_N * 2 * sizeof(uint32_t), s->stream);
    for (int i = 0; i < CNT_N && !rc; i++) rc = msm_gpu_count_classes(sc[i], n[i], form[i], d_cnt + 2 * i, s->stream);
    return rc;
}

int cuda_flow_full(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, const cuda_inputs *in,
                   backend_job *job)
{
    const uint64_t m = (uint64_t)1 << in->log_m, len = in->len, ni = in->ni, kb0 = in->kb0, na = in->na;
    uint8_t *d = s->d_work;
    fr_t *d_aux = (fr_t *)(d + 3 * m * FR), *d_a = d_aux + na, *d_b = d_a + in->n_a;
    gpu_prep_result *d_res = s->d_prep;
    int rc;
    /* a, b, c are checked (and made Montgomery) on the device as they arrive; the transforms
     * are harmless on values >= r and nothing reads their output before the host has seen
     * the check's result (the first MSM is enqueued after it) */
    if ((rc = slot_yield(s, ordinal)) || (rc = gpu_prep_reset(d_res, s->stream)) ||
        (rc = slot_stage_begin(s, ST_H, s->stream)) ||
        (FAULT_HIT(FAULT_CUDA_H) && err_set(CUZK_EDEVICE, "injected fault: CUDA H step")) ||
        gpu_h_step_from_host_checked(d, d + m * FR, d + 2 * m * FR, in->a, in->b, in->c, len, in->log_m, in->canon,
                                     d_res, s->gate, s->stream, s->copy_stream) ||
        (rc = slot_stage_end(s, ST_H, s->stream, 3 * len * FR)))
        return rc ? rc : slot_fail(ordinal, "the H step");
    /* while the H step runs: aux (whole, for L) and the inputs' prefixes of A and B */
    uint64_t sc_bytes = (na + ni + kb0) * FR + 2 * ((na + 63) / 64) * 8;
    if ((rc = slot_stage_begin(s, ST_COPY, s->copy_stream)) ||
        (FAULT_HIT(FAULT_CUDA_COPY) && (rc = err_set(CUZK_EDEVICE, "injected fault: CUDA copy of the scalars"))) ||
        (na && (rc = gpu_memcpy_async(d_aux, in->aux, na * FR, s->copy_stream))) ||
        (ni && (rc = gpu_memcpy_async(d_a, in->in_ab, ni * FR, s->copy_stream))) ||
        (kb0 && (rc = gpu_memcpy_async(d_b, in->in_ab + ni, kb0 * FR, s->copy_stream))) ||
        (rc = slot_stage_end(s, ST_COPY, s->copy_stream, sc_bytes)))
        return slot_fail(ordinal, "copying the MSM scalars");
    /* after the H step on its stream: inputs and aux checked, A and B compacted */
    if (gpu_stream_wait_event(s->stream, s->ev[2 * ST_COPY + 1]) || gpu_prep_check(d_a, ni, 3, 0, d_res, s->stream) ||
        gpu_prep_check(d_aux, na, 4, 0, d_res, s->stream) ||
        gpu_prep_compact(d_a + ni, in->n_a - ni, d_b + kb0, in->n_b - kb0, d_aux, na, in->dens_a, in->dens_b,
                         (uint8_t *)s->d_prep + CUDA_PREP_SCRATCH_OFF, s->d_prep_bytes - CUDA_PREP_SCRATCH_OFF, d_res,
                         s->stream))
        return slot_fail(ordinal, "the scalar preparation");
    return cuda_flow_full_msms(s, k, kd, ordinal, in, job, d, d_aux, d_a, d_b,
                               in->canon ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY);
}

int cuda_flow_full_msms(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, const cuda_inputs *in,
                        backend_job *job, const void *d_h, const fr_t *d_aux, const fr_t *d_a, const fr_t *d_b, int form)
{
    cuda_job *st = job->priv;
    gpu_prep_result *h_res = (gpu_prep_result *)s->h_small;
    int rc;
    const groth16_params *pk = k->pk;
    const void *const sc[CNT_N] = {d_h, d_aux, d_a, d_b};
    const uint64_t cn[CNT_N] = {pk->n_h, in->na, in->n_a, in->n_b};
    const int cf[CNT_N] = {CUZK_FR_MONTGOMERY, form, form, form};
    if (cuda_count_classes(s, sc, cn, cf) || cuda_read_result(s, h_res, CNT_N * 2 * sizeof(uint32_t)))
        return slot_fail(ordinal, "the scalar preparation");
    bjob_release_abc(job);
    if ((rc = cuda_prep_verdict(h_res, in, 1, 1))) return rc;
    if (bjob_canceled(job)) return CUZK_ECANCELED;
    const uint32_t *cnt = (const uint32_t *)(s->h_small + 256);
    if ((rc = slot_msm(s, k, kd, ordinal, PL_H, ST_MSM_H, d_h, pk->n_h, CUZK_FR_MONTGOMERY, -1, cnt + 2 * CNT_H,
                       &st->msm.h, sizeof st->msm.h)) ||
        (rc = slot_msm(s, k, kd, ordinal, PL_L, ST_MSM_L, d_aux, in->na, form, -1, cnt + 2 * CNT_L, &st->msm.l,
                       sizeof st->msm.l)) ||
        (rc = slot_msm(s, k, kd, ordinal, PL_A, ST_MSM_A, d_a, in->n_a, form, -1, cnt + 2 * CNT_A, &st->msm.a,
                       sizeof st->msm.a)) ||
        (rc = slot_msm(s, k, kd, ordinal, PL_B_G1, ST_MSM_B_G1, d_b, in->n_b, form, -1, cnt + 2 * CNT_B,
                       &st->msm.b_g1, sizeof st->msm.b_g1)) ||
        (rc = slot_msm(s, k, kd, ordinal, PL_B_G2, ST_MSM_B_G2, d_b, in->n_b, form, -1, cnt + 2 * CNT_B,
                       &st->msm.b_g2, sizeof st->msm.b_g2)))
        return rc;
    return slot_msm_collect(s, ordinal); /* the five sums, after one wait */
}

/* The H MSM's first pieces, copied once the lean H step's inputs a and b have arrived (its
 * gpu_h_hook): enqueued ahead of them, as they were, the two pieces shared PCIe with a's copy
 * and the step grew with their size (2^27 on an H200: 448, 477, 536 ms at 768, 1536, 3072 MiB
 * pieces; bench/RESULTS.md); after b, PCIe is idle until c's copy. */
typedef struct prefetch_h {
    cuda_slot *s;
    const cuda_key *k;
    const cuda_key_dev *kd;
} prefetch_h;

static int prefetch_after_ab(void *user, void *ab_arrived)
{
    const prefetch_h *p = user;
    int rc = gpu_stream_wait_event(p->s->bases_stream, ab_arrived);
    return rc ? rc : slot_prefetch(p->s, p->k, p->kd, PL_H);
}

/* CUZK_LEAN_H_LEND's layout of the lean a/b/c flow: aux crosses into h's own vector, each
 * piece of it once the H MSM has read h's scalars there (same offsets), so that [m, 2m) holds
 * nothing during the H MSM and is lent to it as scratch; B and A go to [m, 2m) after. */
typedef struct aux_over_h {
    cuda_slot *s;
    const fr_t *src;   /* the host's aux */
    fr_t *dst;         /* h's vector */
    uint64_t na, seen; /* seen: h's scalars the MSM gave back */
} aux_over_h;

static int aux_piece(void *user, void *read, uint64_t first, uint64_t n)
{
    aux_over_h *a = user;
    a->seen += n;
    if (first >= a->na) return CUZK_OK;
    if (n > a->na - first) n = a->na - first;
    int rc = read ? gpu_stream_wait_event(a->s->copy_stream, read) : CUZK_OK;
    return rc ? rc : slot_copy(a->s, a->dst + first, a->src + first, n * FR, a->s->copy_stream);
}

/* The H MSM on the loan of [m, 2m), aux copied over h behind it; s->ev[2 * ST_COPY + 1] is
 * recorded once all of aux is in (the copy's stage is its pieces' copy events). */
static int lean_h_msm_lent(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, const cuda_inputs *in,
                           cuda_job *st, fr_t *h)
{
    const uint64_t m = (uint64_t)1 << in->log_m, na = in->na, n_h = k->pk->n_h;
    aux_over_h a = {s, in->aux, h, na, 0};
    const slot_h_loan loan = {h + m, m * FR, aux_piece, &a};
    int rc;
    /* h's vector past the H MSM's scalars is free once the H step is done */
    if ((rc = gpu_stream_wait_event(s->copy_stream, s->ev[2 * ST_H + 1])) ||
        (FAULT_HIT(FAULT_CUDA_COPY) && (rc = err_set(CUZK_EDEVICE, "injected fault: CUDA copy of the scalars"))) ||
        (na > n_h && (rc = slot_copy(s, h + n_h, a.src + n_h, (na - n_h) * FR, s->copy_stream))))
        return slot_fail(ordinal, "copying the MSM scalars");
    s->h_loan = &loan;
    rc = slot_msm(s, k, kd, ordinal, PL_H, ST_MSM_H, h, n_h, CUZK_FR_MONTGOMERY, PL_B_G1, NULL, &st->msm.h,
                  sizeof st->msm.h);
    s->h_loan = NULL; /* this MSM's only */
    if (rc) return rc;
    /* an MSM not run in pieces (none of a key placed lean, bar an empty one) gave its scalars
     * back at its end */
    if ((!a.seen && ((rc = gpu_event_record(s->ev_read, s->stream)) || (rc = aux_piece(&a, s->ev_read, 0, n_h)))) ||
        (rc = gpu_event_record(s->ev[2 * ST_COPY + 1], s->copy_stream)))
        return slot_fail(ordinal, "copying the MSM scalars");
    return CUZK_OK;
}

int cuda_flow_lean(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, const cuda_inputs *in,
                   backend_job *job)
{
    cuda_job *st = job->priv;
    const uint64_t m = (uint64_t)1 << in->log_m, len = in->len, ni = in->ni, kb0 = in->kb0, na = in->na;
    const uint64_t hi = cuda_lean_hi(m, ni, in->n_a, in->n_b);
    const int lend = cuda_lean_lends(k, kd, in);
    fr_t *w = s->d_work, *h = w, *d_aux = lend ? w : w + m;
    fr_t *d_lo = w + (lend ? m : hi ? m + na : 0); /* inputs, then B, later A */
    gpu_prep_result *d_res = s->d_prep;
    int form = in->canon ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY, rc;
    const groth16_params *pk = k->pk;
    /* the H step: h lands in [0, m), [m, 2m) is free when it ends; H's first pieces cross
     * PCIe during it (needed whatever h is) once a and b are in (prefetch_after_ab) */
    prefetch_h ph = {s, k, kd};
    const gpu_h_hook after_ab = {prefetch_after_ab, &ph};
    if ((rc = slot_yield(s, ordinal)) || (rc = gpu_prep_reset(d_res, s->stream)) ||
        (rc = slot_stage_begin(s, ST_H, s->stream)) ||
        (FAULT_HIT(FAULT_CUDA_H) && err_set(CUZK_EDEVICE, "injected fault: CUDA H step")) ||
        gpu_h_step_from_host_lean(h, w + m, in->a, in->b, in->c, len, in->log_m, in->canon, d_res, s->gate,
                                  &after_ab, s->stream, s->copy_stream) ||
        (rc = slot_stage_end(s, ST_H, s->stream, 3 * len * FR)))
        return rc ? rc : slot_fail(ordinal, "the H step");
    /* the H scalars are used as they are: a, b, c were checked by the H step; the verdict is
     * read before any result leaves (below) */
    if (lend) {
        if ((rc = lean_h_msm_lent(s, k, kd, ordinal, in, st, h))) return rc;
    } else {
        /* aux crosses PCIe during the H MSM, into the H step's second vector */
        if ((rc = gpu_stream_wait_event(s->copy_stream, s->ev[2 * ST_H + 1])) ||
            (rc = slot_stage_begin(s, ST_COPY, s->copy_stream)) ||
            (FAULT_HIT(FAULT_CUDA_COPY) && (rc = err_set(CUZK_EDEVICE, "injected fault: CUDA copy of the scalars"))) ||
            (na && (rc = gpu_memcpy_async(d_aux, in->aux, na * FR, s->copy_stream))) ||
            (rc = slot_stage_end(s, ST_COPY, s->copy_stream, na * FR)))
            return slot_fail(ordinal, "copying the MSM scalars");
        if ((rc = slot_msm(s, k, kd, ordinal, PL_H, ST_MSM_H, h, pk->n_h, CUZK_FR_MONTGOMERY, PL_B_G1, NULL,
                           &st->msm.h, sizeof st->msm.h)))
            return rc;
    }
    bjob_release_abc(job);
    if (bjob_canceled(job)) return CUZK_ECANCELED;
    /* inputs (A's prefix) and B's input prefix after them, then B compacted from aux */
    if ((ni + kb0 && gpu_memcpy_async(d_lo, in->in_ab, (ni + kb0) * FR, s->stream)) ||
        gpu_prep_check(d_lo, ni, 3, 0, d_res, s->stream) || gpu_stream_wait_event(s->stream, s->ev[2 * ST_COPY + 1]) ||
        gpu_prep_check(d_aux, na, 4, 0, d_res, s->stream))
        return slot_fail(ordinal, "the scalar preparation");
    return cuda_flow_lean_rest(s, k, kd, ordinal, in, job, d_lo, d_aux, form);
}

int cuda_flow_lean_rest(cuda_slot *s, const cuda_key *k, const cuda_key_dev *kd, int ordinal, const cuda_inputs *in,
                        backend_job *job, fr_t *d_lo, const fr_t *d_aux, int form)
{
    cuda_job *st = job->priv;
    const uint64_t ni = in->ni, kb0 = in->kb0, na = in->na;
    gpu_prep_result *h_res = (gpu_prep_result *)s->h_small, *d_res = s->d_prep;
    uint8_t *scratch = (uint8_t *)s->d_prep + CUDA_PREP_SCRATCH_OFF;
    size_t scratch_bytes = s->d_prep_bytes - CUDA_PREP_SCRATCH_OFF;
    int rc;
    /* B compacted from aux after its input prefix */
    if (gpu_prep_compact(NULL, 0, d_lo + ni + kb0, in->n_b - kb0, d_aux, na, in->dens_a, in->dens_b, scratch,
                         scratch_bytes, d_res, s->stream) ||
        cuda_read_result(s, h_res, 0))
        return slot_fail(ordinal, "the scalar preparation");
    if ((rc = cuda_prep_verdict(h_res, in, 0, 1))) return rc;
    if ((rc = slot_msm(s, k, kd, ordinal, PL_B_G1, ST_MSM_B_G1, d_lo + ni, in->n_b, form, PL_B_G2, NULL, &st->msm.b_g1,
                       sizeof st->msm.b_g1)) ||
        (rc = slot_msm(s, k, kd, ordinal, PL_B_G2, ST_MSM_B_G2, d_lo + ni, in->n_b, form, PL_L, NULL, &st->msm.b_g2,
                       sizeof st->msm.b_g2)) ||
        (rc = slot_msm(s, k, kd, ordinal, PL_L, ST_MSM_L, d_aux, na, form, PL_A, NULL, &st->msm.l, sizeof st->msm.l)))
        return rc;
    if (bjob_canceled(job)) return CUZK_ECANCELED;
    /* A over B (B is done): the inputs stay in front of it */
    if (gpu_prep_compact(d_lo + ni, in->n_a - ni, NULL, 0, d_aux, na, in->dens_a, in->dens_b, scratch, scratch_bytes,
                         d_res, s->stream) ||
        cuda_read_result(s, h_res, 0))
        return slot_fail(ordinal, "the scalar preparation");
    if ((rc = cuda_prep_verdict(h_res, in, 1, 0))) return rc;
    return slot_msm(s, k, kd, ordinal, PL_A, ST_MSM_A, d_lo, in->n_a, form, -1, NULL, &st->msm.a, sizeof st->msm.a);
}
#endif
