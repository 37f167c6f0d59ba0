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

int slot_pool_take(slot_pool *p, int urgent, int own_fits)
{
    int slot = -2;
    pthread_mutex_lock(&p->lock);
    p->urgent_waiting += urgent != 0;
    p->waiting++;
    for (;;) {
        if (urgent && own_fits && !p->urgent_taken) {
            p->urgent_taken = 1;
            slot = SLOT_POOL_URGENT;
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

void slot_pool_give(slot_pool *p, int slot)
{
    /* the mutex orders the giver's writes to the slot before the next taker's */
    pthread_mutex_lock(&p->lock);
    if (slot == SLOT_POOL_URGENT) p->urgent_taken = 0;
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
