/* kernels/prep.h on the simulated device (simgpu.h): stubs until the simulation lands. */
#include "simgpu.h"

#include "prep.h"
#include "sim_stub.h"

int gpu_prep_reset(gpu_prep_result *d_res, void *stream) { return SIM_NOT_YET("gpu_prep_reset"); }
int gpu_prep_check(void *d_x, uint64_t n, unsigned array, int to_mont, gpu_prep_result *d_res, void *stream) { return SIM_NOT_YET("gpu_prep_check"); }
size_t gpu_prep_scratch_bytes(uint64_t num_aux) { return (size_t)((num_aux + 63) / 64 * 6 + 4) * 8 + 256; }
int gpu_prep_compact(void *d_a, uint64_t cap_a, void *d_b, uint64_t cap_b, const void *d_aux, uint64_t num_aux, const uint64_t *a_density, const uint64_t *b_density, void *d_scratch, size_t scratch_bytes, gpu_prep_result *d_res, void *stream) { return SIM_NOT_YET("gpu_prep_compact"); }
