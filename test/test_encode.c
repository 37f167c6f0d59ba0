/*
 * The zcash encodings: known answers for k·G (computed independently with plain affine
 * arithmetic on Python integers), round trips, and every malformed kind rejected with
 * its reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "field/curve.h"
#include "support/fieldtest.h"
#include "support/testutil.h"

/* k (hex), then k·G1 compressed and uncompressed, k·G2 compressed and uncompressed. */
static const struct { const char *k, *g1c, *g1u, *g2c, *g2u; } KAT[] = {
    {"1", "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb", "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1", "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8", "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb80606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"},
    {"2", "a572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e", "0572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e166a9d8cabc673a322fda673779d8e3822ba3ecb8670e461f73bb9021d5fd76a4c56d9d4cd16bd1bba86881979749d28", "aa4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c335771638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a053", "0a4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c335771638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a0530f6d4552fa65dd2638b361543f887136a43253d9c66c411697003f7a13c308f5422e1aa0a59c8967acdefd8b6e36ccf30468fb440d82b0630aeb8dca2b5256789a66da69bf91009cbfe6bd221e47aa8ae88dece9764bf3bd999d95d71e4c9899"},
    {"3", "89ece308f9d1f0131765212deca99697b112d61f9be9a5f1f3780a51335b3ff981747a0b2ca2179b96d2c0c9024e5224", "09ece308f9d1f0131765212deca99697b112d61f9be9a5f1f3780a51335b3ff981747a0b2ca2179b96d2c0c9024e5224032b80d3a6f5b09f8a84623389c5f80ca69a0cddabc3097f9d9c27310fd43be6e745256c634af45ca3473b0590ae30d1", "89380275bbc8e5dcea7dc4dd7e0550ff2ac480905396eda55062650f8d251c96eb480673937cc6d9d6a44aaa56ca66dc122915c824a0857e2ee414a3dccb23ae691ae54329781315a0c75df1c04d6d7a50a030fc866f09d516020ef82324afae", "09380275bbc8e5dcea7dc4dd7e0550ff2ac480905396eda55062650f8d251c96eb480673937cc6d9d6a44aaa56ca66dc122915c824a0857e2ee414a3dccb23ae691ae54329781315a0c75df1c04d6d7a50a030fc866f09d516020ef82324afae08f239ba329b3967fe48d718a36cfe5f62a7e42e0bf1c1ed714150a166bfbd6bcf6b3b58b975b9edea56d53f23a0e8490b21da7955969e61010c7a1abc1a6f0136961d1e3b20b1a7326ac738fef5c721479dfd948b52fdf2455e44813ecfd892"},
    {"5", "b0e7791fb972fe014159aa33a98622da3cdc98ff707965e536d8636b5fcc5ac7a91a8c46e59a00dca575af0f18fb13dc", "10e7791fb972fe014159aa33a98622da3cdc98ff707965e536d8636b5fcc5ac7a91a8c46e59a00dca575af0f18fb13dc16ba437edcc6551e30c10512367494bfb6b01cc6681e8a4c3cd2501832ab5c4abc40b4578b85cbaffbf0bcd70d67c6e2", "80fb837804dba8213329db46608b6c121d973363c1234a86dd183baff112709cf97096c5e9a1a770ee9d7dc641a894d60411a5de6730ffece671a9f21d65028cc0f1102378de124562cb1ff49db6f004fcd14d683024b0548eff3d1468df2688", "00fb837804dba8213329db46608b6c121d973363c1234a86dd183baff112709cf97096c5e9a1a770ee9d7dc641a894d60411a5de6730ffece671a9f21d65028cc0f1102378de124562cb1ff49db6f004fcd14d683024b0548eff3d1468df2688093567b4228be17ee62d11a254edd041ee4b953bffb8b8c7f925bd6662b4298bac2822b446f5b5de3b893e1be5aa498619b5e8f5d4a72f2b75811ac084a7f814317360bac52f6aab15eed416b4ef9938e0bdc4865cc2c4d0fd947e7c6925fd14"},
    {"7", "b928f3beb93519eecf0145da903b40a4c97dca00b21f12ac0df3be9116ef2ef27b2ae6bcd4c5bc2d54ef5a70627efcb7", "1928f3beb93519eecf0145da903b40a4c97dca00b21f12ac0df3be9116ef2ef27b2ae6bcd4c5bc2d54ef5a70627efcb7108dadbaa4b636445639d5ae3089b3c43a8a1d47818edd1839d7383959a41c10fdc66849cfa1b08c5a11ec7e28981a1c", "8d0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c", "0d0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c05ecf93654b7a1885695aaeeb7caf41b0239dc45e1022be55d37111af2aecef87799638bec572de86a7437898efa702008b7ae4dbf802c17a6648842922c9467e460a71c88d393ee7af356da123a2f3619e80c3bdcc8e2b1da52f8cd9913ccdd"},
    {"deadbeef", "acccb5bab2944a1bdc721c97f3affa035d507c78fe442a9284982bd4c27617b33f1d46e8191a1eda03d73c357752d219", "0cccb5bab2944a1bdc721c97f3affa035d507c78fe442a9284982bd4c27617b33f1d46e8191a1eda03d73c357752d21917d27921bb2a717e559a1cc2c6985a2ef9307ca300a00efe022f8fa90a468cf6875ecdeed4494191177a79564359ff26", "a2910866ede42789c685af186234bfe4664e270ed447d2d142a159cf0cf9bac6c3789d558ea2e24b60e48ceb8b960fa8115fd914427334b6c45a823e1e011b6b2aa513f95fd64c956128fd631857945adf8aa7b0364ceea737c0671fd939219e", "02910866ede42789c685af186234bfe4664e270ed447d2d142a159cf0cf9bac6c3789d558ea2e24b60e48ceb8b960fa8115fd914427334b6c45a823e1e011b6b2aa513f95fd64c956128fd631857945adf8aa7b0364ceea737c0671fd939219e12bbd53068f254df7b51bcb98a77a95ab3e379edee6da5160321d17754180b12a8f5f5fe1893eecafa7ac22fcbae1b120828d1cb5907302bfb96323b4112cc728ff1841c2cef36938c41ba5a1b36e37ac83c85fc03bed3ed8d270da349ac776b"},
    {"100000000000000000000000000000003", "b207360de2e6b5a82c7616595fb9cd5654d2c0c0a8e006667108a87459d1f64d7c9d31e2940e24ecb3a8864ff4b325f5", "1207360de2e6b5a82c7616595fb9cd5654d2c0c0a8e006667108a87459d1f64d7c9d31e2940e24ecb3a8864ff4b325f512168511b6d947391539421489d400706b0783db0bffa7410579fc615089e7df9ba847cc719c3a001154129637237012", "b08d669f5a5bf4ea8440561290074fb55c2423c7786f18d51f5d3cff7190a877b40b4b6b41aaaa78c953b5db7a5d0b6c07abbda16cdf350e2c66137f1dcf118f4ee43882ab48f9f93bdea2b41ddb48dfd98eaf39d97dbcfb461dc8d73de55c94", "108d669f5a5bf4ea8440561290074fb55c2423c7786f18d51f5d3cff7190a877b40b4b6b41aaaa78c953b5db7a5d0b6c07abbda16cdf350e2c66137f1dcf118f4ee43882ab48f9f93bdea2b41ddb48dfd98eaf39d97dbcfb461dc8d73de55c941993333e872a33d487276e266f212cb3ff7881f89365cf53c38ad6fb033579b32b39563ce3cb99ab4164fee2a3687f48017f9692e15de4c5fa8d0d7c0efe6bdcfc4a765a59e8f080a05f01583c3bd11dc67f9b3829c50d1d30fde5b3bc785f4d"},
    {"73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000", "b7f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb", "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb114d1d6855d545a8aa7d76c8cf2e21f267816aef1db507c96655b9d5caac42364e6f38ba0ecb751bad54dcd6b939c2ca", "b3e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8", "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb813fa4d4a0ad8b1ce186ed5061789213d993923066dddaf1040bc3ff59f825c78df74f2d75467e25e0f55f8a00fa030ed0d1b3cc2c7027888be51d9ef691d77bcb679afda66c73f17f9ee3837a55024f78c71363275a75d75d86bab79f74782aa"},
};

