/*
 * The MSM plan run on the host, thread by thread, with host emulation of the device arithmetic
 * (msm_sim_run*): how CI checks the kernels' logic — digits, sort, bucket levels (XYZZ and
 * affine), reductions, pieces — without a GPU. Also the host's last step of every MSM
 * (msm_horner: sum over w of 2^(c·w)·W_w, plus the ones, in lib/field's arithmetic).
 */
#include <algorithm>
#include <cstdlib>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <numeric>
#include <vector>

#include "msm.h"
#include "msm/msm_internal.cuh"
#include "msm/msm_plan.cuh"
#include "msm/msm_shift.cuh"

extern "C" {
#include "error.h"
/* lib/field/curve.h's Jacobian operations. That header cannot be included here: its FP_ZERO
 * collides with <cmath>'s fpclassify constant. The points are passed as their layout-equal
 * device types (checked by size below). */
void g1_jac_set_inf(void *r);
void g1_jac_dbl(void *r, const void *a);
void g1_jac_add(void *r, const void *a, const void *b);
void g2_jac_set_inf(void *r);
void g2_jac_dbl(void *r, const void *a);
void g2_jac_add(void *r, const void *a, const void *b);
}

using namespace msmk;

/* ---- the host simulation executor ---- */
struct host_exec {
    size_t acc_threads;
    acc_mode acc;
    /* fresh scratch holds junk, as the device pool's does (calloc here hid a missing zero) */
    int ensure(void **p, size_t bytes)
    {
        free(*p);
        *p = malloc(bytes ? bytes : 1);
        if (!*p) return err_set(CUZK_ENOMEM, "msm sim: %zu bytes", bytes);
        memset(*p, 0xa5, bytes ? bytes : 1);
        return 0;
    }
    int zero(void *p, size_t bytes)
    {
        memset(p, 0, bytes);
        return 0;
    }
    int fetch(void *host, const void *dev, size_t bytes)
    {
        memcpy(host, dev, bytes);
        return 0;
    }
    template <class F, class Src> size_t level0_kper(size_t m) { return wave_kper<F, void>(m); }
    template <class F, class Fn> size_t wave_kper(size_t m)
    {
        size_t k = (m + acc_threads - 1) / acc_threads;
        return k ? k : 1;
    }
    void mark(const char *) {}
    bool gate = false;   /* msm_sim_run_gated: pauses asked for are counted, never waited */
    uint32_t pauses = 0;
    bool gated() const { return gate; }
    int pause()
    {
        pauses++;
        return 0;
    }
    int reduce = msm_reduce_from_env(); /* as a new device context reads it */
    size_t red_threads = 64;            /* one wave of a reduction kernel (msm_sim_reduce sets it) */
    template <class F, class Fn> size_t reduce_threads() { return red_threads; }
    template <class F, class Fn> int launch(size_t n, const Fn &f, const char *)
    {
        for (size_t t = 0; t < n; t++) f(t);
        return 0;
    }
    int sort(uint32_t *k0, uint32_t *k1, uint32_t *v0, uint32_t *v1, size_t m, int bits, uint32_t **ks,
             uint32_t **vs)
    {
        std::vector<size_t> ord(m);
        std::iota(ord.begin(), ord.end(), 0);
        uint64_t mask = bits >= 32 ? 0xffffffffull : ((1ull << bits) - 1);
        std::stable_sort(ord.begin(), ord.end(), [&](size_t a, size_t b) { return (k0[a] & mask) < (k0[b] & mask); });
        for (size_t i = 0; i < m; i++) {
            k1[i] = k0[ord[i]];
            v1[i] = v0[ord[i]];
        }
        *ks = k1;
        *vs = v1;
        return 0;
    }
    int select(const uint8_t *flags, size_t n, uint32_t *out, uint32_t *count)
    {
        uint32_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (flags[i]) out[k++] = (uint32_t)i;
        *count = k;
        return 0;
    }
};

