/*
 * G1: the curve y^2 = x^3 + 4 over Fp. The group law lives in curve_impl.h (shared with
 * G2); this file binds it to Fp and holds the generator.
 */
#include "field/curve.h"
#include "field/field_internal.h"

/* Generator of FORMATS.md, Montgomery form. */
const g1_aff G1_GENERATOR = {
    {{0x5cb38790fd530c16ull, 0x7817fc679976fff5ull, 0x154f95c7143ba1c1ull, 0xf0ae6acdf3d0e747ull,
      0xedce6ecc21dbf440ull, 0x120177419e0bfb75ull}},
    {{0xbaac93d50ce72271ull, 0x8c22631a7918fd8eull, 0xdd595f13570725ceull, 0x51ac582950405194ull,
      0x0e1c8c3fad0059c0ull, 0x0bbc3efc5008a26aull}}};

/* b = 4, Montgomery form. */
static const fp_t G1_B = {{0xaa270000000cfff3ull, 0x53cc0032fc34000aull, 0x478fe97a6b0a807full,
                           0xb1d37ebee6ba24d7ull, 0x8ec9733bbf78ab2full, 0x09d645513d83de7eull}};

#define FE fp_t
#define FE_ONE FP_ONE
#define FE_ZERO FP_ZERO
#define FE_B G1_B
#define fe_add fp_add
#define fe_sub fp_sub
#define fe_dbl fp_dbl
#define fe_neg fp_neg
#define fe_mul fp_mul
#define fe_sqr fp_sqr
#define fe_inv fp_inv
#define fe_is_zero fp_is_zero
#define fe_eq fp_eq
#define PT(name) g1_##name
#include "field/curve_impl.h"

/* |x| for the BLS parameter x = -0xd201000000010000. */
#define BLS_X_ABS 0xd201000000010000ull

/* beta, a primitive cube root of unity in Fp (Montgomery): phi(x, y) = (beta·x, y) is an
 * endomorphism of E acting on G1 as multiplication by -x^2 (this beta, not the other
 * root, is the one paired with -x^2; the tests check it against r·P = O). */
static const fp_t G1_BETA = {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
                              0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}};

/*
 * Scott's test (eprint 2021/1130): a point P of E(Fp) is in G1 iff phi(P) = -x^2·P.
 * Two 64-bit multiplications (about 126 doublings) instead of one by the 255-bit r.
 */
int g1_aff_in_subgroup(const g1_aff *p)
{
    if (g1_aff_is_inf(p)) return 1;
    g1_jac j, t;
    g1_aff phi = *p;
    fp_mul(&phi.x, &p->x, &G1_BETA);
    g1_jac_from_aff(&j, p);
    g1_jac_mul_u64(&t, &j, BLS_X_ABS);
    g1_jac_neg(&t, &t);                 /* x·P (x < 0) */
    g1_jac_mul_u64(&t, &t, BLS_X_ABS);  /* -x^2·P */
    g1_jac_from_aff(&j, &phi);
    return g1_jac_eq(&t, &j);
}
