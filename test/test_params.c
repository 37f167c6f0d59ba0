/* bellperson .params / .vk: round trips, the byte layout against FORMATS.md's generator
 * hex, and a bad-input suite where every malformed key is CUZK_EFORMAT with the offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "groth16/groth16.h"
#include "support/fieldtest.h"
#include "support/testutil.h"

/* ---- helpers ---- */

static void hex(uint8_t *out, const char *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void rand_scalar(fr_t *s)
{
    for (int i = 0; i < 4; i++) s->l[i] = test_rand64();
    s->l[3] &= 0x0fffffffffffffffULL; /* < 2^252 < r */
}

static void rand_g1(g1_aff *out, size_t n)
{
    g1_jac g, acc;
    fr_t k;
    rand_scalar(&k);
    g1_jac_from_aff(&g, &G1_GENERATOR);
    g1_jac_mul(&acc, &g, &k);
    g1_jac *tmp = malloc((n ? n : 1) * sizeof *tmp);
    for (size_t i = 0; i < n; i++) { /* k·G, (k+1)·G, ...: distinct, cheap */
        tmp[i] = acc;
        g1_jac_add(&acc, &acc, &g);
    }
    g1_batch_to_aff(out, tmp, n);
    free(tmp);
}

static void rand_g2(g2_aff *out, size_t n)
{
    g2_jac g, acc;
    fr_t k;
    rand_scalar(&k);
    g2_jac_from_aff(&g, &G2_GENERATOR);
    g2_jac_mul(&acc, &g, &k);
    g2_jac *tmp = malloc((n ? n : 1) * sizeof *tmp);
    for (size_t i = 0; i < n; i++) {
        tmp[i] = acc;
        g2_jac_add(&acc, &acc, &g);
    }
    g2_batch_to_aff(out, tmp, n);
    free(tmp);
}

static groth16_params *rand_params(uint32_t nic, uint32_t nh, uint32_t nl, uint32_t na, uint32_t nb)
{
    groth16_params *p = calloc(1, sizeof *p);
    rand_g1(&p->vk.alpha_g1, 1);
    rand_g1(&p->vk.beta_g1, 1);
    rand_g2(&p->vk.beta_g2, 1);
    rand_g2(&p->vk.gamma_g2, 1);
    rand_g1(&p->vk.delta_g1, 1);
    rand_g2(&p->vk.delta_g2, 1);
    p->vk.n_ic = nic;
    p->n_h = nh;
    p->n_l = nl;
    p->n_a = na;
    p->n_b_g1 = p->n_b_g2 = nb;
    p->vk.ic = malloc((nic + 1) * sizeof(g1_aff));
    p->h = malloc((nh + 1) * sizeof(g1_aff));
    p->l = malloc((nl + 1) * sizeof(g1_aff));
    p->a = malloc((na + 1) * sizeof(g1_aff));
    p->b_g1 = malloc((nb + 1) * sizeof(g1_aff));
    p->b_g2 = malloc((nb + 1) * sizeof(g2_aff));
    rand_g1(p->vk.ic, nic);
    rand_g1(p->h, nh);
    rand_g1(p->l, nl);
    rand_g1(p->a, na);
    rand_g1(p->b_g1, nb);
    rand_g2(p->b_g2, nb);
    return p;
}

static int g1s_equal(const g1_aff *a, const g1_aff *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!fp_eq(&a[i].x, &b[i].x) || !fp_eq(&a[i].y, &b[i].y)) return 0;
    return 1;
}

static int g2s_equal(const g2_aff *a, const g2_aff *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!fp2_eq(&a[i].x, &b[i].x) || !fp2_eq(&a[i].y, &b[i].y)) return 0;
    return 1;
}

