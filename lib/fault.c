/* Fault injection sites' counters (lib/fault.h): armed by tests, read by the library. All
 * counters are atomics so a site may fire on any engine thread. */
#include "fault.h"

#include <pthread.h>

_Atomic uint32_t fault_armed_any;

static struct {
    _Atomic uint32_t armed;
    _Atomic uint64_t calls, hits;
    /* Atomics too: a test may re-arm a site while a thread that saw the old arming reads
     * them (relaxed: a stale pair only shifts which call fails, never a torn value). */
    _Atomic uint64_t nth, count;
} sites[FAULT_SITES];

int fault_hit_slow(fault_site site)
{
    if ((unsigned)site >= FAULT_SITES) return 0;
    /* acquire: pairs with fault_arm's release; nth and count are visible */
    if (!atomic_load_explicit(&sites[site].armed, memory_order_acquire)) return 0;
    uint64_t n = atomic_fetch_add_explicit(&sites[site].calls, 1, memory_order_relaxed) + 1;
    uint64_t nth = atomic_load_explicit(&sites[site].nth, memory_order_relaxed),
             count = atomic_load_explicit(&sites[site].count, memory_order_relaxed);
    if (n < nth || (count && n >= nth + count)) return 0;
    atomic_fetch_add_explicit(&sites[site].hits, 1, memory_order_relaxed);
    return 1;
}

void fault_arm(fault_site site, uint64_t nth, uint64_t count)
{
    if ((unsigned)site >= FAULT_SITES) return;
    atomic_store_explicit(&sites[site].armed, 0, memory_order_relaxed);
    atomic_store_explicit(&sites[site].nth, nth ? nth : 1, memory_order_relaxed);
    atomic_store_explicit(&sites[site].count, count, memory_order_relaxed);
    atomic_store_explicit(&sites[site].calls, 0, memory_order_relaxed);
    atomic_store_explicit(&sites[site].hits, 0, memory_order_relaxed);
    atomic_store_explicit(&sites[site].armed, 1, memory_order_release);
    atomic_store_explicit(&fault_armed_any, 1, memory_order_release);
}

static pthread_mutex_t hold_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cv = PTHREAD_COND_INITIALIZER;
static uint64_t hold_gen; /* releases so far: a waiter goes on once it changes */

void fault_hold_wait(void)
{
    pthread_mutex_lock(&hold_mu);
    const uint64_t g = hold_gen;
    while (g == hold_gen) pthread_cond_wait(&hold_cv, &hold_mu);
    pthread_mutex_unlock(&hold_mu);
}

void fault_hold_release(void)
{
    pthread_mutex_lock(&hold_mu);
    hold_gen++;
    pthread_cond_broadcast(&hold_cv);
    pthread_mutex_unlock(&hold_mu);
}

void fault_disarm_all(void)
{
    atomic_store_explicit(&fault_armed_any, 0, memory_order_release);
    for (int i = 0; i < FAULT_SITES; i++) atomic_store_explicit(&sites[i].armed, 0, memory_order_release);
}

uint64_t fault_calls(fault_site site)
{
    return (unsigned)site < FAULT_SITES ? atomic_load_explicit(&sites[site].calls, memory_order_relaxed) : 0;
}

uint64_t fault_hits(fault_site site)
{
    return (unsigned)site < FAULT_SITES ? atomic_load_explicit(&sites[site].hits, memory_order_relaxed) : 0;
}

const char *fault_site_name(fault_site site)
{
    static const char *const names[FAULT_SITES] = {
        "HEAP_ALLOC", "HEAP_NEW", "HOST_ALLOC", "MSM_CORRUPT", "KEY_LOAD",
        "CUDA_H", "CUDA_MSM", "CUDA_COPY", "CUDA_ALLOC", "CUDA_HOLD"};
    return (unsigned)site < FAULT_SITES ? names[site] : "?";
}
