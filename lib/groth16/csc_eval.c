/*
 * a = A·w, b = B·w, c = C·w on the CPU: the reference evaluation of the compact constraint
 * system (the CUDA kernel is checked against it bit for bit). Field sums are exact, so any
 * order of terms gives the a/b/c that bellperson's ProvingAssignment would have built.
 */
#include "groth16/csc.h"

#define EVAL_ROWS 16384 /* rows per task: large enough to amortize, small enough to balance */

void csc_eval_rows(const csc *c, int which, const fr_t *inputs, const fr_t *aux, uint64_t row_begin,
                   uint64_t row_end, fr_t *out)
{
    const csc_matrix *m = &c->m[which];
    const uint64_t ni = c->num_inputs;
    for (uint64_t k = row_begin; k < row_end; k++) {
        fr_t acc = FR_ZERO, t;
        for (uint64_t i = m->row[k]; i < m->row[k + 1]; i++) {
            uint32_t v = m->col[i];
            const fr_t *x = v < ni ? &inputs[v] : &aux[v - ni];
            /* Montgomery product with the Montgomery coefficient: x's form is kept */
            fr_mul(&t, &c->coeffs[m->coef[i]], x);
            fr_add(&acc, &acc, &t);
        }
        out[k - row_begin] = acc;
    }
}

typedef struct eval_job {
    const csc *c;
    const fr_t *inputs, *aux;
    fr_t *out[3];
    int mats[3];
    int n_mats;
    uint64_t chunks;             /* per matrix */
} eval_job;

static void eval_chunk(void *arg, size_t i)
{
    const eval_job *j = arg;
    int which = j->mats[i / j->chunks];
    uint64_t b = (i % j->chunks) * EVAL_ROWS, e = b + EVAL_ROWS < j->c->abc_len ? b + EVAL_ROWS : j->c->abc_len;
    csc_eval_rows(j->c, which, j->inputs, j->aux, b, e, j->out[which] + b);
}

void csc_eval(const csc *c, const fr_t *inputs, const fr_t *aux, fr_t *a, fr_t *b, fr_t *c_out, threadpool *tp)
{
    eval_job j = {.c = c, .inputs = inputs, .aux = aux, .out = {a, b, c_out}};
    for (int w = 0; w < 3; w++)
        if (j.out[w]) j.mats[j.n_mats++] = w;
    j.chunks = (c->abc_len + EVAL_ROWS - 1) / EVAL_ROWS;
    if (j.chunks && j.n_mats) threadpool_parallel_for(tp, j.chunks * (uint64_t)j.n_mats, eval_chunk, &j);
}
