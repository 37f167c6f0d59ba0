/* Several keys and urgent partitions on the CUDA backend, through the public API (issue 17):
 *   - two keys of different shapes (PoRep-shaped 2^16, WinningPoSt-shaped 2^12, the latter
 *     pinned with CUZK_SRS_PIN) proven alternately on one CUDA engine, several in flight on
 *     two workers, give the same bytes as the CPU engine proving each alone (same r, s), and
 *     every proof verifies; the PoRep key is released while its partitions are queued and
 *     running, and still serves them to the end;
 *   - with a saturated PoRep backlog (2^18; two workers, CUZK_OPT_URGENT_PRIORITY = 7), an urgent
 *     WinningPoSt partition is taken at once by the urgent worker (while backlog partitions
 *     are running), its device work begins before that of every backlog partition not started
 *     when it was submitted and runs at about its alone speed (the running ones give way within
 *     a chunk of their work), and its result arrives before those of every backlog partition
 *     that had not started when it was submitted.
 * Oracle for the bytes: the CPU backend; for validity: cuzk_verify. Exits 77 without a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cuda_util.h"
#include "cuzk/cuzk.h"
#include "groth16/synth.h"
#include "support/mixjob.h"
#include "support/testkey.h"
#include "support/gputest.h"
#include "support/testutil.h"

/* kbig, kurgent2: the backlog test's keys. Its backlog is 2^18: a 2^16 partition proves on the
 * H200 in about the time the urgent 2^12 one takes beside two of them (~20-27 ms), so a
 * backlog partition taken just after the urgent submit could finish first by a hair. */
static test_key kbulk, kurgent, kbig, kurgent2;

static int setup(void **state)
{
    (void)state;
    if (mix_keys_make(&kbulk, 16, &kurgent, 12, "gpu-mixed")) return -1;
    if (mix_keys_make(&kbig, 18, &kurgent2, 12, "gpu-mixed-big")) {
        test_key_free(&kbulk);
        test_key_free(&kurgent);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_key_free(&kbulk);
    test_key_free(&kurgent);
    test_key_free(&kbig);
    test_key_free(&kurgent2);
    return 0;
}

static cuzk_engine *engine(int32_t backend, int workers, int urgent, mix_log *log)
{
    cuzk_engine *e = mix_engine(backend, workers, urgent, log);
    if (!e) fail_msg("engine: %s", cuzk_last_error());
    return e;
}

static cuzk_result poll1(cuzk_engine *e)
{
    cuzk_result r = {.struct_size = sizeof r};
    assert_int_equal(cuzk_poll_result(e, &r, 600 * 1000000000ll), CUZK_OK);
    if (r.status) fprintf(stderr, "partition %llu: %s\n", (unsigned long long)r.user_tag, cuzk_strerror(r.status));
    return r;
}

static void two_keys_alternate_gpu_equals_cpu(void **state)
{
    (void)state;
    enum { N = 8 };
    static uint8_t cpu[N][192];
    /* the oracle: the CPU engine, one key and one partition at a time */
    assert_int_equal(mix_prove_alone(CUZK_BACKEND_CPU, &kbulk, &kurgent, N, cpu), CUZK_OK);
    /* the CUDA engine: both keys, all partitions in flight, the PoRep key released early,
     * every fourth partition urgent (the urgent worker's streams give the same bytes) */
    cuzk_engine *g = engine(CUZK_BACKEND_CUDA, 2, 7, NULL);
    cuzk_stats st = {.struct_size = sizeof st};
    assert_int_equal(cuzk_engine_stats(g, &st), CUZK_OK);
    assert_int_equal(st.backend, CUZK_BACKEND_CUDA);
    assert_int_equal(st.workers, 3); /* two + the level-7 urgent worker */
    assert_int_equal(mix_prove_together(g, &kbulk, &kurgent, N, 1, 1, cpu), CUZK_OK);
}

/* The scenario: a fresh engine, both keys warm (the urgent key's warm-up partition, tag 51,
 * proven alone: its device time is the alone speed), the backlog, the urgent partition once
 * the third backlog partition is taken. */
static void urgent_before_the_backlog_gpu(void **state)
{
    (void)state;
    /* deep enough on a fast GPU (on the H200 a backlog partition proves faster than the host
     * synthesizes the next, so the backlog is made before any is submitted) */
    enum { NB = 48 };
    static mix_log log;
    mix_outcome o;
    mix_log_init(&log);
    cuzk_engine *g = engine(CUZK_BACKEND_CUDA, 2, 7, &log);
    cuzk_srs *sa, *sb;
    assert_int_equal(cuzk_srs_load(g, kbig.path, 0, &sa), CUZK_OK);
    assert_int_equal(cuzk_srs_load(g, kurgent2.path, CUZK_SRS_PIN, &sb), CUZK_OK);
    /* warm both keys (twiddles, scratch growth) so the backlog below is steady */
    static mix_job warm[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(mix_job_make(&warm[i], i ? &kurgent2 : &kbig, 100, 50 + (uint64_t)i, i ? 7 : 0), CUZK_OK);
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(g, i ? sb : sa, &warm[i].p, &h), CUZK_OK);
        cuzk_result r = poll1(g);
        assert_int_equal(mix_job_check(&warm[r.user_tag - 50], &r), CUZK_OK);
    }
    /* once the third backlog partition is taken: both workers busy, the backlog deep */
    assert_int_equal(mix_backlog_run(g, &log, sa, &kbig, NB, sb, &kurgent2, 3, &o), CUZK_OK);
    assert_true(o.u_dequeued && o.u_result && o.u_dev_begin);
    const uint64_t u_dev = log.dev_end[MIX_URGENT_TAG] - log.dev_begin[MIX_URGENT_TAG];
    const uint64_t alone_dev = log.dev_end[51] - log.dev_begin[51];
    printf("urgent WinningPoSt 2^12 beside 2^18: taken %.2f ms after submit, on the device at %+.2f ms, result %.2f ms "
           "after submit; device time %.2f ms (alone %.2f ms); %d backlog partitions running then, %d not started "
           "(%d of them finished first)\n",
           (double)(o.u_dequeued - o.t_submit) / 1e6, ((double)o.u_dev_begin - (double)o.t_submit) / 1e6,
           (double)(o.u_result - o.t_submit) / 1e6, u_dev / 1e6, alone_dev / 1e6, o.running, o.later,
           o.later_before_u);
    assert_int_equal(o.u_worker, 2); /* the urgent worker (workers 0, 1 are the ordinary ones) */
    assert_true(o.running >= 1);
    assert_true(o.later >= NB / 2);
    /* it starts before every backlog partition not started at its submit: on the device too,
     * and its result comes first */
    assert_int_equal(o.later_before_u, 0);
    for (int t = 1; t <= NB; t++)
        if (log.dequeued[t] > o.t_submit && log.dev_begin[t]) assert_true(log.dev_begin[t] > o.u_dev_begin);
    /* and its device stages run at about their alone speed: the partitions running beside it
     * give way within a chunk of their work (a window group, a transform) */
    assert_true(alone_dev > 0);
    assert_true(u_dev <= 3 * alone_dev + 5000000);
    mix_log_fini(&log);
}

int main(void)
{
    if (gpu_test_begin()) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_keys_alternate_gpu_equals_cpu),
        cmocka_unit_test(urgent_before_the_backlog_gpu),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
