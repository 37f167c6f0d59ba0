/*
 * Groth16 end to end on the CPU: the seed derivation against Python's hashlib, the H step
 * against the seven-transform form and a naive polynomial division, the test setup against
 * closed-form Lagrange values, and every proof against an oracle that knows the toxic waste
 * and computes A, B, C's discrete logarithms directly in Fr. Then verification, tampering,
 * mismatched partitions and bad arguments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cs_fixture.h"
#include "cuzk/cuzk.h"
#include "groth16/groth16.h"
#include "ntt/ntt_cpu.h"
#include "support/testutil.h"

static threadpool *tp;

/* ---- scalar helpers ---- */

static void fr_hex(fr_t *mont, const char *h) /* big-endian hex, < r */
{
    fr_t c = {{0}};
    size_t n = strlen(h);
    for (size_t i = 0; i < n; i++) {
        char ch = h[n - 1 - i];
        uint64_t v = ch <= '9' ? (uint64_t)(ch - '0') : (uint64_t)((ch | 0x20) - 'a' + 10);
        c.l[i / 16] |= v << (4 * (i % 16));
    }
    assert_true(fr_to_mont(mont, &c));
}

static void rand_fr(fr_t *r)
{
    fr_t c;
    for (int i = 0; i < 4; i++) c.l[i] = test_rand64();
    c.l[3] &= 0x0fffffffffffffffULL;
    fr_to_mont(r, &c);
}

