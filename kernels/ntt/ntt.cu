/*
 * The GPU NTT over Fr: a 2^L transform is 1-3 passes over device memory, each running up
 * to 11 radix-2 stages on a tile of 2^11 elements in shared memory.
 *
 * Decimation in frequency (natural in, bit-reversed out), pass by pass: a pass owns the
 * stages with half-sizes G·2^(K-1) .. G and works on "columns" x[g·G·2^K + b + m·G]
 * (b < G, m < 2^K): a size-2^K DIF with the column roots ζ, then position m times
 * W^(b·bitrev_K(m)) with W of order G·2^K (the four-step twiddle; exactly the radix-2
 * twiddles regrouped). The last pass (G = 1) needs no twiddle. Decimation in time
 * (bit-reversed in, natural out) is the transpose: the same passes in reverse order, the
 * twiddle before the column, each butterfly transposed. Forward and inverse differ only in
 * the tables (ω or ω^-1). Stages 1 and 0 of a column run per quartet (1 product, not 2);
 * the others two at a time per round trip through shared memory (stage_r4). The H step
 * runs two transforms in one pass where their tiles coincide (FUSE_MID, FUSE_MUL).
 */
#include <stdlib.h>

#include "cuda_util.cuh"
#include "ntt.h"
#include "ntt/ntt_internal.cuh"

#define LOG_TILE 11
#define TILE (1u << LOG_TILE)
#define MAX_THREADS (TILE / 8)

struct pass_params {
    fr_gpu *data, *out;
    const fr_gpu *z;
    const fr_gpu *tw_a, *tw_b; /* direct table, or two-level lo / hi */
    uint32_t tw_mode, tw_shift;
    uint32_t log_n, K, log_G, log_C;
    uint32_t in_hook, out_hook;
    const fr_gpu *in_lo, *in_hi, *out_lo, *out_hi, *aux;
    /* fused passes: the second transform's roots; FUSE_MID: the mid factor's tables;
     * FUSE_MUL: the second (DIF) transform's twiddle tables (aux is the multiplier) */
    const fr_gpu *z2, *mid_lo, *mid_hi, *tw2_a, *tw2_b;
    fr_gpu scale;
};

enum { TW_NONE = 0, TW_DIRECT = 1, TW_TWO = 2 };
/* Two transforms in one pass over memory (same tile layout): FUSE_MID, a DIF's last pass
 * (log_G = 0), times the mid factor, then a DIT's first; FUSE_MUL, a DIT's last pass (pass
 * 0), times aux, then a DIF's first (pass 0). */
enum { FUSE_NONE = 0, FUSE_MID = 1, FUSE_MUL = 2 };

__device__ __forceinline__ uint32_t brev(uint32_t x, uint32_t bits)
{
    return bits ? __brev(x) >> (32 - bits) : 0;
}

/* Shared memory: element s as two 16-byte halves in separate arrays, XOR-swizzled so that
 * the 8 threads of a 16-byte access phase hit 8 distinct bank groups for the strides the
 * rounds use. */
__device__ __forceinline__ uint32_t swz(uint32_t s) { return s ^ ((s >> 3) & 7); }

__device__ __forceinline__ fr_gpu sm_load(const uint4 *lo, const uint4 *hi, uint32_t s)
{
    uint32_t k = swz(s);
    uint4 a = lo[k], b = hi[k];
    fr_gpu r;
    r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w;
    r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
    return r;
}

__device__ __forceinline__ void sm_store(uint4 *lo, uint4 *hi, uint32_t s, const fr_gpu &x)
{
    uint32_t k = swz(s);
    lo[k] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
    hi[k] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
}

/* g^(±i)·scale from a two-level table: hi[i >> 14] · lo[i mod 2^14]. */
__device__ __forceinline__ fr_gpu two_level(const fr_gpu *lo, const fr_gpu *hi, uint32_t i)
{
    return fr_gpu::ldg(hi + (i >> NTT_SPLIT)) * fr_gpu::ldg(lo + (i & ((1u << NTT_SPLIT) - 1)));
}

/* The row-pass twiddle W^e, W of order G·2^K, from tables a (and b). */
__device__ __forceinline__ fr_gpu row_twiddle(const pass_params &p, uint32_t e, const fr_gpu *a, const fr_gpu *b)
{
    if (p.tw_mode == TW_DIRECT) return fr_gpu::ldg(a + (e << p.tw_shift));
    return two_level(a, b, e << p.tw_shift);
}
__device__ __forceinline__ fr_gpu row_twiddle(const pass_params &p, uint32_t e)
{
    return row_twiddle(p, e, p.tw_a, p.tw_b);
}

