/*
 * The zcash/IETF point encodings of FORMATS.md for G1 and G2 (compressed and
 * uncompressed), with every flag rule enforced on decoding, as blst and bellperson do.
 * Deliberately stricter than @noble/curves' fromHex (test/oracle/field_oracle.mjs checks
 * both sides): coordinates >= p are rejected, not reduced; unflagged all-zero bytes are
 * not infinity; the sort bit is refused on uncompressed points and on infinity in G1 too.
 */
#include <string.h>

#include "field/curve.h"

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY 0x40
#define FLAG_SORT 0x20 /* y is the lexicographically larger root */
#define FLAG_MASK 0xe0

const char *point_strerror(int reason)
{
    switch (reason) {
    case POINT_OK: return "valid point";
    case POINT_EFLAGS:
        return "forbidden flag bits (compression bit disagrees with the length, sort bit on an "
               "uncompressed point or on infinity, or infinity with nonzero bytes)";
    case POINT_ENONCANONICAL: return "a coordinate is not below the field modulus p";
    case POINT_ENOTONCURVE: return "the point is not on the curve";
    case POINT_ENOTINSUBGROUP: return "the point is not in the prime-order subgroup";
    case POINT_ENOSQRT: return "compressed x has no point on the curve (x^3 + b is not a square)";
    case POINT_ELENGTH: return "wrong encoding length";
    default: return "unknown point decoding error";
    }
}

/* ---- encoding ---- */

