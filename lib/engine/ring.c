/* Vyukov's bounded MPMC queue. Cell i holds seq == pos when free for the push at pos, and
 * seq == pos + 1 when it holds the element pushed at pos, ready for the pop at pos. */
#include "engine/ring.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#define CELL_SEQ(r, pos) ((_Atomic size_t *)((r)->cells + ((pos) & (r)->mask) * (r)->cell_size))
#define CELL_DATA(seqp) ((unsigned char *)(seqp) + sizeof(size_t))

int ring_init(ring *r, size_t capacity, size_t elem_size)
{
    memset(r, 0, sizeof *r);
    if (capacity < 2) capacity = 2;
    if (capacity > ((size_t)1 << 40) || elem_size == 0 || elem_size > 4096)
        return err_set(CUZK_EINVAL, "ring: capacity %zu / element size %zu out of range", capacity,
                       elem_size);
    size_t cap = 2;
    while (cap < capacity) cap <<= 1;
    r->mask = cap - 1;
    r->elem_size = elem_size;
    r->cell_size = (sizeof(size_t) + elem_size + 7) & ~(size_t)7;
    r->cells = aligned_alloc(CUZK_CACHELINE, (cap * r->cell_size + CUZK_CACHELINE - 1) &
                                                 ~(size_t)(CUZK_CACHELINE - 1));
    if (!r->cells) return err_set(CUZK_ENOMEM, "ring: %zu cells of %zu bytes", cap, r->cell_size);
    for (size_t i = 0; i < cap; i++) atomic_init(CELL_SEQ(r, i), i);
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    return CUZK_OK;
}

void ring_destroy(ring *r)
{
    free(r->cells);
    r->cells = NULL;
}

size_t ring_capacity(const ring *r) { return r->mask + 1; }

int ring_push(ring *r, const void *elem)
{
    /* relaxed: the position is only a guess until the CAS below claims it */
    size_t pos = atomic_load_explicit(&r->head, memory_order_relaxed);
    for (;;) {
        _Atomic size_t *seq = CELL_SEQ(r, pos);
        /* acquire: pairs with the pop that freed this cell, so our write comes after its read */
        size_t s = atomic_load_explicit(seq, memory_order_acquire);
        intptr_t diff = (intptr_t)s - (intptr_t)pos;
        if (diff == 0) {
            /* relaxed: the cell's seq (acquire above, release below) orders the data */
            if (atomic_compare_exchange_weak_explicit(&r->head, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed)) {
                memcpy(CELL_DATA(seq), elem, r->elem_size);
                /* release: publishes the element to the pop that acquires seq */
                atomic_store_explicit(seq, pos + 1, memory_order_release);
                return 1;
            }
        } else if (diff < 0) {
            return 0; /* the cell still holds an element from one lap ago: full */
        } else {
            pos = atomic_load_explicit(&r->head, memory_order_relaxed);
        }
    }
}

void ring_push_wait(ring *r, const void *elem)
{
    /* Rare (a pop preempted between claiming a cell and releasing it, while the ring went
     * a whole lap around it): give that thread the CPU back rather than spin against it. */
    while (!ring_push(r, elem)) sched_yield();
}

int ring_pop(ring *r, void *elem)
{
    size_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed); /* a guess, as above */
    for (;;) {
        _Atomic size_t *seq = CELL_SEQ(r, pos);
        /* acquire: pairs with the push's release so the element's bytes are visible */
        size_t s = atomic_load_explicit(seq, memory_order_acquire);
        intptr_t diff = (intptr_t)s - (intptr_t)(pos + 1);
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&r->tail, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed)) {
                memcpy(elem, CELL_DATA(seq), r->elem_size);
                /* release: our read of the element happens before the next lap's write */
                atomic_store_explicit(seq, pos + r->mask + 1, memory_order_release);
                return 1;
            }
        } else if (diff < 0) {
            return 0; /* nothing pushed at this position yet: empty */
        } else {
            pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
        }
    }
}

size_t ring_count(const ring *r)
{
    /* relaxed: a snapshot for statistics and for "is there anything?" hints only */
    size_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    return h > t ? h - t : 0;
}
