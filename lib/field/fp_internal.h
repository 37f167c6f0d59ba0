/*
 * Private helpers of lib/field/ beyond the field.h contract (still hidden symbols):
 * halving and a square test used by Fp2 roots and the curve code.
 */
#ifndef CUZK_FIELD_FP_INTERNAL_H
#define CUZK_FIELD_FP_INTERNAL_H

#include "field/field.h"

void fp_half(fp_t *r, const fp_t *a);     /* a/2 */
int fp_is_square(const fp_t *a);          /* 1 for squares, 0 included */
void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t *exp, size_t exp_limbs);

#endif
