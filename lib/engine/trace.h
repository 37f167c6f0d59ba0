/*
 * The trace path: any engine thread writes events into a bounded lock-free ring (a full
 * ring drops the event and counts it, never waits), and one dispatcher thread hands them to
 * the host's callback. A slow callback therefore delays only other events, never proving.
 */
#ifndef CUZK_TRACE_H
#define CUZK_TRACE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "engine/evcount.h"
#include "engine/ring.h"

typedef struct trace {
    ring events;                                       /* cuzk_trace_event               */
    evcount ready;
    _Alignas(CUZK_CACHELINE) _Atomic uint64_t dropped;
    _Alignas(CUZK_CACHELINE) _Atomic uint64_t delivered;
    _Atomic uint32_t stop;
    cuzk_trace_fn fn;                                  /* NULL: tracing off              */
    void *user;
    pthread_t thread;
    int running;
} trace;

/* fn NULL: tracing off (trace_emit returns at once; no thread). */
int trace_start(trace *t, cuzk_trace_fn fn, void *user, uint32_t capacity);
/* Delivers what is still in the ring, then stops the dispatcher. */
void trace_stop(trace *t);
static inline int trace_on(const trace *t) { return t->fn != NULL; }
/* Any thread; never blocks. */
void trace_emit(trace *t, int32_t kind, int32_t device, int32_t worker, uint64_t job,
                uint64_t user_tag, uint64_t begin_ns, uint64_t end_ns, uint64_t bytes);

#endif
