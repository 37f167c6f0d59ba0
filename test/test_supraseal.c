/* libcuzk-supraseal (supraseal/supraseal_c2.h), called through the built .so as a host of
 * supraseal's C entry does: the in-memory layouts (Assignment, SRS, the error struct, the
 * proof), a batch of partitions proven with fixed r, s whose in-memory proofs, compressed back
 * by an independent routine here, equal byte for byte what libcuzk's own API gives for the
 * same partitions, r and s (and verify with cuzk_verify); errors with their detail; SRS
 * clone/drop/evict and concurrent batches across threads. Oracle: the test's own engine
 * (libcuzk's public API, a separate copy of the library) and cuzk_verify. CPU backend
 * (CUZK_BACKEND=cpu in the environment, which the library reads). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../examples/c/supraseal_adapter.c" /* supraseal_from_cuzk: the Assignment of a partition */
#include "../supraseal/supraseal_c2.h"
#include "cuzk/cuzk.h"
#include "field/curve.h"
#include "support/mixjob.h"
#include "support/testkey.h"
#include "support/testutil.h"

enum { N = 8 };
static test_key key;
static mix_job jobs[N];                      /* alive for the whole test: the supraseal calls' inputs */
static supraseal_c2_assignment asg[N];
static supraseal_c2_fr r_s[N], s_s[N];
static uint8_t expected[N][192];             /* libcuzk's own proofs of the same partitions, r, s */

/* ---- an independent compression of an in-memory proof (FORMATS.md's zcash encoding) ---- */

static void be48_of_mont(uint8_t out[48], const uint64_t mont[6])
{
    fp_t a;
    uint64_t c[6];
    memcpy(a.l, mont, sizeof a.l);
    fp_from_mont(c, &a);
    for (int i = 0; i < 48; i++) out[i] = (uint8_t)(c[5 - i / 8] >> (56 - 8 * (i % 8)));
}

/* canonical y > (p - 1) / 2, i.e. y > p >> 1 (p is odd) */
static int lex_largest(const uint64_t mont[6])
{
    fp_t a;
    uint64_t c[6], half[6];
    memcpy(a.l, mont, sizeof a.l);
    fp_from_mont(c, &a);
    for (int i = 0; i < 6; i++) half[i] = (FP_MODULUS[i] >> 1) | (i < 5 ? FP_MODULUS[i + 1] << 63 : 0);
    for (int i = 5; i >= 0; i--)
        if (c[i] != half[i]) return c[i] > half[i];
    return 0;
}

static int all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

static void compress_g1(uint8_t out[48], const supraseal_c2_g1 *p)
{
    memset(out, 0, 48);
    if (all_zero(p, sizeof *p)) {
        out[0] = 0xc0;
        return;
    }
    be48_of_mont(out, p->x);
    out[0] |= 0x80 | (lex_largest(p->y) ? 0x20 : 0);
}

static void compress_g2(uint8_t out[96], const supraseal_c2_g2 *p)
{
    memset(out, 0, 96);
    if (all_zero(p, sizeof *p)) {
        out[0] = 0xc0;
        return;
    }
    be48_of_mont(out, p->x[1]); /* c1 first */
    be48_of_mont(out + 48, p->x[0]);
    int sign = all_zero(p->y[1], 48) ? lex_largest(p->y[0]) : lex_largest(p->y[1]);
    out[0] |= 0x80 | (sign ? 0x20 : 0);
}

static void compress_proof(uint8_t out[192], const supraseal_c2_proof *p)
{
    compress_g1(out, &p->a);
    compress_g2(out + 48, &p->b);
    compress_g1(out + 144, &p->c);
}

/* ---- setup: a key, N partitions and libcuzk's own proofs of them ---- */

