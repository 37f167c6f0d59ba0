/*
 * Emits what libcuzk computes for the Node oracle (test/test_noble_field.sh): k·G1, k·G2
 * and sums with their encodings, and a corpus of good and malformed encodings with the
 * library's verdict on each. Usage: field_corpus N (seed from CUZK_TEST_SEED).
 * Lines: "mul K G1C G1U G2C G2U", "sum A B G1C G2C", "dec g1|g2 KIND HEX VERDICT REENC".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/curve.h"
#include "support/fieldtest.h"
#include "support/testutil.h"

static void put_hex(const uint8_t *b, size_t n)
{
    char buf[400];
    ft_tohex(buf, b, n);
    printf(" %s", buf);
}

static void put_scalar(const fr_t *k)
{
    printf(" ");
    for (int i = 3; i >= 0; i--) printf("%016llx", (unsigned long long)k->l[i]);
}

static void rand_scalar(fr_t *k)
{
    do {
        for (int i = 0; i < 4; i++) k->l[i] = test_rand64();
        k->l[3] >>= 1;
    } while (!fr_is_canonical(k) || fr_is_zero(k));
}

static const char *verdict(int rc)
{
    switch (rc) {
    case POINT_OK: return "ok";
    case POINT_EFLAGS: return "eflags";
    case POINT_ENONCANONICAL: return "enoncanonical";
    case POINT_ENOTONCURVE: return "enotoncurve";
    case POINT_ENOTINSUBGROUP: return "enotinsubgroup";
    case POINT_ENOSQRT: return "enosqrt";
    case POINT_ELENGTH: return "elength";
    default: return "unknown";
    }
}

/* One corpus line: decode with the subgroup check (what noble's fromHex does). */
static void dec_line(int g2, const char *kind, const uint8_t *in, size_t len)
{
    uint8_t re[192];
    int rc;
    if (g2) {
        g2_aff p;
        rc = g2_decode(&p, in, len, 1);
        if (!rc) g2_encode_uncompressed(re, &p);
    } else {
        g1_aff p;
        rc = g1_decode(&p, in, len, 1);
        if (!rc) g1_encode_uncompressed(re, &p);
    }
    printf("dec %s %s", g2 ? "g2" : "g1", kind);
    if (len) put_hex(in, len);
    else printf(" -");
    printf(" %s", verdict(rc));
    if (!rc) put_hex(re, g2 ? 192 : 96);
    else printf(" -");
    printf("\n");
}

/* Replaces the 48-byte coordinate at b by its value plus p when that still fits under
 * the three flag bits (a non-canonical spelling of the same value); 0 if it does not. */
static int add_p(uint8_t *b)
{
    uint8_t flags = b[0] & 0xe0, t[48];
    memcpy(t, b, 48);
    t[0] &= 0x1f;
    unsigned c = 0;
    for (int i = 47; i >= 0; i--) {
        int limb = (47 - i) / 8, sh = 8 * ((47 - i) % 8);
        unsigned s = t[i] + (unsigned)((FP_MODULUS[limb] >> sh) & 0xff) + c;
        t[i] = (uint8_t)s;
        c = s >> 8;
    }
    if (t[0] & 0xe0) return 0;
    t[0] |= flags;
    memcpy(b, t, 48);
    return 1;
}

/* Good encodings of P (compressed n bytes, uncompressed 2n) and the malformed kinds
 * derived from them. */
static void corpus_from(int g2, const uint8_t *comp, const uint8_t *unc, size_t n)
{
    uint8_t b[200];
    dec_line(g2, "good_c", comp, n);
    dec_line(g2, "good_u", unc, 2 * n);
    dec_line(g2, "short", comp, n - 1);
    memcpy(b, unc, 2 * n);
    b[2 * n] = 0;
    dec_line(g2, "long", b, 2 * n + 1);
    memcpy(b, comp, n); b[0] &= 0x7f;
    dec_line(g2, "cbit_off", b, n);
    memcpy(b, unc, 2 * n); b[0] |= 0x80;
    dec_line(g2, "cbit_on", b, 2 * n);
    memcpy(b, unc, 2 * n); b[0] |= 0x20;
    dec_line(g2, "sort_unc", b, 2 * n);
    memcpy(b, comp, n); b[0] ^= 0x20;
    dec_line(g2, "sort_flip", b, n); /* the other root: -P, still valid */
    memcpy(b, comp, n); b[0] |= 0x40;
    dec_line(g2, "inf_on_point_c", b, n);
    memcpy(b, unc, 2 * n); b[0] |= 0x40;
    dec_line(g2, "inf_on_point_u", b, 2 * n);
    memcpy(b, unc, 2 * n); b[2 * n - 1] ^= 1;
    dec_line(g2, "off_curve", b, 2 * n);
    memcpy(b, comp, n); b[n - 1] ^= (uint8_t)(1 + test_rand64() % 255);
    dec_line(g2, "x_changed", b, n); /* often no root, sometimes outside the subgroup */
    /* Non-canonical spelling of each coordinate, when it fits. */
    for (size_t c = 0; c < 2 * n / 48; c++) {
        memcpy(b, unc, 2 * n);
        if (add_p(b + 48 * c)) dec_line(g2, "noncanon_u", b, 2 * n);
        if (c < n / 48) {
            memcpy(b, comp, n);
            if (add_p(b + 48 * c)) dec_line(g2, "noncanon_c", b, n);
        }
    }
    /* Random bytes with random flags. */
    for (int i = 0; i < 2; i++) {
        test_rand_bytes(b, 2 * n);
        b[0] = (uint8_t)((b[0] & 0xe0) | (b[0] & 0x01));
        dec_line(g2, "random_c", b, n);
        dec_line(g2, "random_u", b, 2 * n);
    }
}

