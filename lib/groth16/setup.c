/*
 * TEST ONLY: a Groth16 setup from KNOWN toxic waste (bellperson's generator math, FORMATS.md).
 * Anyone who knows the seed can forge proofs for keys made here: never use them in production.
 * Multi-threaded: the scalars are computed once, then multiplied by fixed-base window tables.
 */
#include "groth16/groth16.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "ntt/ntt_cpu.h"
#include "sha256.h"

/* ---- toxic waste from a seed (TEST ONLY) ---- */

/* int_le(SHA-256(seed || label)) mod r, in Montgomery form. */
static void derive(fr_t *out, const uint8_t seed[32], const char *label)
{
    uint8_t d[32];
    sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, seed, 32);
    sha256_update(&c, label, strlen(label));
    sha256_final(&c, d);
    fr_t x;
    for (int i = 0; i < 4; i++) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--) v = v << 8 | d[8 * i + b];
        x.l[i] = v;
    }
    /* x < 2^256 < 3r: at most two subtractions */
    while (!fr_is_canonical(&x)) {
        unsigned __int128 borrow = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 t = (unsigned __int128)x.l[i] - FR_MODULUS[i] - borrow;
            x.l[i] = (uint64_t)t;
            borrow = (t >> 64) & 1;
        }
    }
    fr_to_mont(out, &x);
}

void groth16_toxic_from_seed(groth16_toxic *t, const uint8_t seed[32])
{
    derive(&t->alpha, seed, "cuzk-test-setup-alpha");
    derive(&t->beta, seed, "cuzk-test-setup-beta");
    derive(&t->gamma, seed, "cuzk-test-setup-gamma");
    derive(&t->delta, seed, "cuzk-test-setup-delta");
    derive(&t->tau, seed, "cuzk-test-setup-tau");
}

void groth16_rs_from_seed(fr_t *r, fr_t *s, const uint8_t seed[32])
{
    derive(r, seed, "cuzk-test-prove-r");
    derive(s, seed, "cuzk-test-prove-s");
}

/* ---- fixed-base multiplication: table[k][d-1] = d·2^(W·k)·G, d in [1, 2^W) ---- */

#define W 8
#define NWIN ((255 + W - 1) / W)
#define ROW ((1 << W) - 1)
#define BLOCK 256 /* scalars per task */

typedef struct fixed_job {
    int g2;
    const void *table;   /* g1_aff[NWIN * ROW] or g2_aff[...] */
    const fr_t *scalars; /* canonical */
    void *out;           /* affine */
    size_t n;
} fixed_job;

static unsigned window(const fr_t *s, unsigned k)
{
    unsigned bit = k * W, limb = bit / 64, off = bit % 64;
    uint64_t v = s->l[limb] >> off;
    if (off + W > 64 && limb + 1 < 4) v |= s->l[limb + 1] << (64 - off);
    return (unsigned)(v & ROW);
}

static void fixed_block(void *arg, size_t blk)
{
    fixed_job *j = arg;
    size_t b = blk * BLOCK, e = b + BLOCK < j->n ? b + BLOCK : j->n;
    if (!j->g2) {
        g1_jac acc[BLOCK];
        const g1_aff *t = j->table;
        for (size_t i = b; i < e; i++) {
            g1_jac_set_inf(&acc[i - b]);
            for (unsigned k = 0; k < NWIN; k++) {
                unsigned d = window(&j->scalars[i], k);
                if (d) g1_jac_add_aff(&acc[i - b], &acc[i - b], &t[k * ROW + d - 1]);
            }
        }
        g1_batch_to_aff((g1_aff *)j->out + b, acc, e - b);
    } else {
        g2_jac acc[BLOCK];
        const g2_aff *t = j->table;
        for (size_t i = b; i < e; i++) {
            g2_jac_set_inf(&acc[i - b]);
            for (unsigned k = 0; k < NWIN; k++) {
                unsigned d = window(&j->scalars[i], k);
                if (d) g2_jac_add_aff(&acc[i - b], &acc[i - b], &t[k * ROW + d - 1]);
            }
        }
        g2_batch_to_aff((g2_aff *)j->out + b, acc, e - b);
    }
}

static g1_aff *g1_table(const g1_aff *g)
{
    g1_jac *jt = malloc(NWIN * ROW * sizeof *jt);
    g1_aff *t = malloc(NWIN * ROW * sizeof *t);
    if (!jt || !t) { free(jt); free(t); return NULL; }
    g1_jac base, acc;
    g1_jac_from_aff(&base, g);
    for (unsigned k = 0; k < NWIN; k++) {
        acc = base;
        for (unsigned d = 0; d < ROW; d++) {
            jt[k * ROW + d] = acc;
            g1_jac_add(&acc, &acc, &base);
        }
        base = acc; /* 2^W · base */
    }
    g1_batch_to_aff(t, jt, NWIN * ROW);
    free(jt);
    return t;
}