/* ω of the 2^k domain from FORMATS.md's 2^32-th root (independent of fr_root_of_unity). */
static void omega(fr_t *w, unsigned k)
{
    fr_hex(w, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
    for (unsigned i = k; i < 32; i++) fr_sqr(w, w);
}

/* l_j(tau) = ω^j (tau^m - 1) / (m (tau - ω^j)), closed form. */
static void lagrange_closed(fr_t *l, unsigned log_m, const fr_t *tau)
{
    uint64_t m = (uint64_t)1 << log_m;
    fr_t w, wj = FR_ONE, tm, mm, t;
    omega(&w, log_m);
    fr_pow_u64(&tm, tau, m);
    fr_sub(&tm, &tm, &FR_ONE);
    fr_from_u64(&mm, m);
    for (uint64_t j = 0; j < m; j++) {
        fr_sub(&t, tau, &wj);
        fr_mul(&t, &t, &mm);
        fr_inv(&t, &t);
        fr_mul(&t, &t, &tm);
        fr_mul(&l[j], &t, &wj);
        fr_mul(&wj, &wj, &w);
    }
}

/* u, v, w per variable (nv of each), appended input rows included. */
static void qap_at_tau(const cs *s, const fr_t *tau, fr_t *u, fr_t *v, fr_t *w)
{
    unsigned log_m = cs_log_domain(s);
    fr_t *l = malloc(((size_t)1 << log_m) * sizeof(fr_t));
    lagrange_closed(l, log_m, tau);
    uint64_t nv = s->num_inputs + s->num_aux;
    memset(u, 0, nv * sizeof(fr_t));
    memset(v, 0, nv * sizeof(fr_t));
    memset(w, 0, nv * sizeof(fr_t));
    const cs_lc_rows *rows[3] = {&s->a, &s->b, &s->c};
    fr_t *acc[3] = {u, v, w}, t;
    for (int q = 0; q < 3; q++)
        for (uint64_t k = 0; k < s->num_constraints; k++)
            for (uint64_t i = rows[q]->off[k]; i < rows[q]->off[k + 1]; i++) {
                fr_mul(&t, &rows[q]->terms[i].coeff, &l[k]);
                fr_add(&acc[q][rows[q]->terms[i].var], &acc[q][rows[q]->terms[i].var], &t);
            }
    for (uint64_t i = 0; i < s->num_inputs; i++) fr_add(&u[i], &u[i], &l[s->num_constraints + i]);
    free(l);
}

static void g1_times(g1_aff *out, const fr_t *mont)
{
    fr_t c;
    g1_jac g, r;
    fr_from_mont(&c, mont);
    g1_jac_from_aff(&g, &G1_GENERATOR);
    g1_jac_mul(&r, &g, &c);
    g1_jac_to_aff(out, &r);
}

static void g2_times(g2_aff *out, const fr_t *mont)
{
    fr_t c;
    g2_jac g, r;
    fr_from_mont(&c, mont);
    g2_jac_from_aff(&g, &G2_GENERATOR);
    g2_jac_mul(&r, &g, &c);
    g2_jac_to_aff(out, &r);
}

/* The proof from the toxic waste alone (z = inputs then aux, satisfied):
 * a = α + A(τ) + rδ, b = β + B(τ) + sδ,
 * c = (Σ_aux z_i(βu_i + αv_i + w_i) + A(τ)B(τ) - C(τ)) / δ + s·a + r·b - r·s·δ. */
static void oracle_proof(uint8_t out[192], const cs *s, const fr_t *z, const groth16_toxic *t,
                         const fr_t *r, const fr_t *sr)
{
    uint64_t nv = s->num_inputs + s->num_aux;
    fr_t *u = malloc(nv * sizeof(fr_t)), *v = malloc(nv * sizeof(fr_t)), *w = malloc(nv * sizeof(fr_t));
    qap_at_tau(s, &t->tau, u, v, w);
    fr_t At = FR_ZERO, Bt = FR_ZERO, Ct = FR_ZERO, L = FR_ZERO, x, y;
    for (uint64_t i = 0; i < nv; i++) {
        fr_mul(&x, &z[i], &u[i]);
        fr_add(&At, &At, &x);
        fr_mul(&x, &z[i], &v[i]);
        fr_add(&Bt, &Bt, &x);
        fr_mul(&x, &z[i], &w[i]);
        fr_add(&Ct, &Ct, &x);
        if (i >= s->num_inputs) {
            fr_mul(&x, &t->beta, &u[i]);
            fr_mul(&y, &t->alpha, &v[i]);
            fr_add(&x, &x, &y);
            fr_add(&x, &x, &w[i]);
            fr_mul(&x, &x, &z[i]);
            fr_add(&L, &L, &x);
        }
    }
    fr_t a, b, c, dinv;
    fr_mul(&x, r, &t->delta);
    fr_add(&a, &t->alpha, &At);
    fr_add(&a, &a, &x);
    fr_mul(&x, sr, &t->delta);
    fr_add(&b, &t->beta, &Bt);
    fr_add(&b, &b, &x);
    fr_mul(&x, &At, &Bt);
    fr_sub(&x, &x, &Ct);
    fr_add(&x, &x, &L);
    fr_inv(&dinv, &t->delta);
    fr_mul(&c, &x, &dinv);
    fr_mul(&x, sr, &a);
    fr_add(&c, &c, &x);
    fr_mul(&x, r, &b);
    fr_add(&c, &c, &x);
    fr_mul(&x, r, sr);
    fr_mul(&x, &x, &t->delta);
    fr_sub(&c, &c, &x);
    g1_aff A, C;
    g2_aff B;
    g1_times(&A, &a);
    g2_times(&B, &b);
    g1_times(&C, &c);
    g1_encode_compressed(out, &A);
    g2_encode_compressed(out + 48, &B);
    g1_encode_compressed(out + 144, &C);
    free(u);
    free(v);
    free(w);
}

/* ---- random satisfied circuits ---- */

typedef struct gen_opts {
    int a_inputs_only;   /* A never names an aux variable: a_aux density empty */
    int b_inputs_only;   /* B never names an aux variable: b_aux density empty */
    int c_only_var;      /* the last aux variable appears only in C */
    int zero_share;      /* one value in zero_share is 0 (0 = none) */
} gen_opts;

static void push_fr(cs_lc_rows *r, uint64_t k, const cs_term *t, int n)
{
    uint64_t base = r->off[k];
    r->off = realloc(r->off, (k + 2) * sizeof(uint64_t));
    r->terms = realloc(r->terms, (base + (uint64_t)n + 1) * sizeof(cs_term));
    memcpy(r->terms + base, t, (size_t)n * sizeof(cs_term));
    r->off[k + 1] = base + (uint64_t)n;
}

static void eval_terms(fr_t *out, const cs_term *t, int n, const fr_t *z)
{
    fr_t x;
    *out = FR_ZERO;
    for (int i = 0; i < n; i++) {
        fr_mul(&x, &t[i].coeff, &z[t[i].var]);
        fr_add(out, out, &x);
    }
}

/* z (ONE first) is filled; every aux variable ends up named by some constraint. */
static void rand_circuit(cs *s, fr_t **zout, uint64_t ni, uint64_t na, uint64_t nc, gen_opts o)
{
    fx_init(s, ni, na);
    uint64_t nv = ni + na;
    fr_t *z = malloc(nv * sizeof(fr_t));
    z[0] = FR_ONE;
    for (uint64_t i = 1; i < nv; i++) {
        if (o.zero_share && test_rand64() % o.zero_share == 0) z[i] = FR_ZERO;
        else if (test_rand64() % 3 == 0) fr_from_u64(&z[i], test_rand64() & 1); /* bits */
        else rand_fr(&z[i]);
    }
    uint64_t c_only = o.c_only_var && na ? nv - 1 : UINT64_MAX;
    if (c_only != UINT64_MAX && fr_is_zero(&z[c_only])) z[c_only] = FR_ONE;
    uint8_t *named = calloc(nv, 1);
    uint64_t k = 0;
    for (; k < nc || k < 1; k++) {
        cs_term ta[4], tb[3], tc[3];
        int na_ = (int)(test_rand64() % 4), nb_ = (int)(test_rand64() % 3);
        for (int i = 0; i < na_; i++) {
            uint64_t var;
            do var = test_rand64() % (o.a_inputs_only ? ni : nv); while (var == c_only);
            ta[i].var = var;
            rand_fr(&ta[i].coeff);
            named[var] = 1;
        }
        for (int i = 0; i < nb_; i++) {
            uint64_t var;
            do var = test_rand64() % (o.b_inputs_only ? ni : nv); while (var == c_only);
            tb[i].var = var;
            rand_fr(&tb[i].coeff);
            named[var] = 1;
        }
        fr_t va, vb, prod, inv;
        eval_terms(&va, ta, na_, z);
        eval_terms(&vb, tb, nb_, z);
        fr_mul(&prod, &va, &vb);
        /* C: an optional random term, then one term that makes the row hold */
        int nc_ = 0;
        if (test_rand64() % 2) {
            tc[nc_].var = test_rand64() % nv;
            rand_fr(&tc[nc_].coeff);
            named[tc[nc_].var] = 1;
            fr_t x;
            fr_mul(&x, &tc[nc_].coeff, &z[tc[nc_].var]);
            fr_sub(&prod, &prod, &x);
            nc_++;
        }
        uint64_t fixv = 0;
        if (k == 0 && c_only != UINT64_MAX) { /* C = c_only + (prod - z_c)·ONE */
            tc[nc_].var = c_only;
            tc[nc_].coeff = FR_ONE;
            fr_sub(&prod, &prod, &z[c_only]);
            nc_++;
        } else if (test_rand64() % 2) {
            uint64_t cand = test_rand64() % nv;
            /* not the random term's variable: their coefficients could cancel */
            if (!fr_is_zero(&z[cand]) && cand != c_only && (nc_ == 0 || cand != tc[0].var)) fixv = cand;
        }
        fr_inv(&inv, &z[fixv]);
        tc[nc_].var = fixv;
        fr_mul(&tc[nc_].coeff, &prod, &inv);
        if (fr_is_zero(&tc[nc_].coeff)) fr_from_u64(&tc[nc_].coeff, 0); /* a zero coefficient */
        else named[fixv] = 1;
        nc_++;
        push_fr(&s->a, k, ta, na_);
        push_fr(&s->b, k, tb, nb_);
        push_fr(&s->c, k, tc, nc_);
    }
    /* name the rest: x · ONE = x */
    for (uint64_t v = ni; v < nv; v++) {
        if (named[v] || v == c_only) continue;
        cs_term t1 = {v, FR_ONE}, t0 = {0, FR_ONE};
        push_fr(&s->a, k, o.a_inputs_only ? &t0 : &t1, 1);
        push_fr(&s->b, k, o.a_inputs_only ? &t1 : &t0, 1);
        push_fr(&s->c, k, &t1, 1);
        k++;
    }
    s->num_constraints = k;
    free(named);
    *zout = z;
}

/* ---- the seed derivation ---- */

static void toxic_waste_from_seed_matches_hashlib(void **state)
{
    (void)state;
    uint8_t seed[32];
    for (int i = 0; i < 32; i++) seed[i] = (uint8_t)i;
    groth16_toxic t;
    groth16_toxic_from_seed(&t, seed);
    fr_t want;
    fr_hex(&want, "2ccf1596b2bd8b24d1152c2d7cb4f126b479639f0f5adf4b0d88ae449f5a1731");
    assert_memory_equal(&t.alpha, &want, 32);
    fr_hex(&want, "13a0c52f355162e62715c781aa51691fdd77cba59c8dcfe765e646346e76047c");
    assert_memory_equal(&t.beta, &want, 32);
    fr_hex(&want, "6df76c80c185bbff8a8df33e0cd384cbccfeb8596ed9d444e6da181e9903a38a");
    assert_memory_equal(&t.gamma, &want, 32);
    fr_hex(&want, "6e4244b31662654b5f20c4df47e29177f6a075058e36cd4c12f88ebab992bf2f");
    assert_memory_equal(&t.delta, &want, 32);
    fr_hex(&want, "5261bb9b8305c88bda7c6fd7b102d89e179281655fac6599224c837e68b5d5d4");
    assert_memory_equal(&t.tau, &want, 32);
    fr_t r, s;
    groth16_rs_from_seed(&r, &s, seed);
    fr_hex(&want, "271636a5f0fd73fc84dea2905c3016e6082feaa9d25f3c6ea190cef5128b8d3");
    assert_memory_equal(&r, &want, 32);
    fr_hex(&want, "48f2e30b3e1413f5b3d624c197aff7963b09950fa2d3f5e9bc2b7447be581e0e");
    assert_memory_equal(&s, &want, 32);
    /* digests >= r get reduced */
    memset(seed, 0xff, 32);
    groth16_toxic_from_seed(&t, seed);
    fr_hex(&want, "30e2cfc5b9f5d639effde8be8f309753152de60b4bbc3b13df860cad9a84f1ae");
    assert_memory_equal(&t.alpha, &want, 32);
    fr_hex(&want, "27c3748c0fdf5dd3b10dfe6e69b83d954002dc4585c87f2ce944cad413f4596b");
    assert_memory_equal(&t.tau, &want, 32);
}

/* ---- H ---- */

/* bellperson's seven transforms: cosetINTT((A·B - C on the coset) / (7^m - 1)). */
static void h_seven(fr_t *out, const fr_t *a, const fr_t *b, const fr_t *c, uint64_t n, unsigned log_m)
{
    uint64_t m = (uint64_t)1 << log_m;
    fr_t *x[3];
    const fr_t *src[3] = {a, b, c};
    for (int q = 0; q < 3; q++) {
        x[q] = calloc(m, sizeof(fr_t));
        memcpy(x[q], src[q], n * sizeof(fr_t));
        ntt_inverse(x[q], log_m, NULL);
        ntt_coset_forward(x[q], log_m, NULL);
    }
    fr_t z;
    fr_from_u64(&z, 7);
    fr_pow_u64(&z, &z, m);
    fr_sub(&z, &z, &FR_ONE);
    fr_inv(&z, &z);
    for (uint64_t i = 0; i < m; i++) {
        fr_mul(&x[0][i], &x[0][i], &x[1][i]);
        fr_sub(&x[0][i], &x[0][i], &x[2][i]);
        fr_mul(&x[0][i], &x[0][i], &z);
    }
    ntt_coset_inverse(x[0], log_m, NULL);
    memcpy(out, x[0], (m - 1) * sizeof(fr_t));
    for (int q = 0; q < 3; q++) free(x[q]);
}

static cuzk_partition raw_partition(const fr_t *a, const fr_t *b, const fr_t *c, uint64_t n)
{
    static const fr_t one_in[1] = {{{0}}};
    cuzk_partition p = {.struct_size = sizeof p, .scalar_form = CUZK_FR_MONTGOMERY};
    p.a = (const cuzk_fr *)a;
    p.b = (const cuzk_fr *)b;
    p.c = (const cuzk_fr *)c;
    p.abc_len = n;
    p.inputs = (const cuzk_fr *)one_in;
    p.num_inputs = 1;
    return p;
}

static void h_six_equals_seven_on_random_vectors(void **state)
{
    (void)state;
    test_seed();
    for (unsigned log_m = 1; log_m <= 9; log_m++) {
        uint64_t m = (uint64_t)1 << log_m, n = m / 2 + 1 + test_rand64() % (m / 2);
        fr_t *a = malloc(n * sizeof(fr_t)), *b = malloc(n * sizeof(fr_t)), *c = malloc(n * sizeof(fr_t));
        for (uint64_t i = 0; i < n; i++) rand_fr(&a[i]), rand_fr(&b[i]), rand_fr(&c[i]);
        fr_t *h = malloc(m * sizeof(fr_t)), *want = malloc(m * sizeof(fr_t));
        cuzk_partition p = raw_partition(a, b, c, n);
        assert_int_equal(groth16_compute_h(h, &p, log_m, tp), CUZK_OK);
        h_seven(want, a, b, c, n, log_m);
        assert_memory_equal(h, want, (m - 1) * sizeof(fr_t));
        /* canonical input gives the same */
        fr_t *ac = malloc(3 * n * sizeof(fr_t));
        for (uint64_t i = 0; i < n; i++) {
            fr_from_mont(&ac[i], &a[i]);
            fr_from_mont(&ac[n + i], &b[i]);
            fr_from_mont(&ac[2 * n + i], &c[i]);
        }
        p = raw_partition(ac, ac + n, ac + 2 * n, n);
        p.scalar_form = CUZK_FR_CANONICAL;
        memset(h, 0, m * sizeof(fr_t));
        assert_int_equal(groth16_compute_h(h, &p, log_m, NULL), CUZK_OK);
        assert_memory_equal(h, want, (m - 1) * sizeof(fr_t));
        free(ac), free(a), free(b), free(c), free(h), free(want);
    }
}

/* For a satisfied witness, h are the coefficients of (A·B - C) / (X^m - 1), A, B, C
 * interpolated by a naive inverse DFT: checked by polynomial long division. */
static void h_is_the_quotient_for_satisfied_witnesses(void **state)
{
    (void)state;
    test_seed();
    for (int round = 0; round < 6; round++) {
        cs s;
        fr_t *z;
        rand_circuit(&s, &z, 1 + test_rand64() % 3, 2 + test_rand64() % 20, 1 + test_rand64() % 40,
                     (gen_opts){0});
        cuzk_partition p;
        assert_int_equal(cs_make_partition(&s, z, z + s.num_inputs, &p), CUZK_OK);
        unsigned log_m = cs_log_domain(&s);
        uint64_t m = (uint64_t)1 << log_m, n = p.abc_len;
        fr_t w, winv, minv, *poly[3];
        omega(&w, log_m);
        fr_inv(&winv, &w);
        fr_from_u64(&minv, m);
        fr_inv(&minv, &minv);
        const cuzk_fr *ev[3] = {p.a, p.b, p.c};
        for (int q = 0; q < 3; q++) { /* coefficient j = (1/m) Σ_i e_i ω^(-ij) */
            poly[q] = calloc(m, sizeof(fr_t));
            for (uint64_t j = 0; j < m; j++) {
                fr_t wj, acc = FR_ZERO, t;
                fr_pow_u64(&wj, &winv, j);
                fr_t pw = FR_ONE;
                for (uint64_t i = 0; i < n; i++) {
                    fr_mul(&t, (const fr_t *)&ev[q][i], &pw);
                    fr_add(&acc, &acc, &t);
                    fr_mul(&pw, &pw, &wj);
                }
                fr_mul(&poly[q][j], &acc, &minv);
            }
        }
        fr_t *num = calloc(2 * m, sizeof(fr_t)), t; /* A·B - C, degree <= 2m - 2 */
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t j = 0; j < m; j++) {
                fr_mul(&t, &poly[0][i], &poly[1][j]);
                fr_add(&num[i + j], &num[i + j], &t);
            }
        for (uint64_t i = 0; i < m; i++) fr_sub(&num[i], &num[i], &poly[2][i]);
        fr_t *quot = calloc(m, sizeof(fr_t)); /* divide by X^m - 1 from the top */
        for (uint64_t d = 2 * m - 1; d >= m; d--) {
            quot[d - m] = num[d];
            fr_add(&num[d - m], &num[d - m], &num[d]);
            num[d] = FR_ZERO;
        }
        for (uint64_t i = 0; i < m; i++) assert_true(fr_is_zero(&num[i])); /* exact division */
        fr_t *h = malloc(m * sizeof(fr_t));
        assert_int_equal(groth16_compute_h(h, &p, log_m, tp), CUZK_OK);
        assert_memory_equal(h, quot, (m - 1) * sizeof(fr_t));
        assert_true(fr_is_zero(&quot[m - 1]));
        free(h), free(quot), free(num);
        for (int q = 0; q < 3; q++) free(poly[q]);
        p.release(p.release_user);
        free(z);
        cs_free(&s);
    }
}

