/*
 * circom .r1cs files: the reader behind cuzk_r1cs_load (every count and size checked before
 * it is used), the step from a circuit and its witness to a partition, and the writer that
 * `cuzk gen` uses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "groth16/circom_file.h"
#include "groth16/csc.h"

enum { SEC_HEADER = 1, SEC_CONSTRAINTS = 2, SEC_WIRE2LABEL = 3, SEC_CUSTOM_LIST = 4,
       SEC_CUSTOM_USES = 5 };
#define TERM_BYTES 36 /* u32 wire + 32-byte coefficient */

static int parse_header(const cfile_map *m, const cfile_section *s, struct cuzk_r1cs *r,
                        uint32_t *n_constraints)
{
    const uint8_t *d = m->data + s->off;
    if (s->size < 4)
        return err_set(CUZK_EFORMAT, ".r1cs header section at offset %zu is %llu bytes, too short "
                       "for its field size", s->off, (unsigned long long)s->size);
    uint32_t n8 = cfile_u32(d);
    if (s->size < 4 + (uint64_t)n8)
        return err_set(CUZK_EFORMAT, ".r1cs header section at offset %zu is %llu bytes, too short "
                       "for its %u-byte prime", s->off, (unsigned long long)s->size, n8);
    int rc = cfile_check_field("r1cs", n8, d + 4, s->off + 4);
    if (rc) return rc;
    if (s->size != 4 + 32 + 28)
        return err_set(CUZK_EFORMAT, ".r1cs header section at offset %zu is %llu bytes, expected %u",
                       s->off, (unsigned long long)s->size, 4 + 32 + 28);
    d += 36;
    r->n_wires = cfile_u32(d);
    r->n_pub_out = cfile_u32(d + 4);
    r->n_pub_in = cfile_u32(d + 8);
    r->n_prv_in = cfile_u32(d + 12);
    r->n_labels = cfile_u64(d + 16);
    *n_constraints = cfile_u32(d + 24);
    uint64_t need = 1 + (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in;
    if (need > r->n_wires)
        return err_set(CUZK_EFORMAT,
                       ".r1cs header (offset %zu) has %u wires, fewer than ONE + %u outputs + %u "
                       "public inputs + %u private inputs",
                       s->off, r->n_wires, r->n_pub_out, r->n_pub_in, r->n_prv_in);
    if (r->n_labels < r->n_wires)
        return err_set(CUZK_EFORMAT, ".r1cs header (offset %zu) has %llu labels, fewer than its "
                       "%u wires", s->off, (unsigned long long)r->n_labels, r->n_wires);
    return CUZK_OK;
}

/* Scratch for one linear combination's wires (pass 1): as large as the longest combination,
 * which the section's bytes bound — never sized by the header's wire count, which a file of
 * a few bytes can set to 2^32. */
typedef struct lc_scratch {
    uint32_t *w;
    size_t cap;
} lc_scratch;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* A wire that appears twice among n (sorted in place), or UINT64_MAX. */
static uint64_t lc_repeat(uint32_t *w, uint32_t n)
{
    if (n < 2) return UINT64_MAX;
    if (n <= 16) { /* circom's usual size: insertion sort */
        for (uint32_t i = 1; i < n; i++) {
            uint32_t v = w[i], j = i;
            for (; j > 0 && w[j - 1] > v; j--) w[j] = w[j - 1];
            w[j] = v;
        }
    } else {
        qsort(w, n, sizeof *w, cmp_u32);
    }
    for (uint32_t i = 1; i < n; i++)
        if (w[i] == w[i - 1]) return w[i];
    return UINT64_MAX;
}

/* A coefficient's 32 bytes as canonical limbs; 0 if not below r. Pass 1 needs no more:
 * the Montgomery form is made once per term in pass 2 (cs rows) or once per distinct value
 * (the compact form's table). */
static int le32_canonical(fr_t *out, const uint8_t *p)
{
    for (int i = 0; i < 4; i++) out->l[i] = cfile_u64(p + 8 * i);
    for (int i = 3; i >= 0; i--)
        if (out->l[i] != FR_MODULUS[i]) return out->l[i] < FR_MODULUS[i];
    return 0;
}

/* Pass 2 into the compact form: its arrays (sized by pass 1) and the table being built,
 * keyed by the canonical values; last caches the previous lookup (runs of 1s). */
typedef struct csc_fill {
    csc *c;
    csc_coefs t;
    fr_t last;
    uint32_t last_idx;
    int have_last;
} csc_fill;

/* Pass 1 (counts != NULL): check the section's structure and count each side's terms;
 * a wire repeated within one linear combination (which circom never writes and snarkjs
 * would read as its last term only) is found by sorting the combination's wires in scratch.
 * Pass 2: fill the CSR rows, of sys or (cf != NULL) of the compact form. A zero coefficient
 * is dropped: it contributes nothing, and keeping it would put a variable into a density
 * with a zero query point. */
static int walk_constraints(const cfile_map *m, const cfile_section *s, uint32_t n_constraints,
                            uint32_t n_wires, uint64_t counts[3], lc_scratch *scratch, cs *sys,
                            csc_fill *cf)
{
    static const char side[3] = {'A', 'B', 'C'};
    const uint8_t *d = m->data + s->off;
    uint64_t pos = 0, end = s->size;
    cs_lc_rows *rows[3] = {&sys->a, &sys->b, &sys->c};
    uint64_t fill[3] = {0, 0, 0};
    for (uint32_t k = 0; k < n_constraints; k++) {
        for (int w = 0; w < 3; w++) {
            if (end - pos < 4)
                return err_set(CUZK_EFORMAT,
                               ".r1cs constraint %u: %c's term count at offset %llu runs past the "
                               "end of the constraints section (%llu constraints declared)",
                               k, side[w], (unsigned long long)(s->off + pos), (unsigned long long)n_constraints);
            uint32_t nt = cfile_u32(d + pos);
            pos += 4;
            if ((uint64_t)nt * TERM_BYTES > end - pos)
                return err_set(CUZK_EFORMAT,
                               ".r1cs constraint %u: %c has %u terms (%llu bytes) at offset %llu "
                               "but only %llu bytes remain in the constraints section",
                               k, side[w], nt, (unsigned long long)nt * TERM_BYTES,
                               (unsigned long long)(s->off + pos), (unsigned long long)(end - pos));
            if (rows[w]->off) rows[w]->off[k] = fill[w];
            if (cf) cf->c->m[w].row[k] = fill[w];
            if (scratch && nt > scratch->cap) { /* nt * 36 bytes exist in the file */
                uint32_t *g = realloc(scratch->w, (size_t)nt * sizeof *g);
                if (!g) return err_set(CUZK_ENOMEM, "cannot allocate %u terms' wires", nt);
                scratch->w = g;
                scratch->cap = nt;
            }
            const uint64_t lc_pos = pos;
            for (uint32_t t = 0; t < nt; t++, pos += TERM_BYTES) {
                const uint8_t *p = d + pos;
                uint32_t wire = cfile_u32(p);
                if (wire >= n_wires)
                    return err_set(CUZK_EFORMAT,
                                   ".r1cs constraint %u: %c term %u (offset %llu) uses wire %u, but "
                                   "the circuit has %u wires",
                                   k, side[w], t, (unsigned long long)(s->off + pos), wire, n_wires);
                if (scratch) scratch->w[t] = wire;
                fr_t coeff;
                if (!le32_canonical(&coeff, p + 4))
                    return err_set(CUZK_EFORMAT,
                                   ".r1cs constraint %u: %c term %u (offset %llu) has a coefficient "
                                   ">= r",
                                   k, side[w], t, (unsigned long long)(s->off + pos + 4));
                if (fr_is_zero(&coeff)) continue;
                if (rows[w]->terms) {
                    rows[w]->terms[fill[w]].var = wire; /* wire w is variable w (cs.h) */
                    fr_to_mont(&rows[w]->terms[fill[w]].coeff, &coeff);
                } else if (cf) {
                    if (!cf->have_last || !fr_eq(&coeff, &cf->last)) {
                        int rc = csc_coefs_index(&cf->t, &coeff, &cf->last_idx);
                        if (rc) return rc;
                        cf->last = coeff;
                        cf->have_last = 1;
                    }
                    cf->c->m[w].col[fill[w]] = wire;
                    cf->c->m[w].coef[fill[w]] = cf->last_idx;
                }
                fill[w]++;
            }
            uint64_t rep = scratch ? lc_repeat(scratch->w, nt) : UINT64_MAX;
            if (rep != UINT64_MAX) {
                /* name the second occurrence, as a reader going term by term would */
                uint32_t t = 0, first = 1;
                for (;; t++) {
                    if (cfile_u32(d + lc_pos + (uint64_t)t * TERM_BYTES) != rep) continue;
                    if (first) first = 0;
                    else break;
                }
                return err_set(CUZK_EFORMAT,
                               ".r1cs constraint %u: %c term %u (offset %llu) repeats wire %u "
                               "within one linear combination",
                               k, side[w], t, (unsigned long long)(s->off + lc_pos + (uint64_t)t * TERM_BYTES),
                               (uint32_t)rep);
            }
        }
    }
    if (pos != end)
        return err_set(CUZK_EFORMAT,
                       ".r1cs constraints section (offset %zu, %llu bytes) has %llu bytes left "
                       "after its %u constraints",
                       s->off, (unsigned long long)end, (unsigned long long)(end - pos), n_constraints);
    for (int w = 0; w < 3; w++) {
        if (rows[w]->off) rows[w]->off[n_constraints] = fill[w];
        if (counts) counts[w] = fill[w];
    }
    return CUZK_OK;
}

/* The sections and the header, checked; the counts of sys set, *nc = constraints. */
static int load_head(const cfile_map *m, struct cuzk_r1cs *r, cfile_section sec[CFILE_MAX_ID + 1], uint32_t *nc)
{
    int rc = cfile_parse(m, "r1cs", 1, "r1cs", sec);
    if (rc) return rc;
    if (!sec[SEC_HEADER].off)
        return err_set(CUZK_EFORMAT, ".r1cs has no header section (id 1)");
    if (!sec[SEC_CONSTRAINTS].off)
        return err_set(CUZK_EFORMAT, ".r1cs has no constraints section (id 2)");
    if (sec[SEC_CUSTOM_LIST].off || sec[SEC_CUSTOM_USES].off)
        return err_set(CUZK_EFORMAT, ".r1cs uses custom gates (section %d at offset %zu), which "
                       "only PLONK supports; Groth16 cannot prove it",
                       sec[SEC_CUSTOM_LIST].off ? SEC_CUSTOM_LIST : SEC_CUSTOM_USES,
                       sec[SEC_CUSTOM_LIST].off ? sec[SEC_CUSTOM_LIST].off : sec[SEC_CUSTOM_USES].off);
    rc = parse_header(m, &sec[SEC_HEADER], r, nc);
    if (rc) return rc;
    if (sec[SEC_WIRE2LABEL].off && sec[SEC_WIRE2LABEL].size != (uint64_t)r->n_wires * 8)
        return err_set(CUZK_EFORMAT, ".r1cs wire-to-label section (offset %zu) is %llu bytes, "
                       "expected 8 per wire = %llu",
                       sec[SEC_WIRE2LABEL].off, (unsigned long long)sec[SEC_WIRE2LABEL].size,
                       (unsigned long long)r->n_wires * 8);
    cs *sys = &r->sys;
    sys->num_inputs = 1 + (uint64_t)r->n_pub_out + r->n_pub_in;
    sys->num_aux = r->n_wires - sys->num_inputs;
    sys->num_constraints = *nc;
    return CUZK_OK;
}

static int load_mapped(const cfile_map *m, struct cuzk_r1cs *r)
{
    cfile_section sec[CFILE_MAX_ID + 1];
    uint32_t nc = 0;
    int rc = load_head(m, r, sec, &nc);
    if (rc) return rc;
    cs *sys = &r->sys;
    uint64_t counts[3];
    lc_scratch scratch = {NULL, 0};
    rc = walk_constraints(m, &sec[SEC_CONSTRAINTS], nc, r->n_wires, counts, &scratch, sys, NULL);
    free(scratch.w);
    if (rc) return rc;
    cs_lc_rows *rows[3] = {&sys->a, &sys->b, &sys->c};
    for (int w = 0; w < 3; w++) {
        rows[w]->off = malloc(((size_t)nc + 1) * sizeof(uint64_t));
        rows[w]->terms = malloc((counts[w] ? counts[w] : 1) * sizeof(cs_term));
        if (!rows[w]->off || !rows[w]->terms)
            return err_set(CUZK_ENOMEM, "cannot allocate %llu constraints' terms",
                           (unsigned long long)nc);
    }
    return walk_constraints(m, &sec[SEC_CONSTRAINTS], nc, r->n_wires, NULL, NULL, sys, NULL);
}

/* The compact form from a mapped .r1cs: pass 1 as cuzk_r1cs_load's, pass 2 into c's arrays. */
static int load_mapped_csc(const cfile_map *m, threadpool *tp, csc *c)
{
    struct cuzk_r1cs r;
    memset(&r, 0, sizeof r);
    cfile_section sec[CFILE_MAX_ID + 1];
    uint32_t nc = 0;
    int rc = load_head(m, &r, sec, &nc);
    if (rc) return rc;
    uint64_t counts[3];
    lc_scratch scratch = {NULL, 0};
    rc = walk_constraints(m, &sec[SEC_CONSTRAINTS], nc, r.n_wires, counts, &scratch, &r.sys, NULL);
    free(scratch.w);
    if (rc) return rc;
    c->num_inputs = r.sys.num_inputs;
    c->num_aux = r.sys.num_aux;
    c->num_constraints = nc;
    c->abc_len = (uint64_t)nc + c->num_inputs;
    counts[0] += c->num_inputs; /* bellperson's rows: A = input i */
    for (int w = 0; w < 3; w++) {
        csc_matrix *x = &c->m[w];
        x->nnz = counts[w];
        x->row = malloc((c->abc_len + 1) * sizeof *x->row);
        x->col = malloc((counts[w] ? counts[w] : 1) * sizeof *x->col);
        x->coef = malloc((counts[w] ? counts[w] : 1) * sizeof *x->coef);
        if (!x->row || !x->col || !x->coef)
            return err_set(CUZK_ENOMEM, "cannot allocate %llu non-zeros of the compact constraint system",
                           (unsigned long long)counts[w]);
    }
    csc_fill cf = {.c = c};
    fr_t one = {{1, 0, 0, 0}}; /* canonical 1 first: index 0, the per-input rows' coefficient */
    uint32_t one_idx;
    rc = csc_coefs_index(&cf.t, &one, &one_idx);
    if (!rc) rc = walk_constraints(m, &sec[SEC_CONSTRAINTS], nc, r.n_wires, NULL, NULL, &r.sys, &cf);
    if (rc) {
        csc_coefs_free(&cf.t);
        return rc;
    }
    for (int w = 0; w < 3; w++) {
        csc_matrix *x = &c->m[w];
        uint64_t f = x->row[nc] = w ? x->nnz : x->nnz - c->num_inputs;
        for (uint64_t i = 0; i < c->num_inputs; i++) {
            x->row[nc + i] = f;
            if (w == 0) {
                x->col[f] = (uint32_t)i;
                x->coef[f++] = one_idx;
            }
        }
        x->row[c->abc_len] = f;
    }
    for (uint64_t i = 0; i < cf.t.n; i++) fr_to_mont(&cf.t.vals[i], &cf.t.vals[i]);
    free(cf.t.slot);
    c->coeffs = cf.t.vals;
    c->n_coeffs = (uint32_t)cf.t.n;
    return csc_finalize(c, tp);
}

CUZK_API int cuzk_r1cs_load(const char *path, cuzk_r1cs **out)
{
    if (!path || !out) return err_set(CUZK_EINVAL, "cuzk_r1cs_load: path or out is NULL");
    *out = NULL;
    struct cuzk_r1cs *r = calloc(1, sizeof *r);
    if (!r) return err_set(CUZK_ENOMEM, "cannot allocate a circuit");
    cfile_map m;
    int rc = cfile_map_open(path, &m);
    if (rc == CUZK_OK) {
        rc = load_mapped(&m, r);
        cfile_map_close(&m);
    }
    if (rc) {
        if (rc == CUZK_EFORMAT) { /* say which file */
            char detail[400];
            snprintf(detail, sizeof detail, "%s", err_detail());
            err_set(rc, "%s: %s", path, detail);
        }
        cuzk_r1cs_free(r);
        return rc;
    }
    *out = r;
    return err_done(CUZK_OK);
}

int circom_r1cs_load_csc(const char *path, threadpool *tp, csc *out)
{
    memset(out, 0, sizeof *out);
    cfile_map m;
    int rc = cfile_map_open(path, &m);
    if (rc == CUZK_OK) {
        rc = load_mapped_csc(&m, tp, out);
        cfile_map_close(&m);
    }
    if (rc) {
        if (rc == CUZK_EFORMAT) { /* say which file, as cuzk_r1cs_load does */
            char detail[400];
            snprintf(detail, sizeof detail, "%s", err_detail());
            err_set(rc, "%s: %s", path, detail);
        }
        csc_free(out);
    }
    return rc;
}

CUZK_API void cuzk_r1cs_free(cuzk_r1cs *r1cs)
{
    if (!r1cs) return;
    cs_free(&r1cs->sys);
    free(r1cs);
}

/* ---- circuit + witness -> partition ---- */

CUZK_API int cuzk_r1cs_partition(const cuzk_r1cs *r1cs, const cuzk_fr *witness, uint64_t count,
                                 cuzk_partition *out)
{
    if (!r1cs || !witness || !out)
        return err_set(CUZK_EINVAL, "cuzk_r1cs_partition: r1cs, witness or out is NULL");
    const cs *sys = &r1cs->sys;
    if (count != r1cs->n_wires)
        return err_set(CUZK_EINVAL, "the witness has %llu values but the circuit has %u wires",
                       (unsigned long long)count, r1cs->n_wires);
    fr_t *w = malloc((count ? count : 1) * sizeof(fr_t));
    if (!w) return err_set(CUZK_ENOMEM, "cannot allocate %llu witness values", (unsigned long long)count);
    for (uint64_t i = 0; i < count; i++) {
        fr_t v;
        memcpy(&v, &witness[i], sizeof v);
        if (!fr_to_mont(&w[i], &v)) {
            free(w);
            return err_set(CUZK_EINVAL, "witness value %llu is not a canonical scalar (>= r)",
                           (unsigned long long)i);
        }
    }
    if (!fr_is_one(&w[0])) {
        free(w);
        return err_set(CUZK_EINVAL, "witness value 0 (wire ONE) is not 1");
    }
    /* wire order = variable order: inputs (ONE, outputs, public inputs), then aux */
    int rc = cs_check_witness(sys, w, w + sys->num_inputs);
    if (rc == CUZK_EINVAL) {
        char detail[400];
        snprintf(detail, sizeof detail, "%s", err_detail());
        rc = err_set(CUZK_EINVAL, "the witness does not satisfy the circuit: %s", detail);
    }
    /* only the members of the first published layout: a host built against it has no room
     * for more, and it fills everything a partition needs */
    cuzk_partition made;
    if (rc == CUZK_OK) rc = cs_make_partition_ex(sys, w, w + sys->num_inputs, CUZK_FR_CANONICAL, &made);
    if (rc == CUZK_OK) {
        made.struct_size = CUZK_PARTITION_SIZE_V1;
        memcpy(out, &made, CUZK_PARTITION_SIZE_V1);
    }
    free(w);
    return err_done(rc);
}

/* ---- writer ---- */

int circom_r1cs_write(const char *path, const cs *sys)
{
    uint64_t nwires = sys->num_inputs + sys->num_aux;
    if (nwires > UINT32_MAX || sys->num_constraints > UINT32_MAX || sys->num_inputs == 0)
        return err_set(CUZK_EINVAL, "%llu wires / %llu constraints do not fit a .r1cs file",
                       (unsigned long long)nwires, (unsigned long long)sys->num_constraints);
    FILE *f = fopen(path, "wb");
    if (!f) return err_set(CUZK_EIO, "cannot create %s: %s", path, strerror(errno));
    int bad = cfile_put(f, "r1cs", 4) | cfile_put_u32(f, 1) | cfile_put_u32(f, 3);
    /* header */
    bad |= cfile_put_u32(f, SEC_HEADER) | cfile_put_u64(f, 64);
    bad |= cfile_put_u32(f, 32) | cfile_put_modulus(f);
    bad |= cfile_put_u32(f, (uint32_t)nwires);                    /* nWires */
    bad |= cfile_put_u32(f, 0);                                   /* nPubOut */
    bad |= cfile_put_u32(f, (uint32_t)(sys->num_inputs - 1));     /* nPubIn */
    bad |= cfile_put_u32(f, 0);                                   /* nPrvIn */
    bad |= cfile_put_u64(f, nwires);                              /* nLabels */
    bad |= cfile_put_u32(f, (uint32_t)sys->num_constraints);      /* nConstraints */
    /* constraints */
    const cs_lc_rows *rows[3] = {&sys->a, &sys->b, &sys->c};
    uint64_t size = 0;
    for (int w = 0; w < 3; w++)
        size += 4 * sys->num_constraints + TERM_BYTES * rows[w]->off[sys->num_constraints];
    bad |= cfile_put_u32(f, SEC_CONSTRAINTS) | cfile_put_u64(f, size);
    for (uint64_t k = 0; k < sys->num_constraints && !bad; k++)
        for (int w = 0; w < 3; w++) {
            const cs_lc_rows *r = rows[w];
            bad |= cfile_put_u32(f, (uint32_t)(r->off[k + 1] - r->off[k]));
            for (uint64_t t = r->off[k]; t < r->off[k + 1]; t++)
                bad |= cfile_put_u32(f, (uint32_t)r->terms[t].var) |
                       cfile_put_fr(f, &r->terms[t].coeff);
        }
    /* wire -> label: identity */
    bad |= cfile_put_u32(f, SEC_WIRE2LABEL) | cfile_put_u64(f, nwires * 8);
    for (uint64_t i = 0; i < nwires && !bad; i++) bad |= cfile_put_u64(f, i);
    if (fclose(f) != 0) bad = 1;
    if (bad) return err_set(CUZK_EIO, "cannot write %s: %s", path, strerror(errno));
    return CUZK_OK;
}
