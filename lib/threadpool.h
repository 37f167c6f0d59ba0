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
/* Marks the calling thread's parallel_for calls (on any pool) urgent (1) or normal (0, the
 * default). The pool runs one urgent and one normal loop at once; its threads take the
 * urgent loop's chunks first and leave a normal loop between two chunks when an urgent one
 * arrives, so an urgent loop waits for at most one chunk of a normal one, not for the whole
 * loop (the normal caller's thread helps the urgent loop too). Urgent callers queue behind
 * each other as normal ones do. */
void threadpool_set_urgent(int urgent);

#endif
