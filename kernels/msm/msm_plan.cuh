/*
 * The MSM plan, written once against an executor (the CUDA one in msm.cu, or the host
 * simulation): classify scalars (0 / 1 / other), sum the ones without buckets, then Pippenger
 * with signed digits over window groups and point chunks: digits -> radix sort -> bucket
 * accumulation levels -> bucket reduction -> window sums -> Horner.
 */
#ifndef CUZK_MSM_PLAN_CUH
#define CUZK_MSM_PLAN_CUH

#include <type_traits>

#include "msm.h"
#include "msm/msm_affine.cuh"
#include "msm/msm_kernels.cuh"
#include "msm/msm_pairwise.cuh"
#include "msm/msm_reduce.cuh"

namespace msmk {

/* Level >= 1 of the accumulation: entries per thread (each level shrinks the partials 4x). */
#define MSM_KP 8

struct classify_fn {
    const sc256 *s;
    int mont;
    uint8_t *is_one, *is_rest;
    FPM_HD void operator()(size_t i) const
    {
        int c = scalar_class(load_canonical(s, i, mont));
        is_one[i] = c == 1;
        is_rest[i] = c == 2;
    }
};

struct digits_fn {
    const sc256 *s;
    int mont;
    const uint32_t *idx; /* rest indices of this point chunk */
    size_t n;
    unsigned c, w0, w1;
    uint32_t *keys, *vals;
    FPM_HD void operator()(size_t k) const
    {
        uint32_t i = idx[k];
        digits_thread(k, n, load_canonical(s, i, mont), i, c, w0, w1, keys, vals);
    }
};

/* digits_fn over precomputed copies (digits_pre_thread) */
struct digits_pre_fn {
    const sc256 *s;
    int mont;
    const uint32_t *idx;
    size_t n;
    unsigned c, t, g, nwin, l0, l1;
    uint32_t split;
    uint32_t *keys, *vals;
    FPM_HD void operator()(size_t k) const
    {
        uint32_t i = idx[k];
        digits_pre_thread(k, n, load_canonical(s, i, mont), i, c, t, g, nwin, l0, l1, split, keys, vals);
    }
};

/* dst[i] += src[i] over buckets: a point chunk's buckets into the merged windows' own */
template <class F> struct merge_fn {
    xyzz<F> *dst;
    const xyzz<F> *src;
    FPM_HD void operator()(size_t i) const { store16(dst + i, add(load16(dst + i), load16(src + i))); }
};

/* Resident blocks asked of the compiler for the accumulation kernels (1 = no register cap).
 * Measured on the H200: capping G1 at 128 registers (4 blocks) gained nothing, capping G2 at
 * 204 (5 blocks of 64) lost 16 %; the carry chains need the registers. */
#ifndef MSM_ACC_MINB_G1
#define MSM_ACC_MINB_G1 1
#endif
#ifndef MSM_ACC_MINB_G2
#define MSM_ACC_MINB_G2 1
#endif
template <class F, class Src> struct acc_fn {
    static constexpr unsigned min_blocks = sizeof(F) == sizeof(fp) ? MSM_ACC_MINB_G1 : MSM_ACC_MINB_G2;
    const uint32_t *keys;
    Src src;
    size_t m, kper;
    sink<F> out;
    FPM_HD void operator()(size_t t) const { accumulate_thread<F>(t, m, kper, keys, src, out); }
};

template <class F> struct tojac_fn {
    const xyzz<F> *windows;
    unsigned nwin;
    const xyzz<F> *ones;
    jacobian<F> *out;
    FPM_HD void operator()(size_t t) const { to_jacobian_thread<F>(t, windows, nwin, ones, out); }
};

static inline unsigned msm_windows(unsigned c) { return (256 + c - 1) / c; }

/* The accumulation a piece of nr scalars other than 0 and 1 runs: MSM_ACC_AUTO takes pairwise
 * rounds from pair_min of them (H200, G1: XYZZ faster at 2^16 and 2^18, even at 2^20,
 * pairwise 15 % faster at 2^22 and 10-12 % at 2^24..2^27; G2: XYZZ at 2^16, pairwise from 2^20). */
static inline int msm_acc_effective(int kind, size_t nr, size_t pair_min)
{
    if (kind != MSM_ACC_AUTO) return kind;
    return nr >= pair_min ? MSM_ACC_PAIRWISE : MSM_ACC_XYZZ;
}

/* Window bits by a cost model in Fp multiplications: ~13 per (point, window) for the bucket
 * add and its share of the sort (~9 with pairwise rounds: fitted to the H200's G1 2^22..2^27
 * sweeps, where XYZZ's 13 chose 22-bit windows at 2^26 and 20 ran 6 % faster), ~30 per
 * bucket for the running sums, and a scalar multiplication per reduction segment. The
 * reduction terms are MSM_REDUCE_SEGMUL's, which those sweeps ran; MSM_REDUCE_LEVELS's
 * (~17 % fewer products a bucket, msm_reduce.cuh) wait for a sweep of their own, so both
 * modes choose the same windows and compare like for like. */
static inline unsigned msm_choose_window(size_t n, bool pairwise = false)
{
    unsigned best = 4;
    double best_cost = 0;
    const double per_entry = pairwise ? 9 : 13;
    for (unsigned c = 4; c <= 22; c++) {
        double w = msm_windows(c), b = (double)(1u << (c - 1));
        double seg = b < MSM_SEG ? b : MSM_SEG;
        double cost = (double)n * w * per_entry + w * b * 30 + w * (b / seg) * 18 * (c - 1);
        if (c == 4 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

/* Bytes of one bucket array over every window of c bits. */
template <class F> static inline size_t msm_shared_bytes(unsigned c)
{
    return ((size_t)msm_windows(c) << (c - 1)) * sizeof(xyzz<F>);
}

/* The cost at window c, in Fp products, of ~rest scalars other than 0 and 1 in ~pieces pieces
 * that share one bucket array (msm_shared_window's model). */
static inline double msm_shared_cost(double rest, double pieces, unsigned c, bool pairwise)
{
    const double w = msm_windows(c), b = (double)(1u << (c - 1)), seg = b < MSM_SEG ? b : MSM_SEG;
    return rest * w * (pairwise ? 9 : 13) + w * b * 30 + w * (b / seg) * 18 * (c - 1) +
           (pieces > 1 ? pieces - 1 : 0) * w * b * 15;
}

/* The window of an MSM whose pieces share one bucket array over every window (plan_stats'
 * persist), the array within bucket_bytes_max (0: no limit): msm_choose_window's cost model
 * for ~rest scalars other than 0 and 1 in ~pieces pieces, with one reduction in all and, for
 * every piece but the first, each bucket added into the array (one addition, ~15 products,
 * against ~30 a bucket for a reduction). One piece chooses as msm_choose_window; more choose
 * no larger (the added term grows with c), so msm_shared_window_max bounds every choice. */
template <class F>
static inline unsigned msm_shared_window(double rest, double pieces, size_t bucket_bytes_max, bool pairwise)
{
    unsigned best = 4;
    double best_cost = 0;
    for (unsigned c = 4; c <= 22; c++) {
        if (c > 4 && bucket_bytes_max && msm_shared_bytes<F>(c) > bucket_bytes_max) break; /* grows with c */
        const double cost = msm_shared_cost(rest, pieces, c, pairwise);
        if (c == 4 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

/* The largest window msm_shared_window chooses for an MSM of n points, either accumulation. */
template <class F> static inline unsigned msm_shared_window_max(size_t n, size_t bucket_bytes_max)
{
    const unsigned x = msm_choose_window(n), p = msm_choose_window(n, true);
    unsigned c = x > p ? x : p;
    while (c > 4 && bucket_bytes_max && msm_shared_bytes<F>(c) > bucket_bytes_max) c--;
    return c;
}

static inline unsigned bit_length(size_t v)
{
    unsigned b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

/* Scratch, typed at use; an executor grows each buffer on demand. */
struct msm_bufs {
    void *is_one, *is_rest, *idx_one, *idx_rest, *keys[2], *vals[2], *buckets;
    void *pk[2], *pp[2], *red_pts[2], *windows, *ones, *result, *counts;
    void *buckets2; /* precomputed copies over point chunks: a later chunk's buckets; pieces
                     * sharing buckets (plan_stats' persist): the array over every window */
    void *pair_pts, *pair_pre; /* MSM_ACC_PAIRWISE: round sums, prefix products */
    void *ones_part;           /* pairwise: a chunk of the ones' sum before it joins b.ones */
};

/* What a run did; the result is nwin window sums and the ones' sum (b.result, Jacobian), which
 * the caller combines: sum over w of 2^(c·w)·W_w, plus the ones. */
struct plan_stats {
    unsigned c, nwin, groups;
    unsigned pauses; /* x.pause() calls: before each window group but the MSM's first, if gated */
    size_t n_one, n_rest;
    /* accumulated MSM whose pieces share buckets: each window group runs as a piece of its
     * own (zeroed buckets, level 0 storing) and is added into one array over every window
     * (b.buckets2), reduced once, at end; the window chosen at the first piece with scalars
     * other than 0 and 1 (msm_shared_window: the MSM's total points and bucket_max) */
    bool persist;
    size_t total;      /* persist: the MSM's points (msm_gpu_acc_begin's n_total) */
    size_t seen;       /* points of the pieces added so far */
    size_t bucket_max; /* persist: the array's bytes at most (0: no limit) */
    bool stored;       /* persist: the array holds every window's first group (later ones add) */
    /* the caller counted the next plan_add's classes (msm_count_classes): it reads nothing
     * back mid-run. Each host round trip hands the SMs to whatever else runs on the device
     * (a backlog's level-0 wave lives ~35 ms), so an urgent MSM without them waits once. */
    bool known = false;
    uint32_t known_one = 0, known_rest = 0;
    unsigned copies; /* > 1: the rest ran over precomputed copies, nwin merged windows */
    int acc = MSM_ACC_XYZZ; /* the accumulation the rest ran (last piece's): acc_mode::now */
    int reduce = MSM_REDUCE_LEVELS; /* the bucket reduction it runs (red_mode of the executor's) */
};

/* Before a window group but the MSM's first: where the executor has a gate, another stream's
 * urgent work may take the device here (a group is a whole digits-sort-accumulate round). */
template <class X> int group_pause(X &x, plan_stats *st)
{
    if (!st->groups || !x.gated()) return 0;
    st->pauses++;
    return x.pause();
}

/* The classes of n scalars as classify_fn sorts them: ones, then the rest (not 0 or 1). */
FPM_HD void count_classes_range(const sc256 *s, size_t i0, size_t i1, int mont, uint32_t *ones, uint32_t *rest)
{
    for (size_t i = i0; i < i1; i++) {
        int c = scalar_class(load_canonical(s, i, mont));
        *ones += c == 1;
        *rest += c == 2;
    }
}

/* Precomputed shifted copies of the bases (msm_gpu_bases_precompute): copies - 1 of them in
 * pre (copy j of point i at pre[(j - 1)·split + i]), window size c fixed when they were made. */
struct msm_pre {
    const void *pre = nullptr;
    uint32_t split = 0;
    unsigned copies = 1, c = 0;
    bool force = false; /* MSM_PRE_FORCE: whatever the cost model says */
};

/* Merged windows of t copies at window size c. */
static inline unsigned msm_pre_windows(unsigned c, unsigned t) { return (msm_windows(c) + t - 1) / t; }
/* The copies that windows of c bits use when asked for t (every copy holds a window). */
static inline unsigned msm_pre_copies(unsigned c, unsigned t)
{
    const unsigned g = msm_pre_windows(c, t ? t : 1);
    return (msm_windows(c) + g - 1) / g;
}

/* The cost model of msm_choose_window for nr scalars in runs of at most max_entries sort
 * entries, counting every bucket reduction the plan runs: the plain plan reduces each window
 * once per point chunk; over t copies (t > 1) each merged window is reduced once, a point
 * chunk after the first adding its buckets into the merged window's (a full addition each). */
static inline double msm_plan_cost(size_t nr, unsigned c, unsigned t, size_t max_entries)
{
    const double B = (double)(1u << (c - 1)), seg = B < MSM_SEG ? B : MSM_SEG;
    const double per_red = B * 30 + (B / seg) * 18 * (c - 1);
    const unsigned W = msm_windows(c);
    if (t <= 1) {
        const size_t chunk = nr < max_entries ? nr : max_entries;
        const double chunks = chunk ? (double)((nr + chunk - 1) / chunk) : 1;
        return (double)nr * W * 13 + chunks * W * per_red;
    }
    const unsigned g = msm_pre_windows(c, t);
    const size_t chunk = nr * t <= max_entries ? nr : (max_entries / t ? max_entries / t : 1);
    const double chunks = (double)((nr + chunk - 1) / chunk);
    return (double)nr * W * 13 + g * per_red + (chunks - 1) * g * B * 15;
}

/* Whether nr scalars other than 0 and 1 run faster over the copies than by the plain plan
 * (the copies fix the window size; few such scalars want a smaller one). */
static inline bool msm_pre_pays(size_t nr, const msm_pre &p, size_t max_entries)
{
    if (p.copies <= 1 || !p.pre || !nr) return false;
    if (p.force) return true;
    return msm_plan_cost(nr, p.c, p.copies, max_entries) <
           msm_plan_cost(nr, msm_choose_window(nr), 1, max_entries);
}

/* How level 0 adds into buckets (MSM_ACC_XYZZ: accumulate_thread; MSM_ACC_AFFINE: batched
 * inversions, msm_affine.cuh; MSM_ACC_PAIRWISE: pairwise rounds, msm_pairwise.cuh). Both
 * batched modes need a level 0 that stores (zeroed buckets) and two free m-entry buffers. */
struct acc_mode {
    int kind = MSM_ACC_XYZZ; /* MSM_ACC_AUTO: decided per piece by its scalars (effective) */
    int now = MSM_ACC_XYZZ;  /* the piece at hand's: kind, or what AUTO chose for it */
    size_t pair_min = MSM_PAIR_MIN_N; /* AUTO: pairwise from this many scalars other than 0 and 1 */
    unsigned min_batch = 24; /* affine steps while at least this many runs are left; pairwise
                              * rounds while a thread has at least this many pairs */
    unsigned kmul = 1;       /* entries per level-0 thread: this times a full wave's share */
    unsigned rounds = 0;     /* pairwise: at most this many rounds (0 = no limit) */
    unsigned waves = 1;      /* level 0 in this many waves of threads (1..MSM_MAX_WAVES): each
                              * thread 1/waves of a single wave's entries, so blocks retire that
                              * much sooner and a higher-priority stream's kernels get SMs sooner
                              * (one wave lives as long as the launch: ~35 ms at 2^27) */
};

struct aff_spare {
    uint32_t *codes, *starts;
};

/* The digits' (key, point) pairs sorted by bucket: *sk, *sv the sorted ones; the sort's other
 * buffers are free until the next group, the affine run table (*spare). */
template <class X>
int sort_digits(X &x, msm_bufs &b, size_t m, int bits, uint32_t **sk, const uint32_t **sv, aff_spare *spare)
{
    uint32_t *k0 = (uint32_t *)b.keys[0], *k1 = (uint32_t *)b.keys[1], *v0 = (uint32_t *)b.vals[0],
             *v1 = (uint32_t *)b.vals[1], *v;
    const int rc = x.sort(k0, k1, v0, v1, m, bits, sk, &v);
    if (rc) return rc;
    x.mark("sort");
    *sv = v;
    *spare = aff_spare{*sk == k0 ? k1 : k0, v == v0 ? v1 : v0};
    return 0;
}

/* Runs accumulation levels until one thread remains; results land in buckets (level 0
 * stores when store0, every later level adds). */
template <class F, class X, class Src>
int accumulate_levels(X &x, msm_bufs &b, const uint32_t *keys, Src src, size_t m, size_t k0,
                      xyzz<F> *buckets, bool store0, aff_spare spare = aff_spare{nullptr, nullptr})
{
    int rc;
    if (m == 0) return 0;
    const bool batched = x.acc.now != MSM_ACC_XYZZ && store0 && spare.codes;
    const bool aff = batched && x.acc.now == MSM_ACC_AFFINE, pair = batched && x.acc.now == MSM_ACC_PAIRWISE;
    if (aff) k0 = x.template wave_kper<F, acc_aff_fn<F>>(m) * (x.acc.kmul ? x.acc.kmul : 1);
    if (pair) k0 = x.template wave_kper<F, acc_pair_fn<F>>(m) * (x.acc.kmul ? x.acc.kmul : 1);
    size_t T = (m + k0 - 1) / k0;
    /* partials ping-pong: level 0 writes 2 per thread into [0]; level 1 has ceil(2T / KP)
     * threads writing into [1]; later levels fewer still (scratch_typed in msm.cu bounds it) */
    const size_t Tp[2] = {T, (2 * T + MSM_KP - 1) / MSM_KP};
    for (int i = 0; i < 2; i++) {
        if ((rc = x.ensure(&b.pk[i], 2 * Tp[i] * sizeof(uint32_t)))) return rc;
        if ((rc = x.ensure(&b.pp[i], 2 * Tp[i] * sizeof(xyzz<F>)))) return rc;
    }
    sink<F> out{buckets, T > 1 ? (uint32_t *)b.pk[0] : nullptr, (xyzz<F> *)b.pp[0], store0};
    if constexpr (std::is_same<Src, src_bases<F>>::value) {
        if (aff) {
            acc_aff_fn<F> f{keys, src, m, k0, out, spare.codes, spare.starts, x.acc.min_batch};
            if ((rc = x.template launch<F>(T, f, "accumulate (affine)"))) return rc;
        }
        if (pair) {
            if ((rc = x.ensure(&b.pair_pts, T * pair_qpts(k0) * sizeof(affine<F>))) ||
                (rc = x.ensure(&b.pair_pre, T * pair_qpre(k0) * sizeof(F))))
                return rc;
            pair_scratch<F> sc{(affine<F> *)b.pair_pts, (F *)b.pair_pre, T};
            acc_pair_fn<F> f{keys, src, m, k0, out, spare.codes, spare.starts, sc, x.acc.min_batch, x.acc.rounds};
            if ((rc = x.template launch<F>(T, f, "accumulate (pairwise)"))) return rc;
        }
    }
    if (!batched && (rc = x.template launch<F>(T, acc_fn<F, Src>{keys, src, m, k0, out}, "accumulate"))) return rc;
    int cur = 0;
    while (T > 1) {
        size_t mm = 2 * T, T2 = (mm + MSM_KP - 1) / MSM_KP;
        sink<F> o{buckets, T2 > 1 ? (uint32_t *)b.pk[cur ^ 1] : nullptr, (xyzz<F> *)b.pp[cur ^ 1], false};
        acc_fn<F, src_partials<F>> f{(const uint32_t *)b.pk[cur], src_partials<F>{(const xyzz<F> *)b.pp[cur]},
                                     mm, MSM_KP, o};
        if ((rc = x.template launch<F>(T2, f, "accumulate partials"))) return rc;
        cur ^= 1;
        T = T2;
    }
    return 0;
}

/* Level 0 over m sorted entries, one full wave (level0_kper), and the partial levels. */
template <class F, class X>
int accumulate_level0(X &x, msm_bufs &b, const uint32_t *sk, src_bases<F> src, size_t m, xyzz<F> *buckets,
                      bool store0, aff_spare spare)
{
    return accumulate_levels<F>(x, b, sk, src, m, x.template level0_kper<F, src_bases<F>>(m), buckets, store0, spare);
}

/* The most windows any window size gives (c >= 4): begin zeroes them all, so an accumulated
 * MSM may fix its window size when its first piece arrives. */
#define MSM_MAX_WINDOWS 64

/* An MSM in phases: begin, then add once per piece of (bases, scalars), then end. A single
 * MSM is one piece (plan_run). An accumulated MSM (bases streamed from host memory in pieces)
 * either reduces each piece's buckets (persist false: the window size fixed by the first piece
 * with scalars other than 0 and 1, or cfix), or shares one bucket array over every window
 * across its pieces (persist): each piece's window groups run as a piece's do and are added
 * into the array, and the bucket reduction runs once, at end — a piece then costs an addition
 * per bucket instead of a reduction (~15 products against ~30), and the window may be the
 * whole MSM's (msm_shared_window, within bucket_max bytes). Level 0 adding into the array
 * itself was measured 3-4.5x slower on the H200 (runs of ~5 entries, each update a dependent
 * global load), so every group stores into zeroed buckets first. */
template <class F, class X>
int plan_begin(X &x, msm_bufs &b, unsigned cfix, bool persist, plan_stats *st, size_t total = 0,
               size_t bucket_max = 0)
{
    int rc;
    st->c = cfix;
    st->groups = st->pauses = 0;
    st->n_one = st->n_rest = 0;
    st->nwin = 0;
    st->copies = 1;
    st->acc = MSM_ACC_XYZZ;
    st->reduce = red_mode(x.reduce);
    st->persist = persist;
    st->total = total;
    st->seen = 0;
    st->bucket_max = bucket_max;
    st->stored = false;
    if ((rc = x.ensure(&b.ones, sizeof(xyzz<F>))) || (rc = x.zero(b.ones, sizeof(xyzz<F>))) ||
        (rc = x.ensure(&b.windows, MSM_MAX_WINDOWS * sizeof(xyzz<F>))) ||
        (rc = x.zero(b.windows, MSM_MAX_WINDOWS * sizeof(xyzz<F>))))
        return rc;
    return 0;
}

/* The n1 bases with scalar one (b.idx_one) summed into the running ones: one bucket (key 0),
 * no sort, in chunks of at most max_entries (keys[0] and pairwise's scratch are budgeted for
 * that many entries: msm.cu's scratch_typed). Pairwise rounds where the rest would take them
 * (MSM_ACC_AUTO from pair_min; a PoRep partition's L, A and B vectors are mostly bits, ~110 ms
 * of its MSMs in XYZZ on the H200). Pairwise level 0 stores a run that lies wholly in one
 * thread, so a chunk's sum goes to a zeroed slot of its own (ones_part), then into the ones. */
template <class F, class X>
int plan_ones(X &x, msm_bufs &b, const affine<F> *bases, size_t n1, size_t max_entries)
{
    int rc;
    const bool pair = msm_acc_effective(x.acc.kind, n1, x.acc.pair_min) == MSM_ACC_PAIRWISE;
    x.acc.now = pair ? MSM_ACC_PAIRWISE : MSM_ACC_XYZZ;
    const size_t cap = max_entries && max_entries < n1 ? max_entries : n1;
    if ((rc = x.ensure(&b.keys[0], cap * sizeof(uint32_t))) || (rc = x.zero(b.keys[0], cap * sizeof(uint32_t))))
        return rc;
    if (pair && ((rc = x.ensure(&b.keys[1], cap * sizeof(uint32_t))) ||
                 (rc = x.ensure(&b.vals[0], cap * sizeof(uint32_t))) ||
                 (rc = x.ensure(&b.ones_part, sizeof(xyzz<F>)))))
        return rc;
    for (size_t o = 0; o < n1; o += cap) {
        const size_t m = n1 - o < cap ? n1 - o : cap;
        const src_bases<F> src{bases, (const uint32_t *)b.idx_one + o};
        const size_t k0 = x.template level0_kper<F, src_bases<F>>(m);
        if (!pair) {
            if ((rc = accumulate_levels<F>(x, b, (const uint32_t *)b.keys[0], src, m, k0, (xyzz<F> *)b.ones, false)))
                return rc;
            continue;
        }
        if ((rc = x.zero(b.ones_part, sizeof(xyzz<F>))) ||
            (rc = accumulate_levels<F>(x, b, (const uint32_t *)b.keys[0], src, m, k0, (xyzz<F> *)b.ones_part, true,
                                       aff_spare{(uint32_t *)b.keys[1], (uint32_t *)b.vals[0]})) ||
            (rc = x.template launch<F>(1, merge_fn<F>{(xyzz<F> *)b.ones, (const xyzz<F> *)b.ones_part}, "ones")))
            return rc;
    }
    return 0;
}

/* Merged windows a group over precomputed copies takes at most. */
#define MSM_PRE_GROUP 2u

/* Pippenger over precomputed copies for the nr rest scalars (b.idx_rest): merged windows in
 * groups while every point's entries fit in max_entries, else one merged window over point
 * chunks, each later chunk's buckets added into the first's; each group reduced once. */
template <class F, class X>
int plan_rest_pre(X &x, msm_bufs &b, const affine<F> *bases, const sc256 *scalars, int mont, size_t nr,
                  size_t max_entries, const msm_pre &p, plan_stats *st)
{
    int rc;
    const unsigned c = p.c, t = p.copies, g = msm_pre_windows(c, t), nwin = msm_windows(c);
    const size_t B = (size_t)1 << (c - 1);
    st->c = c;
    st->copies = t;
    size_t chunk = nr * t <= max_entries ? nr : max_entries / t;
    if (chunk < 1) chunk = 1;
    /* at most MSM_PRE_GROUP merged windows a group: the scratch estimate bounds the buckets
     * with it (the copies pay for many scalars, whose entries fill a group with one window) */
    const size_t wgs = chunk == nr ? max_entries / (nr * t) : 1, most = g < MSM_PRE_GROUP ? g : MSM_PRE_GROUP;
    const unsigned wg = wgs < 1 ? 1 : wgs > most ? (unsigned)most : (unsigned)wgs;
    const size_t ent = chunk * t * wg;
    if ((rc = x.ensure(&b.buckets, wg * B * sizeof(xyzz<F>)))) return rc;
    if (chunk < nr && (rc = x.ensure(&b.buckets2, wg * B * sizeof(xyzz<F>)))) return rc;
    for (int i = 0; i < 2; i++)
        if ((rc = x.ensure(&b.keys[i], ent * sizeof(uint32_t))) || (rc = x.ensure(&b.vals[i], ent * sizeof(uint32_t))))
            return rc;
    for (unsigned l0 = 0; l0 < g; l0 += wg) {
        const unsigned l1 = l0 + wg < g ? l0 + wg : g, gg = l1 - l0;
        const size_t per = pre_slots_before(l1, t, g, nwin) - pre_slots_before(l0, t, g, nwin);
        for (size_t p0 = 0; p0 < nr; p0 += chunk) {
            const size_t np = nr - p0 < chunk ? nr - p0 : chunk, m = np * per;
            /* the first chunk into the merged windows' buckets, later ones beside them, added
             * in after (a level-0 load and addition per bucket run measured 5-7x slower) */
            xyzz<F> *bk = (xyzz<F> *)(p0 ? b.buckets2 : b.buckets);
            if ((rc = group_pause(x, st)) || (rc = x.zero(bk, gg * B * sizeof(xyzz<F>)))) return rc;
            st->groups++;
            digits_pre_fn df{scalars, mont, (const uint32_t *)b.idx_rest + p0, np, c, t, g, nwin, l0, l1, p.split,
                             (uint32_t *)b.keys[0], (uint32_t *)b.vals[0]};
            if ((rc = x.template launch<F>(np, df, "digits"))) return rc;
            x.mark("digits");
            uint32_t *sk;
            aff_spare spare;
            src_bases<F> src{bases, nullptr, (const affine<F> *)p.pre, p.split};
            if ((rc = sort_digits(x, b, m, (int)(c - 1 + bit_length(gg)), &sk, &src.vals, &spare))) return rc;
            if ((rc = accumulate_level0<F>(x, b, sk, src, m, bk, true, spare))) return rc;
            x.mark("accumulate");
            if (p0 && (rc = x.template launch<F>(gg * B, merge_fn<F>{(xyzz<F> *)b.buckets, bk}, "bucket merge")))
                return rc;
            x.mark("merge");
        }
        if ((rc = plan_reduce<F>(x, b, c, l0, gg))) return rc;
    }
    return 0;
}

/* Adds sum scalars[i]·bases[i] over one piece (executor memory, n points). The window size
 * is st->c, or chosen from this piece's count of scalars other than 0 and 1 when 0;
 * over the bases' precomputed copies (pre) when the cost model says they pay. */
template <class F, class X>
int plan_add(X &x, msm_bufs &b, const affine<F> *bases, const sc256 *scalars, size_t n, int mont,
             size_t max_entries, plan_stats *st, const msm_pre &pre = msm_pre{})
{
    int rc;
    if (n == 0) return 0;
    /* 1. classes and the two index lists */
    if ((rc = x.ensure(&b.is_one, n)) || (rc = x.ensure(&b.is_rest, n)) ||
        (rc = x.ensure(&b.idx_one, n * sizeof(uint32_t))) || (rc = x.ensure(&b.idx_rest, n * sizeof(uint32_t))) ||
        (rc = x.ensure(&b.counts, 2 * sizeof(uint32_t))))
        return rc;
    if ((rc = x.template launch<F>(n, classify_fn{scalars, mont, (uint8_t *)b.is_one, (uint8_t *)b.is_rest},
                                   "classify")))
        return rc;
    x.mark("classify");
    uint32_t counts[2] = {st->known_one, st->known_rest};
    if ((rc = x.select((const uint8_t *)b.is_one, n, (uint32_t *)b.idx_one, (uint32_t *)b.counts)) ||
        (rc = x.select((const uint8_t *)b.is_rest, n, (uint32_t *)b.idx_rest, (uint32_t *)b.counts + 1)) ||
        (!st->known && (rc = x.fetch(counts, b.counts, sizeof counts))))
        return rc;
    st->known = false; /* for this piece only */
    size_t n1 = counts[0], nr = counts[1];
    x.mark("select");
    st->n_one += n1;
    st->n_rest += nr;
    st->seen += n;

    /* 2. bases with scalar one: one bucket (key 0), no sort, added to the running ones */
    if (n1) {
        if ((rc = plan_ones<F>(x, b, bases, n1, max_entries))) return rc;
        x.mark("ones");
    }

    /* 3. Pippenger on the rest: window groups of wg windows over point chunks, each group's
     * buckets reduced, or added into the shared array (persist; the first group of each
     * window accumulates into the array itself, zeroed when the window was chosen) */
    if (!nr) return 0;
    x.acc.now = msm_acc_effective(x.acc.kind, nr, x.acc.pair_min);
    st->acc = x.acc.now;
    const bool pairwise = x.acc.now == MSM_ACC_PAIRWISE;
    if (!st->persist && msm_pre_pays(nr, pre, max_entries))
        return plan_rest_pre<F>(x, b, bases, scalars, mont, nr, max_entries, pre, st);
    if (!st->c && st->persist) { /* this piece's share of the others stands for the pieces left's */
        const size_t before = st->seen - n, left = st->total > before + n ? st->total - before : n;
        st->c = msm_shared_window<F>((double)nr * (double)left / (double)n, (double)left / (double)n, st->bucket_max,
                                     pairwise);
    }
    if (!st->c) st->c = msm_choose_window(nr, pairwise);
    const unsigned c = st->c, nwin = msm_windows(c);
    const size_t B = (size_t)1 << (c - 1);
    const size_t shared_bytes = nwin * B * sizeof(xyzz<F>);
    if (st->persist && !st->stored &&
        ((rc = x.ensure(&b.buckets2, shared_bytes)) || (rc = x.zero(b.buckets2, shared_bytes))))
        return rc;
    const size_t chunk = nr < max_entries ? nr : max_entries;
    unsigned wg = (unsigned)(max_entries / chunk);
    if (wg > nwin) wg = nwin;
    if (wg < 1) wg = 1;
    const size_t ent = chunk * wg;
    if ((rc = x.ensure(&b.buckets, wg * B * sizeof(xyzz<F>)))) return rc;
    for (int i = 0; i < 2; i++)
        if ((rc = x.ensure(&b.keys[i], ent * sizeof(uint32_t))) || (rc = x.ensure(&b.vals[i], ent * sizeof(uint32_t))))
            return rc;
    for (size_t p0 = 0; p0 < nr; p0 += chunk) {
        size_t np = nr - p0 < chunk ? nr - p0 : chunk;
        for (unsigned w0 = 0; w0 < nwin; w0 += wg) {
            unsigned w1 = w0 + wg < nwin ? w0 + wg : nwin, g = w1 - w0;
            size_t m = np * g;
            /* the array's first group of these windows stores into it directly */
            const bool direct = st->persist && !st->stored && p0 == 0;
            xyzz<F> *const bk = direct ? (xyzz<F> *)b.buckets2 + w0 * B : (xyzz<F> *)b.buckets;
            if ((rc = group_pause(x, st))) return rc;
            st->groups++;
            digits_fn df{scalars, mont, (const uint32_t *)b.idx_rest + p0, np, c, w0, w1,
                         (uint32_t *)b.keys[0], (uint32_t *)b.vals[0]};
            if ((rc = x.template launch<F>(np, df, "digits"))) return rc;
            x.mark("digits");
            uint32_t *sk;
            const uint32_t *sv;
            aff_spare spare;
            if ((rc = sort_digits(x, b, m, (int)(c - 1 + bit_length(g)), &sk, &sv, &spare))) return rc;
            if (!direct && (rc = x.zero(bk, g * B * sizeof(xyzz<F>)))) return rc;
            if ((rc = accumulate_level0<F>(x, b, sk, src_bases<F>{bases, sv}, m, bk, true, spare))) return rc;
            x.mark("accumulate");
            if (!st->persist) rc = plan_reduce<F>(x, b, c, w0, g);
            else if (!direct) {
                rc = x.template launch<F>(g * B, merge_fn<F>{(xyzz<F> *)b.buckets2 + w0 * B, bk}, "bucket merge");
                x.mark("merge");
            }
            if (rc) return rc;
        }
    }
    st->stored = st->persist;
    return 0;
}

/* The window sums and the ones' sum as Jacobian points in b.result (executor memory) for the
 * host's Horner: sum over w of 2^(c·w)·W_w, plus the ones. */
template <class F, class X> int plan_end(X &x, msm_bufs &b, plan_stats *st)
{
    int rc;
    st->nwin = !st->c ? 0 : st->copies > 1 ? msm_pre_windows(st->c, st->copies) : msm_windows(st->c);
    if (st->persist && st->n_rest && (rc = plan_reduce<F>(x, b, st->c, 0, st->nwin, b.buckets2))) return rc;
    if ((rc = x.ensure(&b.result, (st->nwin + 1) * sizeof(jacobian<F>)))) return rc;
    rc = x.template launch<F>(st->nwin + 1, tojac_fn<F>{(xyzz<F> *)b.windows, st->nwin, (xyzz<F> *)b.ones,
                                                        (jacobian<F> *)b.result}, "to jacobian");
    x.mark("finish");
    return rc;
}

/* One MSM whose bases and scalars are all in executor memory. */
template <class F, class X>
int plan_run(X &x, msm_bufs &b, const affine<F> *bases, const sc256 *scalars, size_t n, int mont,
             unsigned cfix, size_t max_entries, plan_stats *st, const msm_pre &pre = msm_pre{})
{
    int rc;
    if ((rc = plan_begin<F>(x, b, cfix, false, st)) ||
        (rc = plan_add<F>(x, b, bases, scalars, n, mont, max_entries, st, pre)))
        return rc;
    return plan_end<F>(x, b, st);
}

} /* namespace msmk */

#endif
