/*
 * The worker-slot pool (lib/backend/slot_pool.c) that decides which CUDA worker gets a device
 * slot: here with threads and no GPU. An urgent taker must get the next freed slot ahead of
 * ordinary takers that waited longer (on the H200 an urgent worker once waited 14 s behind
 * the backlog's workers re-taking every freed slot), take its own slot beside busy shared
 * ones, and never hand one slot to two takers.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdatomic.h>
#include <time.h>
#include <cmocka.h>

#include "backend/slot_pool.h"
#include "support/testutil.h"

typedef struct taker {
    slot_pool *p;
    int urgent, own_fits;
    pthread_t th;
    int slot;
    int _Atomic done;
} taker;

static void *take_main(void *arg)
{
    taker *t = arg;
    t->slot = slot_pool_take(t->p, t->urgent, t->own_fits);
    atomic_store(&t->done, 1);
    return NULL;
}

static void start(taker *t, slot_pool *p, int urgent, int own_fits)
{
    *t = (taker){.p = p, .urgent = urgent, .own_fits = own_fits, .slot = -9};
    assert_int_equal(pthread_create(&t->th, NULL, take_main, t), 0);
}

/* Until n takers wait (each test waits for what it has just started; up to ~20 s on a loaded
 * machine, at once otherwise). */
static void wait_waiting(slot_pool *p, uint32_t n)
{
    for (int i = 0; i < 200000 && slot_pool_waiting(p) != n; i++) nanosleep(&(struct timespec){0, 100000}, NULL);
    assert_int_equal(slot_pool_waiting(p), n);
}

/* Joins a taker that must get its slot now (fails, not hangs, when it does not). */
static void join(taker *t)
{
    for (int i = 0; i < 200000 && !atomic_load(&t->done); i++) nanosleep(&(struct timespec){0, 100000}, NULL);
    if (!atomic_load(&t->done)) fail_msg("a taker that should have its slot still waits");
    assert_int_equal(pthread_join(t->th, NULL), 0);
}

static void shared_slots_and_wait(void **state)
{
    (void)state;
    slot_pool p;
    slot_pool_init(&p);
    slot_pool_add(&p, 2);
    int a = slot_pool_take(&p, 0, 0), b = slot_pool_take(&p, 0, 0);
    assert_true(a >= 0 && b >= 0 && a != b);
    taker t;
    start(&t, &p, 0, 0);
    wait_waiting(&p, 1);
    assert_int_equal(atomic_load(&t.done), 0); /* both busy: it waits */
    slot_pool_give(&p, b);
    join(&t);
    assert_int_equal(t.slot, b);
    slot_pool_give(&p, a);
    slot_pool_give(&p, t.slot);
    slot_pool_give(&p, t.slot); /* a second give of a free slot changes nothing */
    assert_int_equal(p.nfree, 2);
    slot_pool_destroy(&p);
}

/* Ordinary takers waited first; the urgent one still gets the freed slot, and they the next. */
static void urgent_first_for_a_freed_slot(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        slot_pool p;
        slot_pool_init(&p);
        slot_pool_add(&p, 1);
        int held = slot_pool_take(&p, 0, 0);
        taker o[2], u;
        start(&o[0], &p, 0, 0);
        start(&o[1], &p, 0, 0);
        wait_waiting(&p, 2);
        start(&u, &p, 1, 0); /* its own slot does not fit: it needs a shared one */
        wait_waiting(&p, 3);
        slot_pool_give(&p, held);
        /* the urgent taker gets it, not the ordinary ones waiting longer */
        for (int i = 0; i < 200000 && !atomic_load(&u.done) && !atomic_load(&o[0].done) && !atomic_load(&o[1].done); i++)
            nanosleep(&(struct timespec){0, 100000}, NULL);
        if (atomic_load(&o[0].done) || atomic_load(&o[1].done)) fail_msg("round %d: an ordinary taker got the slot first", round);
        join(&u);
        assert_int_equal(u.slot, held);
        assert_int_equal(atomic_load(&o[0].done) + atomic_load(&o[1].done), 0);
        slot_pool_give(&p, u.slot);
        wait_waiting(&p, 1); /* one ordinary taker got it ... */
        while (!atomic_load(&o[0].done) && !atomic_load(&o[1].done)) /* ... and has said which */
            nanosleep(&(struct timespec){0, 100000}, NULL);
        int first = atomic_load(&o[0].done) ? 0 : 1;
        slot_pool_give(&p, o[first].slot);
        join(&o[0]);
        join(&o[1]);
        slot_pool_give(&p, o[1 - first].slot);
        assert_int_equal(p.nfree, 1);
        slot_pool_destroy(&p);
    }
}

