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

/* A Montgomery-form partition of k's circuit; r, s from seed_byte; 0 or a CUZK_E* code. */
int mix_job_make(mix_job *j, const test_key *k, uint8_t seed_byte, uint64_t tag, int32_t priority);
/* CUZK_OK if r holds a valid proof of j (cuzk_verify), else the status or CUZK_EVERIFY. */
int mix_job_check(const mix_job *j, const cuzk_result *r);

#define MIX_TAGS 64
typedef struct mix_log {
    pthread_mutex_t lock;
    uint64_t dequeued[MIX_TAGS], started_end[MIX_TAGS], result[MIX_TAGS];
    int32_t worker[MIX_TAGS];
} mix_log;

void mix_log_init(mix_log *l);
void mix_log_fini(mix_log *l);
/* The engine's trace callback (user = the mix_log). */
void mix_log_event(const cuzk_trace_event *ev, void *user);
/* Waits until the partition tagged tag has been taken by a worker. */
void mix_log_wait_dequeued(mix_log *l, uint64_t tag);
uint64_t mix_now_ns(void);

#endif
