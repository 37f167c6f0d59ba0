/*
 * The start every GPU test's main shares: skip (exit 77) without a usable CUDA device, else
 * seed the test randomness (printed) and name device 0. Only test/gpu/ calls it.
 */
#ifndef CUZK_TEST_GPUTEST_H
#define CUZK_TEST_GPUTEST_H

/* 1 (after printing "SKIP: no CUDA device") when the test must exit 77; else 0, seeded. */
int gpu_test_begin(void);

#endif
