/*
 * A rank-1 constraint system in bellperson's numbering, the common ground of the test
 * setup, the witness-to-partition step and the circom readers.
 * Variables: index v < num_inputs is input v (input 0 is ONE); v >= num_inputs is aux
 * v - num_inputs. Each constraint has three sparse linear combinations (CSR rows).
 * The per-input constraints that bellperson appends (A = input i, B = C = 0) are NOT
 * stored; cs functions add them implicitly, so abc_len = num_constraints + num_inputs.
 */
#ifndef CUZK_CS_H
#define CUZK_CS_H

#include <stdint.h>

#include "cuzk/cuzk.h"
#include "field/field.h"

typedef struct cs_term {
    uint64_t var;
    fr_t coeff; /* Montgomery */
} cs_term;

typedef struct cs_lc_rows {      /* CSR: row k's terms are terms[off[k] .. off[k+1]) */
    uint64_t *off;               /* num_constraints + 1 entries */
    cs_term *terms;
} cs_lc_rows;

typedef struct cs {
    uint64_t num_inputs;         /* ONE included */
    uint64_t num_aux;
    uint64_t num_constraints;    /* the circuit's own, without the appended input rows */
    cs_lc_rows a, b, c;
} cs;

void cs_free(cs *sys);           /* frees the rows; sys itself is the caller's */
uint64_t cs_abc_len(const cs *sys);
unsigned cs_log_domain(const cs *sys); /* smallest k with 2^k >= abc_len */

/* A partition whose buffers the library owns (a, b, c, inputs, aux, densities): witness
 * values are Montgomery; p->release frees everything (also usable with cuzk_free). */
int cs_make_partition(const cs *sys, const fr_t *inputs /* ONE first */, const fr_t *aux,
                      cuzk_partition *out);
/* The same with the partition's scalars (a, b, c, inputs, aux) in scalar_form
 * (CUZK_FR_MONTGOMERY or CUZK_FR_CANONICAL); the witness passed in is still Montgomery. */
int cs_make_partition_ex(const cs *sys, const fr_t *inputs, const fr_t *aux, int32_t scalar_form,
                         cuzk_partition *out);
/* CUZK_OK if the system is well formed (inputs >= 1, CSR offsets from 0 and non-decreasing,
 * every variable index < num_inputs + num_aux), else CUZK_EINVAL saying where. */
int cs_validate(const cs *sys);
/* CUZK_OK if every constraint holds; CUZK_EINVAL naming the first failing constraint. */
int cs_check_witness(const cs *sys, const fr_t *inputs, const fr_t *aux);

#endif
