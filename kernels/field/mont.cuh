/*
 * Montgomery arithmetic over N 32-bit limbs, generic in the modulus (a traits class P, see
 * fr.cuh / fp.cuh): the one device field implementation (the NTT, the H step, scalar prep and
 * the MSM all use it). Values are fully reduced (< p) and laid out exactly as the CPU's
 * little-endian 64-bit limbs, so device and host buffers are bit-identical.
 *
 * Products use PTX carry chains (mad.lo.cc / madc.hi.cc on the same operands, which ptxas
 * fuses into one IMAD.WIDE.U32 per 32x32->64 product). The multiplier is the bottleneck,
 * so the multiplication is written to issue exactly 2·N² wide products (fewer for Fr,
 * whose low limbs 1 and 2^32-1 make two reduction products free: 112 instead of 128).
 *
 * Every operation also runs on the host, with the carry flag emulated (one per host thread),
 * so the exact instruction sequence is checked without a GPU (the MSM's host simulation).
 */
#ifndef CUZK_FIELD_MONT_CUH
#define CUZK_FIELD_MONT_CUH

#include <stdint.h>

#ifdef __CUDACC__
#define MONT_HD __host__ __device__ __forceinline__
#define MONT_HD_SLOW __host__ __device__
#else
#define MONT_HD inline
#define MONT_HD_SLOW inline
#endif

namespace cuzk_ptx {

#ifdef __CUDA_ARCH__
/* Each wrapper is one PTX instruction; the .cc flag lives between consecutive asm volatile
 * statements of one chain (nvcc keeps their order and inserts nothing that touches it). */
#define CUZK_PTX2(name, insn)                                                                      \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b)                               \
    {                                                                                              \
        uint32_t r;                                                                                \
        asm volatile(insn " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                              \
        return r;                                                                                  \
    }
#define CUZK_PTX3(name, insn)                                                                      \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c)                   \
    {                                                                                              \
        uint32_t r;                                                                                \
        asm volatile(insn " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                  \
        return r;                                                                                  \
    }
CUZK_PTX2(add_cc, "add.cc.u32")
CUZK_PTX2(addc_cc, "addc.cc.u32")
CUZK_PTX2(addc, "addc.u32")
CUZK_PTX2(sub_cc, "sub.cc.u32")
CUZK_PTX2(subc_cc, "subc.cc.u32")
CUZK_PTX2(subc, "subc.u32")
CUZK_PTX3(mad_lo_cc, "mad.lo.cc.u32")
CUZK_PTX3(madc_lo_cc, "madc.lo.cc.u32")
CUZK_PTX3(madc_hi_cc, "madc.hi.cc.u32")
CUZK_PTX3(madc_hi, "madc.hi.u32")
#undef CUZK_PTX2
#undef CUZK_PTX3
__device__ __forceinline__ uint32_t mul_hi(uint32_t a, uint32_t b) { return __umulhi(a, b); }
#else
/* Host emulation: the PTX condition code as one carry flag per thread. */
inline uint32_t &host_cc()
{
    static thread_local uint32_t cc;
    return cc;
}
inline uint32_t carry_out(uint64_t s)
{
    host_cc() = (uint32_t)(s >> 32);
    return (uint32_t)s;
}
inline uint32_t borrow_out(uint64_t s)
{
    host_cc() = (uint32_t)(s >> 63);
    return (uint32_t)s;
}
inline uint32_t add_cc(uint32_t a, uint32_t b) { return carry_out((uint64_t)a + b); }
inline uint32_t addc_cc(uint32_t a, uint32_t b) { return carry_out((uint64_t)a + b + host_cc()); }
inline uint32_t addc(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a + b + host_cc()); }
inline uint32_t sub_cc(uint32_t a, uint32_t b) { return borrow_out((uint64_t)a - b); }
inline uint32_t subc_cc(uint32_t a, uint32_t b) { return borrow_out((uint64_t)a - b - host_cc()); }
inline uint32_t subc(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a - b - host_cc()); }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return carry_out((uint64_t)(uint32_t)(a * b) + c); }
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return carry_out((uint64_t)(uint32_t)(a * b) + c + host_cc());
}
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return carry_out((((uint64_t)a * b) >> 32) + c + host_cc());
}
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c)
{
    return (uint32_t)((((uint64_t)a * b) >> 32) + c + host_cc());
}
inline uint32_t mul_hi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
#endif

} // namespace cuzk_ptx