/* The urgent slot: taken beside busy shared slots; a second urgent taker gets whichever of it
 * and a shared slot frees first; an ordinary taker never gets it. */
static void urgent_own_slot(void **state)
{
    (void)state;
    slot_pool p;
    slot_pool_init(&p);
    slot_pool_add(&p, 1);
    int s = slot_pool_take(&p, 0, 0);
    assert_int_equal(slot_pool_take(&p, 1, 1), SLOT_POOL_URGENT);
    taker u2, o;
    start(&u2, &p, 1, 1);
    wait_waiting(&p, 1);
    slot_pool_give(&p, s); /* the shared one frees first */
    join(&u2);
    assert_int_equal(u2.slot, s);
    start(&o, &p, 0, 0);
    wait_waiting(&p, 1);
    slot_pool_give(&p, SLOT_POOL_URGENT); /* not for an ordinary taker */
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    assert_int_equal(atomic_load(&o.done), 0);
    assert_int_equal(slot_pool_take(&p, 1, 1), SLOT_POOL_URGENT);
    slot_pool_give(&p, u2.slot);
    join(&o);
    assert_int_equal(o.slot, s);
    slot_pool_give(&p, o.slot);
    slot_pool_give(&p, SLOT_POOL_URGENT);
    slot_pool_destroy(&p);
}

/* Many takers of both kinds: a slot is never held twice at once. */
typedef struct churn {
    slot_pool *p;
    int urgent, id;
    int _Atomic *owner;
    int _Atomic *twice; /* a slot held twice: said to the test's thread (cmocka fails only there) */
} churn;

static void *churn_main(void *arg)
{
    churn *c = arg;
    for (int i = 0; i < 2000; i++) {
        int s = slot_pool_take_pref(c->p, c->urgent, c->urgent ? 3u : 0u, (uint32_t)i & 2u);
        int k = s < 0 ? SLOT_POOL_MAX + (SLOT_POOL_URGENT_AT(0) - s) : s, none = -1;
        if (!atomic_compare_exchange_strong(&c->owner[k], &none, c->id)) {
            atomic_store(c->twice, s);
            slot_pool_give(c->p, s);
            continue;
        }
        atomic_store(&c->owner[k], -1);
        slot_pool_give(c->p, s);
    }
    return NULL;
}

