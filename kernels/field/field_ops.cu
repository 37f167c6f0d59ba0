/* Element-wise field operations over host arrays (kernels/field/field_ops.h), for tests. */
#include "cuda_util.cuh"
#include "field/field_ops.h"
#include "field/fp2.cuh"
#include "field/fr.cuh"

template <class T, int OP> __global__ void field_op_kernel(const T *a, const T *b, T *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    T x = a[i], y = b[i], r;
    if constexpr (OP == 0) r = x + y;
    else if constexpr (OP == 1) r = x - y;
    else if constexpr (OP == 2) r = x * y;
    else if constexpr (OP == 3) r = x.sqr();
    else if constexpr (OP == 4) r = x.neg();
    else if constexpr (OP == 5) r = x.dbl();
    out[i] = r;
}

template <class T> __global__ void mont_misc_kernel(const T *a, T *out, size_t n, int op)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    T x = a[i];
    out[i] = op == 0 ? x.to_mont() : op == 1 ? x.from_mont() : T::inv(x);
}

__global__ void fp2_nonresidue_kernel(const fp2_gpu *a, fp2_gpu *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i].mul_nonresidue();
}

template <class T> static int run(int op, const void *a, const void *b, void *out, size_t n)
{
    T *d = NULL;
    size_t bytes = n * sizeof(T);
    if (n == 0) return 0;
    CUDA_TRY(cudaMalloc(&d, 3 * bytes));
    T *da = d, *db = d + n, *dout = d + 2 * n;
    int rc = 0;
    cudaError_t e = cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && b) e = cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && !b) e = cudaMemcpy(db, a, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) rc = gpu_error(e, "cudaMemcpy", __FILE__, __LINE__);
    unsigned blocks = (unsigned)((n + 127) / 128);
    if (!rc) {
        switch (op) {
        case 0: field_op_kernel<T, 0><<<blocks, 128>>>(da, db, dout, n); break;
        case 1: field_op_kernel<T, 1><<<blocks, 128>>>(da, db, dout, n); break;
        case 2: field_op_kernel<T, 2><<<blocks, 128>>>(da, db, dout, n); break;
        case 3: field_op_kernel<T, 3><<<blocks, 128>>>(da, db, dout, n); break;
        case 4: field_op_kernel<T, 4><<<blocks, 128>>>(da, db, dout, n); break;
        case 5: field_op_kernel<T, 5><<<blocks, 128>>>(da, db, dout, n); break;
        default:
            if constexpr (sizeof(T) == 96) fp2_nonresidue_kernel<<<blocks, 128>>>(
                (const fp2_gpu *)da, (fp2_gpu *)dout, n);
            else mont_misc_kernel<T><<<blocks, 128>>>(da, dout, n, op - 6);
        }
        e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (e == cudaSuccess) e = cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) rc = gpu_error(e, "field op kernel", __FILE__, __LINE__);
    }
    cudaFree(d);
    return rc;
}

extern "C" int gpu_field_op(int op, const void *a, const void *b, void *out, size_t n)
{
    if (op >= GPU_FR_ADD && op <= GPU_FR_INV) return run<fr_gpu>(op - GPU_FR_ADD, a, b, out, n);
    if (op >= GPU_FP_ADD && op <= GPU_FP_INV) return run<fp_gpu>(op - GPU_FP_ADD, a, b, out, n);
    if (op >= GPU_FP2_ADD && op <= GPU_FP2_NEG) return run<fp2_gpu>(op - GPU_FP2_ADD, a, b, out, n);
    if (op == GPU_FP2_MUL_NONRESIDUE) return run<fp2_gpu>(6, a, b, out, n);
    return err_set(CUZK_EINVAL, "gpu_field_op: unknown op %d", op);
}
