/*
 * Private: the Jacobian/affine group law for y^2 = x^3 + b, written once and included by
 * g1.c (over Fp) and g2.c (over Fp2). The includer defines FE (field type), FE_ONE,
 * FE_ZERO, FE_B (the curve's b), the fe_* operations, and PT(name) for the prefix.
 */
#ifndef FE
#error "define the field before including curve_impl.h"
#endif

#define AFF PT(aff)
#define JAC PT(jac)

int PT(aff_is_inf)(const AFF *p) { return fe_is_zero(&p->x) && fe_is_zero(&p->y); }
int PT(jac_is_inf)(const JAC *p) { return fe_is_zero(&p->z); }

void PT(jac_set_inf)(JAC *r)
{
    r->x = FE_ONE;
    r->y = FE_ONE;
    r->z = FE_ZERO;
}

void PT(jac_from_aff)(JAC *r, const AFF *p)
{
    if (PT(aff_is_inf)(p)) {
        PT(jac_set_inf)(r);
        return;
    }
    r->x = p->x;
    r->y = p->y;
    r->z = FE_ONE;
}

void PT(jac_to_aff)(AFF *r, const JAC *p)
{
    if (PT(jac_is_inf)(p)) {
        r->x = FE_ZERO;
        r->y = FE_ZERO;
        return;
    }
    FE zi, zi2;
    fe_inv(&zi, &p->z);
    fe_sqr(&zi2, &zi);
    fe_mul(&r->x, &p->x, &zi2);
    fe_mul(&zi2, &zi2, &zi);
    fe_mul(&r->y, &p->y, &zi2);
}

/*
 * Montgomery's trick: one inversion for the whole batch. The prefix products of the z's
 * live in out[i].x until the backward pass overwrites out[i] (it moves downwards, so
 * prefix i-1 is still there when point i needs it). Points at infinity are skipped in
 * the product and come out as (0, 0). out must not overlap in.
 */
void PT(batch_to_aff)(AFF *out, const JAC *in, size_t n)
{
    if (n == 0) return;
    FE acc = FE_ONE;
    for (size_t i = 0; i < n; i++) {
        if (!PT(jac_is_inf)(&in[i])) fe_mul(&acc, &acc, &in[i].z);
        out[i].x = acc;
    }
    fe_inv(&acc, &acc); /* acc = 1 / (product of every finite z) */
    for (size_t i = n; i-- > 0;) {
        if (PT(jac_is_inf)(&in[i])) {
            out[i].x = FE_ZERO;
            out[i].y = FE_ZERO;
            continue;
        }
        FE zi, zi2;
        if (i > 0) fe_mul(&zi, &acc, &out[i - 1].x); /* 1/z_i */
        else zi = acc;
        fe_mul(&acc, &acc, &in[i].z);
        fe_sqr(&zi2, &zi);
        fe_mul(&out[i].x, &in[i].x, &zi2);
        fe_mul(&zi2, &zi2, &zi);
        fe_mul(&out[i].y, &in[i].y, &zi2);
    }
}

/* dbl-2009-l (a = 0): 2M + 5S. A point with y = 0 or z = 0 gives z3 = 0, infinity. */
void PT(jac_dbl)(JAC *r, const JAC *p)
{
    FE a, b, c, d, e, f, t;
    fe_sqr(&a, &p->x);
    fe_sqr(&b, &p->y);
    fe_sqr(&c, &b);
    fe_add(&d, &p->x, &b);
    fe_sqr(&d, &d);
    fe_sub(&d, &d, &a);
    fe_sub(&d, &d, &c);
    fe_dbl(&d, &d);
    fe_dbl(&e, &a);
    fe_add(&e, &e, &a);
    fe_sqr(&f, &e);
    fe_mul(&t, &p->y, &p->z); /* before r->y is written: r may alias p */
    fe_dbl(&r->z, &t);
    fe_sub(&r->x, &f, &d);
    fe_sub(&r->x, &r->x, &d);
    fe_sub(&t, &d, &r->x);
    fe_mul(&t, &e, &t);
    fe_dbl(&c, &c);
    fe_dbl(&c, &c);
    fe_dbl(&c, &c);
    fe_sub(&r->y, &t, &c);
}

