/* A host built against 0.1.0 keeps working against this library: the structs it knows are
 * declared here by hand exactly as 0.1.0 published them (no detail in the result), and every
 * versioned struct goes through the public calls with the old struct_size: partitions are
 * accepted, results and stats are written up to the old size and not one byte further (a
 * canary after each), trace events are read through the old layout. A host built against
 * this header gets the job's failure detail; one built against a future, larger header gets
 * what this library knows. On the test-only trivial backend (a user_tag bit makes start or
 * the self-check fail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "engine/engine.h"
#include "support/backend_trivial.h"

/* ---- the 0.1.0 layouts, as an old host compiled them ---- */

typedef struct v1_partition {
    uint32_t struct_size;
    int32_t scalar_form;
    const cuzk_fr *a, *b, *c;
    uint64_t abc_len;
    const cuzk_fr *inputs;
    uint64_t num_inputs;
    const cuzk_fr *aux;
    uint64_t num_aux;
    const uint64_t *a_aux_density, *b_input_density, *b_aux_density;
    const cuzk_fr *r, *s;
    int32_t priority;
    uint32_t reserved;
    uint64_t user_tag;
    void (*release)(void *release_user);
    void *release_user;
} v1_partition;

typedef struct v1_result {
    uint32_t struct_size;
    int32_t status;
    uint64_t job;
    uint64_t user_tag;
    uint8_t proof[192];
    int32_t device;
    uint32_t reserved;
    uint64_t queued_ns, device_ns, total_ns;
} v1_result;

typedef struct v1_stats {
    uint32_t struct_size;
    int32_t backend;
    uint32_t devices, workers;
    uint64_t submitted, completed, failed, canceled, verify_failed, queued, running, unpolled;
    uint64_t queue_capacity, host_budget_bytes, host_reserved_bytes, host_reserved_peak;
    uint64_t host_alloc_bytes, budget_waits, trace_events, trace_dropped, arena_collects, arena_bytes;
} v1_stats;

typedef struct v1_trace_event {
    uint32_t struct_size;
    int32_t kind, device, worker;
    uint64_t job, user_tag, begin_ns, end_ns, bytes;
} v1_trace_event;

_Static_assert(sizeof(v1_partition) == CUZK_PARTITION_SIZE_V1, "0.1.0 partition");
_Static_assert(sizeof(v1_result) == CUZK_RESULT_SIZE_V1, "0.1.0 result");
_Static_assert(sizeof(v1_stats) == CUZK_STATS_SIZE_V1, "0.1.0 stats");
_Static_assert(sizeof(v1_trace_event) == CUZK_TRACE_EVENT_SIZE_V1, "0.1.0 trace event");

#define FAIL_START (1ull << 62)  /* backend_trivial.c: start fails with CUZK_ENOMEM */
#define FAIL_VERIFY (1ull << 63) /* backend_trivial.c: the self-check fails */
#define CANARY 0xa5

/* ---- an old host's trace callback: it reads events through its own layout ---- */

static _Atomic uint32_t seen_results, short_events;

static void old_trace(const cuzk_trace_event *ev, void *user)
{
    (void)user;
    const v1_trace_event *e = (const v1_trace_event *)(const void *)ev;
    if (e->struct_size < CUZK_TRACE_EVENT_SIZE_V1) atomic_fetch_add(&short_events, 1);
    if (e->kind == CUZK_TRACE_RESULT && e->job != 0 && e->begin_ns == e->end_ns && e->user_tag >= 1 &&
        (e->user_tag & ~(FAIL_START | FAIL_VERIFY)) <= 3)
        atomic_fetch_add(&seen_results, 1);
}

static cuzk_engine *trivial_engine(cuzk_trace_fn fn)
{
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    if (fn) assert_int_equal(cuzk_config_set_trace(cfg, fn, NULL), CUZK_OK);
    cuzk_engine *e = NULL;
    assert_int_equal(engine_create_with_backend(cfg, &backend_trivial_ops, NULL, &e), CUZK_OK);
    cuzk_config_free(cfg);
    return e;
}

static cuzk_srs *trivial_key(cuzk_engine *e)
{
    cuzk_srs *s = NULL;
    assert_int_equal(cuzk_srs_load(e, "trivial:work_ns=0", 0, &s), CUZK_OK);
    return s;
}

static void expected_proof(uint8_t out[192], uint64_t tag)
{
    for (int i = 0; i < 192; i++) out[i] = (uint8_t)(((tag >> (8 * (i % 8))) & 0xff) ^ (unsigned)i ^ 0xa5u);
}

