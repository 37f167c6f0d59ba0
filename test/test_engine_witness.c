/* Witness-only partitions on the CPU backend (cuzk_cs_load, cuzk_submit_witness): for the same
 * witness, r and s, the proof is byte for byte the one of the a/b/c path (cuzk_submit_partition
 * of cs_make_partition's a/b/c, itself checked against groth16_prove called directly), with 1
 * and 2 workers, both scalar forms, constraint systems read from .r1cs and from the compact
 * file, and for witnesses that satisfy nothing (verification off: both paths compute the same
 * function of the witness). Counts that do not fit are refused at submit with CUZK_EMISMATCH,
 * witness values not below r end the job with CUZK_EINVAL, every release runs exactly once. */
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
#include "groth16/circom_file.h"
#include "groth16/csc.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "support/fieldtest.h"
#include "support/testengine.h"
#include "support/testkey.h"
#include "support/testutil.h"

typedef struct circuit {
    test_key key;
    cs sys;
    fr_t *in, *aux;              /* a satisfying witness, Montgomery */
    char cs_path[128];           /* the compact file */
    char r1cs_path[128];
} circuit;

static void circuit_make(circuit *c, uint64_t constraints, int index)
{
    memset(c, 0, sizeof *c);
    synth_cfg cfg;
    uint8_t seed[32];
    test_rand_bytes(seed, 32);
    synth_cfg_default(&cfg, constraints, seed);
    assert_int_equal(test_key_make(&c->key, &cfg, "witness", index), CUZK_OK);
    assert_int_equal(synth_cs(&cfg, &c->sys, &c->in, &c->aux), CUZK_OK);
    snprintf(c->cs_path, sizeof c->cs_path, "/tmp/cuzk-witness-%d-%d.cuzkcs", (int)getpid(), index);
    snprintf(c->r1cs_path, sizeof c->r1cs_path, "/tmp/cuzk-witness-%d-%d.r1cs", (int)getpid(), index);
    assert_int_equal(circom_r1cs_write(c->r1cs_path, &c->sys), CUZK_OK);
    assert_int_equal(cuzk_cs_convert(c->r1cs_path, c->cs_path), CUZK_OK);
}

static void circuit_free(circuit *c)
{
    unlink(c->cs_path);
    unlink(c->r1cs_path);
    cs_free(&c->sys);
    free(c->in);
    free(c->aux);
    test_key_free(&c->key);
}

static int releases[64];
static void count_release(void *u) { releases[(uintptr_t)u]++; }

static cuzk_result poll1(cuzk_engine *e)
{
    cuzk_result r = {.struct_size = sizeof r};
    assert_int_equal(cuzk_poll_result(e, &r, 120 * 1000000000ll), CUZK_OK);
    return r;
}

/* The witness in form, one buffer: inputs then aux (what a host's WitnessCS hands over). */
static cuzk_fr *witness_in_form(const circuit *c, const fr_t *in, const fr_t *aux, int32_t form)
{
    uint64_t ni = c->sys.num_inputs, na = c->sys.num_aux;
    cuzk_fr *w = malloc((ni + na) * sizeof *w);
    for (uint64_t i = 0; i < ni + na; i++) {
        const fr_t *x = i < ni ? &in[i] : &aux[i - ni];
        if (form == CUZK_FR_CANONICAL) fr_from_mont((fr_t *)&w[i], x);
        else memcpy(&w[i], x, sizeof *x);
    }
    return w;
}

/* The a/b/c partition and the witness-only one of a witness, with the same r, s: the two
 * proofs must be equal, and equal to groth16_prove's on that a/b/c. */