static g2_aff *g2_table(const g2_aff *g)
{
    g2_jac *jt = malloc(NWIN * ROW * sizeof *jt);
    g2_aff *t = malloc(NWIN * ROW * sizeof *t);
    if (!jt || !t) { free(jt); free(t); return NULL; }
    g2_jac base, acc;
    g2_jac_from_aff(&base, g);
    for (unsigned k = 0; k < NWIN; k++) {
        acc = base;
        for (unsigned d = 0; d < ROW; d++) {
            jt[k * ROW + d] = acc;
            g2_jac_add(&acc, &acc, &base);
        }
        base = acc;
    }
    g2_batch_to_aff(t, jt, NWIN * ROW);
    free(jt);
    return t;
}

/* out[i] = scalars[i]·G for canonical scalars (0 gives infinity). */
static void fixed_mul(int g2, const void *table, void *out, const fr_t *scalars, size_t n, threadpool *tp)
{
    fixed_job j = {g2, table, scalars, out, n};
    threadpool_parallel_for(tp, (n + BLOCK - 1) / BLOCK, fixed_block, &j);
}

/* ---- the setup (TEST ONLY) ---- */

typedef struct setup_bufs {
    fr_t *pw, *hs, *u, *v, *w, *ics, *ls, *as, *bs;
} setup_bufs;

static void bufs_free(setup_bufs *b)
{
    fr_t **f = (fr_t **)b;
    for (size_t i = 0; i < sizeof *b / sizeof(fr_t *); i++) free(f[i]);
}

static void to_canonical_all(fr_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++) fr_from_mont(&x[i], &x[i]);
}