static _Atomic uint32_t released;
static void on_release(void *user) { (void)user; atomic_fetch_add(&released, 1); }

/* Submits three jobs the way an old host does: OK, failing start, failing self-check. */
static void submit_old_three(cuzk_engine *e, cuzk_srs *s)
{
    const uint64_t tags[3] = {1, 2 | FAIL_START, 3 | FAIL_VERIFY};
    for (int i = 0; i < 3; i++) {
        v1_partition p;
        memset(&p, 0, sizeof p);
        p.struct_size = sizeof p;
        p.scalar_form = CUZK_FR_MONTGOMERY;
        p.user_tag = tags[i];
        p.release = on_release;
        cuzk_job h = 0;
        assert_int_equal(cuzk_submit_partition(e, s, (const cuzk_partition *)(const void *)&p, &h), CUZK_OK);
        assert_true(h != 0);
    }
}

static void old_host_results_and_trace(void **state)
{
    (void)state;
    atomic_store(&seen_results, 0);
    atomic_store(&short_events, 0);
    atomic_store(&released, 0);
    cuzk_engine *e = trivial_engine(old_trace);
    cuzk_srs *s = trivial_key(e);
    submit_old_three(e, s);
    for (int k = 0; k < 3; k++) {
        struct {
            v1_result r;
            unsigned char canary[512];
        } out;
        memset(&out, CANARY, sizeof out);
        out.r.struct_size = sizeof out.r;
        assert_int_equal(cuzk_poll_result(e, (cuzk_result *)(void *)&out.r, 10 * 1000000000ll), CUZK_OK);
        assert_int_equal(out.r.struct_size, CUZK_RESULT_SIZE_V1);
        for (size_t i = 0; i < sizeof out.canary; i++) assert_int_equal(out.canary[i], CANARY);
        uint64_t tag = out.r.user_tag & ~(FAIL_START | FAIL_VERIFY);
        if (tag == 1) {
            assert_int_equal(out.r.status, CUZK_OK);
            uint8_t want[192];
            expected_proof(want, out.r.user_tag);
            assert_memory_equal(out.r.proof, want, 192);
        } else {
            assert_int_equal(out.r.status, tag == 2 ? CUZK_ENOMEM : CUZK_EVERIFY);
            for (int i = 0; i < 192; i++) assert_int_equal(out.r.proof[i], 0);
        }
        assert_int_equal(out.r.device, -1);
    }
    assert_int_equal(atomic_load(&released), 3);
    /* stats into the old struct, then the Prometheus text from it */
    struct {
        v1_stats st;
        unsigned char canary[512];
    } so;
    memset(&so, CANARY, sizeof so);
    so.st.struct_size = sizeof so.st;
    assert_int_equal(cuzk_engine_stats(e, (cuzk_stats *)(void *)&so.st), CUZK_OK);
    assert_int_equal(so.st.struct_size, CUZK_STATS_SIZE_V1);
    for (size_t i = 0; i < sizeof so.canary; i++) assert_int_equal(so.canary[i], CANARY);
    assert_int_equal(so.st.submitted, 3);
    assert_int_equal(so.st.completed, 1);
    assert_int_equal(so.st.failed, 1);
    assert_int_equal(so.st.verify_failed, 1);
    assert_int_equal(so.st.unpolled, 0);
    char text[8192];
    size_t written = 0;
    assert_int_equal(cuzk_stats_format_prometheus((const cuzk_stats *)(const void *)&so.st, NULL, 0, text,
                                                  sizeof text, &written), CUZK_OK);
    assert_non_null(strstr(text, "cuzk_proofs_submitted_total 3\n"));
    cuzk_srs_release(s);
    cuzk_engine_destroy(e); /* delivers the trace events still in the ring */
    assert_int_equal(atomic_load(&seen_results), 3);
    assert_int_equal(atomic_load(&short_events), 0);
}

/* A host built against this header: the detail comes with each failed result. */
static void new_host_gets_the_detail(void **state)
{
    (void)state;
    cuzk_engine *e = trivial_engine(NULL);
    cuzk_srs *s = trivial_key(e);
    submit_old_three(e, s);
    for (int k = 0; k < 3; k++) {
        cuzk_result r;
        memset(&r, CANARY, sizeof r);
        r.struct_size = sizeof r;
        assert_int_equal(cuzk_poll_result(e, &r, 10 * 1000000000ll), CUZK_OK);
        assert_int_equal(r.struct_size, sizeof r);
        assert_string_equal(cuzk_last_error(), ""); /* the poll itself succeeded */
        uint64_t tag = r.user_tag & ~(FAIL_START | FAIL_VERIFY);
        if (tag == 1) assert_string_equal(r.detail, "");
        else if (tag == 2) assert_string_equal(r.detail, "trivial backend: start fails on request");
        else assert_string_equal(r.detail, "trivial backend: proof rejected");
    }
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
}

