/* The CPU NTT against a naive O(n^2) DFT (small sizes), Horner evaluation at sampled points
 * (large sizes, where the cache-blocked and radix-4 stages run), round trips and linearity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ntt/ntt_cpu.h"
#include "support/testutil.h"

static int quick(void)
{
    const char *q = getenv("CUZK_TEST_QUICK");
    return q && *q && strcmp(q, "0");
}

static void rand_fr(fr_t *r)
{
    for (;;) {
        uint8_t b[32];
        test_rand_bytes(b, 32);
        b[31] &= 0x7f;
        if (fr_from_le32(r, b)) return;
    }
}

static fr_t *rand_vec(size_t n)
{
    fr_t *a = malloc((n ? n : 1) * sizeof *a);
    assert_non_null(a);
    for (size_t i = 0; i < n; i++) rand_fr(&a[i]);
    return a;
}

static fr_t *copy_vec(const fr_t *a, size_t n)
{
    fr_t *b = malloc((n ? n : 1) * sizeof *b);
    assert_non_null(b);
    memcpy(b, a, n * sizeof *a);
    return b;
}

static void assert_vec_eq(const fr_t *x, const fr_t *y, size_t n, const char *what, unsigned log_n)
{
    for (size_t i = 0; i < n; i++)
        if (!fr_eq(&x[i], &y[i])) fail_msg("%s, 2^%u: element %zu differs", what, log_n, i);
}

/* p(z) = sum a_j z^j by Horner. */
static void horner(fr_t *r, const fr_t *a, size_t n, const fr_t *z)
{
    fr_t acc = FR_ZERO;
    for (size_t j = n; j-- > 0;) {
        fr_mul(&acc, &acc, z);
        fr_add(&acc, &acc, &a[j]);
    }
    *r = acc;
}

/* out_i = scale · sum_j a_j (c·w^i)^j with the powers of w from a table: the textbook DFT. */
static void naive_dft(fr_t *out, const fr_t *a, unsigned log_n, const fr_t *w, const fr_t *c,
                      const fr_t *scale)
{
    size_t n = (size_t)1 << log_n;
    fr_t *pw = malloc(n * sizeof *pw), *ca = malloc(n * sizeof *ca);
    pw[0] = FR_ONE;
    for (size_t k = 1; k < n; k++) fr_mul(&pw[k], &pw[k - 1], w);
    fr_t ck = FR_ONE; /* a_j · c^j once, so each term is one product */
    for (size_t j = 0; j < n; j++) {
        fr_mul(&ca[j], &a[j], &ck);
        fr_mul(&ck, &ck, c);
    }
    for (size_t i = 0; i < n; i++) {
        fr_t acc = FR_ZERO, t;
        for (size_t j = 0; j < n; j++) {
            fr_mul(&t, &ca[j], &pw[(i * j) & (n - 1)]);
            fr_add(&acc, &acc, &t);
        }
        fr_mul(&out[i], &acc, scale);
    }
    free(pw);
    free(ca);
}

static void fr_small(fr_t *r, uint64_t v) { fr_from_u64(r, v); }

static void n_inv(fr_t *r, unsigned log_n)
{
    fr_small(r, (uint64_t)1 << log_n);
    fr_inv(r, r);
}

/* Inputs for one size: random, and a few shapes that catch wrong twiddles or orders. */
enum { SHAPES = 6 };
static void fill_shape(fr_t *a, size_t n, int shape)
{
    for (size_t i = 0; i < n; i++) {
        switch (shape) {
        case 0: rand_fr(&a[i]); break;
        case 1: a[i] = FR_ZERO; break;
        case 2: a[i] = i == 0 ? FR_ONE : FR_ZERO; break;           /* delta at 0 */
        case 3: a[i] = i == (n > 1) ? FR_ONE : FR_ZERO; break;     /* delta at 1 */
        case 4: a[i] = FR_ONE; break;
        default: fr_neg(&a[i], &FR_ONE); break;                  /* r - 1 everywhere */
        }
    }
}

static void roots_are_primitive(void **state)
{
    (void)state;
    for (unsigned k = 0; k <= 32; k++) {
        fr_t w, x;
        fr_root_of_unity(&w, k);
        x = w;
        for (unsigned i = 0; i < k; i++) {
            if (fr_is_one(&x)) fail_msg("root 2^%u has order 2^%u", k, i);
            fr_sqr(&x, &x);
        }
        assert_true(fr_is_one(&x));
    }
}

/* All four transforms against the naive DFT for 2^0 .. 2^10, inline and on a pool, and
 * with twiddles on the fly. */
