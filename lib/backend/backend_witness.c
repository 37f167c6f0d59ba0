/*
 * Witness-only partitions evaluated on the host (backend_witness.h): the same a, b, c the
 * host would have built, so everything after this is the a/b/c path unchanged.
 */
#include "backend/backend_witness.h"

#include <string.h>

#include "error.h"
#include "field/field.h"
#include "groth16/groth16.h"

uint64_t backend_witness_abc_bytes(const struct csc *cs) { return 3 * cs->abc_len * sizeof(fr_t); }

static void *job_alloc(void *ctx, size_t bytes) { return bjob_alloc(ctx, bytes); }
static void job_free(void *ctx, void *p) { bjob_free(ctx, p); }

int backend_witness_eval(backend_job *job, threadpool *tp, cuzk_partition *view)
{
    const csc *cs = job->cs;
    const scratch_alloc sa = {job_alloc, job_free, job};
    *view = *job->p;
    /* the range check of the witness alone: with abc_len 0 the scan skips a, b, c */
    view->abc_len = 0;
    int rc = groth16_check_scalars_ex(view, tp, &sa);
    if (rc) return rc;
    view->abc_len = cs->abc_len;
    uint64_t t0 = bjob_now_ns(), n = cs->abc_len;
    fr_t *abc = bjob_alloc(job, (size_t)backend_witness_abc_bytes(cs) + 1);
    if (!abc) return err_set(CUZK_ENOMEM, "no working memory for the %llu-row a, b, c of a witness-only partition",
                             (unsigned long long)n);
    csc_eval(cs, (const fr_t *)view->inputs, (const fr_t *)view->aux, abc, abc + n, abc + 2 * n, tp);
    view->a = (const cuzk_fr *)abc;
    view->b = (const cuzk_fr *)(abc + n);
    view->c = (const cuzk_fr *)(abc + 2 * n);
    bjob_trace(job, CUZK_TRACE_CS_EVAL, t0, bjob_now_ns(), backend_witness_abc_bytes(cs));
    return CUZK_OK;
}

void backend_witness_free_abc(backend_job *job, cuzk_partition *view)
{
    bjob_free(job, (void *)view->a);
    view->a = view->b = view->c = NULL;
}
