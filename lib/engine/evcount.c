/* Event count on a Linux futex (see evcount.h for the protocol). The seq_cst operations
 * on seq and waiters form a Dekker pair: either the waiter sees the new work, or the
 * publisher sees the waiter and wakes it (and the futex value check catches the race). */
#include "engine/evcount.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void evc_init(evcount *e)
{
    atomic_init(&e->seq, 0);
    atomic_init(&e->waiters, 0);
}

uint32_t evc_prepare(evcount *e)
{
    atomic_fetch_add(&e->waiters, 1);
    uint32_t key = atomic_load(&e->seq);
    /* seq_cst fence: the caller's re-check of its work (often relaxed or acquire loads)
     * stays after our registration; pairs with the fence in evc_notify_if_waiting */
    atomic_thread_fence(memory_order_seq_cst);
    return key;
}

void evc_cancel(evcount *e) { atomic_fetch_sub(&e->waiters, 1); }

void evc_wait(evcount *e, uint32_t key, uint64_t deadline_ns)
{
    struct timespec ts, *tsp = NULL;
    if (deadline_ns) {
        ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
        ts.tv_nsec = (long)(deadline_ns % 1000000000u);
        tsp = &ts;
    }
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline; it returns at once if
     * seq no longer equals key (a notify came between prepare and here). */
    syscall(SYS_futex, (uint32_t *)&e->seq, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, key, tsp,
            NULL, FUTEX_BITSET_MATCH_ANY);
    atomic_fetch_sub(&e->waiters, 1);
}

void evc_notify(evcount *e, int count)
{
    atomic_fetch_add(&e->seq, 1);
    if (atomic_load(&e->waiters))
        syscall(SYS_futex, (uint32_t *)&e->seq, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, count, NULL,
                NULL, 0);
}

void evc_notify_if_waiting(evcount *e, int count)
{
    /* seq_cst fence: store-buffering pair with evc_prepare's — either the waiter's re-check
     * sees the work published before this call, or we see it registered and wake it */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&e->waiters, memory_order_relaxed)) evc_notify(e, count);
}

uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}
