/*
 * Sparse matrix × witness (kernels/spmv.h): one thread per row. Filecoin's rows are short
 * (PoRep: 2.4, 1.0 and 2.2 non-zeros per row of A, B, C), so a row per thread keeps the
 * loads of a warp's consecutive rows' columns coalesced and needs no reduction across
 * threads; the few long rows (sums of many bits) are summed by their whole warp. The coefficient
 * table is small (mostly ±1 and powers of two) and read through the read-only cache; a
 * coefficient of 1 or -1 (most of Filecoin's non-zeros) is an addition or a subtraction, not
 * a Montgomery product (~10x the instructions).
 */
#include "cuda_util.cuh"
#include "field/fr.cuh"
#include "spmv.h"

/* Montgomery 1 (R mod r) and -1 (r - R), as fr.cuh's limbs */
__device__ __forceinline__ bool fr_is_one(const fr_gpu &c)
{
    uint32_t d = 0;
    for (int l = 0; l < 8; l++) d |= c.v[l] ^ fr_params::one(l);
    return d == 0;
}

__device__ __forceinline__ bool fr_is_minus_one(const fr_gpu &c)
{
    constexpr uint32_t m[8] = {0x00000003, 0xfffffffd, 0xfffb13fc, 0xfb38ec08,
                               0x1ce5880f, 0x99ad8818, 0x7cd877d8, 0x5bc8f5f9};
    uint32_t d = 0;
    for (int l = 0; l < 8; l++) d |= c.v[l] ^ m[l];
    return d == 0;
}

/* Rows of more non-zeros than this are summed by their whole warp (below). */
#define SPMV_WIDE 16

/* coefficient coeffs[coef[i]] times w[col[i]]: ±1 as an addition or a subtraction */
__device__ __forceinline__ void spmv_term(fr_gpu &acc, uint64_t i, const uint32_t *__restrict__ col,
                                          const uint32_t *__restrict__ coef, const fr_gpu *__restrict__ coeffs,
                                          const fr_gpu *__restrict__ inputs, uint64_t ni, const fr_gpu *__restrict__ aux)
{
    const uint32_t v = __ldg(&col[i]);
    const fr_gpu x = v < ni ? inputs[v] : aux[v - ni];
    const fr_gpu c = coeffs[__ldg(&coef[i])];
    if (fr_is_one(c)) acc += x;
    else if (fr_is_minus_one(c)) acc -= x;
    else acc += c * x;
}

/* One thread per row, except that a row of more than SPMV_WIDE non-zeros (PoRep's SHA-256
 * additions: 0.7 % of the rows, ~125 terms each, in a fifth of the warps) is summed by the
 * whole warp after the short rows: a thread alone on it would hold its 31 neighbours ~40
 * terms' time. Field sums are exact, so the order does not change the result. Every lane
 * reaches the warp's ballot (no early return), so blocks are whole warps. */
__global__ void spmv_rows_kernel(const uint64_t *__restrict__ row, const uint32_t *__restrict__ col,
                                 const uint32_t *__restrict__ coef, uint64_t nnz_base, const fr_gpu *__restrict__ coeffs,
                                 const fr_gpu *__restrict__ inputs, uint64_t ni, const fr_gpu *__restrict__ aux,
                                 uint64_t n_rows, fr_gpu *__restrict__ out)
{
    const uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    const bool mine = k < n_rows;
    uint64_t b = 0, e = 0;
    if (mine) b = row[k] - nnz_base, e = row[k + 1] - nnz_base;
    const bool wide = e - b > SPMV_WIDE;
    fr_gpu acc;
    for (int l = 0; l < 8; l++) acc.v[l] = 0;
    if (!wide)
        for (uint64_t i = b; i < e; i++) spmv_term(acc, i, col, coef, coeffs, inputs, ni, aux);
    for (unsigned wides = __ballot_sync(0xffffffffu, wide); wides; wides &= wides - 1) {
        const int owner = __ffs(wides) - 1;
        const uint64_t wb = __shfl_sync(0xffffffffu, b, owner), we = __shfl_sync(0xffffffffu, e, owner);
        fr_gpu part;
        for (int l = 0; l < 8; l++) part.v[l] = 0;
        for (uint64_t i = wb + lane; i < we; i += 32) spmv_term(part, i, col, coef, coeffs, inputs, ni, aux);
        for (int off = 16; off; off >>= 1) {
            fr_gpu o;
            for (int l = 0; l < 8; l++) o.v[l] = __shfl_down_sync(0xffffffffu, part.v[l], off);
            part += o;
        }
        for (int l = 0; l < 8; l++) part.v[l] = __shfl_sync(0xffffffffu, part.v[l], 0);
        if ((int)lane == owner) acc = part;
    }
    if (mine) out[k] = acc;
}

extern "C" int gpu_spmv_rows(const uint64_t *d_row, const uint32_t *d_col, const uint32_t *d_coef, uint64_t nnz_base,
                             const void *d_coeffs, const void *d_inputs, uint64_t ni, const void *d_aux, uint64_t n_rows,
                             void *d_out, void *stream)
{
    if (!n_rows) return 0;
    const unsigned threads = 256;
    spmv_rows_kernel<<<(unsigned)((n_rows + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(
        d_row, d_col, d_coef, nnz_base, (const fr_gpu *)d_coeffs, (const fr_gpu *)d_inputs, ni, (const fr_gpu *)d_aux,
        n_rows, (fr_gpu *)d_out);
    CUDA_TRY_LAUNCH("constraint evaluation (sparse matrix × witness)");
    return 0;
}
