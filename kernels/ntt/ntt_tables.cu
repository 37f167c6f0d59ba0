/*
 * Twiddle and coset tables for the GPU NTT, built on the device once per device (roots of
 * unity, 36 MiB) and once per device and size (1/n and the scaled coset tables), then
 * shared read-only by every transform on any stream.
 */
#include <mutex>

#include "cuda_util.cuh"
#include "ntt/ntt_internal.cuh"

#define MAX_DEVICES 64

int ntt_kernel_setup(void); /* ntt.cu: per-device kernel attributes */

/* ω of order 2^32 (FORMATS.md), canonical, little-endian 32-bit limbs. */
__constant__ uint32_t OMEGA_2_32[8] = {0x439f0d2b, 0x3829971f, 0x8c2280b9, 0xb6368350,
                                       0x22c813b4, 0xd09b6819, 0xdfe81f20, 0x16a2a19e};

/* consts: [0,1] ω_{2^28}^±1, [2,3] ω_{2^19}^±1, [4,5] ζ_{2^11}^±1, [6,7] ω_{2^28}^±2^14,
 * [8,9] g^±1, [10,11] g^±2^14 */
__global__ void ntt_consts_kernel(fr_gpu *c)
{
    fr_gpu w;
    for (int i = 0; i < 8; i++) w.v[i] = OMEGA_2_32[i];
    w = w.to_mont();
    for (int i = 0; i < 32 - 28; i++) w = w.sqr();
    fr_gpu w28 = w;
    for (int i = 0; i < 28 - 19; i++) w = w.sqr();
    fr_gpu w19 = w;
    for (int i = 0; i < 19 - 11; i++) w = w.sqr();
    fr_gpu z = w;
    fr_gpu w28h = w28;
    for (int i = 0; i < NTT_SPLIT; i++) w28h = w28h.sqr();
    fr_gpu g = fr_gpu::zero();
    g.v[0] = 7;
    g = g.to_mont();
    fr_gpu gh = g;
    for (int i = 0; i < NTT_SPLIT; i++) gh = gh.sqr();
    fr_gpu v[6] = {w28, w19, z, w28h, g, gh};
    for (int i = 0; i < 6; i++) {
        c[2 * i] = v[i];
        c[2 * i + 1] = fr_gpu::inv(v[i]);
    }
}

/* out[x] = scale · base^x for x < count (scale NULL = 1). */
__global__ void ntt_fill_powers(fr_gpu *out, uint32_t count, const fr_gpu *base, const fr_gpu *scale)
{
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= count) return;
    fr_gpu acc = *base, r = scale ? *scale : fr_gpu::one();
    for (uint32_t e = x; e; e >>= 1) {
        if (e & 1) r = r * acc;
        acc = acc.sqr();
    }
    out[x] = r;
}

/* s: [0] 1/n, [1] 1/(n·(g^n - 1)) for n = 2^log_n; c = the device consts above. */
__global__ void ntt_size_consts_kernel(fr_gpu *s, unsigned log_n, const fr_gpu *c)
{
    fr_gpu n = fr_gpu::zero();
    n.v[log_n / 32] = 1u << (log_n % 32);
    n = n.to_mont();
    fr_gpu gn = c[8];
    for (unsigned i = 0; i < log_n; i++) gn = gn.sqr();
    s[0] = fr_gpu::inv(n);
    s[1] = fr_gpu::inv(n * (gn - fr_gpu::one()));
}

static int fill(fr_gpu *out, uint32_t count, const fr_gpu *base, const fr_gpu *scale, cudaStream_t st)
{
    ntt_fill_powers<<<(count + 255) / 256, 256, 0, st>>>(out, count, base, scale);
    CUDA_TRY_LAUNCH("ntt_fill_powers");
    return 0;
}

static std::mutex ctx_lock;
static ntt_device_ctx contexts[MAX_DEVICES];

