/*
 * The GPU H step (six transforms, fused scalings) against the straightforward seven-
 * transform H computed with the CPU NTT (FORMATS.md: iNTT, coset NTT for a, b, c;
 * (a·b - c)/(g^n - 1); coset iNTT), at 2^1..2^3 and 2^10, 2^16, 2^20 and where the pass
 * plan changes (2^11, 2^12, 2^19, 2^21); inputs on the
 * device and copied from pinned host memory with zero padding, at 2^23 (inputs of four copy
 * pieces; gpu_memcpy_async's pieces also round-tripped on their own), and with an urgent
 * worker's copies by kernels (gpu_copy_use_sms); and a circom circuit's
 * partition (test/gpu/fixtures/hstep.*, compiled by circom2 for BLS12-381) against the CPU
 * prover's own H step (groth16_compute_h). Exits 77 without a GPU.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "cuzk/r1cs.h"
#include "groth16/groth16.h"
#include "gpu_testutil.h"
#include "support/gputest.h"
#include "ntt.h"
#include "ntt/ntt_cpu.h"
#include "threadpool.h"

static threadpool *tp;

static void cpu_h(fr_t *h, const fr_t *a, const fr_t *b, const fr_t *c, unsigned L)
{
    const uint64_t n = 1ull << L;
    fr_t *A = malloc(n * sizeof(fr_t)), *B = malloc(n * sizeof(fr_t)), *C = malloc(n * sizeof(fr_t));
    assert_non_null(A && B && C);
    memcpy(A, a, n * sizeof(fr_t)), memcpy(B, b, n * sizeof(fr_t)), memcpy(C, c, n * sizeof(fr_t));
    fr_t *v[3] = {A, B, C};
    for (int k = 0; k < 3; k++) {
        ntt_inverse(v[k], L, tp);
        ntt_coset_forward(v[k], L, tp);
    }
    fr_t z;
    fr_pow_u64(&z, &FR_COSET_GEN, n);
    fr_sub(&z, &z, &FR_ONE);
    fr_inv(&z, &z);
    for (uint64_t i = 0; i < n; i++) {
        fr_t t;
        fr_mul(&t, &A[i], &B[i]);
        fr_sub(&t, &t, &C[i]);
        fr_mul(&h[i], &t, &z);
    }
    ntt_coset_inverse(h, L, tp);
    free(A), free(B), free(C);
}

/* The lean step's hook: how often it was called, with which event; fail: its return. */
typedef struct hook_seen {
    int calls, fail;
    void *event;
} hook_seen;

static int hook_count(void *user, void *ab_arrived)
{
    hook_seen *h = user;
    h->calls++;
    h->event = ab_arrived;
    return h->fail;
}

/* satisfied = 1: c = a·b pointwise, so A·B - C vanishes on the domain and h[n-1] = 0.
 * from_host: 0 = device inputs, 1 = copied from the host into three buffers, 2 = into two
 * (gpu_h_step_from_host_lean). */