/*
 * P provides: N (limbs, even), N0 = -p^-1 mod 2^32, mod(i), one(i) (R mod p), r2(i)
 * (R^2 mod p), and LOW_ONE_MINUS (true when p's limbs 0 and 1 are 1 and 2^32-1, so
 * N0 = 2^32-1 and the first two reduction products are free). 2p < 2^(32N) is assumed.
 */
template <class P> struct mont_t {
    static constexpr int N = P::N;
    uint32_t v[N];

    MONT_HD static mont_t zero()
    {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = 0;
        return r;
    }
    MONT_HD static mont_t one()
    {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = P::one(i);
        return r;
    }
    MONT_HD static mont_t modulus()
    {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = P::mod(i);
        return r;
    }

#ifdef __CUDACC__
    /* 16-byte vector loads and stores (element arrays are 16-byte aligned). */
    __device__ __forceinline__ static mont_t load(const mont_t *p)
    {
        mont_t r;
        const uint4 *q = reinterpret_cast<const uint4 *>(p);
#pragma unroll
        for (int i = 0; i < N / 4; i++) {
            uint4 w = q[i];
            r.v[4 * i] = w.x, r.v[4 * i + 1] = w.y, r.v[4 * i + 2] = w.z, r.v[4 * i + 3] = w.w;
        }
        return r;
    }
    __device__ __forceinline__ static mont_t ldg(const mont_t *p)
    {
        mont_t r;
        const uint4 *q = reinterpret_cast<const uint4 *>(p);
#pragma unroll
        for (int i = 0; i < N / 4; i++) {
            uint4 w = __ldg(q + i);
            r.v[4 * i] = w.x, r.v[4 * i + 1] = w.y, r.v[4 * i + 2] = w.z, r.v[4 * i + 3] = w.w;
        }
        return r;
    }
    __device__ __forceinline__ void store(mont_t *p) const
    {
        uint4 *q = reinterpret_cast<uint4 *>(p);
#pragma unroll
        for (int i = 0; i < N / 4; i++)
            q[i] = make_uint4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
    }
#endif

    MONT_HD bool is_zero() const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i];
        return acc == 0;
    }
    MONT_HD bool operator==(const mont_t &b) const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i] ^ b.v[i];
        return acc == 0;
    }
    MONT_HD bool operator!=(const mont_t &b) const { return !(*this == b); }

    /* x - p if that does not borrow, else x (x < 2p). */
    MONT_HD static void reduce_once(uint32_t *x)
    {
        using namespace cuzk_ptx;
        uint32_t t[N];
        t[0] = sub_cc(x[0], P::mod(0));
#pragma unroll
        for (int i = 1; i < N; i++) t[i] = subc_cc(x[i], P::mod(i));
        uint32_t borrow = subc(0, 0); /* 0 or 0xffffffff */
#pragma unroll
        for (int i = 0; i < N; i++) x[i] = borrow ? x[i] : t[i];
    }

    MONT_HD friend mont_t operator+(const mont_t &a, const mont_t &b)
    {
        using namespace cuzk_ptx;
        mont_t r;
        r.v[0] = add_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < N; i++) r.v[i] = addc_cc(a.v[i], b.v[i]);
        (void)addc(0, 0); /* a + b < 2p < 2^(32N): no carry out; closes the chain */
        reduce_once(r.v);
        return r;
    }

    MONT_HD friend mont_t operator-(const mont_t &a, const mont_t &b)
    {
        using namespace cuzk_ptx;
        mont_t r;
        r.v[0] = sub_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < N; i++) r.v[i] = subc_cc(a.v[i], b.v[i]);
        uint32_t mask = subc(0, 0); /* all ones on borrow: add p back */
        r.v[0] = add_cc(r.v[0], P::mod(0) & mask);