/* ---- setup ---- */

static void setup_matches_closed_forms(void **state)
{
    (void)state;
    test_seed();
    cs s;
    fr_t *z;
    rand_circuit(&s, &z, 3, 6, 9, (gen_opts){.c_only_var = 1});
    groth16_toxic t;
    rand_fr(&t.alpha), rand_fr(&t.beta), rand_fr(&t.gamma), rand_fr(&t.delta), rand_fr(&t.tau);
    groth16_params *pk;
    assert_int_equal(groth16_setup(&s, &t, tp, &pk), CUZK_OK);
    uint64_t ni = s.num_inputs, nv = ni + s.num_aux;
    unsigned log_m = cs_log_domain(&s);
    uint64_t m = (uint64_t)1 << log_m;
    fr_t u[16], v[16], w[16], x, y, gi, di;
    qap_at_tau(&s, &t.tau, u, v, w);
    fr_inv(&gi, &t.gamma);
    fr_inv(&di, &t.delta);
    g1_aff e1;
    g2_aff e2;
#define EQ1(P) assert_true(fp_eq(&(P).x, &e1.x) && fp_eq(&(P).y, &e1.y))
#define EQ2(P) assert_true(fp2_eq(&(P).x, &e2.x) && fp2_eq(&(P).y, &e2.y))
    g1_times(&e1, &t.alpha); EQ1(pk->vk.alpha_g1);
    g1_times(&e1, &t.beta); EQ1(pk->vk.beta_g1);
    g1_times(&e1, &t.delta); EQ1(pk->vk.delta_g1);
    g2_times(&e2, &t.beta); EQ2(pk->vk.beta_g2);
    g2_times(&e2, &t.gamma); EQ2(pk->vk.gamma_g2);
    g2_times(&e2, &t.delta); EQ2(pk->vk.delta_g2);
    assert_int_equal(pk->vk.n_ic, ni);
    assert_int_equal(pk->n_l, s.num_aux);
    assert_int_equal(pk->n_h, m - 1);
    uint32_t ka = 0, kb = 0;
    for (uint64_t i = 0; i < nv; i++) {
        fr_mul(&x, &t.beta, &u[i]);
        fr_mul(&y, &t.alpha, &v[i]);
        fr_add(&x, &x, &y);
        fr_add(&x, &x, &w[i]);
        fr_mul(&x, &x, i < ni ? &gi : &di);
        g1_times(&e1, &x);
        if (i < ni) EQ1(pk->vk.ic[i]);
        else EQ1(pk->l[i - ni]);
        if (!fr_is_zero(&u[i])) {
            g1_times(&e1, &u[i]);
            EQ1(pk->a[ka]);
            ka++;
        }
        if (!fr_is_zero(&v[i])) {
            g1_times(&e1, &v[i]);
            EQ1(pk->b_g1[kb]);
            g2_times(&e2, &v[i]);
            EQ2(pk->b_g2[kb]);
            kb++;
        }
    }
    assert_int_equal(pk->n_a, ka);
    assert_int_equal(pk->n_b_g1, kb);
    assert_int_equal(pk->n_b_g2, kb);
    assert_true(fr_is_zero(&u[nv - 1]) && fr_is_zero(&v[nv - 1])); /* the C-only variable */
    fr_t tm;
    fr_pow_u64(&tm, &t.tau, m);
    fr_sub(&tm, &tm, &FR_ONE);
    fr_mul(&tm, &tm, &di);
    for (uint64_t i = 0; i + 1 < m; i++) {
        fr_pow_u64(&x, &t.tau, i);
        fr_mul(&x, &x, &tm);
        g1_times(&e1, &x);
        EQ1(pk->h[i]);
    }
    groth16_params_free(pk);
    free(z);
    cs_free(&s);
}