static void check_size(unsigned L, int satisfied, int from_host)
{
    const uint64_t n = 1ull << L, len = from_host && n > 8 ? n - 5 : n;
    const size_t bytes = n * sizeof(fr_t);
    fr_t *a, *b, *c, *want = malloc(bytes), *got = malloc(bytes);
    assert_int_equal(gpu_host_alloc((void **)&a, bytes), 0);
    assert_int_equal(gpu_host_alloc((void **)&b, bytes), 0);
    assert_int_equal(gpu_host_alloc((void **)&c, bytes), 0);
    assert_non_null(want && got);
    rand_fr_vec(a, n), rand_fr_vec(b, n), rand_fr_vec(c, n);
    if (satisfied)
        for (uint64_t i = 0; i < n; i++) fr_mul(&c[i], &a[i], &b[i]);
    for (uint64_t i = len; i < n; i++) a[i] = b[i] = c[i] = FR_ZERO; /* the CPU sees the padding */
    cpu_h(want, a, b, c, L);
    if (satisfied) assert_true(fr_is_zero(&want[n - 1]));

    void *d[3];
    for (int k = 0; k < 3; k++) assert_int_equal(gpu_malloc(&d[k], bytes), 0);
    int rc;
    if (from_host) {
        void *s, *cp;
        assert_int_equal(gpu_stream_create(&s), 0);
        assert_int_equal(gpu_stream_create(&cp), 0);
        /* poison the device buffers: the padding must be written, not found */
        assert_int_equal(gpu_fr_fill_random(d[0], n, 1, s), 0);
        assert_int_equal(gpu_fr_fill_random(d[1], n, 2, s), 0);
        assert_int_equal(gpu_fr_fill_random(d[2], n, 3, s), 0);
        assert_int_equal(gpu_stream_sync(s), 0);
        hook_seen seen = {0, 0, NULL};
        const gpu_h_hook hook = {hook_count, &seen};
        rc = from_host == 2 ? gpu_h_step_from_host_lean(d[0], d[1], a, b, c, len, L, 0, NULL, NULL, &hook, s, cp)
                            : gpu_h_step_from_host(d[0], d[1], d[2], a, b, c, len, L, s, cp);
        if (!rc) rc = gpu_stream_sync(s);
        if (from_host == 2) { /* once, with a's and b's arrival */
            assert_int_equal(seen.calls, 1);
            assert_non_null(seen.event);
        }
        gpu_stream_destroy(s), gpu_stream_destroy(cp);
    } else {
        fr_t *v[3] = {a, b, c};
        for (int k = 0; k < 3; k++) assert_int_equal(gpu_memcpy_to_device(d[k], v[k], bytes), 0);
        rc = gpu_h_step(d[0], d[1], d[2], L, NULL);
        if (!rc) rc = gpu_synchronize();
    }
    if (rc) fprintf(stderr, "H step: %s\n", cuzk_last_error());
    assert_int_equal(rc, 0);
    assert_int_equal(gpu_memcpy_to_host(got, d[0], bytes), 0);
    char what[96];
    snprintf(what, sizeof what, "H 2^%u%s%s", L, satisfied ? " satisfied" : " random c",
             from_host == 2 ? " from host, two buffers" : from_host ? " from host" : "");
    assert_true(fr_vec_diff(what, got, want, n) < 0);
    printf("%s: ok\n", what);
    for (int k = 0; k < 3; k++) gpu_free(d[k]);
    gpu_host_free(a), gpu_host_free(b), gpu_host_free(c);
    free(want), free(got);
}

/* A circom circuit's partition (2,069 rows padded to 2^12): the GPU H scalars equal the CPU
 * prover's, and h[n-1] = 0 because the witness satisfies the circuit. */
static void test_circom_partition(void **state)
{
    (void)state;
    cuzk_r1cs *r1cs;
    cuzk_fr *w;
    uint64_t nw;
    cuzk_partition p;
    int rc = cuzk_r1cs_load("test/gpu/fixtures/hstep.r1cs", &r1cs);
    if (rc) fprintf(stderr, "r1cs: %s\n", cuzk_last_error());
    assert_int_equal(rc, CUZK_OK);
    assert_int_equal(cuzk_wtns_load("test/gpu/fixtures/hstep.wtns", &w, &nw), CUZK_OK);
    assert_int_equal(cuzk_r1cs_partition(r1cs, w, nw, &p), CUZK_OK);
    unsigned L = 0;
    while ((1ull << L) < p.abc_len) L++;
    const uint64_t n = 1ull << L, len = p.abc_len;
    assert_true(len < n && n >= 4096); /* padding on purpose */
    fr_t *want = calloc(n, sizeof(fr_t)), *got = malloc(n * sizeof(fr_t)), *m;
    assert_non_null(want && got);
    assert_int_equal(groth16_compute_h(want, &p, L, tp), CUZK_OK);
    assert_int_equal(gpu_host_alloc((void **)&m, 3 * len * sizeof(fr_t)), 0);
    for (uint64_t i = 0; i < len; i++) { /* the device wants Montgomery; the partition is canonical */
        assert_true(fr_to_mont(&m[i], (const fr_t *)&p.a[i]));
        assert_true(fr_to_mont(&m[len + i], (const fr_t *)&p.b[i]));
        assert_true(fr_to_mont(&m[2 * len + i], (const fr_t *)&p.c[i]));
    }
    void *d[3], *s, *cp;
    for (int k = 0; k < 3; k++) assert_int_equal(gpu_malloc(&d[k], n * sizeof(fr_t)), 0);
    assert_int_equal(gpu_stream_create(&s), 0);
    assert_int_equal(gpu_stream_create(&cp), 0);
    for (int k = 0; k < 3; k++) assert_int_equal(gpu_fr_fill_random(d[k], n, 7 + k, s), 0); /* poison */
    assert_int_equal(gpu_stream_sync(s), 0);
    rc = gpu_h_step_from_host(d[0], d[1], d[2], m, m + len, m + 2 * len, len, L, s, cp);
    if (!rc) rc = gpu_stream_sync(s);
    if (rc) fprintf(stderr, "H step: %s\n", cuzk_last_error());
    assert_int_equal(rc, 0);
    assert_int_equal(gpu_memcpy_to_host(got, d[0], n * sizeof(fr_t)), 0);
    assert_true(fr_is_zero(&got[n - 1]));
    int nonzero = 0;
    for (uint64_t i = 0; i + 1 < n; i++) nonzero += !fr_is_zero(&want[i]);
    assert_true(nonzero > 0); /* the comparison below is not between zeros */
    assert_true(fr_vec_diff("H circom partition", got, want, n - 1) < 0);
    printf("H of the circom partition (%llu rows, 2^%u): equal to the CPU prover's\n", (unsigned long long)len, L);
    gpu_stream_destroy(s), gpu_stream_destroy(cp);
    for (int k = 0; k < 3; k++) gpu_free(d[k]);
    gpu_host_free(m);
    free(want), free(got);
    if (p.release) p.release(p.release_user);
    cuzk_free(w);
    cuzk_r1cs_free(r1cs);
}