/* ---- the host's last step: sum over w of 2^(c·w)·W_w, plus the ones (lib/field) ---- */
void msm_horner(jacobian<fp> *out, const jacobian<fp> *w, unsigned nwin, unsigned c)
{
    jacobian<fp> acc;
    g1_jac_set_inf(&acc);
    for (int i = (int)nwin - 1; i >= 0; i--) {
        if (i != (int)nwin - 1)
            for (unsigned d = 0; d < c; d++) g1_jac_dbl(&acc, &acc);
        g1_jac_add(&acc, &acc, &w[i]);
    }
    g1_jac_add(out, &acc, &w[nwin]);
}

void msm_horner(jacobian<fp2> *out, const jacobian<fp2> *w, unsigned nwin, unsigned c)
{
    jacobian<fp2> acc;
    g2_jac_set_inf(&acc);
    for (int i = (int)nwin - 1; i >= 0; i--) {
        if (i != (int)nwin - 1)
            for (unsigned d = 0; d < c; d++) g2_jac_dbl(&acc, &acc);
        g2_jac_add(&acc, &acc, &w[i]);
    }
    g2_jac_add(out, &acc, &w[nwin]);
}


/* lib/field: g1_jac = 3 fp_t (48 bytes each), g2_jac = 3 fp2_t */
static_assert(sizeof(jacobian<fp>) == 3 * 48 && sizeof(jacobian<fp2>) == 3 * 96,
              "device points must match lib/field's layout");

/* The plan over pieces of `piece` points accumulated one after another (one piece: plan_run). */
static int sim_run(int curve, const acc_mode &acc, const void *bases, const void *scalars, size_t n, int scalar_form,
                   unsigned window_bits, size_t max_entries, size_t acc_threads, size_t piece, int persist, void *out,
                   const uint32_t *known = nullptr, int gated = 0, uint32_t *groups = nullptr,
                   uint32_t *pauses = nullptr)
{
    if (curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2) return err_set(CUZK_EINVAL, "msm_sim_run: curve %d", curve);
    host_exec x;
    x.acc_threads = acc_threads ? acc_threads : 64;
    x.acc = acc;
    x.gate = gated != 0;
    msm_bufs b;
    memset(&b, 0, sizeof b);
    plan_stats st;
    if (known) { /* the caller's counts for the (one) piece: nothing read back mid-run */
        st.known = true;
        st.known_one = known[0], st.known_rest = known[1];
    }
    int mont = scalar_form == 0, rc;
    if (!max_entries) max_entries = (size_t)1 << 20;
    if (!piece || piece > n) piece = n;
    unsigned cfix = window_bits;
    size_t pb = curve == MSM_CURVE_G1 ? sizeof(affine<fp>) : sizeof(affine<fp2>);
    const size_t shared_max = persist > 1 ? (size_t)persist : 0; /* shared buckets' bytes at most */
    if (curve == MSM_CURVE_G1) {
        rc = plan_begin<fp>(x, b, cfix, persist != 0, &st, n, shared_max);
        for (size_t i = 0; !rc && i < n; i += piece)
            rc = plan_add<fp>(x, b, (const affine<fp> *)((const char *)bases + i * pb), (const sc256 *)scalars + i,
                              n - i < piece ? n - i : piece, mont, max_entries, &st);
        if (!rc) rc = plan_end<fp>(x, b, &st);
        if (!rc) msm_horner((jacobian<fp> *)out, (const jacobian<fp> *)b.result, st.nwin, st.c);
    } else {
        rc = plan_begin<fp2>(x, b, cfix, persist != 0, &st, n, shared_max);
        for (size_t i = 0; !rc && i < n; i += piece)
            rc = plan_add<fp2>(x, b, (const affine<fp2> *)((const char *)bases + i * pb), (const sc256 *)scalars + i,
                               n - i < piece ? n - i : piece, mont, max_entries, &st);
        if (!rc) rc = plan_end<fp2>(x, b, &st);
        if (!rc) msm_horner((jacobian<fp2> *)out, (const jacobian<fp2> *)b.result, st.nwin, st.c);
    }
    void **all = (void **)&b;
    for (size_t i = 0; i < sizeof b / sizeof(void *); i++) free(all[i]);
    if (groups) *groups = st.groups;
    if (pauses) *pauses = x.pauses;
    if (!rc && x.pauses != st.pauses)
        rc = err_set(CUZK_EINVAL, "msm sim: %u pauses made, the plan counted %u", x.pauses, st.pauses);
    return rc;
}