static int setup(void **state)
{
    (void)state;
    setenv("CUZK_BACKEND", "cpu", 1);
    setenv("CUZK_WORKERS_PER_DEVICE", "2", 1);
    if (test_key_random(&key, 300, "supraseal")) return -1;
    /* the oracle: the same partitions (synth_partition is deterministic), r and s through
     * cuzk_submit_partition on an engine of the test's own */
    cuzk_engine *e = mix_engine(CUZK_BACKEND_CPU, 2, 0, NULL);
    cuzk_srs *srs = NULL;
    if (!e || cuzk_srs_load(e, key.path, 0, &srs)) return -1;
    static mix_job oracle[N];
    for (int i = 0; i < N; i++) {
        cuzk_job h;
        if (mix_job_make(&oracle[i], &key, (uint8_t)i, (uint64_t)i, 0) ||
            cuzk_submit_partition(e, srs, &oracle[i].p, &h))
            return -1;
    }
    for (int i = 0; i < N; i++) {
        cuzk_result r = {.struct_size = sizeof r};
        if (cuzk_poll_result(e, &r, -1) || r.status || r.user_tag >= N ||
            mix_job_check(&oracle[r.user_tag], &r))
            return -1;
        memcpy(expected[r.user_tag], r.proof, 192);
    }
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
    /* the inputs of the supraseal calls, as a supraseal host lays them out */
    for (int i = 0; i < N; i++) {
        supraseal_assignment sa;
        if (mix_job_make(&jobs[i], &key, (uint8_t)i, (uint64_t)i, 0) || supraseal_from_cuzk(&jobs[i].p, &sa))
            return -1;
        memcpy(&asg[i], &sa, sizeof sa);
        memcpy(&r_s[i], &jobs[i].rs[0], 32);
        memcpy(&s_s[i], &jobs[i].rs[1], 32);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < N; i++)
        if (jobs[i].p.release) jobs[i].p.release(jobs[i].p.release_user);
    test_key_free(&key);
    return 0;
}

/* proofs[0..n) of partitions first..first+n equal libcuzk's and verify */
static void check_proofs(const supraseal_c2_proof *proofs, int first, int n)
{
    for (int i = 0; i < n; i++) {
        uint8_t bytes[192];
        g1_aff a;
        memcpy(&a, &proofs[i].a, sizeof a);
        assert_true(g1_aff_is_on_curve(&a) && !g1_aff_is_inf(&a)); /* Montgomery coordinates */
        compress_proof(bytes, &proofs[i]);
        assert_memory_equal(bytes, expected[first + i], 192);
        assert_int_equal(cuzk_verify(key.vk, key.vk_len, bytes, jobs[first + i].pub, jobs[first + i].npub,
                                     CUZK_FR_MONTGOMERY),
                         CUZK_OK);
    }
}

/* ---- tests ---- */

static void layouts(void **state)
{
    (void)state;
    const size_t w = sizeof(size_t);
    assert_int_equal(sizeof(supraseal_c2_assignment), 17 * w);
    assert_int_equal(sizeof(supraseal_c2_assignment), sizeof(supraseal_assignment));
#define SAME(f) assert_int_equal(offsetof(supraseal_c2_assignment, f), offsetof(supraseal_assignment, f))
    SAME(a_aux_density); SAME(a_aux_bit_len); SAME(a_aux_popcount);
    SAME(b_inp_density); SAME(b_inp_bit_len); SAME(b_inp_popcount);
    SAME(b_aux_density); SAME(b_aux_bit_len); SAME(b_aux_popcount);
    SAME(a); SAME(b); SAME(c); SAME(abc_size);
    SAME(inp_assignment_data); SAME(inp_assignment_size); SAME(aux_assignment_data); SAME(aux_assignment_size);
#undef SAME
    assert_int_equal(offsetof(supraseal_c2_assignment, a), 9 * w);
    assert_int_equal(offsetof(supraseal_c2_assignment, aux_assignment_size), 16 * w);
    assert_int_equal(sizeof(supraseal_c2_srs), sizeof(void *));
    /* sppark's RustError: { int32 code; char *str } */
    assert_int_equal(offsetof(supraseal_c2_error, code), 0);
    assert_int_equal(offsetof(supraseal_c2_error, str), sizeof(void *));
    assert_int_equal(sizeof(supraseal_c2_error), 2 * sizeof(void *));
    assert_int_equal(sizeof(supraseal_c2_fr), 32);
    /* Proof<Bls12>: A 96, B 192, C 96 */
    assert_int_equal(sizeof(supraseal_c2_proof), 384);
    assert_int_equal(offsetof(supraseal_c2_proof, b), 96);
    assert_int_equal(offsetof(supraseal_c2_proof, c), 288);
    assert_int_equal(offsetof(supraseal_c2_g2, y), 96);
}