static void test_tiny(void **state)
{
    (void)state;
    for (unsigned L = 1; L <= 3; L++) {
        check_size(L, 1, 0);
        check_size(L, 0, 1);
        check_size(L, 0, 2);
    }
}

/* The lean step's hook failing ends the step with its error, and nothing after it runs. */
static void test_hook_error(void **state)
{
    (void)state;
    const unsigned L = 10;
    const uint64_t n = 1ull << L;
    const size_t bytes = n * sizeof(fr_t);
    fr_t *h[3];
    void *d[2], *s, *cp;
    for (int k = 0; k < 3; k++) {
        assert_int_equal(gpu_host_alloc((void **)&h[k], bytes), 0);
        rand_fr_vec(h[k], n);
    }
    for (int k = 0; k < 2; k++) assert_int_equal(gpu_malloc(&d[k], bytes), 0);
    assert_int_equal(gpu_stream_create(&s), 0);
    assert_int_equal(gpu_stream_create(&cp), 0);
    hook_seen seen = {0, CUZK_EDEVICE, NULL};
    const gpu_h_hook hook = {hook_count, &seen};
    assert_int_equal(gpu_h_step_from_host_lean(d[0], d[1], h[0], h[1], h[2], n, L, 0, NULL, NULL, &hook, s, cp),
                     CUZK_EDEVICE);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(gpu_stream_sync(s), 0);
    assert_int_equal(gpu_stream_sync(cp), 0);
    gpu_stream_destroy(s), gpu_stream_destroy(cp);
    for (int k = 0; k < 2; k++) gpu_free(d[k]);
    for (int k = 0; k < 3; k++) gpu_host_free(h[k]);
}

static void test_2_10(void **state)
{
    (void)state;
    check_size(10, 1, 0);
    check_size(10, 0, 0);
    check_size(10, 1, 1);
    check_size(10, 0, 2);
}

static void test_2_16(void **state)
{
    (void)state;
    check_size(16, 1, 0);
    check_size(16, 0, 1);
    check_size(16, 1, 2);
}

/* Where the plan changes: one tile (2^11: a and b's transforms run unfused), the first size
 * with two passes (2^12: the inverse's last pass and the coset transform's first are one
 * fused pass), the last size whose first pass has direct twiddles (2^19: c scaled in its
 * last store) and three passes (2^21: c's scale rides on the two-level twiddles). */
static void test_plan_boundaries(void **state)
{
    (void)state;
    static const unsigned sizes[] = {11, 12, 19, 21};
    for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        check_size(sizes[i], 1, 0);
        check_size(sizes[i], 0, 1);
        check_size(sizes[i], 0, 2);
    }
}