static void setup_refuses_unnamed_variables(void **state)
{
    (void)state;
    cs s;
    fx_cubic(&s);
    s.num_aux = 4; /* aux 3 appears nowhere: its l point would be infinity */
    groth16_toxic t;
    uint8_t seed[32] = {1};
    groth16_toxic_from_seed(&t, seed);
    groth16_params *pk = (groth16_params *)0x1;
    assert_int_equal(groth16_setup(&s, &t, NULL, &pk), CUZK_EINVAL);
    assert_non_null(strstr(cuzk_last_error(), "aux variable 3"));
    assert_null(pk);
    s.num_aux = 3;
    t.delta = FR_ZERO;
    assert_int_equal(groth16_setup(&s, &t, NULL, &pk), CUZK_EINVAL);
    assert_int_equal(groth16_setup(&s, NULL, NULL, &pk), CUZK_EINVAL);
    cs_free(&s);
}

/* ---- proving and verifying ---- */

static uint8_t SEED[32] = {0x5e, 0xed};

static void make_key(const cs *s, groth16_params **pk, groth16_toxic *t)
{
    groth16_toxic_from_seed(t, SEED);
    groth16_params *k;
    assert_int_equal(groth16_setup(s, t, tp, &k), CUZK_OK);
    /* through the bytes, as a host would get it */
    uint8_t *b;
    size_t n;
    assert_int_equal(groth16_params_serialize(k, &b, &n), CUZK_OK);
    assert_int_equal(groth16_params_parse(b, n, 1, tp, pk), CUZK_OK);
    free(b);
    groth16_params_free(k);
}

