/*
 * GPU Fr, Fp and Fp2 arithmetic (kernels/field), the FP64 Fr product too, against a slow
 * big-integer reference (test/gpu/bigref.h) on fresh random inputs plus edge values (0, 1,
 * p-1, carry-heavy patterns). Exits 77 without a CUDA device.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bigref.h"
#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "field/field_ops.h"
#include "support/gputest.h"
#include "support/testutil.h"

static const uint32_t FR_M[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                 0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
/* p from its big-endian hex (FORMATS.md), so a typo in the kernels' table shows up here. */
static const char *FP_HEX = "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
static uint32_t FP_M[12];

#define COUNT 3000

static void hex_to_limbs(uint32_t *out, int n, const char *hex)
{
    memset(out, 0, (size_t)n * 4);
    size_t len = strlen(hex);
    for (size_t i = 0; i < len; i++) {
        char c = hex[len - 1 - i];
        uint32_t v = (uint32_t)(c <= '9' ? c - '0' : c - 'a' + 10);
        out[i / 8] |= v << (4 * (i % 8));
    }
}

/* A canonical value < m: uniform, or (one time in three) an edge value. */
static void rand_elem(uint32_t *x, const uint32_t *m, int n)
{
    uint64_t pick = test_rand64() % 12;
    if (pick < 8) {
        int top = 31;
        while (!((m[n - 1] >> top) & 1)) top--;
        do {
            test_rand_bytes(x, (uint64_t)n * 4);
            x[n - 1] &= (top == 31) ? 0xffffffffu : ((2u << top) - 1);
        } while (big_cmp(x, m, n) >= 0);
        return;
    }
    memset(x, 0, (size_t)n * 4);
    uint32_t small = (uint32_t)(test_rand64() % 4);
    switch (pick) {
    case 8: x[0] = small; break;                                  /* 0, 1, 2, 3 */
    case 9: { /* m - 1 - small */
        uint64_t borrow = 1 + small;
        for (int i = 0; i < n; i++) {
            uint64_t d = (uint64_t)m[i] - (borrow & 0xffffffff);
            x[i] = (uint32_t)d;
            borrow = (d >> 63) & 1;
        }
        break;
    }
    case 10: /* a run of all-ones limbs, below m */
        for (int i = 0; i < n - 1; i++) x[i] = 0xffffffffu;
        break;
    default: /* one set bit */
        { int b = (int)(test_rand64() % (uint64_t)(32 * n - 3)); x[b / 32] = 1u << (b % 32); }
    }
}

static void fail_dump(const char *what, size_t i, const uint32_t *got, const uint32_t *want, int n)
{
    fprintf(stderr, "%s mismatch at %zu\n  got  ", what, i);
    for (int k = n - 1; k >= 0; k--) fprintf(stderr, "%08x", got[k]);
    fprintf(stderr, "\n  want ");
    for (int k = n - 1; k >= 0; k--) fprintf(stderr, "%08x", want[k]);
    fprintf(stderr, "\n");
}

/* Checks the binary and unary Montgomery ops of a prime field with n limbs. */
static void check_prime_field(const uint32_t *m, int n, int op_base)
{
    size_t bytes = (size_t)COUNT * n * 4;
    uint32_t *a = malloc(bytes), *b = malloc(bytes), *am = malloc(bytes), *bm = malloc(bytes);
    uint32_t *out = malloc(bytes);
    uint32_t want[16], tmp[16], one[16] = {1};
    (void)one;
    assert_non_null(a && b && am && bm && out);
    for (size_t i = 0; i < COUNT; i++) {
        rand_elem(a + i * n, m, n);
        rand_elem(b + i * n, m, n);
        big_to_mont(am + i * n, a + i * n, m, n);
        big_to_mont(bm + i * n, b + i * n, m, n);
    }
    static const char *names[] = {"add", "sub", "mul", "sqr", "neg", "dbl", "to_mont", "from_mont", "inv"};
    for (int op = 0; op < 9; op++) {
        const uint32_t *in = (op == 6) ? a : am;
        assert_int_equal(gpu_field_op(op_base + op, in, bm, out, COUNT), 0);
        size_t bad = 0;
        for (size_t i = 0; i < COUNT; i++) {
            const uint32_t *x = a + i * n, *y = b + i * n, *g = out + i * n;
            uint32_t zero[16] = {0};
            switch (op) {
            case 0: big_addmod(tmp, x, y, m, n); break;
            case 1: big_submod(tmp, x, y, m, n); break;
            case 2: big_mulmod(tmp, x, y, m, n); break;
            case 3: big_mulmod(tmp, x, x, m, n); break;
            case 4: big_submod(tmp, zero, x, m, n); break;
            case 5: big_addmod(tmp, x, x, m, n); break;
            default: memcpy(tmp, x, (size_t)n * 4);
            }
            if (op == 7) memcpy(want, x, (size_t)n * 4);          /* from_mont(aR) = a */
            else if (op == 8) {
                /* g = a^-1·R, so a·g = R mod m (and inv(0) = 0) */
                uint32_t prod[16];
                int is_zero = big_cmp(x, zero, n) == 0;
                big_mulmod(prod, x, g, m, n);
                if (is_zero) memcpy(want, zero, (size_t)n * 4);
                else big_to_mont(want, one, m, n);
                const uint32_t *chk = is_zero ? g : prod;
                if (big_cmp(chk, want, n) != 0 && bad++ < 3) fail_dump(names[op], i, chk, want, n);
                continue;
            } else big_to_mont(want, tmp, m, n);
            if (big_cmp(g, want, n) != 0 && bad++ < 3) fail_dump(names[op], i, g, want, n);
        }
        if (bad) fprintf(stderr, "%s: %zu of %d wrong\n", names[op], bad, COUNT);
        assert_int_equal(bad, 0);
    }
    free(a), free(b), free(am), free(bm), free(out);
}

