/*
 * The MSM's host-only pieces, shared by the device build and the simulated device
 * (test/simgpu): the placement's estimate of the device memory a context takes, and the
 * environment's tuning knobs a new context reads. No device code: compiled by nvcc with the
 * kernels, or by the host's C++ compiler where the kernels are simulated.
 */
#include <cstdlib>
#include <cstring>

#include "msm.h"
#include "msm/msm_plan.cuh"

extern "C" {
#include "error.h"
}

using namespace msmk;

/* ---- device memory a context takes, for the placement ---- */

/* The largest bucket array msm_gpu_run's plain plan takes over pts points, whatever share of
 * their scalars is 0 or 1: nr others take a group of wg = min(windows, max_entries / min(nr,
 * max_entries)) windows of 2^(c-1) buckets at c = msm_choose_window(nr), so per window size the
 * fewest scalars that choose it give its largest group (c never falls as nr grows: the model's
 * costs are lines in nr whose slopes fall with c, and the lowest of lines has falling slopes). */
template <class F> static size_t run_buckets_bound(size_t pts, size_t max_entries, bool pairwise)
{
    size_t most = 0;
    const unsigned cmax = msm_choose_window(pts, pairwise);
    for (unsigned c = 4; c <= cmax; c++) {
        size_t lo = 1, hi = pts; /* the fewest scalars choosing c or more */
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (msm_choose_window(mid, pairwise) >= c) hi = mid;
            else lo = mid + 1;
        }
        if (msm_choose_window(lo, pairwise) != c) continue; /* no count chooses c */
        const size_t nwin = msm_windows(c), chunk = lo < max_entries ? lo : max_entries;
        size_t wg = max_entries / chunk;
        wg = wg > nwin ? nwin : wg < 1 ? 1 : wg;
        const size_t b = (wg << (c - 1)) * sizeof(xyzz<F>);
        most = b > most ? b : most;
    }
    return most;
}

/* The most sort entries a group of msm_gpu_run's plain plan takes over pts points, whatever
 * share of their scalars is 0 or 1: nr·min(windows, max_entries / nr) at c =
 * msm_choose_window(nr), which falls where a larger count takes a larger window (18-bit windows
 * from 4433133 scalars: 15 windows, 16 below), so per window size the most scalars that still
 * choose it (the count just below the next size's fewest) give its largest group. */
static size_t run_entries_bound(size_t pts, size_t max_entries, bool pairwise)
{
    size_t most = 0;
    const unsigned cmax = msm_choose_window(pts, pairwise);
    for (unsigned c = 4; c <= cmax; c++) {
        size_t hi = pts; /* the most scalars choosing c or less: one below the fewest choosing more */
        if (c < cmax) {
            size_t lo = 1;
            while (lo < hi) {
                const size_t mid = lo + (hi - lo) / 2;
                if (msm_choose_window(mid, pairwise) > c) hi = mid;
                else lo = mid + 1;
            }
            hi = lo - 1;
        }
        const size_t e = hi * msm_windows(c);
        most = e > most ? e : most;
    }
    return most < max_entries ? most : max_entries;
}