#pragma unroll
        for (int i = 1; i < N; i++) r.v[i] = addc_cc(r.v[i], P::mod(i) & mask);
        (void)addc(0, 0);
        return r;
    }

    MONT_HD mont_t dbl() const { return *this + *this; }

    MONT_HD mont_t neg() const
    {
        using namespace cuzk_ptx;
        mont_t r;
        uint32_t nz = is_zero() ? 0u : 0xffffffffu; /* -0 = 0, not p */
        r.v[0] = sub_cc(P::mod(0) & nz, v[0]);
#pragma unroll
        for (int i = 1; i < N; i++) r.v[i] = subc_cc(P::mod(i) & nz, v[i]);
        (void)subc(0, 0);
        return r;
    }

    /*
     * CIOS Montgomery product a·b·2^(-32N) mod p. Per limb b_i the running sum t (aligned
     * at bit 0, N+1 limbs) takes the even-indexed products of a·b_i and m·p in two carry
     * chains; the odd-indexed ones (aligned one limb up) collect in u; then t = t/2^32 + u.
     * Invariant t < 2p at each step, so t fits N limbs after the shift and no carry leaves
     * the top.
     */
    MONT_HD friend mont_t operator*(const mont_t &a, const mont_t &b)
    {
        using namespace cuzk_ptx;
        uint32_t t[N + 1], u[N];
#pragma unroll
        for (int k = 0; k <= N; k++) t[k] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const uint32_t bi = b.v[i];
            /* t += a_even · b_i */
            t[0] = mad_lo_cc(a.v[0], bi, t[0]);
            t[1] = madc_hi_cc(a.v[0], bi, t[1]);
#pragma unroll
            for (int j = 2; j < N; j += 2) {
                t[j] = madc_lo_cc(a.v[j], bi, t[j]);
                t[j + 1] = madc_hi_cc(a.v[j], bi, t[j + 1]);
            }
            t[N] = addc(t[N], 0);
            const uint32_t t0 = t[0];
            if constexpr (P::LOW_ONE_MINUS) {
                /* p_0 = 1, p_1 = 2^32 - 1, N0 = -1, so m = -t_0 and t_0 + m·p_0 + m·p_1·2^32
                 * = 2^32·X with X = 1 + t_0 + ~t_0·2^32 (0 when t_0 = 0): X joins the odd
                 * products, and every chain starts with mad.lo.cc (so ptxas fuses each
                 * product into one IMAD.WIDE; chains that start with add.cc were split). */
                const uint32_t m = 0u - t0;
                const uint64_t X = t0 ? (((uint64_t)(~t0) << 32) + t0 + 1) : 0;
                u[0] = mad_lo_cc(a.v[1], bi, (uint32_t)X);
                u[1] = madc_hi_cc(a.v[1], bi, (uint32_t)(X >> 32));
#pragma unroll
                for (int j = 2; j < N; j += 2) {
                    u[j] = madc_lo_cc(a.v[j + 1], bi, 0);
                    u[j + 1] = madc_hi_cc(a.v[j + 1], bi, 0);
                }
                t[2] = mad_lo_cc(P::mod(2), m, t[2]);
                t[3] = madc_hi_cc(P::mod(2), m, t[3]);
#pragma unroll
                for (int j = 4; j < N; j += 2) {
                    t[j] = madc_lo_cc(P::mod(j), m, t[j]);
                    t[j + 1] = madc_hi_cc(P::mod(j), m, t[j + 1]);
                }
                t[N] = addc(t[N], 0);
                u[2] = mad_lo_cc(P::mod(3), m, u[2]);
                u[3] = madc_hi_cc(P::mod(3), m, u[3]);
#pragma unroll
                for (int j = 4; j < N; j += 2) {
                    u[j] = madc_lo_cc(P::mod(j + 1), m, u[j]);
                    u[j + 1] = madc_hi_cc(P::mod(j + 1), m, u[j + 1]);
                }
            } else {
                /* u = a_odd · b_i (u[k] weighs 2^(32(k+1))); no overlaps, so no carries */
#pragma unroll
                for (int j = 0; j < N; j += 2) {
                    u[j] = a.v[j + 1] * bi;
                    u[j + 1] = mul_hi(a.v[j + 1], bi);
                }
                const uint32_t m = t0 * P::N0;
                t[0] = mad_lo_cc(P::mod(0), m, t[0]);
                t[1] = madc_hi_cc(P::mod(0), m, t[1]);
#pragma unroll
                for (int j = 2; j < N; j += 2) {
                    t[j] = madc_lo_cc(P::mod(j), m, t[j]);
                    t[j + 1] = madc_hi_cc(P::mod(j), m, t[j + 1]);
                }
                t[N] = addc(t[N], 0);
                u[0] = mad_lo_cc(P::mod(1), m, u[0]);
                u[1] = madc_hi_cc(P::mod(1), m, u[1]);
#pragma unroll
                for (int j = 2; j < N; j += 2) {
                    u[j] = madc_lo_cc(P::mod(j + 1), m, u[j]);
                    u[j + 1] = madc_hi_cc(P::mod(j + 1), m, u[j + 1]);
                }
            }
            /* The top carries of the u chains are 0: u < 2p·2^(32N)/2^32 fits N limbs. */
            /* t = t / 2^32 + u (t[0] is 0 now; the sum fits N limbs) */
            t[0] = add_cc(t[1], u[0]);
#pragma unroll
            for (int k = 1; k < N; k++) t[k] = addc_cc(t[k + 1], u[k]);
            t[N] = 0;
        }
        mont_t r;
