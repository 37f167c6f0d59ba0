/*
 * Fr, the BLS12-381 scalar field (r, 255 bits), on the GPU: 8 × 32-bit limbs in Montgomery
 * form with R = 2^256, bit-identical to the CPU's fr_t (4 × 64-bit little-endian limbs).
 */
#ifndef CUZK_FIELD_FR_CUH
#define CUZK_FIELD_FR_CUH

#include "field/mont.cuh"

struct fr_params {
    static constexpr int N = 8;
    static constexpr uint32_t N0 = 0xffffffffu; /* -r^-1 mod 2^32 */
    static constexpr bool LOW_ONE_MINUS = true; /* r mod 2^64 = 0xffffffff00000001 */
    MONT_HD static constexpr uint32_t mod(int i)
    {
        constexpr uint32_t m[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                   0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
        return m[i];
    }
    MONT_HD static constexpr uint32_t one(int i)
    {
        constexpr uint32_t m[8] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                                   0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
        return m[i];
    }
    MONT_HD static constexpr uint32_t r2(int i)
    {
        constexpr uint32_t m[8] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                                   0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
        return m[i];
    }
};

typedef mont_t<fr_params> fr_gpu;
static_assert(sizeof(fr_gpu) == 32, "fr_gpu must match the CPU's fr_t");

#endif