extern "C" int msm_sim_run_gated(int curve, const void *bases, const void *scalars, size_t n, int scalar_form,
                                 unsigned window_bits, size_t max_entries, size_t acc_threads, size_t piece,
                                 int persist, int gated, void *out, uint32_t *groups, uint32_t *pauses)
{
    return sim_run(curve, acc_mode{}, bases, scalars, n, scalar_form, window_bits, max_entries, acc_threads, piece,
                   persist, out, nullptr, gated, groups, pauses);
}

extern "C" int msm_sim_run_pieces(int curve, const void *bases, const void *scalars, size_t n, int scalar_form,
                                  unsigned window_bits, size_t max_entries, size_t acc_threads, size_t piece,
                                  int persist, void *out)
{
    return sim_run(curve, acc_mode{}, bases, scalars, n, scalar_form, window_bits, max_entries, acc_threads, piece,
                   persist, out);
}

extern "C" int msm_sim_run(int curve, const void *bases, const void *scalars, size_t n, int scalar_form,
                           unsigned window_bits, size_t max_entries, size_t acc_threads, void *out)
{
    return sim_run(curve, acc_mode{}, bases, scalars, n, scalar_form, window_bits, max_entries, acc_threads, 0, 0, out);
}

extern "C" int msm_sim_run_acc(int curve, int acc, unsigned min_batch, unsigned rounds, const void *bases,
                               const void *scalars, size_t n, int scalar_form, unsigned window_bits,
                               size_t max_entries, size_t acc_threads, size_t piece, int persist, void *out)
{
    if (acc != MSM_ACC_XYZZ && acc != MSM_ACC_AFFINE && acc != MSM_ACC_PAIRWISE && acc != MSM_ACC_AUTO)
        return err_set(CUZK_EINVAL, "msm_sim_run_acc: mode %d", acc);
    acc_mode m;
    m.kind = acc;
    m.pair_min = msm_pair_min_from_env();
    m.min_batch = min_batch;
    m.rounds = rounds;
    return sim_run(curve, m, bases, scalars, n, scalar_form, window_bits, max_entries, acc_threads, piece, persist,
                   out);
}

/* Copies 1 .. copies - 1 of the bases shifted by dbls doublings each (msm_shift.cuh on the
 * host), then the plan over them. */
template <class F>
static int sim_pre_typed(host_exec &x, msm_bufs &b, const affine<F> *bases, const sc256 *scalars, size_t n, int mont,
                         msm_pre &pre, unsigned dbls, size_t max_entries, jacobian<F> *out)
{
    std::vector<affine<F>> copies((pre.copies - 1) * n);
    std::vector<xyzz<F>> scratch(n);
    for (unsigned j = 1; j < pre.copies; j++) {
        const affine<F> *src = j == 1 ? bases : copies.data() + (size_t)(j - 2) * n;
        for (size_t th = 0; th * MSM_SHIFT_RUN < n; th++)
            shift_thread<F>(th, n, dbls, src, copies.data() + (size_t)(j - 1) * n, scratch.data());
    }
    pre.pre = copies.data();
    pre.split = (uint32_t)n;
    plan_stats st;
    int rc = plan_run<F>(x, b, bases, scalars, n, mont, 0, max_entries, &st, pre);
    if (!rc) msm_horner(out, (const jacobian<F> *)b.result, st.nwin, st.c);
    if (!rc && pre.force && st.n_rest && st.copies != pre.copies)
        rc = err_set(CUZK_EINVAL, "msm_sim_run_pre: forced onto %u copies, the plan used %u", pre.copies, st.copies);
    return rc;
}

