/*
 * The CPU MSM against a naive sum of scalar multiplications (small sizes, every plan shape)
 * and, for larger sizes, against (Σ k_i·c_i)·G with bases c_i·G of known logarithm.
 * Edge cases: n = 0..3, zero/one/r-1 scalars, infinity, repeated and opposite bases.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "msm/msm_cpu.h"
#include "support/testutil.h"

static int quick(void)
{
    const char *q = getenv("CUZK_TEST_QUICK");
    return q && *q && strcmp(q, "0");
}

/* r - 1, canonical */
static const fr_t R_MINUS_1 = {{0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                0x73eda753299d7d48ull}};

static void rand_canonical(fr_t *k)
{
    do {
        for (int i = 0; i < 4; i++) k->l[i] = test_rand64();
        k->l[3] &= 0x7fffffffffffffffull;
    } while (!fr_is_canonical(k));
}

/* Scalar i of a test vector: mostly random, with zeros, ones, r-1 and small values mixed in. */
static void edge_scalar(fr_t *k, size_t i, int mix)
{
    memset(k, 0, sizeof *k);
    if (!mix) { rand_canonical(k); return; }
    switch (test_rand64() % 8) {
    case 0: break;                                   /* zero */
    case 1: k->l[0] = 1; break;
    case 2: *k = R_MINUS_1; break;
    case 3: k->l[0] = test_rand64() & 0xffff; break; /* one or two windows */
    case 4: k->l[i % 4] = 1ull << (test_rand64() % (i % 4 == 3 ? 62 : 64)); break; /* one bit */
    default: rand_canonical(k); break;
    }
}

/* Kinds of base: a fresh point, infinity, a repeat of an earlier one, or its negation. */
enum { B_FRESH, B_INF, B_REPEAT, B_NEG };

static int base_kind(size_t i, int mix)
{
    if (!mix || i == 0) return B_FRESH;
    uint64_t r = test_rand64() % 10;
    return r == 0 ? B_INF : r == 1 ? B_REPEAT : r == 2 ? B_NEG : B_FRESH;
}

typedef struct {
    unsigned c;
    int affine;
    unsigned parts;
} tune_t;

/* Plans to force on small inputs so every path (tiny windows, batch-affine with collisions,
 * split point ranges, Jacobian buckets) runs against the naive sum. */
static const tune_t tunes[] = {{0, -1, 0}, {1, 0, 0}, {2, 1, 0}, {4, 1, 3}, {7, 1, 0}, {9, 0, 2}, {11, 1, 3}};

/* Tiny windows are slow on many points and large ones on few (every bucket is reduced):
 * each forced plan runs on the sizes where it is affordable. */
static int tune_fits(const tune_t *t, size_t n)
{
    if (!t->c) return 1;
    if (t->c < 7) return n <= 32;
    if (t->c > 10) return n >= 100 && n <= 256;
    return 1;
}

/*
 * Everything below is written once for both groups: G is g1 or g2.
 * make_bases: c_i·G for c_i = a + i·b (one addition per point, one batch inversion), with
 * kinds mixed in; coef[i] is c_i in Montgomery form (0 for infinity).
 */
