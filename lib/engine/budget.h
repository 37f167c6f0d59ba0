/*
 * Memory budgets: one atomic counter of reserved bytes per resource (host memory, each
 * device's memory). A reservation either fits at once (one CAS) or the caller may wait,
 * sleeping until some release makes room; releases may be partial (a partition gives its
 * a/b/c share back when its H step is done). No locks.
 */
#ifndef CUZK_BUDGET_H
#define CUZK_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

#include "engine/evcount.h"

typedef struct budget {
    _Alignas(CUZK_CACHELINE) _Atomic uint64_t reserved;
    _Atomic uint64_t peak;
    _Alignas(CUZK_CACHELINE) _Atomic uint64_t waits; /* reservations that had to wait */
    uint64_t total;
    evcount room;                                     /* notified on every release */
} budget;

void budget_init(budget *b, uint64_t total);
/* 1 and the bytes are reserved, or 0 if they do not fit now. */
int budget_try_reserve(budget *b, uint64_t bytes);
/* Reserves, sleeping while it does not fit, until `give_up(arg)` returns nonzero (checked
 * after every release and every `poll_ns`; 0 = only on release). Returns 1 if reserved,
 * 0 if it gave up. bytes > total never fits: the caller must refuse that earlier. */
int budget_reserve_wait(budget *b, uint64_t bytes, int (*give_up)(void *), void *arg,
                        uint64_t poll_ns);
/* Reserves bytes already in use whether or not they fit (the total may be exceeded: later
 * reservations then wait until releases make room). */
void budget_reserve_over(budget *b, uint64_t bytes);
void budget_release(budget *b, uint64_t bytes);
/* Wakes every waiter so it re-checks its give_up condition. */
void budget_kick(budget *b);
uint64_t budget_reserved(const budget *b);
/* total - reserved, 0 where reserve_over exceeded the total (a statistic, for messages). */
uint64_t budget_free(const budget *b);

#endif