template <class F>
static void scratch_typed(size_t n, size_t max_entries, size_t piece, size_t bucket_bytes_max, bool pairwise,
                          unsigned waves, size_t part[MSM_PARTS])
{
    const size_t P = sizeof(xyzz<F>);
    const bool persist = piece && bucket_bytes_max;
    size_t pts = piece ? (piece < n ? piece : n) : n;
    /* the largest window any run may take: per piece, chosen from at most pts scalars; with
     * shared buckets, for the whole MSM within bucket_bytes_max */
    unsigned c = persist ? msm_shared_window_max<F>(n, bucket_bytes_max) : msm_choose_window(pts, pairwise);
    const size_t nwin = msm_windows(c), B = (size_t)1 << (c - 1);
    /* sort entries of a group: chunk·wg at pts scalars, but a run of fewer (nr) takes
     * nr·min(max_entries / nr, its windows), which is not monotone in nr (max_entries 2^26,
     * 40 M points: 40 M entries; 33 M: 66 M; and just below a window change, 4433132 scalars
     * at 16 windows take more than 4433133 at 15): a whole run's by run_entries_bound, and
     * over precomputed copies t·wg entries a point, which is 2·ceil(windows / 2) where two
     * merged windows of ceil(windows / 2) copies make the group (13 windows: 14). Several
     * pieces fix the window at the first with scalars other than 0 and 1, however few (4
     * bits: 64 windows), and a later piece of pts of them groups as many of those as fit;
     * shared buckets' window may be below what a piece's count would choose (the byte cap). */
    size_t ent;
    if (piece && (pts < n || persist)) ent = pts * msm_windows(4) < max_entries ? pts * msm_windows(4) : max_entries;
    else if (piece) ent = run_entries_bound(n, max_entries, pairwise); /* one piece: a whole run's */
    else {
        const size_t wp = msm_windows(msm_choose_window(n)), pre = n * (wp + (wp & 1));
        ent = run_entries_bound(n, max_entries, pairwise);
        if (pre > ent) ent = pre < max_entries ? pre : max_entries;
    }
    if (!ent) ent = 1;
    /* buckets: pieces fix the window at the first piece with scalars other than 0 and 1, and
     * a later piece with few of them groups every window: nwin·B; shared buckets hold the
     * same again over every window, in the second array. A whole run chooses its
     * window by its own count (run_buckets_bound), or runs over precomputed copies at the
     * window the copies were made with (msm_choose_window(n), as msm_gpu_bases_precompute
     * chooses): at most MSM_PRE_GROUP merged windows a group, and a second array (a buffer of
     * its own: its largest may come from another vector than the first's) of one window when
     * it runs in point chunks */
    size_t buckets = nwin * B * P, merge = persist ? buckets : 0;
    if (!piece && !persist) {
        const unsigned cp = msm_choose_window(n), gp = msm_pre_windows(cp, 2);
        const size_t pre = (gp < MSM_PRE_GROUP ? gp : MSM_PRE_GROUP) * ((size_t)P << (cp - 1));
        const size_t run = run_buckets_bound<F>(n, max_entries, pairwise);
        buckets = run > pre ? run : pre;
        merge = (size_t)P << (cp - 1);
    }
    /* level-0 threads are `waves` waves: one is the SMs times the resident blocks of the level-0
     * kernel (an H200: 132 x 2 or 3 blocks of 128 for G1, ~34-51 k; 2^18 bounds it), G2's blocks
     * are half as wide at no higher occupancy (2^17 bounds it) */
    const size_t Tmax = ((size_t)1 << (sizeof(F) > 48 ? 17 : 18)) * waves;
    size_t T = ent / 2 < Tmax ? ent / 2 + 1 : Tmax;
    /* each buffer is at least 256 bytes (dev_exec::ensure) */
    part[MSM_PART_INDEX] = pts * 10 + 5 * 256; /* is_one, is_rest, idx_one, idx_rest; counts */
    part[MSM_PART_SORT] = ent * 16 + 4 * 256;
    part[MSM_PART_BUCKETS] = buckets + 256;
    part[MSM_PART_MERGE] = merge ? merge + 256 : 0;
    /* the bucket reduction's, either mode (msm_reduce.cuh: red_plan counts at most
     * MSM_RED_WAVE_MAX threads a wave) */
    part[MSM_PART_REDUCE] = red_bound_pts(B, (unsigned)nwin, MSM_RED_WAVE_MAX) * P + 2 * 256;
    part[MSM_PART_PARTIALS] = 2 * (T + (2 * T + MSM_KP - 1) / MSM_KP) * (4 + P) + 4 * 256; /* accumulate_levels */
    /* pairwise rounds (level 0 of every group, which stores): T·ceil(K/2)
     * affine points and T·ceil(K/4) prefix products, K = ent / T; bounded by one more slot of
     * each per thread */
    part[MSM_PART_PAIR] = pairwise ? (ent / 2 + T) * 2 * sizeof(F) + (ent / 4 + T) * sizeof(F) + 2 * 256 : 0;
    /* windows, ones, results; and what the executor's library and pool add to the buffers'
     * exact requests (msm_gpu_library_bytes) */
    const size_t buffers = sizeof(msm_bufs) / sizeof(void *) + 1;
    part[MSM_PART_FIXED] = (MSM_MAX_WINDOWS + 2) * (P + sizeof(jacobian<F>)) + msm_gpu_library_bytes(ent, buffers);
}

extern "C" void msm_gpu_scratch_parts(int curve, size_t n, size_t max_entries, size_t piece, size_t bucket_bytes_max,
                                      unsigned waves, int acc, msm_scratch_parts *out)
{
    memset(out, 0, sizeof *out);
    if (!n) return;
    if (!max_entries) max_entries = (size_t)1 << 28;
    const unsigned w = waves < 1 ? 1 : waves > MSM_MAX_WAVES ? MSM_MAX_WAVES : waves;
    auto typed = [&](bool pair, size_t *part) {
        if (curve == MSM_CURVE_G2) scratch_typed<fp2>(n, max_entries, piece, bucket_bytes_max, pair, w, part);
        else scratch_typed<fp>(n, max_entries, piece, bucket_bytes_max, pair, w, part);
    };
    /* AUTO: a run of enough scalars takes pairwise's scratch (and its smaller windows), a
     * smaller one XYZZ's (larger windows): each part's larger */
    const size_t pts = piece ? (piece < n ? piece : n) : n;
    typed(acc == MSM_ACC_PAIRWISE, out->part);
    if (acc == MSM_ACC_AUTO && pts >= msm_pair_min_from_env()) {
        msm_scratch_parts pw;
        typed(true, pw.part);
        msm_scratch_parts_max(out, &pw);
    }
}

extern "C" size_t msm_gpu_scratch_bytes(int curve, size_t n, size_t max_entries, size_t piece, size_t bucket_bytes_max,
                                        unsigned waves, int acc)
{
    msm_scratch_parts p;
    msm_gpu_scratch_parts(curve, n, max_entries, piece, bucket_bytes_max, waves, acc, &p);
    return msm_scratch_parts_total(&p);
}

