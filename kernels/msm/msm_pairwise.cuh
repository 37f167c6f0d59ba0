/*
 * Level 0 of the bucket accumulation as pairwise rounds over the sorted entries (MSM_ACC_PAIRWISE).
 *
 * After the radix sort a bucket's entries are consecutive. A thread owns a range of them, as in
 * accumulate_thread. Round 1: every run of L entries becomes floor(L/2) pair sums (entries 2j
 * and 2j + 1 of the run, added in affine coordinates) plus, when L is odd, its last entry,
 * which stays where it is (in the bases, through its sorted value) until the end. Round r >= 2
 * halves each run's sums again, in place. All the additions of one round of one thread share
 * one inversion (Montgomery's trick): a forward pass multiplies the denominators and stores the
 * prefix products, one inversion (field/inv_bingcd.cuh), a backward pass peels each pair's
 * inverse off. Per addition: 3 products for the sum (lambda, lambda^2, lambda·(x1 - x3)) and 3
 * for the trick (prefix, two to peel), against 10 for a mixed XYZZ addition, plus the
 * inversion's share. Rounds go on while the thread has at least min_pairs pairs (and at most
 * max_rounds); then each run's few remaining points are summed in XYZZ and emitted exactly as
 * accumulate_thread does (buckets, or the partials slots of runs that continue in a
 * neighbour), so the later levels are unchanged.
 *
 * Unlike msm_affine.cuh, no state is revisited through the buckets: a round streams its inputs
 * and writes half as many outputs. Scratch (pts, pre), with T level-0 threads of K entries:
 * T·ceil(K/2) affine points (round 1's sums; later rounds work in place, a run's j-th sum after
 * round r at its base + j·2^(r-1)) and T·ceil(K/4) field elements (later rounds' prefix
 * products; round 1 keeps its prefixes in its own output slots). Local slot q of thread t is at
 * q·T + t, so a warp's threads at the same pair ordinal touch neighbouring points. The run
 * table (bucket slot code, first entry) lives in the two sort buffers the radix sort left free.
 *
 * Every addition is complete (aff_classify): infinity on either side, P + P (the tangent) and
 * P + (-P), in any mix inside one batch.
 */
#ifndef CUZK_MSM_PAIRWISE_CUH
#define CUZK_MSM_PAIRWISE_CUH

#include "msm/msm_affine.cuh"