/* Proves with fixed r, s; the bytes must equal the oracle's; verifies; a changed public
 * input and a changed C are rejected. */
static void prove_check(const cs *s, const fr_t *z)
{
    groth16_params *pk;
    groth16_toxic t;
    make_key(s, &pk, &t);
    uint64_t ni = s->num_inputs;
    fr_t r, sr;
    rand_fr(&r);
    rand_fr(&sr);
    uint8_t proof[192], want[192];
    oracle_proof(want, s, z, &t, &r, &sr);
    for (int form = 0; form < 2; form++) {
        cuzk_partition p;
        assert_int_equal(cs_make_partition_ex(s, z, z + ni, form, &p), CUZK_OK);
        memset(proof, 0, sizeof proof);
        assert_int_equal(groth16_prove(pk, &p, &r, &sr, form ? NULL : tp, proof), CUZK_OK);
        assert_memory_equal(proof, want, 192);
        p.release(p.release_user);
    }
    assert_int_equal(groth16_verify(&pk->vk, proof, z + 1, ni - 1), CUZK_OK);
    uint8_t *vkb;
    size_t vkl;
    assert_int_equal(groth16_vk_serialize(&pk->vk, &vkb, &vkl), CUZK_OK);
    assert_int_equal(cuzk_verify(vkb, vkl, proof, (const cuzk_fr *)(z + 1), ni - 1, CUZK_FR_MONTGOMERY), CUZK_OK);
    if (ni > 1) {
        fr_t *x = malloc(ni * sizeof(fr_t));
        memcpy(x, z + 1, (ni - 1) * sizeof(fr_t));
        for (uint64_t i = 0; i + 1 < ni; i++) fr_from_mont(&x[i], &x[i]);
        assert_int_equal(cuzk_verify(vkb, vkl, proof, (const cuzk_fr *)x, ni - 1, CUZK_FR_CANONICAL), CUZK_OK);
        uint64_t j = test_rand64() % (ni - 1);
        x[j].l[0] ^= 1;
        assert_int_equal(cuzk_verify(vkb, vkl, proof, (const cuzk_fr *)x, ni - 1, CUZK_FR_CANONICAL), CUZK_EVERIFY);
        free(x);
    }
    /* C + G: a valid point, a wrong proof */
    g1_aff c;
    assert_int_equal(g1_decode(&c, proof + 144, 48, 1), POINT_OK);
    g1_jac cj;
    g1_jac_from_aff(&cj, &c);
    g1_jac_add_aff(&cj, &cj, &G1_GENERATOR);
    g1_jac_to_aff(&c, &cj);
    uint8_t bad[192];
    memcpy(bad, proof, 192);
    g1_encode_compressed(bad + 144, &c);
    assert_int_equal(groth16_verify(&pk->vk, bad, z + 1, ni - 1), CUZK_EVERIFY);
    /* A and C swapped */
    memcpy(bad, proof + 144, 48);
    memcpy(bad + 48, proof + 48, 96);
    memcpy(bad + 144, proof, 48);
    if (memcmp(bad, proof, 192)) assert_int_equal(groth16_verify(&pk->vk, bad, z + 1, ni - 1), CUZK_EVERIFY);
    free(vkb);
    groth16_params_free(pk);
}