static void unhex(uint8_t *out, const char *hex)
{
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) sscanf(hex + 2 * i, "%2hhx", &out[i]);
}

static void assert_hex(const uint8_t *got, size_t len, const char *want)
{
    char buf[400];
    ft_tohex(buf, got, len);
    assert_string_equal(buf, want);
}

static void known_answers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof KAT / sizeof KAT[0]; i++) {
        fr_t k;
        ft_hex(k.l, 4, KAT[i].k);
        g1_jac j1;
        g2_jac j2;
        g1_aff a1, d1;
        g2_aff a2, d2;
        uint8_t buf[192];
        g1_jac_from_aff(&j1, &G1_GENERATOR);
        g1_jac_mul(&j1, &j1, &k);
        g1_jac_to_aff(&a1, &j1);
        g2_jac_from_aff(&j2, &G2_GENERATOR);
        g2_jac_mul(&j2, &j2, &k);
        g2_jac_to_aff(&a2, &j2);
        g1_encode_compressed(buf, &a1);
        assert_hex(buf, 48, KAT[i].g1c);
        g1_encode_uncompressed(buf, &a1);
        assert_hex(buf, 96, KAT[i].g1u);
        g2_encode_compressed(buf, &a2);
        assert_hex(buf, 96, KAT[i].g2c);
        g2_encode_uncompressed(buf, &a2);
        assert_hex(buf, 192, KAT[i].g2u);
        /* And back. */
        unhex(buf, KAT[i].g1c);
        assert_int_equal(g1_decode(&d1, buf, 48, 1), POINT_OK);
        assert_memory_equal(&d1, &a1, sizeof d1);
        unhex(buf, KAT[i].g1u);
        assert_int_equal(g1_decode(&d1, buf, 96, 1), POINT_OK);
        assert_memory_equal(&d1, &a1, sizeof d1);
        unhex(buf, KAT[i].g2c);
        assert_int_equal(g2_decode(&d2, buf, 96, 1), POINT_OK);
        assert_memory_equal(&d2, &a2, sizeof d2);
        unhex(buf, KAT[i].g2u);
        assert_int_equal(g2_decode(&d2, buf, 192, 1), POINT_OK);
        assert_memory_equal(&d2, &a2, sizeof d2);
    }
}

