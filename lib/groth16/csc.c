/*
 * Building and checking the compact constraint system (csc.h): from cs.h's rows (the
 * coefficient table by hashing), and the checks plus density derivation every loaded
 * system goes through once.
 */
#include "groth16/csc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

void csc_free(csc *c)
{
    if (!c) return;
    for (int w = 0; w < 3; w++) {
        free(c->m[w].row);
        free(c->m[w].col);
        free(c->m[w].coef);
    }
    free(c->coeffs);
    free(c->a_aux_density);
    free(c->b_input_density);
    free(c->b_aux_density);
    memset(c, 0, sizeof *c);
}

uint64_t csc_matrix_bytes(const csc *c, int which)
{
    return (c->abc_len + 1) * 8 + c->m[which].nnz * 8;
}

uint64_t csc_bytes(const csc *c)
{
    uint64_t words = 2 * ((c->num_aux + 63) / 64) + (c->num_inputs + 63) / 64;
    return csc_matrix_bytes(c, 0) + csc_matrix_bytes(c, 1) + csc_matrix_bytes(c, 2) +
           (uint64_t)c->n_coeffs * sizeof(fr_t) + words * 8;
}

/* ---- the coefficient table: open addressing over the values, slot = table index + 1 ---- */

typedef csc_coefs coef_table;

static uint64_t fr_hash(const fr_t *x)
{
    uint64_t h = x->l[0] ^ (x->l[1] * 0x9e3779b97f4a7c15ull) ^ (x->l[2] * 0xc2b2ae3d27d4eb4full) ^
                 (x->l[3] * 0x165667b19e3779f9ull);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}

static int coef_grow(coef_table *t)
{
    uint64_t cap = t->cap ? 2 * t->cap : 1024;
    uint32_t *s = calloc(cap, sizeof *s);
    if (!s) return err_set(CUZK_ENOMEM, "cannot allocate a coefficient table of %llu slots", (unsigned long long)cap);
    for (uint64_t i = 0; i < t->n; i++) {
        uint64_t k = fr_hash(&t->vals[i]) & (cap - 1);
        while (s[k]) k = (k + 1) & (cap - 1);
        s[k] = (uint32_t)(i + 1);
    }
    free(t->slot);
    t->slot = s;
    t->cap = cap;
    return CUZK_OK;
}

/* The table index of x, added if new. */
int csc_coefs_index(csc_coefs *t, const fr_t *x, uint32_t *idx)
{
    if (2 * (t->n + 1) > t->cap) {
        int rc = coef_grow(t);
        if (rc) return rc;
    }
    uint64_t k = fr_hash(x) & (t->cap - 1);
    for (; t->slot[k]; k = (k + 1) & (t->cap - 1))
        if (fr_eq(&t->vals[t->slot[k] - 1], x)) {
            *idx = t->slot[k] - 1;
            return CUZK_OK;
        }
    if (t->n >= UINT32_MAX - 1)
        return err_set(CUZK_EINVAL, "the circuit has more than 2^32 - 2 distinct coefficients");
    if (t->n == t->vcap) {
        uint64_t vcap = t->vcap ? 2 * t->vcap : 256;
        fr_t *v = realloc(t->vals, vcap * sizeof *v);
        if (!v) return err_set(CUZK_ENOMEM, "cannot grow the coefficient table to %llu values", (unsigned long long)vcap);
        t->vals = v;
        t->vcap = vcap;
    }
    t->vals[t->n] = *x;
    t->slot[k] = (uint32_t)(t->n + 1);
    *idx = (uint32_t)t->n++;
    return CUZK_OK;
}

void csc_coefs_free(csc_coefs *t)
{
    free(t->slot);
    free(t->vals);
    memset(t, 0, sizeof *t);
}

