/* SHA-256 against FIPS 180-4 / NIST vectors and Python hashlib digests at every padding
 * boundary, fed in one piece and in random pieces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sha256.h"
#include "support/testutil.h"

static void hex32(uint8_t out[32], const char *hex)
{
    for (int i = 0; i < 32; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* Digests computed with Python's hashlib (an independent implementation). */
static const struct { size_t len; char fill; const char *msg, *digest; } vectors[] = {
    {0, 0, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {3, 0, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {56, 0, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {55, 'a', NULL, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
    {56, 'a', NULL, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
    {63, 'a', NULL, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
    {64, 'a', NULL, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
    {119, 'a', NULL, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
    {1000000, 'a', NULL, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
};

static uint8_t *message(size_t i)
{
    uint8_t *m = malloc(vectors[i].len + 1);
    assert_non_null(m);
    if (vectors[i].msg) memcpy(m, vectors[i].msg, vectors[i].len);
    else memset(m, vectors[i].fill, vectors[i].len);
    return m;
}

static void known_vectors_one_shot(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        uint8_t *m = message(i), got[32], want[32];
        sha256(got, m, vectors[i].len);
        hex32(want, vectors[i].digest);
        assert_memory_equal(got, want, 32);
        free(m);
    }
}

static void known_vectors_in_random_pieces(void **state)
{
    (void)state;
    test_seed();
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        uint8_t *m = message(i), got[32], want[32];
        for (int round = 0; round < 4; round++) {
            sha256_ctx c;
            sha256_init(&c);
            size_t at = 0;
            while (at < vectors[i].len) {
                size_t step = test_rand64() % (round < 2 ? 70 : 5000);
                if (step > vectors[i].len - at) step = vectors[i].len - at;
                sha256_update(&c, m + at, step);
                at += step;
            }
            sha256_final(&c, got);
            hex32(want, vectors[i].digest);
            assert_memory_equal(got, want, 32);
        }
        free(m);
    }
}

static void a_changed_bit_changes_the_digest(void **state)
{
    (void)state;
    uint8_t m[100] = {0}, d0[32], d1[32];
    sha256(d0, m, sizeof m);
    m[99] ^= 1;
    sha256(d1, m, sizeof m);
    assert_memory_not_equal(d0, d1, 32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_vectors_one_shot),
        cmocka_unit_test(known_vectors_in_random_pieces),
        cmocka_unit_test(a_changed_bit_changes_the_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
