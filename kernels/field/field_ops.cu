/* Element-wise field operations over host arrays (kernels/field/field_ops.h), for tests. */
#include "cuda_util.cuh"
#include "field/field_ops.h"
#include "field/fp2.cuh"
#include "field/fr.cuh"
#include "field/fr52.cuh"

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
    else if constexpr (OP == 6) {
        if constexpr (sizeof(T) == 32) r = fr52_mul_gpu(x, y);
        else r = x; /* Fr only (never launched for Fp, Fp2) */
    }
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
        case 9: field_op_kernel<T, 6><<<blocks, 128>>>(da, db, dout, n); break;
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
    if (op == GPU_FR_MUL_FP64) return run<fr_gpu>(9, a, b, out, n);
    return err_set(CUZK_EINVAL, "gpu_field_op: unknown op %d", op);
}

#define RATE_CHAINS 4
#define RATE_ITERS 256

template <class T> __global__ void mul_rate_kernel(T *out, T seed)
{
    T x[RATE_CHAINS], y = seed;
    y.v[0] ^= threadIdx.x;
#pragma unroll
    for (int k = 0; k < RATE_CHAINS; k++) x[k] = seed, x[k].v[1] ^= blockIdx.x + k;
    for (int i = 0; i < RATE_ITERS; i++)
#pragma unroll
        for (int k = 0; k < RATE_CHAINS; k++) x[k] = x[k] * y;
    T acc = x[0];
#pragma unroll
    for (int k = 1; k < RATE_CHAINS; k++) acc = acc + x[k];
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <class T> static int mul_rate(double *per_second)
{
    int dev, sms;
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const unsigned blocks = (unsigned)sms * 16, threads = 256;
    T *out, seed = T::one();
    CUDA_TRY(cudaMalloc(&out, (size_t)blocks * threads * sizeof(T)));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    float best = 1e30f;
    for (int rep = 0; rep < 5; rep++) {
        cudaEventRecord(e0);
        mul_rate_kernel<T><<<blocks, threads>>>(out, seed);
        cudaEventRecord(e1);
        cudaError_t e = cudaEventSynchronize(e1);
        if (e != cudaSuccess) {
            cudaFree(out);
            return gpu_error(e, "mul_rate_kernel", __FILE__, __LINE__);
        }
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (rep && ms < best) best = ms;
    }
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    cudaFree(out);
    *per_second = (double)blocks * threads * RATE_CHAINS * RATE_ITERS / (best * 1e-3);
    return 0;
}

/* Fr without the special reduction for r's low limbs, to measure what it saves. */
struct fr_params_generic : fr_params {
    static constexpr bool LOW_ONE_MINUS = false;
};

extern "C" int gpu_field_mul_rate(int field, double *per_second)
{
    if (field == 0) return mul_rate<fr_gpu>(per_second);
    if (field == 1) return mul_rate<fp_gpu>(per_second);
    return mul_rate<mont_t<fr_params_generic>>(per_second);
}

/* Integer and FP64 products in one kernel: chains k < F on the FP64 pipe, the rest integer.
 * The chains are independent within a round, so the two pipes can overlap within a warp. */
template <int CHAINS, int F, bool SQUARE> __global__ void mul_mix_rate_kernel(fr_gpu *out, fr_gpu seed, int iters)
{
    fr_gpu x[CHAINS], y = seed;
    y.v[0] ^= threadIdx.x;
    /* per-thread starting values: warp-uniform ones let the compiler move the integer
     * product to the uniform datapath (UIMAD), a different pipe and register file */
#pragma unroll
    for (int k = 0; k < CHAINS; k++) x[k] = seed, x[k].v[1] ^= blockIdx.x + k, x[k].v[2] ^= threadIdx.x * 0x9e3779b9u;
    const fr52_op y16 = fr52_left(y);
    for (int i = 0; i < iters; i++) {
        /* SQUARE: x_k · x_(k+1) of the previous round (the last chain squares); the chains
         * stay independent within a round but cannot be run one after the other (which the
         * compiler did with x_k · x_k, to save registers) */
        fr_gpu nx[CHAINS];
#pragma unroll
        for (int k = 0; k < CHAINS; k++) {
            const fr_gpu &o = x[k + 1 < CHAINS ? k + 1 : k];
            if (k < F) nx[k] = SQUARE ? fr52_mul_gpu(x[k], o) : fr52_mul_gpu(x[k], y16);
            else nx[k] = SQUARE ? x[k] * o : x[k] * y;
        }
#pragma unroll
        for (int k = 0; k < CHAINS; k++) x[k] = nx[k];
    }
    fr_gpu acc = x[0];
#pragma unroll
    for (int k = 1; k < CHAINS; k++) acc = acc + x[k];
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

typedef void (*mix_kernel_fn)(fr_gpu *, fr_gpu, int);

template <int C, bool S> static mix_kernel_fn mix_pick(int f)
{
    if constexpr (C == 1) return f ? mul_mix_rate_kernel<1, 1, S> : mul_mix_rate_kernel<1, 0, S>;
    else if constexpr (C == 2)
        return f == 0 ? mul_mix_rate_kernel<2, 0, S> : f == 1 ? mul_mix_rate_kernel<2, 1, S> : mul_mix_rate_kernel<2, 2, S>;
    else
        return f == 0 ? mul_mix_rate_kernel<4, 0, S> : f == 1 ? mul_mix_rate_kernel<4, 1, S>
             : f == 2 ? mul_mix_rate_kernel<4, 2, S> : f == 3 ? mul_mix_rate_kernel<4, 3, S>
                      : mul_mix_rate_kernel<4, 4, S>;
}

/* Best of 4 timed launches after a warm-up, in ms. */
static int time_mix(mix_kernel_fn k, unsigned blocks, unsigned threads, int iters, fr_gpu *out, float *best)
{
    cudaEvent_t e0, e1;
    CUDA_TRY(cudaEventCreate(&e0));
    cudaError_t e = cudaEventCreate(&e1);
    if (e != cudaSuccess) {
        cudaEventDestroy(e0);
        return gpu_error(e, "cudaEventCreate", __FILE__, __LINE__);
    }
    *best = 1e30f;
    for (int rep = 0; rep < 5 && e == cudaSuccess; rep++) {
        cudaEventRecord(e0);
        k<<<blocks, threads>>>(out, fr_gpu::one(), iters);
        cudaEventRecord(e1);
        e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaEventSynchronize(e1);
        float ms = 0;
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, e0, e1);
        if (rep && ms < *best) *best = ms;
    }
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    return e == cudaSuccess ? 0 : gpu_error(e, "mul_mix_rate_kernel", __FILE__, __LINE__);
}

extern "C" int gpu_fr_mul_mix_rate(int chains, int fp64, int square, double *per_second, double *ns_per_product)
{
    if ((chains != 1 && chains != 2 && chains != 4) || fp64 < 0 || fp64 > chains)
        return err_set(CUZK_EINVAL, "gpu_fr_mul_mix_rate: %d FP64 chains of %d (chains 1, 2 or 4)", fp64, chains);
    const mix_kernel_fn k = chains == 1 ? (square ? mix_pick<1, true>(fp64) : mix_pick<1, false>(fp64))
                          : chains == 2 ? (square ? mix_pick<2, true>(fp64) : mix_pick<2, false>(fp64))
                                        : (square ? mix_pick<4, true>(fp64) : mix_pick<4, false>(fp64));
    int dev, sms;
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const unsigned blocks = (unsigned)sms * 16, threads = 256;
    const int iters = 1024 / chains; /* the same products per thread in every form */
    fr_gpu *out;
    CUDA_TRY(cudaMalloc(&out, (size_t)blocks * threads * sizeof(fr_gpu)));
    float ms;
    int rc = time_mix(k, blocks, threads, iters, out, &ms);
    if (!rc) *per_second = (double)blocks * threads * chains * iters / (ms * 1e-3);
    if (!rc && ns_per_product) {
        rc = time_mix(k, 1, 32, iters, out, &ms);
        if (!rc) *ns_per_product = ms * 1e6 / iters;
    }
    cudaFree(out);
    return rc;
}