int csc_from_cs(const cs *sys, csc *out)
{
    int rc = cs_validate(sys);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    uint64_t nvars = sys->num_inputs + sys->num_aux;
    if (nvars > UINT32_MAX)
        return err_set(CUZK_EINVAL, "%llu variables do not fit the compact form's 32-bit columns",
                       (unsigned long long)nvars);
    out->num_inputs = sys->num_inputs;
    out->num_aux = sys->num_aux;
    out->num_constraints = sys->num_constraints;
    out->abc_len = cs_abc_len(sys);
    coef_table t = {0};
    uint32_t one_idx = 0;
    /* ONE first: the per-input rows' coefficient, index 0 in every table */
    if ((rc = csc_coefs_index(&t, &FR_ONE, &one_idx))) goto fail;
    const cs_lc_rows *rows[3] = {&sys->a, &sys->b, &sys->c};
    for (int w = 0; w < 3 && !rc; w++) {
        const cs_lc_rows *r = rows[w];
        uint64_t nnz = 0;
        for (uint64_t i = 0; i < r->off[sys->num_constraints]; i++) nnz += !fr_is_zero(&r->terms[i].coeff);
        if (w == 0) nnz += sys->num_inputs;
        csc_matrix *m = &out->m[w];
        m->nnz = nnz;
        m->row = malloc((out->abc_len + 1) * sizeof *m->row);
        m->col = malloc((nnz ? nnz : 1) * sizeof *m->col);
        m->coef = malloc((nnz ? nnz : 1) * sizeof *m->coef);
        if (!m->row || !m->col || !m->coef) {
            rc = err_set(CUZK_ENOMEM, "cannot allocate %llu non-zeros of the compact constraint system",
                         (unsigned long long)nnz);
            break;
        }
        uint64_t f = 0;
        for (uint64_t k = 0; k < sys->num_constraints && !rc; k++) {
            m->row[k] = f;
            for (uint64_t i = r->off[k]; i < r->off[k + 1]; i++) {
                if (fr_is_zero(&r->terms[i].coeff)) continue;
                uint32_t idx;
                if ((rc = csc_coefs_index(&t, &r->terms[i].coeff, &idx))) break;
                m->col[f] = (uint32_t)r->terms[i].var;
                m->coef[f++] = idx;
            }
        }
        for (uint64_t i = 0; i < sys->num_inputs; i++) { /* bellperson's rows: A = input i */
            m->row[sys->num_constraints + i] = f;
            if (w == 0) {
                m->col[f] = (uint32_t)i;
                m->coef[f++] = one_idx;
            }
        }
        m->row[out->abc_len] = f;
    }
    if (rc) goto fail;
    free(t.slot);
    out->coeffs = t.vals;
    out->n_coeffs = (uint32_t)t.n;
    if ((rc = csc_finalize(out, NULL))) csc_free(out);
    return rc;
fail:
    free(t.slot);
    free(t.vals);
    csc_free(out);
    return rc;
}

/* ---- checks and densities ---- */

static const char side_name[3] = {'A', 'B', 'C'};

/* The first bad entry, named as the caller sees it: run only once the parallel pass has
 * found that there is one, so the message is the same whatever the thread count. */
static int csc_first_error(const csc *c)
{
    uint64_t nvars = c->num_inputs + c->num_aux;
    for (uint32_t i = 0; i < c->n_coeffs; i++) {
        if (fr_is_zero(&c->coeffs[i]))
            return err_set(CUZK_EFORMAT, "coefficient %u of %u is zero (zero terms are dropped)", i, c->n_coeffs);
    }
    for (int w = 0; w < 3; w++) {
        const csc_matrix *m = &c->m[w];
        if (m->row[0] != 0) return err_set(CUZK_EFORMAT, "%c's row offsets do not start at 0", side_name[w]);
        for (uint64_t k = 0; k < c->abc_len; k++)
            if (m->row[k + 1] < m->row[k])
                return err_set(CUZK_EFORMAT, "%c's row offsets decrease at row %llu (%llu after %llu)", side_name[w],
                               (unsigned long long)k, (unsigned long long)m->row[k + 1], (unsigned long long)m->row[k]);
        if (m->row[c->abc_len] != m->nnz)
            return err_set(CUZK_EFORMAT, "%c's rows end at %llu, but it has %llu non-zeros", side_name[w],
                           (unsigned long long)m->row[c->abc_len], (unsigned long long)m->nnz);
        for (uint64_t i = 0; i < m->nnz; i++) {
            if (m->col[i] >= nvars)
                return err_set(CUZK_EFORMAT, "%c non-zero %llu refers to variable %u, only %llu exist", side_name[w],
                               (unsigned long long)i, m->col[i], (unsigned long long)nvars);
            if (m->coef[i] >= c->n_coeffs)
                return err_set(CUZK_EFORMAT, "%c non-zero %llu refers to coefficient %u, the table has %u",
                               side_name[w], (unsigned long long)i, m->coef[i], c->n_coeffs);
        }
        /* bellperson's per-input rows, which the a/b/c partitions hold: A = input i, B = C = 0 */
        for (uint64_t i = 0; i < c->num_inputs; i++) {
            uint64_t k = c->num_constraints + i, b = m->row[k], n = m->row[k + 1] - b;
            int ok = w ? n == 0 : n == 1 && m->col[b] == i && fr_is_one(&c->coeffs[m->coef[b]]);
            if (!ok)
                return err_set(CUZK_EFORMAT, "row %llu of %c is not bellperson's row for input %llu (%s)",
                               (unsigned long long)k, side_name[w], (unsigned long long)i,
                               w ? "B and C must be empty" : "A must be that input with coefficient 1");
        }
    }
    return CUZK_OK;
}

