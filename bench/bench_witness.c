/*
 * The constraint system of a bench circuit (cuzk-bench pipeline --witness): the shape's own
 * circuit up to 2^22 (the same one the a/b/c partition comes from, so proofs verify), and
 * above that its 2^20 circuit tiled up like the partition (bench_part.c): constraint row i
 * is row i mod n of the small one with its aux columns shifted by a tile's aux count, the
 * input rows last, so the evaluation reads a realistic spread of the witness.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "groth16/csc.h"
#include "groth16/synth.h"

typedef struct {
    const csc *s;
    csc *big;
    uint64_t nc_s, nc;
} tile_cs_job;

#define CS_TILE_ROWS ((uint64_t)1 << 18)

static void tile_rows(void *arg, size_t chunk)
{
    const tile_cs_job *j = arg;
    const uint64_t ni = j->s->num_inputs, na_s = j->s->num_aux, na = j->big->num_aux;
    for (uint64_t i = chunk * CS_TILE_ROWS; i < (chunk + 1) * CS_TILE_ROWS && i < j->nc; i++) {
        const uint64_t k = i % j->nc_s, shift = (i / j->nc_s) * na_s % na;
        for (int w = 0; w < 3; w++) {
            const csc_matrix *sm = &j->s->m[w];
            csc_matrix *bm = &j->big->m[w];
            for (uint64_t q = sm->row[k], at = bm->row[i]; q < sm->row[k + 1]; q++, at++) {
                uint64_t col = sm->col[q];
                bm->col[at] = (uint32_t)(col < ni ? col : ni + (col - ni + shift) % na);
                bm->coef[at] = sm->coef[q];
            }
        }
    }
}

/* s tiled to abc_len rows over num_aux aux variables (num_aux >= s's). */
static int tile_cs(const csc *s, uint64_t abc_len, uint64_t num_aux, threadpool *tp, csc *big)
{
    memset(big, 0, sizeof *big);
    const uint64_t ni = s->num_inputs, nc_s = s->num_constraints, nc = abc_len - ni;
    big->num_inputs = ni, big->num_aux = num_aux, big->num_constraints = nc, big->abc_len = abc_len;
    big->n_coeffs = s->n_coeffs;
    if (!(big->coeffs = malloc((s->n_coeffs ? s->n_coeffs : 1) * sizeof(fr_t)))) return CUZK_ENOMEM;
    memcpy(big->coeffs, s->coeffs, s->n_coeffs * sizeof(fr_t));
    for (int w = 0; w < 3; w++) {
        const csc_matrix *sm = &s->m[w];
        csc_matrix *bm = &big->m[w];
        if (!(bm->row = malloc((abc_len + 1) * 8))) return CUZK_ENOMEM;
        uint64_t at = 0;
        for (uint64_t i = 0; i < abc_len; i++) {
            bm->row[i] = at;
            uint64_t k = i < nc ? i % nc_s : nc_s + (i - nc); /* the input rows last, as in s */
            at += sm->row[k + 1] - sm->row[k];
        }
        bm->row[abc_len] = bm->nnz = at;
        if (!(bm->col = malloc(at ? at * 4 : 1)) || !(bm->coef = malloc(at ? at * 4 : 1))) return CUZK_ENOMEM;
        for (uint64_t r = 0; r < ni; r++) /* the input rows */
            for (uint64_t q = sm->row[nc_s + r], o = bm->row[nc + r]; q < sm->row[nc_s + r + 1]; q++, o++)
                bm->col[o] = sm->col[q], bm->coef[o] = sm->coef[q];
    }
    tile_cs_job j = {s, big, nc_s, nc};
    threadpool_parallel_for(tp, (nc + CS_TILE_ROWS - 1) / CS_TILE_ROWS, tile_rows, &j);
    return csc_finalize(big, tp);
}

int bench_witness_cs(const bench_circuit *c, threadpool *tp, uint64_t abc_len, uint64_t num_aux, csc **out,
                     double *build_s)
{
    uint64_t t0 = bench_now_ns();
    bench_circuit small = *c;
    const int tile = c->log_m > 22;
    if (tile && bench_shape_cfg(c->shape->name, 20, c->fill, &small)) return 2;
    cs sys;
    fr_t *in = NULL, *aux = NULL;
    csc s, *big = calloc(1, sizeof *big);
    int rc = big ? synth_cs(&small.cfg, &sys, &in, &aux) : CUZK_ENOMEM;
    if (rc == CUZK_OK) {
        free(in), free(aux);
        rc = csc_from_cs(&sys, tile ? &s : big);
        cs_free(&sys);
    }
    if (rc == CUZK_OK && !tile) rc = csc_finalize(big, tp);
    if (rc == CUZK_OK && tile) {
        rc = tile_cs(&s, abc_len, num_aux, tp, big);
        csc_free(&s);
    }
    if (rc == CUZK_OK && (big->abc_len != abc_len || big->num_aux != num_aux))
        rc = CUZK_EINVAL, fprintf(stderr, "cuzk-bench: the constraint system has %llu rows and %llu aux, the partition "
                                  "%llu and %llu\n", (unsigned long long)big->abc_len, (unsigned long long)big->num_aux,
                                  (unsigned long long)abc_len, (unsigned long long)num_aux);
    if (rc != CUZK_OK) {
        fprintf(stderr, "cuzk-bench: constraint system: %s: %s\n", cuzk_strerror(rc), cuzk_last_error());
        if (big) csc_free(big);
        free(big);
        return 2;
    }
    *out = big;
    *build_s = (double)(bench_now_ns() - t0) / 1e9;
    return 0;
}
