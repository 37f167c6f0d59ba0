/* cuzk_last_error() after a success: every public call that returns int clears it ("") when
 * it returns CUZK_OK, so it never shows an earlier failure's text; the infallible calls leave
 * it alone, and a job's own failure never lands there (it comes in cuzk_result.detail). Each
 * call below runs right after a failing call has set the detail. test/test_api_docs.sh checks
 * that every CUZK_API function returning int is called here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "cuzk/r1cs.h"
#include "engine/engine.h"
#include "support/backend_trivial.h"
#include "support/testkey.h"
#include "support/testutil.h"

static test_fixture fx; /* the key, a proof, its inputs, the circom files in fx.dir */

static int setup(void **state)
{
    (void)state;
    assert_int_equal(test_fixture_make(&fx, 40, "lasterr"), CUZK_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_fixture_free(&fx);
    return 0;
}

/* A failing call: the detail is set (and says so). */
static void dirty(void)
{
    assert_int_equal(cuzk_config_new(NULL), CUZK_EINVAL);
    assert_true(cuzk_last_error()[0] != '\0');
}

#define CLEARS(call)                                                                             \
    do {                                                                                         \
        dirty();                                                                                 \
        int rc_ = (call);                                                                        \
        if (rc_ != CUZK_OK) fail_msg("%s: %d (%s)", #call, rc_, cuzk_last_error());              \
        if (cuzk_last_error()[0]) fail_msg("%s succeeded but left \"%s\"", #call, cuzk_last_error()); \
    } while (0)

static void every_success_clears(void **state)
{
    (void)state;
    cuzk_config *cfg = NULL;
    int64_t v;
    CLEARS(cuzk_config_new(&cfg));
    CLEARS(cuzk_config_set(cfg, CUZK_OPT_BACKEND, CUZK_BACKEND_CPU));
    CLEARS(cuzk_config_set(cfg, CUZK_OPT_CPU_THREADS, 2));
    CLEARS(cuzk_config_get(cfg, CUZK_OPT_BACKEND, &v));
    CLEARS(cuzk_config_set_trace(cfg, NULL, NULL));
    cuzk_engine *e = NULL;
    CLEARS(cuzk_engine_create(cfg, &e));
    cuzk_srs *srs = NULL;
    CLEARS(cuzk_srs_load(e, fx.key.path, 0, &srs));
    cuzk_placement pl = {.struct_size = sizeof pl};
    CLEARS(cuzk_srs_placement(srs, 0, &pl));
    assert_int_equal(pl.kind, CUZK_PLACEMENT_HOST);
    cuzk_partition p;
    assert_int_equal(synth_partition(&fx.key.scfg, CUZK_FR_CANONICAL, &p), CUZK_OK);
    cuzk_job h;
    CLEARS(cuzk_submit_partition(e, srs, &p, &h));
    cuzk_result r = {.struct_size = sizeof r};
    CLEARS(cuzk_poll_result(e, &r, -1));
    assert_int_equal(r.status, CUZK_OK);
    cuzk_stats st = {.struct_size = sizeof st};
    CLEARS(cuzk_engine_stats(e, &st));
    char text[8192];
    size_t written;
    CLEARS(cuzk_stats_format_prometheus(&st, NULL, 0, text, sizeof text, &written));
    /* a constraint system and a witness-only partition of the same circuit */
    char csp[200];
    snprintf(csp, sizeof csp, "%s/c.cuzkcs", fx.dir);
    CLEARS(cuzk_cs_convert(fx.r1cs_path, csp));
    cuzk_cs *cs = NULL;
    CLEARS(cuzk_cs_load(e, csp, 0, &cs));
    cuzk_cs_info ci = {.struct_size = sizeof ci};
    CLEARS(cuzk_cs_get_info(cs, &ci));
    assert_int_equal(synth_partition(&fx.key.scfg, CUZK_FR_CANONICAL, &p), CUZK_OK);
    cuzk_witness_partition wp = {.struct_size = sizeof wp, .scalar_form = CUZK_FR_CANONICAL, .inputs = p.inputs,
                                 .num_inputs = p.num_inputs, .aux = p.aux, .num_aux = p.num_aux,
                                 .release = p.release, .release_user = p.release_user};
    CLEARS(cuzk_submit_witness(e, srs, cs, &wp, &h));
    CLEARS(cuzk_poll_result(e, &r, -1));
    assert_int_equal(r.status, CUZK_OK);
    cuzk_cs_release(cs);
    void *mem = NULL;
    CLEARS(cuzk_host_alloc(e, 4096, &mem));
    cuzk_host_free(e, mem);
    CLEARS(cuzk_verify(fx.key.vk, fx.key.vk_len, fx.proof, fx.pub, fx.npub, CUZK_FR_CANONICAL));
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);

    /* cancel: a job that is still running on the trivial backend */
    assert_int_equal(engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &e), CUZK_OK);
    CLEARS(cuzk_srs_load(e, "trivial:work_ns=2000000000", 0, &srs));
    cuzk_partition tp;
    memset(&tp, 0, sizeof tp);
    tp.struct_size = sizeof tp;
    CLEARS(cuzk_submit_partition(e, srs, &tp, &h));
    CLEARS(cuzk_cancel(e, h));
    CLEARS(cuzk_poll_result(e, &r, -1));
    assert_int_equal(r.status, CUZK_ECANCELED);
    assert_string_equal(r.detail, "canceled by cuzk_cancel");
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
    cuzk_config_free(cfg);

    /* the circom tooling */
    cuzk_r1cs *c = NULL;
    cuzk_fr *w = NULL;
    uint64_t nw = 0;
    CLEARS(cuzk_r1cs_load(fx.r1cs_path, &c));
    CLEARS(cuzk_wtns_load(fx.wtns_path, &w, &nw));
    CLEARS(cuzk_r1cs_partition(c, w, nw, &p));
    p.release(p.release_user);
    uint8_t seed[32] = {1};
    char params[200], vk[200];
    snprintf(params, sizeof params, "%s/k.params", fx.dir);
    snprintf(vk, sizeof vk, "%s/k.vk", fx.dir);
    CLEARS(cuzk_setup(c, seed, params, vk));
    cuzk_free(w);
    cuzk_r1cs_free(c);
}

/* The calls that cannot fail leave the detail as it is, so a host can name a code after the
 * failing call and still read its detail. */
static void infallible_calls_keep_it(void **state)
{
    (void)state;
    dirty();
    char before[512];
    snprintf(before, sizeof before, "%s", cuzk_last_error());
    (void)cuzk_strerror(CUZK_EINVAL);
    (void)cuzk_version_number();
    (void)cuzk_version_string();
    cuzk_config_free(NULL);
    cuzk_engine_destroy(NULL);
    cuzk_srs_release(NULL);
    cuzk_cs_release(NULL);
    cuzk_free(NULL);
    cuzk_r1cs_free(NULL);
    cuzk_host_free(NULL, NULL);
    assert_string_equal(cuzk_last_error(), before);
}

/* A job's failure is the result's, not the poller's cuzk_last_error(). */
static void job_failure_is_in_the_result(void **state)
{
    (void)state;
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    cuzk_engine *e;
    assert_int_equal(engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &e), CUZK_OK);
    cuzk_config_free(cfg);
    cuzk_srs *srs;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &srs), CUZK_OK);
    cuzk_partition tp;
    memset(&tp, 0, sizeof tp);
    tp.struct_size = sizeof tp;
    tp.user_tag = 1ull << 62; /* backend_trivial.c: start fails */
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, srs, &tp, &h), CUZK_OK);
    dirty();
    cuzk_result r = {.struct_size = sizeof r};
    assert_int_equal(cuzk_poll_result(e, &r, -1), CUZK_OK);
    assert_int_equal(r.status, CUZK_ENOMEM);
    assert_string_equal(r.detail, "trivial backend: start fails on request");
    assert_string_equal(cuzk_last_error(), "");
    cuzk_srs_release(srs);
    cuzk_engine_destroy(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_success_clears),
        cmocka_unit_test(infallible_calls_keep_it),
        cmocka_unit_test(job_failure_is_in_the_result),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
