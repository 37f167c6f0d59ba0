/*
 * Random constraint systems and witnesses for the tests of the compact constraint system
 * (test_csc, test_gpu_spmv): edge coefficients (1, -1, powers of two, r - 2, zero, random),
 * empty rows, variables that appear nowhere; witnesses with zeros and ones. Seeded by
 * testutil's printed seed.
 */
#ifndef CUZK_TEST_CSRAND_H
#define CUZK_TEST_CSRAND_H

#include <stdint.h>

#include "groth16/cs.h"

/* ni inputs, na aux, nc constraints; each side of a row has 0..4 distinct variables. */
void random_cs(cs *s, uint64_t ni, uint64_t na, uint64_t nc);
/* in[0] = ONE, the rest random; aux a quarter zeros, a quarter ones. Montgomery. */
void random_witness(fr_t *in, fr_t *aux, uint64_t ni, uint64_t na);

#endif
