/*
 * The MSM's per-thread bodies (scalar classes, signed digits, bucket accumulation; the bucket
 * reduction's are in msm_reduce.cuh), written as __host__ __device__ functions of an explicit
 * thread index so the same code runs in the kernels (msm.cu) and in a host simulation that
 * checks the plan.
 */
#ifndef CUZK_MSM_KERNELS_CUH
#define CUZK_MSM_KERNELS_CUH

#include "curve/xyzz.cuh"

namespace msmk {

using namespace curve;

/* A scalar as the host hands it over: 4 little-endian u64 = 8 little-endian u32. */
struct sc256 {
    uint32_t l[8];
};

/* Keys past every real bucket: zero digits (sorted to the end and never summed). */
#define MSM_KEY_SKIP 0xffffffffu
#define MSM_NEG_BIT 0x80000000u

/* a·2^-256 mod r for a < r (Montgomery -> canonical), one REDC over 32-bit limbs. */
FPM_HD sc256 fr_from_mont(const sc256 &a)
{
    const uint32_t r[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                           0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
    uint32_t t[9];
    for (int i = 0; i < 8; i++) t[i] = a.l[i];
    t[8] = 0;
    for (int i = 0; i < 8; i++) {
        uint32_t m = t[0] * 0xffffffffu; /* -r^-1 mod 2^32 */
        uint64_t c = ((uint64_t)m * r[0] + t[0]) >> 32;
        for (int j = 1; j < 8; j++) {
            uint64_t s = (uint64_t)m * r[j] + t[j] + c;
            t[j - 1] = (uint32_t)s;
            c = s >> 32;
        }
        uint64_t s = (uint64_t)t[8] + c;
        t[7] = (uint32_t)s;
        t[8] = (uint32_t)(s >> 32);
    }
    /* t < 2r: subtract r once if needed */
    uint32_t d[8];
    int64_t borrow = 0;
    for (int j = 0; j < 8; j++) {
        int64_t s = (int64_t)t[j] - r[j] + borrow;
        d[j] = (uint32_t)s;
        borrow = s >> 32;
    }
    bool ge = t[8] || borrow == 0;
    sc256 out;
    for (int j = 0; j < 8; j++) out.l[j] = ge ? d[j] : t[j];
    return out;
}

FPM_HD sc256 load_canonical(const sc256 *s, size_t i, int mont)
{
    sc256 v = s[i];
    return mont ? fr_from_mont(v) : v;
}

/* 0: scalar zero, 1: scalar one, 2: anything else. */
FPM_HD int scalar_class(const sc256 &s)
{
    uint32_t hi = 0;
    for (int j = 1; j < 8; j++) hi |= s.l[j];
    if (hi) return 2;
    return s.l[0] > 1 ? 2 : (int)s.l[0];
}

/* c bits of s starting at bit pos (pos + c may run past 256: zeros). */
FPM_HD uint32_t scalar_bits(const sc256 &s, unsigned pos, unsigned c)
{
    unsigned limb = pos >> 5, sh = pos & 31;
    if (limb >= 8) return 0;
    uint64_t w = s.l[limb];
    if (limb + 1 < 8) w |= (uint64_t)s.l[limb + 1] << 32;
    return (uint32_t)(w >> sh) & ((1u << c) - 1);
}

/* Signed digits of window w0..w1-1 for rest scalar k (original index idx): digit d of window w
 * lies in (-2^(c-1), 2^(c-1)]; d != 0 goes to bucket |d| - 1 of window w, written at
 * [(w - w0)·n + k] as key ((w - w0) << (c-1)) | (|d| - 1) and value idx | sign. */
/* The signed digit of window w (windows taken in order, carry threaded through): magnitude
 * and sign bit. Past bit 255 the digits are 0 (r < 2^255: the top window never carries). */
FPM_HD uint32_t signed_digit(const sc256 &s, unsigned w, unsigned c, uint32_t &carry, uint32_t &neg)
{
    const uint32_t half = 1u << (c - 1), v = scalar_bits(s, w * c, c) + carry;
    if (v > half) {
        neg = MSM_NEG_BIT;
        carry = 1;
        return (1u << c) - v;
    }
    neg = 0;
    carry = 0;
    return v;
}

FPM_HD void digits_thread(size_t k, size_t n, const sc256 &s, uint32_t idx, unsigned c, unsigned w0,
                          unsigned w1, uint32_t *keys, uint32_t *vals)
{
    uint32_t carry = 0;
    for (unsigned w = 0; w < w1; w++) {
        uint32_t neg, mag = signed_digit(s, w, c, carry, neg);
        if (w >= w0) {
            size_t at = (size_t)(w - w0) * n + k;
            keys[at] = mag ? (((uint32_t)(w - w0) << (c - 1)) | (mag - 1)) : MSM_KEY_SKIP;
            vals[at] = idx | neg;
        }
    }
}

/* Over t copies of g windows each (t·g >= nwin > (t - 1)·g), the entries per point of merged
 * windows 0..l-1: t each, but the last copy holds only the first nwin - (t - 1)·g of them. */
FPM_HD size_t pre_slots_before(unsigned l, unsigned t, unsigned g, unsigned nwin)
{
    const unsigned r = nwin - (t - 1) * g;
    return (size_t)l * t - (l > r ? l - r : 0);
}

/* Digits over t precomputed copies of the bases (copy j = 2^(c·g·j)·bases, index j·split + i):
 * window w = j·g + l < nwin of rest scalar k (original index idx) goes to merged window l as a
 * point of copy j. Merged windows l0..l1-1 are written, packed (no slots for windows past the
 * last): entry (pre_slots_before(l) - pre_slots_before(l0) + j)·n + k, key
 * ((l - l0) << (c-1)) | (|d| - 1). */
FPM_HD void digits_pre_thread(size_t k, size_t n, const sc256 &s, uint32_t idx, unsigned c, unsigned t,
                              unsigned g, unsigned nwin, unsigned l0, unsigned l1, uint32_t split, uint32_t *keys,
                              uint32_t *vals)
{
    uint32_t carry = 0;
    const size_t s0 = pre_slots_before(l0, t, g, nwin);
    for (unsigned j = 0, w = 0; j < t; j++)
        for (unsigned l = 0; l < g && w < nwin; l++, w++) {
            uint32_t neg, mag = signed_digit(s, w, c, carry, neg);
            if (l < l0 || l >= l1) continue;
            size_t at = (pre_slots_before(l, t, g, nwin) - s0 + j) * n + k;
            keys[at] = mag ? (((uint32_t)(l - l0) << (c - 1)) | (mag - 1)) : MSM_KEY_SKIP;
            vals[at] = (j * split + idx) | neg;
        }
}

/* Loads with 16-byte accesses (points are multiples of 16 bytes, arrays 256-byte aligned);
 * RO: through the read-only cache (data no thread writes during the kernel). */
template <bool RO, class T> FPM_HD T load16_as(const T *p)
{
    static_assert(sizeof(T) % 16 == 0, "16-byte granules");
#ifdef __CUDA_ARCH__
    T r;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 16; i++) d[i] = RO ? __ldg(s + i) : s[i];
    return r;
#else
    return *p;
#endif
}
template <class T> FPM_HD T load16(const T *p) { return load16_as<true>(p); }

template <class T> FPM_HD void store16(T *p, const T &v)
{
#ifdef __CUDA_ARCH__
    uint4 *d = reinterpret_cast<uint4 *>(p);
    const uint4 *s = reinterpret_cast<const uint4 *>(&v);
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 16; i++) d[i] = s[i];
#else
    *p = v;
#endif
}

