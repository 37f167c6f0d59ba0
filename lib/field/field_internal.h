/*
 * Private helpers of lib/field/ beyond the field.h/curve.h contracts (hidden symbols,
 * reachable from the tests): halving, square tests, Fp2 powers, reference subgroup checks.
 */
#ifndef CUZK_FIELD_INTERNAL_H
#define CUZK_FIELD_INTERNAL_H

#include "field/curve.h"

void fp_half(fp_t *r, const fp_t *a);     /* a/2 */
int fp_is_square(const fp_t *a);          /* 1 for squares, 0 included */
void fp2_pow(fp2_t *r, const fp2_t *a, const uint64_t *exp, size_t exp_limbs);

/* r·P = O by plain scalar multiplication: the reference for the fast subgroup checks. */
int g1_aff_in_subgroup_slow(const g1_aff *p);
int g2_aff_in_subgroup_slow(const g2_aff *p);

/* Selects the MULX/ADX path (1) or portable C (0) for fp/fr mul and sqr; returns the
 * previous choice. Asking for ADX on a CPU without it keeps the portable path. */
int field_use_adx(int enable);
int field_adx_active(void);     /* 1 while the ADX path is in use */

#endif