__device__ __forceinline__ void bfly_dif(fr_gpu &x, fr_gpu &y, const fr_gpu &w)
{
    fr_gpu d = x - y;
    x = x + y;
    y = d * w;
}
__device__ __forceinline__ void bfly_dif1(fr_gpu &x, fr_gpu &y)
{
    fr_gpu d = x - y;
    x = x + y;
    y = d;
}
__device__ __forceinline__ void bfly_dit(fr_gpu &x, fr_gpu &y, const fr_gpu &w)
{
    fr_gpu t = y * w;
    y = x - t;
    x = x + t;
}
__device__ __forceinline__ void bfly_dit1(fr_gpu &x, fr_gpu &y)
{
    fr_gpu t = y;
    y = x - t;
    x = x + t;
}

/* Shared-memory index of column-local element m of tile column cl. */
__device__ __forceinline__ uint32_t sidx(const pass_params &p, uint32_t cl, uint32_t m)
{
    return p.log_G ? (m << p.log_C) | cl : (cl << p.K) | m;
}

/*
 * One radix-2 stage s (half-size 2^s within a column, s >= 2) over the whole tile in
 * shared memory. The loop is rolled on purpose: with every product inlined, unrolled
 * rounds made the kernel ~34K instructions and instruction fetch stalled warps ~40% of
 * the time (ncu); one product per loop body keeps the hot code in the instruction cache.
 * Twiddle of pair index pp: ζ^((pp mod 2^s)·2^(10-s)) in the 2^11-th root table.
 */
template <bool DIF>
__device__ __forceinline__ void stage_r2(const pass_params &p, const fr_gpu *z, uint4 *lo, uint4 *hi, uint32_t s)
{
    const uint32_t half = blockDim.x * 4, smask = (1u << s) - 1;
#pragma unroll 1
    for (uint32_t q = threadIdx.x; q < half; q += blockDim.x) {
        uint32_t cl, pp;
        if (p.log_G) cl = q & ((1u << p.log_C) - 1), pp = q >> p.log_C;
        else pp = q & ((1u << (p.K - 1)) - 1), cl = q >> (p.K - 1);
        const uint32_t m = ((pp >> s) << (s + 1)) | (pp & smask);
        const uint32_t i0 = sidx(p, cl, m), i1 = sidx(p, cl, m + (1u << s));
        fr_gpu x = sm_load(lo, hi, i0), y = sm_load(lo, hi, i1);
        const fr_gpu w = fr_gpu::ldg(z + ((pp & smask) << (10 - s)));
        if (DIF) bfly_dif(x, y, w);
        else bfly_dit(x, y, w);
        sm_store(lo, hi, i0, x);
        sm_store(lo, hi, i1, y);
    }
}

/* Stages 1 and 0 on quartets of consecutive elements: the twiddles are 1 and ζ_4, so a
 * quartet costs one product instead of two. */
template <bool DIF> __device__ __forceinline__ void stage_bottom4(const pass_params &p, const fr_gpu *z, uint4 *lo, uint4 *hi)
{
    const fr_gpu z4 = fr_gpu::ldg(z + 512);
#pragma unroll 1
    for (uint32_t gamma = threadIdx.x; gamma < blockDim.x * 2; gamma += blockDim.x) {
        uint32_t cl, w;
        if (p.log_G) cl = gamma & ((1u << p.log_C) - 1), w = gamma >> p.log_C;
        else w = gamma & ((1u << (p.K - 2)) - 1), cl = gamma >> (p.K - 2);
        const uint32_t base = w << 2;
        fr_gpu x[4];
#pragma unroll
        for (int i = 0; i < 4; i++) x[i] = sm_load(lo, hi, sidx(p, cl, base + i));
        if (DIF) {
            bfly_dif1(x[0], x[2]), bfly_dif(x[1], x[3], z4);
            bfly_dif1(x[0], x[1]), bfly_dif1(x[2], x[3]);
        } else {
            bfly_dit1(x[0], x[1]), bfly_dit1(x[2], x[3]);
            bfly_dit1(x[0], x[2]), bfly_dit(x[1], x[3], z4);
        }
#pragma unroll
        for (int i = 0; i < 4; i++) sm_store(lo, hi, sidx(p, cl, base + i), x[i]);
    }
}

