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

/* Permutes a[i] <-> a[bitreverse(i, log_n)] (for transforms that want bit-reversed order). */
void ntt_bit_reverse(fr_t *a, unsigned log_n, threadpool *tp);
/* Tuning, process-wide: sizes above 2^log_n compute twiddles on the fly instead of holding
 * a table of 2^(log_n-1) elements (default: always a table when memory allows). For tests
 * and memory-tight hosts. */
void ntt_cpu_set_table_limit(unsigned log_n);
/* Test hook, process-wide: tables above 2^log_n (at most 2^20, the default) are built per
 * call instead of kept for the life of the process. */
void ntt_cpu_set_cache_limit(unsigned log_n);

/* A caller's twiddle table, for callers that run several transforms of one size and want
 * the table in their own memory (the engine's partition heap): ntt_cpu_table_bytes is what a
 * 2^log_n transform would otherwise build per call (0: the process keeps that table, or the
 * size computes twiddles on the fly); ntt_cpu_table_fill writes it. The *_tw transforms take
 * such a table (NULL: as the plain ones). */
size_t ntt_cpu_table_bytes(unsigned log_n);
void ntt_cpu_table_fill(fr_t *tw, unsigned log_n, threadpool *tp);
void ntt_inverse_tw(fr_t *a, unsigned log_n, threadpool *tp, const fr_t *tw);
void ntt_coset_forward_tw(fr_t *a, unsigned log_n, threadpool *tp, const fr_t *tw);
void ntt_coset_inverse_tw(fr_t *a, unsigned log_n, threadpool *tp, const fr_t *tw);

#endif
