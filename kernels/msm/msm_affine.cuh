/*
 * Level 0 of the bucket accumulation in affine coordinates, one batch inversion per step.
 *
 * A thread owns a range of the key-sorted entries, as in accumulate_thread, and so a run of
 * entries per bucket. It keeps every run's running sum as an affine point and advances all its
 * runs together: step s adds each run's s-th point to its sum. Those additions are
 * independent, so they share one inversion (Montgomery's trick): a forward pass multiplies the
 * denominators, storing the prefix products; one inversion (binary GCD, field/inv_bingcd.cuh);
 * a backward pass peels each run's inverse off the prefixes. That is 6 products per addition
 * (1 prefix, 2 to peel, λ, λ², λ·(x1 - x3)) against 10 for a mixed XYZZ addition, plus the
 * inversion's share. Once fewer than min_batch runs are left the share outweighs the saving:
 * the remaining points are added in XYZZ, as accumulate_thread does.
 *
 * No extra memory: a run's sum and its prefix product live in its own output slot (the
 * bucket, zeroed before level 0, or the thread's partial slot for a run that continues in a
 * neighbouring thread: x, y = the sum, zz = the prefix), and the run table (slot and first
 * entry per run) in the two sort buffers the radix sort left free, within the thread's own
 * range of entries. The output is what accumulate_thread writes, so later levels are unchanged.
 *
 * Additions inside a batch are complete: a point at infinity on either side, P + P (the
 * tangent: denominator 2y, numerator 3x^2) and P + (-P) (infinity, no inversion needed).
 */
#ifndef CUZK_MSM_AFFINE_CUH
#define CUZK_MSM_AFFINE_CUH

#include "msm/msm_kernels.cuh"