static void small_sizes_match_naive(void **state)
{
    (void)state;
    threadpool *tp = threadpool_create(3);
    assert_non_null(tp);
    fr_t g = FR_COSET_GEN, ginv, one = FR_ONE;
    fr_inv(&ginv, &g);
    unsigned max_log = quick() ? 8 : 10;
    /* variants: one thread; the pool; twiddles on the fly; tables above 2^5 per call, in a
     * caller's buffer (the *_tw forms, as the H step of the engine uses them) */
    for (int variant = 0; variant < 4; variant++) {
        threadpool *p = variant == 0 ? NULL : tp;
        ntt_cpu_set_table_limit(variant == 2 ? 0 : 32);
        ntt_cpu_set_cache_limit(variant == 3 ? 5 : 20);
        for (unsigned log_n = 0; log_n <= max_log; log_n++) {
            size_t n = (size_t)1 << log_n;
            size_t twb = ntt_cpu_table_bytes(log_n);
            assert_int_equal(twb, variant == 3 && log_n > 5 ? (n / 2) * sizeof(fr_t) : 0);
            fr_t *tw = twb ? malloc(twb) : NULL;
            if (tw) ntt_cpu_table_fill(tw, log_n, p);
            fr_t w, winv, ninv;
            fr_root_of_unity(&w, log_n);
            fr_inv(&winv, &w);
            n_inv(&ninv, log_n);
            fr_t *a = malloc(n * sizeof *a), *want = malloc(n * sizeof *want);
            for (int shape = 0; shape < SHAPES; shape++) {
                if (log_n > 6 && shape > 0 && shape < 5) continue; /* shapes: small sizes */
                fill_shape(a, n, shape);
                fr_t *x = copy_vec(a, n);
                naive_dft(want, a, log_n, &w, &one, &one);
                ntt_forward(x, log_n, p);
                assert_vec_eq(x, want, n, "forward", log_n);

                memcpy(x, a, n * sizeof *a);
                naive_dft(want, a, log_n, &winv, &one, &ninv);
                if (variant == 3) ntt_inverse_tw(x, log_n, p, tw);
                else ntt_inverse(x, log_n, p);
                assert_vec_eq(x, want, n, "inverse", log_n);

                memcpy(x, a, n * sizeof *a);
                naive_dft(want, a, log_n, &w, &g, &one); /* evaluations at 7·ω^i */
                if (variant == 3) ntt_coset_forward_tw(x, log_n, p, tw);
                else ntt_coset_forward(x, log_n, p);
                assert_vec_eq(x, want, n, "coset forward", log_n);

                /* coset inverse: coefficient j = 7^-j · (1/n) sum_i a_i ω^-ij */
                memcpy(x, a, n * sizeof *a);
                naive_dft(want, a, log_n, &winv, &one, &ninv);
                fr_t gj = FR_ONE;
                for (size_t j = 0; j < n; j++) {
                    fr_mul(&want[j], &want[j], &gj);
                    fr_mul(&gj, &gj, &ginv);
                }
                if (variant == 3) ntt_coset_inverse_tw(x, log_n, p, tw);
                else ntt_coset_inverse(x, log_n, p);
                assert_vec_eq(x, want, n, "coset inverse", log_n);
                free(x);
            }
            free(tw);
            free(a);
            free(want);
        }
    }
    ntt_cpu_set_table_limit(32);
    ntt_cpu_set_cache_limit(20);
    threadpool_destroy(tp);
}

/* Sizes above the cache block: sampled outputs against Horner evaluation at ω^i and 7·ω^i;
 * the inverses by evaluating their output back at the sampled points. */
static void large_sizes_match_horner(void **state)
{
    (void)state;
    threadpool *tp = threadpool_create(2);
    assert_non_null(tp);
    unsigned max_log = quick() ? 14 : 17;
    for (int no_table = 0; no_table < 2; no_table++) {
        ntt_cpu_set_table_limit(no_table ? 0 : 32);
        for (unsigned log_n = 11; log_n <= max_log; log_n++) {
            if (no_table && log_n > 15) break;
            size_t n = (size_t)1 << log_n;
            fr_t w, g = FR_COSET_GEN;
            fr_root_of_unity(&w, log_n);
            fr_t *a = rand_vec(n), *x = copy_vec(a, n), *y = copy_vec(a, n);
            ntt_forward(x, log_n, log_n & 1 ? tp : NULL);
            ntt_coset_forward(y, log_n, tp);
            for (int s = 0; s < 12; s++) {
                size_t i = s < 2 ? (size_t)s * (n - 1) : (size_t)(test_rand64() & (n - 1));
                fr_t z, want;
                fr_pow_u64(&z, &w, i);
                horner(&want, a, n, &z);
                if (!fr_eq(&x[i], &want)) fail_msg("forward 2^%u (table %d): output %zu", log_n, !no_table, i);
                fr_mul(&z, &z, &g);
                horner(&want, a, n, &z);
                if (!fr_eq(&y[i], &want)) fail_msg("coset forward 2^%u: output %zu", log_n, i);
            }
            /* inverse: p = ntt_inverse(a) must satisfy p(ω^i) = a_i */
            memcpy(x, a, n * sizeof *a);
            memcpy(y, a, n * sizeof *a);
            ntt_inverse(x, log_n, tp);
            ntt_coset_inverse(y, log_n, log_n & 1 ? NULL : tp);
            for (int s = 0; s < 6; s++) {
                size_t i = (size_t)(test_rand64() & (n - 1));
                fr_t z, got;
                fr_pow_u64(&z, &w, i);
                horner(&got, x, n, &z);
                if (!fr_eq(&got, &a[i])) fail_msg("inverse 2^%u: point %zu", log_n, i);
                fr_mul(&z, &z, &g);
                horner(&got, y, n, &z);
                if (!fr_eq(&got, &a[i])) fail_msg("coset inverse 2^%u: point %zu", log_n, i);
            }
            free(a);
            free(x);
            free(y);
        }
    }
    ntt_cpu_set_table_limit(32);
    threadpool_destroy(tp);
}

