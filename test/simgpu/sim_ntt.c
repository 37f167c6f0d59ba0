/* kernels/ntt.h on the simulated device (simgpu.h): stubs until the simulation lands. */
#include "simgpu.h"

#include "ntt.h"
#include "sim_stub.h"

int gpu_ntt_prepare(unsigned log_n) { return CUZK_OK; }
int gpu_h_step_from_host_checked(void *d_a, void *d_b, void *d_c, const void *a, const void *b, const void *c, uint64_t len, unsigned log_n, int canonical, gpu_prep_result *d_res, const struct gpu_gate *gate, void *stream, void *copy_stream) { return SIM_NOT_YET("gpu_h_step_from_host_checked"); }
int gpu_h_step_from_host_lean(void *d_x, void *d_y, const void *a, const void *b, const void *c, uint64_t len, unsigned log_n, int canonical, gpu_prep_result *d_res, const struct gpu_gate *gate, const gpu_h_hook *ab_arrived, void *stream, void *copy_stream) { return SIM_NOT_YET("gpu_h_step_from_host_lean"); }
int gpu_h_step_filled(void *d_a, void *d_b, void *d_c, uint64_t len, unsigned log_n, gpu_h_fill_fn fill, void *user, const struct gpu_gate *gate, void *stream) { return SIM_NOT_YET("gpu_h_step_filled"); }
int gpu_h_step_filled_lean(void *d_x, void *d_y, uint64_t len, unsigned log_n, gpu_h_fill_fn fill, void *user, const struct gpu_gate *gate, void *stream) { return SIM_NOT_YET("gpu_h_step_filled_lean"); }
