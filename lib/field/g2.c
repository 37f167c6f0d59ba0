/*
 * G2: the twist y^2 = x^3 + 4(u + 1) over Fp2. The group law lives in curve_impl.h
 * (shared with G1); this file binds it to Fp2 and holds the generator.
 */
#include "field/curve.h"
#include "field/field_internal.h"

/* Generator of FORMATS.md, Montgomery form. */
const g2_aff G2_GENERATOR = {
    {{{0xf5f28fa202940a10ull, 0xb3f5fb2687b4961aull, 0xa1a893b53e2ae580ull, 0x9894999d1a3caee9ull,
       0x6f67b7631863366bull, 0x058191924350bcd7ull}},
     {{0xa5a9c0759e23f606ull, 0xaaa0c59dbccd60c3ull, 0x3bb17e18e2867806ull, 0x1b1ab6cc8541b367ull,
       0xc2b6ed0ef2158547ull, 0x11922a097360edf3ull}}},
    {{{0x4c730af860494c4aull, 0x597cfa1f5e369c5aull, 0xe7e6856caa0a635aull, 0xbbefb5e96e0d495full,
       0x07d3a975f0ef25a2ull, 0x0083fd8e7e80dae5ull}},
     {{0xadc0fc92df64b05dull, 0x18aa270a2b1461dcull, 0x86adac6a3be4eba0ull, 0x79495c4ec93da33aull,
       0xe7175850a43ccaedull, 0x0b2bc2a163de1bf2ull}}}};

/* b = 4(u + 1) = 4 + 4u, Montgomery form. */
#define FOUR {{0xaa270000000cfff3ull, 0x53cc0032fc34000aull, 0x478fe97a6b0a807full, \
               0xb1d37ebee6ba24d7ull, 0x8ec9733bbf78ab2full, 0x09d645513d83de7eull}}
static const fp2_t G2_B = {FOUR, FOUR};

#define FE fp2_t
#define FE_ONE FP2_ONE
#define FE_ZERO FP2_ZERO
#define FE_B G2_B
#define fe_add fp2_add
#define fe_sub fp2_sub
#define fe_dbl fp2_dbl
#define fe_neg fp2_neg
#define fe_mul fp2_mul
#define fe_sqr fp2_sqr
#define fe_inv fp2_inv
#define fe_is_zero fp2_is_zero
#define fe_eq fp2_eq
#define PT(name) g2_##name
#include "field/curve_impl.h"

int g2_aff_in_subgroup(const g2_aff *p) { return g2_aff_in_subgroup_slow(p); }