namespace msmk {

/* Points a run of L entries has before round r + 1 (after r rounds), not counting the odd
 * entry that round 1 leaves in the bases. */
FPM_HD size_t pair_count(size_t L, unsigned r)
{
    if (r == 0) return L;
    const size_t s = L / 2, step = (size_t)1 << (r - 1);
    return (s + step - 1) >> (r - 1);
}

/* MSM_PAIR_LEAN_G2 (G1: MSM_PAIR_LEAN_G1) = 1: the rounds' additions in a register-lean form.
 * The plain form loads both points of a pair and holds them, with the classification's
 * numerator and denominator, across the sum's products: for G2 that is 6 Fp2 values (144
 * registers) besides the inverse and the loop's state, and ptxas spills at 255 registers. The
 * lean form holds a pair as two addresses (pair_ref) and reads each coordinate where it is
 * needed, again for every use (a read that hits L1 costs less than a spill and its reload);
 * the common case (distinct, finite x) holds at most 3 Fp2 values across a product, and the
 * rare cases (an x of zero, equal x) take the full classification out of line. ptxas, sm_90,
 * G2: plain 255 registers, 364 bytes of spill stores; lean 252, none. Capped at 168 (6 blocks
 * of 64): plain 816 bytes, lean 416; at 128 (8 blocks) lean 620. On the H200, G2 2^24: plain
 * 370.1 ms, lean 359.1 (scalars on the device: 359.9, 348.4); lean at 168 registers 381.8
 * (372.1), at 128 (373.8): the spills cost more than the warps gain. G1 keeps the plain form
 * (lean: 12 bytes of spill instead of 20 at its 168, and G1 2^24 128.4 ms against 128.3).
 * bench/msm_variants.sh builds such variants to time (bench/RESULTS.md, session 16). */
#ifndef MSM_PAIR_LEAN_G1
#define MSM_PAIR_LEAN_G1 0
#endif
#ifndef MSM_PAIR_LEAN_G2
#define MSM_PAIR_LEAN_G2 1
#endif
template <class F> constexpr bool pair_lean() { return sizeof(F) == sizeof(fp) ? MSM_PAIR_LEAN_G1 : MSM_PAIR_LEAN_G2; }

/* One point of a pair where it lies: a base (read-only, through its entry's sign) in round 1,
 * a scratch slot (written by this thread, read coherently) after. */
template <class F> struct pair_ref {
    const affine<F> *p;
    bool base, neg;
    FPM_HD F x() const { return base ? load16(&p->x) : ld_slot(&p->x); }
    FPM_HD F y() const
    {
        const F y = base ? load16(&p->y) : ld_slot(&p->y);
        return neg ? f_neg(y) : y;
    }
    FPM_HD affine<F> point() const { return affine<F>{x(), y()}; }
};

/* The rare cases of a pair, out of line so that their full points take no registers from the
 * common case: the denominator, and the sum to out given 1/den (returning den). */
template <class F> FPM_HD_CALL F pair_den_rare(const affine<F> &a, const affine<F> &b) { return aff_classify(a, b).den; }
template <class F> FPM_HD_CALL F pair_add_rare(const affine<F> &a, const affine<F> &b, const F &mine, affine<F> *out)
{
    const aff_step<F> st = aff_classify(a, b);
    store16(out, aff_finish(a, b, st, mine));
    return st.den;
}

/* The forward pass's denominator of a + b. */
template <class F> FPM_HD F pair_den(const pair_ref<F> &a, const pair_ref<F> &b)
{
    const F ax = a.x(), bx = b.x();
    F den = f_sub(bx, ax);
    if (f_is_zero(ax) || f_is_zero(bx) || f_is_zero(den)) den = pair_den_rare(a.point(), b.point());
    return den;
}

/* The backward pass's step for a + b: inv = 1/(the prefix product through this pair) on entry,
 * 1/(the one before it) on return; before: that prefix (nullptr: none, 1). The sum goes to out,
 * which may be a's slot: it is written after the last read. */
template <class F> FPM_HD void pair_add(const pair_ref<F> &a, const pair_ref<F> &b, const F *before, F &inv,
                                        affine<F> *out)
{
    const F mine = before ? f_mul(inv, ld_slot(before)) : inv; /* 1/den of this pair */
    F den;
    {
        const F ax = a.x(), bx = b.x();
        den = f_sub(bx, ax);
        if (f_is_zero(ax) || f_is_zero(bx) || f_is_zero(den)) {
            inv = f_mul(inv, pair_add_rare(a.point(), b.point(), mine, out));
            return;
        }
    }
    inv = f_mul(inv, den);
    const F l = f_mul(f_sub(b.y(), a.y()), mine);
    affine<F> r;
    r.x = f_sub(f_sub(f_sqr(l), a.x()), b.x());
    r.y = f_sub(f_mul(l, f_sub(a.x(), r.x)), a.y());
    store16(out, r);
}

template <class F> struct pair_scratch {
    affine<F> *pts; /* T·qpts local slots */
    F *pre;         /* T·qpre local slots */
    size_t T;       /* level-0 threads */
};

template <class F>
FPM_HD void accumulate_pairwise_thread(size_t t, size_t m, size_t kper, const uint32_t *keys, const src_bases<F> &src,
                                       const sink<F> &out, uint32_t *codes, uint32_t *starts,
                                       const pair_scratch<F> &sc, unsigned min_pairs, unsigned max_rounds)
{
    const size_t start = t * kper, end = start + kper < m ? start + kper : m, T = sc.T;
    uint32_t slot_key[2] = {MSM_KEY_SKIP, MSM_KEY_SKIP};
    bool slot_used[2] = {false, false};
    if (start < m && keys[start] != MSM_KEY_SKIP) {
        /* pass 0: the run table (slot code, first entry) and round 1's pairs */
        size_t npairs = 0, run_end;
        const size_t nr = run_table(start, end, m, keys, codes, starts, slot_key, slot_used, &run_end,
                                    [&](uint32_t, size_t s, size_t e) { npairs += (e - s) / 2; });
        auto first_of = [&](size_t i) -> size_t { return start + starts[start + i]; };
        auto run_len = [&](size_t i) -> size_t {
            return (i + 1 < nr ? start + starts[start + i + 1] : run_end) - first_of(i);
        };
        auto slot = [&](size_t q) -> affine<F> * { return sc.pts + q * T + t; };
        unsigned r = 0; /* rounds done */
        /* point j of run i (first entry e0, scratch base sb) after r rounds */
        auto point = [&](size_t e0, size_t sb, size_t j) -> affine<F> {
            return r == 0 ? src.point(e0 + j) : ld_slot(slot(sb + (j << (r - 1))));
        };
        auto ref = [&](size_t e0, size_t sb, size_t j) -> pair_ref<F> {
            if (r > 0) return pair_ref<F>{slot(sb + (j << (r - 1))), false, false};
            const uint32_t v = src.vals[e0 + j];
            return pair_ref<F>{src.at(v & ~MSM_NEG_BIT), true, (v & MSM_NEG_BIT) != 0};
        };
        auto prefix = [&](size_t p) -> F * { return r == 0 ? &slot(p)->x : sc.pre + p * T + t; };

        /* The pair loops are flat (one iteration per pair, a cursor over the runs) rather than
         * nested per run: a warp's threads then run the pair arithmetic in step, however their
         * runs' lengths differ, and touch neighbouring slots at the same pair ordinal. */
        const size_t s1 = npairs; /* round 1's sums: sum of floor(L/2) */
        for (; npairs > 0 && npairs >= min_pairs && (!max_rounds || r < max_rounds); r++) {
            /* forward: the denominators' prefix products; cursor: run i (length L, first entry
             * e0, scratch base sb, np pairs), pair j in it */
            F acc;
            f_set_one(acc);
            size_t i = 0, L = run_len(0), e0 = first_of(0), np = pair_count(L, r) / 2, sb = 0, j = 0;
            for (size_t p = 0; p < npairs; p++, j++) {
                while (j >= np) {
                    sb += L / 2;
                    i++;
                    L = run_len(i);
                    e0 = first_of(i);
                    np = pair_count(L, r) / 2;
                    j = 0;
                }
                F den;
                if constexpr (pair_lean<F>()) {
                    den = pair_den(ref(e0, sb, 2 * j), ref(e0, sb, 2 * j + 1));
                } else {
                    F ax, px;
                    if (r == 0) {
                        ax = load16(&src.at(src.vals[e0 + 2 * j] & ~MSM_NEG_BIT)->x);
                        px = load16(&src.at(src.vals[e0 + 2 * j + 1] & ~MSM_NEG_BIT)->x);
                    } else {
                        ax = ld_slot(&slot(sb + ((2 * j) << (r - 1)))->x);
                        px = ld_slot(&slot(sb + ((2 * j + 1) << (r - 1)))->x);
                    }
                    /* the x-coordinates decide the common case; the full classification when
                     * an x is 0 (possibly infinity) or the two are equal */
                    den = f_sub(px, ax);
                    if (f_is_zero(px) || f_is_zero(ax) || f_is_zero(den))
                        den = aff_classify(point(e0, sb, 2 * j), point(e0, sb, 2 * j + 1)).den;
                }
                acc = f_mul(acc, den);
                store16(prefix(p), acc);
            }
            F inv = f_inv(acc);
            /* backward: each pair's inverse off the prefixes; its sum to round 1's compact slot,
             * or in place of its first point */
            i = nr - 1;
            L = run_len(i);
            e0 = first_of(i);
            j = pair_count(L, r) / 2;
            sb = s1 - L / 2;
            for (size_t p = npairs; p-- > 0;) {
                while (j == 0) {
                    i--;
                    L = run_len(i);
                    e0 = first_of(i);
                    j = pair_count(L, r) / 2;
                    sb -= L / 2;
                }
                j--;
                affine<F> *const o = slot(r == 0 ? sb + j : sb + (j << r));
                if constexpr (pair_lean<F>()) {
                    pair_add(ref(e0, sb, 2 * j), ref(e0, sb, 2 * j + 1), p > 0 ? prefix(p - 1) : nullptr, inv, o);
                } else {
                    F before;
                    if (p > 0) before = ld_slot(prefix(p - 1));
                    else f_set_one(before);
                    const affine<F> a = point(e0, sb, 2 * j), b = point(e0, sb, 2 * j + 1);
                    const aff_step<F> st = aff_classify(a, b);
                    const F mine = f_mul(inv, before); /* 1/den of this pair */
                    inv = f_mul(inv, st.den);          /* 1/(prefix before this pair) */
                    store16(o, aff_finish(a, b, st, mine));
                }
            }
            /* the next round's pairs */
            npairs = 0;
            for (size_t i = 0; i < nr; i++) npairs += pair_count(run_len(i), r + 1) / 2;
        }

        /* each run's remaining points (and round 1's odd entry) in XYZZ, to its slot */
        size_t sb = 0;
        for (size_t i = 0; i < nr; i++) {
            const size_t L = run_len(i), e0 = first_of(i), n = pair_count(L, r);
            xyzz<F> acc;
            set_inf(acc);
            if (n) acc = from_aff(point(e0, sb, 0));
            for (size_t j = 1; j < n; j++) acc = add_aff(acc, point(e0, sb, j));
            if (r > 0 && (L & 1)) acc = add_aff(acc, src.point(e0 + L - 1));
            const uint32_t code = codes[start + i];
            store16((code & MSM_AFF_PART) ? out.out_pts + 2 * t + (code & 1) : out.buckets + code, acc);
            sb += L / 2;
        }
    }
    emit_partial_keys(t, out, slot_key, slot_used);
}

/* Resident blocks asked of the compiler for the pairwise level 0 (1 = no register cap). The
 * rounds wait on random reads of bases and scratch, so resident warps are what hides them:
 * uncapped, G1 takes 180 registers, 2 blocks of 128 (8 warps an SM; ncu on the H200: issue
 * slots 26 % busy, a warp eligible 28 % of cycles); 3 blocks cap it at 168 (20 bytes of spill)
 * and ran G1 2^24 in 118.2 ms instead of 133.5 (scalars on the device), 2^26 484.5 instead of
 * 511.1; 4 blocks (128 registers, 288 bytes of spill) 128.3. G2's plain form spilled at 255
 * registers, and capped at 168 (5 or 6 blocks of 64) ran G2 2^24 in 406.8 ms instead of 372.3;
 * its lean form (MSM_PAIR_LEAN_G2) does not spill uncapped, and capped still loses. Asking
 * L2 for round 1's bases 8 or 16 entries ahead (prefetch.global.L2) lost 11 % instead. */
#ifndef MSM_PAIR_MINB_G1
#define MSM_PAIR_MINB_G1 3
#endif
#ifndef MSM_PAIR_MINB_G2
#define MSM_PAIR_MINB_G2 1
#endif
template <class F> struct acc_pair_fn {
    static constexpr unsigned min_blocks = sizeof(F) == sizeof(fp) ? MSM_PAIR_MINB_G1 : MSM_PAIR_MINB_G2;
    const uint32_t *keys;
    src_bases<F> src;
    size_t m, kper;
    sink<F> out;
    uint32_t *codes, *starts;
    pair_scratch<F> sc;
    unsigned min_pairs, max_rounds;
    FPM_HD void operator()(size_t t) const
    {
        accumulate_pairwise_thread<F>(t, m, kper, keys, src, out, codes, starts, sc, min_pairs, max_rounds);
    }
};

/* Scratch slots per thread of kper entries: round 1's sums, later rounds' prefix products. */
static inline size_t pair_qpts(size_t kper) { return (kper + 1) / 2; }
static inline size_t pair_qpre(size_t kper) { return (kper + 3) / 4; }

} /* namespace msmk */

#endif
