/* The bounded MPMC ring: FIFO order, full/empty edges, wrap-around laps, element sizes, and
 * a multi-producer multi-consumer stress that fails on any lost, duplicated or reordered
 * item (each consumer must see each producer's items in increasing order). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "engine/ring.h"
#include "support/testutil.h"

static int quick(void) { return getenv("CUZK_TEST_QUICK") != NULL; }

static void fifo_full_empty(void **state)
{
    (void)state;
    ring r;
    assert_int_equal(ring_init(&r, 5, sizeof(uint64_t)), CUZK_OK);
    assert_int_equal(ring_capacity(&r), 8); /* rounded up to a power of two */
    uint64_t v;
    assert_int_equal(ring_pop_u64(&r, &v), 0);
    for (uint64_t i = 0; i < 8; i++) assert_int_equal(ring_push_u64(&r, 100 + i), 1);
    assert_int_equal(ring_push_u64(&r, 999), 0); /* full: refused, not overwritten */
    assert_int_equal(ring_count(&r), 8);
    for (uint64_t i = 0; i < 8; i++) {
        assert_int_equal(ring_pop_u64(&r, &v), 1);
        assert_int_equal(v, 100 + i);
    }
    assert_int_equal(ring_pop_u64(&r, &v), 0);
    /* many laps with a varying fill level, against a plain array queue as the oracle */
    uint64_t model[8], head = 0, tail = 0, next = 0;
    test_seed();
    for (int step = 0; step < 100000; step++) {
        if (test_rand64() % 2) {
            int ok = ring_push_u64(&r, next);
            assert_int_equal(ok, tail - head < 8);
            if (ok) model[tail++ % 8] = next++;
        } else {
            int ok = ring_pop_u64(&r, &v);
            assert_int_equal(ok, tail > head);
            if (ok) assert_int_equal(v, model[head++ % 8]);
        }
    }
    ring_destroy(&r);
}

static void element_sizes_and_bad_args(void **state)
{
    (void)state;
    ring r;
    assert_int_equal(ring_init(&r, 4, 0), CUZK_EINVAL);
    assert_int_equal(ring_init(&r, 4, 5000), CUZK_EINVAL);
    size_t sizes[] = {1, 13, 72, 200};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        assert_int_equal(ring_init(&r, 3, sizes[k]), CUZK_OK);
        assert_int_equal(ring_capacity(&r), 4);
        unsigned char in[200], out[200];
        for (int lap = 0; lap < 10; lap++) {
            for (int i = 0; i < 4; i++) {
                memset(in, lap * 4 + i, sizes[k]);
                assert_int_equal(ring_push(&r, in), 1);
            }
            for (int i = 0; i < 4; i++) {
                memset(out, 0xee, sizeof out);
                assert_int_equal(ring_pop(&r, out), 1);
                memset(in, lap * 4 + i, sizes[k]);
                assert_memory_equal(in, out, sizes[k]);
                assert_int_equal(out[sizes[k] < 200 ? sizes[k] : 199], sizes[k] < 200 ? 0xee : in[199]);
            }
        }
        ring_destroy(&r);
    }
}

/* A pop preempted between claiming its cell and releasing it, while other pops finished
 * after it and the ring went a lap around: ring_push refuses although the ring holds
 * fewer elements than its capacity; ring_push_wait waits for that pop to finish. The
 * stalled pop is simulated by claiming a position by hand. */
static ring *stalled_ring;
static void *finish_stalled_pop(void *arg)
{
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
    /* what ring_pop does after its CAS: release the cell for the next lap */
    _Atomic size_t *seq = (_Atomic size_t *)stalled_ring->cells;
    atomic_store(seq, (size_t)(uintptr_t)arg);
    return NULL;
}

