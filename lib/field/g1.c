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

int g1_aff_in_subgroup(const g1_aff *p) { return g1_aff_in_subgroup_slow(p); }