static void infinity(void **state)
{
    (void)state;
    g1_aff i1, d1;
    g2_aff i2, d2;
    memset(&i1, 0, sizeof i1);
    memset(&i2, 0, sizeof i2);
    uint8_t buf[192], want[192] = {0};
    g1_encode_compressed(buf, &i1);
    want[0] = 0xc0;
    assert_memory_equal(buf, want, 48);
    memset(&d1, 0xff, sizeof d1);
    assert_int_equal(g1_decode(&d1, buf, 48, 1), POINT_OK);
    assert_true(g1_aff_is_inf(&d1));
    g2_encode_compressed(buf, &i2);
    assert_memory_equal(buf, want, 96);
    assert_int_equal(g2_decode(&d2, buf, 96, 1), POINT_OK);
    assert_true(g2_aff_is_inf(&d2));
    want[0] = 0x40;
    g1_encode_uncompressed(buf, &i1);
    assert_memory_equal(buf, want, 96);
    assert_int_equal(g1_decode(&d1, buf, 96, 1), POINT_OK);
    assert_true(g1_aff_is_inf(&d1));
    g2_encode_uncompressed(buf, &i2);
    assert_memory_equal(buf, want, 192);
    assert_int_equal(g2_decode(&d2, buf, 192, 1), POINT_OK);
    assert_true(g2_aff_is_inf(&d2));
}

