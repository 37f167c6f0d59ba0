/*
 * Host-side preparation for the CUDA backend: parallel copies into a worker's pinned staging
 * buffer, spread over the backend's thread pool (range checks and the density compaction run
 * on the device: kernels/prep.h).
 */
#include <string.h>

#include "backend/backend_cuda_prep.h"

#define PREP_CHUNK ((size_t)1 << 21) /* bytes per task */

typedef struct {
    uint8_t *dst;
    const uint8_t *src;
    size_t bytes;
} pcopy_job;

static void pcopy_chunk(void *arg, size_t c)
{
    const pcopy_job *j = arg;
    size_t lo = c * PREP_CHUNK, n = j->bytes - lo < PREP_CHUNK ? j->bytes - lo : PREP_CHUNK;
    memcpy(j->dst + lo, j->src + lo, n);
}

void prep_copy(threadpool *tp, void *dst, const void *src, size_t bytes)
{
    if (!bytes) return;
    pcopy_job j = {dst, src, bytes};
    threadpool_parallel_for(tp, (bytes + PREP_CHUNK - 1) / PREP_CHUNK, pcopy_chunk, &j);
}
