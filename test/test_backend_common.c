/* The helpers the backends share (lib/backend/backend_common.c): the domain size, the
 * below-r check at its edges (r - 1, r, r + 1, the top limb alone), and r / s taken from a
 * partition in either scalar form or from the OS. Oracles: the modulus written out here, and
 * fr_from_mont (the inverse conversion) for the form handling. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "backend/backend_common.h"
#include "support/testutil.h"

/* r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 */
static const cuzk_fr R = {{0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                           0x73eda753299d7d48ull}};

static void log2_ceil_edges(void **state)
{
    (void)state;
    assert_int_equal(backend_log2_ceil(0), 0);
    assert_int_equal(backend_log2_ceil(1), 0);
    assert_int_equal(backend_log2_ceil(2), 1);
    assert_int_equal(backend_log2_ceil(3), 2);
    assert_int_equal(backend_log2_ceil(4), 2);
    assert_int_equal(backend_log2_ceil(5), 3);
    assert_int_equal(backend_log2_ceil((1ull << 27) + 1), 28);
    assert_int_equal(backend_log2_ceil(1ull << 63), 63);
    assert_int_equal(backend_log2_ceil((1ull << 63) + 1), 64);
    for (int i = 0; i < 1000; i++) { /* against the definition */
        uint64_t n = test_rand64() >> (test_rand64() % 64);
        unsigned k = backend_log2_ceil(n);
        if (n > 1) assert_true(k < 64 ? (1ull << k) >= n : 1);
        if (k) assert_true((1ull << (k - 1)) < n);
    }
}

static void below_r_edges(void **state)
{
    (void)state;
    cuzk_fr x = R;
    assert_int_equal(backend_fr_below_r(&x), 0); /* r itself */
    x.l[0]--;
    assert_int_equal(backend_fr_below_r(&x), 1); /* r - 1 */
    x = R;
    x.l[0]++;
    assert_int_equal(backend_fr_below_r(&x), 0); /* r + 1 */
    memset(&x, 0, sizeof x);
    assert_int_equal(backend_fr_below_r(&x), 1);
    memset(&x, 0xff, sizeof x);
    assert_int_equal(backend_fr_below_r(&x), 0);
    x = (cuzk_fr){{0, 0, 0, R.l[3]}}; /* top limb equal, rest below */
    assert_int_equal(backend_fr_below_r(&x), 1);
    x = (cuzk_fr){{0, 0, R.l[2] + 1, R.l[3]}};
    assert_int_equal(backend_fr_below_r(&x), 0);
    x = (cuzk_fr){{~0ull, ~0ull, ~0ull, R.l[3] - 1}};
    assert_int_equal(backend_fr_below_r(&x), 1);
}

static void pick_rs_forms(void **state)
{
    (void)state;
    test_seed();
    for (int i = 0; i < 200; i++) {
        cuzk_fr c = {{test_rand64(), test_rand64(), test_rand64(), test_rand64() % R.l[3]}};
        fr_t m, back;
        assert_int_equal(backend_pick_rs(&m, &c, CUZK_FR_CANONICAL, "r"), CUZK_OK);
        fr_from_mont(&back, &m); /* canonical in, Montgomery out */
        assert_memory_equal(&back, &c, sizeof c);
        assert_int_equal(backend_pick_rs(&m, &c, CUZK_FR_MONTGOMERY, "s"), CUZK_OK);
        assert_memory_equal(&m, &c, sizeof c); /* already Montgomery: copied */
    }
    fr_t out;
    assert_int_equal(backend_pick_rs(&out, &R, CUZK_FR_CANONICAL, "r"), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "r is not below r"));
    assert_int_equal(backend_pick_rs(&out, &R, CUZK_FR_MONTGOMERY, "s"), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "s is not below r"));
    /* from the OS: below r, and not the same twice */
    fr_t a, b;
    assert_int_equal(backend_pick_rs(&a, NULL, CUZK_FR_CANONICAL, "r"), CUZK_OK);
    assert_int_equal(backend_pick_rs(&b, NULL, CUZK_FR_CANONICAL, "r"), CUZK_OK);
    assert_true(backend_fr_below_r((const cuzk_fr *)&a) && backend_fr_below_r((const cuzk_fr *)&b));
    assert_memory_not_equal(&a, &b, sizeof a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(log2_ceil_edges),
        cmocka_unit_test(below_r_edges),
        cmocka_unit_test(pick_rs_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
