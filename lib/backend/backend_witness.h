/*
 * Witness-only partitions (backend_job.cs) on the host: the witness's range check and
 * a, b, c evaluated on a thread pool into the partition's heap, handed to the a/b/c prover
 * as an ordinary partition. The CPU backend's path, and the CUDA backend's fallback where
 * its device evaluation does not run.
 */
#ifndef CUZK_BACKEND_WITNESS_H
#define CUZK_BACKEND_WITNESS_H

#include <stdint.h>

#include "backend/backend.h"
#include "groth16/csc.h"
#include "threadpool.h"

/* Host bytes the evaluated a, b, c take (three abc_len vectors). */
uint64_t backend_witness_abc_bytes(const struct csc *cs);
/* Checks the witness (inputs, aux: every value below r in p's scalar form; CUZK_EINVAL
 * naming the first that is not), then fills *view with job->p plus a, b, c evaluated into
 * job's heap (in p's scalar form) on tp. Worker thread, during start. A CUZK_TRACE_CS_EVAL
 * event spans the evaluation. */
int backend_witness_eval(backend_job *job, threadpool *tp, cuzk_partition *view);
/* Gives a, b, c of view back to the heap (after the H step). */
void backend_witness_free_abc(backend_job *job, cuzk_partition *view);

#endif
