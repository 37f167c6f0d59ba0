/*
 * Resident MSM bases: upload, download, free, and generation on the device of
 * bases[i] = (a + (i + 1)·b)·gen for tests and benchmarks (no host scalar multiplications:
 * per thread one scalar multiplication, then additions of b·gen and one batched inversion).
 */
#include <cuda_runtime.h>

#include <cstring>
#include <new>

#include "msm.h"
#include "msm/msm_internal.cuh"
#include "curve/xyzz.cuh"

#include "cuda_util.cuh"
#include "cuda_util.h"

using namespace curve;

static size_t point_bytes(int curve) { return curve == MSM_CURVE_G1 ? sizeof(affine<fp>) : sizeof(affine<fp2>); }

extern "C" size_t msm_gpu_bases_count(const msm_gpu_bases *b) { return b ? b->n : 0; }

static int bases_alloc(msm_gpu_bases **out, int device, int curve, size_t n)
{
    *out = nullptr;
    if (curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2)
        return err_set(CUZK_EINVAL, "msm bases: curve %d (1 = G1, 2 = G2)", curve);
    if (n == 0 || n > 0x7fffffffu) return err_set(CUZK_EINVAL, "msm bases: %zu points", n);
    msm_gpu_bases *b = new (std::nothrow) msm_gpu_bases();
    if (!b) return err_set(CUZK_ENOMEM, "msm bases");
    b->device = device;
    b->curve = curve;
    b->n = n;
    cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) {
        delete b;
        return gpu_error(e, "cudaSetDevice (bases)", __FILE__, __LINE__);
    }
    int rc = gpu_malloc(&b->d, n * point_bytes(curve)); /* the device's pool: no wait for other streams */
    if (rc) {
        delete b;
        return rc;
    }
    *out = b;
    return CUZK_OK;
}

extern "C" void msm_gpu_bases_free(msm_gpu_bases *b)
{
    if (!b) return;
    gpu_free(b->d); /* into the device's pool: never a wait for other streams (cudaFree's) */
    gpu_free(b->d_pre);
    delete b;
}

extern "C" int msm_gpu_bases_upload(msm_gpu_bases **out, int device, int curve, const void *affine, size_t n)
{
    int rc = bases_alloc(out, device, curve, n);
    if (rc) return rc;
    cudaError_t e = cuda_copy_to_device_done((*out)->d, affine, n * point_bytes(curve));
    if (e != cudaSuccess) {
        (void)cudaStreamSynchronize(0); /* a pageable copy may still run: then the free */
        msm_gpu_bases_free(*out);
        *out = nullptr;
        return gpu_error(e, "cudaMemcpy (bases upload)", __FILE__, __LINE__);
    }
    return CUZK_OK;
}