/* add-2007-bl: 11M + 5S, with the exceptional cases (infinity, P = Q, P = -Q) handled
 * first so the sum is right for every input. */
void PT(jac_add)(JAC *r, const JAC *p, const JAC *q)
{
    if (PT(jac_is_inf)(p)) { *r = *q; return; }
    if (PT(jac_is_inf)(q)) { *r = *p; return; }
    FE z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    fe_sqr(&z1z1, &p->z);
    fe_sqr(&z2z2, &q->z);
    fe_mul(&u1, &p->x, &z2z2);
    fe_mul(&u2, &q->x, &z1z1);
    fe_mul(&s1, &p->y, &q->z);
    fe_mul(&s1, &s1, &z2z2);
    fe_mul(&s2, &q->y, &p->z);
    fe_mul(&s2, &s2, &z1z1);
    fe_sub(&h, &u2, &u1);
    fe_sub(&rr, &s2, &s1);
    if (fe_is_zero(&h)) {
        if (fe_is_zero(&rr)) PT(jac_dbl)(r, p);
        else PT(jac_set_inf)(r);
        return;
    }
    fe_dbl(&rr, &rr);
    fe_dbl(&i, &h);
    fe_sqr(&i, &i);
    fe_mul(&j, &h, &i);
    fe_mul(&v, &u1, &i);
    fe_add(&t, &p->z, &q->z);
    fe_sqr(&t, &t);
    fe_sub(&t, &t, &z1z1);
    fe_sub(&t, &t, &z2z2);
    fe_mul(&r->z, &t, &h);
    fe_sqr(&r->x, &rr);
    fe_sub(&r->x, &r->x, &j);
    fe_sub(&r->x, &r->x, &v);
    fe_sub(&r->x, &r->x, &v);
    fe_sub(&t, &v, &r->x);
    fe_mul(&t, &rr, &t);
    fe_mul(&s1, &s1, &j);
    fe_dbl(&s1, &s1);
    fe_sub(&r->y, &t, &s1);
}

/* madd-2007-bl (q has z = 1): 7M + 4S. */
void PT(jac_add_aff)(JAC *r, const JAC *p, const AFF *q)
{
    if (PT(aff_is_inf)(q)) { *r = *p; return; }
    if (PT(jac_is_inf)(p)) { PT(jac_from_aff)(r, q); return; }
    FE z1z1, u2, s2, h, hh, i, j, rr, v, t;
    fe_sqr(&z1z1, &p->z);
    fe_mul(&u2, &q->x, &z1z1);
    fe_mul(&s2, &q->y, &p->z);
    fe_mul(&s2, &s2, &z1z1);
    fe_sub(&h, &u2, &p->x);
    fe_sub(&rr, &s2, &p->y);
    if (fe_is_zero(&h)) {
        if (fe_is_zero(&rr)) PT(jac_dbl)(r, p);
        else PT(jac_set_inf)(r);
        return;
    }
    fe_dbl(&rr, &rr);
    fe_sqr(&hh, &h);
    fe_dbl(&i, &hh);
    fe_dbl(&i, &i);
    fe_mul(&j, &h, &i);
    fe_mul(&v, &p->x, &i);
    fe_add(&t, &p->z, &h);
    fe_sqr(&t, &t);
    fe_sub(&t, &t, &z1z1);
    fe_sub(&r->z, &t, &hh);
    FE y1j;
    fe_mul(&y1j, &p->y, &j); /* before r->y is written: r may alias p */
    fe_sqr(&r->x, &rr);
    fe_sub(&r->x, &r->x, &j);
    fe_sub(&r->x, &r->x, &v);
    fe_sub(&r->x, &r->x, &v);
    fe_sub(&t, &v, &r->x);
    fe_mul(&t, &rr, &t);
    fe_dbl(&y1j, &y1j);
    fe_sub(&r->y, &t, &y1j);
}

