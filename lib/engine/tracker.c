/* The slot table's state machine (see tracker.h). Each transition is a CAS on the slot's
 * control word; the rings carry handles between owners and publish the payload (their
 * push/pop are release/acquire), so the control word itself can use acquire/release. */
#include "engine/tracker.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

#define ST_MASK 0xffu
#define F_IN_READY (1u << 8) /* an entry for this slot sits in a ready ring */
#define F_CANCEL (1u << 9)   /* a cancel was requested while RUNNING or FINISHING */

static inline uint64_t mk_handle(const tracker *t, uint32_t gen, uint32_t idx)
{
    return ((uint64_t)t->tag << 52) | ((uint64_t)gen << 20) | idx;
}
static inline uint32_t h_gen(uint64_t h) { return (uint32_t)(h >> 20); }
static inline uint32_t h_tag(uint64_t h) { return (uint32_t)(h >> 52); }
static inline uint32_t c_gen(uint64_t c) { return (uint32_t)(c >> 32); }
static inline unsigned c_state(uint64_t c) { return (unsigned)(c & ST_MASK); }
static inline uint64_t mk_ctl(uint32_t gen, unsigned flags, unsigned state)
{
    return ((uint64_t)gen << 32) | flags | state;
}

int tracker_init(tracker *t, uint32_t capacity, uint32_t tag)
{
    memset(t, 0, sizeof *t);
    if (capacity == 0 || capacity > TRACKER_MAX_CAPACITY || tag == 0 || tag > 4095)
        return err_set(CUZK_EINVAL, "tracker: capacity %u (1..%u) or tag %u (1..4095) out of range",
                       capacity, TRACKER_MAX_CAPACITY, tag);
    t->capacity = capacity;
    t->tag = tag;
    t->slots = aligned_alloc(CUZK_CACHELINE, (size_t)capacity * sizeof *t->slots);
    if (!t->slots) return err_set(CUZK_ENOMEM, "tracker: %u slots", capacity);
    /* Twice the slots: a ring can refuse a push while a preempted pop of the previous lap
     * holds a cell (ring.h); with room for two laps that needs a far longer stall, and
     * ring_push_wait covers the rest. */
    size_t cells = 2 * (size_t)capacity;
    int rc = ring_init(&t->free_slots, cells, sizeof(uint32_t));
    for (unsigned l = 0; rc == CUZK_OK && l < TRACKER_LEVELS; l++)
        rc = ring_init(&t->ready[l], cells, sizeof(uint64_t));
    if (rc == CUZK_OK) rc = ring_init(&t->finish, cells, sizeof(uint64_t));
    if (rc == CUZK_OK) rc = ring_init(&t->done, cells, sizeof(uint64_t));
    if (rc != CUZK_OK) {
        tracker_destroy(t);
        return rc;
    }
    for (uint32_t i = 0; i < capacity; i++) {
        atomic_init(&t->slots[i].ctl, mk_ctl(1, 0, TRACKER_FREE));
        ring_push_wait(&t->free_slots, &i);
    }
    return CUZK_OK;
}

void tracker_destroy(tracker *t)
{
    ring_destroy(&t->free_slots);
    for (unsigned l = 0; l < TRACKER_LEVELS; l++) ring_destroy(&t->ready[l]);
    ring_destroy(&t->finish);
    ring_destroy(&t->done);
    free(t->slots);
    t->slots = NULL;
}

/* The slot a handle names, if the tag and index fit this tracker; NULL otherwise. */
static tracker_slot *slot_of(const tracker *t, uint64_t h)
{
    uint32_t idx = tracker_index(h);
    if (h_tag(h) != t->tag || idx >= t->capacity) return NULL;
    return &t->slots[idx];
}