static int build_device(ntt_device_ctx *ctx, cudaStream_t st)
{
    const size_t z = (size_t)1 << NTT_Z_LOG, d = (size_t)1 << NTT_DIRECT_LOG, h = (size_t)1 << NTT_SPLIT;
    const size_t per_dir = z + d + 4 * h, total = 2 * per_dir + 16;
    fr_gpu *mem;
    CUDA_TRY(cudaMalloc(&mem, total * sizeof(fr_gpu)));
    fr_gpu *c = mem + 2 * per_dir;
    ntt_consts_kernel<<<1, 1, 0, st>>>(c);
    CUDA_TRY_LAUNCH("ntt_consts_kernel");
    for (int dir = 0; dir < 2; dir++) {
        fr_gpu *p = mem + dir * per_dir;
        ntt_dir_tables &t = ctx->dir[dir];
        t.z = p, t.direct = p + z, t.tl_lo = p + z + d, t.tl_hi = t.tl_lo + h;
        t.gc_lo = t.tl_hi + h, t.gc_hi = t.gc_lo + h;
        GPU_TRY(fill(p, (uint32_t)z, c + 4 + dir, NULL, st));
        GPU_TRY(fill(p + z, (uint32_t)d, c + 2 + dir, NULL, st));
        GPU_TRY(fill((fr_gpu *)t.tl_lo, (uint32_t)h, c + 0 + dir, NULL, st));
        GPU_TRY(fill((fr_gpu *)t.tl_hi, (uint32_t)h, c + 6 + dir, NULL, st));
        GPU_TRY(fill((fr_gpu *)t.gc_lo, (uint32_t)h, c + 8 + dir, NULL, st));
        GPU_TRY(fill((fr_gpu *)t.gc_hi, (uint32_t)h, c + 10 + dir, NULL, st));
    }
    ctx->mem = mem;
    return 0;
}

static int build_size(ntt_device_ctx *ctx, unsigned log_n, cudaStream_t st)
{
    ntt_size_ctx *s = &ctx->size[log_n];
    const uint32_t hcount = log_n > NTT_SPLIT ? 1u << (log_n - NTT_SPLIT) : 1u;
    fr_gpu *mem;
    CUDA_TRY(cudaMalloc(&mem, (2 + 3 * (size_t)hcount) * sizeof(fr_gpu)));
    /* the device consts sit right after the two direction blocks */
    const fr_gpu *c = ctx->dir[1].gc_hi + ((size_t)1 << NTT_SPLIT);
    ntt_size_consts_kernel<<<1, 1, 0, st>>>(mem, log_n, c);
    CUDA_TRY_LAUNCH("ntt_size_consts_kernel");
    fr_gpu *t = mem + 2;
    s->hi_fwd_inv_n = t, s->hi_inv_inv_n = t + hcount, s->hi_inv_h = t + 2 * hcount;
    GPU_TRY(fill(t, hcount, c + 10, mem, st));
    GPU_TRY(fill(t + hcount, hcount, c + 11, mem, st));
    GPU_TRY(fill(t + 2 * hcount, hcount, c + 11, mem + 1, st));
    fr_gpu host[2];
    CUDA_TRY(cudaMemcpyAsync(host, mem, sizeof host, cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaStreamSynchronize(st));
    s->inv_n = host[0], s->h_scale = host[1];
    s->mem = mem;
    return 0;
}

int ntt_ctx_get(unsigned log_n, const ntt_device_ctx **out, const ntt_size_ctx **size_out)
{
    int dev;
    CUDA_TRY(cudaGetDevice(&dev));
    if (dev < 0 || dev >= MAX_DEVICES) return err_set(CUZK_EDEVICE, "device %d out of range", dev);
    ntt_device_ctx *ctx = &contexts[dev];
    /* built once per device and size: the H step of every partition reads them without the
     * lock (acquire pairs with the release stores below) */
    if (__atomic_load_n(&ctx->ready, __ATOMIC_ACQUIRE) && __atomic_load_n(&ctx->size[log_n].ready, __ATOMIC_ACQUIRE)) {
        *out = ctx;
        if (size_out) *size_out = &ctx->size[log_n];
        return 0;
    }
    std::lock_guard<std::mutex> guard(ctx_lock);
    if (!ctx->ready || !ctx->size[log_n].ready) {
        cudaStream_t st;
        CUDA_TRY(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        int rc = 0;
        if (!ctx->ready) {
            rc = ntt_kernel_setup();
            if (!rc) rc = build_device(ctx, st);
            if (!rc) {
                cudaError_t e = cudaStreamSynchronize(st);
                if (e != cudaSuccess) rc = gpu_error(e, "building NTT tables", __FILE__, __LINE__);
            }
            if (!rc) __atomic_store_n(&ctx->ready, 1, __ATOMIC_RELEASE);
        }
        if (!rc && !ctx->size[log_n].ready) {
            rc = build_size(ctx, log_n, st);
            if (!rc) __atomic_store_n(&ctx->size[log_n].ready, 1, __ATOMIC_RELEASE);
        }
        cudaStreamDestroy(st);
        if (rc) return rc;
    }
    *out = ctx;
    if (size_out) *size_out = &ctx->size[log_n];
    return 0;
}
