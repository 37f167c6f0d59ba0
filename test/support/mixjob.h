/*
 * Helpers for the several-keys / urgent-partition tests (test_engine_mixed on the CPU,
 * test/gpu/test_gpu_mixed on CUDA): a partition of a test key's circuit with fixed r, s and
 * its public inputs kept, and a trace log of when each partition (by user_tag < 64) was
 * taken by a worker, finished its start and had its result posted.
 */
#ifndef CUZK_TEST_MIXJOB_H
#define CUZK_TEST_MIXJOB_H

#include <pthread.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "support/testkey.h"

typedef struct mix_job {
    cuzk_partition p;        /* owns its buffers until the engine releases them */
    cuzk_fr rs[2];
    cuzk_fr pub[512];        /* public inputs (ONE excluded) */
    uint64_t npub;
    const test_key *k;
} mix_job;

/* The two keys these tests prove with: a PoRep-shaped circuit of domain 2^bulk_log and a
 * WinningPoSt-shaped one of 2^urgent_log, fresh seeds from test_rand_bytes, files tagged
 * tag-0 and tag-1. CUZK_OK or the failing call's code (nothing left behind). */
int mix_keys_make(test_key *bulk, unsigned bulk_log, test_key *urgent, unsigned urgent_log, const char *tag);
/* An engine on `backend` (CUZK_BACKEND_*) with device 0 only, `workers` per device,
 * CUZK_OPT_URGENT_PRIORITY = urgent and, with log, mix_log_event as its trace callback;
 * NULL (cuzk_last_error says why) if it cannot be made. */
cuzk_engine *mix_engine(int32_t backend, int workers, int urgent, void *log);

/* A Montgomery-form partition of k's circuit; r, s from seed_byte; 0 or a CUZK_E* code. */
int mix_job_make(mix_job *j, const test_key *k, uint8_t seed_byte, uint64_t tag, int32_t priority);
/* CUZK_OK if r holds a valid proof of j (cuzk_verify), else the status or CUZK_EVERIFY. */
int mix_job_check(const mix_job *j, const cuzk_result *r);

#define MIX_TAGS 64
typedef struct mix_log {
    pthread_mutex_t lock;
    uint64_t dequeued[MIX_TAGS], started_end[MIX_TAGS], result[MIX_TAGS];
    uint64_t dev_begin[MIX_TAGS], dev_end[MIX_TAGS]; /* first and last device-timed stage (GPU) */
    int32_t worker[MIX_TAGS];
} mix_log;

void mix_log_init(mix_log *l);
void mix_log_fini(mix_log *l);
/* The engine's trace callback (user = the mix_log). */
void mix_log_event(const cuzk_trace_event *ev, void *user);
/* Waits until the partition tagged tag has been taken by a worker: CUZK_OK, or CUZK_EAGAIN
 * when that has not happened within timeout_ns (its event lost, say). */
int mix_log_wait_dequeued(mix_log *l, uint64_t tag, uint64_t timeout_ns);
uint64_t mix_now_ns(void);

/* Partition i (tag i, r and s from seed byte i) of key a when i is even, of key b when odd,
 * proven alone: each on a fresh engine of `backend`, one at a time; proofs[i] = its bytes.
 * CUZK_OK, or the first failure (a result that does not verify included). */
int mix_prove_alone(int32_t backend, const test_key *a, const test_key *b, int n, uint8_t (*proofs)[192]);
/* The same n partitions all in flight at once on engine e (keys loaded here, b's with
 * CUZK_SRS_PIN; a's released right after the submissions, while its partitions are queued
 * and running); priority 7 for every i with i % 4 == 3 when urgent_too. Every result must
 * verify and equal proofs[tag] byte for byte, and (gpu) come from a device. Destroys e.
 * CUZK_OK, CUZK_EMISMATCH for different bytes, or the first failure. */
int mix_prove_together(cuzk_engine *e, const test_key *a, const test_key *b, int n, int urgent_too, int gpu,
                       uint8_t (*proofs)[192]);

/* What mix_backlog_run saw, from the trace. */
#define MIX_URGENT_TAG (MIX_TAGS - 1)
typedef struct mix_outcome {
    uint64_t t_submit, u_dequeued, u_result; /* CLOCK_MONOTONIC ns */
    uint64_t first_started_end;              /* when backlog partition 1's start ended */
    uint64_t u_dev_begin;                    /* the urgent one's first device stage (GPU; 0: none) */
    uint64_t running_dev_end;                /* the earliest end of the device work of the backlog
                                                partitions on the device when it was submitted
                                                (began before, ended after; GPU; UINT64_MAX: none) */
    int later;           /* backlog partitions taken by a worker after the urgent one was submitted */
    int later_before_u;  /* of those, how many had their result posted before it */
    int running;         /* backlog partitions taken before and still in their start when it was taken */
    int32_t u_worker;    /* the worker that ran the urgent partition */
} mix_outcome;

/* The backlog scenario on engine e, whose trace goes to log (mix_log_event): nb < MIX_TAGS - 1
 * partitions of bulk's circuit (key sa; tags 1..nb, priority 0), then, once tag wait_tag
 * has been taken by a worker, one of urgent's (key sb; tag MIX_URGENT_TAG, priority 7);
 * every result polled and verified. Releases sa and sb and destroys e (which flushes the
 * trace). CUZK_OK, or the first failure. */
int mix_backlog_run(cuzk_engine *e, mix_log *log, cuzk_srs *sa, const test_key *bulk, int nb, cuzk_srs *sb,
                    const test_key *urgent, uint64_t wait_tag, mix_outcome *out);

#endif