static void random_round_trips(void **state)
{
    (void)state;
    for (int i = 0; i < 30; i++) {
        fr_t k;
        ft_rand_fr_canonical(&k);
        g1_jac j1;
        g2_jac j2;
        g1_aff a1, d1;
        g2_aff a2, d2;
        uint8_t buf[192];
        g1_jac_from_aff(&j1, &G1_GENERATOR);
        g1_jac_mul(&j1, &j1, &k);
        g1_jac_to_aff(&a1, &j1);
        g2_jac_from_aff(&j2, &G2_GENERATOR);
        g2_jac_mul(&j2, &j2, &k);
        g2_jac_to_aff(&a2, &j2);
        for (int neg = 0; neg < 2; neg++) { /* both signs of y */
            g1_encode_compressed(buf, &a1);
            assert_int_equal(g1_decode(&d1, buf, 48, 1), POINT_OK);
            assert_memory_equal(&d1, &a1, sizeof d1);
            g1_encode_uncompressed(buf, &a1);
            assert_int_equal(g1_decode(&d1, buf, 96, 0), POINT_OK);
            assert_memory_equal(&d1, &a1, sizeof d1);
            g2_encode_compressed(buf, &a2);
            assert_int_equal(g2_decode(&d2, buf, 96, 0), POINT_OK);
            assert_memory_equal(&d2, &a2, sizeof d2);
            g2_encode_uncompressed(buf, &a2);
            assert_int_equal(g2_decode(&d2, buf, 192, 1), POINT_OK);
            assert_memory_equal(&d2, &a2, sizeof d2);
            g1_aff_neg(&a1, &a1);
            g2_aff_neg(&a2, &a2);
        }
    }
}

/* Adds p to the 48-byte big-endian field at buf (keeping its flag bits): a non-canonical
 * encoding of the same value whenever the sum still fits under the flags. */
static int add_p(uint8_t *buf)
{
    uint8_t flags = buf[0] & 0xe0;
    buf[0] &= 0x1f;
    unsigned c = 0;
    for (int i = 47; i >= 0; i--) {
        int limb = (47 - i) / 8, sh = 8 * ((47 - i) % 8);
        unsigned s = buf[i] + (unsigned)((FP_MODULUS[limb] >> sh) & 0xff) + c;
        buf[i] = (uint8_t)s;
        c = s >> 8;
    }
    int fits = !(buf[0] & 0xe0);
    buf[0] |= flags;
    return fits;
}

/* Replaces the 48-byte field at buf by v + p, keeping its flag bits. */
static void set_small_plus_p(uint8_t *buf, uint8_t v)
{
    uint8_t flags = buf[0] & 0xe0;
    memset(buf, 0, 48);
    buf[47] = v;
    assert_true(add_p(buf));
    buf[0] |= flags;
}

