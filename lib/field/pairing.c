/*
 * The optimal ate pairing on BLS12-381: a Miller loop over |x| with Q kept in homogeneous
 * projective coordinates on the twist (no inversions) and sparse line products, then the
 * final exponentiation. Values agree with blst, zkcrypto and noble (see pairing_final_exp).
 */
#include "pairing.h"
#include "tower.h"

/* |x| for the curve parameter x = -0xd201000000010000; its sign is a final conjugation. */
#define BLS_X_ABS 0xd201000000010000ull
/* Pairs whose lines share one accumulator per pass; bounded so the state fits the stack. */
#define MILLER_CHUNK 8

typedef struct { fp2_t x, y, z; } g2_proj;  /* (X/Z, Y/Z) on y^2 = x^3 + 4(u + 1) */

/* One pair's Miller-loop state: the running multiple T of Q and P's coordinates as the
 * lines use them. */
typedef struct {
    g2_proj t;
    g2_aff q;
    fp_t yp, neg_xp, neg_3xp;
} miller_pair;

/* r = 12·a (3·b' with b' = 4ξ needs the 12; additions beat a product). */
static void fp2_mul12(fp2_t *r, const fp2_t *a)
{
    fp2_t t;
    tw_fp2_dbl(&t, a);
    tw_fp2_dbl(&t, &t);      /* 4a */
    tw_fp2_dbl(r, &t);       /* 8a */
    tw_fp2_add(r, r, &t);
}

/*
 * T = 2T and the tangent line at T evaluated at P, untwisted and scaled by w^3·2YZ (both
 * factors die in the final exponentiation): l = (Y^2 - 3b'Z^2) - 3X^2 xP·v + 2YZ yP·vw.
 * Doubling as Costello-Lange-Naehrig / Aranha et al. (a = 0), scaled by 4 to avoid halving.
 */
static void miller_dbl(fp12_t *f, miller_pair *s)
{
    g2_proj *t = &s->t;
    fp2_t xy, b, c, e, f3, h, xx, l0, l1, l4, u;

    tw_fp2_mul(&xy, &t->x, &t->y);
    tw_fp2_sqr(&b, &t->y);
    tw_fp2_sqr(&c, &t->z);
    tw_fp2_nr(&e, &c);
    fp2_mul12(&e, &e);                /* E = 3b'Z^2 */
    tw_fp2_dbl(&f3, &e);
    tw_fp2_add(&f3, &f3, &e);            /* F = 3E */
    tw_fp2_add(&h, &t->y, &t->z);
    tw_fp2_sqr(&h, &h);
    tw_fp2_sub(&h, &h, &b);
    tw_fp2_sub(&h, &h, &c);              /* H = 2YZ */
    tw_fp2_sqr(&xx, &t->x);

    tw_fp2_sub(&l0, &b, &e);
    tw_fp2_mul_fp(&l1, &xx, &s->neg_3xp);
    tw_fp2_mul_fp(&l4, &h, &s->yp);

    tw_fp2_sub(&u, &b, &f3);
    tw_fp2_mul(&t->x, &xy, &u);
    tw_fp2_dbl(&t->x, &t->x);            /* X3 = 2XY(B - F) */
    tw_fp2_sqr(&e, &e);
    fp2_mul12(&e, &e);
    tw_fp2_add(&u, &b, &f3);
    tw_fp2_sqr(&u, &u);
    tw_fp2_sub(&t->y, &u, &e);           /* Y3 = (B + F)^2 - 12E^2 */
    tw_fp2_mul(&t->z, &b, &h);
    tw_fp2_dbl(&t->z, &t->z);
    tw_fp2_dbl(&t->z, &t->z);            /* Z3 = 4BH */

    fp12_mul_by_014(f, f, &l0, &l1, &l4);
}

/*
 * T = T + Q (mixed) and the line through T and Q at P, scaled by w^3·λ:
 * l = (θ xQ - λ yQ) - θ xP·v + λ yP·vw with θ = Y - yQ Z, λ = X - xQ Z.
 * T = ±Q never happens: T runs through k·Q for 1 < k < |x| < r.
 */
static void miller_add(fp12_t *f, miller_pair *s)
{
    g2_proj *t = &s->t;
    const g2_aff *q = &s->q;
    fp2_t th, la, c, d, e, ff, g, h, l0, l1, l4, u;

    tw_fp2_mul(&th, &q->y, &t->z);
    tw_fp2_sub(&th, &t->y, &th);
    tw_fp2_mul(&la, &q->x, &t->z);
    tw_fp2_sub(&la, &t->x, &la);
    tw_fp2_sqr(&c, &th);
    tw_fp2_sqr(&d, &la);
    tw_fp2_mul(&e, &d, &la);
    tw_fp2_mul(&ff, &t->z, &c);
    tw_fp2_mul(&g, &t->x, &d);
    tw_fp2_add(&h, &e, &ff);
    tw_fp2_sub(&h, &h, &g);
    tw_fp2_sub(&h, &h, &g);              /* H = E + F - 2G */

    tw_fp2_mul(&l0, &th, &q->x);
    tw_fp2_mul(&u, &la, &q->y);
    tw_fp2_sub(&l0, &l0, &u);
    tw_fp2_mul_fp(&l1, &th, &s->neg_xp);
    tw_fp2_mul_fp(&l4, &la, &s->yp);

    tw_fp2_mul(&t->x, &la, &h);
    tw_fp2_sub(&u, &g, &h);
    tw_fp2_mul(&u, &th, &u);
    tw_fp2_mul(&g, &t->y, &e);
    tw_fp2_sub(&t->y, &u, &g);
    tw_fp2_mul(&t->z, &t->z, &e);

    fp12_mul_by_014(f, f, &l0, &l1, &l4);
}

