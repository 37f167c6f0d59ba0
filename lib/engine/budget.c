/* Atomic reservations against a fixed total; waiting through an event count. */
#include "engine/budget.h"

void budget_init(budget *b, uint64_t total)
{
    atomic_init(&b->reserved, 0);
    atomic_init(&b->peak, 0);
    atomic_init(&b->waits, 0);
    b->total = total;
    evc_init(&b->room);
}

static void peak_raise(budget *b, uint64_t now)
{
    uint64_t pk = atomic_load_explicit(&b->peak, memory_order_relaxed);
    while (now > pk && !atomic_compare_exchange_weak_explicit(&b->peak, &pk, now, memory_order_relaxed,
                                                              memory_order_relaxed)) {
    }
}

int budget_try_reserve(budget *b, uint64_t bytes)
{
    /* relaxed: the CAS below is the only decision; the counter guards no other data */
    uint64_t cur = atomic_load_explicit(&b->reserved, memory_order_relaxed);
    do {
        if (bytes > b->total || cur > b->total - bytes) return 0;
    } while (!atomic_compare_exchange_weak_explicit(&b->reserved, &cur, cur + bytes,
                                                    memory_order_relaxed, memory_order_relaxed));
    peak_raise(b, cur + bytes);
    return 1;
}

void budget_reserve_over(budget *b, uint64_t bytes)
{
    if (!bytes) return;
    peak_raise(b, atomic_fetch_add_explicit(&b->reserved, bytes, memory_order_relaxed) + bytes); /* see try_reserve */
}

int budget_reserve_wait(budget *b, uint64_t bytes, int (*give_up)(void *), void *arg,
                        uint64_t poll_ns)
{
    if (budget_try_reserve(b, bytes)) return 1;
    atomic_fetch_add_explicit(&b->waits, 1, memory_order_relaxed); /* a statistic */
    for (;;) {
        uint32_t key = evc_prepare(&b->room);
        if (budget_try_reserve(b, bytes)) {
            evc_cancel(&b->room);
            return 1;
        }
        if (give_up && give_up(arg)) {
            evc_cancel(&b->room);
            return 0;
        }
        evc_wait(&b->room, key, poll_ns ? now_ns() + poll_ns : 0);
    }
}

void budget_release(budget *b, uint64_t bytes)
{
    if (!bytes) return;
    atomic_fetch_sub_explicit(&b->reserved, bytes, memory_order_relaxed); /* see try_reserve */
    evc_notify(&b->room, EVC_ALL);
}

void budget_kick(budget *b) { evc_notify(&b->room, EVC_ALL); }

uint64_t budget_reserved(const budget *b)
{
    return atomic_load_explicit(&b->reserved, memory_order_relaxed); /* a statistic */
}

uint64_t budget_free(const budget *b)
{
    const uint64_t used = budget_reserved(b);
    return used < b->total ? b->total - used : 0;
}