/*
 * Stages s and s-1 (s >= 3) in one round trip through shared memory: each thread takes
 * quads m0 + {0, h, 2h, 3h} (h = 2^(s-1), bits s and s-1 of m0 clear), two radix-2
 * stages in registers. Half the shared-memory traffic and barriers of two stage_r2 calls,
 * and two independent products per stage in one thread; the same twiddles (ζ table).
 */
template <bool DIF>
__device__ __forceinline__ void stage_r4(const pass_params &p, const fr_gpu *z, uint4 *lo, uint4 *hi, uint32_t s)
{
    const uint32_t quads = blockDim.x * 2, h = 1u << (s - 1), jmask = h - 1;
#pragma unroll 1
    for (uint32_t q = threadIdx.x; q < quads; q += blockDim.x) {
        uint32_t cl, qq;
        if (p.log_G) cl = q & ((1u << p.log_C) - 1), qq = q >> p.log_C;
        else qq = q & ((1u << (p.K - 2)) - 1), cl = q >> (p.K - 2);
        const uint32_t j = qq & jmask, m0 = ((qq >> (s - 1)) << (s + 1)) | j;
        const uint32_t i0 = sidx(p, cl, m0), i1 = sidx(p, cl, m0 + h), i2 = sidx(p, cl, m0 + 2 * h),
                       i3 = sidx(p, cl, m0 + 3 * h);
        fr_gpu x0 = sm_load(lo, hi, i0), x1 = sm_load(lo, hi, i1), x2 = sm_load(lo, hi, i2), x3 = sm_load(lo, hi, i3);
        const fr_gpu wa = fr_gpu::ldg(z + (j << (10 - s))), wb = fr_gpu::ldg(z + ((j + h) << (10 - s))),
                     wc = fr_gpu::ldg(z + (j << (11 - s)));
        if (DIF) {
            bfly_dif(x0, x2, wa), bfly_dif(x1, x3, wb);
            bfly_dif(x0, x1, wc), bfly_dif(x2, x3, wc);
        } else {
            bfly_dit(x0, x1, wc), bfly_dit(x2, x3, wc);
            bfly_dit(x0, x2, wa), bfly_dit(x1, x3, wb);
        }
        sm_store(lo, hi, i0, x0), sm_store(lo, hi, i1, x1), sm_store(lo, hi, i2, x2), sm_store(lo, hi, i3, x3);
    }
}

/* The K column stages of a tile in shared memory (callers sync before and after). */
template <bool DIF, bool R4>
__device__ __forceinline__ void column_stages(const pass_params &p, const fr_gpu *z, uint4 *lo, uint4 *hi)
{
    const uint32_t K = p.K;
    if (DIF) {
        uint32_t s = K - 1;
        if (R4)
            for (; s >= 3 && s < 32; s -= 2) {
                stage_r4<true>(p, z, lo, hi, s);
                __syncthreads();
            }
        for (; s >= 2 && s < 32; s--) {
            stage_r2<true>(p, z, lo, hi, s);
            __syncthreads();
        }
        stage_bottom4<true>(p, z, lo, hi);
    } else {
        stage_bottom4<false>(p, z, lo, hi);
        uint32_t s = 2;
        if (!R4)
            for (; s < K; s++) {
                __syncthreads();
                stage_r2<false>(p, z, lo, hi, s);
            }
        else {
            if ((K - 2) & 1) {
                __syncthreads();
                stage_r2<false>(p, z, lo, hi, 2);
                s = 3;
            }
            for (; s + 1 < K; s += 2) {
                __syncthreads();
                stage_r4<false>(p, z, lo, hi, s + 1);
            }
        }
    }
}

/* Tile element e (0 <= e < 2^(K+log_C)) of this block -> column cl, column index m and the
 * global position. Consecutive e are consecutive in memory within runs of C (row passes)
 * or entirely (column passes), so loads and stores coalesce. */
__device__ __forceinline__ uint32_t elem_pos(const pass_params &p, uint32_t e, uint32_t &cl, uint32_t &m)
{
    const uint32_t c0 = blockIdx.x << p.log_C;
    if (p.log_G) {
        m = e >> p.log_C, cl = e & ((1u << p.log_C) - 1);
        const uint32_t c = c0 + cl;
        const uint32_t g = c >> p.log_G, b = c & ((1u << p.log_G) - 1);
        return (g << (p.log_G + p.K)) + b + (m << p.log_G);
    }
    cl = e >> p.K, m = e & ((1u << p.K) - 1);
    return (c0 << p.K) + e;
}

