/*
 * The job tracker: a fixed table of slots named by 64-bit handles (engine tag, generation,
 * index) and the lock-free rings that move slot indices between owners — free slots, ready
 * work by priority level (FIFO within a level), work for the finishers, finished results.
 * Every change of owner is one CAS on the slot's control word; nothing here takes a lock.
 * The tracker knows nothing of what a job is: the engine keeps a parallel array of payloads.
 *
 * States: FREE -> RESERVED (tracker_alloc) -> QUEUED (tracker_enqueue) -> RUNNING (a worker's
 * tracker_dequeue) -> FINISHING (tracker_to_finish) -> DONE (tracker_mark_done, then
 * tracker_post) -> FREE (tracker_consume after tracker_poll). A QUEUED job canceled is
 * claimed by the canceling thread and handed to a finisher like any other; its ready-ring
 * entry stays behind and is skipped by the worker that pops it, and the slot is freed only
 * once that entry is gone (state CONSUMED in between), so each slot has at most one entry
 * in each ring and no ring can overflow.
 */
#ifndef CUZK_TRACKER_H
#define CUZK_TRACKER_H

#include <stdatomic.h>
#include <stdint.h>

#include "engine/ring.h"

#define TRACKER_MAX_CAPACITY (1u << 20)
#define TRACKER_LEVELS 8

enum { TRACKER_FREE = 0, TRACKER_RESERVED, TRACKER_QUEUED, TRACKER_RUNNING, TRACKER_FINISHING,
       TRACKER_DONE, TRACKER_CONSUMED };

typedef struct tracker_slot {
    /* gen (bits 32..63) | flags (bits 8..15) | state (bits 0..7) */
    _Alignas(CUZK_CACHELINE) _Atomic uint64_t ctl;
} tracker_slot;

typedef struct tracker {
    ring free_slots;                 /* uint32 indices of FREE slots               */
    ring ready[TRACKER_LEVELS];      /* handles of QUEUED slots, by level          */
    ring finish;                     /* handles of FINISHING slots                 */
    ring done;                       /* handles of DONE slots, for the pollers     */
    tracker_slot *slots;
    uint32_t capacity;
    uint32_t tag;                    /* 12 bits naming the engine in every handle  */
} tracker;

/* capacity in [1, TRACKER_MAX_CAPACITY]; tag in [1, 4095]. The tracker struct must sit
 * on a 64-byte boundary (the rings' indices are padded to cache lines). */
int tracker_init(tracker *t, uint32_t capacity, uint32_t tag);
void tracker_destroy(tracker *t);

static inline uint32_t tracker_index(uint64_t h) { return (uint32_t)(h & 0xfffffu); }

/* Submitter: takes a FREE slot (RESERVED, owned by the caller). 0 if all slots are in use. */
int tracker_alloc(tracker *t, uint64_t *handle);
/* Submitter: gives back a RESERVED slot that will not be enqueued. */
void tracker_unalloc(tracker *t, uint64_t handle);
/* Submitter: RESERVED -> QUEUED on ready level `level` (< TRACKER_LEVELS). After this the
 * caller no longer owns the slot. */
void tracker_enqueue(tracker *t, uint64_t handle, unsigned level);

/* Worker: the oldest QUEUED job of the highest non-empty level, now RUNNING and owned by
 * the caller. 0 if there is none (stale entries of canceled jobs are skipped here). */
int tracker_dequeue(tracker *t, uint64_t *handle);
/* The same among levels >= min_level only (an urgent worker's view of the queue). */
int tracker_dequeue_min(tracker *t, uint64_t *handle, unsigned min_level);
/* Is there any ready entry (at a level >= min_level)? A hint for idle loops. */
int tracker_has_ready(const tracker *t);
int tracker_has_ready_min(const tracker *t, unsigned min_level);

/* RUNNING -> FINISHING and onto the finish ring (the worker gives the job away). */
void tracker_to_finish(tracker *t, uint64_t handle);
/* Finisher: a FINISHING job, owned by the caller until tracker_post. 0 if none. */
int tracker_take_finish(tracker *t, uint64_t *handle);
/* FINISHING -> DONE. Returns 1 if a cancel was requested at any time before, else 0. The
 * caller still owns the payload and must call tracker_post next. */
int tracker_mark_done(tracker *t, uint64_t handle);
/* Publishes a DONE job to the pollers. */
void tracker_post(tracker *t, uint64_t handle);

/* Poller: a DONE job; read its payload, then tracker_consume. 0 if none. */
int tracker_poll(tracker *t, uint64_t *handle);
/* DONE -> FREE (or CONSUMED until its stale ready entry is popped). */
void tracker_consume(tracker *t, uint64_t handle);

/* Cancel: */
enum {
    TRACKER_CANCEL_CLAIMED = 1,   /* was QUEUED: now RUNNING (flagged), owned by the caller,
                                     who passes it on with tracker_to_finish                */
    TRACKER_CANCEL_FLAGGED = 2,   /* RUNNING or FINISHING: flagged, its owner will see it    */
    TRACKER_CANCEL_TOO_LATE = 3,  /* already DONE: its result is waiting for a poll          */
    TRACKER_NOT_FOUND = 0         /* stale, foreign, never issued, or its result polled
                                     (CONSUMED: the slot waits only for a stale ready entry) */
};
int tracker_cancel(tracker *t, uint64_t handle);
/* Has a cancel been requested for this job (owner's check between stages)? */
int tracker_cancel_requested(const tracker *t, uint64_t handle);
/* Is the handle one this tracker issued and still live (not FREE, same generation)? */
int tracker_valid(const tracker *t, uint64_t handle);
int tracker_state(const tracker *t, uint64_t handle); /* TRACKER_* or -1 if stale */

#endif