static void test_2_20(void **state)
{
    (void)state;
    check_size(20, 1, 1);
    check_size(20, 0, 0);
    check_size(20, 0, 2);
}

/* 2^23: each input 256 MiB, four 64 MiB pieces, the H step interleaving each input's copy
 * with the previous one's transform. */
static void test_2_23(void **state)
{
    (void)state;
    check_size(23, 0, 1);
    check_size(23, 1, 2);
}

/* Each size copied host -> device -> host with gpu_memcpy_async, from pageable and from
 * page-locked memory; the bytes come back equal. */
static void round_trips(const size_t *sizes, int count)
{
    void *s;
    assert_int_equal(gpu_stream_create(&s), 0);
    for (int pinned = 0; pinned < 2; pinned++)
        for (int i = 0; i < count; i++) {
            const size_t n = sizes[i];
            uint8_t *src, *back = malloc(n), *d;
            if (pinned) assert_int_equal(gpu_host_alloc((void **)&src, n), 0);
            else src = malloc(n);
            assert_non_null(src);
            assert_non_null(back);
            uint64_t x = test_rand64();
            for (size_t j = 0; j < n; j += 8) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                memcpy(src + j, &x, n - j < 8 ? n - j : 8);
            }
            memset(back, 0, n);
            assert_int_equal(gpu_malloc((void **)&d, n), 0);
            assert_int_equal(gpu_memcpy_async(d, src, n, s), 0);
            assert_int_equal(gpu_memcpy_async(back, d, n, s), 0);
            assert_int_equal(gpu_stream_sync(s), 0);
            assert_memory_equal(back, src, n);
            gpu_free(d);
            if (pinned) gpu_host_free(src);
            else free(src);
            free(back);
        }
    gpu_stream_destroy(s);
}

/* gpu_memcpy_async's 64 MiB pieces: whole pieces, one byte more, and a partial last piece. */
static void test_piece_copies(void **state)
{
    (void)state;
    const size_t piece = (size_t)64 << 20, sizes[] = {3 * piece, 3 * piece + 1, 7 * piece + 4097};
    round_trips(sizes, 3);
}

/* An urgent worker's copies by kernels (gpu_copy_use_sms): 16-byte multiples from pinned
 * memory go by kernel (the smallest, one that leaves a partial last round of loads, one of
 * ~200 MiB), the rest by the copy engine (pageable, a size not a multiple of 16); then the
 * H step with its inputs copied that way, both layouts. */
static void test_sm_copies(void **state)
{
    (void)state;
    const size_t sizes[] = {16, 4096 + 48, ((size_t)200 << 20) + 16 * 7, ((size_t)1 << 20) + 5};
    gpu_copy_use_sms(1);
    const uint64_t before = gpu_copy_sm_count();
    round_trips(sizes, 4);
    /* pinned: the three 16-byte multiples went by kernel, each once; nothing else did */
    assert_int_equal(gpu_copy_sm_count() - before, 3);
    check_size(20, 1, 1);
    check_size(20, 0, 2);
    gpu_copy_use_sms(0);
}

/* gpu_host_alloc (kernels/host_pinned.cu): sizes below a page, across a page, below and across
 * a huge page; each range page-locked from its first byte to its last, writable, read back
 * through the device; after gpu_host_free no longer page-locked; NULL frees nothing. */
static void test_host_pinned(void **state)
{
    (void)state;
    const size_t sizes[] = {1, 4097, ((size_t)2 << 20) - 16, ((size_t)2 << 20) + 1, (size_t)65 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        const size_t n = sizes[i];
        uint8_t *h = NULL, *back = malloc(n);
        void *d = NULL;
        assert_int_equal(gpu_host_alloc((void **)&h, n), 0);
        assert_non_null(h);
        assert_int_equal((uintptr_t)h & 4095, 0);
        assert_int_equal(gpu_host_is_pinned(h), 1);
        assert_int_equal(gpu_host_is_pinned(h + n - 1), 1);
        for (size_t j = 0; j < n; j++) h[j] = (uint8_t)(j * 131 + i);
        assert_int_equal(gpu_malloc(&d, n), 0);
        assert_int_equal(gpu_memcpy_to_device(d, h, n), 0);
        assert_int_equal(gpu_memcpy_to_host(back, d, n), 0);
        assert_memory_equal(back, h, n);
        gpu_free(d);
        gpu_host_free(h);
        assert_int_equal(gpu_host_is_pinned(h), 0);
        free(back);
    }
    gpu_host_free(NULL);
}

