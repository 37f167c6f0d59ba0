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
    return mix_keys_make(&kbulk, 11, &kurgent, 8, "mixed") ? -1 : 0;
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
    cuzk_engine *e = mix_engine(CUZK_BACKEND_CPU, workers, urgent, log);
    if (!e) fail_msg("engine: %s", cuzk_last_error());
    return e;
}

/* Two keys alternately on one engine (two workers, several partitions in flight, one key
 * released mid-run) = each key alone on its own engine, byte for byte. */
static void two_keys_alternate(void **state)
{
    (void)state;
    enum { N = 6 };
    uint8_t alone[N][192];
    assert_int_equal(mix_prove_alone(CUZK_BACKEND_CPU, &kbulk, &kurgent, N, alone), CUZK_OK);
    assert_memory_not_equal(alone[0], alone[2], 192); /* different r, s: different proofs */
    /* together: A B A B A B in flight at once on two workers; A's key released meanwhile */
    assert_int_equal(mix_prove_together(cpu_engine(2, 0, NULL), &kbulk, &kurgent, N, 0, 0, alone), CUZK_OK);
}

/* A backlog of PoRep partitions on one worker, then an urgent WinningPoSt partition. With
 * CUZK_OPT_URGENT_PRIORITY it is taken at once (while the running backlog partition still
 * runs) and its result comes before those of every backlog partition that had not started
 * at its submission. The same without the option: it waits for the running one (the
 * ordering of the queue alone), which is what the urgent worker removes. */
static void urgent_before_the_backlog(void **state)
{
    (void)state;
    enum { NB = 5 };
    for (int urgent = 7; urgent >= 0; urgent -= 7) {
        static mix_log log;
        mix_log_init(&log);
        cuzk_engine *e = cpu_engine(1, urgent, &log);
        cuzk_srs *sa, *sb;
        assert_int_equal(cuzk_srs_load(e, kbulk.path, 0, &sa), CUZK_OK);
        assert_int_equal(cuzk_srs_load(e, kurgent.path, CUZK_SRS_PIN, &sb), CUZK_OK);
        mix_outcome o;
        /* once the first backlog partition is running */
        assert_int_equal(mix_backlog_run(e, &log, sa, &kbulk, NB, sb, &kurgent, 1, &o), CUZK_OK);
        mix_log_fini(&log);
        assert_true(o.u_dequeued && o.u_result);
        print_message("urgent %d: taken %.1f ms after submit (backlog partition 1 ran until %+.1f ms); result at "
                      "%.1f ms; %d backlog partitions started after it was submitted, %d of them finished first\n",
                      urgent, (double)(o.u_dequeued - o.t_submit) / 1e6,
                      ((double)o.first_started_end - (double)o.t_submit) / 1e6, (double)(o.u_result - o.t_submit) / 1e6,
                      o.later, o.later_before_u);
        assert_true(o.later >= NB - 2); /* a saturated backlog: at most two had started */
        if (urgent) {
            assert_int_equal(o.later_before_u, 0);
            assert_true(o.u_dequeued < o.first_started_end); /* taken while partition 1 still ran */
            assert_int_equal(o.u_worker, 1);                 /* by the urgent worker */
        } else {
            assert_true(o.u_dequeued >= o.first_started_end); /* it waited for the running one */
        }
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