extern "C" int msm_gpu_bases_download(const msm_gpu_bases *b, size_t first, size_t count, void *out)
{
    if (!b || first > b->n || count > b->n - first)
        return err_set(CUZK_EINVAL, "msm_gpu_bases_download: [%zu, +%zu) of %zu", first, count, b ? b->n : 0);
    CUDA_TRY(cudaSetDevice(b->device));
    size_t pb = point_bytes(b->curve);
    CUDA_TRY(cudaMemcpy(out, (const char *)b->d + first * pb, count * pb, cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

/* D = b·gen (affine), one thread. */
template <class F> __global__ void k_gen_step(affine<F> gen, uint64_t b, affine<F> *d)
{
    xyzz<F> acc;
    set_inf(acc);
    for (int bit = 63; bit >= 0; bit--) {
        acc = dbl(acc);
        if ((b >> bit) & 1) acc = add_aff(acc, gen);
    }
    *d = to_affine(acc);
}

/* Thread th makes points [i0, i0 + m) of the slice: the first by double and add over the
 * 128-bit multiplier, the rest by adding D, then all to affine with one inversion
 * (Montgomery's trick; prefix products parked in the output's x). */
template <class F>
__global__ void __launch_bounds__(64) k_gen_points(affine<F> gen, const affine<F> *dstep, uint64_t a, uint64_t b,
                                                   size_t base_index, size_t count, unsigned m, xyzz<F> *scratch,
                                                   affine<F> *out)
{
    size_t th = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t j0 = th * m;
    if (j0 >= count) return;
    unsigned cnt = (unsigned)(count - j0 < m ? count - j0 : m);
    unsigned __int128 k = (unsigned __int128)a + (unsigned __int128)(base_index + j0 + 1) * b;
    xyzz<F> acc;
    set_inf(acc);
    for (int bit = 127; bit >= 0; bit--) {
        acc = dbl(acc);
        if ((uint64_t)(k >> bit) & 1) acc = add_aff(acc, gen);
    }
    const affine<F> d = *dstep;
    xyzz<F> *s = scratch + j0;
    affine<F> *o = out + j0;
    F prod;
    f_set_one(prod);
    for (unsigned j = 0; j < cnt; j++) {
        if (j) acc = add_aff(acc, d);
        s[j] = acc;
        prod = f_mul(prod, f_mul(acc.zz, acc.zzz)); /* never zero: the multipliers are nonzero mod r */
        o[j].x = prod;
    }
    F inv = f_inv(prod);
    for (int j = (int)cnt - 1; j >= 0; j--) {
        xyzz<F> p = s[j];
        F inv_j = j ? f_mul(inv, o[j - 1].x) : inv; /* 1/(ZZ·ZZZ) of point j */
        inv = f_mul(inv, f_mul(p.zz, p.zzz));
        o[j].x = f_mul(p.x, f_mul(inv_j, p.zzz));
        o[j].y = f_mul(p.y, f_mul(inv_j, p.zz));
    }
}

/* bases first .. first + count of the sequence, written to out (device memory) */
template <class F>
static int generate_typed(affine<F> *out, size_t first, size_t count, const void *gen_host, uint64_t a, uint64_t b)
{
    affine<F> gen;
    memcpy(&gen, gen_host, sizeof gen);
    const unsigned m = 64;
    const size_t slice = (size_t)1 << 22;
    size_t scratch_pts = count < slice ? count : slice;
    xyzz<F> *scratch = nullptr;
    affine<F> *dstep = nullptr;
    GPU_TRY(gpu_malloc((void **)&scratch, scratch_pts * sizeof(xyzz<F>)));
    cudaError_t e = gpu_malloc((void **)&dstep, sizeof(affine<F>)) ? cudaErrorMemoryAllocation : cudaSuccess;
    if (e == cudaSuccess) {
        k_gen_step<F><<<1, 1>>>(gen, b, dstep);
        e = cudaGetLastError();
    }
    for (size_t s0 = 0; e == cudaSuccess && s0 < count; s0 += slice) {
        size_t cnt = count - s0 < slice ? count - s0 : slice;
        size_t threads = (cnt + m - 1) / m;
        k_gen_points<F><<<(unsigned)((threads + 63) / 64), 64>>>(gen, dstep, a, b, first + s0, cnt, m, scratch,
                                                                 out + s0);
        e = cudaGetLastError();
    }
    /* its own launches (the legacy stream), not the device; also after a failed launch, since
     * the pool may hand the scratch out again at once */
    cudaError_t es = cudaStreamSynchronize(0);
    if (e == cudaSuccess) e = es;
    gpu_free(scratch);
    gpu_free(dstep);
    if (e != cudaSuccess) return gpu_error(e, "generating bases", __FILE__, __LINE__);
    return CUZK_OK;
}

extern "C" int msm_gpu_bases_generate_into(void *d_out, int curve, size_t first, size_t count, const void *gen,
                                           uint64_t a, uint64_t b)
{
    if (!gen || !d_out || b == 0) return err_set(CUZK_EINVAL, "msm_gpu_bases_generate_into: no output, generator or b = 0");
    if (curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2) return err_set(CUZK_EINVAL, "msm bases: curve %d", curve);
    if (!count) return CUZK_OK;
    return curve == MSM_CURVE_G1 ? generate_typed<fp>((affine<fp> *)d_out, first, count, gen, a, b)
                                 : generate_typed<fp2>((affine<fp2> *)d_out, first, count, gen, a, b);
}

extern "C" int msm_gpu_bases_generate(msm_gpu_bases **out, int device, int curve, size_t n, const void *gen,
                                      uint64_t a, uint64_t b)
{
    if (!gen || b == 0) return err_set(CUZK_EINVAL, "msm_gpu_bases_generate: no generator or b = 0");
    int rc = bases_alloc(out, device, curve, n);
    if (rc) return rc;
    rc = msm_gpu_bases_generate_into((*out)->d, curve, 0, n, gen, a, b);
    if (rc) {
        msm_gpu_bases_free(*out);
        *out = nullptr;
    }
    return rc;
}

extern "C" const void *msm_gpu_bases_data(const msm_gpu_bases *b) { return b ? b->d : nullptr; }