static void fixed_corpus(int g2, size_t n)
{
    uint8_t b[200];
    static const uint8_t flags[] = {0x00, 0x20, 0x40, 0x60, 0x80, 0xa0, 0xc0, 0xe0};
    for (int f = 0; f < 8; f++)
        for (int form = 1; form <= 2; form++) {
            memset(b, 0, 2 * n);
            b[0] = flags[f];
            char kind[32];
            snprintf(kind, sizeof kind, "zeros_%02x_%s", flags[f], form == 1 ? "c" : "u");
            dec_line(g2, kind, b, n * (size_t)form);
        }
    /* Infinity with a stray bit, and compressed infinity whose payload is exactly p. */
    memset(b, 0, 2 * n); b[0] = 0xc0; b[n - 1] = 1;
    dec_line(g2, "inf_stray_c", b, n);
    memset(b, 0, 2 * n); b[0] = 0x40; b[2 * n - 1] = 1;
    dec_line(g2, "inf_stray_u", b, 2 * n);
    memset(b, 0, 2 * n); add_p(b + n - 48); b[0] |= 0xc0;
    dec_line(g2, "inf_payload_p", b, n);
    dec_line(g2, "empty", b, 0);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    test_seed();
    g1_jac g1;
    g2_jac g2;
    g1_jac_from_aff(&g1, &G1_GENERATOR);
    g2_jac_from_aff(&g2, &G2_GENERATOR);
    for (int i = 0; i < n; i++) {
        fr_t a, b, am, bm;
        rand_scalar(&a);
        g1_jac p1, q1;
        g2_jac p2, q2;
        g1_aff a1;
        g2_aff a2;
        uint8_t c1[48], u1[96], c2[96], u2[192];
        g1_jac_mul(&p1, &g1, &a);
        g2_jac_mul(&p2, &g2, &a);
        g1_jac_to_aff(&a1, &p1);
        g2_jac_to_aff(&a2, &p2);
        g1_encode_compressed(c1, &a1);
        g1_encode_uncompressed(u1, &a1);
        g2_encode_compressed(c2, &a2);
        g2_encode_uncompressed(u2, &a2);
        printf("mul");
        put_scalar(&a);
        put_hex(c1, 48); put_hex(u1, 96); put_hex(c2, 96); put_hex(u2, 192);
        printf("\n");
        /* Sums: random b, then b = a (the doubling path) and b = r - a (infinity). */
        if (i % 4 == 1) b = a;
        else if (i % 4 == 2) {
            fr_to_mont(&am, &a);
            fr_neg(&bm, &am);
            fr_from_mont(&b, &bm);
        } else rand_scalar(&b);
        g1_jac_mul(&q1, &g1, &b);
        g2_jac_mul(&q2, &g2, &b);
        g1_jac_add(&q1, &p1, &q1);
        g2_jac_add(&q2, &p2, &q2);
        g1_jac_to_aff(&a1, &q1);
        g2_jac_to_aff(&a2, &q2);
        g1_encode_compressed(c1, &a1);
        g2_encode_compressed(c2, &a2);
        printf("sum");
        put_scalar(&a);
        put_scalar(&b);
        put_hex(c1, 48); put_hex(c2, 96);
        printf("\n");
        if (i < 6) {
            g1_jac_to_aff(&a1, &p1);
            g2_jac_to_aff(&a2, &p2);
            g1_encode_compressed(c1, &a1);
            g1_encode_uncompressed(u1, &a1);
            g2_encode_compressed(c2, &a2);
            g2_encode_uncompressed(u2, &a2);
            corpus_from(0, c1, u1, 48);
            corpus_from(1, c2, u2, 96);
        }
    }
    fixed_corpus(0, 48);
    fixed_corpus(1, 96);
    return 0;
}
