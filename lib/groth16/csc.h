/*
 * The compact constraint system ("csc"): a circuit's A, B, C as CSR matrices made for
 * evaluating a = A·w, b = B·w, c = C·w per partition, on the CPU or the GPU.
 * Why compact: coefficients of real circuits are mostly ±1 and powers of two, so each
 * non-zero stores a 32-bit column and a 32-bit index into a table of the circuit's distinct
 * coefficients (8 bytes instead of cs.h's 40): PoRep's 722 M non-zeros take 5.8 GB.
 * Rows: the circuit's constraints, then bellperson's one row per input (A = that input with
 * coefficient 1, B and C empty), so row k of each matrix gives exactly a[k], b[k], c[k] of
 * the a/b/c partition (abc_len = num_constraints + num_inputs rows). Columns are variables
 * in bellperson's numbering (cs.h: inputs first, ONE = 0, then aux).
 * The three density bitmaps depend on the matrices only (a variable counts as soon as it
 * appears with a non-zero coefficient), so they are derived once, here, not per partition.
 */
#ifndef CUZK_CSC_H
#define CUZK_CSC_H

#include <stddef.h>
#include <stdint.h>

#include "field/field.h"
#include "groth16/cs.h"
#include "threadpool.h"

typedef struct csc_matrix {
    uint64_t *row;               /* abc_len + 1 offsets into col/coef, row[0] = 0          */
    uint32_t *col;               /* nnz variable indices                                    */
    uint32_t *coef;              /* nnz indices into csc.coeffs                             */
    uint64_t nnz;
} csc_matrix;

typedef struct csc {
    uint64_t num_inputs;         /* ONE included */
    uint64_t num_aux;
    uint64_t num_constraints;    /* the circuit's own rows, before the per-input rows       */
    uint64_t abc_len;            /* num_constraints + num_inputs: rows of every matrix      */
    uint32_t n_coeffs;
    fr_t *coeffs;                /* distinct non-zero coefficients, Montgomery form: a      */
                                 /* Montgomery product with a canonical witness value is    */
                                 /* canonical, with a Montgomery one Montgomery, so one      */
                                 /* table serves both scalar forms                          */
    csc_matrix m[3];             /* A, B, C */
    uint64_t *a_aux_density;     /* num_aux bits: aux variables in some A row               */
    uint64_t *b_input_density;   /* num_inputs bits: inputs in some B row                   */
    uint64_t *b_aux_density;     /* num_aux bits: aux variables in some B row               */
    uint64_t longest_row;        /* non-zeros of the longest row of any matrix (csc_finalize
                                  * sets it in its pass over the rows: what a streamed
                                  * evaluation's piece must hold at least)                 */
} csc;

/* A table of distinct coefficients being built (one form throughout, any form: equality is
 * all it uses): open addressing over the values, slot = table index + 1. Zero it to start. */
typedef struct csc_coefs {
    uint32_t *slot;
    uint64_t cap;                /* power of two, kept at most half full */
    fr_t *vals;                  /* the n values, in order of first use */
    uint64_t n, vcap;
} csc_coefs;
/* The table index of x, added if new: CUZK_EINVAL past 2^32 - 2 values, CUZK_ENOMEM. */
int csc_coefs_index(csc_coefs *t, const fr_t *x, uint32_t *idx);
void csc_coefs_free(csc_coefs *t);

/* From a constraint system in cs.h's form (the .r1cs reader's): the per-input rows are
 * appended, zero coefficients dropped, equal coefficients share one table entry.
 * CUZK_EINVAL where sys is malformed or has more than 2^32 variables or distinct
 * coefficients; CUZK_ENOMEM. *out is the caller's (csc_free). */
int csc_from_cs(const cs *sys, csc *out);
/* Checks what csc_read cannot trust (every offset, column, coefficient index, the input
 * rows) and derives the densities and longest_row: CUZK_EFORMAT naming the first bad entry.
 * Every path that makes a csc (csc_from_cs, csc_read, the .r1cs reader) ends here. */
int csc_finalize(csc *c, threadpool *tp);
void csc_free(csc *c);           /* frees the arrays; c itself is the caller's */
/* Host bytes the arrays take (what stats report). */
uint64_t csc_bytes(const csc *c);
/* Bytes of one matrix's arrays: row offsets, columns, coefficient indices. */
uint64_t csc_matrix_bytes(const csc *c, int which);

/* ---- the compact file (docs/formats.md, "constraint system file"), csc_file.c ---- */
#define CSC_FILE_MAGIC "cuzkcs\0\0"
#define CSC_FILE_VERSION 1u
/* Writes c to path (CUZK_EIO on failure). */
int csc_write(const char *path, const csc *c);
/* Reads a compact file and checks it (csc_finalize). CUZK_EIO, CUZK_EFORMAT with the
 * offset and reason, CUZK_ENOMEM. */
int csc_read(const char *path, threadpool *tp, csc *out);
/* 1 if the file at path starts with the compact file's magic (0 also when unreadable). */
int csc_file_is_compact(const char *path);
/* .r1cs or compact file, told apart by the magic; a .r1cs is read straight into the compact
 * form (circom_r1cs_load_csc), the checks of both on tp. */
int csc_load_any(const char *path, threadpool *tp, csc *out);

/* ---- evaluation on the CPU (csc_eval.c) ---- */
/* a, b, c[0 .. abc_len) = A·w, B·w, C·w with w = inputs ‖ aux in one scalar form (the
 * results are in that form too: the table is Montgomery, see coeffs). Any of a, b, c may be
 * NULL to skip that matrix. The witness must be below r (the caller checks). Parallel over
 * row chunks on tp (NULL: this thread). */
void csc_eval(const csc *c, const fr_t *inputs, const fr_t *aux, fr_t *a, fr_t *b, fr_t *c_out,
              threadpool *tp);
/* Rows [row_begin, row_end) of one matrix: out[k - row_begin] for each row k. */
void csc_eval_rows(const csc *c, int which, const fr_t *inputs, const fr_t *aux, uint64_t row_begin,
                   uint64_t row_end, fr_t *out);

#endif