static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* A thread in a gated call (gpu_gate_pass inside) while the main thread watches it. */
typedef struct gated_call {
    int (*fn)(struct gated_call *);
    const gpu_gate *g;
    void *stream, *cp, *d[3], *d_res;
    const fr_t *a, *b, *c;
    uint64_t len;
    unsigned log_n;
    int lean, rc;
    _Atomic int returned;
    _Atomic int hooked; /* the lean step's hook ran (set from the call's thread) */
} gated_call;

static void *gated_thread(void *arg)
{
    gated_call *c = arg;
    c->rc = c->fn(c);
    atomic_store(&c->returned, 1);
    return NULL;
}

static int h_gated(gated_call *c);

/* Starts c on its thread with the word raised, checks it is held there (not returned 100 ms
 * later) while the device is not (a device-wide synchronize returns at once: the wait is on
 * the host), lowers the word, and returns once the call did (within a second). */
static void hold_then_lower(gated_call *c, uint32_t *word)
{
    pthread_t th;
    __atomic_store_n(word, 1u, __ATOMIC_SEQ_CST);
    atomic_store(&c->returned, 0);
    assert_int_equal(pthread_create(&th, NULL, gated_thread, c), 0);
    nanosleep(&(struct timespec){0, 100000000}, NULL);
    assert_int_equal(atomic_load(&c->returned), 0); /* held at a pass */
    /* the lean step's hook ran before its first pass: a caller's prefetch is not held back */
    if (c->fn == h_gated) assert_int_equal(atomic_load(&c->hooked), c->lean);
    uint64_t t0 = mono_ns();
    assert_int_equal(gpu_synchronize(), 0);
    assert_true(mono_ns() - t0 < 1000000000ull); /* the device waits for no host thread */
    assert_int_equal(atomic_load(&c->returned), 0);
    __atomic_store_n(word, 0u, __ATOMIC_SEQ_CST);
    t0 = mono_ns();
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_true(mono_ns() - t0 < 1000000000ull);
    assert_int_equal(c->rc, 0);
}

static int one_pass(gated_call *c) { return gpu_gate_pass(c->g, c->stream); }

/* The pass (gpu_gate_init, gpu_gate_pass): it returns once the stream has run what was
 * enqueued before it (a copy enqueued before has landed when it returns), at once while the
 * word is 0; while the word is raised the calling thread waits and the device does not; a
 * NULL gate passes at once. */
static void test_gate(void **state)
{
    (void)state;
    uint32_t word = 0, *landed = NULL, *d = NULL;
    void *stream = NULL;
    assert_int_equal(gpu_host_alloc((void **)&landed, 64), 0);
    assert_int_equal(gpu_malloc((void **)&d, 64), 0);
    assert_int_equal(gpu_stream_create(&stream), 0);
    gpu_gate g;
    assert_int_equal(gpu_gate_init(&g, &word), 0);
    for (int raised = 0; raised <= 1; raised++) {
        __atomic_store_n(landed, 0u, __ATOMIC_SEQ_CST);
        assert_int_equal(gpu_memset_async(d, 0x5a + raised, 4, stream), 0);
        assert_int_equal(gpu_memcpy_async(landed, d, 4, stream), 0);
        gated_call c = {.fn = one_pass, .g = &g, .stream = stream};
        if (raised) hold_then_lower(&c, &word);
        else assert_int_equal(gpu_gate_pass(&g, stream), 0);
        const uint32_t want = raised ? 0x5b5b5b5bu : 0x5a5a5a5au;
        assert_int_equal(__atomic_load_n(landed, __ATOMIC_SEQ_CST), want); /* the chunk before ran */
    }
    assert_int_equal(gpu_gate_pass(NULL, stream), 0);
    gpu_gate_fini(&g);
    gpu_stream_destroy(stream);
    gpu_free(d);
    gpu_host_free(landed);
}