/*
 * One pass over its tiles. Phases: raw coalesced copy global -> shared (all loads in
 * flight at once); per-element factors (in-hook, DIT twiddle) in a rolled loop over the
 * thread's own elements; the column stages; per-element factors (DIF twiddle, out-hook);
 * raw copy back (or, for HFINAL, the scattered natural-order store).
 */
template <bool DIF, bool R4, int FUSE>
__global__ void __launch_bounds__(MAX_THREADS, 3) ntt_pass_kernel(const pass_params p)
{
    extern __shared__ uint4 smem[];
    const uint32_t T = blockDim.x, E = T * 8;
    uint4 *lo = smem, *hi = smem + E;
    const uint32_t log_C = p.log_C, gmask = (1u << p.log_G) - 1;
    const bool tw = p.tw_mode != TW_NONE;
    /* the row twiddle's exponent of the element in column cl, row m of this block's tile */
    auto tw_exp = [&](uint32_t cl, uint32_t m) { return (((blockIdx.x << log_C) + cl) & gmask) * brev(m, p.K); };

#pragma unroll
    for (int j = 0; j < 8; j++) {
        const uint32_t e = threadIdx.x + j * T;
        uint32_t cl, m;
        sm_store(lo, hi, e, fr_gpu::load(p.data + elem_pos(p, e, cl, m)));
    }
    if (p.in_hook == NTT_HOOK_COSET || (!DIF && tw)) {
#pragma unroll 1
        for (int j = 0; j < 8; j++) {
            const uint32_t e = threadIdx.x + j * T;
            uint32_t cl, m;
            const uint32_t pos = elem_pos(p, e, cl, m);
            fr_gpu x = sm_load(lo, hi, e);
            if (p.in_hook == NTT_HOOK_COSET) x = x * two_level(p.in_lo, p.in_hi, DIF ? pos : brev(pos, p.log_n));
            if (!DIF && tw) x = x * row_twiddle(p, tw_exp(cl, m));
            sm_store(lo, hi, e, x);
        }
    }
    __syncthreads();

    column_stages<DIF, R4>(p, p.z, lo, hi);
    __syncthreads();
    if (FUSE == FUSE_MUL) {
        /* the DIT's last pass is done (natural order): times aux (the pointwise product),
         * then the DIF's first pass of the next transform with its own twiddles */
#pragma unroll 1
        for (int j = 0; j < 8; j++) {
            const uint32_t e = threadIdx.x + j * T;
            uint32_t cl, m;
            const uint32_t pos = elem_pos(p, e, cl, m);
            sm_store(lo, hi, e, sm_load(lo, hi, e) * fr_gpu::load(p.aux + pos));
        }
        __syncthreads();
        column_stages<true, R4>(p, p.z2, lo, hi);
        __syncthreads();
#pragma unroll 1
        for (int j = 0; j < 8; j++) {
            const uint32_t e = threadIdx.x + j * T;
            uint32_t cl, m;
            const uint32_t pos = elem_pos(p, e, cl, m);
            fr_gpu x = sm_load(lo, hi, e);
            if (tw) x = x * row_twiddle(p, tw_exp(cl, m), p.tw2_a, p.tw2_b);
            x.store(p.out + pos);
        }
        return;
    }
    if (FUSE == FUSE_MID) {
        /* the inverse transform's last pass is done (bit-reversed coefficients): times the
         * mid factor (coset power / n), then the forward DIT's first pass on the same tile
         * (log_G = 0 in both: no twiddle, the same columns) */
#pragma unroll 1
        for (int j = 0; j < 8; j++) {
            const uint32_t e = threadIdx.x + j * T;
            uint32_t cl, m;
            const uint32_t pos = elem_pos(p, e, cl, m);
            sm_store(lo, hi, e, sm_load(lo, hi, e) * two_level(p.mid_lo, p.mid_hi, brev(pos, p.log_n)));
        }
        __syncthreads();
        column_stages<false, R4>(p, p.z2, lo, hi);
        __syncthreads();
    }

    const int hook = p.out_hook;
    if (hook == NTT_HOOK_HFINAL || hook == NTT_HOOK_HFINAL_NAT) {
#pragma unroll 1
        for (int j = 0; j < 8; j++) {
            const uint32_t e = threadIdx.x + j * T;
            uint32_t cl, m;
            const uint32_t pos = elem_pos(p, e, cl, m);
            const uint32_t k = DIF ? brev(pos, p.log_n) : pos;
            fr_gpu x = sm_load(lo, hi, e);
            if (DIF && tw) x = x * row_twiddle(p, tw_exp(cl, m));
            x = x * two_level(p.out_lo, p.out_hi, k) - fr_gpu::load(p.aux + (hook == NTT_HOOK_HFINAL ? pos : k));
            x.store(p.out + k);
        }
        return;
    }
    if ((DIF && tw) || hook != NTT_HOOK_NONE) {
#pragma unroll 1
        for (int j = 0; j < 8; j++) {
            const uint32_t e = threadIdx.x + j * T;
            uint32_t cl, m;
            const uint32_t pos = elem_pos(p, e, cl, m);
            fr_gpu x = sm_load(lo, hi, e);
            if (DIF && tw) x = x * row_twiddle(p, tw_exp(cl, m));
            if (hook == NTT_HOOK_SCALE) x = x * p.scale;
            else if (hook == NTT_HOOK_COSET) x = x * two_level(p.out_lo, p.out_hi, DIF ? brev(pos, p.log_n) : pos);
            else if (hook == NTT_HOOK_MUL) x = x * fr_gpu::load(p.aux + pos);
            sm_store(lo, hi, e, x);
        }
    }
#pragma unroll
    for (int j = 0; j < 8; j++) {
        const uint32_t e = threadIdx.x + j * T;
        uint32_t cl, m;
        sm_load(lo, hi, e).store(p.out + elem_pos(p, e, cl, m));
    }
}

