/*
 * Constraint systems on a GPU (cuda_cs.h): placement (resident or streamed) and the
 * evaluation of one matrix, whole or piece by piece, with kernels/spmv.
 */
#if CUZK_HAVE_CUDA
#include "backend/cuda_cs.h"

#include <string.h>

#include "cuda_util.h"
#include "error.h"
#include "spmv.h"

uint64_t cuda_cs_resident_bytes(const csc *c)
{
    return csc_matrix_bytes(c, 0) + csc_matrix_bytes(c, 1) + csc_matrix_bytes(c, 2) +
           (uint64_t)c->n_coeffs * sizeof(fr_t);
}

void cuda_cs_unplace(cuda_cs_dev *d)
{
    gpu_free(d->d_coeffs);
    for (int w = 0; w < 3; w++) {
        gpu_free(d->d_row[w]);
        gpu_free(d->d_col[w]);
        gpu_free(d->d_coef[w]);
    }
    memset(d, 0, sizeof *d);
}

/* A device copy of host bytes (synchronous: placement happens at load, not per partition). */
static int upload(void **d, const void *h, uint64_t bytes)
{
    int rc = gpu_malloc(d, bytes ? bytes : 8);
    if (!rc && bytes) rc = gpu_memcpy_to_device(*d, h, bytes);
    return rc;
}

int cuda_cs_place(const csc *c, uint64_t room, cuda_cs_dev *out)
{
    memset(out, 0, sizeof *out);
    int rc = upload(&out->d_coeffs, c->coeffs, (uint64_t)c->n_coeffs * sizeof(fr_t));
    if (rc) return rc;
    out->device_bytes = (uint64_t)c->n_coeffs * sizeof(fr_t);
    if (cuda_cs_resident_bytes(c) > room) return CUZK_OK; /* streamed */
    for (int w = 0; w < 3 && !rc; w++) {
        const csc_matrix *m = &c->m[w];
        if ((rc = upload((void **)&out->d_row[w], m->row, (c->abc_len + 1) * 8)) ||
            (rc = upload((void **)&out->d_col[w], m->col, m->nnz * 4)) ||
            (rc = upload((void **)&out->d_coef[w], m->coef, m->nnz * 4)))
            break;
    }
    if (rc) {
        cuda_cs_unplace(out);
        return rc;
    }
    out->resident = 1;
    out->device_bytes = cuda_cs_resident_bytes(c);
    return CUZK_OK;
}

/* The last row r1 > r0 such that rows [r0, r1) fit piece_bytes (offsets and non-zeros). */
static uint64_t piece_end(const csc_matrix *m, uint64_t r0, uint64_t n_rows, uint64_t piece_bytes)
{
    uint64_t lo = r0 + 1, hi = n_rows; /* binary search: the cost grows with r1 */
    if ((2 * 8) + (m->row[lo] - m->row[r0]) * 8 > piece_bytes) return r0; /* one row does not fit */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if ((mid - r0 + 1) * 8 + (m->row[mid] - m->row[r0]) * 8 <= piece_bytes) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

int cuda_cs_eval(const csc *c, const cuda_cs_dev *d, int which, const void *d_inputs, const void *d_aux, void *d_out,
                 void *const d_piece[2], uint64_t piece_bytes, void *stream)
{
    const csc_matrix *m = &c->m[which];
    if (d->resident)
        return gpu_spmv_rows(d->d_row[which], d->d_col[which], d->d_coef[which], 0, d->d_coeffs, d_inputs,
                             c->num_inputs, d_aux, c->abc_len, d_out, stream);
    int rc = CUZK_OK;
    for (uint64_t r0 = 0, k = 0; r0 < c->abc_len && !rc; k++) {
        uint64_t r1 = piece_end(m, r0, c->abc_len, piece_bytes);
        if (r1 == r0)
            return err_set(CUZK_EBUDGET, "constraint evaluation: row %llu of %c has %llu non-zeros, more than a "
                           "%llu-byte piece holds", (unsigned long long)r0, "ABC"[which],
                           (unsigned long long)(m->row[r0 + 1] - m->row[r0]), (unsigned long long)piece_bytes);
        uint64_t nz0 = m->row[r0], nnz = m->row[r1] - nz0, rows = r1 - r0;
        uint8_t *p = d_piece[k & 1];
        uint64_t *p_row = (uint64_t *)p;
        uint32_t *p_col = (uint32_t *)(p + (rows + 1) * 8), *p_coef = p_col + nnz;
        /* one stream: a piece's copy waits for the kernel that last read its buffer */
        if ((rc = gpu_memcpy_async(p_row, m->row + r0, (rows + 1) * 8, stream)) ||
            (nnz && (rc = gpu_memcpy_async(p_col, m->col + nz0, nnz * 4, stream))) ||
            (nnz && (rc = gpu_memcpy_async(p_coef, m->coef + nz0, nnz * 4, stream))))
            break;
        rc = gpu_spmv_rows(p_row, p_col, p_coef, nz0, d->d_coeffs, d_inputs, c->num_inputs, d_aux, rows,
                           (uint8_t *)d_out + r0 * sizeof(fr_t), stream);
        r0 = r1;
    }
    return rc;
}
#endif