void g1_encode_compressed(uint8_t out[48], const g1_aff *p)
{
    if (g1_aff_is_inf(p)) {
        memset(out, 0, 48);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    fp_to_be48(out, &p->x);
    out[0] |= FLAG_COMPRESSED | (fp_is_lex_largest(&p->y) ? FLAG_SORT : 0);
}

void g1_encode_uncompressed(uint8_t out[96], const g1_aff *p)
{
    if (g1_aff_is_inf(p)) {
        memset(out, 0, 96);
        out[0] = FLAG_INFINITY;
        return;
    }
    fp_to_be48(out, &p->x);
    fp_to_be48(out + 48, &p->y);
}

/* G2 writes the imaginary part c1 before the real part c0. */
static void fp2_to_be96(uint8_t out[96], const fp2_t *a)
{
    fp_to_be48(out, &a->c1);
    fp_to_be48(out + 48, &a->c0);
}

void g2_encode_compressed(uint8_t out[96], const g2_aff *p)
{
    if (g2_aff_is_inf(p)) {
        memset(out, 0, 96);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    fp2_to_be96(out, &p->x);
    out[0] |= FLAG_COMPRESSED | (fp2_is_lex_largest(&p->y) ? FLAG_SORT : 0);
}

void g2_encode_uncompressed(uint8_t out[192], const g2_aff *p)
{
    if (g2_aff_is_inf(p)) {
        memset(out, 0, 192);
        out[0] = FLAG_INFINITY;
        return;
    }
    fp2_to_be96(out, &p->x);
    fp2_to_be96(out + 96, &p->y);
}

/* ---- decoding ---- */

/*
 * The flag rules shared by both groups, given the encoding's length and the length of its
 * compressed form: the compression bit must match the length; infinity must be exactly
 * the flag byte (0xC0 or 0x40, no sort bit) followed by zeros; an uncompressed point
 * carries no sort bit. Returns POINT_OK with *is_inf set, or the reason.
 */
static int check_flags(const uint8_t *in, size_t len, size_t compressed_len, int *is_inf)
{
    if (len != compressed_len && len != 2 * compressed_len) return POINT_ELENGTH;
    uint8_t flags = in[0] & FLAG_MASK;
    int compressed = (flags & FLAG_COMPRESSED) != 0;
    if (compressed != (len == compressed_len)) return POINT_EFLAGS;
    *is_inf = (flags & FLAG_INFINITY) != 0;
    if (*is_inf) {
        if (flags & FLAG_SORT) return POINT_EFLAGS;
        if (in[0] & ~FLAG_MASK) return POINT_EFLAGS;
        for (size_t i = 1; i < len; i++)
            if (in[i]) return POINT_EFLAGS;
        return POINT_OK;
    }
    if (!compressed && (flags & FLAG_SORT)) return POINT_EFLAGS;
    return POINT_OK;
}

/* A 48-byte big-endian coordinate; the first one has its flag bits cleared. */
static int read_fp(fp_t *r, const uint8_t in[48], int clear_flags)
{
    uint8_t buf[48];
    memcpy(buf, in, 48);
    if (clear_flags) buf[0] &= (uint8_t)~FLAG_MASK;
    return fp_from_be48(r, buf) ? POINT_OK : POINT_ENONCANONICAL;
}

static int read_fp2(fp2_t *r, const uint8_t in[96], int clear_flags)
{
    int rc = read_fp(&r->c1, in, clear_flags);
    if (rc) return rc;
    return read_fp(&r->c0, in + 48, 0);
}

int g1_decode(g1_aff *out, const uint8_t *in, size_t len, int check_subgroup)
{
    int is_inf = 0, rc;
    g1_aff p;
    memset(out, 0, sizeof *out);
    if ((rc = check_flags(in, len, G1_COMPRESSED_BYTES, &is_inf))) return rc;
    if (is_inf) return POINT_OK;
    if ((rc = read_fp(&p.x, in, 1))) return rc;
    fp_t rhs, four;
    fp_from_u64(&four, 4);
    fp_sqr(&rhs, &p.x);
    fp_mul(&rhs, &rhs, &p.x);
    fp_add(&rhs, &rhs, &four);
    if (len == G1_COMPRESSED_BYTES) {
        if (!fp_sqrt(&p.y, &rhs)) return POINT_ENOSQRT;
        if (fp_is_lex_largest(&p.y) != ((in[0] & FLAG_SORT) != 0)) fp_neg(&p.y, &p.y);
    } else {
        if ((rc = read_fp(&p.y, in + 48, 0))) return rc;
        fp_t lhs;
        fp_sqr(&lhs, &p.y);
        /* Checked here rather than with g1_aff_is_on_curve, which calls (0, 0) infinity:
         * an unflagged (0, 0) is simply off the curve. */
        if (!fp_eq(&lhs, &rhs)) return POINT_ENOTONCURVE;
    }
    if (check_subgroup && !g1_aff_in_subgroup(&p)) return POINT_ENOTINSUBGROUP;
    *out = p;
    return POINT_OK;
}

int g2_decode(g2_aff *out, const uint8_t *in, size_t len, int check_subgroup)
{
    int is_inf = 0, rc;
    g2_aff p;
    memset(out, 0, sizeof *out);
    if ((rc = check_flags(in, len, G2_COMPRESSED_BYTES, &is_inf))) return rc;
    if (is_inf) return POINT_OK;
    if ((rc = read_fp2(&p.x, in, 1))) return rc;
    fp2_t rhs, b;
    fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    fp2_sqr(&rhs, &p.x);
    fp2_mul(&rhs, &rhs, &p.x);
    fp2_add(&rhs, &rhs, &b);
    if (len == G2_COMPRESSED_BYTES) {
        if (!fp2_sqrt(&p.y, &rhs)) return POINT_ENOSQRT;
        if (fp2_is_lex_largest(&p.y) != ((in[0] & FLAG_SORT) != 0)) fp2_neg(&p.y, &p.y);
    } else {
        if ((rc = read_fp2(&p.y, in + 96, 0))) return rc;
        fp2_t lhs;
        fp2_sqr(&lhs, &p.y);
        if (!fp2_eq(&lhs, &rhs)) return POINT_ENOTONCURVE;
    }
    if (check_subgroup && !g2_aff_in_subgroup(&p)) return POINT_ENOTINSUBGROUP;
    *out = p;
    return POINT_OK;
}