static void cubic_circuit_proves_and_verifies(void **state)
{
    (void)state;
    test_seed();
    cs s;
    fx_cubic(&s);
    fr_t z[5];
    fx_cubic_witness(z, z + 2, 3);
    prove_check(&s, z);
    fx_cubic_witness(z, z + 2, 0); /* x = 0: zero-valued aux, out = 5 */
    prove_check(&s, z);
    cs_free(&s);
}

static void random_circuits_prove_and_verify(void **state)
{
    (void)state;
    test_seed();
    int rounds = getenv("CUZK_TEST_QUICK") ? 4 : 10;
    for (int round = 0; round < rounds; round++) {
        gen_opts o = {.a_inputs_only = round % 3 == 2, .b_inputs_only = round % 3 == 1,
                      .c_only_var = round % 2, .zero_share = round % 4 ? 0 : 3};
        cs s;
        fr_t *z;
        rand_circuit(&s, &z, 1 + test_rand64() % 6, test_rand64() % 30, test_rand64() % 50, o);
        cuzk_partition p;
        assert_int_equal(cs_make_partition(&s, z, z + s.num_inputs, &p), CUZK_OK);
        for (uint64_t w = 0; w < (s.num_aux + 63) / 64; w++) {
            if (o.a_inputs_only) assert_int_equal(p.a_aux_density[w], 0);
            if (o.b_inputs_only) assert_int_equal(p.b_aux_density[w], 0);
        }
        p.release(p.release_user);
        prove_check(&s, z);
        free(z);
        cs_free(&s);
    }
}

static void inputs_only_and_empty_domain(void **state)
{
    (void)state;
    test_seed();
    /* no constraints, no aux: abc_len = num_inputs, possibly m = 1 (no h at all) */
    for (uint64_t ni = 1; ni <= 3; ni++) {
        cs s;
        fx_init(&s, ni, 0);
        fr_t z[3] = {FR_ONE};
        for (uint64_t i = 1; i < ni; i++) rand_fr(&z[i]);
        prove_check(&s, z);
        cs_free(&s);
    }
}

static void randomness_sources(void **state)
{
    (void)state;
    test_seed();
    cs s;
    fx_cubic(&s);
    fr_t z[5];
    fx_cubic_witness(z, z + 2, 7);
    groth16_params *pk;
    groth16_toxic t;
    make_key(&s, &pk, &t);
    cuzk_partition p;
    assert_int_equal(cs_make_partition(&s, z, z + 2, &p), CUZK_OK);
    /* r, s from the partition (in its form) equal explicit ones */
    fr_t r, sr;
    groth16_rs_from_seed(&r, &sr, SEED);
    uint8_t p1[192], p2[192], p3[192], want[192];
    oracle_proof(want, &s, z, &t, &r, &sr);
    p.r = (const cuzk_fr *)&r;
    p.s = (const cuzk_fr *)&sr;
    assert_int_equal(groth16_prove(pk, &p, NULL, NULL, tp, p1), CUZK_OK);
    assert_memory_equal(p1, want, 192);
    fr_t rc, sc;
    fr_from_mont(&rc, &r);
    fr_from_mont(&sc, &sr);
    p.release(p.release_user);
    assert_int_equal(cs_make_partition_ex(&s, z, z + 2, CUZK_FR_CANONICAL, &p), CUZK_OK);
    p.r = (const cuzk_fr *)&rc;
    p.s = (const cuzk_fr *)&sc;
    assert_int_equal(groth16_prove(pk, &p, NULL, NULL, tp, p1), CUZK_OK);
    assert_memory_equal(p1, want, 192);
    fr_t big = {{FR_MODULUS[0], FR_MODULUS[1], FR_MODULUS[2], FR_MODULUS[3]}};
    p.r = (const cuzk_fr *)&big;
    assert_int_equal(groth16_prove(pk, &p, NULL, NULL, tp, p1), CUZK_EINVAL);
    /* the OS CSPRNG: two proofs differ, both verify */
    p.r = p.s = NULL;
    assert_int_equal(groth16_prove(pk, &p, NULL, NULL, tp, p2), CUZK_OK);
    assert_int_equal(groth16_prove(pk, &p, NULL, NULL, tp, p3), CUZK_OK);
    assert_memory_not_equal(p2, p3, 192);
    assert_int_equal(groth16_verify(&pk->vk, p2, z + 1, 1), CUZK_OK);
    assert_int_equal(groth16_verify(&pk->vk, p3, z + 1, 1), CUZK_OK);
    p.release(p.release_user);
    groth16_params_free(pk);
    cs_free(&s);
}