/* The parallel pass: pieces of FIN_CHUNK non-zeros or rows of one matrix each. A piece
 * checks its entries without a branch per entry (the first bad one is found afterwards by
 * csc_first_error) and sets the density bits of A's and B's columns: relaxed atomic ORs,
 * skipped when the bit is already set (most variables appear several times), so threads
 * rarely write the same word. */
#define FIN_CHUNK ((uint64_t)1 << 20)

typedef struct fin_job {
    csc *c;
    uint64_t nvars;
    uint64_t pieces[3][2];       /* per matrix: non-zero pieces, row pieces */
    _Atomic int bad;
    _Atomic uint64_t longest;    /* the longest row seen by any piece */
} fin_job;

/* Bits bound for one bitmap word, gathered while the columns stay in that word (columns of
 * neighbouring rows are mostly neighbours), then set with one atomic OR where not all set:
 * a locked OR per non-zero costs more than the rest of the pass. */
typedef struct bit_acc {
    uint64_t *map;
    uint64_t word, mask;
} bit_acc;

static void bit_flush(bit_acc *a)
{
    if (!a->mask) return;
    _Atomic uint64_t *w = (_Atomic uint64_t *)&a->map[a->word];
    /* relaxed: the bits are read only after threadpool_parallel_for returns, which orders them */
    if ((atomic_load_explicit(w, memory_order_relaxed) & a->mask) != a->mask)
        atomic_fetch_or_explicit(w, a->mask, memory_order_relaxed);
    a->mask = 0;
}

static void bit_set(bit_acc *a, uint64_t i)
{
    if (i / 64 != a->word) {
        bit_flush(a);
        a->word = i / 64;
    }
    a->mask |= (uint64_t)1 << (i % 64);
}

static void fin_piece(void *arg, size_t t)
{
    fin_job *j = arg;
    csc *c = j->c;
    int w = 0;
    while (w < 2 && t >= j->pieces[w][0] + j->pieces[w][1]) {
        t -= j->pieces[w][0] + j->pieces[w][1];
        w++;
    }
    const csc_matrix *m = &c->m[w];
    int bad = 0;
    if (t < j->pieces[w][0]) { /* non-zeros */
        uint64_t b = t * FIN_CHUNK, e = b + FIN_CHUNK < m->nnz ? b + FIN_CHUNK : m->nnz;
        uint32_t nv = (uint32_t)(j->nvars - 1), nc = c->n_coeffs - 1; /* nvars >= 1; n_coeffs checked >= 1 */
        for (uint64_t i = b; i < e; i++) bad |= (m->col[i] > nv) | (m->coef[i] > nc);
        if (!bad && w < 2) {
            uint64_t ni = c->num_inputs;
            bit_acc aux = {w ? c->b_aux_density : c->a_aux_density, 0, 0}, in = {c->b_input_density, 0, 0};
            for (uint64_t i = b; i < e; i++) {
                uint64_t v = m->col[i];
                if (v >= ni) bit_set(&aux, v - ni);
                else if (w == 1) bit_set(&in, v);
            }
            bit_flush(&aux);
            bit_flush(&in);
        }
    } else { /* row offsets */
        uint64_t b = (t - j->pieces[w][0]) * FIN_CHUNK, e = b + FIN_CHUNK < c->abc_len ? b + FIN_CHUNK : c->abc_len;
        uint64_t longest = 0;
        for (uint64_t k = b; k < e; k++) {
            const uint64_t n = m->row[k + 1] - m->row[k]; /* wraps where bad: then unused */
            bad |= m->row[k + 1] < m->row[k];
            longest = n > longest ? n : longest;
        }
        /* relaxed: read after the loop returns; one CAS loop per piece of 2^20 rows */
        uint64_t seen = atomic_load_explicit(&j->longest, memory_order_relaxed);
        while (longest > seen &&
               !atomic_compare_exchange_weak_explicit(&j->longest, &seen, longest, memory_order_relaxed,
                                                      memory_order_relaxed)) {
        }
    }
    /* relaxed: read after the loop returns */
    if (bad) atomic_store_explicit(&j->bad, 1, memory_order_relaxed);
}

