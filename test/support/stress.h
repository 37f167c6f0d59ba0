/*
 * The engine stress test's driver (issue 25: "the GPU engine under a storage provider's real
 * day"), public API only, either backend: three keys (PoRep-, WinningPoSt- and WindowPoSt-
 * shaped), phases of a few seconds to minutes under a mixed load, each ended by destroying the
 * engine with work in flight; every job, call and release checked, every call timed, a
 * watchdog that turns a stall into a loud failure. test_stress_cpu and test/gpu/
 * test_gpu_stress run it; `make soak-gpu MINUTES=10` runs the GPU one longer.
 *
 * One phase (per entry of budgets[]; then one more with faults when faults is set):
 *   - an engine: workers[i] per device, CUZK_OPT_URGENT_PRIORITY 6, CUZK_OPT_VERIFY 1, the
 *     phase's CUZK_OPT_DEVICE_BUDGET_BYTES (CUDA), CUZK_OPT_RETRY_ON_CPU 1 in the fault phase;
 *     the bulk key loaded plain, WinningPoSt's with CUZK_SRS_PIN, WindowPoSt's with
 *     CUZK_SRS_URGENT;
 *   - each urgent kind's time alone (median of alone_n partitions on the idle engine);
 *   - the bulk circuit's constraint system (cuzk_cs_load of a .r1cs written at the start; on
 *     CUDA flags 0 or CUZK_CS_STREAM at random);
 *   - the load, for `seconds`: a bulk producer keeping inflight_min..inflight_max jobs in flight
 *     at priorities 0..5, one in four of them witness-only (cuzk_submit_witness on the
 *     constraint system), one in ten canceled (right after submit, 0-50 ms later, or after
 *     its result arrived); WinningPoSt partitions (priority 7) every winning_ms; WindowPoSt
 *     (priority 6) every window_ms; every churn_ms a fresh copy of the bulk key loaded (flags
 *     0, PIN or URGENT at random), two partitions submitted on it at priority 2, every other
 *     time a fresh constraint system loaded with two witness-only partitions on it and that
 *     key, the system then released or swapped in for the bulk producer's (whose old one is
 *     released), and the key released, all while their partitions are queued or run;
 *     pollers; the fault thread in the fault phase; half of all partitions in cuzk_host_alloc
 *     memory, half in malloc'ed memory, poisoned when released;
 *   - producers stopped, the engine destroyed while jobs are queued and running.
 * Checked: one result and one release per accepted job, the release before its result and
 * never after cuzk_engine_destroy returned; every CUZK_OK proof verifies (cuzk_verify against
 * the key's vk and the job's public inputs), witness-only ones alike, and each phase that
 * loaded a constraint system proves one witness-only partition on the idle engine first; CUZK_ECANCELED only for jobs whose cancel was
 * accepted, and an accepted cancel always ends so; other failures only in the fault phase,
 * with a detail, no more of them than faults fired, and none after the faults stopped (the
 * engine serves on); cuzk_engine_stats agrees on the count submitted; device memory free
 * after destroy within mem_slack_mib of before create (CUDA, from the second phase on: the
 * first engine builds per-process tables that stay with the CUDA context).
 * Bounds (watchdog; a call or job past its bound prints the state and aborts):
 *   every call not listed below  call_ms      100 ms  (CUZK_STRESS_CALL_BOUND_MS)
 *   cuzk_poll_result             its timeout + call_ms
 *   cuzk_host_alloc / host_free  release_ms   1 s     (page-locked memory waits for the device)
 *   cuzk_srs_release             release_ms   1 s
 *   cuzk_srs_load, cuzk_cs_load  load_ms      10 s
 *   cuzk_cs_release              release_ms   1 s
 *   cuzk_engine_create / destroy engine_ms    30 s
 *   a job's result after submit  job_ms       60 s    (CUZK_STRESS_JOB_BOUND_S)
 * CUZK_STRESS_BOUND_SCALE multiplies every bound (under valgrind: 50); under a sanitizer
 * (ASan, TSan) they are 5x more. No latency target is asserted (that is the bench's business)
 * beyond the job bound; the latencies are printed, one summary row per phase in
 * bench/RESULTS.md's table form (also appended to the file named by STRESS_OUT).
 * Seed: CUZK_STRESS_SEED, else test_seed() (CUZK_TEST_SEED or the clock); every failure
 * message names it. Thread timing is not replayed, only every random choice.
 */