#define MSM_GROUP_TESTS(G, GEN)                                                                     \
    static void G##_make_bases(G##_aff *bases, fr_t *coef, size_t n, int mix)                     \
    {                                                                                              \
        G##_jac *jac = malloc((n ? n : 1) * sizeof *jac);                                           \
        fr_t a, b, ca, cb;                                                                         \
        rand_canonical(&ca);                                                                       \
        rand_canonical(&cb);                                                                       \
        fr_to_mont(&a, &ca);                                                                       \
        fr_to_mont(&b, &cb);                                                                       \
        G##_jac g, p, q;                                                                           \
        G##_jac_from_aff(&g, &GEN);                                                                \
        G##_jac_mul(&p, &g, &ca);                                                                  \
        G##_jac_mul(&q, &g, &cb);                                                                  \
        fr_t c = a;                                                                                \
        for (size_t i = 0; i < n; i++) {                                                           \
            jac[i] = p;                                                                            \
            coef[i] = c;                                                                           \
            G##_jac_add(&p, &p, &q);                                                               \
            fr_add(&c, &c, &b);                                                                    \
        }                                                                                          \
        G##_batch_to_aff(bases, jac, n);                                                           \
        for (size_t i = 0; i < n; i++) {                                                           \
            int kind = base_kind(i, mix);                                                          \
            size_t j = (size_t)(test_rand64() % (i ? i : 1));                                      \
            if (kind == B_INF) { memset(&bases[i], 0, sizeof bases[i]); coef[i] = FR_ZERO; }       \
            if (kind == B_REPEAT) { bases[i] = bases[j]; coef[i] = coef[j]; }                      \
            if (kind == B_NEG) { G##_aff_neg(&bases[i], &bases[j]); fr_neg(&coef[i], &coef[j]); }  \
        }                                                                                          \
        free(jac);                                                                                 \
    }                                                                                              \
                                                                                                   \
    /* Σ k_i·P_i by one scalar multiplication per point. */                                        \
    static void G##_naive(G##_jac *out, const G##_aff *bases, const fr_t *k, size_t n)            \
    {                                                                                              \
        G##_jac_set_inf(out);                                                                      \
        for (size_t i = 0; i < n; i++) {                                                           \
            G##_jac p, q;                                                                          \
            G##_jac_from_aff(&p, &bases[i]);                                                       \
            G##_jac_mul(&q, &p, &k[i]);                                                            \
            G##_jac_add(out, out, &q);                                                             \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* (Σ k_i·c_i)·G: the expected sum when base i is c_i·G. */                                    \
    static void G##_by_logs(G##_jac *out, const fr_t *coef, const fr_t *k, size_t n)              \
    {                                                                                              \
        fr_t sum = FR_ZERO, km, t;                                                                 \
        for (size_t i = 0; i < n; i++) {                                                           \
            assert_true(fr_to_mont(&km, &k[i]));                                                   \
            fr_mul(&t, &km, &coef[i]);                                                             \
            fr_add(&sum, &sum, &t);                                                                \
        }                                                                                          \
        fr_from_mont(&t, &sum);                                                                    \
        G##_jac g;                                                                                 \
        G##_jac_from_aff(&g, &GEN);                                                                \
        G##_jac_mul(out, &g, &t);                                                                  \
    }                                                                                              \
                                                                                                   \
    /* Every size up to max_n on a schedule, every forced plan, inline and on pools. */            \
    static void G##_against_naive(size_t max_n)                                                   \
    {                                                                                              \
        static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 100, 255, 256, 513, 1024};  \
        threadpool *pools[3] = {NULL, threadpool_create(2), threadpool_create(3)};                 \
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes && sizes[s] <= max_n; s++) {           \
            size_t n = sizes[s];                                                                   \
            for (int mix = 0; mix < 2; mix++) {                                                    \
                G##_aff *bases = malloc(n * sizeof *bases);                                        \
                fr_t *coef = malloc(n * sizeof *coef), *k = malloc(n * sizeof *k);                 \
                G##_make_bases(bases, coef, n, mix);                                               \
                for (size_t i = 0; i < n; i++) edge_scalar(&k[i], i, mix);                         \
                G##_jac want, got;                                                                 \
                G##_naive(&want, bases, k, n);                                                     \
                for (size_t t = 0; t < sizeof tunes / sizeof *tunes; t++) {                        \
                    if (!tune_fits(&tunes[t], n)) continue; \
                    msm_cpu_tune(tunes[t].c, tunes[t].affine, tunes[t].parts);                     \
                    threadpool *tp = pools[(t + n) % 3];                                           \
                    msm_##G(&got, bases, k, n, tp);                                                \
                    if (!G##_jac_eq(&got, &want))                                                  \
                        fail_msg(#G " n=%zu mix=%d plan (c=%u affine=%d parts=%u) threads=%u: "     \
                                    "differs from the naive sum", n, mix, tunes[t].c,              \
                                 tunes[t].affine, tunes[t].parts, threadpool_size(tp));            \
                }                                                                                  \
                msm_cpu_tune(0, -1, 0);                                                            \
                free(bases);                                                                       \
                free(coef);                                                                        \
                free(k);                                                                           \
            }                                                                                      \
        }                                                                                          \
        for (int i = 1; i < 3; i++) threadpool_destroy(pools[i]);                                  \
    }                                                                                              \
                                                                                                   \
    /* Degenerate inputs with a known answer. */                                                   \
    static void G##_edges(void)                                                                    \
    {                                                                                              \
        G##_jac got, want, g;                                                                      \
        G##_jac_from_aff(&g, &GEN);                                                                \
        msm_##G(&got, NULL, NULL, 0, NULL);                                                        \
        assert_true(G##_jac_is_inf(&got));                                                         \
        G##_aff bases[3] = {GEN, GEN, GEN};                                                        \
        fr_t k[3] = {{{0}}, {{0}}, {{0}}};                                                         \
        for (size_t n = 1; n <= 3; n++) {                                                          \
            msm_##G(&got, bases, k, n, NULL); /* zero scalars */                                    \
            assert_true(G##_jac_is_inf(&got));                                                     \
        }                                                                                          \
        k[0].l[0] = 1;                                                                             \
        msm_##G(&got, bases, k, 1, NULL);                                                          \
        assert_true(G##_jac_eq(&got, &g));                                                         \
        k[0] = R_MINUS_1;                                                                          \
        msm_##G(&got, bases, k, 1, NULL);                                                          \
        G##_jac_neg(&want, &g);                                                                    \
        assert_true(G##_jac_eq(&got, &want));                                                      \
        k[1].l[0] = 1; /* (r-1)·G + 1·G = O */                                                      \
        msm_##G(&got, bases, k, 2, NULL);                                                          \
        assert_true(G##_jac_is_inf(&got));                                                         \
        k[2].l[0] = 2; /* ... + 2·G */                                                             \
        msm_##G(&got, bases, k, 3, NULL);                                                          \
        G##_jac_dbl(&want, &g);                                                                    \
        assert_true(G##_jac_eq(&got, &want));                                                      \
        /* One base with equal scalars (doublings in every bucket form), then with -P too. */   \
        G##_aff same[8];                                                                           \
        fr_t ks[8], kn;                                                                            \
        rand_canonical(&ks[0]);                                                                    \
        for (int i = 0; i < 8; i++) { same[i] = GEN; ks[i] = ks[0]; }                              \
        for (size_t t = 0; t < sizeof tunes / sizeof *tunes; t++) {                               \
            msm_cpu_tune(tunes[t].c, tunes[t].affine, tunes[t].parts);                             \
            for (size_t n = 2; n <= 8; n++) {                                                      \
                fr_from_u64(&kn, n);                                                               \
                fr_t km;                                                                           \
                fr_to_mont(&km, &ks[0]);                                                           \
                fr_mul(&kn, &kn, &km);                                                             \
                fr_from_mont(&km, &kn);                                                            \
                G##_jac_mul(&want, &g, &km);                                                       \
                msm_##G(&got, same, ks, n, NULL);                                                  \
                if (!G##_jac_eq(&got, &want)) fail_msg(#G " %zu equal terms, plan %zu", n, t);     \
            }                                                                                      \
            G##_aff_neg(&same[1], &same[1]);                                                       \
            G##_aff_neg(&same[3], &same[3]);                                                       \
            msm_##G(&got, same, ks, 4, NULL); /* P - P + P - P */                                  \
            if (!G##_jac_is_inf(&got)) fail_msg(#G " P and -P do not cancel, plan %zu", t);        \
            same[1] = GEN;                                                                         \
            same[3] = GEN;                                                                         \
        }                                                                                          \
        msm_cpu_tune(0, -1, 0);                                                                    \
        memset(bases, 0, sizeof bases); /* infinity bases */                                       \
        msm_##G(&got, bases, k, 3, NULL);                                                          \
        assert_true(G##_jac_is_inf(&got));                                                         \
    }                                                                                              \
                                                                                                   \
    /* Larger sizes against the known logarithms; plans by size and forced batch-affine ones. */ \
    static void G##_against_logs(const size_t *sizes, size_t count)                               \
    {                                                                                              \
        threadpool *tp = threadpool_create(3);                                                     \
        for (size_t s = 0; s < count; s++) {                                                       \
            size_t n = sizes[s];                                                                   \
            G##_aff *bases = malloc(n * sizeof *bases);                                            \
            fr_t *coef = malloc(n * sizeof *coef), *k = malloc(n * sizeof *k);                     \
            for (int mix = 0; mix < 2; mix++) {                                                    \
                G##_make_bases(bases, coef, n, mix);                                               \
                for (size_t i = 0; i < n; i++) edge_scalar(&k[i], i, mix);                         \
                G##_jac want, got;                                                                 \
                G##_by_logs(&want, coef, k, n);                                                    \
                msm_##G(&got, bases, k, n, s & 1 ? tp : NULL);                                     \
                if (!G##_jac_eq(&got, &want)) fail_msg(#G " n=%zu mix=%d: wrong sum", n, mix);     \
            }                                                                                      \
            free(bases);                                                                           \
            free(coef);                                                                            \
            free(k);                                                                               \
        }                                                                                          \
        threadpool_destroy(tp);                                                                    \
    }                                                                                              \
                                                                                                   \
    /* Bucket collisions on purpose: equal points with equal scalars (doublings, then the       \
     * Jacobian overflow), P and -P (cancellations), few distinct bases and scalars. */           \
    static void G##_collisions(size_t n)                                                           \
    {                                                                                              \
        G##_aff *bases = malloc(n * sizeof *bases), few[3];                                        \
        fr_t *coef = malloc(n * sizeof *coef), *k = malloc(n * sizeof *k), fcoef[3], ks[3];        \
        G##_make_bases(few, fcoef, 3, 0);                                                          \
        for (int i = 0; i < 3; i++) rand_canonical(&ks[i]);                                        \
        threadpool *tp = threadpool_create(2);                                                     \
        for (int pattern = 0; pattern < 4; pattern++) {                                            \
            for (size_t i = 0; i < n; i++) {                                                       \
                size_t j = pattern == 0 ? 0 : pattern == 3 ? (size_t)(test_rand64() % 3) : i % 3;  \
                bases[i] = few[j];                                                                 \
                coef[i] = fcoef[j];                                                                \
                k[i] = ks[pattern == 2 ? (i / 2) % 3 : pattern == 3 ? (size_t)(test_rand64() % 3) : 0]; \
                if (pattern == 1 && (i & 1)) { /* -P next to P */                                   \
                    G##_aff_neg(&bases[i], &bases[i - 1]);                                          \
                    fr_neg(&coef[i], &coef[i - 1]);                                                \
                }                                                                                  \
            }                                                                                      \
            G##_jac want, got;                                                                     \
            G##_by_logs(&want, coef, k, n);                                                        \
            for (int t = 0; t < 3; t++) {                                                          \
                static const tune_t ct[] = {{0, -1, 0}, {10, 1, 0}, {6, 1, 2}};                     \
                msm_cpu_tune(ct[t].c, ct[t].affine, ct[t].parts);                                  \
                msm_##G(&got, bases, k, n, t == 1 ? tp : NULL);                                    \
                if (!G##_jac_eq(&got, &want))                                                      \
                    fail_msg(#G " collisions pattern %d plan %d: wrong sum", pattern, t);          \
                /* a caller's allocator: a tiny XYZZ reserve, so most overflowing windows      \
                 * settle their batches early instead; allocations on this thread only */       \
                if (pattern == 1 || pattern == 2) continue; /* 0 and 3 overflow the most */      \
                counting_alloc ca = {.owner = pthread_self()};                                     \
                scratch_alloc sa = {ca_alloc, ca_free, &ca};                                       \
                msm_##G##_ex(&got, bases, k, n, t == 1 ? tp : NULL, &sa);                          \
                if (!G##_jac_eq(&got, &want))                                                      \
                    fail_msg(#G " collisions pattern %d plan %d, caller's allocator: wrong sum",   \
                             pattern, t);                                                          \
                assert_int_equal(ca.foreign, 0);                                                   \
                assert_true(ca.allocs > 0);                                                        \
                assert_int_equal(ca.allocs, ca.frees);                                             \
                assert_true(ca.peak <= msm_cpu_scratch_bytes(n, threadpool_size(t == 1 ? tp : NULL), \
                                                             sizeof(G##_aff) > sizeof(g1_aff)));   \
            }                                                                                      \
            msm_cpu_tune(0, -1, 0);                                                                \
        }                                                                                          \
        threadpool_destroy(tp);                                                                    \
        free(bases);                                                                               \
        free(coef);                                                                                \
        free(k);                                                                                   \
    }

/* An allocator that counts, tracks its peak and notices calls from another thread. */
typedef struct {
    pthread_t owner;
    _Atomic int foreign;
    size_t allocs, frees, live, peak;
    size_t refuse_from; /* 0: never; k: the k-th allocation and later ones return NULL */
} counting_alloc;

static void *ca_alloc(void *ctx, size_t bytes)
{
    counting_alloc *c = ctx;
    if (!pthread_equal(pthread_self(), c->owner)) atomic_store(&c->foreign, 1);
    if (c->refuse_from && c->allocs + 1 >= c->refuse_from) return NULL;
    size_t *p = malloc(bytes + 64);
    if (!p) return NULL;
    p[0] = bytes;
    c->allocs++;
    c->live += bytes;
    if (c->live > c->peak) c->peak = c->live;
    return (char *)p + 64;
}

static void ca_free(void *ctx, void *q)
{
    counting_alloc *c = ctx;
    if (!pthread_equal(pthread_self(), c->owner)) atomic_store(&c->foreign, 1);
    size_t *p = (size_t *)((char *)q - 64);
    c->frees++;
    c->live -= p[0];
    free(p);
}

MSM_GROUP_TESTS(g1, G1_GENERATOR)
MSM_GROUP_TESTS(g2, G2_GENERATOR)

/* A caller's allocator that runs dry: CUZK_ENOMEM (an engine partition must fail, not fall
 * back to hours of point-by-point work), everything given back; the same allocator with room
 * gives the right sum. */
static void allocator_refuses(void **state)
{
    (void)state;
    size_t n = 1024;
    g1_aff *bases = malloc(n * sizeof *bases);
    g2_aff *bases2 = malloc(n * sizeof *bases2);
    fr_t *coef = malloc(n * sizeof *coef), *k = malloc(n * sizeof *k);
    assert_non_null(bases && bases2 && coef && k);
    g1_make_bases(bases, coef, n, 0);
    g2_make_bases(bases2, coef, n, 0);
    for (size_t i = 0; i < n; i++) rand_canonical(&k[i]);
    g1_jac want, got;
    g2_jac want2, got2;
    g1_naive(&want, bases, k, n);
    g2_naive(&want2, bases2, k, n);
    for (size_t from = 1; from <= 3; from++) {
        counting_alloc ca = {.owner = pthread_self(), .refuse_from = from};
        scratch_alloc sa = {ca_alloc, ca_free, &ca};
        int rc = msm_g1_ex(&got, bases, k, n, NULL, &sa);
        if (rc == CUZK_OK) { /* needed fewer allocations than `from`: must be right */
            assert_true(g1_jac_eq(&got, &want));
        } else {
            assert_int_equal(rc, CUZK_ENOMEM);
        }
        assert_int_equal(ca.allocs, ca.frees);
        counting_alloc cb = {.owner = pthread_self(), .refuse_from = from};
        scratch_alloc sb = {ca_alloc, ca_free, &cb};
        rc = msm_g2_ex(&got2, bases2, k, n, NULL, &sb);
        if (rc == CUZK_OK) assert_true(g2_jac_eq(&got2, &want2));
        else assert_int_equal(rc, CUZK_ENOMEM);
        assert_int_equal(cb.allocs, cb.frees);
    }
    counting_alloc c1 = {.owner = pthread_self(), .refuse_from = 1};
    scratch_alloc s1 = {ca_alloc, ca_free, &c1};
    assert_int_equal(msm_g1_ex(&got, bases, k, n, NULL, &s1), CUZK_ENOMEM); /* first one refused */
    counting_alloc ok = {.owner = pthread_self()};
    scratch_alloc sok = {ca_alloc, ca_free, &ok};
    assert_int_equal(msm_g1_ex(&got, bases, k, n, NULL, &sok), CUZK_OK);
    assert_true(g1_jac_eq(&got, &want));
    free(bases), free(bases2), free(coef), free(k);
}

static void g1_naive_sums(void **state) { (void)state; g1_against_naive(quick() ? 64 : 1024); }
static void g2_naive_sums(void **state) { (void)state; g2_against_naive(quick() ? 16 : 256); }
static void g1_edge_cases(void **state) { (void)state; g1_edges(); }
static void g2_edge_cases(void **state) { (void)state; g2_edges(); }

static void g1_large(void **state)
{
    (void)state;
    static const size_t full[] = {2000, 4096, 1 << 14, (1 << 16) + 3}, small[] = {2000, 4096};
    if (quick()) g1_against_logs(small, 2); else g1_against_logs(full, 4);
}

static void g2_large(void **state)
{
    (void)state;
    static const size_t full[] = {2000, 4096, (1 << 13) + 1}, small[] = {1500};
    if (quick()) g2_against_logs(small, 1); else g2_against_logs(full, 3);
}

static void g1_bucket_collisions(void **state) { (void)state; g1_collisions(quick() ? 1024 : 4096); }
static void g2_bucket_collisions(void **state) { (void)state; g2_collisions(quick() ? 512 : 2048); }

/* Carry chains through every window: digits of exactly 2^(c-1) and 2^(c-1) + 1, and
 * all-ones runs, for several forced windows. */
static void digit_boundaries(void **state)
{
    (void)state;
    enum { N = 64 };
    g1_aff bases[N];
    fr_t coef[N], k[N];
    g1_make_bases(bases, coef, N, 0);
    /* Large forced windows cost a reduction over 2^(c-1) buckets per window: skip them
     * in quick runs (sanitizers). */
    static const unsigned cs[] = {2, 3, 5, 8, 11, 13, 15};
    for (size_t ci = 0; ci < (quick() ? 5 : sizeof cs / sizeof *cs); ci++) {
        unsigned c = cs[ci];
        for (size_t i = 0; i < N; i++) {
            memset(&k[i], 0, sizeof k[i]);
            unsigned v = i % 4 == 0 ? 1u << (c - 1) : i % 4 == 1 ? (1u << (c - 1)) + 1
                       : i % 4 == 2 ? (1u << c) - 1 : (unsigned)test_rand64() & ((1u << c) - 1);
            for (unsigned off = 0; off + c <= 254; off += c)
                for (unsigned b = 0; b < c; b++)
                    if ((v >> b) & 1) k[i].l[(off + b) / 64] |= 1ull << ((off + b) % 64);
            if (i % 8 == 7) k[i] = R_MINUS_1;
            assert_true(fr_is_canonical(&k[i]));
        }
        g1_jac want, got;
        g1_by_logs(&want, coef, k, N);
        for (int affine = 0; affine < 2; affine++) {
            msm_cpu_tune(c, affine, 0);
            msm_g1(&got, bases, k, N, NULL);
            if (!g1_jac_eq(&got, &want)) fail_msg("c=%u affine=%d: wrong sum", c, affine);
        }
    }
    msm_cpu_tune(0, -1, 0);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(g1_edge_cases),
        cmocka_unit_test(g2_edge_cases),
        cmocka_unit_test(digit_boundaries),
        cmocka_unit_test(allocator_refuses),
        cmocka_unit_test(g1_naive_sums),
        cmocka_unit_test(g2_naive_sums),
        cmocka_unit_test(g1_bucket_collisions),
        cmocka_unit_test(g2_bucket_collisions),
        cmocka_unit_test(g1_large),
        cmocka_unit_test(g2_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