static void assert_vk_equal(const groth16_vk *a, const groth16_vk *b)
{
    assert_true(g1s_equal(&a->alpha_g1, &b->alpha_g1, 1));
    assert_true(g1s_equal(&a->beta_g1, &b->beta_g1, 1));
    assert_true(g2s_equal(&a->beta_g2, &b->beta_g2, 1));
    assert_true(g2s_equal(&a->gamma_g2, &b->gamma_g2, 1));
    assert_true(g1s_equal(&a->delta_g1, &b->delta_g1, 1));
    assert_true(g2s_equal(&a->delta_g2, &b->delta_g2, 1));
    assert_int_equal(a->n_ic, b->n_ic);
    assert_true(g1s_equal(a->ic, b->ic, a->n_ic));
}

static void assert_params_equal(const groth16_params *a, const groth16_params *b)
{
    assert_vk_equal(&a->vk, &b->vk);
    assert_int_equal(a->n_h, b->n_h);
    assert_int_equal(a->n_l, b->n_l);
    assert_int_equal(a->n_a, b->n_a);
    assert_int_equal(a->n_b_g1, b->n_b_g1);
    assert_int_equal(a->n_b_g2, b->n_b_g2);
    assert_true(g1s_equal(a->h, b->h, a->n_h));
    assert_true(g1s_equal(a->l, b->l, a->n_l));
    assert_true(g1s_equal(a->a, b->a, a->n_a));
    assert_true(g1s_equal(a->b_g1, b->b_g1, a->n_b_g1));
    assert_true(g2s_equal(a->b_g2, b->b_g2, a->n_b_g2));
}

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len + 1);
    assert_int_equal(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

static void tmp_path(char *out, size_t n, const char *suffix)
{
    snprintf(out, n, "%s/cuzk_test_params_%d_%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid(), suffix);
}

/* offsets of a key with the given counts */
typedef struct layout {
    size_t count[6], first[6], end;
} layout;

static layout layout_of(const groth16_params *p)
{
    layout L;
    uint32_t n[6] = {p->vk.n_ic, p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    size_t o = 864;
    for (int s = 0; s < 6; s++) {
        L.count[s] = o;
        L.first[s] = o + 4;
        o += 4 + (size_t)n[s] * (s == 5 ? 192 : 96);
    }
    L.end = o;
    return L;
}

/* ---- round trips and layout ---- */

static void round_trips(void **state)
{
    (void)state;
    test_seed();
    threadpool *tp = threadpool_create(2);
    uint32_t shapes[][5] = {{1, 0, 0, 1, 0}, {3, 7, 5, 4, 2}, {2, 1100, 600, 700, 513}};
    for (size_t c = 0; c < 3; c++) {
        uint32_t *s = shapes[c];
        groth16_params *p = rand_params(s[0], s[1], s[2], s[3], s[4]), *q = NULL;
        uint8_t *buf;
        size_t len;
        assert_int_equal(groth16_params_serialize(p, &buf, &len), CUZK_OK);
        layout L = layout_of(p);
        assert_int_equal(len, L.end);
        /* counts are u32 big-endian at their offsets */
        uint32_t want[6] = {s[0], s[1], s[2], s[3], s[4], s[4]};
        for (int k = 0; k < 6; k++) {
            const uint8_t *b = buf + L.count[k];
            assert_int_equal((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3], want[k]);
        }
        for (int check = 0; check < 2; check++) {
            assert_int_equal(groth16_params_parse(buf, len, check, c ? tp : NULL, &q), CUZK_OK);
            assert_params_equal(p, q);
            assert_int_equal(q->trailing_bytes, 0);
            groth16_params_free(q);
        }
        /* file writer = memory serializer; loader = parser */
        char path[256];
        tmp_path(path, sizeof path, "rt.params");
        assert_int_equal(groth16_params_write(path, p), CUZK_OK);
        size_t flen;
        uint8_t *fbuf = read_all(path, &flen);
        assert_int_equal(flen, len);
        assert_memory_equal(fbuf, buf, len);
        assert_int_equal(groth16_params_load(path, 1, tp, &q), CUZK_OK);
        assert_params_equal(p, q);
        groth16_params_free(q);
        free(fbuf);

        /* the vk: its own bytes are the first 864 + 4 + 96·|ic| of the params */
        uint8_t *vkb;
        size_t vkl;
        assert_int_equal(groth16_vk_serialize(&p->vk, &vkb, &vkl), CUZK_OK);
        assert_int_equal(vkl, L.count[1]);
        assert_memory_equal(vkb, buf, vkl);
        groth16_vk vk;
        assert_int_equal(groth16_vk_parse(vkb, vkl, &vk), CUZK_OK);
        assert_vk_equal(&p->vk, &vk);
        groth16_vk_clear(&vk);
        assert_int_equal(groth16_vk_parse(buf, len, &vk), CUZK_OK); /* a whole .params is fine */
        assert_vk_equal(&p->vk, &vk);
        groth16_vk_clear(&vk);
        tmp_path(path, sizeof path, "rt.vk");
        assert_int_equal(groth16_vk_write(path, &p->vk), CUZK_OK);
        fbuf = read_all(path, &flen);
        assert_int_equal(flen, vkl);
        assert_memory_equal(fbuf, vkb, vkl);
        unlink(path);
        tmp_path(path, sizeof path, "rt.params");
        unlink(path);
        free(fbuf);
        free(vkb);
        free(buf);
        groth16_params_free(p);
    }
    threadpool_destroy(tp);
}

/* FORMATS.md: G1 uncompressed = x ‖ y; G2 = x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0; both big-endian. */
static void generator_bytes_follow_formats_md(void **state)
{
    (void)state;
    groth16_vk vk = {0};
    vk.alpha_g1 = vk.beta_g1 = vk.delta_g1 = G1_GENERATOR;
    vk.beta_g2 = vk.gamma_g2 = vk.delta_g2 = G2_GENERATOR;
    vk.ic = (g1_aff *)&G1_GENERATOR;
    vk.n_ic = 1;
    uint8_t *b;
    size_t n;
    assert_int_equal(groth16_vk_serialize(&vk, &b, &n), CUZK_OK);
    assert_int_equal(n, 864 + 4 + 96);
    uint8_t g1[96], g2[192];
    hex(g1, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb", 48);
    hex(g1 + 48, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1", 48);
    hex(g2, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e", 48);
    hex(g2 + 48, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8", 48);
    hex(g2 + 96, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be", 48);
    hex(g2 + 144, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801", 48);
    assert_memory_equal(b, g1, 96);          /* alpha_g1 */
    assert_memory_equal(b + 96, g1, 96);     /* beta_g1 */
    assert_memory_equal(b + 192, g2, 192);   /* beta_g2 */
    assert_memory_equal(b + 384, g2, 192);   /* gamma_g2 */
    assert_memory_equal(b + 576, g1, 96);    /* delta_g1 */
    assert_memory_equal(b + 672, g2, 192);   /* delta_g2 */
    assert_memory_equal(b + 864, "\0\0\0\1", 4);
    assert_memory_equal(b + 868, g1, 96);
    free(b);
}

/* ---- the bad-input suite ---- */

static groth16_params *small_key(uint8_t **buf, size_t *len)
{
    groth16_params *p = rand_params(2, 3, 2, 3, 2);
    assert_int_equal(groth16_params_serialize(p, buf, len), CUZK_OK);
    return p;
}

/* Parses, expects EFORMAT with every needle in the message. */
static void expect_eformat(const uint8_t *b, size_t n, int check, const char *n1, const char *n2)
{
    groth16_params *q = (groth16_params *)0x1;
    int rc = groth16_params_parse(b, n, check, NULL, &q);
    if (rc != CUZK_EFORMAT) fprintf(stderr, "rc %d, message: %s\n", rc, cuzk_last_error());
    assert_int_equal(rc, CUZK_EFORMAT);
    assert_null(q);
    if (n1 && !strstr(cuzk_last_error(), n1)) fail_msg("'%s' not in '%s'", n1, cuzk_last_error());
    if (n2 && !strstr(cuzk_last_error(), n2)) fail_msg("'%s' not in '%s'", n2, cuzk_last_error());
}

static void truncations_and_counts(void **state)
{
    (void)state;
    test_seed();
    uint8_t *buf;
    size_t len;
    groth16_params *p = small_key(&buf, &len);
    layout L = layout_of(p);
    expect_eformat(buf, 0, 0, "truncated", "864");
    expect_eformat(buf, 863, 0, "truncated", "863 bytes");
    expect_eformat(buf, 866, 0, "ic count", "offset 864");
    /* cut anywhere: always EFORMAT, naming a section */
    for (size_t cut = 864; cut < len; cut += 1 + test_rand64() % 97)
        expect_eformat(buf, cut, 0, "truncated", NULL);
    expect_eformat(buf, len - 1, 0, "b_g2", "truncated");
    expect_eformat(buf, L.count[2] + 3, 0, "l count", NULL);
    /* a count that claims more than the file holds, and the largest count */
    uint8_t *m = malloc(len);
    memcpy(m, buf, len);
    m[L.count[1] + 3] += 1; /* h: 4 points claimed, 3 present: the rest shifts */
    expect_eformat(m, len, 0, "truncated", NULL);
    memcpy(m, buf, len);
    memset(m + L.count[3], 0xff, 4);
    expect_eformat(m, len, 0, "a count 4294967295", "412316860320 bytes");
    memcpy(m, buf, len);
    memset(m + L.count[0], 0xff, 4);
    expect_eformat(m, len, 0, "ic count 4294967295", "offset 864");
    /* a count one too small leaves bytes that do not parse as the next count + points */
    memcpy(m, buf, len);
    m[L.count[5] + 3] -= 1;
    groth16_params *q;
    assert_int_equal(groth16_params_parse(m, len, 0, NULL, &q), CUZK_OK); /* = trailing bytes */
    assert_int_equal(q->trailing_bytes, 192);
    groth16_params_free(q);
    free(m);
    /* trailing bytes are tolerated (as bellperson) and reported */
    uint8_t *t = malloc(len + 5);
    memcpy(t, buf, len);
    memset(t + len, 0xab, 5);
    assert_int_equal(groth16_params_parse(t, len + 5, 1, NULL, &q), CUZK_OK);
    assert_int_equal(q->trailing_bytes, 5);
    assert_params_equal(p, q);
    groth16_params_free(q);
    free(t);
    /* vk truncations */
    groth16_vk vk;
    assert_int_equal(groth16_vk_parse(buf, 864 + 4 + 96 + 95, &vk), CUZK_EFORMAT);
    assert_non_null(strstr(cuzk_last_error(), "ic"));
    assert_null(vk.ic);
    assert_int_equal(groth16_vk_parse(buf, 100, &vk), CUZK_EFORMAT);
    assert_int_equal(groth16_vk_parse(NULL, 0, &vk), CUZK_EFORMAT);
    assert_int_equal(groth16_vk_parse(NULL, 10, &vk), CUZK_EINVAL);
    assert_int_equal(groth16_params_parse(NULL, 10, 0, NULL, &q), CUZK_EINVAL);
    free(buf);
    groth16_params_free(p);
}

static void bad_points(void **state)
{
    (void)state;
    test_seed();
    uint8_t *buf;
    size_t len;
    groth16_params *p = small_key(&buf, &len);
    layout L = layout_of(p);
    const char *names[6] = {"ic[1]", "h[2]", "l[0]", "a[1]", "b_g1[1]", "b_g2[1]"};
    uint32_t idx[6] = {1, 2, 0, 1, 1, 1};
    uint8_t *m = malloc(len);
    char where[64];
    for (int s = 0; s < 6; s++) {
        size_t psz = s == 5 ? 192 : 96, off = L.first[s] + idx[s] * psz;
        snprintf(where, sizeof where, "offset %zu", off);
        /* compressed flag on an uncompressed point */
        memcpy(m, buf, len);
        m[off] |= 0x80;
        expect_eformat(m, len, 0, names[s], where);
        /* the infinity flag with a nonzero rest */
        memcpy(m, buf, len);
        m[off] |= 0x40;
        expect_eformat(m, len, 0, names[s], where);
        /* the point at infinity itself: refused in every query, as bellperson does */
        memcpy(m, buf, len);
        memset(m + off, 0, psz);
        m[off] = 0x40;
        expect_eformat(m, len, 0, names[s], "infinity");
        /* a coordinate >= p (the top limb set to all ones below the flag bits) */
        memcpy(m, buf, len);
        memset(m + off, 0x1f, 48);
        expect_eformat(m, len, 0, names[s], where);
        /* off the curve: one bit of y flipped */
        memcpy(m, buf, len);
        m[off + psz - 1] ^= 1;
        expect_eformat(m, len, 0, names[s], point_strerror(POINT_ENOTONCURVE));
    }
    /* not in the subgroup: refused when checking; the big queries pass unchecked, ic never */
    g1_aff bad1;
    g2_aff bad2;
    ft_g1_off_subgroup(&bad1);
    ft_g2_off_subgroup(&bad2);
    for (int s = 0; s < 6; s++) {
        size_t psz = s == 5 ? 192 : 96, off = L.first[s] + idx[s] * psz;
        memcpy(m, buf, len);
        if (s == 5) g2_encode_uncompressed(m + off, &bad2);
        else g1_encode_uncompressed(m + off, &bad1);
        expect_eformat(m, len, 1, names[s], point_strerror(POINT_ENOTINSUBGROUP));
        groth16_params *q = NULL;
        int rc = groth16_params_parse(m, len, 0, NULL, &q);
        assert_int_equal(rc, s == 0 ? CUZK_EFORMAT : CUZK_OK);
        groth16_params_free(q);
    }
    /* the six vk points: bad ones refused, subgroup always checked, infinity allowed */
    size_t hdr[6] = {0, 96, 192, 384, 576, 672};
    const char *hname[6] = {"alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2"};
    for (int s = 0; s < 6; s++) {
        int g2 = s == 2 || s == 3 || s == 5;
        memcpy(m, buf, len);
        m[hdr[s] + (g2 ? 191 : 95)] ^= 1;
        expect_eformat(m, len, 0, hname[s], point_strerror(POINT_ENOTONCURVE));
        memcpy(m, buf, len);
        if (g2) g2_encode_uncompressed(m + hdr[s], &bad2);
        else g1_encode_uncompressed(m + hdr[s], &bad1);
        expect_eformat(m, len, 0, hname[s], point_strerror(POINT_ENOTINSUBGROUP));
        groth16_vk vk;
        assert_int_equal(groth16_vk_parse(m, len, &vk), CUZK_EFORMAT);
        memcpy(m, buf, len);
        memset(m + hdr[s], 0, g2 ? 192 : 96);
        m[hdr[s]] = 0x40;
        groth16_params *q = NULL;
        assert_int_equal(groth16_params_parse(m, len, 1, NULL, &q), CUZK_OK);
        assert_true(g2 ? g2_aff_is_inf(s == 2 ? &q->vk.beta_g2 : s == 3 ? &q->vk.gamma_g2 : &q->vk.delta_g2)
                       : g1_aff_is_inf(s == 0 ? &q->vk.alpha_g1 : s == 1 ? &q->vk.beta_g1 : &q->vk.delta_g1));
        groth16_params_free(q);
    }
    free(m);
    free(buf);
    groth16_params_free(p);
}

/* With many chunks decoded in parallel, the error reported is the first in the file. */
static void first_error_wins_in_parallel(void **state)
{
    (void)state;
    test_seed();
    threadpool *tp = threadpool_create(3);
    groth16_params *p = rand_params(1, 3000, 10, 1, 1);
    uint8_t *buf;
    size_t len;
    assert_int_equal(groth16_params_serialize(p, &buf, &len), CUZK_OK);
    layout L = layout_of(p);
    buf[L.first[1] + 2900 * 96 + 95] ^= 1;
    buf[L.first[1] + 1700 * 96 + 95] ^= 1;
    buf[L.first[2] + 3 * 96 + 95] ^= 1;
    for (int i = 0; i < 5; i++) {
        groth16_params *q;
        assert_int_equal(groth16_params_parse(buf, len, 0, tp, &q), CUZK_EFORMAT);
        assert_non_null(strstr(cuzk_last_error(), "h[1700]"));
    }
    free(buf);
    groth16_params_free(p);
    threadpool_destroy(tp);
}

static void random_corruption_never_crashes(void **state)
{
    (void)state;
    test_seed();
    uint8_t *buf;
    size_t len;
    groth16_params *p = small_key(&buf, &len);
    uint8_t *m = malloc(len);
    int ok = 0, bad = 0, rounds = getenv("CUZK_TEST_QUICK") ? 100 : 300;
    for (int round = 0; round < rounds; round++) {
        memcpy(m, buf, len);
        int flips = 1 + (int)(test_rand64() % 4);
        for (int f = 0; f < flips; f++) m[test_rand64() % len] ^= (uint8_t)(1u << (test_rand64() % 8));
        size_t n = test_rand64() % 4 == 0 ? test_rand64() % (len + 1) : len;
        groth16_params *q = NULL;
        int rc = groth16_params_parse(m, n, round % 8 == 0, NULL, &q);
        assert_true(rc == CUZK_OK || rc == CUZK_EFORMAT);
        if (rc == CUZK_OK) ok++, groth16_params_free(q);
        else bad++, assert_true(strlen(cuzk_last_error()) > 10);
        groth16_vk vk;
        rc = groth16_vk_parse(m, n, &vk);
        assert_true(rc == CUZK_OK || rc == CUZK_EFORMAT);
        groth16_vk_clear(&vk);
    }
    assert_true(bad > 0);
    free(m);
    free(buf);
    groth16_params_free(p);
}

static void files(void **state)
{
    (void)state;
    groth16_params *q = (groth16_params *)0x1;
    assert_int_equal(groth16_params_load("/nonexistent/cuzk.params", 0, NULL, &q), CUZK_EIO);
    assert_non_null(strstr(cuzk_last_error(), "/nonexistent/cuzk.params"));
    assert_null(q);
    assert_int_equal(groth16_params_load("/tmp", 0, NULL, &q), CUZK_EIO);
    char path[256];
    tmp_path(path, sizeof path, "empty.params");
    FILE *f = fopen(path, "wb");
    fclose(f);
    assert_int_equal(groth16_params_load(path, 0, NULL, &q), CUZK_EFORMAT);
    assert_non_null(strstr(cuzk_last_error(), "truncated"));
    assert_non_null(strstr(cuzk_last_error(), path));
    unlink(path);
    groth16_params *p = rand_params(1, 1, 1, 1, 1);
    assert_int_equal(groth16_params_write("/nonexistent/dir/x.params", p), CUZK_EIO);
    assert_int_equal(groth16_vk_write("/nonexistent/dir/x.vk", &p->vk), CUZK_EIO);
    if (access("/dev/full", W_OK) == 0) {
        assert_int_equal(groth16_params_write("/dev/full", p), CUZK_EIO);
    }
    groth16_params_free(p);
    groth16_params_free(NULL);
    groth16_vk_clear(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trips),
        cmocka_unit_test(generator_bytes_follow_formats_md),
        cmocka_unit_test(truncations_and_counts),
        cmocka_unit_test(bad_points),
        cmocka_unit_test(first_error_wins_in_parallel),
        cmocka_unit_test(random_corruption_never_crashes),
        cmocka_unit_test(files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
