/*
 * An event count: lets a thread that found nothing to do sleep (futex) until another thread
 * publishes work, without any lock on the publishing side. A publisher pays one atomic add
 * and one load; the futex wake is a syscall only when someone is actually asleep.
 *
 *   waiter:    key = evc_prepare(e); if (work available) evc_cancel(e); else evc_wait(e, key, deadline);
 *   publisher: publish work; evc_notify(e, 1 or EVC_ALL);
 */
#ifndef CUZK_EVCOUNT_H
#define CUZK_EVCOUNT_H

#include <stdatomic.h>
#include <stdint.h>

#include "engine/ring.h"

#define EVC_ALL 0x7fffffff

typedef struct evcount {
    _Alignas(CUZK_CACHELINE) _Atomic uint32_t seq;
    _Atomic uint32_t waiters;
    char pad[CUZK_CACHELINE - 2 * sizeof(uint32_t)];
} evcount;

void evc_init(evcount *e);
uint32_t evc_prepare(evcount *e);
void evc_cancel(evcount *e);
/* Sleeps until notified after evc_prepare returned key, or until deadline_ns
 * (CLOCK_MONOTONIC; 0 = no deadline). Spurious returns are possible: re-check. */
void evc_wait(evcount *e, uint32_t key, uint64_t deadline_ns);
void evc_notify(evcount *e, int count);
/* The publisher's fast path: a fence and a load, and evc_notify only if someone waits. */
void evc_notify_if_waiting(evcount *e, int count);

/* CLOCK_MONOTONIC in nanoseconds: the clock of every timestamp in libcuzk. */
uint64_t now_ns(void);
/* A short pause inside a spin loop. */
void cpu_relax(void);

#endif