/* Infinity is x = y = 0 in affine form (curve.h). */
static int g1_is_zero(const g1_aff *p) { return fp_is_zero(&p->x) && fp_is_zero(&p->y); }
static int g2_is_zero(const g2_aff *q) { return fp2_is_zero(&q->x) && fp2_is_zero(&q->y); }

/* f = prod f_{x,Q_i}(P_i) for up to MILLER_CHUNK pairs, one squaring of f per bit. */
static void miller_chunk(fp12_t *f, const g1_aff *p, const g2_aff *q, size_t n)
{
    miller_pair s[MILLER_CHUNK];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (g1_is_zero(&p[i]) || g2_is_zero(&q[i])) continue;   /* infinity contributes 1 */
        s[m].q = q[i];
        s[m].t.x = q[i].x;
        s[m].t.y = q[i].y;
        s[m].t.z = FP2_ONE;
        s[m].yp = p[i].y;
        fp_neg(&s[m].neg_xp, &p[i].x);
        fp_dbl(&s[m].neg_3xp, &s[m].neg_xp);
        fp_add(&s[m].neg_3xp, &s[m].neg_3xp, &s[m].neg_xp);
        m++;
    }
    fp12_one(f);
    if (!m) return;
    for (int bit = 62; bit >= 0; bit--) {
        if (bit != 62) fp12_sqr(f, f);   /* f = 1 before the first step */
        for (size_t i = 0; i < m; i++) miller_dbl(f, &s[i]);
        if ((BLS_X_ABS >> bit) & 1)
            for (size_t i = 0; i < m; i++) miller_add(f, &s[i]);
    }
    fp12_conj(f, f);   /* x < 0: f_{-|x|} = 1/f_{|x|} up to factors the exponentiation kills */
}

void pairing_miller_loop(fp12_t *r, const g1_aff *p, const g2_aff *q)
{
    miller_chunk(r, p, q, 1);
}

/* a^x for a in the cyclotomic subgroup, where the inverse is the conjugate. */
static void cyclotomic_exp_x(fp12_t *r, const fp12_t *a)
{
    fp12_t t = *a;
    for (int bit = 62; bit >= 0; bit--) {
        fp12_cyclotomic_sqr(&t, &t);
        if ((BLS_X_ABS >> bit) & 1) fp12_mul(&t, &t, a);
    }
    fp12_conj(r, &t);
}

/*
 * f^(3(p^12 - 1)/r). The easy part f^((p^6 - 1)(p^2 + 1)) lands in the cyclotomic subgroup;
 * the hard part uses 3(p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3
 * (Hayashida-Hayasaka-Teruya): five exponentiations by x. The factor 3 (coprime to r) is
 * the convention of blst, zkcrypto and noble, so Gt values match theirs exactly.
 */
void pairing_final_exp(fp12_t *r, const fp12_t *f)
{
    fp12_t m, a, b, t;

    fp12_inv(&t, f);
    fp12_conj(&m, f);
    fp12_mul(&m, &m, &t);             /* f^(p^6 - 1) */
    fp12_frobenius(&t, &m, 2);
    fp12_mul(&m, &t, &m);             /* ^(p^2 + 1) */

    cyclotomic_exp_x(&a, &m);
    fp12_conj(&t, &m);
    fp12_mul(&a, &a, &t);             /* m^(x - 1) */
    cyclotomic_exp_x(&b, &a);
    fp12_conj(&t, &a);
    fp12_mul(&a, &b, &t);             /* m^((x - 1)^2) */

    cyclotomic_exp_x(&b, &a);
    fp12_frobenius(&t, &a, 1);
    fp12_mul(&b, &b, &t);             /* a^(x + p) */

    cyclotomic_exp_x(&a, &b);
    cyclotomic_exp_x(&a, &a);
    fp12_frobenius(&t, &b, 2);
    fp12_mul(&a, &a, &t);
    fp12_conj(&t, &b);
    fp12_mul(&a, &a, &t);             /* b^(x^2 + p^2 - 1) */

    fp12_cyclotomic_sqr(&t, &m);
    fp12_mul(&t, &t, &m);
    fp12_mul(r, &a, &t);              /* · m^3 */
}

void pairing(fp12_t *r, const g1_aff *p, const g2_aff *q)
{
    fp12_t f;
    miller_chunk(&f, p, q, 1);
    pairing_final_exp(r, &f);
}

void pairing_multi(fp12_t *r, const g1_aff *p, const g2_aff *q, size_t n)
{
    fp12_t f, g;
    size_t done = n < MILLER_CHUNK ? n : MILLER_CHUNK;
    miller_chunk(&f, p, q, done);
    while (done < n) {
        size_t k = n - done < MILLER_CHUNK ? n - done : MILLER_CHUNK;
        miller_chunk(&g, p + done, q + done, k);
        fp12_mul(&f, &f, &g);
        done += k;
    }
    pairing_final_exp(r, &f);
}