#ifndef CUZK_TEST_STRESS_H
#define CUZK_TEST_STRESS_H

#include <stdint.h>

#define STRESS_MAX_PHASES 8
/* Special budgets: found by the driver on the GPU at the start (engines created with a budget,
 * the three keys loaded, destroyed; a bisection of a few steps). */
#define STRESS_BUDGET_STREAM UINT64_MAX      /* between the smallest that loads the three keys and
                                                the smallest with the bulk key resident: the bulk
                                                key streams part of its bases ("a 16 GiB card") */
#define STRESS_BUDGET_MIN (UINT64_MAX - 1)   /* the smallest that loads the three keys */

typedef struct stress_cfg {
    int32_t backend;                    /* CUZK_BACKEND_CPU or CUZK_BACKEND_CUDA           */
    double seconds;                     /* of load per phase (CUZK_STRESS_SECONDS)         */
    int nphases;                        /* entries of budgets[] and workers[]              */
    uint64_t budgets[STRESS_MAX_PHASES];/* device budget bytes, 0 = whole GPU, or special  */
    int workers[STRESS_MAX_PHASES];     /* workers per device                              */
    int faults;                         /* 1: one more phase (budget 0) with faults        */
    uint64_t seed;                      /* 0: test_seed() (defaults: CUZK_STRESS_SEED)     */
    unsigned bulk_log, winning_log, window_log; /* the keys' domains (log2)                */
    unsigned winning_ms, window_ms, churn_ms;   /* mean periods of the producers           */
    unsigned inflight_min, inflight_max;        /* bulk jobs kept in flight                */
    unsigned cancel_pm;                 /* bulk jobs canceled, per mille                   */
    unsigned alone_n;                   /* partitions per urgent kind for the alone time   */
    unsigned pollers;
    uint64_t poison_max;                /* bytes of a job's block poisoned at its release  */
    /* bounds, ms (see above) */
    uint64_t call_ms, release_ms, load_ms, engine_ms, job_ms;
    double bound_scale;                 /* every bound times this (CUZK_STRESS_BOUND_SCALE) */
    uint64_t mem_slack_mib;             /* CUDA: device memory allowed not to come back    */
    const char *out_path;               /* summary rows appended here too (NULL: none)    */
} stress_cfg;

/* The defaults for backend (see the file comment; CPU: 2^10/2^9/2^9 keys, phases of 7 s with
 * 2 and 1 workers and the fault phase, 2.5 s each and no 1-worker phase with
 * CUZK_TEST_QUICK; CUDA: 2^16/2^12/2^14, phases of 30 s at budgets 0, STREAM and MIN plus the
 * fault phase), then the environment: CUZK_STRESS_SECONDS (per phase),
 * CUZK_STRESS_TOTAL_SECONDS (all phases; wins), CUZK_STRESS_SEED, CUZK_STRESS_CALL_BOUND_MS,
 * CUZK_STRESS_JOB_BOUND_S, CUZK_STRESS_BOUND_SCALE, STRESS_OUT, CUZK_STRESS_FAULTS (0: no fault
 * phase), CUZK_STRESS_LOGS ("bulk,winning,window" domains; issue 25's scenario: 18,13,16). */
void stress_cfg_defaults(stress_cfg *cfg, int32_t backend);

/* Runs every phase; 0 when every check held, else the number of failures (each printed with
 * the seed as it happened). A stall aborts the process instead (after printing the state). */
int stress_run(const stress_cfg *cfg);

#endif