int csc_finalize(csc *c, threadpool *tp)
{
    uint64_t nvars = c->num_inputs + c->num_aux;
    if (c->num_inputs == 0) return err_set(CUZK_EFORMAT, "constraint system has no inputs (input 0 must be ONE)");
    if (nvars > UINT32_MAX || nvars < c->num_inputs)
        return err_set(CUZK_EFORMAT, "constraint system has %llu inputs + %llu aux, beyond 2^32 variables",
                       (unsigned long long)c->num_inputs, (unsigned long long)c->num_aux);
    if (c->abc_len != c->num_constraints + c->num_inputs || c->abc_len < c->num_inputs)
        return err_set(CUZK_EFORMAT, "constraint system has %llu rows, expected %llu constraints + %llu inputs",
                       (unsigned long long)c->abc_len, (unsigned long long)c->num_constraints,
                       (unsigned long long)c->num_inputs);
    uint64_t wa = (c->num_aux + 63) / 64, wi = (c->num_inputs + 63) / 64;
    free(c->a_aux_density);
    free(c->b_input_density);
    free(c->b_aux_density);
    c->a_aux_density = calloc(wa ? wa : 1, 8);
    c->b_input_density = calloc(wi, 8);
    c->b_aux_density = calloc(wa ? wa : 1, 8);
    if (!c->a_aux_density || !c->b_input_density || !c->b_aux_density)
        return err_set(CUZK_ENOMEM, "cannot allocate the density bitmaps");
    int bad = c->n_coeffs == 0;
    for (uint32_t i = 0; i < c->n_coeffs; i++) bad |= fr_is_zero(&c->coeffs[i]);
    fin_job j = {.c = c, .nvars = nvars};
    uint64_t pieces = 0;
    for (int w = 0; w < 3; w++) {
        const csc_matrix *m = &c->m[w];
        bad |= m->row[0] != 0 || m->row[c->abc_len] != m->nnz;
        j.pieces[w][0] = (m->nnz + FIN_CHUNK - 1) / FIN_CHUNK;
        j.pieces[w][1] = (c->abc_len + FIN_CHUNK - 1) / FIN_CHUNK;
        pieces += j.pieces[w][0] + j.pieces[w][1];
    }
    atomic_init(&j.bad, 0);
    atomic_init(&j.longest, 0);
    c->longest_row = 0;
    if (!bad) threadpool_parallel_for(tp, (size_t)pieces, fin_piece, &j);
    /* the per-input rows: a few hundred, and the offsets are monotonic and end at nnz once
     * the pass found nothing, so every index below is in range */
    for (int w = 0; w < 3 && !bad && !atomic_load_explicit(&j.bad, memory_order_relaxed); w++) {
        const csc_matrix *m = &c->m[w];
        for (uint64_t i = 0; i < c->num_inputs && !bad; i++) {
            uint64_t k = c->num_constraints + i, b = m->row[k], n = m->row[k + 1] - b;
            bad = !(w ? n == 0 : n == 1 && m->col[b] == i && fr_is_one(&c->coeffs[m->coef[b]]));
        }
    }
    if (bad || atomic_load_explicit(&j.bad, memory_order_relaxed)) {
        int rc = csc_first_error(c);
        /* n_coeffs == 0 with no non-zero is no error of its own: the input rows need ONE */
        return rc ? rc : err_set(CUZK_EFORMAT, "the coefficient table is empty (bellperson's input rows need 1)");
    }
    c->longest_row = atomic_load_explicit(&j.longest, memory_order_relaxed);
    return CUZK_OK;
}