/* ---- mismatches and bad arguments ---- */

static void expect(int got, int want, const char *n1, const char *n2)
{
    if (got != want) fail_msg("got %d, want %d: %s", got, want, cuzk_last_error());
    if (n1 && !strstr(cuzk_last_error(), n1)) fail_msg("'%s' not in '%s'", n1, cuzk_last_error());
    if (n2 && !strstr(cuzk_last_error(), n2)) fail_msg("'%s' not in '%s'", n2, cuzk_last_error());
}

static void mismatched_partitions(void **state)
{
    (void)state;
    cs s;
    fx_cubic(&s);
    fr_t z[5];
    fx_cubic_witness(z, z + 2, 3);
    groth16_params *pk;
    groth16_toxic t;
    make_key(&s, &pk, &t);
    cuzk_partition p0, p;
    assert_int_equal(cs_make_partition(&s, z, z + 2, &p0), CUZK_OK);
    uint8_t proof[192];
    fr_t r = FR_ONE;
    assert_int_equal(groth16_check_partition(pk, &p0), CUZK_OK);

    uint64_t d_a = 0x3, d_b = 0x3, d_in = 0x3;
    p = p0; p.num_inputs = 1;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EMISMATCH, "2 ic points", "1 inputs");
    p = p0; p.num_aux = 2;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EMISMATCH, "3 l points", "2 aux");
    p = p0; p.abc_len = 9;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EMISMATCH, "7 h points", "needs 15");
    p = p0; p.abc_len = 1;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EMISMATCH, "abc_len 1", NULL);
    p = p0; p.a_aux_density = &d_a;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EMISMATCH, "5 a points", "needs 4");
    p = p0; p.b_aux_density = &d_b;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EMISMATCH, "2 b_g1 points", "popcount is 3");
    p = p0; p.b_input_density = &d_in;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EMISMATCH, "b_g1", "popcount is 3");
    uint32_t keep = pk->n_b_g2;
    pk->n_b_g2 = 1;
    expect(groth16_check_partition(pk, &p0), CUZK_EMISMATCH, "1 b_g2 points", "popcount is 2");
    pk->n_b_g2 = keep;
    /* bits past num_aux do not count */
    uint64_t d_extra = p0.a_aux_density[0] | 0xff00;
    p = p0; p.a_aux_density = &d_extra;
    assert_int_equal(groth16_check_partition(pk, &p), CUZK_OK);

    /* bad arguments */
    p = p0; p.struct_size = sizeof p - 8;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EINVAL, "struct_size", NULL);
    p = p0; p.scalar_form = 2;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EINVAL, "scalar_form 2", NULL);
    p = p0; p.b = NULL;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EINVAL, "NULL", NULL);
    p = p0; p.aux = NULL;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EINVAL, "NULL", NULL);
    p = p0; p.b_input_density = NULL;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EINVAL, "NULL", NULL);
    expect(groth16_prove(pk, NULL, &r, &r, NULL, proof), CUZK_EINVAL, NULL, NULL);
    expect(groth16_prove(NULL, &p0, &r, &r, NULL, proof), CUZK_EINVAL, NULL, NULL);
    expect(groth16_prove(pk, &p0, &r, &r, NULL, NULL), CUZK_EINVAL, NULL, NULL);
    fr_t in_bad[2] = {FR_ZERO, z[1]};
    p = p0; p.inputs = (const cuzk_fr *)in_bad;
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EINVAL, "inputs[0] is not ONE", NULL);
    p = p0; p.scalar_form = CUZK_FR_CANONICAL; /* Montgomery ONE is not canonical 1 */
    expect(groth16_prove(pk, &p, &r, &r, NULL, proof), CUZK_EINVAL, "inputs[0]", "canonical");
    /* scalars not below r, in either form */
    fr_t aux_bad[3] = {z[2], z[3], {{FR_MODULUS[0], FR_MODULUS[1], FR_MODULUS[2], FR_MODULUS[3]}}};
    p = p0; p.aux = (const cuzk_fr *)aux_bad;
    expect(groth16_prove(pk, &p, &r, &r, tp, proof), CUZK_EINVAL, "aux[2]", "not below r");
    fr_t c_bad[5];
    memcpy(c_bad, p0.c, sizeof c_bad);
    c_bad[4].l[3] = ~0ull;
    p = p0; p.c = (const cuzk_fr *)c_bad;
    expect(groth16_prove(pk, &p, &r, &r, tp, proof), CUZK_EINVAL, "c[4]", NULL);
    p0.release(p0.release_user);
    groth16_params_free(pk);
    cs_free(&s);
}

