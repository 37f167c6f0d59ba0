/*
 * kernels/spmv.h on the simulated device (simgpu.h): a compact CSR matrix's rows times the
 * witness, row by row on the host over device memory (host memory here). Field sums are
 * exact, so the device's order (a warp per long row, ±1 as additions) gives the same values.
 */
#include "simgpu.h"

#include <stdint.h>

#include "cuzk/cuzk.h"
#include "error.h"
#include "field/field.h"
#include "spmv.h"

int gpu_spmv_rows(const uint64_t *d_row, const uint32_t *d_col, const uint32_t *d_coef, uint64_t nnz_base,
                  const void *d_coeffs, const void *d_inputs, uint64_t ni, const void *d_aux, uint64_t n_rows,
                  void *d_out, void *stream)
{
    (void)stream;
    if (!n_rows) return CUZK_OK;
    /* where the device would fault (an illegal address: CUZK_EDEVICE), say what */
    if (!d_row || !d_out) return err_set(CUZK_EDEVICE, "simgpu: constraint evaluation of %llu rows: NULL %s",
                                         (unsigned long long)n_rows, d_row ? "output" : "row offsets");
    const fr_t *coeffs = d_coeffs, *inputs = d_inputs, *aux = d_aux;
    fr_t *out = d_out;
    for (uint64_t k = 0; k < n_rows; k++) {
        const uint64_t b = d_row[k], e = d_row[k + 1];
        if (b < nnz_base || e < b)
            return err_set(CUZK_EDEVICE,
                           "simgpu: constraint evaluation: row %llu spans [%llu, %llu), non-zeros from %llu",
                           (unsigned long long)k, (unsigned long long)b, (unsigned long long)e,
                           (unsigned long long)nnz_base);
        if (e > b && (!d_col || !d_coef || !coeffs))
            return err_set(CUZK_EDEVICE, "simgpu: constraint evaluation: row %llu has non-zeros and a NULL matrix",
                           (unsigned long long)k);
        fr_t acc = FR_ZERO;
        for (uint64_t i = b - nnz_base; i < e - nnz_base; i++) {
            const uint64_t v = d_col[i];
            if (!(v < ni ? inputs : aux))
                return err_set(CUZK_EDEVICE,
                               "simgpu: constraint evaluation: row %llu reads variable %llu of a NULL witness",
                               (unsigned long long)k, (unsigned long long)v);
            const fr_t *x = v < ni ? &inputs[v] : &aux[v - ni];
            fr_t t;
            fr_mul(&t, &coeffs[d_coef[i]], x); /* a Montgomery coefficient keeps x's form */
            fr_add(&acc, &acc, &t);
        }
        out[k] = acc;
    }
    return CUZK_OK;
}
