/* The CUDA engine against the CPU engine on the circuits a host really brings, through the
 * public API: a circom circuit (test/gpu/fixtures/hstep.*, compiled by circom2, its partition
 * from cuzk_r1cs_partition in canonical form, key from cuzk_setup) and a PoRep-shaped
 * `cuzk gen`-style circuit of domain 2^20. Oracle: the CPU backend with the same r and s must
 * give the same 192 bytes, and cuzk_verify must accept them (a changed public input must
 * not). The Node oracle checks GPU proofs off the device (bench/RESULTS.md: node is not on
 * the GPU machines). Exits 77 without a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "cuzk/r1cs.h"
#include "field/field.h"
#include "groth16/groth16.h"
#include "support/gputest.h"
#include "support/testengine.h"
#include "support/testkey.h"
#include "support/testutil.h"

static cuzk_engine *make_engine(int32_t backend)
{
    cuzk_engine *e = TEST_ENGINE({CUZK_OPT_BACKEND, backend}, {CUZK_OPT_VERIFY, 1});
    assert_non_null(e);
    return e;
}

/* Submits p (r and s set by the caller) and waits for its proof; returns the result. */
static cuzk_result prove(cuzk_engine *e, cuzk_srs *srs, cuzk_partition *p)
{
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, srs, p, &h), CUZK_OK);
    cuzk_result r = {.struct_size = sizeof r};
    assert_int_equal(cuzk_poll_result(e, &r, 600 * 1000000000ll), CUZK_OK);
    if (r.status) fprintf(stderr, "prove: %s\n", cuzk_strerror(r.status));
    return r;
}

/* Proves the same witness (pg on the GPU engine, pc on the CPU engine) with the same r, s;
 * both must succeed, each on its own backend, with the same bytes. *pub: a copy of the public
 * inputs (the engines release the partitions), freed by the caller. */
static void prove_pair(cuzk_engine *ge, cuzk_srs *gs, cuzk_partition *pg, cuzk_engine *ce, cuzk_srs *cs,
                       cuzk_partition *pc, cuzk_fr rs[2], cuzk_fr **pub, uint64_t *npub, cuzk_result *rg,
                       cuzk_result *rc)
{
    *npub = pg->num_inputs - 1;
    *pub = malloc((*npub + 1) * sizeof **pub);
    assert_non_null(*pub);
    memcpy(*pub, pg->inputs + 1, *npub * sizeof **pub);
    pg->r = pc->r = &rs[0];
    pg->s = pc->s = &rs[1];
    *rg = prove(ge, gs, pg);
    *rc = prove(ce, cs, pc);
    assert_int_equal(rg->status, CUZK_OK);
    assert_int_equal(rc->status, CUZK_OK);
    assert_true(rg->device >= 0);
    assert_int_equal(rc->device, -1);
    assert_memory_equal(rg->proof, rc->proof, 192);
}