/* First of the calls: the engine is not made yet, so a bad variable fails create_SRS (with
 * its name) and is not kept: the next create_SRS with a good environment works. */
static void env_errors(void **state)
{
    (void)state;
    supraseal_c2_srs srs = {(void *)1};
    setenv("CUZK_QUEUE_CAPACITY", "lots", 1);
    supraseal_c2_error err = create_SRS(&srs, key.path, false);
    assert_int_equal(err.code, CUZK_EINVAL);
    assert_non_null(err.str);
    assert_non_null(strstr(err.str, "CUZK_QUEUE_CAPACITY"));
    assert_null(srs.ptr);
    free(err.str);
    setenv("CUZK_QUEUE_CAPACITY", "0x7fffffff", 1); /* parses; out of the option's range */
    err = create_SRS(&srs, key.path, false);
    assert_int_equal(err.code, CUZK_EINVAL);
    assert_non_null(strstr(err.str, "CUZK_QUEUE_CAPACITY"));
    free(err.str);
    unsetenv("CUZK_QUEUE_CAPACITY");
    setenv("CUZK_BACKEND", "gpu", 1);
    err = create_SRS(&srs, key.path, false);
    assert_int_equal(err.code, CUZK_EINVAL);
    assert_non_null(strstr(err.str, "CUZK_BACKEND is 'gpu'"));
    free(err.str);
    setenv("CUZK_BACKEND", "cpu", 1);
    err = create_SRS(&srs, key.path, false);
    assert_int_equal(err.code, 0);
    assert_null(err.str);
    assert_non_null(srs.ptr);
    drop_SRS(&srs);
}

static void batch_matches_libcuzk(void **state)
{
    (void)state;
    supraseal_c2_srs srs;
    supraseal_c2_error err = create_SRS(&srs, key.path, false);
    assert_int_equal(err.code, 0);
    static supraseal_c2_proof proofs[N];
    memset(proofs, 0xee, sizeof proofs);
    err = generate_groth16_proofs_c(asg, N, r_s, s_s, proofs, &srs);
    if (err.code) fail_msg("generate_groth16_proofs_c: %d %s", err.code, err.str);
    assert_null(err.str);
    check_proofs(proofs, 0, N);
    assert_memory_not_equal(&proofs[0], &proofs[1], sizeof proofs[0]); /* different r, s */
    /* n = 0: nothing to do, nothing touched */
    err = generate_groth16_proofs_c(NULL, 0, NULL, NULL, NULL, &srs);
    assert_int_equal(err.code, 0);
    drop_SRS(&srs);
}

static void expect_error(supraseal_c2_error err, int code, const char *a, const char *b)
{
    if (err.code != code || !err.str || !strstr(err.str, a) || (b && !strstr(err.str, b)))
        fail_msg("expected %d with '%s' '%s', got %d '%s'", code, a, b ? b : "", err.code, err.str ? err.str : "(null)");
    free(err.str);
}

