/*
 * The start every GPU test's main shares: skip (exit 77) without a usable CUDA device, else
 * seed the test randomness (printed) and name device 0. Only test/gpu/ calls it.
 */
#ifndef CUZK_TEST_GPUTEST_H
#define CUZK_TEST_GPUTEST_H

/* 1 (after printing "SKIP: no CUDA device") when the test must exit 77; else 0, seeded. */
int gpu_test_begin(void);

/* 1 in the simulated device's build (test/simgpu, make test-simgpu), whose arithmetic is the
 * host's: a case sized for a GPU (minutes of host arithmetic) or asserting the device's own
 * plan (window groups) skips there with GPU_TEST_DEVICE_ONLY, saying why. */
#ifdef CUZK_SIMGPU
#define GPU_TEST_SIMULATED 1
#else
#define GPU_TEST_SIMULATED 0
#endif
#define GPU_TEST_DEVICE_ONLY(why)                                                                  \
    do {                                                                                           \
        if (GPU_TEST_SIMULATED) {                                                                  \
            printf("skipped on the simulated device: %s\n", why);                                 \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

#endif
