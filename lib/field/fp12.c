/*
 * Fp12 = Fp6[w]/(w^2 - v): the pairing target group's field. Products, inversion,
 * Frobenius powers from precomputed constants, and the two special products pairing.c
 * leans on (sparse line multiplication and squaring in the cyclotomic subgroup).
 */
#include "tower.h"

/* Frobenius: the coefficient of w^k (k = 2j + i for c_i.c_j, as w^2 = v) maps to
 * conj^n(coefficient)·ξ^(k(p^n - 1)/6). Derived offline from ξ = u + 1 and checked in
 * test_pairing against a^(p^n) by square-and-multiply. Montgomery form (R = 2^384). */
static const fp2_t FROB1[6] = {
    /* xi^(0(p^1-1)/6) */ {{{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull, 0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}}, {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* xi^(1(p^1-1)/6) */ {{{0x07089552b319d465ull, 0xc6695f92b50a8313ull, 0x97e83cccd117228full, 0xa35baecab2dc29eeull, 0x1ce393ea5daace4dull, 0x08f2220fb0fb66ebull}}, {{0xb2f66aad4ce5d646ull, 0x5842a06bfc497cecull, 0xcf4895d42599d394ull, 0xc11b9cba40a8e8d0ull, 0x2e3813cbe5a0de89ull, 0x110eefda88847fafull}}},
    /* xi^(2(p^1-1)/6) */ {{{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}, {{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull, 0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}}},
    /* xi^(3(p^1-1)/6) */ {{{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull, 0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}, {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull, 0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}},
    /* xi^(4(p^1-1)/6) */ {{{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull, 0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}}, {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* xi^(5(p^1-1)/6) */ {{{0x82d83cf50dbce43full, 0xa2813e53df9d018full, 0xc6f0caa53c65e181ull, 0x7525cf528d50fe95ull, 0x4a85ed50f4798a6bull, 0x171da0fd6cf8eebdull}}, {{0x3726c30af242c66cull, 0x7c2ac1aad1b6fe70ull, 0xa04007fbba4b14a2ull, 0xef517c3266341429ull, 0x0095ba654ed2226bull, 0x02e370eccc86f7ddull}}},
};
static const fp2_t FROB3[6] = {
    /* xi^(0(p^3-1)/6) */ {{{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull, 0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}}, {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* xi^(1(p^3-1)/6) */ {{{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull, 0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}}, {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull, 0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}},
    /* xi^(2(p^3-1)/6) */ {{{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}, {{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull, 0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}}},
    /* xi^(3(p^3-1)/6) */ {{{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull, 0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}}, {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull, 0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}}},
    /* xi^(4(p^3-1)/6) */ {{{0x43f5fffffffcaaaeull, 0x32b7fff2ed47fffdull, 0x07e83a49a2e99d69ull, 0xeca8f3318332bb7aull, 0xef148d1ea0f4c069ull, 0x040ab3263eff0206ull}}, {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* xi^(5(p^3-1)/6) */ {{{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull, 0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}, {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull, 0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}}},
};
static const fp_t FROB2[6] = {
    {{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull, 0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
    {{0xecfb361b798dba3aull, 0xc100ddb891865a2cull, 0x0ec08ff1232bda8eull, 0xd5c13cc6f1ca4721ull, 0x47222a47bf7b5c04ull, 0x0110f184e51c5f59ull}},
    {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull, 0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}},
    {{0x43f5fffffffcaaaeull, 0x32b7fff2ed47fffdull, 0x07e83a49a2e99d69ull, 0xeca8f3318332bb7aull, 0xef148d1ea0f4c069ull, 0x040ab3263eff0206ull}},
    {{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull, 0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}},
    {{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull, 0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}},
};

void fp12_one(fp12_t *r)
{
    *r = (fp12_t){{FP2_ONE, FP2_ZERO, FP2_ZERO}, {FP2_ZERO, FP2_ZERO, FP2_ZERO}};
}

int fp12_eq(const fp12_t *a, const fp12_t *b)
{
    return fp6_eq(&a->c0, &b->c0) & fp6_eq(&a->c1, &b->c1);
}

int fp12_is_one(const fp12_t *a)
{
    return fp2_eq(&a->c0.c0, &FP2_ONE) & fp2_is_zero(&a->c0.c1) & fp2_is_zero(&a->c0.c2) &
           fp6_is_zero(&a->c1);
}

void fp12_add(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    tw_fp6_add(&r->c0, &a->c0, &b->c0);
    tw_fp6_add(&r->c1, &a->c1, &b->c1);
}

void fp12_sub(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp6_sub(&r->c0, &a->c0, &b->c0);
    fp6_sub(&r->c1, &a->c1, &b->c1);
}

/* Karatsuba over Fp6: 3 Fp6 products, kept double-width until the two outputs are summed. */
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b)
{
    fp6w_t t0, t1, m;
    fp6_t s, u;
    fp6w_mul(&t0, &a->c0, &b->c0);
    fp6w_mul(&t1, &a->c1, &b->c1);
    tw_fp6_add(&s, &a->c0, &a->c1);
    tw_fp6_add(&u, &b->c0, &b->c1);
    fp6w_mul(&m, &s, &u);
    fp6w_sub(&m, &m, &t0);
    fp6w_sub(&m, &m, &t1);
    fp6w_redc(&r->c1, &m);
    fp6w_mul_by_v(&t1, &t1);
    fp6w_add(&t0, &t0, &t1);
    fp6w_redc(&r->c0, &t0);
}

/* Complex squaring: (a0 + a1 w)^2 = (a0 + a1)(a0 + v a1) - t - v t + 2t w, t = a0 a1. */
void fp12_sqr(fp12_t *r, const fp12_t *a)
{
    fp6w_t t, m, vt;
    fp6_t s, u;
    fp6w_mul(&t, &a->c0, &a->c1);
    tw_fp6_add(&s, &a->c0, &a->c1);
    fp6_mul_by_v(&u, &a->c1);
    tw_fp6_add(&u, &u, &a->c0);
    fp6w_mul(&m, &s, &u);
    fp6w_sub(&m, &m, &t);
    fp6w_mul_by_v(&vt, &t);
    fp6w_sub(&m, &m, &vt);
    fp6w_add(&t, &t, &t);
    fp6w_redc(&r->c0, &m);
    fp6w_redc(&r->c1, &t);
}

/* (a0 + a1 w)^-1 = (a0 - a1 w) / (a0^2 - v a1^2) */
void fp12_inv(fp12_t *r, const fp12_t *a)
{
    fp6_t t0, t1;
    fp6_sqr(&t0, &a->c0);
    fp6_sqr(&t1, &a->c1);
    fp6_mul_by_v(&t1, &t1);
    fp6_sub(&t0, &t0, &t1);
    fp6_inv(&t0, &t0);
    fp6_mul(&r->c0, &a->c0, &t0);
    fp6_mul(&t1, &a->c1, &t0);
    fp6_neg(&r->c1, &t1);
}

/* a^(p^6): w -> -w. On the cyclotomic subgroup (every pairing value) this is the inverse. */
void fp12_conj(fp12_t *r, const fp12_t *a)
{
    r->c0 = a->c0;
    fp6_neg(&r->c1, &a->c1);
}

static fp2_t *coeff(fp12_t *a, unsigned k)   /* coefficient of w^k */
{
    fp6_t *half = (k & 1) ? &a->c1 : &a->c0;
    return k / 2 == 0 ? &half->c0 : k / 2 == 1 ? &half->c1 : &half->c2;
}

static void frobenius_odd(fp12_t *a, const fp2_t table[6])
{
    for (unsigned k = 0; k < 6; k++) {
        fp2_t *c = coeff(a, k);
        fp2_conj(c, c);
        if (k) fp2_mul(c, c, &table[k]);
    }
}

void fp12_frobenius(fp12_t *r, const fp12_t *a, unsigned power)
{
    fp12_t t = *a;
    power %= 12;
    if (power >= 6) {
        fp12_conj(&t, &t);
        power -= 6;
    }
    if (power >= 3) {
        frobenius_odd(&t, FROB3);
        power -= 3;
    }
    if (power == 2) {
        for (unsigned k = 1; k < 6; k++) fp2_mul_fp(coeff(&t, k), coeff(&t, k), &FROB2[k]);
    } else if (power == 1) {
        frobenius_odd(&t, FROB1);
    }
    *r = t;
}

/* a·(l0 + l1 v + l4 v w), the shape of every Miller-loop line: 13 Fp2 products, 12 Fp
 * reductions. */
void fp12_mul_by_014(fp12_t *r, const fp12_t *a, const fp2_t *l0, const fp2_t *l1,
                     const fp2_t *l4)
{
    fp6w_t t0, t1, m;
    fp6_t s;
    fp2_t l14;
    fp6w_mul_by_01(&t0, &a->c0, l0, l1);
    fp6w_mul_by_1(&t1, &a->c1, l4);
    tw_fp6_add(&s, &a->c0, &a->c1);
    tw_fp2_add(&l14, l1, l4);
    fp6w_mul_by_01(&m, &s, l0, &l14);
    fp6w_sub(&m, &m, &t0);
    fp6w_sub(&m, &m, &t1);
    fp6w_redc(&r->c1, &m);
    fp6w_mul_by_v(&t1, &t1);
    fp6w_add(&t0, &t0, &t1);
    fp6w_redc(&r->c0, &t0);
}

/* (x + y s)^2 in Fp4 = Fp2[s]/(s^2 - ξ), s = w^3: returns x^2 + ξ y^2 and 2xy. */
static void fp4_sqr(fp2_t *r0, fp2_t *r1, const fp2_t *x, const fp2_t *y)
{
    fp2w_t t0, t1, m;
    fp2_t s;
    fp2w_sqr(&t0, x);
    fp2w_sqr(&t1, y);
    tw_fp2_add(&s, x, y);
    fp2w_sqr(&m, &s);
    fp2w_sub(&m, &m, &t0);
    fp2w_sub(&m, &m, &t1);
    fp2w_redc(r1, &m);
    fp2w_nr(&t1, &t1);
    fp2w_add(&t0, &t0, &t1);
    fp2w_redc(r0, &t0);
}

/* r = 3t - 2z = 2(t - z) + t */
static void three_minus_two(fp2_t *r, const fp2_t *t, const fp2_t *z)
{
    fp2_t d;
    tw_fp2_sub(&d, t, z);
    tw_fp2_dbl(&d, &d);
    tw_fp2_add(r, &d, t);
}

/* r = 3t + 2z = 2(t + z) + t */
static void three_plus_two(fp2_t *r, const fp2_t *t, const fp2_t *z)
{
    fp2_t d;
    tw_fp2_add(&d, t, z);
    tw_fp2_dbl(&d, &d);
    tw_fp2_add(r, &d, t);
}

/* Granger-Scott squaring for a in the cyclotomic subgroup (a^(p^4 - p^2 + 1) = 1, where
 * the final exponentiation's easy part lands), seeing Fp12 as Fp4[w]/(w^3 - s) with a = A + B w + C w^2:
 * a^2 = (3A^2 - 2Ā) + (3sC^2 + 2B̄) w + (3B^2 - 2C̄) w^2, 9 Fp2 squarings. Wrong elsewhere. */
void fp12_cyclotomic_sqr(fp12_t *r, const fp12_t *a)
{
    fp2_t a0, a1, b0, b1, c0, c1;
    fp4_sqr(&a0, &a1, &a->c0.c0, &a->c1.c1);   /* A = g0 + h1 s */
    fp4_sqr(&b0, &b1, &a->c1.c0, &a->c0.c2);   /* B = h0 + g2 s */
    fp4_sqr(&c0, &c1, &a->c0.c1, &a->c1.c2);   /* C = g1 + h2 s */
    tw_fp2_nr(&c1, &c1);

    three_minus_two(&r->c0.c0, &a0, &a->c0.c0);
    three_plus_two(&r->c1.c1, &a1, &a->c1.c1);
    three_plus_two(&r->c1.c0, &c1, &a->c1.c0);
    three_minus_two(&r->c0.c2, &c0, &a->c0.c2);
    three_minus_two(&r->c0.c1, &b0, &a->c0.c1);
    three_plus_two(&r->c1.c2, &b1, &a->c1.c2);
}