extern "C" int msm_sim_run_pre(int curve, const void *bases, const void *scalars, size_t n, int scalar_form,
                               unsigned copies, unsigned window_bits, unsigned shift_bits, int mode,
                               size_t max_entries, size_t acc_threads, void *out)
{
    if (curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2) return err_set(CUZK_EINVAL, "msm_sim_run_pre: curve %d", curve);
    const unsigned c = window_bits ? window_bits : msm_choose_window(n ? n : 1);
    if (copies < 2 || c < 4 || c > 22 || copies > msm_windows(c) || !n)
        return err_set(CUZK_EINVAL, "msm_sim_run_pre: %u copies of %u-bit windows over %zu points", copies, c, n);
    copies = msm_pre_copies(c, copies);
    host_exec x;
    x.acc_threads = acc_threads ? acc_threads : 64;
    x.acc.kind = msm_acc_from_env(); /* as the device context reads it */
    x.acc.pair_min = msm_pair_min_from_env();
    if (x.acc.kind != MSM_ACC_XYZZ) x.acc.min_batch = 0;
    msm_bufs b;
    memset(&b, 0, sizeof b);
    msm_pre pre;
    pre.copies = copies;
    pre.c = c;
    pre.force = mode == MSM_PRE_FORCE;
    const unsigned dbls = shift_bits ? shift_bits : c * msm_pre_windows(c, copies);
    if (!max_entries) max_entries = (size_t)1 << 20;
    int rc = curve == MSM_CURVE_G1
                 ? sim_pre_typed<fp>(x, b, (const affine<fp> *)bases, (const sc256 *)scalars, n, scalar_form == 0, pre,
                                     dbls, max_entries, (jacobian<fp> *)out)
                 : sim_pre_typed<fp2>(x, b, (const affine<fp2> *)bases, (const sc256 *)scalars, n, scalar_form == 0,
                                      pre, dbls, max_entries, (jacobian<fp2> *)out);
    void **all = (void **)&b;
    for (size_t i = 0; i < sizeof b / sizeof(void *); i++) free(all[i]);
    return rc;
}

template <class F>
static int sim_reduce_typed(int mode, unsigned c, unsigned g, size_t threads, const void *buckets,
                            jacobian<F> *windows)
{
    host_exec x;
    x.reduce = mode;
    x.red_threads = threads ? threads : 64;
    msm_bufs b;
    memset(&b, 0, sizeof b);
    const size_t bytes = ((size_t)g << (c - 1)) * sizeof(xyzz<F>);
    int rc = x.ensure(&b.buckets, bytes);
    if (!rc) rc = x.ensure(&b.windows, g * sizeof(xyzz<F>));
    if (!rc) rc = x.zero(b.windows, g * sizeof(xyzz<F>)); /* infinity */
    if (!rc) {
        memcpy(b.buckets, buckets, bytes);
        rc = plan_reduce<F>(x, b, c, 0, g);
    }
    /* the device's scratch estimate (msm.cu) takes red_bound_pts for what plan_reduce takes */
    const size_t B = (size_t)1 << (c - 1), R = x.red_threads;
    const red_shape s = red_plan(mode, B, g, R, R);
    if (!rc && s.pts[0] + s.pts[1] > red_bound_pts(B, g, R))
        rc = err_set(CUZK_EINVAL, "msm sim: reduction scratch of %zu points, bound %zu", s.pts[0] + s.pts[1],
                     red_bound_pts(B, g, R));
    for (unsigned w = 0; !rc && w < g; w++) windows[w] = to_jacobian(((const xyzz<F> *)b.windows)[w]);
    void **all = (void **)&b;
    for (size_t i = 0; i < sizeof b / sizeof(void *); i++) free(all[i]);
    return rc;
}

