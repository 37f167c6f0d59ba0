/* The engine on the CPU backend, through the public API: real Groth16 proofs of a small
 * PoRep-shaped circuit. Oracle: lib/groth16's prover called directly with the same r and s
 * must give the same bytes; cuzk_verify accepts them. Wrong witnesses never come back as
 * proofs (CUZK_EVERIFY with VERIFY on), sizes that do not fit the key are refused at submit,
 * scalars not below r end the job with CUZK_EINVAL. */
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
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "support/fieldtest.h"
#include "support/testengine.h"
#include "support/testkey.h"
#include "support/testutil.h"

static test_key key;

static int setup(void **state)
{
    (void)state;
    /* domain 2^9 with its inputs: quick on 2 cores */
    assert_int_equal(test_key_random(&key, 300, "engine-cpu"), CUZK_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_key_free(&key);
    return 0;
}

static cuzk_engine *cpu_engine(int verify)
{
    cuzk_engine *e = TEST_ENGINE({CUZK_OPT_BACKEND, CUZK_BACKEND_CPU}, {CUZK_OPT_VERIFY, verify});
    assert_non_null(e);
    return e;
}

static cuzk_result poll1(cuzk_engine *e)
{
    cuzk_result r = {.struct_size = sizeof r};
    assert_int_equal(cuzk_poll_result(e, &r, 60 * 1000000000ll), CUZK_OK);
    return r;
}

static void proofs_match_the_prover(void **state)
{
    (void)state;
    cuzk_engine *e = cpu_engine(1);
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_OK);
    enum { N = 4 };
    cuzk_partition parts[N];
    cuzk_fr rs[N][2];
    uint8_t expect[N][192];
    static cuzk_fr pub[N][1024]; /* the inputs, kept: the engine releases the partitions */
    uint64_t npub[N];
    for (int i = 0; i < N; i++) {
        int32_t form = i % 2 ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY;
        assert_int_equal(synth_partition(&key.scfg, form, &parts[i]), CUZK_OK);
        fr_t r, s;
        uint8_t seed[32];
        test_rand_bytes(seed, sizeof seed);
        groth16_rs_from_seed(&r, &s, seed);
        assert_int_equal(groth16_prove(key.pk, &parts[i], &r, &s, NULL, expect[i]), CUZK_OK);
        /* hand r, s to the engine in the partition's own form */
        if (form == CUZK_FR_CANONICAL) {
            fr_from_mont((fr_t *)&rs[i][0], &r);
            fr_from_mont((fr_t *)&rs[i][1], &s);
        } else {
            memcpy(&rs[i][0], &r, sizeof r);
            memcpy(&rs[i][1], &s, sizeof s);
        }
        parts[i].r = &rs[i][0];
        parts[i].s = &rs[i][1];
        parts[i].user_tag = (uint64_t)i;
        npub[i] = parts[i].num_inputs - 1;
        assert_true(npub[i] <= 1024);
        memcpy(pub[i], parts[i].inputs + 1, npub[i] * sizeof(cuzk_fr));
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(e, srs, &parts[i], &h), CUZK_OK);
    }
    cuzk_srs_release(srs); /* the jobs keep the key alive */
    for (int k = 0; k < N; k++) {
        cuzk_result r = poll1(e);
        assert_int_equal(r.status, CUZK_OK);
        assert_string_equal(r.detail, "");
        assert_int_equal(r.struct_size, sizeof r);
        assert_true(r.user_tag < N);
        assert_memory_equal(r.proof, expect[r.user_tag], 192);
        assert_int_equal(cuzk_verify(key.vk, key.vk_len, r.proof, pub[r.user_tag], npub[r.user_tag],
                                     parts[r.user_tag].scalar_form), CUZK_OK);
        assert_int_equal(r.device, -1);
    }
    /* r, s from the OS: proofs differ but verify */
    cuzk_partition p;
    assert_int_equal(synth_partition(&key.scfg, CUZK_FR_MONTGOMERY, &p), CUZK_OK);
    cuzk_fr inputs_copy[1024];
    memcpy(inputs_copy, p.inputs, p.num_inputs * sizeof *inputs_copy);
    assert_int_equal(cuzk_srs_load(e, key.path, CUZK_SRS_CHECK_SUBGROUP, &srs), CUZK_OK);
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, srs, &p, &h), CUZK_OK);
    cuzk_result r = poll1(e);
    assert_int_equal(r.status, CUZK_OK);
    assert_int_equal(cuzk_verify(key.vk, key.vk_len, r.proof, inputs_copy + 1, p.num_inputs - 1, CUZK_FR_MONTGOMERY),
                     CUZK_OK);
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_int_equal(st.backend, CUZK_BACKEND_CPU);
    assert_int_equal(st.completed, N + 1);
    assert_int_equal(st.host_reserved_bytes, 0);
    assert_true(st.host_reserved_peak > 0);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
}

