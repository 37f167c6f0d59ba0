/*
 * Working memory for partitions: mimalloc heaps in one exclusive arena that the process
 * reserves once (uncommitted) and every engine shares — mimalloc allows only 64 arenas per
 * process and never gives one back. A heap allocates only on the thread that created it,
 * and is destroyed (everything at once) when its partition ends. A housekeeping thread per
 * engine returns the freed pages to the OS with mi_collect, off every worker's path.
 * Nothing here touches the process's malloc, and nothing trims the C heap (the design forbids it).
 */
#ifndef CUZK_ARENA_H
#define CUZK_ARENA_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/evcount.h"

typedef struct mi_heap_s arena_heap;

/* The process-wide arena's size in bytes (0 if none could be reserved: heaps then come
 * from mimalloc's default arenas, still separate from the host's malloc). */
size_t arena_size(void);
/* A new heap owned by the calling thread; NULL on failure. */
arena_heap *arena_heap_new(void);
/* Frees every block of the heap; call on the thread that created it. */
void arena_heap_destroy(arena_heap *h);
/* 64-byte aligned; NULL when the arena is exhausted. Only on the heap's thread. */
void *arena_heap_alloc(arena_heap *h, size_t bytes);
/* Any thread. */
void arena_free(void *p);

/* Returns idle memory to the OS when poked (after heaps are destroyed). */
typedef struct housekeeper {
    evcount poke;
    _Alignas(CUZK_CACHELINE) _Atomic uint32_t pending; /* pokes since the last collect */
    _Atomic uint32_t stop;
    _Atomic uint64_t collects;
    pthread_t thread;
    int running;
    uint64_t delay_ns;                                 /* coalescing window after a poke */
    void (*on_collect)(void *arg, uint64_t begin_ns, uint64_t end_ns); /* trace hook */
    void *arg;
} housekeeper;

int housekeeper_start(housekeeper *hk, uint64_t delay_ns,
                      void (*on_collect)(void *, uint64_t, uint64_t), void *arg);
void housekeeper_poke(housekeeper *hk);
void housekeeper_stop(housekeeper *hk); /* collects once more, then joins */

/* Resident set size of this process in bytes (from /proc/self/statm), 0 if unknown. */
uint64_t process_rss_bytes(void);
/* Physical memory in bytes. */
uint64_t physical_memory_bytes(void);

#endif
