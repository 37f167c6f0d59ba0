/*
 * Host preparation for the CUDA backend (backend_cuda_prep.c): parallel copies into a worker's
 * pinned staging buffers (the scalar checks and the A/B compaction run on the device).
 */
#ifndef CUZK_BACKEND_CUDA_PREP_H
#define CUZK_BACKEND_CUDA_PREP_H

#include <stddef.h>
#include <stdint.h>

#include "threadpool.h"

/* memcpy(dst, src, bytes) in chunks on tp's threads. */
void prep_copy(threadpool *tp, void *dst, const void *src, size_t bytes);

#endif