void PT(jac_neg)(JAC *r, const JAC *p)
{
    r->x = p->x;
    fe_neg(&r->y, &p->y);
    r->z = p->z;
}

void PT(aff_neg)(AFF *r, const AFF *p)
{
    r->x = p->x;
    fe_neg(&r->y, &p->y); /* -0 = 0 keeps infinity as (0, 0) */
}

/* k·P for a 256-bit k given as 4 little-endian limbs: a fixed 4-bit window, left to right
 * (64 additions and 252 doublings). Not constant time; callers mind secret scalars. */
static void PT(jac_mul_limbs)(JAC *r, const JAC *p, const uint64_t k[4])
{
    JAC table[16], acc;
    PT(jac_set_inf)(&table[0]);
    table[1] = *p;
    for (int i = 2; i < 16; i++) {
        if (i % 2 == 0) PT(jac_dbl)(&table[i], &table[i / 2]);
        else PT(jac_add)(&table[i], &table[i - 1], p);
    }
    PT(jac_set_inf)(&acc);
    for (int i = 3; i >= 0; i--)
        for (int s = 60; s >= 0; s -= 4) {
            if (!PT(jac_is_inf)(&acc)) /* nothing to double before the first set window */
                for (int d = 0; d < 4; d++) PT(jac_dbl)(&acc, &acc);
            unsigned w = (unsigned)(k[i] >> s) & 15;
            if (w) PT(jac_add)(&acc, &acc, &table[w]);
        }
    *r = acc;
}

/* k·P for a 64-bit k by plain double-and-add: for the sparse BLS parameter |x| (six set
 * bits) this is 63 doublings and 5 additions, cheaper than any window. */
static void PT(jac_mul_u64)(JAC *r, const JAC *p, uint64_t k)
{
    JAC acc;
    PT(jac_set_inf)(&acc);
    for (int b = 63; b >= 0; b--) {
        if (!PT(jac_is_inf)(&acc)) PT(jac_dbl)(&acc, &acc);
        if ((k >> b) & 1) PT(jac_add)(&acc, &acc, p);
    }
    *r = acc;
}

void PT(jac_mul)(JAC *r, const JAC *p, const fr_t *canonical_scalar)
{
    PT(jac_mul_limbs)(r, p, canonical_scalar->l);
}

/* Cross-multiplied comparison: X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3. */
int PT(jac_eq)(const JAC *a, const JAC *b)
{
    int ia = PT(jac_is_inf)(a), ib = PT(jac_is_inf)(b);
    if (ia || ib) return ia && ib;
    FE z1z1, z2z2, l, rt;
    fe_sqr(&z1z1, &a->z);
    fe_sqr(&z2z2, &b->z);
    fe_mul(&l, &a->x, &z2z2);
    fe_mul(&rt, &b->x, &z1z1);
    if (!fe_eq(&l, &rt)) return 0;
    fe_mul(&z1z1, &z1z1, &a->z);
    fe_mul(&z2z2, &z2z2, &b->z);
    fe_mul(&l, &a->y, &z2z2);
    fe_mul(&rt, &b->y, &z1z1);
    return fe_eq(&l, &rt);
}

int PT(aff_is_on_curve)(const AFF *p)
{
    if (PT(aff_is_inf)(p)) return 1;
    FE l, rt;
    fe_sqr(&l, &p->y);
    fe_sqr(&rt, &p->x);
    fe_mul(&rt, &rt, &p->x);
    fe_add(&rt, &rt, &FE_B);
    return fe_eq(&l, &rt);
}

/* The reference subgroup test r·P = O (the faster checks in g1.c/g2.c are tested
 * against it). Assumes P is on the curve. */
int PT(aff_in_subgroup_slow)(const AFF *p)
{
    if (PT(aff_is_inf)(p)) return 1;
    JAC j, t;
    PT(jac_from_aff)(&j, p);
    PT(jac_mul_limbs)(&t, &j, FR_MODULUS);
    return PT(jac_is_inf)(&t);
}

#undef AFF
#undef JAC
