/*
 * Who takes which worker slot of one device, and in what order: the shared slots every
 * worker may use, the urgent workers' own slots, and urgent waiters ahead of ordinary ones.
 * A mutex and a condition per device, taken twice per partition (acquire, release) — a wait
 * happens only when every usable slot is busy. Pure C with no device calls: the CUDA backend
 * maps the indices to its slots; test_slot_pool checks the order on the CPU.
 */
#ifndef CUZK_SLOT_POOL_H
#define CUZK_SLOT_POOL_H

#include <pthread.h>
#include <stdint.h>

#define SLOT_POOL_MAX 8
#define SLOT_POOL_URGENT_SLOTS 2
#define SLOT_POOL_URGENT_AT(j) (-1 - (j)) /* slot_pool_take: urgent slot j (0 or 1)      */
#define SLOT_POOL_URGENT SLOT_POOL_URGENT_AT(0)

typedef struct slot_pool {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    uint32_t nslots;          /* shared slots made so far (slot_pool_add)                 */
    uint32_t nfree;
    uint8_t busy[SLOT_POOL_MAX];
    uint32_t urgent_taken;    /* bit j: urgent slot j is taken                             */
    uint32_t urgent_waiting;  /* urgent takers waiting: ordinary ones leave slots to them */
    uint32_t waiting;         /* every taker waiting (tests and statistics)               */
} slot_pool;

void slot_pool_init(slot_pool *p);
void slot_pool_destroy(slot_pool *p);
/* n more shared slots (at most SLOT_POOL_MAX in all), free. */
void slot_pool_add(slot_pool *p, uint32_t n);
/* Waits for a slot: an urgent taker (urgent != 0) takes a free urgent slot j whose bit is set
 * in own_fits (bit j: it can run this partition), those in prefer first (their buffers have
 * this partition's layout: no reallocation), else the
 * first shared slot freed; an ordinary taker takes a shared slot only while no urgent taker
 * waits. Returns the shared slot's index or SLOT_POOL_URGENT_AT(j). */
int slot_pool_take_pref(slot_pool *p, int urgent, uint32_t own_fits, uint32_t prefer);
/* slot_pool_take_pref with no preference. */
int slot_pool_take(slot_pool *p, int urgent, uint32_t own_fits);
/* Takes urgent slot j if it is free now and no urgent taker waits (it may want it), without
 * waiting: 1 taken (give it back with slot_pool_give(p, SLOT_POOL_URGENT_AT(j))), 0 not. */
int slot_pool_try_take_urgent(slot_pool *p, int j);
/* Takes shared slot i if it is free now and no urgent taker waits, without waiting (a
 * release trimming an idle slot's buffers): 1 taken (give it back with slot_pool_give(p, i)),
 * 0 not. */
int slot_pool_try_take_shared(slot_pool *p, uint32_t i);
/* Gives back what slot_pool_take returned. */
void slot_pool_give(slot_pool *p, int slot);
/* Takers waiting now (a snapshot). */
uint32_t slot_pool_waiting(slot_pool *p);

#endif