/* Fresh r, s in the given form. */
static void fresh_rs(cuzk_fr rs[2], int32_t form)
{
    uint8_t seed[32];
    fr_t r, s;
    test_rand_bytes(seed, sizeof seed);
    groth16_rs_from_seed(&r, &s, seed);
    if (form == CUZK_FR_CANONICAL) {
        fr_from_mont((fr_t *)&rs[0], &r);
        fr_from_mont((fr_t *)&rs[1], &s);
    } else {
        memcpy(&rs[0], &r, sizeof r);
        memcpy(&rs[1], &s, sizeof s);
    }
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void circom_circuit_gpu_equals_cpu(void **state)
{
    (void)state;
    cuzk_r1cs *r1cs;
    cuzk_fr *w;
    uint64_t nw;
    assert_int_equal(cuzk_r1cs_load("test/gpu/fixtures/hstep.r1cs", &r1cs), CUZK_OK);
    assert_int_equal(cuzk_wtns_load("test/gpu/fixtures/hstep.wtns", &w, &nw), CUZK_OK);
    char params[64], vkp[64];
    snprintf(params, sizeof params, "/tmp/cuzk-gpu-circom-%d.params", (int)getpid());
    snprintf(vkp, sizeof vkp, "/tmp/cuzk-gpu-circom-%d.vk", (int)getpid());
    uint8_t seed[32];
    test_rand_bytes(seed, sizeof seed);
    assert_int_equal(cuzk_setup(r1cs, seed, params, vkp), CUZK_OK);
    size_t vk_len;
    uint8_t *vk = read_file(vkp, &vk_len);

    cuzk_engine *ge = make_engine(CUZK_BACKEND_CUDA), *ce = make_engine(CUZK_BACKEND_CPU);
    cuzk_srs *gs, *cs;
    assert_int_equal(cuzk_srs_load(ge, params, 0, &gs), CUZK_OK);
    assert_int_equal(cuzk_srs_load(ce, params, 0, &cs), CUZK_OK);
    for (int round = 0; round < 3; round++) {
        cuzk_fr rs[2];
        fresh_rs(rs, CUZK_FR_CANONICAL);
        if (round == 1) memset(rs, 0, sizeof rs); /* r = s = 0 on purpose: still a valid proof */
        cuzk_partition pg, pc;
        assert_int_equal(cuzk_r1cs_partition(r1cs, w, nw, &pg), CUZK_OK);
        assert_int_equal(cuzk_r1cs_partition(r1cs, w, nw, &pc), CUZK_OK);
        uint64_t npub;
        cuzk_fr *pub;
        cuzk_result rg, rc;
        prove_pair(ge, gs, &pg, ce, cs, &pc, rs, &pub, &npub, &rg, &rc);
        assert_int_equal(cuzk_verify(vk, vk_len, rg.proof, pub, npub, CUZK_FR_CANONICAL), CUZK_OK);
        if (npub) { /* and the check can fail */
            pub[0].l[0] ^= 1;
            assert_int_not_equal(cuzk_verify(vk, vk_len, rg.proof, pub, npub, CUZK_FR_CANONICAL), CUZK_OK);
        }
        printf("circom circuit (%llu rows, %llu public inputs), round %d: GPU proof = CPU proof, verified\n",
               (unsigned long long)(pg.abc_len), (unsigned long long)npub, round);
        free(pub);
    }
    cuzk_srs_release(gs);
    cuzk_srs_release(cs);
    cuzk_engine_destroy(ge);
    cuzk_engine_destroy(ce);
    free(vk);
    unlink(params);
    unlink(vkp);
    cuzk_free(w);
    cuzk_r1cs_free(r1cs);
}

/* PoRep-shaped, domain 2^20 (as `cuzk gen --log 20` makes): both scalar forms. */
static void porep_2_20_gpu_equals_cpu(void **state)
{
    (void)state;
    uint8_t seed[32];
    test_rand_bytes(seed, sizeof seed);
    synth_cfg cfg;
    synth_cfg_for_domain(&cfg, 20, seed);
    test_key key;
    assert_int_equal(test_key_make(&key, &cfg, "gpu-porep20", -1), CUZK_OK);
    cuzk_engine *ge = make_engine(CUZK_BACKEND_CUDA), *ce = make_engine(CUZK_BACKEND_CPU);
    cuzk_srs *gs, *cs;
    assert_int_equal(cuzk_srs_load(ge, key.path, 0, &gs), CUZK_OK);
    assert_int_equal(cuzk_srs_load(ce, key.path, 0, &cs), CUZK_OK);
    for (int form = 0; form < 2; form++) {
        int32_t f = form ? CUZK_FR_CANONICAL : CUZK_FR_MONTGOMERY;
        cuzk_fr rs[2];
        fresh_rs(rs, f);
        cuzk_partition pg, pc;
        assert_int_equal(synth_partition(&key.scfg, f, &pg), CUZK_OK);
        assert_int_equal(synth_partition(&key.scfg, f, &pc), CUZK_OK);
        uint64_t npub;
        cuzk_fr *pub;
        cuzk_result rg, rc;
        prove_pair(ge, gs, &pg, ce, cs, &pc, rs, &pub, &npub, &rg, &rc);
        assert_int_equal(cuzk_verify(key.vk, key.vk_len, rg.proof, pub, npub, f), CUZK_OK);
        printf("PoRep-shaped 2^20 (%llu rows), form %d: GPU proof = CPU proof, verified (GPU %.1f ms, CPU %.1f ms)\n",
               (unsigned long long)pg.abc_len, f, rg.total_ns / 1e6, rc.total_ns / 1e6);
        free(pub);
    }
    cuzk_srs_release(gs);
    cuzk_srs_release(cs);
    cuzk_engine_destroy(ge);
    cuzk_engine_destroy(ce);
    test_key_free(&key);
}

int main(void)
{
    if (gpu_test_begin()) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(circom_circuit_gpu_equals_cpu),
        cmocka_unit_test(porep_2_20_gpu_equals_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
