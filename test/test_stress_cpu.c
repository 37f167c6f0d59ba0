/* The engine stress test (issue 25; test/support/stress.h) on the CPU backend, short: a
 * PoRep-shaped 2^10 key, WinningPoSt- and WindowPoSt-shaped 2^9 keys; a phase with two
 * workers, one with one (not with CUZK_TEST_QUICK), and one with faults (FAULT_MSM_CORRUPT,
 * FAULT_HEAP_ALLOC) and CUZK_OPT_RETRY_ON_CPU; each under the mixed load (bulk backlog with
 * cancels, a quarter of it witness-only on a loaded constraint system, urgent partitions, key
 * and constraint system churn, pollers) and ended by destroying the engine with work
 * in flight. Every job, release and call checked; a stall aborts with the state printed.
 * About 25 s on two cores (8 s quick); CUZK_STRESS_SECONDS sets each phase's length,
 * CUZK_STRESS_SEED replays one run's choices. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "support/stress.h"

static void stress_cpu(void **state)
{
    (void)state;
    stress_cfg cfg;
    stress_cfg_defaults(&cfg, CUZK_BACKEND_CPU);
    assert_int_equal(stress_run(&cfg), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stress_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
