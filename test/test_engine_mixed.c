/* Real Filecoin workloads at once, on the CPU backend with real proofs: two keys of different
 * shapes (a PoRep-shaped 2^11 circuit, a WinningPoSt-shaped 2^8 one) proven alternately on
 * one engine give the same bytes as each alone (same r, s); a key released while its
 * partitions run serves them to the end (each proof verifies with cuzk_verify); with a
 * saturated PoRep backlog an urgent WinningPoSt partition (CUZK_OPT_URGENT_PRIORITY) starts
 * while the running partition is still running and its result arrives before those of every
 * backlog partition that had not started when it was submitted. Oracle for the bytes: the
 * same engine code with one key at a time; for validity: cuzk_verify. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "support/mixjob.h"
#include "support/testkey.h"
#include "support/testutil.h"

static test_key kbulk, kurgent; /* porep 2^11, winning 2^8 */

static int setup(void **state)
{
    (void)state;
    test_seed();
    uint8_t seed[32];
    synth_cfg cfg;
    test_rand_bytes(seed, sizeof seed);
    synth_cfg_for_shape_log(&cfg, synth_shape_find("porep"), 11, 0, seed);
    if (test_key_make(&kbulk, &cfg, "mixed", 0)) return -1;
    test_rand_bytes(seed, sizeof seed);
    synth_cfg_for_shape_log(&cfg, synth_shape_find("winning"), 8, 0, seed);
    return test_key_make(&kurgent, &cfg, "mixed", 1) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    test_key_free(&kbulk);
    test_key_free(&kurgent);
    return 0;
}

static cuzk_engine *cpu_engine(int workers, int urgent, mix_log *log)
{
    cuzk_config *cfg;
    assert_int_equal(cuzk_config_new(&cfg), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_BACKEND, CUZK_BACKEND_CPU), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_WORKERS_PER_DEVICE, workers), CUZK_OK);
    assert_int_equal(cuzk_config_set(cfg, CUZK_OPT_URGENT_PRIORITY, urgent), CUZK_OK);
    if (log) assert_int_equal(cuzk_config_set_trace(cfg, mix_log_event, log), CUZK_OK);
    cuzk_engine *e;
    assert_int_equal(cuzk_engine_create(cfg, &e), CUZK_OK);
    cuzk_config_free(cfg);
    return e;
}

static cuzk_result poll1(cuzk_engine *e)
{
    cuzk_result r = {.struct_size = sizeof r};
    assert_int_equal(cuzk_poll_result(e, &r, 120 * 1000000000ll), CUZK_OK);
    return r;
}


/* Two keys alternately on one engine (two workers, several partitions in flight, one key
 * released mid-run) = each key alone on its own engine, byte for byte. */
static void two_keys_alternate(void **state)
{
    (void)state;
    enum { N = 6 };
    static mix_job jobs[N];
    uint8_t alone[N][192];
    /* alone: each key on a fresh engine, one partition at a time */
    for (int i = 0; i < N; i++) {
        const test_key *k = i % 2 ? &kurgent : &kbulk;
        cuzk_engine *e = cpu_engine(1, 0, NULL);
        cuzk_srs *srs;
        assert_int_equal(cuzk_srs_load(e, k->path, 0, &srs), CUZK_OK);
        assert_int_equal(mix_job_make(&jobs[i], k, (uint8_t)(i / 2), (uint64_t)i, 0), CUZK_OK);
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(e, srs, &jobs[i].p, &h), CUZK_OK);
        cuzk_result r = poll1(e);
        assert_int_equal(mix_job_check(&jobs[i], &r), CUZK_OK);
        memcpy(alone[i], r.proof, 192);
        cuzk_srs_release(srs);
        cuzk_engine_destroy(e);
    }
    assert_memory_not_equal(alone[0], alone[2], 192); /* different r, s: different proofs */
    /* together: A B A B A B in flight at once on two workers; A's key released meanwhile */
    cuzk_engine *e = cpu_engine(2, 0, NULL);
    cuzk_srs *sa, *sb;
    assert_int_equal(cuzk_srs_load(e, kbulk.path, 0, &sa), CUZK_OK);
    assert_int_equal(cuzk_srs_load(e, kurgent.path, CUZK_SRS_PIN, &sb), CUZK_OK);
    for (int i = 0; i < N; i++) {
        assert_int_equal(mix_job_make(&jobs[i], i % 2 ? &kurgent : &kbulk, (uint8_t)(i / 2), (uint64_t)i, 0), CUZK_OK);
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(e, i % 2 ? sb : sa, &jobs[i].p, &h), CUZK_OK);
    }
    cuzk_srs_release(sa); /* its three partitions are queued or running */
    int seen[N] = {0};
    for (int i = 0; i < N; i++) {
        cuzk_result r = poll1(e);
        assert_true(r.user_tag < N);
        assert_int_equal(seen[r.user_tag]++, 0);
        assert_int_equal(mix_job_check(&jobs[r.user_tag], &r), CUZK_OK);
        assert_memory_equal(r.proof, alone[r.user_tag], 192);
    }
    cuzk_srs_release(sb);
    cuzk_engine_destroy(e);
}