static void test_fr(void **state)
{
    (void)state;
    check_prime_field(FR_M, 8, GPU_FR_ADD);
}

static void test_fp(void **state)
{
    (void)state;
    check_prime_field(FP_M, 12, GPU_FP_ADD);
}

static void test_fp2(void **state)
{
    (void)state;
    const int n = 12, e = 24; /* limbs per Fp, per Fp2 */
    size_t bytes = (size_t)COUNT * e * 4;
    uint32_t *a = malloc(bytes), *b = malloc(bytes), *am = malloc(bytes), *bm = malloc(bytes);
    uint32_t *out = malloc(bytes);
    assert_non_null(a && b && am && bm && out);
    for (size_t i = 0; i < (size_t)COUNT * 2; i++) {
        rand_elem(a + i * n, FP_M, n);
        rand_elem(b + i * n, FP_M, n);
        big_to_mont(am + i * n, a + i * n, FP_M, n);
        big_to_mont(bm + i * n, b + i * n, FP_M, n);
    }
    static const int ops[] = {GPU_FP2_ADD, GPU_FP2_SUB, GPU_FP2_MUL, GPU_FP2_SQR, GPU_FP2_NEG,
                              GPU_FP2_MUL_NONRESIDUE};
    static const char *names[] = {"fp2 add", "fp2 sub", "fp2 mul", "fp2 sqr", "fp2 neg", "fp2 ·(1+u)"};
    for (int k = 0; k < 6; k++) {
        assert_int_equal(gpu_field_op(ops[k], am, bm, out, COUNT), 0);
        size_t bad = 0;
        for (size_t i = 0; i < COUNT; i++) {
            const uint32_t *x0 = a + i * e, *x1 = x0 + n, *y0 = b + i * e, *y1 = y0 + n;
            uint32_t c0[12], c1[12], t0[12], t1[12], zero[12] = {0}, want[24];
            switch (k) {
            case 0: big_addmod(c0, x0, y0, FP_M, n), big_addmod(c1, x1, y1, FP_M, n); break;
            case 1: big_submod(c0, x0, y0, FP_M, n), big_submod(c1, x1, y1, FP_M, n); break;
            case 2: /* (x0 y0 - x1 y1) + (x0 y1 + x1 y0) u, schoolbook */
                big_mulmod(t0, x0, y0, FP_M, n), big_mulmod(t1, x1, y1, FP_M, n);
                big_submod(c0, t0, t1, FP_M, n);
                big_mulmod(t0, x0, y1, FP_M, n), big_mulmod(t1, x1, y0, FP_M, n);
                big_addmod(c1, t0, t1, FP_M, n);
                break;
            case 3:
                big_mulmod(t0, x0, x0, FP_M, n), big_mulmod(t1, x1, x1, FP_M, n);
                big_submod(c0, t0, t1, FP_M, n);
                big_mulmod(t0, x0, x1, FP_M, n);
                big_addmod(c1, t0, t0, FP_M, n);
                break;
            case 4: big_submod(c0, zero, x0, FP_M, n), big_submod(c1, zero, x1, FP_M, n); break;
            default: big_submod(c0, x0, x1, FP_M, n), big_addmod(c1, x0, x1, FP_M, n);
            }
            big_to_mont(want, c0, FP_M, n);
            big_to_mont(want + n, c1, FP_M, n);
            if (big_cmp(out + i * e, want, e) != 0 && bad++ < 3) fail_dump(names[k], i, out + i * e, want, e);
        }
        assert_int_equal(bad, 0);
    }
    free(a), free(b), free(am), free(bm), free(out);
}