/* Where one accumulation level reads its points: affine bases through (index | sign) values
 * (level 0), or partial sums from the level before (one point per entry). */
template <class F> struct src_bases {
    const affine<F> *bases;
    const uint32_t *vals;
    /* precomputed copies (msm_gpu_bases_precompute): indices from split on are pre[i - split] */
    const affine<F> *pre = nullptr;
    uint32_t split = 0xffffffffu;
    FPM_HD const affine<F> *at(uint32_t i) const { return i < split ? bases + i : pre + (i - split); }
    FPM_HD affine<F> point(size_t e) const
    {
        uint32_t v = vals[e];
        affine<F> q = load16(at(v & ~MSM_NEG_BIT));
        return (v & MSM_NEG_BIT) ? aff_neg(q) : q;
    }
    FPM_HD xyzz<F> add_to(const xyzz<F> &acc, size_t e) const
    {
        affine<F> q = point(e);
        if constexpr (sizeof(F) == sizeof(fp)) return add_aff_inline(acc, q); /* G1: the hot loop */
        else return add_aff(acc, q);
    }
};

template <class F> struct src_partials {
    const xyzz<F> *pts;
    FPM_HD xyzz<F> add_to(const xyzz<F> &acc, size_t e) const { return add(acc, load16(pts + e)); }
};