static void prove_both_ways(cuzk_engine *e, cuzk_srs *srs, cuzk_cs *cs, const circuit *c, const fr_t *in,
                            const fr_t *aux, int32_t form, uint8_t proof_out[192])
{
    fr_t r, s;
    uint8_t seed[32];
    test_rand_bytes(seed, sizeof seed);
    groth16_rs_from_seed(&r, &s, seed);
    cuzk_fr rs[2];
    if (form == CUZK_FR_CANONICAL) fr_from_mont((fr_t *)&rs[0], &r), fr_from_mont((fr_t *)&rs[1], &s);
    else memcpy(&rs[0], &r, 32), memcpy(&rs[1], &s, 32);

    cuzk_partition p;
    assert_int_equal(cs_make_partition_ex(&c->sys, in, aux, form, &p), CUZK_OK);
    void (*free_block)(void *) = p.release;
    void *block = p.release_user;
    p.r = &rs[0], p.s = &rs[1];
    p.user_tag = 1;
    p.release = count_release, p.release_user = (void *)(uintptr_t)1;
    cuzk_fr *w = witness_in_form(c, in, aux, form);
    cuzk_witness_partition wp = {.struct_size = sizeof wp, .scalar_form = form, .inputs = w,
                                 .num_inputs = c->sys.num_inputs, .aux = w + c->sys.num_inputs,
                                 .num_aux = c->sys.num_aux, .r = &rs[0], .s = &rs[1], .user_tag = 2,
                                 .release = count_release, .release_user = (void *)(uintptr_t)2};
    releases[1] = releases[2] = 0;
    cuzk_job j1, j2;
    assert_int_equal(cuzk_submit_partition(e, srs, &p, &j1), CUZK_OK);
    assert_int_equal(cuzk_submit_witness(e, srs, cs, &wp, &j2), CUZK_OK);
    uint8_t got[3][192];
    for (int k = 0; k < 2; k++) {
        cuzk_result r1 = poll1(e);
        if (r1.status) fail_msg("job %llu: %s", (unsigned long long)r1.user_tag, r1.detail);
        memcpy(got[r1.user_tag], r1.proof, 192);
    }
    assert_int_equal(releases[1], 1);
    assert_int_equal(releases[2], 1);
    assert_memory_equal(got[1], got[2], 192);
    /* and both are lib/groth16's prover's own bytes for that a/b/c, r and s */
    uint8_t direct[192];
    p.release = NULL;
    assert_int_equal(groth16_prove(c->key.pk, &p, &r, &s, NULL, direct), CUZK_OK);
    assert_memory_equal(direct, got[2], 192);
    if (proof_out) memcpy(proof_out, got[2], 192);
    free(w);
    free_block(block);
}

static void proofs_identical_to_abc_path(void **state)
{
    (void)state;
    test_seed();
    const uint64_t sizes[] = {300, 3000, 12000};
    for (int t = 0; t < 3; t++) {
        circuit c;
        circuit_make(&c, sizes[t], t);
        for (int workers = 1; workers <= 2; workers++) {
            cuzk_engine *e = TEST_ENGINE({CUZK_OPT_BACKEND, CUZK_BACKEND_CPU}, {CUZK_OPT_VERIFY, 1},
                                         {CUZK_OPT_WORKERS_PER_DEVICE, workers});
            assert_non_null(e);
            cuzk_srs *srs;
            cuzk_cs *cs;
            assert_int_equal(cuzk_srs_load(e, c.key.path, 0, &srs), CUZK_OK);
            /* the compact file with one worker, the .r1cs with two: both loaders */
            assert_int_equal(cuzk_cs_load(e, workers == 1 ? c.cs_path : c.r1cs_path, 0, &cs), CUZK_OK);
            cuzk_cs_info info = {.struct_size = sizeof info};
            assert_int_equal(cuzk_cs_get_info(cs, &info), CUZK_OK);
            assert_int_equal(info.struct_size, sizeof info);
            /* the CPU backend holds nothing on a device */
            assert_int_equal(info.device_bytes, 0);
            assert_int_equal(info.resident_devices + info.streamed_devices, 0);
            /* a host compiled against 0.4's first layout gets exactly that */
            uint8_t v1[CUZK_CS_INFO_SIZE_V1 + 8];
            memset(v1, 0xa5, sizeof v1);
            ((cuzk_cs_info *)v1)->struct_size = CUZK_CS_INFO_SIZE_V1;
            assert_int_equal(cuzk_cs_get_info(cs, (cuzk_cs_info *)v1), CUZK_OK);
            assert_int_equal(((cuzk_cs_info *)v1)->struct_size, CUZK_CS_INFO_SIZE_V1);
            assert_int_equal(v1[CUZK_CS_INFO_SIZE_V1], 0xa5);
            assert_int_equal(info.num_inputs, c.sys.num_inputs);
            assert_int_equal(info.num_aux, c.sys.num_aux);
            assert_int_equal(info.num_constraints, c.sys.num_constraints);
            assert_int_equal(info.abc_len, cs_abc_len(&c.sys));
            assert_int_equal(info.nnz[0], c.sys.a.off[c.sys.num_constraints] + c.sys.num_inputs);
            assert_true(info.host_bytes > 8 * (info.nnz[0] + info.nnz[1] + info.nnz[2]));
            cuzk_stats st = {.struct_size = sizeof st};
            assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
            assert_int_equal(st.cs_host_bytes, info.host_bytes);
            assert_int_equal(st.cs_device_bytes, 0);
            printf("%llu constraints, %d worker(s): %llu + %llu + %llu non-zeros, %u coefficients, %llu bytes\n",
                   (unsigned long long)sizes[t], workers, (unsigned long long)info.nnz[0],
                   (unsigned long long)info.nnz[1], (unsigned long long)info.nnz[2], info.num_coeffs,
                   (unsigned long long)info.host_bytes);
            for (int form = 0; form < 2; form++) {
                uint8_t proof[192];
                prove_both_ways(e, srs, cs, &c, c.in, c.aux, form, proof);
                /* an independent check: the pairing verifier accepts it */
                cuzk_fr pub[400];
                assert_true(c.sys.num_inputs - 1 <= 400);
                for (uint64_t i = 1; i < c.sys.num_inputs; i++) fr_from_mont((fr_t *)&pub[i - 1], &c.in[i]);
                assert_int_equal(cuzk_verify(c.key.vk, c.key.vk_len, proof, pub, c.sys.num_inputs - 1,
                                             CUZK_FR_CANONICAL), CUZK_OK);
            }
            /* the constraint system lives on while a job uses it */
            cuzk_cs_release(cs);
            cuzk_srs_release(srs);
            cuzk_engine_destroy(e);
        }
        circuit_free(&c);
    }
}

