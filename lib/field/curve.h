/*
 * BLS12-381 groups G1 (over Fp, y^2 = x^3 + 4) and G2 (over Fp2, y^2 = x^3 + 4(u + 1)):
 * affine and Jacobian arithmetic, checks and the zcash encodings of FORMATS.md.
 * Affine points carry no flag: the point at infinity is x = y = 0 (never on the curve),
 * so an array of affine points is a dense array of coordinates, as the GPU wants it.
 */
#ifndef CUZK_CURVE_H
#define CUZK_CURVE_H

#include "field.h"

typedef struct { fp_t x, y; } g1_aff;
typedef struct { fp_t x, y, z; } g1_jac;   /* (X/Z^2, Y/Z^3); infinity: Z = 0 */
typedef struct { fp2_t x, y; } g2_aff;
typedef struct { fp2_t x, y, z; } g2_jac;

extern const g1_aff G1_GENERATOR;
extern const g2_aff G2_GENERATOR;

/* ---- G1 ---- */
int g1_aff_is_inf(const g1_aff *p);
int g1_jac_is_inf(const g1_jac *p);
void g1_jac_set_inf(g1_jac *r);
void g1_jac_from_aff(g1_jac *r, const g1_aff *p);
void g1_jac_to_aff(g1_aff *r, const g1_jac *p);
void g1_batch_to_aff(g1_aff *out, const g1_jac *in, size_t n); /* one inversion; out, in apart */
void g1_jac_add(g1_jac *r, const g1_jac *a, const g1_jac *b);  /* complete for all inputs */
void g1_jac_add_aff(g1_jac *r, const g1_jac *a, const g1_aff *b);
void g1_jac_dbl(g1_jac *r, const g1_jac *a);
void g1_jac_neg(g1_jac *r, const g1_jac *a);
void g1_aff_neg(g1_aff *r, const g1_aff *a);
void g1_jac_mul(g1_jac *r, const g1_jac *p, const fr_t *canonical_scalar);
int g1_jac_eq(const g1_jac *a, const g1_jac *b);
int g1_aff_is_on_curve(const g1_aff *p);   /* infinity counts as on the curve */
int g1_aff_in_subgroup(const g1_aff *p);   /* r·P = O */

/* ---- G2 ---- */
int g2_aff_is_inf(const g2_aff *p);
int g2_jac_is_inf(const g2_jac *p);
void g2_jac_set_inf(g2_jac *r);
void g2_jac_from_aff(g2_jac *r, const g2_aff *p);
void g2_jac_to_aff(g2_aff *r, const g2_jac *p);
void g2_batch_to_aff(g2_aff *out, const g2_jac *in, size_t n); /* one inversion; out, in apart */
void g2_jac_add(g2_jac *r, const g2_jac *a, const g2_jac *b);
void g2_jac_add_aff(g2_jac *r, const g2_jac *a, const g2_aff *b);
void g2_jac_dbl(g2_jac *r, const g2_jac *a);
void g2_jac_neg(g2_jac *r, const g2_jac *a);
void g2_aff_neg(g2_aff *r, const g2_aff *a);
void g2_jac_mul(g2_jac *r, const g2_jac *p, const fr_t *canonical_scalar);
int g2_jac_eq(const g2_jac *a, const g2_jac *b);
int g2_aff_is_on_curve(const g2_aff *p);
int g2_aff_in_subgroup(const g2_aff *p);

/* ---- zcash encodings (FORMATS.md) ----
 * Decoders return 0 or one of the negative reasons below; point_strerror() names it.
 * Infinity decodes to the all-zero affine point; callers that must reject it check. */
enum {
    POINT_OK = 0,
    POINT_EFLAGS = -1,        /* a flag combination the encoding forbids */
    POINT_ENONCANONICAL = -2, /* a coordinate >= p */
    POINT_ENOTONCURVE = -3,
    POINT_ENOTINSUBGROUP = -4,
    POINT_ENOSQRT = -5,       /* compressed x with no y on the curve */
    POINT_ELENGTH = -6
};
const char *point_strerror(int reason);

#define G1_COMPRESSED_BYTES 48
#define G1_UNCOMPRESSED_BYTES 96
#define G2_COMPRESSED_BYTES 96
#define G2_UNCOMPRESSED_BYTES 192

void g1_encode_compressed(uint8_t out[48], const g1_aff *p);
void g1_encode_uncompressed(uint8_t out[96], const g1_aff *p);
void g2_encode_compressed(uint8_t out[96], const g2_aff *p);
void g2_encode_uncompressed(uint8_t out[192], const g2_aff *p);
/* len selects the form (48/96 for G1, 96/192 for G2) and must agree with the 0x80 flag. */
int g1_decode(g1_aff *out, const uint8_t *in, size_t len, int check_subgroup);
int g2_decode(g2_aff *out, const uint8_t *in, size_t len, int check_subgroup);

#endif