/* Emit one finished run: a run that may continue in a neighbouring chunk goes to the partials
 * (slot 0 = first run, slot 1 = last run of this chunk); a run wholly inside the chunk is
 * final and goes to its bucket (level 0 stores; later levels add, since a bucket written at
 * level 0 may reappear later carrying only infinity). */
template <class F> struct sink {
    xyzz<F> *buckets;
    uint32_t *out_keys; /* 2 per thread; NULL on the last level */
    xyzz<F> *out_pts;
    bool store;         /* level 0 */
};

/* One thread of an accumulation level: entries [t·K, min(t·K + K, m)) of the key-sorted input.
 * Partials slots (2t, 2t+1) are always written (infinity when unused) so the next level sees a
 * key-sorted array with no holes. */
template <class F, class Src>
FPM_HD void accumulate_thread(size_t t, size_t m, size_t kper, const uint32_t *keys, const Src &src,
                              const sink<F> &out)
{
    size_t start = t * kper, end = start + kper < m ? start + kper : m;
    uint32_t slot_key[2] = {MSM_KEY_SKIP, MSM_KEY_SKIP};
    xyzz<F> slot_pt[2];
    set_inf(slot_pt[0]);
    set_inf(slot_pt[1]);
    if (start < m && keys[start] != MSM_KEY_SKIP) {
        bool cont_prev = start > 0 && keys[start - 1] == keys[start];
        uint32_t cur = keys[start];
        size_t run_begin = start;
        xyzz<F> acc;
        set_inf(acc);
        size_t e = start;
        for (;; e++) {
            uint32_t k = e < end ? keys[e] : MSM_KEY_SKIP;
            if (k != cur) {
                /* the run [run_begin, e) of key cur is done */
                bool first = run_begin == start;
                bool last = k == MSM_KEY_SKIP || e == end;
                bool cont_next = e == end && end < m && keys[end] == cur;
                if ((first && cont_prev) || (last && cont_next)) {
                    int s = first ? 0 : 1;
                    slot_key[s] = cur;
                    slot_pt[s] = acc;
                } else if (out.store) {
                    store16(out.buckets + cur, acc);
                } else {
                    store16(out.buckets + cur, add(load16(out.buckets + cur), acc));
                }
                if (first) slot_key[0] = cur; /* keeps the partials sorted (value may stay inf) */
                if (last) break;
                cur = k;
                run_begin = e;
                set_inf(acc);
            }
            acc = src.add_to(acc, e);
        }
        if (slot_key[1] == MSM_KEY_SKIP) slot_key[1] = slot_key[0];
    }
    if (out.out_keys) {
        out.out_keys[2 * t] = slot_key[0];
        out.out_keys[2 * t + 1] = slot_key[1];
        store16(out.out_pts + 2 * t, slot_pt[0]);
        store16(out.out_pts + 2 * t + 1, slot_pt[1]);
    }
}

/* Window sums and the ones' sum as Jacobian points (lib/field's g1_jac/g2_jac layout); the host
 * finishes with Horner (~255 doublings: a single GPU thread is slower at that than a CPU core). */
template <class F>
FPM_HD void to_jacobian_thread(size_t t, const xyzz<F> *windows, unsigned nwin, const xyzz<F> *ones,
                               jacobian<F> *out)
{
    out[t] = to_jacobian(t < nwin ? windows[t] : *ones);
}

} /* namespace msmk */

#endif
