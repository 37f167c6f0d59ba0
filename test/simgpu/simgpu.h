/*
 * The simulated device: the kernels layer (the headers in kernels/) run on the host, so that the CUDA
 * backend's host code — placement, worker slots, streamed bases, witness-only partitions,
 * urgent pacing, cancels, key churn — runs in CI, under the sanitizers, where no GPU exists.
 * Built only in its own build directory (`make test-simgpu`: CUZK_CUDA=sim in build-simgpu),
 * never into a library that ships.
 *
 * The model:
 *   - CUZK_SIMGPU_DEVICES devices (default 1), each CUZK_SIMGPU_MEM_MIB MiB (default 4096).
 *     Device memory is host memory charged to its device: gpu_mem_info reports what is left,
 *     an allocation past the capacity fails as a real one does (CUZK_EDEVICE), and an MSM
 *     context holds what the device's would (the plan's sizing executor, msm_size_*), so the
 *     placement's estimates meet a device that holds them to their word.
 *   - Work runs when it is enqueued, on the enqueuing thread: a stream's operations then run
 *     in its order, an event is complete once recorded and a wait for one never waits. That
 *     is one of the schedules a real device may pick, not every one: races that need a kernel
 *     to still be running are not found here (the GPU tests are for those).
 *   - Results are the CPU backend's arithmetic (lib/msm, lib/ntt, lib/field), so proofs equal
 *     the GPU's bit for bit and verify.
 */
#ifndef CUZK_TEST_SIMGPU_H
#define CUZK_TEST_SIMGPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMGPU_MAX_DEVICES 8

/* The calling thread's device (gpu_set_device; 0 until set). */
int sim_current_device(void);
/* Charges bytes to device dev's memory: CUZK_OK, or CUZK_EDEVICE (with the error set, naming
 * what) when the device has not that much left. uncharge gives them back. */
int sim_charge(int dev, size_t bytes, const char *what);
void sim_uncharge(int dev, size_t bytes);
/* Bytes charged now on dev, and its capacity. */
size_t sim_charged(int dev);
size_t sim_capacity(int dev);
/* Loans (msm_gpu_ctx_lend) taken by the simulated MSM contexts since the process started. */
size_t sim_msm_loans(void);

#ifdef __cplusplus
}
#endif

#endif
