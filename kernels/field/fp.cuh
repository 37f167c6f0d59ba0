/*
 * Fp, the BLS12-381 base field (p, 381 bits), on the GPU: 12 × 32-bit limbs in Montgomery
 * form with R = 2^384, bit-identical to the CPU's fp_t (6 × 64-bit little-endian limbs).
 * 4p < 2^384, so callers may keep values in [0, 2p) or [0, 4p) between reductions if they
 * write such variants; everything here takes and returns fully reduced values.
 */
#ifndef CUZK_FIELD_FP_CUH
#define CUZK_FIELD_FP_CUH

#include "field/mont.cuh"

struct fp_params {
    static constexpr int N = 12;
    static constexpr uint32_t N0 = 0xfffcfffdu; /* -p^-1 mod 2^32 */
    static constexpr bool LOW_ONE_MINUS = false;
    MONT_HD static constexpr uint32_t mod(int i)
    {
        constexpr uint32_t m[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe,
                                    0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84,
                                    0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
        return m[i];
    }
    MONT_HD static constexpr uint32_t one(int i)
    {
        constexpr uint32_t m[12] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b,
                                    0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853,
                                    0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
        return m[i];
    }
    MONT_HD static constexpr uint32_t r2(int i)
    {
        constexpr uint32_t m[12] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6,
                                    0x4c95b6d5, 0x8de5476c, 0x939d83c0, 0x67eb88a9,
                                    0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
        return m[i];
    }
};

typedef mont_t<fp_params> fp_gpu;
static_assert(sizeof(fp_gpu) == 48, "fp_gpu must match the CPU's fp_t");

#endif