static void errors(void **state)
{
    (void)state;
    supraseal_c2_srs srs, none = {NULL};
    expect_error(create_SRS(NULL, key.path, false), CUZK_EINVAL, "ret is NULL", NULL);
    expect_error(create_SRS(&srs, NULL, false), CUZK_EINVAL, "path is NULL", NULL);
    expect_error(create_SRS(&srs, "/nonexistent/x.params", true), CUZK_EIO, "/nonexistent/x.params", NULL);
    assert_null(srs.ptr);
    assert_int_equal(create_SRS(&srs, key.path, false).code, 0);

    static supraseal_c2_proof proofs[4];
    supraseal_c2_assignment bad[4];
    memcpy(bad, asg, sizeof bad);
    expect_error(generate_groth16_proofs_c(bad, 4, r_s, s_s, proofs, NULL), CUZK_EINVAL, "srs is NULL", NULL);
    expect_error(generate_groth16_proofs_c(bad, 4, r_s, s_s, proofs, &none), CUZK_EINVAL, "srs is NULL", NULL);
    expect_error(generate_groth16_proofs_c(NULL, 4, r_s, s_s, proofs, &srs), CUZK_EINVAL, "provers is NULL", NULL);
    expect_error(generate_groth16_proofs_c(bad, 4, NULL, s_s, proofs, &srs), CUZK_EINVAL, "r_s is NULL", NULL);
    expect_error(generate_groth16_proofs_c(bad, 4, r_s, s_s, NULL, &srs), CUZK_EINVAL, "proofs is NULL", NULL);
    /* a count whose proofs would not fit the address space: refused before any memory is touched */
    expect_error(generate_groth16_proofs_c(bad, SIZE_MAX / 2, r_s, s_s, proofs, &srs), CUZK_EINVAL,
                 "not a count of proofs", NULL);

    /* a wrong-size Assignment: refused before anything is proven, the counts named */
    char want[96];
    bad[2].a_aux_bit_len = asg[2].a_aux_bit_len - 1;
    snprintf(want, sizeof want, "a_aux bit length %zu and b_aux bit length %zu, aux assignment size %zu",
             asg[2].a_aux_bit_len - 1, asg[2].b_aux_bit_len, asg[2].aux_assignment_size);
    memset(proofs, 0xee, sizeof proofs);
    expect_error(generate_groth16_proofs_c(bad, 4, r_s, s_s, proofs, &srs), CUZK_EMISMATCH, "prover 2 of 4", want);
    assert_true(all_zero(proofs, sizeof proofs));
    bad[2] = asg[2];
    bad[1].b_aux_popcount++;
    snprintf(want, sizeof want, "b_aux popcount %zu, its bitmap has %zu bits set", asg[1].b_aux_popcount + 1,
             asg[1].b_aux_popcount);
    expect_error(generate_groth16_proofs_c(bad, 4, r_s, s_s, proofs, &srs), CUZK_EMISMATCH, "prover 1 of 4", want);
    bad[1] = asg[1];
    bad[3].b_inp_bit_len--;
    snprintf(want, sizeof want, "b_inp bit length %zu, input assignment size %zu", asg[3].b_inp_bit_len - 1,
             asg[3].inp_assignment_size);
    expect_error(generate_groth16_proofs_c(bad, 4, r_s, s_s, proofs, &srs), CUZK_EMISMATCH, "prover 3 of 4", want);
    /* one that fits itself but not the key (an input fewer): found at its submission, after
     * 0..2 were submitted; those are canceled or finished, and the call returns only when
     * they are */
    bad[3].inp_assignment_size--;
    bad[3].b_inp_popcount = popcount_bits(bad[3].b_inp_density, bad[3].b_inp_bit_len);
    snprintf(want, sizeof want, "key has %zu ic points, partition has %zu inputs", asg[3].inp_assignment_size,
             asg[3].inp_assignment_size - 1);
    memset(proofs, 0xee, sizeof proofs);
    expect_error(generate_groth16_proofs_c(bad, 4, r_s, s_s, proofs, &srs), CUZK_EMISMATCH, "prover 3 of 4", want);
    assert_true(all_zero(proofs, sizeof proofs));
    /* a scalar not below r: the job's own failure, its detail passed on */
    supraseal_c2_fr big_r[4];
    memcpy(big_r, r_s, sizeof big_r);
    memset(&big_r[1], 0xff, sizeof big_r[1]);
    supraseal_c2_error err = generate_groth16_proofs_c(asg, 4, big_r, s_s, proofs, &srs);
    assert_int_not_equal(err.code, 0);
    assert_non_null(err.str);
    assert_non_null(strstr(err.str, "prover 1 of 4"));
    free(err.str);
    /* and the engine still proves afterwards */
    err = generate_groth16_proofs_c(asg, 2, r_s, s_s, proofs, &srs);
    assert_int_equal(err.code, 0);
    check_proofs(proofs, 0, 2);
    drop_SRS(&srs);
    drop_SRS(NULL);
    drop_SRS(&none);
    evict_SRS(NULL);
    evict_SRS(&none);
    assert_null(clone_SRS(NULL).ptr);
    assert_null(clone_SRS(&none).ptr);
}

/* ---- threads ---- */

typedef struct thread_arg {
    supraseal_c2_srs srs; /* the thread's own handle (a clone), dropped by the thread */
    int first, n, clones;
    int ok;
} thread_arg;