/* Sizes 2 and 4: one thread, the DFT by definition, same hooks and orders. */
__global__ void ntt_tiny_kernel(const pass_params p, bool dif)
{
    const uint32_t n = 1u << p.log_n;
    fr_gpu x[4], y[4];
    for (uint32_t a = 0; a < n; a++) {
        const uint32_t i = dif ? a : brev(a, p.log_n);
        fr_gpu v = fr_gpu::load(p.data + a);
        if (p.in_hook == NTT_HOOK_COSET) v = v * two_level(p.in_lo, p.in_hi, i);
        x[i] = v;
    }
    const fr_gpu w = fr_gpu::ldg(p.z + (2048u >> p.log_n)); /* ω_n */
    for (uint32_t k = 0; k < n; k++) {
        fr_gpu acc = fr_gpu::zero(), wk = fr_gpu::one(), step = fr_gpu::one();
        for (uint32_t t = 0; t < k; t++) step = step * w;
        for (uint32_t i = 0; i < n; i++) {
            acc = acc + x[i] * wk;
            wk = wk * step;
        }
        y[k] = acc;
    }
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t pos = dif ? brev(k, p.log_n) : k;
        fr_gpu v = y[k];
        switch (p.out_hook) {
        case NTT_HOOK_SCALE: v = v * p.scale; break;
        case NTT_HOOK_COSET: v = v * two_level(p.out_lo, p.out_hi, k); break;
        case NTT_HOOK_MUL: v = v * fr_gpu::load(p.aux + pos); break;
        case NTT_HOOK_HFINAL: v = v * two_level(p.out_lo, p.out_hi, k) - fr_gpu::load(p.aux + pos); break;
        case NTT_HOOK_HFINAL_NAT: v = v * two_level(p.out_lo, p.out_hi, k) - fr_gpu::load(p.aux + k); break;
        default: break;
        }
        y[k] = v;
    }
    /* write after all reads: out may alias data */
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t pos = dif ? brev(k, p.log_n) : k;
        y[k].store(p.out + (p.out_hook == NTT_HOOK_HFINAL || p.out_hook == NTT_HOOK_HFINAL_NAT ? k : pos));
    }
}

__global__ void ntt_bitrev_kernel(fr_gpu *d, uint32_t log_n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >> log_n) return;
    const uint32_t j = brev(i, log_n);
    if (i < j) {
        fr_gpu a = fr_gpu::load(d + i), b = fr_gpu::load(d + j);
        b.store(d + i);
        a.store(d + j);
    }
}

/* Radix of the column stages: 4 (two stages per round trip through shared memory) unless
 * CUZK_NTT_RADIX=2 (the earlier radix-2 rounds, kept to measure one against the other). */
