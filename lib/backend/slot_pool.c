/* The worker-slot pool of one device (slot_pool.h). */
#include "backend/slot_pool.h"

void slot_pool_init(slot_pool *p)
{
    *p = (slot_pool){0};
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cv, NULL);
}

void slot_pool_destroy(slot_pool *p)
{
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->lock);
}

void slot_pool_add(slot_pool *p, uint32_t n)
{
    pthread_mutex_lock(&p->lock);
    if (n > SLOT_POOL_MAX - p->nslots) n = SLOT_POOL_MAX - p->nslots;
    p->nslots += n;
    p->nfree += n;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->lock);
}

/* The free urgent slot in `fits` to take, those in `prefer` first; -1: none. */
static int free_urgent(const slot_pool *p, uint32_t fits, uint32_t prefer)
{
    const uint32_t all = (1u << SLOT_POOL_URGENT_SLOTS) - 1, free = fits & all & ~p->urgent_taken;
    const uint32_t pick = free & prefer ? free & prefer : free;
    for (int j = 0; j < SLOT_POOL_URGENT_SLOTS; j++)
        if (pick >> j & 1) return j;
    return -1;
}

int slot_pool_take(slot_pool *p, int urgent, uint32_t own_fits) { return slot_pool_take_pref(p, urgent, own_fits, 0); }

int slot_pool_take_pref(slot_pool *p, int urgent, uint32_t own_fits, uint32_t prefer)
{
    int slot = SLOT_POOL_URGENT_AT(SLOT_POOL_URGENT_SLOTS); /* none yet (never returned) */
    pthread_mutex_lock(&p->lock);
    p->urgent_waiting += urgent != 0;
    p->waiting++;
    for (;;) {
        int j = urgent ? free_urgent(p, own_fits, prefer) : -1;
        if (j >= 0) {
            p->urgent_taken |= 1u << j;
            slot = SLOT_POOL_URGENT_AT(j);
            break;
        }
        if (p->nfree && (urgent || !p->urgent_waiting)) {
            uint32_t i = 0;
            while (i < p->nslots && p->busy[i]) i++;
            if (i < p->nslots) { /* always, as nfree > 0 */
                p->busy[i] = 1;
                p->nfree--;
                slot = (int)i;
                break;
            }
        }
        pthread_cond_wait(&p->cv, &p->lock);
    }
    p->waiting--;
    if (urgent && !--p->urgent_waiting) pthread_cond_broadcast(&p->cv); /* ordinary takers may go now */
    pthread_mutex_unlock(&p->lock);
    return slot;
}

int slot_pool_try_take_urgent(slot_pool *p, int j)
{
    if (j < 0 || j >= SLOT_POOL_URGENT_SLOTS) return 0;
    pthread_mutex_lock(&p->lock);
    const int took = !(p->urgent_taken >> j & 1) && !p->urgent_waiting;
    if (took) p->urgent_taken |= 1u << j;
    pthread_mutex_unlock(&p->lock);
    return took;
}

int slot_pool_try_take_shared(slot_pool *p, uint32_t i)
{
    pthread_mutex_lock(&p->lock);
    const int took = i < p->nslots && !p->busy[i] && !p->urgent_waiting;
    if (took) p->busy[i] = 1, p->nfree--;
    pthread_mutex_unlock(&p->lock);
    return took;
}

void slot_pool_give(slot_pool *p, int slot)
{
    /* the mutex orders the giver's writes to the slot before the next taker's */
    pthread_mutex_lock(&p->lock);
    if (slot < 0 && slot >= SLOT_POOL_URGENT_AT(SLOT_POOL_URGENT_SLOTS - 1))
        p->urgent_taken &= ~(1u << (SLOT_POOL_URGENT_AT(0) - slot));
    else if (slot >= 0 && (uint32_t)slot < p->nslots && p->busy[slot]) p->busy[slot] = 0, p->nfree++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->lock);
}

uint32_t slot_pool_waiting(slot_pool *p)
{
    pthread_mutex_lock(&p->lock);
    uint32_t w = p->waiting;
    pthread_mutex_unlock(&p->lock);
    return w;
}
