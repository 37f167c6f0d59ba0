/*
 * Modular inversion by Pornin's optimized binary GCD ("Optimized Binary GCD for Modular
 * Inversion", 2020): 31 binary-GCD steps at a time on 64-bit approximations of a and b (their
 * top 33 bits and exact low 31 bits), then one exact update of the big values by the 2x2
 * matrix those steps built. About 19 rounds for a 381-bit modulus, each ~120 32x32 products
 * and ~1000 simple operations: several times cheaper than Fermat (380 squarings and ~190
 * multiplications) and, above all, far shorter as a dependency chain, which is what a GPU
 * thread that inverts for a batch of additions waits on. Variable time (MSM data is public).
 * Host and device: plain 64-bit C++ arithmetic, no PTX.
 */
#ifndef CUZK_FIELD_INV_BINGCD_CUH
#define CUZK_FIELD_INV_BINGCD_CUH

#include <stdint.h>

#ifdef __CUDACC__
#define BGCD_HD __host__ __device__ __forceinline__
#else
#define BGCD_HD inline
#endif

namespace bingcd {

BGCD_HD int clz32(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return __clz(x);
#else
    return x ? __builtin_clz(x) : 32;
#endif
}

/* t[0..N] = a·m for m <= 2^31 */
template <int N> BGCD_HD void mul_small(uint32_t *t, const uint32_t *a, uint32_t m)
{
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        c += (uint64_t)a[i] * m;
        t[i] = (uint32_t)c;
        c >>= 32;
    }
    t[N] = (uint32_t)c;
}

/* out = |a·f + b·g| / 2^31 (the low 31 bits are zero by construction); returns whether
 * a·f + b·g was negative. |f|, |g| <= 2^31, a, b < 2^(32N). */
template <int N> BGCD_HD bool lin_comb(uint32_t *out, const uint32_t *a, const uint32_t *b, int64_t f, int64_t g)
{
    uint32_t p1[N + 1], p2[N + 1];
    bool nf = f < 0, ng = g < 0;
    mul_small<N>(p1, a, (uint32_t)(nf ? -f : f));
    mul_small<N>(p2, b, (uint32_t)(ng ? -g : g));
    bool neg;
    if (nf == ng) {
        uint64_t c = 0;
#pragma unroll
        for (int i = 0; i <= N; i++) {
            c += (uint64_t)p1[i] + p2[i];
            p1[i] = (uint32_t)c;
            c >>= 32;
        }
        neg = nf;
    } else {
        uint64_t br = 0;
#pragma unroll
        for (int i = 0; i <= N; i++) {
            uint64_t d = (uint64_t)p1[i] - p2[i] - br;
            p1[i] = (uint32_t)d;
            br = (d >> 63) & 1;
        }
        if (br) { /* negative: two's complement back to the magnitude */
            uint64_t c = 1;
#pragma unroll
            for (int i = 0; i <= N; i++) {
                c += (uint32_t)~p1[i];
                p1[i] = (uint32_t)c;
                c >>= 32;
            }
        }
        neg = nf ^ (br != 0);
    }
#pragma unroll
    for (int i = 0; i < N; i++) out[i] = (p1[i] >> 31) | (p1[i + 1] << 1);
    return neg;
}

/* out = (u·f + v·g)·2^-32 mod m for u, v in [0, m) and |f| + |g| <= 2^31 (M: mod(i), N0 =
 * -m^-1 mod 2^32). A negative coefficient takes m - u instead of u; the sum stays below
 * m·2^31, so one word of Montgomery reduction leaves it below 1.5 m. */
template <int N, class M> BGCD_HD void mod_comb(uint32_t *out, const uint32_t *u, const uint32_t *v, int64_t f, int64_t g)
{
    uint32_t uu[N], vv[N], w[N + 1], t[N + 1];
    bool nf = f < 0, ng = g < 0;
    int64_t br1 = 0, br2 = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        int64_t d1 = (int64_t)M::mod(i) - u[i] + br1, d2 = (int64_t)M::mod(i) - v[i] + br2;
        uu[i] = nf ? (uint32_t)d1 : u[i];
        vv[i] = ng ? (uint32_t)d2 : v[i];
        br1 = d1 >> 32;
        br2 = d2 >> 32;
    }
    mul_small<N>(w, uu, (uint32_t)(nf ? -f : f));
    mul_small<N>(t, vv, (uint32_t)(ng ? -g : g));
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i <= N; i++) {
        c += (uint64_t)w[i] + t[i];
        w[i] = (uint32_t)c;
        c >>= 32;
    }
    const uint32_t q = w[0] * M::N0;
    c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        c += (uint64_t)q * M::mod(i) + w[i];
        w[i] = (uint32_t)c;
        c >>= 32;
    }
    c += w[N];
    /* w[0] is 0 now; the value is w[1..N-1] + c·2^(32(N-1)), below 1.5 m */
    uint32_t r[N];