static int gated_hook(void *user, void *ab_arrived)
{
    (void)ab_arrived;
    atomic_fetch_add(&((gated_call *)user)->hooked, 1);
    return 0;
}

static int h_gated(gated_call *c)
{
    const gpu_h_hook hook = {gated_hook, c};
    return c->lean ? gpu_h_step_from_host_lean(c->d[0], c->d[1], c->a, c->b, c->c, c->len, c->log_n, 0, c->d_res, c->g,
                                               &hook, c->stream, c->cp)
                   : gpu_h_step_from_host_checked(c->d[0], c->d[1], c->d[2], c->a, c->b, c->c, c->len, c->log_n, 0,
                                                  c->d_res, c->g, c->stream, c->cp);
}

/* The H step's passes between transforms (issue 17, paced since session 9): with the word
 * raised, the step from the host (three buffers, checked; and two, lean) holds its calling
 * thread after its first transform while the device runs on; once lowered it ends with the
 * CPU's h. */
static void test_h_gate(void **state)
{
    (void)state;
    const unsigned L = 18;
    const uint64_t n = 1ull << L, len = n - 3;
    const size_t bytes = n * sizeof(fr_t);
    fr_t *a, *b, *c, *want = malloc(bytes), *got = malloc(bytes);
    uint32_t word = 0;
    assert_int_equal(gpu_host_alloc((void **)&a, bytes), 0);
    assert_int_equal(gpu_host_alloc((void **)&b, bytes), 0);
    assert_int_equal(gpu_host_alloc((void **)&c, bytes), 0);
    assert_non_null(want && got);
    rand_fr_vec(a, n), rand_fr_vec(b, n), rand_fr_vec(c, n);
    for (uint64_t i = len; i < n; i++) a[i] = b[i] = c[i] = FR_ZERO;
    cpu_h(want, a, b, c, L);
    gated_call gc = {.fn = h_gated, .a = a, .b = b, .c = c, .len = len, .log_n = L};
    for (int k = 0; k < 3; k++) assert_int_equal(gpu_malloc(&gc.d[k], bytes), 0);
    assert_int_equal(gpu_malloc(&gc.d_res, sizeof(gpu_prep_result)), 0);
    assert_int_equal(gpu_stream_create(&gc.stream), 0);
    assert_int_equal(gpu_stream_create(&gc.cp), 0);
    gpu_gate g;
    assert_int_equal(gpu_gate_init(&g, &word), 0);
    gc.g = &g;
    for (int lean = 0; lean <= 1; lean++) {
        gc.lean = lean;
        atomic_store(&gc.hooked, 0);
        assert_int_equal(gpu_prep_reset(gc.d_res, gc.stream), 0);
        hold_then_lower(&gc, &word);
        assert_int_equal(gpu_stream_sync(gc.stream), 0);
        assert_int_equal(gpu_memcpy_to_host(got, gc.d[0], bytes), 0);
        assert_true(fr_vec_diff(lean ? "H gated, two buffers" : "H gated, checked", got, want, n) < 0);
    }
    gpu_gate_fini(&g);
    gpu_stream_destroy(gc.stream), gpu_stream_destroy(gc.cp);
    for (int k = 0; k < 3; k++) gpu_free(gc.d[k]);
    gpu_free(gc.d_res);
    gpu_host_free(a), gpu_host_free(b), gpu_host_free(c);
    free(want), free(got);
}

int main(void)
{
    if (gpu_test_begin()) return 77;
    tp = threadpool_create(0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny),
        cmocka_unit_test(test_hook_error),
        cmocka_unit_test(test_circom_partition),
        cmocka_unit_test(test_2_10),
        cmocka_unit_test(test_2_16),
        cmocka_unit_test(test_2_20),
        cmocka_unit_test(test_plan_boundaries),
        cmocka_unit_test(test_2_23),
        cmocka_unit_test(test_piece_copies),
        cmocka_unit_test(test_sm_copies),
        cmocka_unit_test(test_host_pinned),
        cmocka_unit_test(test_gate),
        cmocka_unit_test(test_h_gate),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    threadpool_destroy(tp);
    return rc;
}