/* ---- a loan's configuration (msm_gpu_lent_config) ---- */

/* The plan's cost, in Fp products, of an XYZZ accumulation of n points in np pieces of pts at
 * window c: each piece reducing its buckets (shared false: msm_plan_cost's per piece), or one
 * array over every window that each piece after the first adds into, reduced once
 * (msm_shared_cost, the model msm_shared_window chooses by). */
static double lent_cost(size_t n, size_t pts, size_t np, unsigned c, bool shared, size_t entries)
{
    if (!shared) return (double)np * msm_plan_cost(pts, c, 1, entries);
    return msm_shared_cost((double)n, (double)np, c, false);
}

template <class F>
static int lent_config(int curve, size_t n, size_t pts, unsigned waves, size_t bytes, size_t *entries_out,
                       size_t *shared_out)
{
    static const size_t shared_mb[] = {0, 512, 1024, 2048};
    const size_t np = (n + pts - 1) / pts;
    double best = -1;
    for (unsigned lg = 25; lg <= 27; lg++)
        for (size_t mb : shared_mb) {
            const size_t e = (size_t)1 << lg, sh = mb << 20;
            msm_scratch_parts p;
            msm_gpu_scratch_parts(curve, n, e, pts, sh, waves, MSM_ACC_XYZZ, &p);
            if (msm_scratch_parts_total(&p) > bytes) continue;
            /* the window each piece's first scalars choose, as plan_add does for all but 0 and 1 */
            const unsigned c = sh ? msm_shared_window<F>((double)n, (double)np, sh, false) : msm_choose_window(pts);
            const double cost = lent_cost(n, pts, np, c, sh != 0, e);
            /* equal costs (the model counts no groups): more entries, then the smaller cap */
            const bool tie = best >= 0 && cost <= best * (1 + 1e-12) && cost >= best * (1 - 1e-12);
            if (best < 0 || (!tie && cost < best) || (tie && e > *entries_out)) {
                best = tie ? best : cost;
                *entries_out = e;
                *shared_out = sh;
            }
        }
    if (best >= 0) return CUZK_OK;
    return err_set(CUZK_ENOMEM, "msm_gpu_lent_config: no configuration of %zu points in pieces of %zu fits %zu bytes",
                   n, pts, bytes);
}

extern "C" int msm_gpu_lent_config(int curve, size_t n_total, size_t piece_pts, unsigned waves, size_t bytes,
                                   size_t *max_entries, size_t *shared_bytes)
{
    if ((curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2) || !n_total || !piece_pts || !max_entries || !shared_bytes)
        return err_set(CUZK_EINVAL, "msm_gpu_lent_config: curve %d, %zu points in pieces of %zu", curve, n_total,
                       piece_pts);
    if (piece_pts > n_total) piece_pts = n_total;
    return curve == MSM_CURVE_G2 ? lent_config<fp2>(curve, n_total, piece_pts, waves, bytes, max_entries, shared_bytes)
                                 : lent_config<fp>(curve, n_total, piece_pts, waves, bytes, max_entries, shared_bytes);
}

/* ---- the environment's knobs ---- */

extern "C" int msm_acc_from_env(void)
{
    const char *a = getenv("CUZK_MSM_ACC");
    return !a                       ? MSM_ACC_AUTO
         : !strcmp(a, "xyzz")       ? MSM_ACC_XYZZ
         : !strcmp(a, "affine")     ? MSM_ACC_AFFINE
         : !strcmp(a, "pairwise")   ? MSM_ACC_PAIRWISE
                                    : MSM_ACC_AUTO;
}

extern "C" size_t msm_pair_min_from_env(void)
{
    /* the engine refuses a bad value at create (cuda_env_check); a context made outside an
     * engine (benchmarks, tests) takes the default for one rather than 0 (pairwise always) */
    const char *a = getenv("CUZK_MSM_PAIR_MIN");
    char *end = NULL;
    const unsigned long long v = a && *a ? strtoull(a, &end, 10) : 0;
    return v && end && !*end ? (size_t)v : MSM_PAIR_MIN_N;
}

extern "C" int msm_reduce_from_env(void)
{
    /* the engine refuses anything but 0 and 1 at create (cuda_env_check); elsewhere (the bench,
     * the simulator) anything else is the default, never silently one of the two modes */
    const char *r = getenv("CUZK_MSM_REDUCE");
    return !r ? MSM_REDUCE_AUTO : !strcmp(r, "0") ? MSM_REDUCE_SEGMUL : !strcmp(r, "1") ? MSM_REDUCE_LEVELS
                                                                                      : MSM_REDUCE_AUTO;
}

extern "C" unsigned msm_waves_from_env(void)
{
    const char *w = getenv("CUZK_MSM_WAVES");
    if (!w || !*w) return 0;
    const int v = atoi(w);
    return v < 1 ? 1 : v > MSM_MAX_WAVES ? MSM_MAX_WAVES : (unsigned)v;
}