#pragma unroll
    for (int i = 0; i < N - 1; i++) r[i] = w[i + 1];
    r[N - 1] = (uint32_t)c;
    int64_t br = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        int64_t d = (int64_t)r[i] - M::mod(i) + br;
        t[i] = (uint32_t)d;
        br = d >> 32;
    }
    const bool lt = br != 0; /* r < m: keep r */
#pragma unroll
    for (int i = 0; i < N; i++) out[i] = lt ? r[i] : t[i];
}

/* Bits [pos, pos + 33) of x (N limbs, pos + 33 <= 32N), selected without run-time register
 * indexing (which would put x in local memory on the GPU). */
template <int N> BGCD_HD uint64_t top33(const uint32_t *x, int pos)
{
    const int w = pos >> 5, sh = pos & 31;
    uint32_t x0 = 0, x1 = 0, x2 = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        x0 = i == w ? x[i] : x0;
        x1 = i == w + 1 ? x[i] : x1;
        x2 = i == w + 2 ? x[i] : x2;
    }
    uint64_t lo = ((uint64_t)x1 << 32) | x0;
    uint64_t v = sh ? (lo >> sh) | ((uint64_t)x2 << (64 - sh)) : lo;
    return v & ((1ull << 33) - 1);
}

template <int N> BGCD_HD bool is_zero(const uint32_t *x)
{
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; i++) acc |= x[i];
    return acc == 0;
}

/* raw = x^-1 · 2^-rounds mod m for x in [0, m) (0 gives 0); returns rounds (>= min_rounds:
 * every lane runs at least that many, so a fixed constant corrects the usual case). */
template <int N, class M> BGCD_HD int inverse_raw(uint32_t *raw, const uint32_t *x, int min_rounds)
{
    uint32_t a[N], b[N], u[N], v[N];
#pragma unroll
    for (int i = 0; i < N; i++) {
        a[i] = x[i];
        b[i] = M::mod(i);
        u[i] = i == 0;
        v[i] = 0;
    }
    int rounds = 0;
    /* each round removes ~40 bits of a and b together on average (at least ~30), so 64
     * rounds is far past any input; the bound only guards against a bug looping forever */
    while ((rounds < min_rounds || !is_zero<N>(a)) && rounds < 64) {
        /* n = max(bit length of a, of b, 64) */
        int top = 0;
        uint32_t tw = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint32_t o = a[i] | b[i];
            top = o ? i : top;
            tw = o ? o : tw;
        }
        int n = 32 * top + 32 - clz32(tw);
        n = n < 64 ? 64 : n;
        uint64_t aa = (top33<N>(a, n - 33) << 31) | (a[0] & 0x7fffffffu);
        uint64_t bb = (top33<N>(b, n - 33) << 31) | (b[0] & 0x7fffffffu);
        int64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
        for (int j = 0; j < 31; j++) {
            if (aa & 1) {
                if (aa < bb) {
                    uint64_t t = aa;
                    aa = bb;
                    bb = t;
                    int64_t tf = f0, tg = g0;
                    f0 = f1;
                    g0 = g1;
                    f1 = tf;
                    g1 = tg;
                }
                aa -= bb;
                f0 -= f1;
                g0 -= g1;
            }
            aa >>= 1;
            f1 *= 2;
            g1 *= 2;
        }
        uint32_t na[N], nb[N], nu[N];
        if (lin_comb<N>(na, a, b, f0, g0)) {
            f0 = -f0;
            g0 = -g0;
        }
        if (lin_comb<N>(nb, a, b, f1, g1)) {
            f1 = -f1;
            g1 = -g1;
        }
        mod_comb<N, M>(nu, u, v, f0, g0);
        mod_comb<N, M>(v, u, v, f1, g1);
#pragma unroll
        for (int i = 0; i < N; i++) {
            a[i] = na[i];
            b[i] = nb[i];
            u[i] = nu[i];
        }
        rounds++;
    }
#pragma unroll
    for (int i = 0; i < N; i++) raw[i] = v[i];
    return rounds;
}

} /* namespace bingcd */

#endif
