/*
 * A fixed pool of worker threads for data-parallel loops (MSM windows, NTT butterflies,
 * point decoding). The calling thread works too; a NULL pool means "run inline".
 */
#ifndef CUZK_THREADPOOL_H
#define CUZK_THREADPOOL_H

#include <stddef.h>

typedef struct threadpool threadpool;

/* nthreads = 0: one per online CPU. NULL on failure. */
threadpool *threadpool_create(unsigned nthreads);
void threadpool_destroy(threadpool *tp);
unsigned threadpool_size(const threadpool *tp); /* 1 for NULL */
/* Runs fn(arg, i) for every i in [0, n), spread over the pool and the caller; returns when
 * all are done. Safe to call from several threads at once (calls queue behind each other).
 * Nested calls from inside fn run inline. */
void threadpool_parallel_for(threadpool *tp, size_t n, void (*fn)(void *arg, size_t i), void *arg);

#endif
