/* mimalloc arenas and heaps for partitions' working memory, and the housekeeping thread.
 * See DESIGN.md's notes on Debian's mimalloc 2.0.9: exclusive arenas are a hard ceiling,
 * handed out in 32 MiB blocks, and mi_collect(true) returns freed segments at once. */
#include "engine/arena.h"

#include <mimalloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fault.h"

#define ARENA_GRANULE ((size_t)32 << 20)

/* ThreadSanitizer cannot see mimalloc's own synchronization (the library is not
 * instrumented): memory one worker's heap freed and another's reused looks like a race.
 * Tell it what mimalloc guarantees — a block is handed out again only after it was freed —
 * by releasing at every free and acquiring at every allocation. Nothing in other builds. */
#if defined(__SANITIZE_THREAD__)
#define ARENA_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ARENA_TSAN 1
#endif
#endif
#ifdef ARENA_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static char arena_tsan_sync;
#define ARENA_FREED() __tsan_release(&arena_tsan_sync)
#define ARENA_TAKEN() __tsan_acquire(&arena_tsan_sync)
#else
#define ARENA_FREED() ((void)0)
#define ARENA_TAKEN() ((void)0)
#endif

static pthread_once_t arena_once = PTHREAD_ONCE_INIT;
static int arena_ok;
static size_t arena_bytes;
#if MI_MALLOC_VERSION >= 200
static mi_arena_id_t arena_id;
#endif

uint64_t physical_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    return pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : (uint64_t)1 << 32;
}

static void arena_reserve_once(void)
{
#if MI_MALLOC_VERSION >= 200
    /* mi_reserve_os_memory_ex exists from 2.0 on; the loaded library must be as new as
     * the header we compiled against. */
    if (mi_version() < 200) return;
    /* Uncommitted address space as large as physical memory: pages are committed on use
     * and decommitted when freed segments come back, so the size costs nothing resident;
     * budgets, not the arena, are the intended limit. */
    size_t bytes = (physical_memory_bytes() + ARENA_GRANULE - 1) & ~(ARENA_GRANULE - 1);
    if (mi_reserve_os_memory_ex(bytes, false /* commit */, false /* large pages */,
                                true /* exclusive */, &arena_id) == 0) {
        arena_ok = 1;
        arena_bytes = bytes;
    }
#endif
}

size_t arena_size(void)
{
    pthread_once(&arena_once, arena_reserve_once);
    return arena_bytes;
}

arena_heap *arena_heap_new(void)
{
    pthread_once(&arena_once, arena_reserve_once);
    if (FAULT_HIT(FAULT_HEAP_NEW)) return NULL;
    ARENA_TAKEN();
#if MI_MALLOC_VERSION >= 200
    if (arena_ok) return mi_heap_new_in_arena(arena_id);
#endif
    return mi_heap_new();
}

void arena_heap_destroy(arena_heap *h)
{
    ARENA_FREED();
    if (h) mi_heap_destroy(h);
}

void *arena_heap_alloc(arena_heap *h, size_t bytes)
{
    if (FAULT_HIT(FAULT_HEAP_ALLOC)) return NULL;
    ARENA_TAKEN();
    return mi_heap_malloc_aligned(h, bytes ? bytes : 1, 64);
}

void arena_free(void *p)
{
    ARENA_FREED();
    mi_free(p);
}

uint64_t process_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, resident = 0;
    if (!f) return 0;
    int n = fscanf(f, "%llu %llu", &size, &resident);
    fclose(f);
    return n == 2 ? (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

static void *housekeeper_main(void *arg)
{
    housekeeper *hk = arg;
    /* mi_collect on a thread whose mimalloc state was never set up returns at once without
     * flushing anything (seen with 2.0.9): set it up first */
    mi_thread_init();
    for (;;) {
        uint32_t key = evc_prepare(&hk->poke);
        /* acquire: pairs with the release in housekeeper_stop */
        int stop = atomic_load_explicit(&hk->stop, memory_order_acquire) != 0;
        if (!stop && !atomic_load_explicit(&hk->pending, memory_order_relaxed)) {
            evc_wait(&hk->poke, key, 0); /* nothing freed since the last collect: sleep */
            continue;
        }
        evc_cancel(&hk->poke);
        if (!stop && hk->delay_ns) {
            /* let a burst of heap destructions pass, then collect once for all of them */
            struct timespec ts = {(time_t)(hk->delay_ns / 1000000000u), (long)(hk->delay_ns % 1000000000u)};
            nanosleep(&ts, NULL);
        }
        atomic_exchange_explicit(&hk->pending, 0, memory_order_relaxed); /* a hint only */
        uint64_t t0 = now_ns();
        mi_collect(true); /* flushes the segment cache: freed segments are decommitted now */
        atomic_fetch_add_explicit(&hk->collects, 1, memory_order_relaxed); /* a statistic */
        if (hk->on_collect) hk->on_collect(hk->arg, t0, now_ns());
        if (stop) break;
    }
    mi_thread_done();
    return NULL;
}

int housekeeper_start(housekeeper *hk, uint64_t delay_ns,
                      void (*on_collect)(void *, uint64_t, uint64_t), void *arg)
{
    evc_init(&hk->poke);
    atomic_init(&hk->pending, 0);
    atomic_init(&hk->stop, 0);
    atomic_init(&hk->collects, 0);
    hk->delay_ns = delay_ns;
    hk->on_collect = on_collect;
    hk->arg = arg;
    hk->running = 0;
    if (pthread_create(&hk->thread, NULL, housekeeper_main, hk) != 0)
        return err_set(CUZK_ENOMEM, "cannot start the housekeeping thread");
    hk->running = 1;
    return CUZK_OK;
}

void housekeeper_poke(housekeeper *hk)
{
    atomic_fetch_add_explicit(&hk->pending, 1, memory_order_relaxed); /* evc orders it */
    evc_notify(&hk->poke, 1);
}

void housekeeper_stop(housekeeper *hk)
{
    if (!hk->running) return;
    atomic_store_explicit(&hk->stop, 1, memory_order_release);
    evc_notify(&hk->poke, EVC_ALL);
    pthread_join(hk->thread, NULL);
    hk->running = 0;
}