static void no_slot_twice(void **state)
{
    (void)state;
    slot_pool p;
    slot_pool_init(&p);
    slot_pool_add(&p, 2);
    int _Atomic owner[SLOT_POOL_MAX + SLOT_POOL_URGENT_SLOTS], twice = -9;
    for (int i = 0; i < SLOT_POOL_MAX + SLOT_POOL_URGENT_SLOTS; i++) atomic_init(&owner[i], -1);
    pthread_t th[6];
    churn c[6];
    for (int i = 0; i < 6; i++) {
        c[i] = (churn){&p, i >= 4, i, owner, &twice};
        assert_int_equal(pthread_create(&th[i], NULL, churn_main, &c[i]), 0);
    }
    for (int i = 0; i < 6; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    if (atomic_load(&twice) != -9) fail_msg("slot %d held twice", atomic_load(&twice));
    assert_int_equal(p.nfree, 2);
    assert_int_equal(p.urgent_taken, 0);
    slot_pool_destroy(&p);
}

/* Two urgent slots (WinningPoSt beside a running WindowPoSt): the preferred one first, then
 * the other that fits; a taker that fits only a busy one waits for it (or a shared slot), not
 * for the other; an ordinary taker gets neither. */
static void two_urgent_slots(void **state)
{
    (void)state;
    slot_pool p;
    slot_pool_init(&p);
    slot_pool_add(&p, 1);
    int shared = slot_pool_take(&p, 0, 0);
    assert_int_equal(slot_pool_take_pref(&p, 1, 3, 2), SLOT_POOL_URGENT_AT(1)); /* preferred */
    assert_int_equal(slot_pool_take_pref(&p, 1, 3, 2), SLOT_POOL_URGENT_AT(0)); /* the other fits */
    taker u;
    start(&u, &p, 1, 1); /* fits slot 0 only */
    wait_waiting(&p, 1);
    slot_pool_give(&p, SLOT_POOL_URGENT_AT(1));
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    assert_int_equal(atomic_load(&u.done), 0);
    taker o;
    start(&o, &p, 0, 0);
    wait_waiting(&p, 2);
    slot_pool_give(&p, SLOT_POOL_URGENT_AT(0));
    join(&u);
    assert_int_equal(u.slot, SLOT_POOL_URGENT_AT(0));
    assert_int_equal(atomic_load(&o.done), 0); /* no urgent slot for it */
    slot_pool_give(&p, shared);
    join(&o);
    assert_int_equal(o.slot, shared);
    slot_pool_give(&p, o.slot);
    slot_pool_give(&p, u.slot);
    assert_int_equal(p.urgent_taken, 0);
    assert_int_equal(p.nfree, 1);
    slot_pool_destroy(&p);
}

/* A key's release takes its urgent slot only while nobody holds it or waits for an urgent
 * slot (never waits: the releasing thread may be a finisher), and a taker meanwhile does not
 * get it. */
static void try_take_urgent(void **state)
{
    (void)state;
    slot_pool p;
    slot_pool_init(&p);
    slot_pool_add(&p, 1);
    assert_int_equal(slot_pool_take_pref(&p, 1, 2, 2), SLOT_POOL_URGENT_AT(1));
    assert_int_equal(slot_pool_try_take_urgent(&p, 1), 0); /* held */
    assert_int_equal(slot_pool_try_take_urgent(&p, 0), 1); /* free: taken */
    assert_int_equal(slot_pool_try_take_urgent(&p, 0), 0);
    assert_int_equal(slot_pool_try_take_urgent(&p, 2), 0); /* no such slot */
    assert_int_equal(slot_pool_try_take_urgent(&p, -1), 0);
    assert_int_equal(slot_pool_take_pref(&p, 1, 1, 1), 0); /* slot 0 held: a shared one */
    slot_pool_give(&p, SLOT_POOL_URGENT_AT(1));
    taker u; /* an urgent taker for slot 0 (or the shared one), waiting */
    start(&u, &p, 1, 1);
    wait_waiting(&p, 1);
    assert_int_equal(slot_pool_try_take_urgent(&p, 1), 0); /* free, but an urgent taker waits */
    slot_pool_give(&p, 0);
    join(&u);
    assert_int_equal(u.slot, 0);
    slot_pool_give(&p, u.slot);
    assert_int_equal(slot_pool_try_take_urgent(&p, 1), 1);
    slot_pool_give(&p, SLOT_POOL_URGENT_AT(0));
    slot_pool_give(&p, SLOT_POOL_URGENT_AT(1));
    assert_int_equal(p.urgent_taken, 0);
    assert_int_equal(p.nfree, 1);
    slot_pool_destroy(&p);
}

/* A constraint system's release takes an idle shared slot to trim its buffers: only while
 * nobody holds it, never waiting; a taker waiting meanwhile gets it once given back. */
static void try_take_shared(void **state)
{
    (void)state;
    slot_pool p;
    slot_pool_init(&p);
    assert_int_equal(slot_pool_try_take_shared(&p, 0), 0); /* no slots yet */
    slot_pool_add(&p, 2);
    assert_int_equal(slot_pool_take(&p, 0, 0), 0);
    assert_int_equal(slot_pool_try_take_shared(&p, 0), 0); /* held */
    assert_int_equal(slot_pool_try_take_shared(&p, 2), 0); /* no such slot */
    assert_int_equal(slot_pool_try_take_shared(&p, 1), 1); /* free: taken */
    assert_int_equal(p.nfree, 0);
    assert_int_equal(slot_pool_try_take_shared(&p, 1), 0);
    taker u; /* an ordinary taker, waiting for either */
    start(&u, &p, 0, 0);
    wait_waiting(&p, 1);
    slot_pool_give(&p, 1);
    join(&u);
    assert_int_equal(u.slot, 1);
    slot_pool_give(&p, u.slot);
    slot_pool_give(&p, 0);
    assert_int_equal(p.nfree, 2);
    slot_pool_destroy(&p);
}

int main(void)
{
    test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_slots_and_wait),
        cmocka_unit_test(urgent_first_for_a_freed_slot),
        cmocka_unit_test(urgent_own_slot),
        cmocka_unit_test(two_urgent_slots),
        cmocka_unit_test(try_take_urgent),
        cmocka_unit_test(try_take_shared),
        cmocka_unit_test(no_slot_twice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
