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

/* |x| for the BLS parameter x = -0xd201000000010000. */
#define BLS_X_ABS 0xd201000000010000ull

/* psi = twist^-1 ∘ Frobenius ∘ twist on E'(Fp2): psi(x, y) = (conj(x)·PSI_X, conj(y)·PSI_Y)
 * with PSI_X = 1/(u+1)^((p-1)/3) and PSI_Y = 1/(u+1)^((p-1)/2) (Montgomery form). */
static const fp2_t PSI_X = {
    {{0}},
    {{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull, 0xa20d1b8c7e881024ull,
      0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}}};
static const fp2_t PSI_Y = {
    {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull, 0x92ad2afd19103e18ull,
      0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}},
    {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull, 0xd1ca2087da74d4a7ull,
      0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}};

/*
 * Scott's test (eprint 2021/1130): a point P of E'(Fp2) is in G2 iff psi(P) = x·P. One
 * 64-bit multiplication instead of one by the 255-bit r.
 */
int g2_aff_in_subgroup(const g2_aff *p)
{
    if (g2_aff_is_inf(p)) return 1;
    g2_jac j, t;
    g2_aff psi;
    fp2_conj(&psi.x, &p->x);
    fp2_mul(&psi.x, &psi.x, &PSI_X);
    fp2_conj(&psi.y, &p->y);
    fp2_mul(&psi.y, &psi.y, &PSI_Y);
    g2_jac_from_aff(&j, p);
    g2_jac_mul_u64(&t, &j, BLS_X_ABS);
    g2_jac_neg(&t, &t); /* x·P (x < 0) */
    g2_jac_from_aff(&j, &psi);
    return g2_jac_eq(&t, &j);
}