/* A witness that satisfies nothing: with verification off, both paths still agree byte for
 * byte (zero aux; then random values with ones and zeros). */
static void unsatisfying_witnesses_agree(void **state)
{
    (void)state;
    test_seed();
    circuit c;
    circuit_make(&c, 2000, 10);
    cuzk_engine *e = TEST_ENGINE({CUZK_OPT_BACKEND, CUZK_BACKEND_CPU}, {CUZK_OPT_VERIFY, 0});
    assert_non_null(e);
    cuzk_srs *srs;
    cuzk_cs *cs;
    assert_int_equal(cuzk_srs_load(e, c.key.path, 0, &srs), CUZK_OK);
    assert_int_equal(cuzk_cs_load(e, c.cs_path, 0, &cs), CUZK_OK);
    uint64_t ni = c.sys.num_inputs, na = c.sys.num_aux;
    fr_t *in = calloc(ni, sizeof *in), *aux = calloc(na + 1, sizeof *aux);
    in[0] = FR_ONE;
    prove_both_ways(e, srs, cs, &c, in, aux, CUZK_FR_MONTGOMERY, NULL);
    for (uint64_t i = 1; i < ni; i++) ft_rand_fr(&in[i]);
    for (uint64_t i = 0; i < na; i++) {
        unsigned k = (unsigned)(test_rand64() % 3);
        if (k == 0) aux[i] = FR_ONE;
        else if (k == 1) fr_neg(&aux[i], &FR_ONE);
        else ft_rand_fr(&aux[i]);
    }
    prove_both_ways(e, srs, cs, &c, in, aux, CUZK_FR_CANONICAL, NULL);
    free(in), free(aux);
    cuzk_cs_release(cs);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
    circuit_free(&c);
}

