/* Trace ring and its dispatcher thread (see trace.h). */
#include "engine/trace.h"

#include <string.h>
#include <time.h>

#include "error.h"

/* The dispatcher polls with short sleeps while events flow (so emitting threads never make
 * a syscall), and sleeps on the event count only after a quiet spell, when an emitter that
 * sees it asleep wakes it. */
#define LIGHT_SLEEP_NS 1000000u /* 1 ms between polls while active */
#define QUIET_ROUNDS 50         /* then ~50 ms without events: sleep until woken */

static int drain(trace *t)
{
    cuzk_trace_event ev;
    int n = 0;
    while (ring_pop(&t->events, &ev)) {
        t->fn(&ev, t->user);
        atomic_fetch_add_explicit(&t->delivered, 1, memory_order_relaxed); /* a statistic */
        n++;
    }
    return n;
}

static void *dispatcher_main(void *arg)
{
    trace *t = arg;
    int quiet = 0;
    for (;;) {
        if (drain(t)) {
            quiet = 0;
            continue;
        }
        /* acquire: pairs with trace_stop; events pushed before stop are drained below */
        if (atomic_load_explicit(&t->stop, memory_order_acquire)) {
            drain(t);
            return NULL;
        }
        if (quiet < QUIET_ROUNDS) {
            quiet++;
            struct timespec ts = {0, LIGHT_SLEEP_NS};
            nanosleep(&ts, NULL);
            continue;
        }
        uint32_t key = evc_prepare(&t->ready);
        if (ring_count(&t->events) || atomic_load_explicit(&t->stop, memory_order_acquire)) {
            evc_cancel(&t->ready);
            continue;
        }
        evc_wait(&t->ready, key, 0);
        quiet = 0;
    }
}

int trace_start(trace *t, cuzk_trace_fn fn, void *user, uint32_t capacity)
{
    memset(t, 0, sizeof *t);
    evc_init(&t->ready);
    atomic_init(&t->dropped, 0);
    atomic_init(&t->delivered, 0);
    atomic_init(&t->stop, 0);
    if (!fn) return CUZK_OK;
    int rc = ring_init(&t->events, capacity, sizeof(cuzk_trace_event));
    if (rc) return rc;
    t->fn = fn;
    t->user = user;
    if (pthread_create(&t->thread, NULL, dispatcher_main, t) != 0) {
        ring_destroy(&t->events);
        t->fn = NULL;
        return err_set(CUZK_ENOMEM, "cannot start the trace thread");
    }
    t->running = 1;
    return CUZK_OK;
}

void trace_stop(trace *t)
{
    if (t->running) {
        atomic_store_explicit(&t->stop, 1, memory_order_release);
        evc_notify(&t->ready, EVC_ALL);
        pthread_join(t->thread, NULL);
        t->running = 0;
    }
    if (t->fn) ring_destroy(&t->events);
    t->fn = NULL;
}

_Static_assert(offsetof(cuzk_trace_event, bytes) + sizeof(uint64_t) == CUZK_TRACE_EVENT_SIZE_V1,
               "cuzk_trace_event's 0.1.0 members must keep their layout");

void trace_emit(trace *t, int32_t kind, int32_t device, int32_t worker, uint64_t job,
                uint64_t user_tag, uint64_t begin_ns, uint64_t end_ns, uint64_t bytes)
{
    if (!t->fn) return;
    cuzk_trace_event ev = {
        .struct_size = sizeof ev, .kind = kind, .device = device, .worker = worker, .job = job,
        .user_tag = user_tag, .begin_ns = begin_ns, .end_ns = end_ns, .bytes = bytes,
    };
    if (!ring_push(&t->events, &ev)) {
        atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed); /* a statistic */
        return;
    }
    evc_notify_if_waiting(&t->ready, 1); /* a syscall only when the dispatcher is asleep */
}
