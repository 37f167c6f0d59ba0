/*
 * Bucket reduction: the buckets of g windows (B = 2^(c-1) each; bucket k holds the points of
 * digit k + 1) into window sums W = sum over k of (k + 1)·B[k], added into the plan's windows.
 * Two ways, per context (MSM_REDUCE_*, CUZK_MSM_REDUCE); the host simulation runs both.
 */
#ifndef CUZK_MSM_REDUCE_CUH
#define CUZK_MSM_REDUCE_CUH

#include "msm.h"
#include "msm/msm_kernels.cuh"

namespace msmk {

/* Bucket-reduction segment length (buckets per thread): at most this, fewer when that leaves
 * too few threads to fill the device. */
#define MSM_SEG 32

/*
 * Field products per bucket (an XYZZ addition is 14, a doubling 9; Fp for G1, Fp2 for G2), at
 * c = 20 over 13 windows (2^14 segments of 32 per window), counted by a model of the code:
 *
 * MSM_REDUCE_SEGMUL: running sums s += B[i], t += s per segment (62 additions per 32 buckets:
 * 27.1), then t + (32·j)·s by double and add (~18 doublings, ~6 additions: 8.1), then a tree
 * (0.4): ~35.4.
 *
 * MSM_REDUCE_LEVELS: with k = j·len0 + i, W = sum_j T_j + len0·sum_j j·S_j, where level 0
 * keeps the segment's running sums as a pair (T_j = sum (i + 1)·B[k], S_j = sum B[k]; 27.1).
 * The second term is a weighted sum of segs points, reduced the same way: level 1 takes len1
 * pairs a thread (3 additions a pair) and multiplies once per len1 pairs (j = q·len1 + i:
 * X + len0·(U + (q·len1)·V), X, V, U its sums of T, S and i·S); a tree adds those. At len1 = 8
 * (what one wave of threads gives) level 1 is 2.1 and the tree 0.05: ~29.2, 17 % fewer products
 * (and level 0's serial chain is 62 additions instead of ~80). len1 = 32 would be 28.6, but
 * its 6.6 k threads (a seventh of an H200 wave) each run ~110 additions in series. Over 4
 * windows (a 2^26 MSM's groups) len1 = 4: ~30.1, 15 % fewer.
 * Level 0 writes its pair over the segment's first two buckets, which it has read by then: no
 * scratch for the pairs, so LEVELS takes less than SEGMUL (the buckets are spent: every plan
 * zeroes them before it accumulates again).
 *
 * Why not recurse further: the multiplications left are one per len0·len1 buckets, each
 * ~(c - 2) doublings in parallel threads; a third level of running sums would cost three
 * serial additions per bit of the weight it removes, the tree one. Why rows: a coalesced
 * layout (thread l sums column l, k = r·L + l) needs the same two additions per bucket and
 * the same pair at level 1; the level is compute-bound (28 products, ~20 k instructions, per
 * 192-byte bucket loaded: ~0.3 ms of DRAM traffic at c = 20 over 13 windows against ~16 ms of
 * arithmetic) and a bucket is six whole 32-byte sectors either way (its 16-byte loads hit
 * them in L1), so contiguous segments stay.
 */

/* The reduction an MSM runs for the executor's mode: MSM_REDUCE_AUTO is LEVELS, for G1 and
 * G2 alike (G2's level-1 kernel once needed a larger stack frame than any other MSM kernel:
 * red1_thread says how it no longer does). */
static inline int red_mode(int mode) { return mode != MSM_REDUCE_AUTO ? mode : MSM_REDUCE_LEVELS; }

/* Segment length for n inputs per window over g windows: MSM_SEG, halved (down to lo) while
 * the threads still fit in one wave of R. A segment is a serial chain of additions: a level
 * that cannot fill the device runs fastest as one wave of short chains. */
static inline unsigned red_len(size_t n, unsigned g, size_t R, unsigned lo)
{
    unsigned len = n < MSM_SEG ? (unsigned)n : MSM_SEG;
    while (len > lo && (size_t)g * (n / (len / 2)) <= R) len /= 2;
    return len;
}

/* A reduction's shape: level 0's segments (len0 buckets, segs a window), level 1's (len1
 * pairs, segs1 a window; LEVELS only), and the points each scratch buffer holds. R0, R1: the
 * threads of one wave of each level's kernel. */
struct red_shape {
    unsigned len0, len1;
    size_t segs, segs1, pts[2];
};

/* The most threads a reduction level counts as one wave: msm.cu's scratch estimate bounds the
 * reduction's points with it (red_bound_pts), so a device with larger waves (an H200 has ~51 k
 * for G1, ~34 k for G2) keeps segments no shorter than this would, and stays within it. */
#define MSM_RED_WAVE_MAX ((size_t)1 << 16)

static inline red_shape red_plan(int mode, size_t B, unsigned g, size_t R0, size_t R1)
{
    red_shape s;
    if (R0 > MSM_RED_WAVE_MAX) R0 = MSM_RED_WAVE_MAX;
    if (R1 > MSM_RED_WAVE_MAX) R1 = MSM_RED_WAVE_MAX;
    s.len0 = red_len(B, g, R0, 2);
    s.segs = B / s.len0;
    /* level 1 takes at least 4 pairs where it can: its one multiplication (~c doublings, ~20
     * additions' worth at c = 20) outweighs 2 pairs' 6 additions */
    s.len1 = mode == MSM_REDUCE_SEGMUL ? 1 : red_len(s.segs, g, R1, 4);
    s.segs1 = s.segs / s.len1;
    /* the points the tree starts from (SEGMUL: level 0's, LEVELS: level 1's), then the tree's
     * other half */
    s.pts[0] = (size_t)g * s.segs1;
    s.pts[1] = (size_t)g * (s.segs1 / 2 + 1);
    return s;
}

/* At least pts[0] + pts[1] of red_plan, either mode, for g or fewer windows of B buckets with
 * at most R threads a wave (R0, R1 <= R): level 0 makes g·B/MSM_SEG segments, or up to one
 * wave of shorter ones (never shorter than 2 buckets); level 1 no more. */
static inline size_t red_bound_pts(size_t B, unsigned g, size_t R)
{
    const size_t plain = (size_t)g * (B > MSM_SEG ? B / MSM_SEG : 1), shortest = (size_t)g * (B > 1 ? B / 2 : 1);
    const size_t s0 = plain > R ? plain : R < shortest ? R : shortest;
    return s0 + s0 / 2 + g;
}

/* MSM_REDUCE_SEGMUL, one thread per (window wl, segment j) of len buckets:
 * U_j = sum over the segment of (b + 1)·B[b] = T + (j·len)·S, with T = sum (b - j·len + 1)·B[b]
 * and S = sum B[b] from two running sums; the window sum is then the sum of its U_j (a tree). */
template <class F>
FPM_HD void bucket_reduce_thread(size_t t, unsigned segs_per_window, unsigned len, const xyzz<F> *buckets,
                                 size_t nbuckets_per_window, xyzz<F> *out_pts)
{
    unsigned wl = (unsigned)(t / segs_per_window), j = (unsigned)(t % segs_per_window);
    const xyzz<F> *b = buckets + (size_t)wl * nbuckets_per_window + (size_t)j * len;
    xyzz<F> s, tt;
    set_inf(s);
    set_inf(tt);
    for (int i = (int)len - 1; i >= 0; i--) {
        s = add(s, load16(b + i));
        tt = add(tt, s);
    }
    store16(out_pts + t, add(tt, mul_u32(s, j * len)));
}

/* MSM_REDUCE_LEVELS level 0, thread (window w, segment j) of len >= 2 buckets at
 * b = buckets + w·B + j·len: the pair T_j = sum (i + 1)·b[i], S_j = sum b[i], written over
 * b[0] and b[1] once they are read (loads through L1, not the read-only path: this kernel
 * writes what it reads). */
template <class F> FPM_HD void red0_thread(size_t t, size_t segs, unsigned len, xyzz<F> *buckets, size_t B)
{
    xyzz<F> *b = buckets + (t / segs) * B + (t % segs) * len;
    xyzz<F> s, tt;
    set_inf(s);
    set_inf(tt);
    for (int i = (int)len - 1; i >= 0; i--) {
        s = add(s, load16_as<false>(b + i));
        tt = add(tt, s);
    }
    /* plain stores: store16 of both points held them in registers at once (sm_90: 206
     * registers for G1, two resident blocks of 128 where SEGMUL's 164 have three) */
    b[0] = tt;
    b[1] = s;
}

/* MSM_REDUCE_LEVELS level 1, thread (window w, q) over level 0's pairs j = q·len + i, i < len
 * (segs a window, pair j over buckets w·B + j·len0 and the one after): its share of W is
 * X + len0·(U + (q·len)·V), X = sum T_j, V = sum S_j, U = sum i·S_j (a running sum that stops
 * before i = 0). Stored at out[t]; added into windows[w0 + w] when it is the window's only one. */
template <class F>
FPM_HD void red1_thread(size_t t, size_t segs, unsigned len, unsigned len0, const xyzz<F> *buckets, size_t B,
                        xyzz<F> *out, xyzz<F> *windows, unsigned w0)
{
    const size_t per = segs / len, w = t / per, q = t % per;
    const xyzz<F> *p = buckets + w * B + q * len * len0;
    /* Four points (the three sums and e, a loaded point or a product), updated in place
     * (xyzz.cuh's *_into): every point an out-of-line addition touches lives in the stack
     * frame, and the CUDA context keeps local memory for the largest frame launched on every
     * resident thread. Sums by value with nested multiplications made G2's frame 5952 bytes,
     * the largest of any MSM kernel; this one is 2880 (the window tree's). */
    xyzz<F> x = load16(p), v, u, e;
    set_inf(v);
    set_inf(u);
    /* a walking pointer, not p + i·len0: G1's kernel needs 166 registers instead of 180 */
    for (const xyzz<F> *b = p + (size_t)(len - 1) * len0; b != p; b -= len0) {
        e = load16(b + 1);
        add_into(v, e);
        add_into(u, v);
        e = load16(b);
        add_into(x, e);
    }
    e = load16(p + 1);
    add_into(v, e);
    /* x + len0·(u + (q·len)·v), each sum kept as the left operand (the by-value form's order:
     * the same coordinates, bit for bit) */
    mul_u32_into(e, v, (uint32_t)(q * len));
    add_into(u, e);
    mul_u32_into(e, u, len0);
    add_into(x, e);
    if (per == 1) {
        e = load16(windows + w0 + w);
        add_into(e, x);
        store16(windows + w0 + w, e);
    } else {
        store16(out + t, x);
    }
}

/* One level of the per-window tree: out[w][i] = in[w][2i] + in[w][2i + 1] (count per window,
 * a power of two); at count 2 the pair's sum is added into windows[w0 + w] instead. */
template <class F>
FPM_HD void tree_thread(size_t t, size_t half, const xyzz<F> *in, xyzz<F> *out, xyzz<F> *windows, unsigned w0)
{
    size_t w = t / half, i = t % half;
    const xyzz<F> *p = in + w * 2 * half + 2 * i;
    xyzz<F> sum = add(load16(p), load16(p + 1));
    if (half == 1) store16(windows + w0 + w, add(load16(windows + w0 + w), sum));
    else store16(out + t, sum);
}

template <class F> struct reduce_fn {
    const xyzz<F> *buckets;
    unsigned segs, len;
    size_t per_window;
    xyzz<F> *out_pts;
    FPM_HD void operator()(size_t t) const { bucket_reduce_thread<F>(t, segs, len, buckets, per_window, out_pts); }
};

template <class F> struct red0_fn {
    xyzz<F> *buckets;
    size_t segs;
    unsigned len;
    size_t B;
    FPM_HD void operator()(size_t t) const { red0_thread<F>(t, segs, len, buckets, B); }
};

template <class F> struct red1_fn {
    const xyzz<F> *buckets;
    size_t segs;
    unsigned len, len0;
    size_t B;
    xyzz<F> *out, *windows;
    unsigned w0;
    FPM_HD void operator()(size_t t) const { red1_thread<F>(t, segs, len, len0, buckets, B, out, windows, w0); }
};

template <class F> struct tree_fn {
    size_t half;
    const xyzz<F> *in;
    xyzz<F> *out, *windows;
    unsigned w0;
    FPM_HD void operator()(size_t t) const { tree_thread<F>(t, half, in, out, windows, w0); }
};

template <class F> struct addwin_fn {
    const xyzz<F> *in;
    xyzz<F> *windows;
    unsigned w0;
    FPM_HD void operator()(size_t w) const
    {
        store16(windows + w0 + w, add(load16(windows + w0 + w), load16(in + w)));
    }
};

/* Adds cnt points per window (a power of two >= 2; in pts[cur], the other buffer free) into
 * windows w0 .. w0 + g, one kernel per halving. */
template <class F, class X> int red_tree(X &x, void *const pts[2], int cur, size_t cnt, unsigned g, void *windows,
                                         unsigned w0)
{
    int rc;
    for (; cnt >= 2; cnt /= 2) {
        tree_fn<F> tf{cnt / 2, (const xyzz<F> *)pts[cur], (xyzz<F> *)pts[cur ^ 1], (xyzz<F> *)windows, w0};
        if ((rc = x.template launch<F>((size_t)g * (cnt / 2), tf, "window tree"))) return rc;
        cur ^= 1;
    }
    return 0;
}

/* Bucket reduction of windows w0 .. w0 + g (buckets, else b.buckets: B >= 2 each) added into
 * b.windows, the way x.reduce names; MSM_REDUCE_LEVELS spends the buckets. Bufs: the plan's
 * msm_bufs (red_pts, buckets, windows). */
template <class F, class X, class Bufs>
int plan_reduce(X &x, Bufs &b, unsigned c, unsigned w0, unsigned g, void *buckets = nullptr)
{
    int rc;
    const size_t B = (size_t)1 << (c - 1);
    const int mode = red_mode(x.reduce);
    const red_shape s = mode == MSM_REDUCE_SEGMUL
                            ? red_plan(mode, B, g, x.template reduce_threads<F, reduce_fn<F>>(), 0)
                            : red_plan(mode, B, g, x.template reduce_threads<F, red0_fn<F>>(),
                                       x.template reduce_threads<F, red1_fn<F>>());
    if ((rc = x.ensure(&b.red_pts[0], s.pts[0] * sizeof(xyzz<F>))) ||
        (rc = x.ensure(&b.red_pts[1], s.pts[1] * sizeof(xyzz<F>))))
        return rc;
    xyzz<F> *const bk = (xyzz<F> *)(buckets ? buckets : b.buckets), *const win = (xyzz<F> *)b.windows;
    xyzz<F> *const out = (xyzz<F> *)b.red_pts[0];
    if (mode == MSM_REDUCE_SEGMUL) {
        reduce_fn<F> rf{bk, (unsigned)s.segs, s.len0, B, out};
        if ((rc = x.template launch<F>((size_t)g * s.segs, rf, "bucket reduce"))) return rc;
        if (s.segs == 1) { /* one segment per window (tiny windows): add it in directly */
            addwin_fn<F> af{out, win, w0};
            if ((rc = x.template launch<F>(g, af, "window add"))) return rc;
        }
    } else {
        red0_fn<F> f0{bk, s.segs, s.len0, B};
        if ((rc = x.template launch<F>((size_t)g * s.segs, f0, "bucket reduce"))) return rc;
        red1_fn<F> f1{bk, s.segs, s.len1, s.len0, B, out, win, w0};
        if ((rc = x.template launch<F>((size_t)g * s.segs1, f1, "bucket reduce (level 1)"))) return rc;
    }
    if ((rc = red_tree<F>(x, b.red_pts, 0, s.segs1, g, b.windows, w0))) return rc;
    x.mark("reduce");
    return 0;
}

} /* namespace msmk */

#endif