static void mismatches_and_bad_values(void **state)
{
    (void)state;
    test_seed();
    circuit c, d;
    circuit_make(&c, 300, 20);
    circuit_make(&d, 700, 21); /* another circuit: its constraint system does not fit c's key */
    cuzk_engine *e = TEST_ENGINE({CUZK_OPT_BACKEND, CUZK_BACKEND_CPU}, {CUZK_OPT_VERIFY, 1});
    assert_non_null(e);
    cuzk_srs *srs;
    cuzk_cs *cs, *other;
    assert_int_equal(cuzk_srs_load(e, c.key.path, 0, &srs), CUZK_OK);
    assert_int_equal(cuzk_cs_load(e, c.cs_path, 0, &cs), CUZK_OK);
    assert_int_equal(cuzk_cs_load(e, d.r1cs_path, 0, &other), CUZK_OK);
    cuzk_cs *none = (cuzk_cs *)&none;
    assert_int_equal(cuzk_cs_load(e, c.cs_path, 2, &none), CUZK_EINVAL);
    assert_null(none);
    /* CUZK_CS_STREAM is a device placement: the CPU backend takes it and places nothing */
    cuzk_cs *streamed = NULL;
    assert_int_equal(cuzk_cs_load(e, c.cs_path, CUZK_CS_STREAM, &streamed), CUZK_OK);
    cuzk_cs_release(streamed);
    assert_int_equal(cuzk_cs_load(e, "/nonexistent.cuzkcs", 0, &(cuzk_cs *){NULL}), CUZK_EIO);

    cuzk_fr *w = witness_in_form(&c, c.in, c.aux, CUZK_FR_MONTGOMERY);
    cuzk_witness_partition wp = {.struct_size = sizeof wp, .scalar_form = CUZK_FR_MONTGOMERY, .inputs = w,
                                 .num_inputs = c.sys.num_inputs, .aux = w + c.sys.num_inputs,
                                 .num_aux = c.sys.num_aux, .release = count_release,
                                 .release_user = (void *)(uintptr_t)3};
    cuzk_job j;
    /* d's system with c's witness: the witness's counts are not the system's */
    assert_int_equal(cuzk_submit_witness(e, srs, other, &wp, &j), CUZK_EMISMATCH);
    assert_non_null(strstr(cuzk_last_error(), "the constraint system"));
    /* d's witness and system against c's key: the key's counts */
    cuzk_fr *wd = witness_in_form(&d, d.in, d.aux, CUZK_FR_MONTGOMERY);
    cuzk_witness_partition wpd = wp;
    wpd.inputs = wd, wpd.num_inputs = d.sys.num_inputs, wpd.aux = wd + d.sys.num_inputs, wpd.num_aux = d.sys.num_aux;
    assert_int_equal(cuzk_submit_witness(e, srs, other, &wpd, &j), CUZK_EMISMATCH);
    assert_non_null(strstr(cuzk_last_error(), "key has"));
    cuzk_witness_partition bad = wp;
    bad.num_aux--;
    assert_int_equal(cuzk_submit_witness(e, srs, cs, &bad, &j), CUZK_EMISMATCH);
    bad = wp, bad.struct_size = 40;
    assert_int_equal(cuzk_submit_witness(e, srs, cs, &bad, &j), CUZK_EINVAL);
    bad = wp, bad.scalar_form = 7;
    assert_int_equal(cuzk_submit_witness(e, srs, cs, &bad, &j), CUZK_EINVAL);
    bad = wp, bad.reserved = 1;
    assert_int_equal(cuzk_submit_witness(e, srs, cs, &bad, &j), CUZK_EINVAL);
    bad = wp, bad.aux = NULL;
    assert_int_equal(cuzk_submit_witness(e, srs, cs, &bad, &j), CUZK_EINVAL);
    assert_int_equal(cuzk_submit_witness(e, srs, NULL, &wp, &j), CUZK_EINVAL);
    assert_int_equal(cuzk_submit_witness(e, srs, cs, NULL, &j), CUZK_EINVAL);
    /* ONE must be ONE */
    cuzk_fr one = w[0];
    memset(&w[0], 0, sizeof w[0]);
    assert_int_equal(cuzk_submit_witness(e, srs, cs, &wp, &j), CUZK_EINVAL);
    w[0] = one;

    /* an aux value not below r: the job fails with CUZK_EINVAL naming it; release once */
    uint64_t at = test_rand64() % c.sys.num_aux;
    cuzk_fr saved = w[c.sys.num_inputs + at];
    memset(&w[c.sys.num_inputs + at], 0xff, sizeof saved);
    releases[3] = 0;
    assert_int_equal(cuzk_submit_witness(e, srs, cs, &wp, &j), CUZK_OK);
    cuzk_result r = poll1(e);
    assert_int_equal(r.status, CUZK_EINVAL);
    char want[64];
    snprintf(want, sizeof want, "aux[%llu]", (unsigned long long)at);
    if (!strstr(r.detail, want)) fail_msg("detail '%s' does not name %s", r.detail, want);
    assert_int_equal(releases[3], 1);
    w[c.sys.num_inputs + at] = saved;

    /* released: no more submits with it, but the handle was the host's to give up */
    cuzk_cs_release(cs);
    cuzk_cs_release(other);
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_int_equal(st.cs_host_bytes, 0); /* ...all freed: nothing in flight used them */
    free(w), free(wd);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
    circuit_free(&c);
    circuit_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(proofs_identical_to_abc_path),
        cmocka_unit_test(unsatisfying_witnesses_agree),
        cmocka_unit_test(mismatches_and_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