static void verify_bad_inputs(void **state)
{
    (void)state;
    test_seed();
    cs s;
    fx_cubic(&s);
    fr_t z[5];
    fx_cubic_witness(z, z + 2, 3);
    groth16_params *pk;
    groth16_toxic t;
    make_key(&s, &pk, &t);
    cuzk_partition p;
    assert_int_equal(cs_make_partition(&s, z, z + 2, &p), CUZK_OK);
    uint8_t proof[192], bad[192];
    assert_int_equal(groth16_prove(pk, &p, NULL, NULL, tp, proof), CUZK_OK);
    p.release(p.release_user);
    uint8_t *vk;
    size_t n;
    assert_int_equal(groth16_params_serialize(pk, &vk, &n), CUZK_OK);
    const cuzk_fr *x = (const cuzk_fr *)(z + 1);
    expect(cuzk_verify(vk, n, proof, x, 1, CUZK_FR_MONTGOMERY), CUZK_OK, NULL, NULL); /* whole .params */
    expect(cuzk_verify(vk, n, proof, x, 0, CUZK_FR_MONTGOMERY), CUZK_EMISMATCH, "2 ic points", "got 0");
    expect(cuzk_verify(vk, n, proof, x, 2, CUZK_FR_MONTGOMERY), CUZK_EMISMATCH, NULL, NULL);
    expect(cuzk_verify(vk, 800, proof, x, 1, CUZK_FR_MONTGOMERY), CUZK_EFORMAT, "verifying key", "truncated");
    expect(cuzk_verify(NULL, n, proof, x, 1, CUZK_FR_MONTGOMERY), CUZK_EINVAL, NULL, NULL);
    expect(cuzk_verify(vk, n, NULL, x, 1, CUZK_FR_MONTGOMERY), CUZK_EINVAL, NULL, NULL);
    expect(cuzk_verify(vk, n, proof, NULL, 1, CUZK_FR_MONTGOMERY), CUZK_EINVAL, NULL, NULL);
    expect(cuzk_verify(vk, n, proof, x, 1, 3), CUZK_EINVAL, "scalar_form", NULL);
    cuzk_fr big = {{FR_MODULUS[0], FR_MODULUS[1], FR_MODULUS[2], FR_MODULUS[3]}};
    expect(cuzk_verify(vk, n, proof, &big, 1, CUZK_FR_CANONICAL), CUZK_EINVAL, "public input 0", NULL);
    const char *which[3] = {"proof A", "proof B", "proof C"};
    size_t at[3] = {0, 48, 144}, len[3] = {48, 96, 48};
    for (int k = 0; k < 3; k++) {
        memcpy(bad, proof, 192); /* compression flag cleared */
        bad[at[k]] &= 0x7f;
        expect(cuzk_verify(vk, n, bad, x, 1, CUZK_FR_MONTGOMERY), CUZK_EFORMAT, which[k], NULL);
        memcpy(bad, proof, 192); /* infinity: refused as bellperson does */
        memset(bad + at[k], 0, len[k]);
        bad[at[k]] = 0xc0;
        expect(cuzk_verify(vk, n, bad, x, 1, CUZK_FR_MONTGOMERY), CUZK_EFORMAT, which[k], "infinity");
        int formats = 0, verifies = 0; /* random x: no point, or a wrong one */
        for (int round = 0; round < 8; round++) {
            memcpy(bad, proof, 192);
            bad[at[k] + 1 + test_rand64() % (len[k] - 1)] ^= (uint8_t)(1 + test_rand64() % 255);
            int rc = cuzk_verify(vk, n, bad, x, 1, CUZK_FR_MONTGOMERY);
            assert_true(rc == CUZK_EFORMAT || rc == CUZK_EVERIFY);
            formats += rc == CUZK_EFORMAT;
            verifies += rc == CUZK_EVERIFY;
        }
        assert_true(formats + verifies == 8);
    }
    /* a proof point on the curve but outside the subgroup */
    fp_t four, xx, yy, tt;
    fp_from_u64(&four, 4);
    g1_aff off;
    for (uint64_t i = 1;; i++) {
        fp_from_u64(&xx, i);
        fp_sqr(&tt, &xx);
        fp_mul(&tt, &tt, &xx);
        fp_add(&tt, &tt, &four);
        if (!fp_sqrt(&yy, &tt)) continue;
        off.x = xx;
        off.y = yy;
        if (!g1_aff_in_subgroup(&off)) break;
    }
    memcpy(bad, proof, 192);
    g1_encode_compressed(bad + 144, &off);
    expect(cuzk_verify(vk, n, bad, x, 1, CUZK_FR_MONTGOMERY), CUZK_EFORMAT, "proof C", "subgroup");
    free(vk);
    groth16_params_free(pk);
    cs_free(&s);
}

static int setup_pool(void **state)
{
    (void)state;
    tp = threadpool_create(2);
    return tp ? 0 : -1;
}

static int teardown_pool(void **state)
{
    (void)state;
    threadpool_destroy(tp);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(toxic_waste_from_seed_matches_hashlib),
        cmocka_unit_test(h_six_equals_seven_on_random_vectors),
        cmocka_unit_test(h_is_the_quotient_for_satisfied_witnesses),
        cmocka_unit_test(setup_matches_closed_forms),
        cmocka_unit_test(setup_refuses_unnamed_variables),
        cmocka_unit_test(cubic_circuit_proves_and_verifies),
        cmocka_unit_test(random_circuits_prove_and_verify),
        cmocka_unit_test(inputs_only_and_empty_domain),
        cmocka_unit_test(randomness_sources),
        cmocka_unit_test(mismatched_partitions),
        cmocka_unit_test(verify_bad_inputs),
    };
    return cmocka_run_group_tests(tests, setup_pool, teardown_pool);
}