extern "C" int msm_sim_reduce(int curve, int mode, unsigned c, unsigned g, size_t threads, const void *buckets,
                              void *windows)
{
    if ((curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2) || (mode != MSM_REDUCE_SEGMUL && mode != MSM_REDUCE_LEVELS) ||
        c < 2 || c > 22 || g < 1 || g > MSM_MAX_WINDOWS)
        return err_set(CUZK_EINVAL, "msm_sim_reduce: curve %d, mode %d, c = %u, %u windows", curve, mode, c, g);
    return curve == MSM_CURVE_G1 ? sim_reduce_typed<fp>(mode, c, g, threads, buckets, (jacobian<fp> *)windows)
                                 : sim_reduce_typed<fp2>(mode, c, g, threads, buckets, (jacobian<fp2> *)windows);
}



extern "C" void msm_sim_fp_inv(void *out, const void *in, size_t n)
{
    for (size_t i = 0; i < n; i++) ((fp *)out)[i] = fp_inv(((const fp *)in)[i]);
}

extern "C" void msm_count_classes_host(const void *scalars, size_t n, int scalar_form, uint32_t counts[2])
{
    counts[0] = counts[1] = 0;
    count_classes_range((const sc256 *)scalars, 0, n, scalar_form == 0, &counts[0], &counts[1]);
}

extern "C" int msm_sim_run_counted(int curve, const void *bases, const void *scalars, size_t n, int scalar_form,
                                   unsigned window_bits, size_t max_entries, size_t acc_threads,
                                   const uint32_t counts[2], void *out)
{
    return sim_run(curve, acc_mode{}, bases, scalars, n, scalar_form, window_bits, max_entries, acc_threads, 0, 0, out,
                   counts);
}

/* ---- the plan's scratch without its arithmetic: what a device context ends up holding ---- */

/* An executor that runs no kernel and keeps no data, for sizes at any scale: ensure records a
 * buffer's capacity as dev_exec's does (grown to the request, never shrunk, at least 256
 * bytes), so plans run one after another on one context end holding the sum over its buffers
 * of the largest request each saw. Level-0 waves and reduction waves are the caller's
 * (dev_exec asks the device's occupancy). */
struct size_exec {
    acc_mode acc;
    msm_bufs *bufs = nullptr;
    size_t cap[sizeof(msm_bufs) / sizeof(void *)] = {};
    size_t wave[2] = {0, 0}; /* level-0 threads of one wave, G1 and G2 */
    size_t red_wave = MSM_RED_WAVE_MAX;
    int reduce = MSM_REDUCE_AUTO;
    int ensure(void **p, size_t bytes)
    {
        const uintptr_t at = (uintptr_t)p, base = (uintptr_t)bufs;
        if (at < base || at >= base + sizeof *bufs || (at - base) % sizeof(void *))
            return err_set(CUZK_EINVAL, "msm size: a buffer outside the plan's");
        const size_t i = (at - base) / sizeof(void *);
        bytes = bytes < 256 ? 256 : bytes;
        if (cap[i] < bytes) cap[i] = bytes;
        *p = (void *)p; /* never dereferenced: nothing runs */
        return 0;
    }
    int zero(void *, size_t) { return 0; }
    int fetch(void *, const void *, size_t) { return err_set(CUZK_EINVAL, "msm size: a read-back (counts unknown)"); }
    template <class F, class Src> size_t level0_kper(size_t m) { return wave_kper<F, void>(m); }
    template <class F, class Fn> size_t wave_kper(size_t m)
    {
        const size_t target = wave[sizeof(F) > 48] * (acc.waves ? acc.waves : 1);
        const size_t k = (m + target - 1) / target;
        return k < 2 ? 2 : k;
    }
    template <class F, class Fn> size_t reduce_threads() { return red_wave; }
    void mark(const char *) {}
    bool gated() const { return false; }
    int pause() { return 0; }
    template <class F, class Fn> int launch(size_t, const Fn &, const char *) { return 0; }
    int sort(uint32_t *, uint32_t *k1, uint32_t *, uint32_t *v1, size_t, int, uint32_t **ks, uint32_t **vs)
    {
        *ks = k1;
        *vs = v1;
        return 0;
    }
    int select(const uint8_t *, size_t, uint32_t *, uint32_t *) { return 0; }
    size_t held() const
    {
        size_t t = 0;
        for (size_t c : cap) t += c;
        return t;
    }
};

