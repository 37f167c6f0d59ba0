/*
 * The FP64 Fr multiplier (kernels/field/fr52.h: 52-bit limbs in doubles, exact limb products
 * from two FMAs) run on the host, against the CPU field's fr_mul (64-bit limbs, integer
 * Montgomery): random values and edge values, inputs up to 2^255 - 1 (not only below r).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "field/field.h"
#include "field/fr52.h"
#include "support/testutil.h"

#define RANDOM_PAIRS 20000

/* x - r when x >= r (x < 2^255 < 2r): the residue fr_mul takes. */
static fr_t reduced(const uint64_t *x)
{
    fr_t t;
    memcpy(t.l, x, sizeof t.l);
    fr52_reduce_once(t.l);
    return t;
}

static int check_pair(const uint64_t *a, const uint64_t *b)
{
    uint64_t got[4];
    fr52_mul(got, a, b);
    fr_t ra = reduced(a), rb = reduced(b), want;
    fr_mul(&want, &ra, &rb);
    if (!memcmp(got, want.l, sizeof got)) return 0;
    fprintf(stderr, "fr52_mul mismatch\n  a    %016llx%016llx%016llx%016llx\n  b    %016llx%016llx%016llx%016llx\n"
            "  got  %016llx%016llx%016llx%016llx\n  want %016llx%016llx%016llx%016llx\n",
            (unsigned long long)a[3], (unsigned long long)a[2], (unsigned long long)a[1], (unsigned long long)a[0],
            (unsigned long long)b[3], (unsigned long long)b[2], (unsigned long long)b[1], (unsigned long long)b[0],
            (unsigned long long)got[3], (unsigned long long)got[2], (unsigned long long)got[1], (unsigned long long)got[0],
            (unsigned long long)want.l[3], (unsigned long long)want.l[2], (unsigned long long)want.l[1],
            (unsigned long long)want.l[0]);
    return 1;
}

/* Edge values: 0, 1, 2, r-1, r-2, 2^255-1 and below, 2^k - 1 (all-ones 52- and 64-bit
 * limbs), single bits, 52-bit limbs all at 2^52 - 1 or 0 in turn. */
static int edge_values(uint64_t (*v)[4])
{
    int n = 0;
    memset(v, 0, sizeof(uint64_t[96][4]));
    v[n++][0] = 0;
    v[n++][0] = 1;
    v[n++][0] = 2;
    for (int d = 1; d <= 3; d++, n++) { /* r - d */
        memcpy(v[n], FR_MODULUS, 32);
        v[n][0] -= (uint64_t)d;
    }
    for (int d = 1; d <= 3; d++, n++) { /* 2^255 - d */
        v[n][0] = 0 - (uint64_t)d, v[n][1] = v[n][2] = ~0ull, v[n][3] = ~0ull >> 1;
    }
    static const int ks[] = {51, 52, 53, 64, 103, 104, 128, 156, 192, 208, 209, 254};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++, n++) /* 2^k - 1 */
        for (int b = 0; b < ks[i]; b++) v[n][b / 64] |= 1ull << (b % 64);
    static const int bits[] = {0, 31, 32, 51, 52, 63, 64, 103, 104, 155, 156, 207, 208, 253, 254};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++, n++) v[n][bits[i] / 64] = 1ull << (bits[i] % 64);
    for (int mask = 1; mask < 32; mask++, n++) /* 52-bit limbs all ones where mask says */
        for (int l = 0; l < 5; l++)
            if (mask >> l & 1)
                for (int b = 52 * l; b < 52 * l + 52 && b < 255; b++) v[n][b / 64] |= 1ull << (b % 64);
    return n;
}

static void fr52_edges(void **state)
{
    (void)state;
    uint64_t v[96][4];
    const int n = edge_values(v);
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) bad += check_pair(v[i], v[j]) && bad < 5;
    assert_int_equal(bad, 0);
}

static void rand_below_2_255(uint64_t *x)
{
    test_rand_bytes(x, 32);
    x[3] >>= 1 + test_rand64() % 2; /* half of them below 2^254, i.e. mostly below r too */
}

static void fr52_random(void **state)
{
    (void)state;
    int bad = 0;
    for (int i = 0; i < RANDOM_PAIRS; i++) {
        uint64_t a[4], b[4];
        rand_below_2_255(a), rand_below_2_255(b);
        bad += check_pair(a, b) && bad < 5;
        uint64_t a2[4];
        memcpy(a2, a, sizeof a2);
        fr52_mul(a2, a2, b); /* in place, and products of products */
        bad += check_pair(a2, a2) && bad < 5;
    }
    assert_int_equal(bad, 0);
}

/* The column corrections add up: the 50 terms' exponent bits per product, counted again. */
static void fr52_corrections(void **state)
{
    (void)state;
    uint64_t want[10] = {0};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            want[i + j] -= 2 * FR52_E52; /* a_i·b_j and m_i·r_j, low halves */
            want[i + j + 1] -= 2 * FR52_E104;
        }
    for (int k = 0; k < 10; k++) assert_true(fr52_corr(k) == want[k]);
    /* r from its limbs */
    uint64_t r[4] = {0};
    for (int j = 0; j < 5; j++) {
        const uint64_t l = (uint64_t)fr52_r(j);
        for (int b = 0; b < 52; b++)
            if (l >> b & 1) r[(52 * j + b) / 64] |= 1ull << ((52 * j + b) % 64);
    }
    assert_memory_equal(r, FR_MODULUS, sizeof r);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fr52_corrections),
        cmocka_unit_test(fr52_edges),
        cmocka_unit_test(fr52_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