namespace msmk {

/* Plain (coherent) 16-byte loads and stores for slots this thread writes and reads back in the
 * same kernel: load16 goes through the read-only cache, which may return a stale line. */
template <class T> FPM_HD T ld_slot(const T *p) { return load16_as<false>(p); }

/* Slot codes in the run table: a bucket index, or one of the thread's two partial slots. */
#define MSM_AFF_PART 0x80000000u

/* Where one affine addition acc + p stands: its denominator (1 when no inversion is needed)
 * and, for a sum that needs one, its numerator. kind: 0 = (num / den) slope, 1 = the result is
 * p, 2 = it is acc, 3 = it is infinity. */
template <class F> struct aff_step {
    int kind;
    F den, num;
};

/* x-coordinates decide the common case; y is read only when an x is zero (infinity, or the
 * order-3 points that no subgroup holds) or the two x are equal. */
template <class F> FPM_HD aff_step<F> aff_classify(const affine<F> &a, const affine<F> &p)
{
    aff_step<F> r;
    r.kind = 0;
    if (aff_is_inf(p)) r.kind = 2;
    else if (aff_is_inf(a)) r.kind = 1;
    else {
        F dx = f_sub(p.x, a.x);
        if (!f_is_zero(dx)) {
            r.den = dx;
            r.num = f_sub(p.y, a.y);
            return r;
        }
        if (f_is_zero(f_sub(p.y, a.y)) && !f_is_zero(a.y)) { /* p == a: the tangent */
            F xx = f_sqr(a.x);
            r.den = f_dbl(a.y);
            r.num = f_add(f_dbl(xx), xx);
            return r;
        }
        r.kind = 3; /* p == -a */
    }
    f_set_one(r.den);
    return r;
}

/* The forward pass needs only the denominator: x-coordinates alone in the common case (the
 * x of infinity is 0, so a zero x takes the full classification). */
template <class F> FPM_HD F aff_den(const affine<F> *slot, const src_bases<F> &src, size_t e)
{
    const uint32_t v = src.vals[e];
    const F px = load16(&src.at(v & ~MSM_NEG_BIT)->x), ax = ld_slot(&slot->x);
    if (!f_is_zero(px) && !f_is_zero(ax)) {
        F dx = f_sub(px, ax);
        if (!f_is_zero(dx)) return dx;
    }
    return aff_classify(ld_slot(slot), src.point(e)).den;
}

/* a + p given the step's classification and 1/den. */
template <class F> FPM_HD affine<F> aff_finish(const affine<F> &a, const affine<F> &p, const aff_step<F> &s, const F &inv)
{
    affine<F> r;
    if (s.kind == 1) return p;
    if (s.kind == 2) return a;
    if (s.kind == 3) {
        f_set_zero(r.x);
        f_set_zero(r.y);
        return r;
    }
    F l = f_mul(s.num, inv);
    r.x = f_sub(f_sub(f_sqr(l), a.x), p.x);
    r.y = f_sub(f_mul(l, f_sub(a.x, r.x)), a.y);
    return r;
}

/* Pass 0 of a batched level-0 thread over entries [start, end) (keys[start] a real key): the
 * run table in the free sort buffers (codes: bucket index, or MSM_AFF_PART | partials slot for
 * a run that continues in a neighbour; starts: first entry - start) and the partials' keys as
 * accumulate_thread sets them; on_run(code, first, end) for each run. Returns the runs, and
 * the end of the last in *run_end. */
template <class OnRun>
FPM_HD size_t run_table(size_t start, size_t end, size_t m, const uint32_t *keys, uint32_t *codes, uint32_t *starts,
                        uint32_t slot_key[2], bool slot_used[2], size_t *run_end, OnRun on_run)
{
    const bool cont_prev = start > 0 && keys[start - 1] == keys[start];
    size_t nr = 0, s = start;
    while (s < end && keys[s] != MSM_KEY_SKIP) {
        const uint32_t k = keys[s];
        size_t e = s + 1;
        while (e < end && keys[e] == k) e++;
        const bool first = s == start, last = e == end || keys[e] == MSM_KEY_SKIP;
        const bool cont_next = e == end && end < m && keys[end] == k;
        uint32_t code = k;
        if ((first && cont_prev) || (last && cont_next)) {
            const int sl = first ? 0 : 1;
            code = MSM_AFF_PART | (uint32_t)sl;
            slot_key[sl] = k;
            slot_used[sl] = true;
        }
        if (first) slot_key[0] = k; /* keeps the partials sorted (value may stay inf) */
        codes[start + nr] = code;
        starts[start + nr] = (uint32_t)(s - start);
        nr++;
        on_run(code, s, e);
        s = e;
    }
    if (slot_key[1] == MSM_KEY_SKIP) slot_key[1] = slot_key[0];
    *run_end = s;
    return nr;
}

/* The partials' keys of thread t, and infinity in the slots no run took. */
template <class F> FPM_HD void emit_partial_keys(size_t t, const sink<F> &out, const uint32_t slot_key[2],
                                                 const bool slot_used[2])
{
    if (!out.out_keys) return;
    out.out_keys[2 * t] = slot_key[0];
    out.out_keys[2 * t + 1] = slot_key[1];
    xyzz<F> inf;
    set_inf(inf);
    if (!slot_used[0]) store16(out.out_pts + 2 * t, inf);
    if (!slot_used[1]) store16(out.out_pts + 2 * t + 1, inf);
}

/* One thread of level 0 in affine coordinates: entries [t·K, min(t·K + K, m)), the same output
 * as accumulate_thread (runs wholly inside stored to their buckets; the first and last runs,
 * when they continue in a neighbour, to partials slots 2t and 2t + 1 with their keys).
 * codes/starts: m-entry scratch (only [t·K, t·K + K) is touched). */
template <class F>
FPM_HD void accumulate_affine_thread(size_t t, size_t m, size_t kper, const uint32_t *keys, const src_bases<F> &src,
                                     const sink<F> &out, uint32_t *codes, uint32_t *starts, unsigned min_batch)
{
    const size_t start = t * kper, end = start + kper < m ? start + kper : m;
    uint32_t slot_key[2] = {MSM_KEY_SKIP, MSM_KEY_SKIP};
    bool slot_used[2] = {false, false};
    auto slot = [&](uint32_t code) -> xyzz<F> * {
        return (code & MSM_AFF_PART) ? out.out_pts + 2 * t + (code & 1) : out.buckets + code;
    };
    if (start < m && keys[start] != MSM_KEY_SKIP) {
        /* pass 0: the run table, each run's sum = its first point */
        size_t active = 0, run_end;
        const size_t nr = run_table(start, end, m, keys, codes, starts, slot_key, slot_used, &run_end,
                                    [&](uint32_t code, size_t s, size_t e) {
                                        active += e - s >= 2;
                                        store16((affine<F> *)slot(code), src.point(s));
                                    });
        auto run_len = [&](size_t i) -> size_t {
            return (i + 1 < nr ? start + starts[start + i + 1] : run_end) - (start + starts[start + i]);
        };

        /* batched affine steps while enough runs are left to pay for the inversion */
        size_t step = 1;
        for (; active >= min_batch && active > 0; step++) {
            F acc;
            f_set_one(acc);
            for (size_t i = 0; i < nr; i++) {
                const size_t len = run_len(i);
                if (len <= step) continue;
                xyzz<F> *sl = slot(codes[start + i]);
                acc = f_mul(acc, aff_den((const affine<F> *)sl, src, start + starts[start + i] + step));
                store16(&sl->zz, acc);
            }
            F inv = f_inv(acc);
            size_t left = 0;
            /* backward: i the current run, j the active run before it (its prefix) */
            ptrdiff_t i = (ptrdiff_t)nr - 1;
            while (i >= 0 && run_len((size_t)i) <= step) i--;
            while (i >= 0) {
                ptrdiff_t j = i - 1;
                while (j >= 0 && run_len((size_t)j) <= step) j--;
                F before;
                if (j >= 0) before = ld_slot(&slot(codes[start + (size_t)j])->zz);
                else f_set_one(before);
                const size_t len = run_len((size_t)i);
                xyzz<F> *sl = slot(codes[start + (size_t)i]);
                const affine<F> a = ld_slot((const affine<F> *)sl);
                const affine<F> p = src.point(start + starts[start + (size_t)i] + step);
                aff_step<F> st = aff_classify(a, p);
                F mine = f_mul(inv, before); /* 1/den of this run */
                inv = f_mul(inv, st.den);    /* 1/(prefix before this run) */
                store16((affine<F> *)sl, aff_finish(a, p, st, mine));
                left += len > step + 1;
                i = j;
            }
            active = left;
        }

        /* the rest in XYZZ; every sum to its final form */
        for (size_t i = 0; i < nr; i++) {
            const size_t first_e = start + starts[start + i], len = run_len(i);
            xyzz<F> *sl = slot(codes[start + i]);
            xyzz<F> acc = from_aff(ld_slot((const affine<F> *)sl));
            for (size_t e = first_e + (len < step ? len : step); e < first_e + len; e++)
                acc = add_aff(acc, src.point(e)); /* out of line: the affine steps are the hot code */
            store16(sl, acc);
        }
    }
    emit_partial_keys(t, out, slot_key, slot_used);
}

template <class F> struct acc_aff_fn {
    const uint32_t *keys;
    src_bases<F> src;
    size_t m, kper;
    sink<F> out;
    uint32_t *codes, *starts;
    unsigned min_batch;
    FPM_HD void operator()(size_t t) const
    {
        accumulate_affine_thread<F>(t, m, kper, keys, src, out, codes, starts, min_batch);
    }
};

} /* namespace msmk */

#endif
