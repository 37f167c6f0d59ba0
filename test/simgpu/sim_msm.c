/* kernels/msm.h on the simulated device (simgpu.h): stubs until the simulation lands. */
#include "simgpu.h"

#include <stdlib.h>

#include "msm.h"
#include "sim_stub.h"

int msm_gpu_bases_upload(msm_gpu_bases **out, int device, int curve, const void *affine, size_t n) { return SIM_NOT_YET("msm_gpu_bases_upload"); }
int msm_gpu_bases_generate(msm_gpu_bases **out, int device, int curve, size_t n, const void *gen, uint64_t a, uint64_t b) { return SIM_NOT_YET("msm_gpu_bases_generate"); }
int msm_gpu_bases_generate_into(void *d_out, int curve, size_t first, size_t count, const void *gen, uint64_t a, uint64_t b) { return SIM_NOT_YET("msm_gpu_bases_generate_into"); }
int msm_gpu_bases_precompute(msm_gpu_bases *bases, unsigned copies, unsigned window_bits) { return SIM_NOT_YET("msm_gpu_bases_precompute"); }
unsigned msm_gpu_bases_copies(const msm_gpu_bases *bases, unsigned *window_bits) { if (window_bits) *window_bits = 0; return 1; }
const void *msm_gpu_bases_data(const msm_gpu_bases *bases) { return NULL; }
void msm_gpu_bases_free(msm_gpu_bases *bases) {}
int msm_gpu_pieces_nonzero(const void *d_scalars, size_t n, size_t piece, uint8_t *d_flags, void *stream) { return SIM_NOT_YET("msm_gpu_pieces_nonzero"); }
int msm_gpu_ctx_create(msm_gpu_ctx **out, int device, void *stream, size_t max_entries) { return SIM_NOT_YET("msm_gpu_ctx_create"); }
void msm_gpu_ctx_free(msm_gpu_ctx *ctx) {}
int msm_gpu_ctx_trim(msm_gpu_ctx *ctx) { return SIM_NOT_YET("msm_gpu_ctx_trim"); }
int msm_gpu_ctx_set_max_entries(msm_gpu_ctx *ctx, size_t max_entries) { return SIM_NOT_YET("msm_gpu_ctx_set_max_entries"); }
void msm_gpu_ctx_set_g2_half(msm_gpu_ctx *ctx, int on) {}
int msm_gpu_ctx_set_acc_kind(msm_gpu_ctx *ctx, int mode) { return SIM_NOT_YET("msm_gpu_ctx_set_acc_kind"); }
void msm_gpu_ctx_set_waves(msm_gpu_ctx *ctx, unsigned waves) {}
void msm_gpu_ctx_set_gate(msm_gpu_ctx *ctx, const struct gpu_gate *gate) {}
void msm_gpu_ctx_set_counts(msm_gpu_ctx *ctx, uint32_t n_one, uint32_t n_rest) {}
int msm_gpu_count_classes(const void *d_scalars, size_t n, int scalar_form, uint32_t *d_counts, void *stream) { return SIM_NOT_YET("msm_gpu_count_classes"); }
int msm_gpu_run(msm_gpu_ctx *ctx, const msm_gpu_bases *bases, size_t first, const void *scalars, size_t n, int scalar_form, int scalars_where, void *out) { return SIM_NOT_YET("msm_gpu_run"); }
int msm_gpu_run_deferred(msm_gpu_ctx *ctx, const msm_gpu_bases *bases, size_t first, const void *d_scalars, size_t n, int scalar_form, void *out) { return SIM_NOT_YET("msm_gpu_run_deferred"); }
int msm_gpu_ctx_collect(msm_gpu_ctx *ctx) { return SIM_NOT_YET("msm_gpu_ctx_collect"); }
void msm_gpu_ctx_discard(msm_gpu_ctx *ctx) {}
int msm_gpu_acc_begin(msm_gpu_ctx *ctx, int curve, size_t n_total, int scalar_form, int persist, size_t bucket_bytes_max) { return SIM_NOT_YET("msm_gpu_acc_begin"); }
int msm_gpu_acc_add(msm_gpu_ctx *ctx, const void *d_bases, const void *d_scalars, size_t n) { return SIM_NOT_YET("msm_gpu_acc_add"); }
int msm_gpu_acc_end(msm_gpu_ctx *ctx, void *out) { return SIM_NOT_YET("msm_gpu_acc_end"); }
