/*
 * Number-theoretic transforms over Fr and the Groth16 H step on the GPU (C interface).
 * Elements are Fr in Montgomery form (32 bytes, the CPU's fr_t layout) in device memory;
 * the domain is 2^log_n (1 <= log_n <= 28) with bellperson's root of unity and coset
 * shift g = 7, the same transforms as lib/ntt/ntt_cpu.h. Everything is asynchronous on the
 * given stream (a cudaStream_t; NULL = the legacy default stream) and works on the
 * current device; twiddle tables are built once per device and size on first use (that
 * first call blocks). Calls on different streams may run concurrently.
 * Errors: CUZK_EINVAL (bad size or argument), CUZK_EDEVICE (CUDA; text in cuzk_last_error).
 */
#ifndef CUZK_NTT_GPU_H
#define CUZK_NTT_GPU_H

#include <stdint.h>

#include "prep.h"

struct gpu_gate; /* cuda_util.h: the urgent gate an H step may pause at */

#ifdef __cplusplus
extern "C" {
#endif

enum { GPU_NTT_NATURAL = 0, GPU_NTT_BITREV = 1 };
enum { GPU_NTT_FORWARD = 0, GPU_NTT_INVERSE = 1 };

/*
 * In-place transform of d (2^log_n elements, device memory):
 *   forward:          coefficients -> evaluations at ω^i
 *   forward + coset:  coefficients -> evaluations at g·ω^i
 *   inverse:          evaluations  -> coefficients (including 1/n)
 *   inverse + coset:  evaluations at g·ω^i -> coefficients
 * order_in/order_out: GPU_NTT_NATURAL or GPU_NTT_BITREV (bit-reversed index order).
 * Natural -> bit-reversed and bit-reversed -> natural are the fastest (no permutation).
 */
int gpu_ntt(void *d, unsigned log_n, int direction, int coset, int order_in, int order_out,
            void *stream);

/* Builds the tables for this size on the current device now (optional). */
int gpu_ntt_prepare(unsigned log_n);

/*
 * The Groth16 H step (FORMATS.md) in 6 transforms: d_a, d_b, d_c hold the constraint
 * evaluations a, b, c (2^log_n elements each, zero-padded, natural order). On return (on
 * the stream), d_a holds the h scalars in natural order: h[0 .. n-2] for the H MSM (h[n-1]
 * is 0); d_b and d_c are clobbered.
 */
int gpu_h_step(void *d_a, void *d_b, void *d_c, unsigned log_n, void *stream);

/*
 * The same, with a, b, c (len <= 2^log_n elements each, Montgomery form) copied from
 * host memory (page-locked for asynchronous copies) on copy_stream, zero-padded on the
 * device; each transform starts as soon as its input has arrived. The host buffers must
 * stay valid until the stream's work completes.
 */
int gpu_h_step_from_host(void *d_a, void *d_b, void *d_c, const void *a, const void *b,
                         const void *c, uint64_t len, unsigned log_n, void *stream,
                         void *copy_stream);

/* The same, each input first range-checked into d_res (tags 0, 1, 2 for a, b, c; see
 * kernels/prep.h) and, when canonical, converted to Montgomery form on the device: a, b, c
 * are then in the partition's own form. d_res may be NULL only when !canonical (no check).
 * gate (NULL: none): passed between the step's transforms (gpu_gate_pass: the calling thread
 * waits there for the transform before and while an urgent partition runs): a backlog's H step
 * gives the device to an urgent partition within one transform (~0.1 s at 2^27 on an H200). */
int gpu_h_step_from_host_checked(void *d_a, void *d_b, void *d_c, const void *a, const void *b,
                                 const void *c, uint64_t len, unsigned log_n, int canonical,
                                 gpu_prep_result *d_res, const struct gpu_gate *gate, void *stream,
                                 void *copy_stream);

/* The same in two device buffers instead of three (for cards too small for three domain
 * vectors): a arrives in d_x and b in d_y while A's transforms run; c is copied into d_x
 * once A·B has been formed in d_y (that copy is not overlapped). On return (on the stream)
 * d_x holds the h scalars in natural order; d_y is clobbered. */
/* ab_arrived (NULL: none): called once, as soon as b's copy is enqueued, with the event (on
 * copy_stream) of a's and b's arrival: from there until c's copy the step leaves PCIe idle, so
 * a caller's own copies ordered after that event (the H MSM's first pieces) do not delay the
 * step's inputs. Its error ends the step. */
typedef struct gpu_h_hook {
    int (*fn)(void *user, void *ab_arrived);
    void *user;
} gpu_h_hook;
int gpu_h_step_from_host_lean(void *d_x, void *d_y, const void *a, const void *b, const void *c, uint64_t len,
                              unsigned log_n, int canonical, gpu_prep_result *d_res, const struct gpu_gate *gate,
                              const gpu_h_hook *ab_arrived, void *stream, void *copy_stream);
/* The H step over inputs made on the device (witness-only partitions: a = A·w etc., evaluated
 * by kernels/spmv): fill(user, i, d, stream) enqueues on stream the len values of input i
 * (0 a, 1 b, 2 c; Montgomery form) into device buffer d, which this zero-pads to 2^log_n;
 * each input is filled just before its transforms, so the lean form needs only two
 * buffers (c is filled into d_x once A·B has been formed in d_y). fill returns CUZK_OK or an
 * error, which ends the step. Outputs as gpu_h_step (full: h in d_a) and
 * gpu_h_step_from_host_lean (lean: h in d_x); gate as gpu_h_step_from_host_checked. */
typedef int (*gpu_h_fill_fn)(void *user, int input, void *d, void *stream);
int gpu_h_step_filled(void *d_a, void *d_b, void *d_c, uint64_t len, unsigned log_n, gpu_h_fill_fn fill,
                      void *user, const struct gpu_gate *gate, void *stream);
int gpu_h_step_filled_lean(void *d_x, void *d_y, uint64_t len, unsigned log_n, gpu_h_fill_fn fill, void *user,
                           const struct gpu_gate *gate, void *stream);
/* For benches and tests: n pseudo-random Fr elements (< 2^253) from seed, on the stream. */
int gpu_fr_fill_random(void *d, uint64_t n, uint64_t seed, void *stream);

#ifdef __cplusplus
}
#endif

#endif