/* x + r when that stays below 2^255 (the same residue; the FP64 product takes inputs up to 2^255) */
static void widen(uint32_t *x)
{
    uint32_t t[8];
    uint64_t carry = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t s = (uint64_t)x[i] + FR_M[i] + carry;
        t[i] = (uint32_t)s;
        carry = s >> 32;
    }
    if (!(t[7] >> 31)) memcpy(x, t, sizeof t);
}

/* The Fr product on the FP64 pipe (kernels/field/fr52.h): got·R = a·b (mod r) and got < r
 * against the big-integer reference, on Montgomery-form inputs below 2^255 (random, edge
 * values, the same plus r, 2^255 - 1 - k, all-ones 52-bit limbs), and bit-identical to the
 * integer product where both inputs are below r. */
static void test_fr_fp64(void **state)
{
    (void)state;
    const int n = 8;
    size_t bytes = (size_t)COUNT * n * 4;
    uint32_t *am = malloc(bytes), *bm = malloc(bytes), *out = malloc(bytes), *ref = malloc(bytes);
    assert_non_null(am && bm && out && ref);
    for (size_t i = 0; i < COUNT; i++) {
        uint32_t x[8], *pa = am + i * n, *pb = bm + i * n;
        rand_elem(x, FR_M, n);
        big_to_mont(pa, x, FR_M, n);
        rand_elem(x, FR_M, n);
        big_to_mont(pb, x, FR_M, n);
        if (i < 16) { /* 2^255 - 1 - k, and all-ones 52-bit limbs (bits 52j..52j+51 for j in mask) */
            memset(pa, 0xff, 32), pa[7] = 0x7fffffff, pa[0] -= (uint32_t)i;
            memset(pb, 0, 32);
            for (int b = 0; b < 255; b++)
                if ((i + 1) >> (b / 52) & 1) pb[b / 32] |= 1u << (b % 32);
        }
    }
    /* bit-identical to the integer product on the inputs below r (before any widening) */
    assert_int_equal(gpu_field_op(GPU_FR_MUL_FP64, am + 16 * n, bm + 16 * n, out, COUNT - 16), 0);
    assert_int_equal(gpu_field_op(GPU_FR_MUL, am + 16 * n, bm + 16 * n, ref, COUNT - 16), 0);
    size_t bad = 0;
    for (size_t i = 0; i < COUNT - 16; i++)
        if (big_cmp(out + i * n, ref + i * n, n) != 0 && bad++ < 3) fail_dump("fp64 vs integer mul", i, out + i * n, ref + i * n, n);
    assert_int_equal(bad, 0);
    for (size_t i = 16; i < COUNT; i++) {
        if (i % 3 == 1) widen(am + i * n);
        if (i % 5 == 2) widen(bm + i * n);
    }
    assert_int_equal(gpu_field_op(GPU_FR_MUL_FP64, am, bm, out, COUNT), 0);
    for (size_t i = 0; i < COUNT; i++) {
        uint32_t want[8], got_r[8];
        const uint32_t *g = out + i * n;
        big_mulmod(want, am + i * n, bm + i * n, FR_M, n);
        big_to_mont(got_r, g, FR_M, n);
        if ((big_cmp(g, FR_M, n) >= 0 || big_cmp(got_r, want, n) != 0) && bad++ < 3)
            fail_dump("fp64 mul (got·R vs a·b)", i, got_r, want, n);
    }
    if (bad) fprintf(stderr, "fp64 mul: %zu of %d wrong\n", bad, COUNT);
    assert_int_equal(bad, 0);
    free(am), free(bm), free(out), free(ref);
}

/* A device allocation that cannot succeed is an error with a message, not a crash. */
static void test_alloc_failure(void **state)
{
    (void)state;
    void *p = (void *)1;
    int rc = gpu_malloc(&p, (size_t)1 << 50);
    assert_int_equal(rc, CUZK_EDEVICE);
    assert_null(p);
    assert_non_null(strstr(cuzk_last_error(), "cudaMalloc"));
    /* and the device still works afterwards */
    assert_int_equal(gpu_malloc(&p, 1024), 0);
    gpu_free(p);
}

int main(void)
{
    if (gpu_test_begin()) return 77;
    hex_to_limbs(FP_M, 12, FP_HEX);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fr),
        cmocka_unit_test(test_fr_fp64),
        cmocka_unit_test(test_fp),
        cmocka_unit_test(test_fp2),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