static void round_trips(void **state)
{
    (void)state;
    threadpool *tp = threadpool_create(0);
    assert_non_null(tp);
    unsigned log_n = quick() ? 16 : 20;
    size_t n = (size_t)1 << log_n;
    fr_t *a = rand_vec(n), *x = copy_vec(a, n);
    ntt_forward(x, log_n, tp);
    ntt_inverse(x, log_n, tp);
    assert_vec_eq(x, a, n, "inverse(forward)", log_n);
    ntt_coset_forward(x, log_n, tp);
    /* a spot check that the coset transform did something, then back */
    fr_t z, want;
    fr_root_of_unity(&z, log_n);
    fr_pow_u64(&z, &z, 12345 & (n - 1));
    fr_mul(&z, &z, &FR_COSET_GEN);
    horner(&want, a, n, &z);
    assert_true(fr_eq(&x[12345 & (n - 1)], &want));
    ntt_coset_inverse(x, log_n, tp);
    assert_vec_eq(x, a, n, "coset inverse(coset forward)", log_n);
    ntt_inverse(x, log_n, NULL);
    ntt_forward(x, log_n, NULL);
    assert_vec_eq(x, a, n, "forward(inverse)", log_n);
    free(a);
    free(x);
    threadpool_destroy(tp);
}

/* NTT(αx + βy) = α·NTT(x) + β·NTT(y), for each transform. */
static void linearity(void **state)
{
    (void)state;
    threadpool *tp = threadpool_create(2);
    unsigned log_n = 14;
    size_t n = (size_t)1 << log_n;
    void (*fns[4])(fr_t *, unsigned, threadpool *) = {ntt_forward, ntt_inverse, ntt_coset_forward,
                                                      ntt_coset_inverse};
    for (int f = 0; f < 4; f++) {
        fr_t al, be, t;
        rand_fr(&al);
        rand_fr(&be);
        fr_t *x = rand_vec(n), *y = rand_vec(n), *s = malloc(n * sizeof *s);
        for (size_t i = 0; i < n; i++) {
            fr_mul(&s[i], &x[i], &al);
            fr_mul(&t, &y[i], &be);
            fr_add(&s[i], &s[i], &t);
        }
        fns[f](x, log_n, tp);
        fns[f](y, log_n, tp);
        fns[f](s, log_n, tp);
        for (size_t i = 0; i < n; i++) {
            fr_t u;
            fr_mul(&u, &x[i], &al);
            fr_mul(&t, &y[i], &be);
            fr_add(&u, &u, &t);
            if (!fr_eq(&u, &s[i])) fail_msg("transform %d not linear at %zu", f, i);
        }
        free(x);
        free(y);
        free(s);
    }
    threadpool_destroy(tp);
}

static void bit_reverse_permutes(void **state)
{
    (void)state;
    for (unsigned log_n = 0; log_n <= 13; log_n++) {
        size_t n = (size_t)1 << log_n;
        fr_t *a = malloc(n * sizeof *a);
        for (size_t i = 0; i < n; i++) fr_from_u64(&a[i], i);
        ntt_bit_reverse(a, log_n, NULL);
        for (size_t i = 0; i < n; i++) {
            size_t r = 0;
            for (unsigned b = 0; b < log_n; b++) r |= ((i >> b) & 1) << (log_n - 1 - b);
            fr_t want;
            fr_from_u64(&want, r);
            assert_true(fr_eq(&a[i], &want));
        }
        free(a);
    }
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roots_are_primitive),
        cmocka_unit_test(bit_reverse_permutes),
        cmocka_unit_test(small_sizes_match_naive),
        cmocka_unit_test(large_sizes_match_horner),
        cmocka_unit_test(round_trips),
        cmocka_unit_test(linearity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