int groth16_setup(const cs *sys, const groth16_toxic *t, threadpool *tp, groth16_params **out)
{
    if (!out) return err_set(CUZK_EINVAL, "output pointer is NULL");
    *out = NULL;
    if (!t) return err_set(CUZK_EINVAL, "toxic waste is NULL");
    int rc = cs_validate(sys);
    if (rc) return rc;
    unsigned log_m = cs_log_domain(sys);
    if (log_m > 32) return err_set(CUZK_EINVAL, "%llu constraints need a domain beyond 2^32",
                                   (unsigned long long)cs_abc_len(sys));
    uint64_t m = (uint64_t)1 << log_m, ni = sys->num_inputs, na = sys->num_aux, nv = ni + na;
    uint64_t nc = sys->num_constraints;
    if (ni > UINT32_MAX || na > UINT32_MAX || m - 1 > UINT32_MAX)
        return err_set(CUZK_EINVAL, "a query would exceed the format's 2^32 - 1 points");
    if (fr_is_zero(&t->gamma) || fr_is_zero(&t->delta))
        return err_set(CUZK_EINVAL, "gamma and delta must be nonzero");

    setup_bufs b = {0};
    b.pw = malloc(m * sizeof(fr_t));
    b.hs = malloc((m > 1 ? m - 1 : 1) * sizeof(fr_t));
    b.u = calloc(nv, sizeof(fr_t));
    b.v = calloc(nv, sizeof(fr_t));
    b.w = calloc(nv, sizeof(fr_t));
    b.ics = malloc(ni * sizeof(fr_t));
    b.ls = malloc((na ? na : 1) * sizeof(fr_t));
    b.as = malloc(nv * sizeof(fr_t));
    b.bs = malloc(nv * sizeof(fr_t));
    groth16_params *p = calloc(1, sizeof *p);
    g1_aff *tab1 = NULL;
    g2_aff *tab2 = NULL;
    if (!b.pw || !b.hs || !b.u || !b.v || !b.w || !b.ics || !b.ls || !b.as || !b.bs || !p) goto nomem;

    /* powers of tau; h scalars tau^i·(tau^m - 1)/delta; then Lagrange basis at tau */
    fr_t x, zt, dinv, ginv;
    b.pw[0] = FR_ONE;
    for (uint64_t k = 1; k < m; k++) fr_mul(&b.pw[k], &b.pw[k - 1], &t->tau);
    fr_pow_u64(&zt, &t->tau, m);
    fr_sub(&zt, &zt, &FR_ONE);
    fr_inv(&dinv, &t->delta);
    fr_inv(&ginv, &t->gamma);
    fr_mul(&zt, &zt, &dinv);
    for (uint64_t k = 0; k + 1 < m; k++) fr_mul(&b.hs[k], &b.pw[k], &zt);
    ntt_inverse(b.pw, log_m, tp); /* b.pw[j] = l_j(tau) */

    /* u, v, w per variable, the appended input rows (A = input i) included */
    const cs_lc_rows *rows[3] = {&sys->a, &sys->b, &sys->c};
    fr_t *acc[3] = {b.u, b.v, b.w};
    for (int q = 0; q < 3; q++)
        for (uint64_t k = 0; k < nc; k++)
            for (uint64_t i = rows[q]->off[k]; i < rows[q]->off[k + 1]; i++) {
                const cs_term *term = &rows[q]->terms[i];
                fr_mul(&x, &term->coeff, &b.pw[k]);
                fr_add(&acc[q][term->var], &acc[q][term->var], &x);
            }
    for (uint64_t i = 0; i < ni; i++) fr_add(&b.u[i], &b.u[i], &b.pw[nc + i]);

    /* ic / l: (beta·u + alpha·v + w) / gamma or / delta; a, b: u, v where nonzero */
    uint64_t n_a = 0, n_b = 0;
    for (uint64_t i = 0; i < nv; i++) {
        fr_t y;
        fr_mul(&x, &t->beta, &b.u[i]);
        fr_mul(&y, &t->alpha, &b.v[i]);
        fr_add(&x, &x, &y);
        fr_add(&x, &x, &b.w[i]);
        if (fr_is_zero(&x)) {
            rc = err_set(CUZK_EINVAL, "%s %llu appears in no constraint: its %s point would be "
                         "infinity, which bellperson refuses", i < ni ? "input" : "aux variable",
                         (unsigned long long)(i < ni ? i : i - ni), i < ni ? "ic" : "l");
            goto fail;
        }
        if (i < ni) fr_mul(&b.ics[i], &x, &ginv);
        else fr_mul(&b.ls[i - ni], &x, &dinv);
        if (!fr_is_zero(&b.u[i])) b.as[n_a++] = b.u[i];
        if (!fr_is_zero(&b.v[i])) b.bs[n_b++] = b.v[i];
    }
    to_canonical_all(b.hs, m - 1);
    to_canonical_all(b.ics, ni);
    to_canonical_all(b.ls, na);
    to_canonical_all(b.as, n_a);
    to_canonical_all(b.bs, n_b);

    p->vk.ic = malloc(ni * sizeof(g1_aff));
    p->h = malloc((m > 1 ? m - 1 : 1) * sizeof(g1_aff));
    p->l = malloc((na ? na : 1) * sizeof(g1_aff));
    p->a = malloc((n_a ? n_a : 1) * sizeof(g1_aff));
    p->b_g1 = malloc((n_b ? n_b : 1) * sizeof(g1_aff));
    p->b_g2 = malloc((n_b ? n_b : 1) * sizeof(g2_aff));
    tab1 = g1_table(&G1_GENERATOR);
    tab2 = g2_table(&G2_GENERATOR);
    if (!p->vk.ic || !p->h || !p->l || !p->a || !p->b_g1 || !p->b_g2 || !tab1 || !tab2) goto nomem;

    fixed_mul(0, tab1, p->h, b.hs, m - 1, tp);
    fixed_mul(0, tab1, p->vk.ic, b.ics, ni, tp);
    fixed_mul(0, tab1, p->l, b.ls, na, tp);
    fixed_mul(0, tab1, p->a, b.as, n_a, tp);
    fixed_mul(0, tab1, p->b_g1, b.bs, n_b, tp);
    fixed_mul(1, tab2, p->b_g2, b.bs, n_b, tp);
    p->vk.n_ic = (uint32_t)ni;
    p->n_h = (uint32_t)(m - 1);
    p->n_l = (uint32_t)na;
    p->n_a = (uint32_t)n_a;
    p->n_b_g1 = p->n_b_g2 = (uint32_t)n_b;

    fr_t vs[4];
    fr_from_mont(&vs[0], &t->alpha);
    fr_from_mont(&vs[1], &t->beta);
    fr_from_mont(&vs[2], &t->delta);
    g1_aff g1s[3];
    fixed_mul(0, tab1, g1s, vs, 3, NULL);
    p->vk.alpha_g1 = g1s[0];
    p->vk.beta_g1 = g1s[1];
    p->vk.delta_g1 = g1s[2];
    fr_from_mont(&vs[0], &t->beta);
    fr_from_mont(&vs[1], &t->gamma);
    fr_from_mont(&vs[2], &t->delta);
    g2_aff g2s[3];
    fixed_mul(1, tab2, g2s, vs, 3, NULL);
    p->vk.beta_g2 = g2s[0];
    p->vk.gamma_g2 = g2s[1];
    p->vk.delta_g2 = g2s[2];

    free(tab1);
    free(tab2);
    bufs_free(&b);
    *out = p;
    return CUZK_OK;
nomem:
    rc = err_set(CUZK_ENOMEM, "cannot allocate the setup of %llu variables, domain 2^%u",
                 (unsigned long long)nv, log_m);
fail:
    free(tab1);
    free(tab2);
    bufs_free(&b);
    groth16_params_free(p);
    return rc;
}