static void free_slot(tracker *t, uint32_t idx, uint32_t gen)
{
    /* release: the payload's last reader (poller) is done before the slot can be reused */
    atomic_store_explicit(&t->slots[idx].ctl, mk_ctl(gen + 1, 0, TRACKER_FREE), memory_order_release);
    ring_push_wait(&t->free_slots, &idx); /* never truly full: one entry per slot */
}

int tracker_alloc(tracker *t, uint64_t *handle)
{
    uint32_t idx;
    if (!ring_pop(&t->free_slots, &idx)) return 0;
    tracker_slot *s = &t->slots[idx];
    /* relaxed: the free ring's acquire already ordered us after free_slot's store */
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
    atomic_store_explicit(&s->ctl, mk_ctl(c_gen(c), 0, TRACKER_RESERVED), memory_order_relaxed);
    *handle = mk_handle(t, c_gen(c), idx);
    return 1;
}

void tracker_unalloc(tracker *t, uint64_t h)
{
    free_slot(t, tracker_index(h), h_gen(h));
}

void tracker_enqueue(tracker *t, uint64_t h, unsigned level)
{
    tracker_slot *s = &t->slots[tracker_index(h)];
    /* release: the payload written by the submitter is visible to whoever claims QUEUED */
    atomic_store_explicit(&s->ctl, mk_ctl(h_gen(h), F_IN_READY, TRACKER_QUEUED), memory_order_release);
    ring_push_wait(&t->ready[level < TRACKER_LEVELS ? level : TRACKER_LEVELS - 1], &h);
}

int tracker_has_ready_min(const tracker *t, unsigned min_level)
{
    for (int l = TRACKER_LEVELS - 1; l >= (int)min_level; l--)
        if (ring_count(&t->ready[l])) return 1;
    return 0;
}

int tracker_has_ready(const tracker *t) { return tracker_has_ready_min(t, 0); }

/* A ready entry was popped: clear IN_READY and claim the job if it is still QUEUED.
 * Returns 1 if the caller now owns a RUNNING job. */
static int claim_ready(tracker *t, uint64_t h)
{
    tracker_slot *s = &t->slots[tracker_index(h)];
    /* acquire: pairs with tracker_enqueue's release (payload) and with cancel/poll CASes */
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_acquire);
    for (;;) {
        unsigned st = c_state(c), fl = (unsigned)(c & ~ST_MASK & 0xffffffffu);
        uint64_t next;
        if (st == TRACKER_QUEUED) next = mk_ctl(c_gen(c), 0, TRACKER_RUNNING);
        else if (st == TRACKER_CONSUMED) next = mk_ctl(c_gen(c), 0, TRACKER_FREE);
        else next = mk_ctl(c_gen(c), fl & ~F_IN_READY, st);
        if (atomic_compare_exchange_weak_explicit(&s->ctl, &c, next, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            if (st == TRACKER_CONSUMED) free_slot(t, tracker_index(h), c_gen(c));
            return st == TRACKER_QUEUED;
        }
    }
}

int tracker_dequeue_min(tracker *t, uint64_t *handle, unsigned min_level)
{
    for (int l = TRACKER_LEVELS - 1; l >= (int)min_level; l--) {
        uint64_t h;
        while (ring_pop(&t->ready[l], &h)) {
            if (claim_ready(t, h)) {
                *handle = h;
                return 1;
            }
        }
    }
    return 0;
}

int tracker_dequeue(tracker *t, uint64_t *handle) { return tracker_dequeue_min(t, handle, 0); }

void tracker_to_finish(tracker *t, uint64_t h)
{
    tracker_slot *s = &t->slots[tracker_index(h)];
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed); /* owner: CAS re-checks */
    while (!atomic_compare_exchange_weak_explicit(&s->ctl, &c,
                                                  (c & ~(uint64_t)ST_MASK) | TRACKER_FINISHING,
                                                  memory_order_release, memory_order_relaxed)) {
    }
    ring_push_wait(&t->finish, &h);
}

int tracker_take_finish(tracker *t, uint64_t *handle) { return ring_pop(&t->finish, handle); }

