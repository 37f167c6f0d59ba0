/* The engine stress test (issue 25; test/support/stress.h) on the CUDA backend: a PoRep-shaped
 * 2^16 key, a WinningPoSt-shaped 2^12 key pinned, a WindowPoSt-shaped 2^14 key urgent; phases
 * at the whole GPU, at a budget where the bulk key streams part of its bases, at the smallest
 * budget that loads all three (both found by a short bisection), and one with CUDA faults and
 * CUZK_OPT_RETRY_ON_CPU, each under the mixed load (a quarter of the bulk partitions
 * witness-only on the bulk circuit's constraint system, resident or streamed, which the churn
 * reloads and releases in use) and ended by destroying the engine with work in flight; device memory must come back after each destroy. Latencies of the urgent kinds
 * (alone, p50, p99) and the longest call of each kind are printed as bench/RESULTS.md rows.
 * CUZK_MSM_PAIR_MIN=4096 (unless set): the keys' MSMs run pairwise rounds, as 2^20 and larger
 * ones do by default.
 * About 2.5 min on an H200 (30 s per phase); CUZK_STRESS_SECONDS sets each phase's length,
 * CUZK_STRESS_TOTAL_SECONDS all of them (make soak-gpu MINUTES=10). Exits 77 without a GPU.
 * On the simulated device (make test-simgpu: the host's arithmetic) the keys are the CPU
 * test's 2^10 and 2^9, phases of 6 s (2.5 quick), and every byte of device memory must come
 * back after each destroy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "support/gputest.h"
#include "support/stress.h"

/* The simulated device's keys are 2^10 (stress.c): from 512 scalars its MSMs count pairwise's
 * scratch, so the placement and the slots' accumulation switches run there too. */
#ifdef CUZK_SIMGPU
#define S_PAIR_MIN "512"
#else
#define S_PAIR_MIN "4096"
#endif

static void stress_gpu(void **state)
{
    (void)state;
    stress_cfg cfg;
    stress_cfg_defaults(&cfg, CUZK_BACKEND_CUDA);
    assert_int_equal(stress_run(&cfg), 0);
}

int main(void)
{
    /* the test reads the device's free memory (a CUDA call) before the first engine exists:
     * set what the library would set at its first engine first (cuzk.h, "CUDA hardware
     * queues"), or the urgent partitions could wait behind the backlog's queued work */
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    /* the keys' MSMs (2^12..2^16 points) below the default 2^20 would all run XYZZ: from 2^12
     * they take pairwise rounds under the load too, and a slot alternates between a key
     * placed with pairwise's scratch and one placed without (the switch frees it) */
    setenv("CUZK_MSM_PAIR_MIN", S_PAIR_MIN, 0);
    if (gpu_test_begin()) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stress_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