static void bad_partitions(void **state)
{
    (void)state;
    for (int verify = 1; verify >= 0; verify--) {
        cuzk_engine *e = cpu_engine(verify);
        cuzk_srs *srs;
        assert_int_equal(cuzk_srs_load(e, key.path, 0, &srs), CUZK_OK);
        /* a witness that does not satisfy the circuit: never returned with VERIFY on */
        cuzk_partition p;
        assert_int_equal(synth_partition(&key.scfg, CUZK_FR_CANONICAL, &p), CUZK_OK);
        cuzk_fr *aux = (cuzk_fr *)p.aux;
        aux[3].l[0] ^= 1; /* the partition's buffers are ours until release */
        cuzk_fr inputs_copy[1024];
        memcpy(inputs_copy, p.inputs, p.num_inputs * sizeof *inputs_copy);
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(e, srs, &p, &h), CUZK_OK);
        cuzk_result r = poll1(e);
        if (verify) {
            assert_int_equal(r.status, CUZK_EVERIFY);
            assert_non_null(strstr(r.detail, "pairing"));
        } else {
            assert_int_equal(r.status, CUZK_OK); /* unchecked: and indeed invalid */
            assert_int_equal(cuzk_verify(key.vk, key.vk_len, r.proof, inputs_copy + 1, p.num_inputs - 1,
                                         CUZK_FR_CANONICAL), CUZK_EVERIFY);
        }
        /* sizes that do not fit the key: refused at submit, buffers still the host's */
        assert_int_equal(synth_partition(&key.scfg, CUZK_FR_CANONICAL, &p), CUZK_OK);
        p.num_aux -= 1;
        assert_int_equal(cuzk_submit_partition(e, srs, &p, &h), CUZK_EMISMATCH);
        p.num_aux += 1;
        /* a scalar not below r: the job ends with CUZK_EINVAL */
        aux = (cuzk_fr *)p.aux;
        aux[0].l[3] = ~0ull;
        assert_int_equal(cuzk_submit_partition(e, srs, &p, &h), CUZK_OK);
        r = poll1(e);
        assert_int_equal(r.status, CUZK_EINVAL);
        /* its detail comes with the result, not in the poller's cuzk_last_error() */
        assert_non_null(strstr(r.detail, "aux[0] is not below r"));
        assert_string_equal(cuzk_last_error(), "");
        cuzk_srs_release(srs);
        cuzk_engine_destroy(e);
    }
    /* files that are not keys */
    cuzk_engine *e = cpu_engine(1);
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, "/nonexistent/key.params", 0, &srs), CUZK_EIO);
    char junk[64];
    snprintf(junk, sizeof junk, "/tmp/cuzk-engine-cpu-%d.junk", (int)getpid());
    FILE *f = fopen(junk, "wb");
    assert_non_null(f);
    for (int i = 0; i < 4096; i++) fputc(i * 7, f);
    fclose(f);
    assert_int_equal(cuzk_srs_load(e, junk, 0, &srs), CUZK_EFORMAT);
    unlink(junk);
    cuzk_engine_destroy(e);
}

/* A corrupted key whose points still decode (every l point moved off the prime-order
 * subgroup: loads without CUZK_SRS_CHECK_SUBGROUP) makes proofs that do not decode under
 * verification's rules. The self-check says so: CUZK_EVERIFY, as SECURITY.md promises, with the
 * reason in the result's detail; with the subgroup check the key is refused at load. */
static void corrupted_key_fails_the_self_check(void **state)
{
    (void)state;
    g1_aff bad;
    ft_g1_off_subgroup(&bad);
    g1_aff *saved = malloc(key.pk->n_l * sizeof *saved);
    assert_non_null(saved);
    memcpy(saved, key.pk->l, key.pk->n_l * sizeof *saved);
    for (uint32_t i = 0; i < key.pk->n_l; i++) key.pk->l[i] = bad;
    char path[128];
    snprintf(path, sizeof path, "%s.corrupt", key.path);
    int wrc = groth16_params_write(path, key.pk);
    memcpy(key.pk->l, saved, key.pk->n_l * sizeof *saved);
    free(saved);
    assert_int_equal(wrc, CUZK_OK);
    cuzk_engine *e = cpu_engine(1);
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, path, CUZK_SRS_CHECK_SUBGROUP, &srs), CUZK_EFORMAT);
    assert_int_equal(cuzk_srs_load(e, path, 0, &srs), CUZK_OK);
    cuzk_partition p;
    assert_int_equal(synth_partition(&key.scfg, CUZK_FR_CANONICAL, &p), CUZK_OK);
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, srs, &p, &h), CUZK_OK);
    cuzk_result r = poll1(e);
    assert_int_equal(r.status, CUZK_EVERIFY);
    assert_non_null(strstr(r.detail, "self-check"));
    assert_non_null(strstr(r.detail, "subgroup"));
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(e, &st), CUZK_OK);
    assert_int_equal(st.verify_failed, 1);
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(proofs_match_the_prover),
        cmocka_unit_test(bad_partitions),
        cmocka_unit_test(corrupted_key_fails_the_self_check),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