#pragma unroll
        for (int k = 0; k < N; k++) r.v[k] = t[k];
        reduce_once(r.v);
        return r;
    }

    MONT_HD mont_t sqr() const { return *this * *this; }

    MONT_HD mont_t &operator+=(const mont_t &b) { return *this = *this + b; }
    MONT_HD mont_t &operator-=(const mont_t &b) { return *this = *this - b; }
    MONT_HD mont_t &operator*=(const mont_t &b) { return *this = *this * b; }

    /* Canonical <-> Montgomery: x·R via the product with R^2, x/R via the product with 1. */
    MONT_HD mont_t to_mont() const
    {
        mont_t r2;
#pragma unroll
        for (int i = 0; i < N; i++) r2.v[i] = P::r2(i);
        return *this * r2;
    }
    MONT_HD mont_t from_mont() const
    {
        mont_t one_c = zero();
        one_c.v[0] = 1;
        return *this * one_c;
    }

    /* a^e for an exponent of n32 little-endian 32-bit words (square and multiply). */
    MONT_HD_SLOW static mont_t pow(const mont_t &a, const uint32_t *e, int n32)
    {
        mont_t r = one();
        for (int i = n32 - 1; i >= 0; i--)
            for (int bit = 31; bit >= 0; bit--) {
                r = r.sqr();
                if ((e[i] >> bit) & 1) r = r * a;
            }
        return r;
    }
    /* a^-1 = a^(p-2) (Fermat); 0 for 0. Slow: for setup, not for hot loops. */
    MONT_HD_SLOW static mont_t inv(const mont_t &a)
    {
        uint32_t e[N];
        uint32_t borrow = 2;
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint32_t m = P::mod(i);
            e[i] = m - borrow;
            borrow = m < borrow ? 1 : 0;
        }
        return pow(a, e, N);
    }
};

#endif