struct msm_size_ctx {
    size_exec x;
    msm_bufs b;
    size_t max_entries;
    bool g2_half;
    size_t shared; /* accumulated runs share buckets within this many bytes (0: each piece reduces) */
};

extern "C" msm_size_ctx *msm_size_ctx_new(size_t max_entries, int g2_half, int acc, unsigned waves, size_t wave_g1,
                                          size_t wave_g2)
{
    if (acc != MSM_ACC_XYZZ && acc != MSM_ACC_AFFINE && acc != MSM_ACC_PAIRWISE && acc != MSM_ACC_AUTO) {
        err_set(CUZK_EINVAL, "msm_size_ctx_new: accumulation %d", acc);
        return nullptr;
    }
    msm_size_ctx *s = new (std::nothrow) msm_size_ctx();
    if (!s) {
        err_set(CUZK_ENOMEM, "msm_size_ctx_new");
        return nullptr;
    }
    memset(&s->b, 0, sizeof s->b);
    s->x.bufs = &s->b;
    s->max_entries = max_entries ? max_entries : (size_t)1 << 28;
    s->g2_half = g2_half != 0;
    s->x.acc.kind = acc;
    s->x.acc.pair_min = msm_pair_min_from_env();
    s->x.acc.waves = waves < 1 ? 1 : waves > MSM_MAX_WAVES ? MSM_MAX_WAVES : waves;
    s->x.wave[0] = wave_g1 ? wave_g1 : (size_t)1 << 18;
    s->x.wave[1] = wave_g2 ? wave_g2 : (size_t)1 << 17;
    return s;
}

extern "C" void msm_size_ctx_free(msm_size_ctx *s) { delete s; }

extern "C" void msm_size_ctx_set_shared(msm_size_ctx *s, size_t bucket_bytes_max)
{
    if (s) s->shared = bucket_bytes_max;
}

extern "C" size_t msm_size_held(const msm_size_ctx *s) { return s ? s->x.held() : 0; }

extern "C" size_t msm_size_held_both(const msm_size_ctx *a, const msm_size_ctx *b)
{
    size_t t = 0;
    for (size_t i = 0; a && b && i < sizeof a->x.cap / sizeof a->x.cap[0]; i++)
        t += a->x.cap[i] > b->x.cap[i] ? a->x.cap[i] : b->x.cap[i];
    return t;
}

/* The part of msm_gpu_scratch_parts each buffer of msm_bufs counts in. */
static int part_of(size_t i)
{
    const size_t at = i * sizeof(void *);
#define IN(f, n) (at - offsetof(msm_bufs, f) < (n) * sizeof(void *)) /* below f: wraps, so out */
    if (IN(is_one, 1) || IN(is_rest, 1) || IN(idx_one, 1) || IN(idx_rest, 1) || IN(counts, 1)) return MSM_PART_INDEX;
    if (IN(keys, 2) || IN(vals, 2)) return MSM_PART_SORT;
    if (IN(buckets, 1)) return MSM_PART_BUCKETS;
    if (IN(buckets2, 1)) return MSM_PART_MERGE;
    if (IN(red_pts, 2)) return MSM_PART_REDUCE;
    if (IN(pk, 2) || IN(pp, 2)) return MSM_PART_PARTIALS;
    if (IN(pair_pts, 1) || IN(pair_pre, 1)) return MSM_PART_PAIR;
#undef IN
    return MSM_PART_FIXED; /* windows, ones, result, ones_part */
}

