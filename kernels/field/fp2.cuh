/*
 * Fp2 = Fp[u]/(u^2 + 1) on the GPU, c0 + c1·u, laid out as the CPU's fp2_t (c0 then c1).
 * The product is Karatsuba (3 Fp products), the square (c0+c1)(c0-c1) + 2c0c1·u (2).
 */
#ifndef CUZK_FIELD_FP2_CUH
#define CUZK_FIELD_FP2_CUH

#include "field/fp.cuh"

struct fp2_gpu {
    fp_gpu c0, c1;

    MONT_HD static fp2_gpu zero() { return {fp_gpu::zero(), fp_gpu::zero()}; }
    MONT_HD static fp2_gpu one() { return {fp_gpu::one(), fp_gpu::zero()}; }
#ifdef __CUDACC__
    __device__ __forceinline__ static fp2_gpu load(const fp2_gpu *p)
    {
        return {fp_gpu::load(&p->c0), fp_gpu::load(&p->c1)};
    }
    __device__ __forceinline__ void store(fp2_gpu *p) const
    {
        c0.store(&p->c0);
        c1.store(&p->c1);
    }
#endif
    MONT_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    MONT_HD bool operator==(const fp2_gpu &b) const
    {
        return c0 == b.c0 && c1 == b.c1;
    }
    MONT_HD bool operator!=(const fp2_gpu &b) const { return !(*this == b); }

    MONT_HD friend fp2_gpu operator+(const fp2_gpu &a, const fp2_gpu &b)
    {
        return {a.c0 + b.c0, a.c1 + b.c1};
    }
    MONT_HD friend fp2_gpu operator-(const fp2_gpu &a, const fp2_gpu &b)
    {
        return {a.c0 - b.c0, a.c1 - b.c1};
    }
    MONT_HD fp2_gpu dbl() const { return {c0.dbl(), c1.dbl()}; }
    MONT_HD fp2_gpu neg() const { return {c0.neg(), c1.neg()}; }
    MONT_HD fp2_gpu conj() const { return {c0, c1.neg()}; }

    MONT_HD friend fp2_gpu operator*(const fp2_gpu &a, const fp2_gpu &b)
    {
        fp_gpu t0 = a.c0 * b.c0;
        fp_gpu t1 = a.c1 * b.c1;
        fp_gpu t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
        return {t0 - t1, t2 - t0 - t1};
    }
    MONT_HD fp2_gpu sqr() const
    {
        fp_gpu t = c0 * c1;
        return {(c0 + c1) * (c0 - c1), t.dbl()};
    }
    MONT_HD fp2_gpu mul_fp(const fp_gpu &b) const { return {c0 * b, c1 * b}; }
    /* ·(1 + u): (c0 - c1) + (c0 + c1)·u */
    MONT_HD fp2_gpu mul_nonresidue() const { return {c0 - c1, c0 + c1}; }

    MONT_HD fp2_gpu &operator+=(const fp2_gpu &b) { return *this = *this + b; }
    MONT_HD fp2_gpu &operator-=(const fp2_gpu &b) { return *this = *this - b; }
    MONT_HD fp2_gpu &operator*=(const fp2_gpu &b) { return *this = *this * b; }
};
static_assert(sizeof(fp2_gpu) == 96, "fp2_gpu must match the CPU's fp2_t");

#endif
