/*
 * Helpers for the GPU NTT / H tests: random Fr vectors, a reference bit-reversal written
 * out here (not the library's), and vector comparison with a readable first difference.
 */
#ifndef CUZK_GPU_TESTUTIL_H
#define CUZK_GPU_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "field/field.h"
#include "support/testutil.h"

/* Uniform canonical values < r (any value < r is a valid Montgomery representation), with
 * an edge value (0, 1, r-1) now and then. */
static inline void rand_fr_vec(fr_t *v, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t pick = test_rand64() & 63;
        if (pick == 0) { memset(&v[i], 0, sizeof v[i]); continue; }
        if (pick == 1) { v[i] = FR_ONE; continue; }
        if (pick == 2) {
            memcpy(v[i].l, FR_MODULUS, sizeof v[i].l);
            v[i].l[0] -= 1;
            continue;
        }
        do {
            for (int k = 0; k < 4; k++) v[i].l[k] = test_rand64();
            v[i].l[3] &= 0x7fffffffffffffffull;
        } while (!fr_is_canonical(&v[i]));
    }
}

static inline uint64_t ref_bitrev(uint64_t x, unsigned bits)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

/* out[ref_bitrev(i)] = in[i] */
static inline void ref_permute(fr_t *out, const fr_t *in, unsigned log_n)
{
    uint64_t n = 1ull << log_n;
    for (uint64_t i = 0; i < n; i++) out[ref_bitrev(i, log_n)] = in[i];
}

/* Index of the first difference, or -1. Prints it. */
static inline int64_t fr_vec_diff(const char *what, const fr_t *got, const fr_t *want, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof got[i])) {
            fprintf(stderr, "%s: first difference at %llu of %llu\n  got  %016llx%016llx%016llx%016llx\n  want %016llx%016llx%016llx%016llx\n",
                    what, (unsigned long long)i, (unsigned long long)n,
                    (unsigned long long)got[i].l[3], (unsigned long long)got[i].l[2],
                    (unsigned long long)got[i].l[1], (unsigned long long)got[i].l[0],
                    (unsigned long long)want[i].l[3], (unsigned long long)want[i].l[2],
                    (unsigned long long)want[i].l[1], (unsigned long long)want[i].l[0]);
            return (int64_t)i;
        }
    return -1;
}

#endif