static void stalled_pop_blocks_one_cell(void **state)
{
    (void)state;
    ring r;
    assert_int_equal(ring_init(&r, 4, sizeof(uint64_t)), CUZK_OK);
    for (uint64_t i = 0; i < 4; i++) assert_int_equal(ring_push_u64(&r, i), 1);
    size_t pos = 0; /* "pop" position 0: claim it, never release it (yet) */
    assert_true(atomic_compare_exchange_strong(&r.tail, &pos, 1));
    uint64_t v;
    for (uint64_t i = 1; i < 4; i++) {
        assert_int_equal(ring_pop_u64(&r, &v), 1);
        assert_int_equal(v, i);
    }
    /* three cells are free and the ring holds nothing, yet the next push needs cell 0 */
    assert_int_equal(ring_push_u64(&r, 10), 0);
    stalled_ring = &r;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, finish_stalled_pop, (void *)(uintptr_t)(0 + r.mask + 1)), 0);
    ring_push_wait(&r, &(uint64_t){10}); /* returns once the stalled pop lets go */
    pthread_join(t, NULL);
    for (uint64_t i = 11; i < 14; i++) assert_int_equal(ring_push_u64(&r, i), 1);
    for (uint64_t i = 10; i < 14; i++) {
        assert_int_equal(ring_pop_u64(&r, &v), 1);
        assert_int_equal(v, i);
    }
    ring_destroy(&r);
}

#define PRODUCERS 4
#define CONSUMERS 4

typedef struct {
    ring *r;
    int id;
    uint64_t n;
    _Atomic uint32_t *seen; /* [PRODUCERS * n] */
    _Atomic int *failed;
} mpmc_arg;

static void *producer(void *p)
{
    mpmc_arg *a = p;
    for (uint64_t i = 0; i < a->n; i++) {
        uint64_t v = ((uint64_t)a->id << 40) | i;
        while (!ring_push_u64(a->r, v)) sched_yield();
    }
    return NULL;
}

static _Atomic uint64_t consumed;

static void *consumer(void *p)
{
    mpmc_arg *a = p;
    uint64_t last[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) last[i] = UINT64_MAX;
    const uint64_t total = a->n * PRODUCERS;
    while (atomic_load(&consumed) < total) {
        uint64_t v;
        if (!ring_pop_u64(a->r, &v)) {
            sched_yield();
            continue;
        }
        atomic_fetch_add(&consumed, 1);
        unsigned prod = (unsigned)(v >> 40);
        uint64_t seq = v & ((1ull << 40) - 1);
        if (prod >= PRODUCERS || seq >= a->n) { atomic_store(a->failed, 1); continue; }
        if (last[prod] != UINT64_MAX && seq <= last[prod]) atomic_store(a->failed, 2); /* reordered */
        last[prod] = seq;
        if (atomic_fetch_add(&a->seen[prod * a->n + seq], 1) != 0) atomic_store(a->failed, 3); /* twice */
    }
    return NULL;
}

static void mpmc_stress(void **state)
{
    (void)state;
    ring r;
    assert_int_equal(ring_init(&r, 64, sizeof(uint64_t)), CUZK_OK); /* small: full and empty often */
    uint64_t n = quick() ? 20000 : 200000;
    _Atomic uint32_t *seen = calloc(PRODUCERS * n, sizeof *seen);
    _Atomic int failed = 0;
    assert_non_null(seen);
    atomic_store(&consumed, 0);
    pthread_t t[PRODUCERS + CONSUMERS];
    mpmc_arg args[PRODUCERS + CONSUMERS];
    for (int i = 0; i < PRODUCERS + CONSUMERS; i++) {
        args[i] = (mpmc_arg){&r, i < PRODUCERS ? i : i - PRODUCERS, n, seen, &failed};
        assert_int_equal(pthread_create(&t[i], NULL, i < PRODUCERS ? producer : consumer, &args[i]), 0);
    }
    for (int i = 0; i < PRODUCERS + CONSUMERS; i++) pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&failed), 0);
    for (uint64_t i = 0; i < PRODUCERS * n; i++)
        if (atomic_load(&seen[i]) != 1) fail_msg("item %llu seen %u times", (unsigned long long)i, atomic_load(&seen[i]));
    uint64_t v;
    assert_int_equal(ring_pop_u64(&r, &v), 0);
    free(seen);
    ring_destroy(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fifo_full_empty),
        cmocka_unit_test(element_sizes_and_bad_args),
        cmocka_unit_test(stalled_pop_blocks_one_cell),
        cmocka_unit_test(mpmc_stress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