/* A backlog of PoRep partitions on one worker, then an urgent WinningPoSt partition. With
 * CUZK_OPT_URGENT_PRIORITY it is taken at once (while the running backlog partition still
 * runs) and its result comes before those of every backlog partition that had not started
 * at its submission. The same without the option: it waits for the running one (the
 * ordering of the queue alone), which is what the urgent worker removes. */
static void urgent_before_the_backlog(void **state)
{
    (void)state;
    enum { NB = 5, U = 40 };
    for (int urgent = 7; urgent >= 0; urgent -= 7) {
        static mix_log log;
        mix_log_init(&log);
        cuzk_engine *e = cpu_engine(1, urgent, &log);
        cuzk_srs *sa, *sb;
        assert_int_equal(cuzk_srs_load(e, kbulk.path, 0, &sa), CUZK_OK);
        assert_int_equal(cuzk_srs_load(e, kurgent.path, CUZK_SRS_PIN, &sb), CUZK_OK);
        static mix_job bulk[NB], u;
        for (int i = 0; i < NB; i++) {
            assert_int_equal(mix_job_make(&bulk[i], &kbulk, (uint8_t)i, (uint64_t)i + 1, 0), CUZK_OK);
            cuzk_job h;
            assert_int_equal(cuzk_submit_partition(e, sa, &bulk[i].p, &h), CUZK_OK);
        }
        /* the first backlog partition is running: submit the urgent one now */
        mix_log_wait_dequeued(&log, 1);
        assert_int_equal(mix_job_make(&u, &kurgent, 9, U, 7), CUZK_OK);
        uint64_t t_submit = mix_now_ns();
        cuzk_job h;
        assert_int_equal(cuzk_submit_partition(e, sb, &u.p, &h), CUZK_OK);
        for (int i = 0; i < NB + 1; i++) {
            cuzk_result r = poll1(e);
            assert_int_equal(mix_job_check(r.user_tag == U ? &u : &bulk[r.user_tag - 1], &r), CUZK_OK);
        }
        cuzk_srs_release(sa);
        cuzk_srs_release(sb);
        cuzk_engine_destroy(e); /* delivers the rest of the trace */
        uint64_t u_deq = log.dequeued[U], u_res = log.result[U];
        assert_true(u_deq && u_res);
        int later = 0;
        for (uint64_t t = 1; t <= NB; t++) {
            if (log.dequeued[t] <= t_submit) continue; /* had started */
            later++;
            if (urgent) assert_true(u_res < log.result[t]);
        }
        print_message("urgent %d: taken %.1f ms after submit (backlog partition 1 ran until %+.1f ms); result at "
                      "%.1f ms; %d backlog partitions started after it was submitted\n",
                      urgent, (double)(u_deq - t_submit) / 1e6, ((double)log.started_end[1] - (double)t_submit) / 1e6,
                      (double)(u_res - t_submit) / 1e6, later);
        assert_true(later >= NB - 2); /* a saturated backlog: at most two had started */
        if (urgent) {
            assert_true(u_deq < log.started_end[1]); /* taken while partition 1 still ran */
            assert_int_equal(log.worker[U], 1);      /* by the urgent worker */
        } else {
            assert_true(u_deq >= log.started_end[1]); /* it waited for the running one */
        }
        mix_log_fini(&log);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_keys_alternate),
        cmocka_unit_test(urgent_before_the_backlog),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
