/*
 * Device point arithmetic for BLS12-381 G1 (F = fpm::fp) and G2 (F = fpm::fp2), one template:
 * affine points as lib/field/curve.h lays them out (all-zero = infinity) and XYZZ buckets
 * (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity: ZZ = 0). Both curves have a = 0, so the
 * formulas (EFD "madd-2008-s", "add-2008-s", "dbl-2008-s-1", "mdbl-2008-s-1") are shared.
 * Every function is complete: infinity, P + P and P + (-P) are handled.
 */
#ifndef CUZK_CURVE_XYZZ_CUH
#define CUZK_CURVE_XYZZ_CUH

#include "field/fp_msm.cuh"

namespace curve {

using namespace fpm;

template <class F> struct affine {
    F x, y;
};

template <class F> struct xyzz {
    F x, y, zz, zzz;
};

template <class F> struct jacobian {
    F x, y, z;
};

template <class F> FPM_HD bool aff_is_inf(const affine<F> &p) { return f_is_zero(p.x) && f_is_zero(p.y); }
template <class F> FPM_HD bool is_inf(const xyzz<F> &p) { return f_is_zero(p.zz); }

template <class F> FPM_HD void set_inf(xyzz<F> &p)
{
    f_set_zero(p.x);
    f_set_zero(p.y);
    f_set_zero(p.zz);
    f_set_zero(p.zzz);
}

template <class F> FPM_HD xyzz<F> from_aff(const affine<F> &a)
{
    xyzz<F> r;
    if (aff_is_inf(a)) {
        set_inf(r);
        return r;
    }
    r.x = a.x;
    r.y = a.y;
    f_set_one(r.zz);
    f_set_one(r.zzz);
    return r;
}

template <class F> FPM_HD affine<F> aff_neg(const affine<F> &a) { return affine<F>{a.x, f_neg(a.y)}; }
template <class F> FPM_HD xyzz<F> neg(const xyzz<F> &a) { return xyzz<F>{a.x, f_neg(a.y), a.zz, a.zzz}; }

/* 2·(x, y) for an affine point (not infinity): mdbl-2008-s-1. */
template <class F> FPM_HD_CALL xyzz<F> dbl_aff(const affine<F> &a)
{
    xyzz<F> r;
    if (f_is_zero(a.y)) { /* a point of order 2 (none in G1/G2, but stay complete) */
        set_inf(r);
        return r;
    }
    F u = f_dbl(a.y);
    F v = f_sqr(u);
    F w = f_mul(u, v);
    F s = f_mul(a.x, v);
    F xx = f_sqr(a.x);
    F m = f_add(f_dbl(xx), xx);
    F x3 = f_sub(f_sub(f_sqr(m), s), s);
    r.y = f_sub(f_mul(m, f_sub(s, x3)), f_mul(w, a.y));
    r.x = x3;
    r.zz = v;
    r.zzz = w;
    return r;
}

/* 2·p: dbl-2008-s-1. */
template <class F> FPM_HD_CALL xyzz<F> dbl(const xyzz<F> &p)
{
    xyzz<F> r;
    if (is_inf(p) || f_is_zero(p.y)) {
        set_inf(r);
        return r;
    }
    F u = f_dbl(p.y);
    F v = f_sqr(u);
    F w = f_mul(u, v);
    F s = f_mul(p.x, v);
    F xx = f_sqr(p.x);
    F m = f_add(f_dbl(xx), xx);
    F x3 = f_sub(f_sub(f_sqr(m), s), s);
    r.y = f_sub(f_mul(m, f_sub(s, x3)), f_mul(w, p.y));
    r.x = x3;
    r.zz = f_mul(v, p.zz);
    r.zzz = f_mul(w, p.zzz);
    return r;
}

/* p + q, q affine (may be infinity): madd-2008-s, 8M + 2S in the common case. The body is
 * inlined where it is the hot loop (G1 bucket accumulation); add_aff is the out-of-line copy. */
template <class F> FPM_HD xyzz<F> add_aff_inline(const xyzz<F> &p, const affine<F> &q)
{
    if (aff_is_inf(q)) return p;
    if (is_inf(p)) return from_aff(q);
    F u2 = f_mul(q.x, p.zz);
    F s2 = f_mul(q.y, p.zzz);
    F pp_ = f_sub(u2, p.x);
    F rr = f_sub(s2, p.y);
    if (f_is_zero(pp_)) {
        if (f_is_zero(rr)) return dbl_aff(q);
        xyzz<F> r;
        set_inf(r);
        return r;
    }
    F pp = f_sqr(pp_);
    F ppp = f_mul(pp_, pp);
    F qq = f_mul(p.x, pp);
    xyzz<F> r;
    r.x = f_sub(f_sub(f_sqr(rr), ppp), f_dbl(qq));
    r.y = f_sub(f_mul(rr, f_sub(qq, r.x)), f_mul(p.y, ppp));
    r.zz = f_mul(p.zz, pp);
    r.zzz = f_mul(p.zzz, ppp);
    return r;
}

template <class F> FPM_HD_CALL xyzz<F> add_aff(const xyzz<F> &p, const affine<F> &q) { return add_aff_inline(p, q); }

/* p + q: add-2008-s, 12M + 2S in the common case. */
template <class F> FPM_HD_CALL xyzz<F> add(const xyzz<F> &p, const xyzz<F> &q)
{
    if (is_inf(q)) return p;
    if (is_inf(p)) return q;
    F u1 = f_mul(p.x, q.zz);
    F u2 = f_mul(q.x, p.zz);
    F s1 = f_mul(p.y, q.zzz);
    F s2 = f_mul(q.y, p.zzz);
    F pp_ = f_sub(u2, u1);
    F rr = f_sub(s2, s1);
    if (f_is_zero(pp_)) {
        if (f_is_zero(rr)) return dbl(p);
        xyzz<F> r;
        set_inf(r);
        return r;
    }
    F pp = f_sqr(pp_);
    F ppp = f_mul(pp_, pp);
    F qq = f_mul(u1, pp);
    xyzz<F> r;
    r.x = f_sub(f_sub(f_sqr(rr), ppp), f_dbl(qq));
    r.y = f_sub(f_mul(rr, f_sub(qq, r.x)), f_mul(s1, ppp));
    r.zz = f_mul(f_mul(p.zz, q.zz), pp);
    r.zzz = f_mul(f_mul(p.zzz, q.zzz), ppp);
    return r;
}

/* k·p for a small non-negative k (bucket-reduction weights), double and add from the top. */
template <class F> FPM_HD_CALL xyzz<F> mul_u32(const xyzz<F> &p, uint32_t k)
{
    xyzz<F> r;
    set_inf(r);
    for (int bit = 31; bit >= 0; bit--) {
        if (!is_inf(r)) r = dbl(r);
        if ((k >> bit) & 1) r = add(r, p);
    }
    return r;
}

/*
 * In-place forms of dbl, add and mul_u32, for kernels whose stack frame matters (G2's level-1
 * bucket reduction). On the device every XYZZ point an out-of-line call reads or returns
 * lives in the caller's stack frame (384 bytes for G2), and `p = add(p, q)` needs a slot for
 * the result besides p: these write over their first operand instead. The formulas are the
 * ones above; each coordinate of p is overwritten only after its last read.
 */
template <class F> FPM_HD_CALL void dbl_into(xyzz<F> &p)
{
    if (is_inf(p) || f_is_zero(p.y)) {
        set_inf(p);
        return;
    }
    F u = f_dbl(p.y);
    F v = f_sqr(u);
    F w = f_mul(u, v);
    F s = f_mul(p.x, v);
    F xx = f_sqr(p.x);
    F m = f_add(f_dbl(xx), xx);
    p.x = f_sub(f_sub(f_sqr(m), s), s);
    p.y = f_sub(f_mul(m, f_sub(s, p.x)), f_mul(w, p.y));
    p.zz = f_mul(v, p.zz);
    p.zzz = f_mul(w, p.zzz);
}

/* p += q. */
template <class F> FPM_HD_CALL void add_into(xyzz<F> &p, const xyzz<F> &q)
{
    if (is_inf(q)) return;
    if (is_inf(p)) {
        p = q;
        return;
    }
    F u1 = f_mul(p.x, q.zz);
    F u2 = f_mul(q.x, p.zz);
    F s1 = f_mul(p.y, q.zzz);
    F s2 = f_mul(q.y, p.zzz);
    F pp_ = f_sub(u2, u1);
    F rr = f_sub(s2, s1);
    if (f_is_zero(pp_)) {
        if (f_is_zero(rr)) dbl_into(p);
        else set_inf(p);
        return;
    }
    F pp = f_sqr(pp_);
    F ppp = f_mul(pp_, pp);
    F qq = f_mul(u1, pp);
    p.x = f_sub(f_sub(f_sqr(rr), ppp), f_dbl(qq));
    p.y = f_sub(f_mul(rr, f_sub(qq, p.x)), f_mul(s1, ppp));
    p.zz = f_mul(f_mul(p.zz, q.zz), pp);
    p.zzz = f_mul(f_mul(p.zzz, q.zzz), ppp);
}

/* r = k·p (r and p distinct). */
template <class F> FPM_HD_CALL void mul_u32_into(xyzz<F> &r, const xyzz<F> &p, uint32_t k)
{
    set_inf(r);
    for (int bit = 31; bit >= 0; bit--) {
        if (!is_inf(r)) dbl_into(r);
        if ((k >> bit) & 1) add_into(r, p);
    }
}

/* Jacobian (X/Z^2, Y/Z^3) without an inversion: Z = ZZ·ZZZ, X = x·Z^2, Y = y·Z^3. */
template <class F> FPM_HD_CALL jacobian<F> to_jacobian(const xyzz<F> &p)
{
    jacobian<F> r;
    if (is_inf(p)) {
        f_set_zero(r.x);
        f_set_zero(r.y);
        f_set_zero(r.z);
        return r;
    }
    F zzz2 = f_sqr(p.zzz);
    r.z = f_mul(p.zz, p.zzz);
    r.x = f_mul(f_mul(p.x, p.zz), zzz2);
    r.y = f_mul(f_mul(p.y, zzz2), f_mul(f_sqr(p.zz), p.zz));
    return r;
}

/* Affine with one inversion (infinity -> all zero). */
template <class F> FPM_HD_CALL affine<F> to_affine(const xyzz<F> &p)
{
    affine<F> r;
    if (is_inf(p)) {
        f_set_zero(r.x);
        f_set_zero(r.y);
        return r;
    }
    F t = f_inv(f_mul(p.zz, p.zzz)); /* 1/(ZZ·ZZZ) */
    r.x = f_mul(p.x, f_mul(t, p.zzz));
    r.y = f_mul(p.y, f_mul(t, p.zz));
    return r;
}

} /* namespace curve */

#endif
