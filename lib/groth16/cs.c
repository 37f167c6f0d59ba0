/*
 * Constraint systems in bellperson's numbering: evaluating a witness into a partition
 * (a/b/c, densities) exactly as bellperson's ProvingAssignment does, and checking it.
 */
#include "groth16/cs.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

void cs_free(cs *sys)
{
    if (!sys) return;
    cs_lc_rows *rows[3] = {&sys->a, &sys->b, &sys->c};
    for (int i = 0; i < 3; i++) {
        free(rows[i]->off);
        free(rows[i]->terms);
        rows[i]->off = NULL;
        rows[i]->terms = NULL;
    }
}

uint64_t cs_abc_len(const cs *sys) { return sys->num_constraints + sys->num_inputs; }

unsigned cs_log_domain(const cs *sys)
{
    uint64_t n = cs_abc_len(sys);
    unsigned k = 0;
    while (k < 64 && ((uint64_t)1 << k) < n) k++;
    return k;
}

int cs_validate(const cs *sys)
{
    if (!sys) return err_set(CUZK_EINVAL, "constraint system is NULL");
    if (sys->num_inputs == 0)
        return err_set(CUZK_EINVAL, "constraint system has no inputs (input 0 must be ONE)");
    uint64_t nvars = sys->num_inputs + sys->num_aux;
    if (nvars < sys->num_inputs) return err_set(CUZK_EINVAL, "variable count overflows");
    static const char name[3] = {'A', 'B', 'C'};
    const cs_lc_rows *rows[3] = {&sys->a, &sys->b, &sys->c};
    for (int w = 0; w < 3; w++) {
        const cs_lc_rows *r = rows[w];
        if (!r->off) return err_set(CUZK_EINVAL, "%c rows have no offsets", name[w]);
        if (r->off[0] != 0) return err_set(CUZK_EINVAL, "%c row offsets do not start at 0", name[w]);
        for (uint64_t k = 0; k < sys->num_constraints; k++) {
            if (r->off[k + 1] < r->off[k])
                return err_set(CUZK_EINVAL, "%c row offsets decrease at constraint %llu", name[w],
                               (unsigned long long)k);
        }
        uint64_t nterms = r->off[sys->num_constraints];
        if (nterms && !r->terms) return err_set(CUZK_EINVAL, "%c has %llu terms but no term array",
                                                name[w], (unsigned long long)nterms);
        for (uint64_t k = 0; k < sys->num_constraints; k++)
            for (uint64_t t = r->off[k]; t < r->off[k + 1]; t++)
                if (r->terms[t].var >= nvars)
                    return err_set(CUZK_EINVAL,
                                   "constraint %llu: %c refers to variable %llu, only %llu exist",
                                   (unsigned long long)k, name[w],
                                   (unsigned long long)r->terms[t].var, (unsigned long long)nvars);
    }
    return CUZK_OK;
}

/* One linear combination on the witness. Like bellperson's eval(): a variable counts in a
 * density as soon as it appears with a nonzero coefficient. */
