/*
 * The witness-only partition's a = A·w, b = B·w, c = C·w on the device (kernels/spmv/spmv.cu):
 * one compact CSR matrix (lib/groth16/csc.h) times the witness, written straight into the
 * vector the H step reads. Rows can be done in pieces, so a matrix that does not fit the
 * device streams through a piece buffer.
 */
#ifndef CUZK_KERNELS_SPMV_H
#define CUZK_KERNELS_SPMV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[k - row_begin] = Σ coeffs[coef[i - nnz_base]] · w[col[i - nnz_base]] over i in
 * [row[k - row_begin], row[k - row_begin + 1]) for k in [row_begin, row_begin + n_rows):
 * d_row holds those n_rows + 1 offsets (absolute, as in the file), d_col and d_coef the
 * piece's non-zeros from absolute index nnz_base on. w = inputs (ni values) ‖ aux. Every
 * pointer is device memory; scalars are 32-byte Fr values, coeffs Montgomery, w in either
 * form (below r; the result is in w's form: a Montgomery product with a Montgomery
 * coefficient keeps it). Enqueued on stream; CUZK_OK or CUZK_EDEVICE. */
int gpu_spmv_rows(const uint64_t *d_row, const uint32_t *d_col, const uint32_t *d_coef, uint64_t nnz_base,
                  const void *d_coeffs, const void *d_inputs, uint64_t ni, const void *d_aux, uint64_t n_rows,
                  void *d_out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
