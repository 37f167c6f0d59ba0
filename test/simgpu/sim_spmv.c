/* kernels/spmv.h on the simulated device (simgpu.h): stubs until the simulation lands. */
#include "simgpu.h"

#include "spmv.h"
#include "sim_stub.h"

int gpu_spmv_rows(const uint64_t *d_row, const uint32_t *d_col, const uint32_t *d_coef, uint64_t nnz_base, const void *d_coeffs, const void *d_inputs, uint64_t ni, const void *d_aux, uint64_t n_rows, void *d_out, void *stream) { return SIM_NOT_YET("gpu_spmv_rows"); }