extern "C" void msm_size_held_parts(const msm_size_ctx *s, msm_scratch_parts *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; s && i < sizeof s->x.cap / sizeof s->x.cap[0]; i++) out->part[part_of(i)] += s->x.cap[i];
}

/* Piece k of np's share of total, at most cap: spread evenly (the last piece takes the rest),
 * or front-first (each piece as many as it holds, from the first on; before = the total the
 * pieces before it took). */
static uint32_t share(size_t total, size_t k, size_t np, size_t cap, bool spread, size_t before)
{
    const size_t each = total / np, v = !spread ? total - before : k + 1 < np ? each : total - each * (np - 1);
    return (uint32_t)(v < cap ? v : cap);
}

template <class F>
static int size_typed(msm_size_ctx *s, size_t n, size_t n_one, size_t n_rest, size_t piece, int spread,
                      unsigned copies, unsigned pre_c)
{
    plan_stats st;
    const affine<F> *const none = nullptr; /* no bases, no scalars: nothing is read */
    const size_t entries = sizeof(F) > sizeof(fp) && s->g2_half ? s->max_entries / 2 : s->max_entries;
    if (!piece) { /* msm_gpu_run: one piece, the counts told (msm_gpu_ctx_set_counts) */
        msm_pre pre;
        if (copies > 1) {
            pre.pre = &s->b; /* any non-null: the copies' points are never read */
            pre.split = (uint32_t)n;
            pre.c = pre_c ? pre_c : msm_choose_window(n);
            pre.copies = msm_pre_copies(pre.c, copies);
        }
        st.known = true;
        st.known_one = (uint32_t)n_one, st.known_rest = (uint32_t)n_rest;
        return plan_run<F>(s->x, s->b, none, nullptr, n, 1, 0, entries, &st, pre);
    }
    /* msm_gpu_acc_*: each piece's share of the counts */
    const size_t np = (n + piece - 1) / piece;
    int rc = plan_begin<F>(s->x, s->b, 0, s->shared != 0, &st, n, s->shared);
    size_t ones = 0, rest = 0;
    for (size_t k = 0; !rc && k < np; k++) {
        const size_t pts = n - k * piece < piece ? n - k * piece : piece;
        st.known = true;
        if (spread == 2) { /* the first piece one scalar other than 0 and 1, the rest after it */
            const size_t r = k ? n_rest - rest : n_rest < 1 ? n_rest : 1, o = n_one - ones;
            st.known_rest = (uint32_t)(r < pts ? r : pts);
            st.known_one = (uint32_t)(o < pts - st.known_rest ? o : pts - st.known_rest);
        } else {
            st.known_rest = share(n_rest, k, np, pts, spread, rest); /* front-first: the rest first */
            st.known_one = share(n_one, k, np, pts - st.known_rest, spread, ones);
        }
        ones += st.known_one, rest += st.known_rest;
        rc = plan_add<F>(s->x, s->b, none, nullptr, pts, 1, entries, &st);
    }
    return rc ? rc : plan_end<F>(s->x, s->b, &st);
}

extern "C" int msm_size_run(msm_size_ctx *s, int curve, size_t n, size_t n_one, size_t n_rest, size_t piece,
                            int spread, unsigned copies, unsigned pre_c)
{
    if (!s || (curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2) || n > 0x7fffffffu || n_one > n || n_rest > n - n_one ||
        spread < 0 || spread > 2 || (pre_c && (pre_c < 4 || pre_c > 22)))
        return err_set(CUZK_EINVAL, "msm_size_run: curve %d, %zu points, %zu ones, %zu other, spread %d, window %u",
                       curve, n, n_one, n_rest, spread, pre_c);
    if (!n) return 0;
    return curve == MSM_CURVE_G1 ? size_typed<fp>(s, n, n_one, n_rest, piece, spread, copies, pre_c)
                                 : size_typed<fp2>(s, n, n_one, n_rest, piece, spread, copies, pre_c);
}