/* Flag and length rules, the same shape for both groups: n is the compressed length. */
static void flag_rules(int (*decode)(const uint8_t *, size_t), size_t n, const uint8_t *comp,
                       const uint8_t *unc)
{
    uint8_t buf[192];
    /* Lengths other than n and 2n. */
    size_t bad_len[] = {0, 1, n - 1, n + 1, 2 * n - 1, 2 * n + 1};
    uint8_t big[200] = {0};
    memcpy(big, unc, 2 * n);
    for (size_t i = 0; i < 6; i++) assert_int_equal(decode(big, bad_len[i]), POINT_ELENGTH);
    /* The compression bit must agree with the length. */
    memcpy(buf, comp, n);
    buf[0] &= 0x7f;
    assert_int_equal(decode(buf, n), POINT_EFLAGS);
    memcpy(buf, unc, 2 * n);
    buf[0] |= 0x80;
    assert_int_equal(decode(buf, 2 * n), POINT_EFLAGS);
    /* Sort bit on an uncompressed point. */
    memcpy(buf, unc, 2 * n);
    buf[0] |= 0x20;
    assert_int_equal(decode(buf, 2 * n), POINT_EFLAGS);
    /* Infinity flag on a real point, with the sort bit, with a stray bit anywhere. */
    memcpy(buf, comp, n);
    buf[0] |= 0x40;
    assert_int_equal(decode(buf, n), POINT_EFLAGS);
    memcpy(buf, unc, 2 * n);
    buf[0] |= 0x40;
    assert_int_equal(decode(buf, 2 * n), POINT_EFLAGS);
    for (int form = 0; form < 2; form++) {
        size_t len = form ? 2 * n : n;
        uint8_t flag = form ? 0x40 : 0xc0;
        memset(buf, 0, len);
        buf[0] = flag;
        assert_int_equal(decode(buf, len), POINT_OK);
        buf[0] = flag | 0x20;
        assert_int_equal(decode(buf, len), POINT_EFLAGS);
        buf[0] = flag | 0x01;
        assert_int_equal(decode(buf, len), POINT_EFLAGS);
        buf[0] = flag;
        buf[len - 1] = 1;
        assert_int_equal(decode(buf, len), POINT_EFLAGS);
        buf[len - 1] = 0;
        buf[len / 2] = 0x80;
        assert_int_equal(decode(buf, len), POINT_EFLAGS);
    }
    /* All zeros without the infinity flag is (0, 0): off the curve, not infinity. */
    memset(buf, 0, 2 * n);
    assert_int_equal(decode(buf, 2 * n), POINT_ENOTONCURVE);
    /* Compressed 0x80 + zeros is x = 0: on G1 and G2, x^3 + b has a root, so it decodes
     * (to a point outside the subgroup, caught when asked). Checked per group below. */
}

static int dec_g1(const uint8_t *in, size_t len) { g1_aff p; return g1_decode(&p, in, len, 1); }
static int dec_g2(const uint8_t *in, size_t len) { g2_aff p; return g2_decode(&p, in, len, 1); }
static int dec_g1_nosub(const uint8_t *in, size_t len) { g1_aff p; return g1_decode(&p, in, len, 0); }
static int dec_g2_nosub(const uint8_t *in, size_t len) { g2_aff p; return g2_decode(&p, in, len, 0); }