/* A host built against a future, larger header: it gets this library's members, no more;
 * its partition is accepted as long as the members this library does not know are zero. */
static void newer_host(void **state)
{
    (void)state;
    cuzk_engine *e = trivial_engine(NULL);
    cuzk_srs *s = trivial_key(e);
    struct {
        cuzk_partition p;
        uint64_t future[4];
    } np;
    memset(&np, 0, sizeof np);
    np.p.struct_size = sizeof np;
    np.p.user_tag = 2 | FAIL_START;
    cuzk_job h;
    assert_int_equal(cuzk_submit_partition(e, s, &np.p, &h), CUZK_OK);
    np.future[2] = 1;
    assert_int_equal(cuzk_submit_partition(e, s, &np.p, &h), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "does not know"));
    np.p.struct_size = CUZK_PARTITION_SIZE_V1 - 8;
    assert_int_equal(cuzk_submit_partition(e, s, &np.p, &h), CUZK_EINVAL);
    /* the refusal names the size given and the smallest one accepted */
    char want[64];
    snprintf(want, sizeof want, "struct_size %u (at least %u", CUZK_PARTITION_SIZE_V1 - 8, CUZK_PARTITION_SIZE_V1);
    if (!strstr(cuzk_last_error(), want)) fail_msg("detail \"%s\" lacks \"%s\"", cuzk_last_error(), want);
    struct {
        cuzk_result r;
        uint64_t future[8];
        unsigned char canary[256];
    } out;
    memset(&out, CANARY, sizeof out);
    out.r.struct_size = (uint32_t)(sizeof out.r + sizeof out.future);
    assert_int_equal(cuzk_poll_result(e, &out.r, 10 * 1000000000ll), CUZK_OK);
    assert_int_equal(out.r.struct_size, sizeof(cuzk_result));
    assert_int_equal(out.r.status, CUZK_ENOMEM);
    assert_string_equal(out.r.detail, "trivial backend: start fails on request");
    const unsigned char *after = (const unsigned char *)out.future;
    for (size_t i = 0; i < sizeof out.future + sizeof out.canary; i++) assert_int_equal(after[i], CANARY);
    /* a result struct_size between the two published sizes: the V1 members only */
    np.p.struct_size = sizeof np.p;
    np.future[2] = 0;
    assert_int_equal(cuzk_submit_partition(e, s, &np.p, &h), CUZK_OK);
    memset(&out, CANARY, sizeof out);
    out.r.struct_size = CUZK_RESULT_SIZE_V1 + 100;
    assert_int_equal(cuzk_poll_result(e, &out.r, 10 * 1000000000ll), CUZK_OK);
    assert_int_equal(out.r.struct_size, CUZK_RESULT_SIZE_V1);
    assert_int_equal(out.r.status, CUZK_ENOMEM);
    assert_int_equal((unsigned char)out.r.detail[0], CANARY);
    /* placement: below its first published size refused, a larger struct gets this size */
    struct {
        cuzk_placement pl;
        unsigned char canary[256];
    } po;
    memset(&po, CANARY, sizeof po);
    po.pl.struct_size = CUZK_PLACEMENT_SIZE_V1 - 8;
    assert_int_equal(cuzk_srs_placement(s, 0, &po.pl), CUZK_EINVAL);
    po.pl.struct_size = sizeof po;
    assert_int_equal(cuzk_srs_placement(s, 0, &po.pl), CUZK_OK);
    assert_int_equal(po.pl.struct_size, sizeof(cuzk_placement));
    assert_int_equal(po.pl.kind, CUZK_PLACEMENT_HOST);
    for (size_t i = 0; i < sizeof po.canary; i++) assert_int_equal(po.canary[i], CANARY);
    /* stats: a larger struct gets this library's size */
    struct {
        cuzk_stats st;
        unsigned char canary[256];
    } so;
    memset(&so, CANARY, sizeof so);
    so.st.struct_size = sizeof so;
    assert_int_equal(cuzk_engine_stats(e, &so.st), CUZK_OK);
    assert_int_equal(so.st.struct_size, sizeof(cuzk_stats));
    for (size_t i = 0; i < sizeof so.canary; i++) assert_int_equal(so.canary[i], CANARY);
    cuzk_srs_release(s);
    cuzk_engine_destroy(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(old_host_results_and_trace),
        cmocka_unit_test(new_host_gets_the_detail),
        cmocka_unit_test(newer_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
