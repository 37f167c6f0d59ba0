/*
 * The optimal ate pairing on BLS12-381 (Miller loop + final exponentiation) and the
 * multi-pairing product with one final exponentiation that Groth16 verification needs.
 */
#ifndef CUZK_PAIRING_H
#define CUZK_PAIRING_H

#include "curve.h"

void pairing_miller_loop(fp12_t *r, const g1_aff *p, const g2_aff *q);
void pairing_final_exp(fp12_t *r, const fp12_t *f);
/* e(P, Q); infinity on either side gives 1. */
void pairing(fp12_t *r, const g1_aff *p, const g2_aff *q);
/* prod_i e(P_i, Q_i) with one final exponentiation. */
void pairing_multi(fp12_t *r, const g1_aff *p, const g2_aff *q, size_t n);

#endif
