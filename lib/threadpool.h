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
/* Sets the urgency of the calling thread's parallel_for calls (on any pool): 0 (normal, the
 * default) .. 7. The pool runs one loop per level at once; its threads take chunks of the
 * most urgent loop first and leave a less urgent loop between two chunks when a more urgent
 * one arrives, so an urgent loop waits for at most one chunk of a less urgent one, not for
 * the whole loop (its caller's thread helps the more urgent loop too). Callers of one level
 * queue behind each other. */
void threadpool_set_urgent(int level);

#endif