static void *clone_drop_thread(void *p)
{
    thread_arg *t = p;
    for (int i = 0; i < t->clones; i++) {
        supraseal_c2_srs c = clone_SRS(&t->srs);
        t->ok += c.ptr == t->srs.ptr;
        drop_SRS(&c);
    }
    drop_SRS(&t->srs);
    return NULL;
}

static void *prove_thread(void *p)
{
    thread_arg *t = p;
    static supraseal_c2_proof proofs[N];
    supraseal_c2_error err =
        generate_groth16_proofs_c(asg + t->first, (size_t)t->n, r_s + t->first, s_s + t->first, proofs + t->first, &t->srs);
    if (!err.code) {
        t->ok = 1;
        for (int i = t->first; i < t->first + t->n; i++) {
            uint8_t bytes[192];
            compress_proof(bytes, &proofs[i]);
            t->ok &= !memcmp(bytes, expected[i], 192);
        }
    }
    free(err.str);
    drop_SRS(&t->srs);
    return NULL;
}

static void clone_drop_threads(void **state)
{
    (void)state;
    supraseal_c2_srs srs;
    assert_int_equal(create_SRS(&srs, key.path, false).code, 0);
    enum { T = 4, CLONES = 20000 };
    thread_arg args[T];
    pthread_t th[T];
    for (int i = 0; i < T; i++) {
        args[i] = (thread_arg){.srs = clone_SRS(&srs), .clones = CLONES};
        assert_ptr_equal(args[i].srs.ptr, srs.ptr);
        assert_int_equal(pthread_create(&th[i], NULL, clone_drop_thread, &args[i]), 0);
    }
    drop_SRS(&srs); /* the threads' clones keep the key */
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].ok, CLONES);
    }
}

/* Two batches at once on the one engine, each with its own clone of a key that the creating
 * handle dropped meanwhile: every result reaches its own call. */
static void concurrent_batches(void **state)
{
    (void)state;
    supraseal_c2_srs srs;
    assert_int_equal(create_SRS(&srs, key.path, false).code, 0);
    thread_arg args[2] = {{.srs = clone_SRS(&srs), .first = 0, .n = N / 2},
                          {.srs = clone_SRS(&srs), .first = N / 2, .n = N / 2}};
    drop_SRS(&srs);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, prove_thread, &args[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    assert_int_equal(args[0].ok, 1);
    assert_int_equal(args[1].ok, 1);
}

/* cache = true shares one key by path until evict_SRS; each handle still drops on its own. */
static void cache_and_evict(void **state)
{
    (void)state;
    supraseal_c2_srs a, b, c;
    assert_int_equal(create_SRS(&a, key.path, true).code, 0);
    assert_int_equal(create_SRS(&b, key.path, true).code, 0);
    assert_ptr_equal(a.ptr, b.ptr);
    assert_int_equal(create_SRS(&c, key.path, false).code, 0); /* not from the cache */
    assert_ptr_not_equal(c.ptr, a.ptr);
    drop_SRS(&c);
    drop_SRS(&a);
    drop_SRS(&b);
    /* the cache holds the key with no handle left: the next create_SRS shares it */
    assert_int_equal(create_SRS(&a, key.path, true).code, 0);
    assert_ptr_equal(a.ptr, b.ptr);
    evict_SRS(&a);
    evict_SRS(&a); /* not in the cache any more: nothing */
    static supraseal_c2_proof proofs[1];
    supraseal_c2_error err = generate_groth16_proofs_c(asg, 1, r_s, s_s, proofs, &a);
    assert_int_equal(err.code, 0);
    check_proofs(proofs, 0, 1);
    drop_SRS(&a); /* the last hold: the key is released */
    assert_int_equal(create_SRS(&b, key.path, true).code, 0); /* a fresh load */
    evict_SRS(&b);
    drop_SRS(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layouts),
        cmocka_unit_test(env_errors), /* first call of the library: before the engine exists */
        cmocka_unit_test(batch_matches_libcuzk),
        cmocka_unit_test(errors),
        cmocka_unit_test(clone_drop_threads),
        cmocka_unit_test(concurrent_batches),
        cmocka_unit_test(cache_and_evict),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
