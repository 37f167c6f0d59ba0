/*
 * Test fixture (header only, static): building small constraint systems row by row with
 * small signed integer coefficients, and the classic x^3 + x + 5 = out circuit.
 */
#ifndef CUZK_TEST_CS_FIXTURE_H
#define CUZK_TEST_CS_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "groth16/cs.h"

typedef struct tterm {
    uint64_t var;
    int64_t coeff;
} tterm;

static void fx_fr_from_i64(fr_t *r, int64_t v)
{
    fr_from_u64(r, (uint64_t)(v < 0 ? -v : v));
    if (v < 0) fr_neg(r, r);
}

static void fx_init(cs *s, uint64_t ni, uint64_t na)
{
    memset(s, 0, sizeof *s);
    s->num_inputs = ni;
    s->num_aux = na;
    cs_lc_rows *rows[3] = {&s->a, &s->b, &s->c};
    for (int q = 0; q < 3; q++) {
        rows[q]->off = calloc(1, sizeof(uint64_t));
        rows[q]->terms = NULL;
    }
}

static void fx_push(cs_lc_rows *r, uint64_t k, const tterm *t, int n)
{
    uint64_t base = r->off[k];
    r->off = realloc(r->off, (k + 2) * sizeof(uint64_t));
    r->terms = realloc(r->terms, (base + (uint64_t)n + 1) * sizeof(cs_term));
    for (int i = 0; i < n; i++) {
        r->terms[base + i].var = t[i].var;
        fx_fr_from_i64(&r->terms[base + i].coeff, t[i].coeff);
    }
    r->off[k + 1] = base + (uint64_t)n;
}

/* Appends the constraint (A)·(B) = (C). */
static void fx_row(cs *s, const tterm *a, int na, const tterm *b, int nb, const tterm *c, int nc)
{
    uint64_t k = s->num_constraints;
    fx_push(&s->a, k, a, na);
    fx_push(&s->b, k, b, nb);
    fx_push(&s->c, k, c, nc);
    s->num_constraints = k + 1;
}

/* x^3 + x + 5 = out: inputs ONE, out; aux x, x2, x3 (variables 2, 3, 4).
 *   x·x = x2;  x2·x = x3;  (x3 + x + 5·ONE)·ONE = out */
static void fx_cubic(cs *s)
{
    fx_init(s, 2, 3);
    const uint64_t ONE = 0, OUT = 1, X = 2, X2 = 3, X3 = 4;
    fx_row(s, (tterm[]){{X, 1}}, 1, (tterm[]){{X, 1}}, 1, (tterm[]){{X2, 1}}, 1);
    fx_row(s, (tterm[]){{X2, 1}}, 1, (tterm[]){{X, 1}}, 1, (tterm[]){{X3, 1}}, 1);
    fx_row(s, (tterm[]){{X3, 1}, {X, 1}, {ONE, 5}}, 3, (tterm[]){{ONE, 1}}, 1, (tterm[]){{OUT, 1}}, 1);
}

/* The witness of fx_cubic for x: inputs[2], aux[3] (Montgomery). */
static void fx_cubic_witness(fr_t inputs[2], fr_t aux[3], uint64_t x)
{
    inputs[0] = FR_ONE;
    fr_from_u64(&aux[0], x);
    fr_mul(&aux[1], &aux[0], &aux[0]);
    fr_mul(&aux[2], &aux[1], &aux[0]);
    fr_t five;
    fr_from_u64(&five, 5);
    fr_add(&inputs[1], &aux[2], &aux[0]);
    fr_add(&inputs[1], &inputs[1], &five);
}

#endif