static bool use_r4(void)
{
    static const bool r4 = [] {
        const char *r = getenv("CUZK_NTT_RADIX");
        return !(r && r[0] == '2');
    }();
    return r4;
}

template <bool DIF, bool R4, int FUSE> static int set_smem(int bytes)
{
    CUDA_TRY(cudaFuncSetAttribute(ntt_pass_kernel<DIF, R4, FUSE>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    return 0;
}

int ntt_kernel_setup(void)
{
    const int bytes = TILE * 32;
    GPU_TRY((set_smem<true, false, FUSE_NONE>(bytes)));
    GPU_TRY((set_smem<false, false, FUSE_NONE>(bytes)));
    GPU_TRY((set_smem<true, false, FUSE_MID>(bytes)));
    GPU_TRY((set_smem<false, false, FUSE_MUL>(bytes)));
    GPU_TRY((set_smem<true, true, FUSE_NONE>(bytes)));
    GPU_TRY((set_smem<false, true, FUSE_NONE>(bytes)));
    GPU_TRY((set_smem<true, true, FUSE_MID>(bytes)));
    return set_smem<false, true, FUSE_MUL>(bytes);
}

/* Stages per pass in DIF order: one column pass up to 2^11; then a row pass of up to 9
 * stages (tiles of >= 4 columns, so every access moves >= 128 contiguous bytes) before it;
 * three passes above 2^20. */
static int plan(unsigned L, unsigned *k)
{
    if (L <= LOG_TILE) return k[0] = L, 1;
    if (L <= 20) {
        k[0] = L / 2 < 9 ? L / 2 : 9;
        k[1] = L - k[0];
        return 2;
    }
    k[0] = 9, k[1] = 9, k[2] = L - 18;
    return 3;
}

/* The parameters of pass i (DIF numbering) of a 2^L transform with tables t, job's hooks
 * for its first (step 0) and last (step np-1) pass in run order. */
static void pass_setup(pass_params &p, const ntt_job &job, const ntt_dir_tables &t, const unsigned *k, int np,
                       int i, int step)
{
    const unsigned L = job.log_n;
    p = pass_params{};
    p.z = t.z;
    p.log_n = L;
    p.in_lo = job.in_lo, p.in_hi = job.in_hi, p.out_lo = job.out_lo, p.out_hi = job.out_hi;
    p.aux = job.aux, p.scale = job.scale;
    unsigned above = 0;
    for (int j = 0; j < i; j++) above += k[j];
    p.K = k[i];
    p.log_G = L - above - k[i];
    const unsigned log_tile = L < LOG_TILE ? L : LOG_TILE;
    p.log_C = log_tile - p.K;
    const unsigned span = L - above; /* log of the twiddle's order G·2^K */
    if (p.log_G == 0) p.tw_mode = TW_NONE;
    else if (span <= NTT_DIRECT_LOG) p.tw_mode = TW_DIRECT, p.tw_a = t.direct, p.tw_shift = NTT_DIRECT_LOG - span;
    else p.tw_mode = TW_TWO, p.tw_a = t.tl_lo, p.tw_b = i == 0 && job.tw0_hi ? job.tw0_hi : t.tl_hi, p.tw_shift = NTT_MAX_LOG - span;
    p.data = job.data;
    p.out = step == np - 1 ? job.out : job.data;
    p.in_hook = step == 0 ? job.in_hook : NTT_HOOK_NONE;
    p.out_hook = step == np - 1 ? job.out_hook : NTT_HOOK_NONE;
}

template <bool R4> static void launch_r(const pass_params &p, bool dif, int fuse, cudaStream_t stream)
{
    const unsigned log_tile = p.log_n < LOG_TILE ? p.log_n : LOG_TILE;
    const unsigned threads = 1u << (log_tile - 3), blocks = 1u << (p.log_n - log_tile);
    const size_t smem = (size_t)32 << log_tile;
    if (fuse == FUSE_MID) ntt_pass_kernel<true, R4, FUSE_MID><<<blocks, threads, smem, stream>>>(p);
    else if (fuse == FUSE_MUL) ntt_pass_kernel<false, R4, FUSE_MUL><<<blocks, threads, smem, stream>>>(p);
    else if (dif) ntt_pass_kernel<true, R4, FUSE_NONE><<<blocks, threads, smem, stream>>>(p);
    else ntt_pass_kernel<false, R4, FUSE_NONE><<<blocks, threads, smem, stream>>>(p);
}

static int launch(const pass_params &p, bool dif, int fuse, cudaStream_t stream)
{
    if (use_r4()) launch_r<true>(p, dif, fuse, stream);
    else launch_r<false>(p, dif, fuse, stream);
    CUDA_TRY_LAUNCH("ntt_pass_kernel");
    return 0;
}

int ntt_run(const ntt_job &job, const ntt_device_ctx *ctx, cudaStream_t stream)
{
    const unsigned L = job.log_n;
    const ntt_dir_tables &t = ctx->dir[job.inverse ? 1 : 0];
    pass_params p;
    if (L <= 2) {
        unsigned k1 = L;
        pass_setup(p, job, t, &k1, 1, 0, 0);
        ntt_tiny_kernel<<<1, 1, 0, stream>>>(p, job.dif);
        CUDA_TRY_LAUNCH("ntt_tiny_kernel");
        return 0;
    }
    unsigned k[3];
    const int np = plan(L, k);
    for (int step = 0; step < np; step++) {
        pass_setup(p, job, t, k, np, job.dif ? step : np - 1 - step, step);
        GPU_TRY(launch(p, job.dif, FUSE_NONE, stream));
    }
    return 0;
}

int ntt_run_chain(const ntt_job &inv, const ntt_job &fwd, const ntt_job *then, int part, const ntt_device_ctx *ctx,
                  cudaStream_t stream)
{
    const unsigned L = inv.log_n;
    unsigned k[3];
    const int np = L > 2 ? plan(L, k) : 1;
    if (np < 2) { /* one tile: nothing to fuse */
        if (part & NTT_CHAIN_HEAD) {
            GPU_TRY(ntt_run(inv, ctx, stream));
            GPU_TRY(ntt_run(fwd, ctx, stream));
        }
        return (part & NTT_CHAIN_LAST) && then ? ntt_run(*then, ctx, stream) : 0;
    }
    if (!inv.dif || fwd.dif || inv.out_hook != NTT_HOOK_COSET || fwd.in_hook != NTT_HOOK_NONE || inv.out != inv.data ||
        fwd.data != inv.data || fwd.out != fwd.data || fwd.log_n != L ||
        (then && (!then->dif || fwd.out_hook != NTT_HOOK_MUL || then->in_hook != NTT_HOOK_NONE ||
                  then->data != fwd.data || then->log_n != L)))
        return err_set(CUZK_EINVAL, "ntt_run_chain: transforms that cannot share passes");
    const ntt_dir_tables &ti = ctx->dir[inv.inverse ? 1 : 0], &tf = ctx->dir[fwd.inverse ? 1 : 0];
    struct {
        pass_params p;
        bool dif;
        int fuse;
    } q[9];
    int n = 0;
    for (int step = 0; step < np - 1; step++, n++) pass_setup(q[n].p, inv, ti, k, np, step, step), q[n].dif = true, q[n].fuse = FUSE_NONE;
    /* the inverse's last pass and the forward's first: one tile, no hooks but the mid factor */
    pass_setup(q[n].p, inv, ti, k, np, np - 1, 1);
    q[n].p.out = inv.data, q[n].p.out_hook = NTT_HOOK_NONE;
    q[n].p.z2 = tf.z, q[n].p.mid_lo = inv.out_lo, q[n].p.mid_hi = inv.out_hi;
    q[n].dif = true, q[n++].fuse = FUSE_MID;
    const int fwd_end = then ? np - 1 : np;
    for (int step = 1; step < fwd_end; step++, n++)
        pass_setup(q[n].p, fwd, tf, k, np, np - 1 - step, step), q[n].dif = false, q[n].fuse = FUSE_NONE;
    if (then) {
        const ntt_dir_tables &t2 = ctx->dir[then->inverse ? 1 : 0];
        /* the forward's last pass (pass 0), times aux, and then's first pass (pass 0) */
        pass_setup(q[n].p, fwd, tf, k, np, 0, np - 1);
        q[n].p.out = fwd.data, q[n].p.out_hook = NTT_HOOK_NONE;
        q[n].p.z2 = t2.z;
        q[n].p.tw2_a = q[n].p.tw_mode == TW_DIRECT ? t2.direct : t2.tl_lo;
        q[n].p.tw2_b = then->tw0_hi ? then->tw0_hi : t2.tl_hi;
        q[n].dif = false, q[n++].fuse = FUSE_MUL;
        for (int step = 1; step < np; step++, n++)
            pass_setup(q[n].p, *then, t2, k, np, step, step), q[n].dif = true, q[n].fuse = FUSE_NONE;
    }
    const int head = then ? fwd_end + np : n; /* passes up to and with the product's */
    for (int i = 0; i < n; i++) {
        const int in = i < head ? NTT_CHAIN_HEAD : i < n - 1 ? NTT_CHAIN_MID : NTT_CHAIN_LAST;
        if (part & in) GPU_TRY(launch(q[i].p, q[i].dif, q[i].fuse, stream));
    }
    return 0;
}

int ntt_bitrev_permute(fr_gpu *d, unsigned log_n, cudaStream_t stream)
{
    const uint32_t n = 1u << log_n;
    ntt_bitrev_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d, log_n);
    CUDA_TRY_LAUNCH("ntt_bitrev_kernel");
    return 0;
}

extern "C" int gpu_ntt_prepare(unsigned log_n)
{
    if (log_n < 1 || log_n > NTT_MAX_LOG) return err_set(CUZK_EINVAL, "NTT size 2^%u is outside 2^1..2^%d", log_n, NTT_MAX_LOG);
    const ntt_device_ctx *ctx;
    return ntt_ctx_get(log_n, &ctx, NULL);
}

extern "C" int gpu_ntt(void *d, unsigned log_n, int direction, int coset, int order_in, int order_out,
                       void *stream)
{
    if (log_n < 1 || log_n > NTT_MAX_LOG) return err_set(CUZK_EINVAL, "NTT size 2^%u is outside 2^1..2^%d", log_n, NTT_MAX_LOG);
    if (!d) return err_set(CUZK_EINVAL, "gpu_ntt: NULL data");
    if ((direction != GPU_NTT_FORWARD && direction != GPU_NTT_INVERSE) || (order_in != GPU_NTT_NATURAL && order_in != GPU_NTT_BITREV) ||
        (order_out != GPU_NTT_NATURAL && order_out != GPU_NTT_BITREV))
        return err_set(CUZK_EINVAL, "gpu_ntt: bad direction %d or order %d/%d", direction, order_in, order_out);
    const ntt_device_ctx *ctx;
    const ntt_size_ctx *sz;
    GPU_TRY(ntt_ctx_get(log_n, &ctx, &sz));
    cudaStream_t st = (cudaStream_t)stream;
    fr_gpu *x = (fr_gpu *)d;
    ntt_job job = {};
    job.data = job.out = x;
    job.log_n = log_n;
    job.inverse = direction == GPU_NTT_INVERSE;
    /* bit-reversed -> natural runs DIT; everything else runs DIF with permutations around */
    job.dif = !(order_in == GPU_NTT_BITREV && order_out == GPU_NTT_NATURAL);
    if (!job.inverse && coset) {
        job.in_hook = NTT_HOOK_COSET;
        job.in_lo = ctx->dir[0].gc_lo, job.in_hi = ctx->dir[0].gc_hi;
    } else if (job.inverse && coset) {
        job.out_hook = NTT_HOOK_COSET;
        job.out_lo = ctx->dir[1].gc_lo, job.out_hi = sz->hi_inv_inv_n;
    } else if (job.inverse) {
        job.out_hook = NTT_HOOK_SCALE;
        job.scale = sz->inv_n;
    }
    if (job.dif && order_in == GPU_NTT_BITREV) GPU_TRY(ntt_bitrev_permute(x, log_n, st));
    GPU_TRY(ntt_run(job, ctx, st));
    if (job.dif && order_out == GPU_NTT_NATURAL) GPU_TRY(ntt_bitrev_permute(x, log_n, st));
    return 0;
}

__global__ void fill_random_kernel(fr_gpu *d, uint64_t n, uint64_t seed)
{
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_gpu x;
    uint64_t s = seed ^ (i * 0x9e3779b97f4a7c15ull);
    for (int k = 0; k < 4; k++) { /* splitmix64 */
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        x.v[2 * k] = (uint32_t)z, x.v[2 * k + 1] = (uint32_t)(z >> 32);
    }
    x.v[7] &= 0x1fffffff;
    x.store(d + i);
}

extern "C" int gpu_fr_fill_random(void *d, uint64_t n, uint64_t seed, void *stream)
{
    if (!n) return 0;
    fill_random_kernel<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)stream>>>((fr_gpu *)d, n, seed);
    CUDA_TRY_LAUNCH("fill_random_kernel");
    return 0;
}