int tracker_mark_done(tracker *t, uint64_t h)
{
    tracker_slot *s = &t->slots[tracker_index(h)];
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed); /* owner: CAS re-checks */
    for (;;) {
        unsigned fl = (unsigned)(c & ~ST_MASK & 0xffffffffu);
        /* IN_READY survives (a canceled-while-queued job's entry may still be in a ring) */
        uint64_t next = mk_ctl(c_gen(c), fl & F_IN_READY, TRACKER_DONE);
        if (atomic_compare_exchange_weak_explicit(&s->ctl, &c, next, memory_order_acq_rel,
                                                  memory_order_relaxed))
            return (fl & F_CANCEL) != 0;
    }
}

void tracker_post(tracker *t, uint64_t h) { ring_push_wait(&t->done, &h); }

int tracker_poll(tracker *t, uint64_t *handle) { return ring_pop(&t->done, handle); }

void tracker_consume(tracker *t, uint64_t h)
{
    tracker_slot *s = &t->slots[tracker_index(h)];
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed); /* owner: CAS re-checks */
    for (;;) {
        int in_ready = (c & F_IN_READY) != 0;
        uint64_t next = in_ready ? mk_ctl(c_gen(c), F_IN_READY, TRACKER_CONSUMED)
                                 : mk_ctl(c_gen(c), 0, TRACKER_FREE);
        if (atomic_compare_exchange_weak_explicit(&s->ctl, &c, next, memory_order_acq_rel,
                                                  memory_order_relaxed)) {
            if (!in_ready) free_slot(t, tracker_index(h), c_gen(c));
            return;
        }
    }
}

int tracker_cancel(tracker *t, uint64_t h)
{
    tracker_slot *s = slot_of(t, h);
    if (!s) return TRACKER_NOT_FOUND;
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_acquire);
    for (;;) {
        if (c_gen(c) != h_gen(h)) return TRACKER_NOT_FOUND;
        unsigned st = c_state(c);
        uint64_t next;
        int outcome;
        switch (st) {
        case TRACKER_QUEUED:
            /* the caller owns it now (RUNNING) and hands it to a finisher; IN_READY stays */
            next = (c & ~(uint64_t)ST_MASK) | F_CANCEL | TRACKER_RUNNING;
            outcome = TRACKER_CANCEL_CLAIMED;
            break;
        case TRACKER_RUNNING:
        case TRACKER_FINISHING:
            if (c & F_CANCEL) return TRACKER_CANCEL_FLAGGED;
            next = c | F_CANCEL;
            outcome = TRACKER_CANCEL_FLAGGED;
            break;
        case TRACKER_DONE:
            return TRACKER_CANCEL_TOO_LATE;
        case TRACKER_CONSUMED: /* polled: only a stale ready entry keeps the slot from FREE */
            return TRACKER_NOT_FOUND;
        default: /* FREE, or RESERVED (a handle not yet handed out) */
            return TRACKER_NOT_FOUND;
        }
        if (atomic_compare_exchange_weak_explicit(&s->ctl, &c, next, memory_order_acq_rel,
                                                  memory_order_acquire))
            return outcome;
    }
}

int tracker_cancel_requested(const tracker *t, uint64_t h)
{
    /* relaxed: a hint polled between stages; tracker_mark_done gives the final answer */
    uint64_t c = atomic_load_explicit(&t->slots[tracker_index(h)].ctl, memory_order_relaxed);
    return c_gen(c) == h_gen(h) && (c & F_CANCEL);
}

int tracker_state(const tracker *t, uint64_t h)
{
    tracker_slot *s = slot_of(t, h);
    if (!s) return -1;
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_acquire);
    if (c_gen(c) != h_gen(h)) return -1;
    return (int)c_state(c);
}

int tracker_valid(const tracker *t, uint64_t h)
{
    int st = tracker_state(t, h);
    return st > TRACKER_RESERVED;
}