static void eval_row(fr_t *out, const cs_lc_rows *r, uint64_t k, const cs *sys, const fr_t *inputs,
                     const fr_t *aux, uint64_t *in_density, uint64_t *aux_density)
{
    fr_t acc = FR_ZERO, t;
    for (uint64_t i = r->off[k]; i < r->off[k + 1]; i++) {
        const cs_term *term = &r->terms[i];
        if (fr_is_zero(&term->coeff)) continue;
        const fr_t *val;
        if (term->var < sys->num_inputs) {
            val = &inputs[term->var];
            if (in_density) in_density[term->var / 64] |= (uint64_t)1 << (term->var % 64);
        } else {
            uint64_t j = term->var - sys->num_inputs;
            val = &aux[j];
            if (aux_density) aux_density[j / 64] |= (uint64_t)1 << (j % 64);
        }
        fr_mul(&t, &term->coeff, val);
        fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

static void release_block(void *block) { free(block); }

int cs_make_partition_ex(const cs *sys, const fr_t *inputs, const fr_t *aux, int32_t scalar_form,
                         cuzk_partition *out)
{
    if (!out) return err_set(CUZK_EINVAL, "output partition is NULL");
    int rc = cs_validate(sys);
    if (rc) return rc;
    if (scalar_form != CUZK_FR_MONTGOMERY && scalar_form != CUZK_FR_CANONICAL)
        return err_set(CUZK_EINVAL, "scalar_form %d is neither CUZK_FR_MONTGOMERY nor CUZK_FR_CANONICAL",
                       (int)scalar_form);
    if (!inputs) return err_set(CUZK_EINVAL, "inputs is NULL");
    if (sys->num_aux && !aux) return err_set(CUZK_EINVAL, "aux is NULL with %llu aux variables",
                                             (unsigned long long)sys->num_aux);
    if (!fr_is_one(&inputs[0])) return err_set(CUZK_EINVAL, "inputs[0] is not ONE");

    uint64_t n = cs_abc_len(sys), ni = sys->num_inputs, na = sys->num_aux;
    uint64_t wi = (ni + 63) / 64, wa = (na + 63) / 64;
    /* one block: a, b, c, inputs, aux (fr_t), then the three bitmaps */
    uint64_t nfr = 3 * n + ni + na, nwords = 2 * wa + wi;
    if (n < ni || nfr / 3 < n || nfr > (SIZE_MAX - nwords * 8) / sizeof(fr_t))
        return err_set(CUZK_ENOMEM, "partition of %llu constraints does not fit in memory",
                       (unsigned long long)n);
    size_t bytes = (size_t)nfr * sizeof(fr_t) + (size_t)nwords * 8;
    uint8_t *block = calloc(1, bytes ? bytes : 1);
    if (!block) return err_set(CUZK_ENOMEM, "cannot allocate %zu bytes for the partition", bytes);
    fr_t *a = (fr_t *)block, *b = a + n, *c = b + n, *in = c + n, *ax = in + ni;
    uint64_t *a_aux_d = (uint64_t *)(ax + na), *b_in_d = a_aux_d + wa, *b_aux_d = b_in_d + wi;

    for (uint64_t k = 0; k < sys->num_constraints; k++) {
        eval_row(&a[k], &sys->a, k, sys, inputs, aux, NULL, a_aux_d);
        eval_row(&b[k], &sys->b, k, sys, inputs, aux, b_in_d, b_aux_d);
        eval_row(&c[k], &sys->c, k, sys, inputs, aux, NULL, NULL);
    }
    /* bellperson's appended rows: A = input i, B = C = 0 (calloc'd) */
    for (uint64_t i = 0; i < ni; i++) a[sys->num_constraints + i] = inputs[i];
    memcpy(in, inputs, ni * sizeof(fr_t));
    if (na) memcpy(ax, aux, na * sizeof(fr_t));
    if (scalar_form == CUZK_FR_CANONICAL)
        for (uint64_t i = 0; i < nfr; i++) fr_from_mont(&a[i], &a[i]);

    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->scalar_form = scalar_form;
    out->a = (const cuzk_fr *)a;
    out->b = (const cuzk_fr *)b;
    out->c = (const cuzk_fr *)c;
    out->abc_len = n;
    out->inputs = (const cuzk_fr *)in;
    out->num_inputs = ni;
    out->aux = (const cuzk_fr *)ax;
    out->num_aux = na;
    out->a_aux_density = a_aux_d;
    out->b_input_density = b_in_d;
    out->b_aux_density = b_aux_d;
    out->release = release_block;
    out->release_user = block;
    return CUZK_OK;
}

int cs_make_partition(const cs *sys, const fr_t *inputs, const fr_t *aux, cuzk_partition *out)
{
    return cs_make_partition_ex(sys, inputs, aux, CUZK_FR_MONTGOMERY, out);
}

int cs_check_witness(const cs *sys, const fr_t *inputs, const fr_t *aux)
{
    int rc = cs_validate(sys);
    if (rc) return rc;
    if (!inputs) return err_set(CUZK_EINVAL, "inputs is NULL");
    if (sys->num_aux && !aux) return err_set(CUZK_EINVAL, "aux is NULL");
    if (!fr_is_one(&inputs[0])) return err_set(CUZK_EINVAL, "inputs[0] is not ONE");
    for (uint64_t k = 0; k < sys->num_constraints; k++) {
        fr_t va, vb, vc;
        eval_row(&va, &sys->a, k, sys, inputs, aux, NULL, NULL);
        eval_row(&vb, &sys->b, k, sys, inputs, aux, NULL, NULL);
        eval_row(&vc, &sys->c, k, sys, inputs, aux, NULL, NULL);
        fr_mul(&va, &va, &vb);
        if (!fr_eq(&va, &vc))
            return err_set(CUZK_EINVAL, "constraint %llu of %llu does not hold: A*B != C",
                           (unsigned long long)k, (unsigned long long)sys->num_constraints);
    }
    return CUZK_OK;
}