static void malformed(void **state)
{
    (void)state;
    uint8_t c1[48], u1[96], c2[96], u2[192], buf[192];
    g1_encode_compressed(c1, &G1_GENERATOR);
    g1_encode_uncompressed(u1, &G1_GENERATOR);
    g2_encode_compressed(c2, &G2_GENERATOR);
    g2_encode_uncompressed(u2, &G2_GENERATOR);
    flag_rules(dec_g1, 48, c1, u1);
    flag_rules(dec_g2, 96, c2, u2);

    /* Non-canonical coordinates: each coordinate in turn replaced by 3 + p (the flags
     * kept), the others left valid. The range check comes before any curve check. */
    memcpy(buf, c1, 48);
    set_small_plus_p(buf, 3);
    assert_int_equal(dec_g1(buf, 48), POINT_ENONCANONICAL);
    for (int c = 0; c < 2; c++) {
        memcpy(buf, u1, 96);
        set_small_plus_p(buf + 48 * c, 3);
        assert_int_equal(dec_g1(buf, 96), POINT_ENONCANONICAL);
    }
    for (int c = 0; c < 4; c++) {
        memcpy(buf, u2, 192);
        set_small_plus_p(buf + 48 * c, 3);
        assert_int_equal(dec_g2(buf, 192), POINT_ENONCANONICAL);
        if (c < 2) {
            memcpy(buf, c2, 96);
            set_small_plus_p(buf + 48 * c, 3);
            assert_int_equal(dec_g2(buf, 96), POINT_ENONCANONICAL);
        }
    }
    /* x = p exactly and x = all ones under the flags. */
    memset(buf, 0, 96);
    add_p(buf);
    buf[0] |= 0x80;
    assert_int_equal(dec_g1(buf, 48), POINT_ENONCANONICAL);
    memset(buf, 0xff, 96);
    assert_int_equal(dec_g1(buf, 48), POINT_EFLAGS); /* 0xff carries the infinity flag */
    buf[0] = 0x9f;
    assert_int_equal(dec_g1(buf, 48), POINT_ENONCANONICAL);
    buf[0] = 0x9f;
    assert_int_equal(dec_g2(buf, 96), POINT_ENONCANONICAL);
    /* The second half of a G2 x cannot hide flags: its top bits make it >= p. */
    memcpy(buf, c2, 96);
    buf[48] |= 0x80;
    assert_int_equal(dec_g2(buf, 96), POINT_ENONCANONICAL);

    /* Off the curve: y + 1. */
    memcpy(buf, u1, 96);
    buf[95] ^= 1;
    assert_int_equal(dec_g1(buf, 96), POINT_ENOTONCURVE);
    memcpy(buf, u2, 192);
    buf[191] ^= 1;
    assert_int_equal(dec_g2(buf, 192), POINT_ENOTONCURVE);
    memcpy(buf, u2, 192);
    buf[100] ^= 1; /* y.c1 */
    assert_int_equal(dec_g2(buf, 192), POINT_ENOTONCURVE);

    /* No square root, and points outside the subgroup: walk x = 1, 2, ... and sort each
     * by what x^3 + b is; both kinds turn up within a few steps. */
    int nosqrt1 = 0, nosub1 = 0, nosqrt2 = 0, nosub2 = 0;
    for (unsigned x = 0; x < 40; x++) {
        memset(buf, 0, 192);
        buf[47] = (uint8_t)x;
        buf[0] |= 0x80;
        g1_aff p;
        int rc = g1_decode(&p, buf, 48, 0);
        if (rc == POINT_ENOSQRT) nosqrt1++;
        else {
            assert_int_equal(rc, POINT_OK);
            assert_int_equal(dec_g1(buf, 48), POINT_ENOTINSUBGROUP);
            g1_encode_uncompressed(buf, &p); /* the same point uncompressed */
            assert_int_equal(dec_g1(buf, 96), POINT_ENOTINSUBGROUP);
            assert_int_equal(dec_g1_nosub(buf, 96), POINT_OK);
            nosub1++;
        }
        memset(buf, 0, 192);
        buf[95] = (uint8_t)x; /* x.c0 = x, x.c1 = 1 */
        buf[47] = 1;
        buf[0] |= 0x80;
        g2_aff q;
        rc = g2_decode(&q, buf, 96, 0);
        if (rc == POINT_ENOSQRT) nosqrt2++;
        else {
            assert_int_equal(rc, POINT_OK);
            assert_int_equal(dec_g2(buf, 96), POINT_ENOTINSUBGROUP);
            g2_encode_uncompressed(buf, &q);
            assert_int_equal(dec_g2(buf, 192), POINT_ENOTINSUBGROUP);
            assert_int_equal(dec_g2_nosub(buf, 192), POINT_OK);
            nosub2++;
        }
    }
    assert_true(nosqrt1 && nosub1 && nosqrt2 && nosub2);
}

static void reasons_have_names(void **state)
{
    (void)state;
    for (int r = POINT_ELENGTH; r <= POINT_OK; r++) {
        assert_non_null(point_strerror(r));
        assert_null(strstr(point_strerror(r), "unknown"));
        for (int s = r + 1; s <= POINT_OK; s++) assert_string_not_equal(point_strerror(r), point_strerror(s));
    }
    assert_non_null(strstr(point_strerror(-99), "unknown"));
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_answers),
        cmocka_unit_test(infinity),
        cmocka_unit_test(random_round_trips),
        cmocka_unit_test(malformed),
        cmocka_unit_test(reasons_have_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
