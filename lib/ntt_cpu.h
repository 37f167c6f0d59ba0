/*
 * Number-theoretic transforms over Fr on the CPU, in place, natural order in and out,
 * Montgomery-form elements, domain 2^log_n with bellperson's root of unity (from 7) and
 * coset shift 7. The oracle for the GPU NTT and the H step.
 */
#ifndef CUZK_NTT_CPU_H
#define CUZK_NTT_CPU_H

#include "field/field.h"
#include "threadpool.h"

/* Coefficients -> evaluations at ω^i. */
void ntt_forward(fr_t *a, unsigned log_n, threadpool *tp);
/* Evaluations -> coefficients (includes the 1/n). */
void ntt_inverse(fr_t *a, unsigned log_n, threadpool *tp);
/* Coefficients -> evaluations at 7·ω^i (coefficient i times 7^i, then forward). */
void ntt_coset_forward(fr_t *a, unsigned log_n, threadpool *tp);
/* Evaluations at 7·ω^i -> coefficients (inverse, then coefficient i times 7^-i). */
void ntt_coset_inverse(fr_t *a, unsigned log_n, threadpool *tp);

#endif
