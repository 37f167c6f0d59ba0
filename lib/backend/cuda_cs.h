/*
 * A constraint system on one GPU (witness-only partitions): resident where its matrices fit
 * the room the caller gives it, else only its coefficient table on the device and the
 * matrices copied from (page-locked) host memory in pieces during each evaluation.
 */
#ifndef CUZK_CUDA_CS_H
#define CUZK_CUDA_CS_H

#include <stdint.h>

#include "groth16/csc.h"

typedef struct cuda_cs_dev {
    int resident;                /* 1: the three matrices live on the device               */
    void *d_coeffs;              /* the coefficient table (always on the device)           */
    uint64_t *d_row[3];          /* resident only                                          */
    uint32_t *d_col[3], *d_coef[3];
    uint64_t device_bytes;       /* what it holds on the device                            */
} cuda_cs_dev;

/* Device bytes of the resident form (matrices and table). */
uint64_t cuda_cs_resident_bytes(const csc *c);
/* Places c on the current device: resident when cuda_cs_resident_bytes fits room, else
 * streamed (the table only). CUZK_EDEVICE when even that fails. */
int cuda_cs_place(const csc *c, uint64_t room, cuda_cs_dev *out);
void cuda_cs_unplace(cuda_cs_dev *d);
/* d_out[0 .. abc_len) = matrix `which` (0 A, 1 B, 2 C) × (d_inputs ‖ d_aux), enqueued on
 * stream. Streamed: rows in pieces of at most piece_bytes (row offsets + 8 bytes per
 * non-zero), copied from c's host arrays into d_piece[0] and d_piece[1] in turn (each
 * piece_bytes; the caller page-locks c's arrays for the copies to be asynchronous). A row
 * whose non-zeros alone exceed a piece is CUZK_EBUDGET naming it. */
int cuda_cs_eval(const csc *c, const cuda_cs_dev *d, int which, const void *d_inputs, const void *d_aux, void *d_out,
                 void *const d_piece[2], uint64_t piece_bytes, void *stream);

#endif
