/*
 * Shared helpers for the tests: a seeded random generator whose seed is printed (and can
 * be forced with CUZK_TEST_SEED=...) so any failure can be replayed.
 */
#ifndef CUZK_TESTUTIL_H
#define CUZK_TESTUTIL_H

#include <stdint.h>

/* Seeds from CUZK_TEST_SEED or the clock, prints "seed: 0x..." once, returns the seed. */
uint64_t test_seed(void);
uint64_t test_rand64(void);             /* xoshiro256** stream from the seed */
void test_rand_bytes(void *out, uint64_t n);

#endif
