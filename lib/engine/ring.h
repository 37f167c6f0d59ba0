/*
 * Bounded lock-free MPMC ring (Dmitry Vyukov's queue): one sequence number per cell, one
 * CAS per push or pop, producer and consumer indices on their own cache lines. Elements are
 * fixed-size byte blobs copied in and out; a full ring refuses, it never blocks or grows.
 */
#ifndef CUZK_RING_H
#define CUZK_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define CUZK_CACHELINE 64

typedef struct ring {
    _Alignas(CUZK_CACHELINE) _Atomic size_t head; /* next position to push              */
    _Alignas(CUZK_CACHELINE) _Atomic size_t tail; /* next position to pop               */
    _Alignas(CUZK_CACHELINE) unsigned char *cells; /* capacity cells of cell_size bytes   */
    size_t mask;                                   /* capacity - 1 (capacity a power of 2) */
    size_t elem_size;
    size_t cell_size;                              /* sequence word + element, 8-aligned   */
} ring;

/* capacity is rounded up to a power of two (>= 2). CUZK_OK or CUZK_ENOMEM / CUZK_EINVAL. */
int ring_init(ring *r, size_t capacity, size_t elem_size);
void ring_destroy(ring *r);
size_t ring_capacity(const ring *r);

/* 1 if the element was copied in, 0 if the ring is full. Any thread.
 * "Full" can also mean: the cell this push needs is still being read by a pop of one lap
 * ago whose thread was preempted mid-way, while later pops finished (pops complete out of
 * order). So a ring holding fewer elements than its capacity can refuse for a moment. */
int ring_push(ring *r, const void *elem);
/* For rings sized so that they can never be truly full (each item has one slot): pushes,
 * yielding the CPU while a stalled pop of the previous lap still holds the cell. */
void ring_push_wait(ring *r, const void *elem);
/* 1 if an element was copied out, 0 if the ring is empty. Any thread. */
int ring_pop(ring *r, void *elem);
/* Number of elements at this instant (approximate while others push or pop). */
size_t ring_count(const ring *r);

static inline int ring_push_u64(ring *r, uint64_t v) { return ring_push(r, &v); }
static inline int ring_pop_u64(ring *r, uint64_t *v) { return ring_pop(r, v); }

#endif
