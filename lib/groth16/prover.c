/*
 * The Groth16 prover on the CPU, in the stages backends share: partition checks, the H
 * scalars (NTTs), scalar preparation for the five MSMs, and the assembly of A, B, C with
 * r, s into the 192-byte proof. Math: FORMATS.md (bellperson's prover).
 */
#include "groth16/groth16.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "error.h"
#include "msm/msm_cpu.h"
#include "ntt/ntt_cpu.h"

#define PAR_CHUNK 8192 /* elements per task in element-wise loops */

static int bit_set(const uint64_t *d, uint64_t i) { return (int)((d[i / 64] >> (i % 64)) & 1); }

/* Set bits among the first n of bitmap d (bits beyond n are ignored). */
static uint64_t popcount_bits(const uint64_t *d, uint64_t n)
{
    uint64_t c = 0, words = n / 64;
    for (uint64_t w = 0; w < words; w++) c += (uint64_t)__builtin_popcountll(d[w]);
    if (n % 64) c += (uint64_t)__builtin_popcountll(d[words] & (((uint64_t)1 << (n % 64)) - 1));
    return c;
}

static unsigned log2_ceil(uint64_t n)
{
    unsigned k = 0;
    while (k < 64 && ((uint64_t)1 << k) < n) k++;
    return k;
}

static int is_below_r(const cuzk_fr *x)
{
    for (int i = 3; i >= 0; i--) {
        if (x->l[i] != FR_MODULUS[i]) return x->l[i] < FR_MODULUS[i];
    }
    return 0;
}

/* ---- checks ---- */

int groth16_check_partition(const groth16_params *pk, const cuzk_partition *p)
{
    if (p && (!p->a || !p->b || !p->c)) return err_set(CUZK_EINVAL, "a, b or c is NULL");
    return groth16_check_witness(pk, p);
}

int groth16_check_witness(const groth16_params *pk, const cuzk_partition *p)
{
    if (!pk) return err_set(CUZK_EINVAL, "proving key is NULL");
    if (!p) return err_set(CUZK_EINVAL, "partition is NULL");
    if (p->struct_size < sizeof(cuzk_partition))
        return err_set(CUZK_EINVAL, "partition struct_size %u is smaller than %zu", p->struct_size,
                       sizeof(cuzk_partition));
    if (p->scalar_form != CUZK_FR_MONTGOMERY && p->scalar_form != CUZK_FR_CANONICAL)
        return err_set(CUZK_EINVAL, "scalar_form %d is neither CUZK_FR_MONTGOMERY (0) nor CUZK_FR_CANONICAL (1)",
                       (int)p->scalar_form);
    if (p->num_inputs == 0) return err_set(CUZK_EINVAL, "num_inputs is 0 (input 0 must be ONE)");
    if (!p->inputs) return err_set(CUZK_EINVAL, "inputs is NULL");
    if (!p->b_input_density) return err_set(CUZK_EINVAL, "b_input_density is NULL");
    if (p->num_aux && (!p->aux || !p->a_aux_density || !p->b_aux_density))
        return err_set(CUZK_EINVAL, "aux, a_aux_density or b_aux_density is NULL with %llu aux variables",
                       (unsigned long long)p->num_aux);
    const cuzk_fr one_c = {{1, 0, 0, 0}};
    const cuzk_fr *one = p->scalar_form == CUZK_FR_CANONICAL ? &one_c : (const cuzk_fr *)&FR_ONE;
    if (memcmp(&p->inputs[0], one, sizeof *one))
        return err_set(CUZK_EINVAL, "inputs[0] is not ONE (in the partition's scalar form %s)",
                       p->scalar_form == CUZK_FR_CANONICAL ? "canonical" : "Montgomery");

    if (p->abc_len < p->num_inputs)
        return err_set(CUZK_EMISMATCH, "abc_len %llu is below num_inputs %llu: the per-input constraints are missing",
                       (unsigned long long)p->abc_len, (unsigned long long)p->num_inputs);
    unsigned log_m = log2_ceil(p->abc_len);
    if (log_m > 32)
        return err_set(CUZK_EMISMATCH, "abc_len %llu needs a domain of 2^%u, beyond Fr's 2^32",
                       (unsigned long long)p->abc_len, log_m);
    uint64_t m = (uint64_t)1 << log_m;
    if (pk->vk.n_ic != p->num_inputs)
        return err_set(CUZK_EMISMATCH, "key has %u ic points, partition has %llu inputs", pk->vk.n_ic,
                       (unsigned long long)p->num_inputs);
    if (pk->n_l != p->num_aux)
        return err_set(CUZK_EMISMATCH, "key has %u l points, partition has %llu aux variables", pk->n_l,
                       (unsigned long long)p->num_aux);
    if (pk->n_h != m - 1)
        return err_set(CUZK_EMISMATCH, "key has %u h points, partition needs %llu (domain 2^%u for abc_len %llu)",
                       pk->n_h, (unsigned long long)(m - 1), log_m, (unsigned long long)p->abc_len);
    uint64_t pa = p->num_aux ? popcount_bits(p->a_aux_density, p->num_aux) : 0;
    if (pk->n_a != p->num_inputs + pa)
        return err_set(CUZK_EMISMATCH, "key has %u a points, partition needs %llu (%llu inputs + %llu in a_aux_density)",
                       pk->n_a, (unsigned long long)(p->num_inputs + pa),
                       (unsigned long long)p->num_inputs, (unsigned long long)pa);
    uint64_t pbi = popcount_bits(p->b_input_density, p->num_inputs);
    uint64_t pba = p->num_aux ? popcount_bits(p->b_aux_density, p->num_aux) : 0;
    if (pk->n_b_g1 != pbi + pba)
        return err_set(CUZK_EMISMATCH, "key has %u b_g1 points, density popcount is %llu (%llu inputs + %llu aux)",
                       pk->n_b_g1, (unsigned long long)(pbi + pba), (unsigned long long)pbi,
                       (unsigned long long)pba);
    if (pk->n_b_g2 != pbi + pba)
        return err_set(CUZK_EMISMATCH, "key has %u b_g2 points, density popcount is %llu (%llu inputs + %llu aux)",
                       pk->n_b_g2, (unsigned long long)(pbi + pba), (unsigned long long)pbi,
                       (unsigned long long)pba);
    return CUZK_OK;
}

typedef struct scan_job {
    const cuzk_fr *v[5];
    uint64_t n[5], first[6]; /* chunk prefix sums */
    uint64_t *bad;           /* per chunk: first bad index + 1, 0 = none */
} scan_job;

static void scan_chunk(void *arg, size_t c)
{
    scan_job *j = arg;
    int s = 0;
    while (c >= j->first[s + 1]) s++;
    uint64_t b = (c - j->first[s]) * PAR_CHUNK, e = b + PAR_CHUNK < j->n[s] ? b + PAR_CHUNK : j->n[s];
    for (uint64_t i = b; i < e; i++)
        if (!is_below_r(&j->v[s][i])) { j->bad[c] = i + 1; return; }
}

int groth16_check_scalars(const cuzk_partition *p, threadpool *tp)
{
    return groth16_check_scalars_ex(p, tp, NULL);
}

int groth16_check_scalars_ex(const cuzk_partition *p, threadpool *tp, const scratch_alloc *sa)
{
    static const char *const names[5] = {"a", "b", "c", "inputs", "aux"};
    scan_job j = {.v = {p->a, p->b, p->c, p->inputs, p->aux},
                  .n = {p->abc_len, p->abc_len, p->abc_len, p->num_inputs, p->num_aux}};
    for (int s = 0; s < 5; s++) j.first[s + 1] = j.first[s] + (j.n[s] + PAR_CHUNK - 1) / PAR_CHUNK;
    j.bad = scratch_zget(sa, (j.first[5] ? j.first[5] : 1) * sizeof *j.bad);
    if (!j.bad) return err_set(CUZK_ENOMEM, "cannot allocate the scalar scan");
    threadpool_parallel_for(tp, j.first[5], scan_chunk, &j);
    int rc = CUZK_OK;
    for (uint64_t c = 0; c < j.first[5]; c++) {
        if (!j.bad[c]) continue;
        int s = 0;
        while (c >= j.first[s + 1]) s++;
        rc = err_set(CUZK_EINVAL, "%s[%llu] is not below r (%s form)", names[s],
                     (unsigned long long)(j.bad[c] - 1),
                     p->scalar_form == CUZK_FR_CANONICAL ? "canonical" : "Montgomery");
        break;
    }
    scratch_put(sa, j.bad);
    return rc;
}

/* ---- H ---- */

typedef struct load_job {
    fr_t *dst;
    const cuzk_fr *src;
    uint64_t n, m;
    int canonical;
} load_job;

static void load_chunk(void *arg, size_t c)
{
    load_job *j = arg;
    uint64_t b = c * PAR_CHUNK, e = b + PAR_CHUNK < j->m ? b + PAR_CHUNK : j->m;
    for (uint64_t i = b; i < e; i++) {
        if (i >= j->n) j->dst[i] = FR_ZERO;
        else if (j->canonical) fr_to_mont(&j->dst[i], (const fr_t *)&j->src[i]);
        else j->dst[i] = *(const fr_t *)&j->src[i];
    }
}

/* dst[0..m) = src[0..n) in Montgomery form, zero-padded. */
static void load_padded(fr_t *dst, const cuzk_fr *src, uint64_t n, uint64_t m, int canonical, threadpool *tp)
{
    load_job j = {dst, src, n, m, canonical};
    threadpool_parallel_for(tp, (m + PAR_CHUNK - 1) / PAR_CHUNK, load_chunk, &j);
}

typedef struct ew_job {
    fr_t *x;
    const fr_t *y;
    fr_t *out;
    fr_t k;
    uint64_t n;
} ew_job;

static void mul_chunk(void *arg, size_t c) /* x *= y */
{
    ew_job *j = arg;
    uint64_t b = c * PAR_CHUNK, e = b + PAR_CHUNK < j->n ? b + PAR_CHUNK : j->n;
    for (uint64_t i = b; i < e; i++) fr_mul(&j->x[i], &j->x[i], &j->y[i]);
}

static void sub_scale_chunk(void *arg, size_t c) /* out = (x - y)·k */
{
    ew_job *j = arg;
    uint64_t b = c * PAR_CHUNK, e = b + PAR_CHUNK < j->n ? b + PAR_CHUNK : j->n;
    for (uint64_t i = b; i < e; i++) {
        fr_t t;
        fr_sub(&t, &j->x[i], &j->y[i]);
        fr_mul(&j->out[i], &t, &j->k);
    }
}

/* Six transforms instead of bellperson's seven: the inverse coset transform is linear and
 * maps the coset values of C back to C's coefficients, which INTT(c) already gives, so
 * h = (cosetINTT(A·B on the coset) - INTT(c)) / (7^m - 1), equal to bellperson's result
 * (test_groth16 checks it against the seven-transform form). */
int groth16_compute_h(fr_t *h, const cuzk_partition *p, unsigned log_m, threadpool *tp)
{
    return groth16_compute_h_ex(h, p, log_m, tp, NULL);
}

int groth16_compute_h_ex(fr_t *h, const cuzk_partition *p, unsigned log_m, threadpool *tp,
                         const scratch_alloc *sa)
{
    if (!h && log_m) return err_set(CUZK_EINVAL, "h is NULL");
    if (log_m > 32) return err_set(CUZK_EINVAL, "domain 2^%u is beyond Fr's 2^32", log_m);
    uint64_t m = (uint64_t)1 << log_m;
    if (p->abc_len > m)
        return err_set(CUZK_EMISMATCH, "abc_len %llu exceeds the domain 2^%u",
                       (unsigned long long)p->abc_len, log_m);
    if (m == 1) return CUZK_OK; /* no h scalars */
    fr_t *x = scratch_get(sa, m * sizeof(fr_t)), *y = scratch_get(sa, m * sizeof(fr_t));
    if (!x || !y) {
        scratch_put(sa, x);
        scratch_put(sa, y);
        return err_set(CUZK_ENOMEM, "cannot allocate 2 x %llu scalars for the H step", (unsigned long long)m);
    }
    int canon = p->scalar_form == CUZK_FR_CANONICAL;
    size_t chunks = (size_t)((m + PAR_CHUNK - 1) / PAR_CHUNK);
    /* Above the NTT's process-wide cache, one twiddle table for all six transforms, in the
     * caller's memory. A caller's allocator that cannot give it gets the error (each
     * transform would otherwise malloc its own table, outside the arena and the budget);
     * standalone callers (NULL) let each transform build its own. */
    size_t twb = ntt_cpu_table_bytes(log_m);
    fr_t *tw = twb ? scratch_get(sa, twb) : NULL;
    if (twb && !tw && sa) {
        scratch_put(sa, x);
        scratch_put(sa, y);
        return err_set(CUZK_ENOMEM, "cannot allocate the 2^%u NTT twiddle table for the H step", log_m);
    }
    if (tw) ntt_cpu_table_fill(tw, log_m, tp);

    load_padded(x, p->a, p->abc_len, m, canon, tp);
    ntt_inverse_tw(x, log_m, tp, tw);
    ntt_coset_forward_tw(x, log_m, tp, tw);
    load_padded(y, p->b, p->abc_len, m, canon, tp);
    ntt_inverse_tw(y, log_m, tp, tw);
    ntt_coset_forward_tw(y, log_m, tp, tw);
    ew_job j = {.x = x, .y = y, .n = m};
    threadpool_parallel_for(tp, chunks, mul_chunk, &j);
    ntt_coset_inverse_tw(x, log_m, tp, tw);   /* coefficients of A·B mod (X^m - 7^m) */
    load_padded(y, p->c, p->abc_len, m, canon, tp);
    ntt_inverse_tw(y, log_m, tp, tw);         /* coefficients of C */
    scratch_put(sa, tw);

    fr_t z; /* 1 / (7^m - 1): the vanishing polynomial on the coset */
    fr_pow_u64(&z, &FR_COSET_GEN, m);
    fr_sub(&z, &z, &FR_ONE);
    fr_inv(&j.k, &z);
    j.out = h;
    j.n = m - 1;                              /* the last coefficient is dropped */
    threadpool_parallel_for(tp, (size_t)((m - 1 + PAR_CHUNK - 1) / PAR_CHUNK), sub_scale_chunk, &j);
    scratch_put(sa, x);
    scratch_put(sa, y);
    return CUZK_OK;
}

/* ---- MSM scalars ---- */

typedef struct conv_job {
    fr_t *dst;
    const fr_t *src;
    uint64_t n;
} conv_job;

static void from_mont_chunk(void *arg, size_t c)
{
    conv_job *j = arg;
    uint64_t b = c * PAR_CHUNK, e = b + PAR_CHUNK < j->n ? b + PAR_CHUNK : j->n;
    for (uint64_t i = b; i < e; i++) fr_from_mont(&j->dst[i], &j->src[i]);
}

static void to_canonical(fr_t *dst, const fr_t *src, uint64_t n, threadpool *tp)
{
    conv_job j = {dst, src, n};
    threadpool_parallel_for(tp, (size_t)((n + PAR_CHUNK - 1) / PAR_CHUNK), from_mont_chunk, &j);
}

void groth16_msm_scalars_free(groth16_msm_scalars *s)
{
    if (!s) return;
    scratch_put(s->sa, s->owned_aux);
    scratch_put(s->sa, s->a);
    scratch_put(s->sa, s->b);
    memset(s, 0, sizeof *s);
}

int groth16_msm_scalars_make(groth16_msm_scalars *s, const cuzk_partition *p, threadpool *tp)
{
    return groth16_msm_scalars_make_ex(s, p, tp, NULL);
}

int groth16_msm_scalars_make_ex(groth16_msm_scalars *s, const cuzk_partition *p, threadpool *tp,
                                const scratch_alloc *sa)
{
    memset(s, 0, sizeof *s);
    s->sa = sa;
    uint64_t ni = p->num_inputs, na = p->num_aux;
    int canon = p->scalar_form == CUZK_FR_CANONICAL;
    fr_t in_c[64], *inputs_c = ni <= 64 ? in_c : scratch_get(sa, ni * sizeof(fr_t));
    if (!inputs_c) return err_set(CUZK_ENOMEM, "cannot allocate %llu input scalars", (unsigned long long)ni);
    if (canon) memcpy(inputs_c, p->inputs, ni * sizeof(fr_t));
    else to_canonical(inputs_c, (const fr_t *)p->inputs, ni, NULL);
    if (canon || !na) {
        s->aux = (const fr_t *)p->aux;
    } else {
        s->owned_aux = scratch_get(sa, na * sizeof(fr_t));
        if (!s->owned_aux) goto nomem;
        to_canonical(s->owned_aux, (const fr_t *)p->aux, na, tp);
        s->aux = s->owned_aux;
    }
    s->n_aux = na;
    uint64_t pa = na ? popcount_bits(p->a_aux_density, na) : 0;
    uint64_t pbi = popcount_bits(p->b_input_density, ni), pba = na ? popcount_bits(p->b_aux_density, na) : 0;
    s->n_a = ni + pa;
    s->n_b = pbi + pba;
    s->a = scratch_get(sa, (s->n_a ? s->n_a : 1) * sizeof(fr_t));
    s->b = scratch_get(sa, (s->n_b ? s->n_b : 1) * sizeof(fr_t));
    if (!s->a || !s->b) goto nomem;
    /* a: every input, then aux by a_aux_density; b: inputs then aux by their densities */
    memcpy(s->a, inputs_c, ni * sizeof(fr_t));
    uint64_t ka = ni, kb = 0;
    for (uint64_t i = 0; i < ni; i++)
        if (bit_set(p->b_input_density, i)) s->b[kb++] = inputs_c[i];
    for (uint64_t i = 0; i < na; i++) {
        if (bit_set(p->a_aux_density, i)) s->a[ka++] = s->aux[i];
        if (bit_set(p->b_aux_density, i)) s->b[kb++] = s->aux[i];
    }
    if (inputs_c != in_c) scratch_put(sa, inputs_c);
    return CUZK_OK;
nomem:
    if (inputs_c != in_c) scratch_put(sa, inputs_c);
    groth16_msm_scalars_free(s);
    return err_set(CUZK_ENOMEM, "cannot allocate the MSM scalars (%llu aux)", (unsigned long long)na);
}

int groth16_msms_cpu_timed(groth16_msm_out *out, const groth16_params *pk, const cuzk_partition *p,
                           const fr_t *h, threadpool *tp, groth16_stage_ns *t)
{
    return groth16_msms_cpu_ex(out, pk, p, h, tp, t, NULL);
}

int groth16_msms_cpu_ex(groth16_msm_out *out, const groth16_params *pk, const cuzk_partition *p,
                        const fr_t *h, threadpool *tp, groth16_stage_ns *t, const scratch_alloc *sa)
{
    int rc = groth16_check_witness(pk, p); /* the MSMs read no a, b, c */
    if (rc) return rc;
    uint64_t t0 = groth16_now_ns();
    fr_t *hc = scratch_get(sa, (pk->n_h ? pk->n_h : 1) * sizeof(fr_t));
    if (!hc) return err_set(CUZK_ENOMEM, "cannot allocate %u H scalars", pk->n_h);
    to_canonical(hc, h, pk->n_h, tp);
    groth16_msm_scalars s;
    if ((rc = groth16_msm_scalars_make_ex(&s, p, tp, sa))) {
        scratch_put(sa, hc);
        return rc;
    }
    uint64_t t1 = groth16_now_ns();
    rc = msm_g1_ex(&out->h, pk->h, hc, pk->n_h, tp, sa);
    scratch_put(sa, hc);
    uint64_t t2 = groth16_now_ns();
    if (!rc) rc = msm_g1_ex(&out->l, pk->l, s.aux, s.n_aux, tp, sa);
    uint64_t t3 = groth16_now_ns();
    if (!rc) rc = msm_g1_ex(&out->a, pk->a, s.a, s.n_a, tp, sa);
    uint64_t t4 = groth16_now_ns();
    if (!rc) rc = msm_g1_ex(&out->b_g1, pk->b_g1, s.b, s.n_b, tp, sa);
    uint64_t t5 = groth16_now_ns();
    if (!rc) rc = msm_g2_ex(&out->b_g2, pk->b_g2, s.b, s.n_b, tp, sa);
    uint64_t t6 = groth16_now_ns();
    groth16_msm_scalars_free(&s);
    if (t) {
        t->msm_prep = t1 - t0;
        t->msm_h = t2 - t1;
        t->msm_l = t3 - t2;
        t->msm_a = t4 - t3;
        t->msm_b_g1 = t5 - t4;
        t->msm_b_g2 = t6 - t5;
    }
    return rc;
}

int groth16_msms_cpu(groth16_msm_out *out, const groth16_params *pk, const cuzk_partition *p,
                     const fr_t *h, threadpool *tp)
{
    return groth16_msms_cpu_timed(out, pk, p, h, tp, NULL);
}

/* ---- assembly ---- */

static void g1_mul_aff(g1_jac *r, const g1_aff *p, const fr_t *canonical)
{
    g1_jac t;
    g1_jac_from_aff(&t, p);
    g1_jac_mul(r, &t, canonical);
}

void groth16_assemble(uint8_t proof[192], const groth16_params *pk, const groth16_msm_out *m,
                      const fr_t *r, const fr_t *s)
{
    const groth16_vk *vk = &pk->vk;
    fr_t rc, sc, rs;
    fr_from_mont(&rc, r);
    fr_from_mont(&sc, s);
    fr_mul(&rs, r, s);
    fr_from_mont(&rs, &rs);

    g1_jac A, C, t;
    g2_jac B, t2;
    /* A = alpha_g1 + A_ans + r·delta_g1 */
    g1_mul_aff(&A, &vk->delta_g1, &rc);
    g1_jac_add(&A, &A, &m->a);
    g1_jac_add_aff(&A, &A, &vk->alpha_g1);
    /* B = beta_g2 + B2_ans + s·delta_g2 */
    g2_jac_from_aff(&t2, &vk->delta_g2);
    g2_jac_mul(&B, &t2, &sc);
    g2_jac_add(&B, &B, &m->b_g2);
    g2_jac_add_aff(&B, &B, &vk->beta_g2);
    /* C = s·A_ans + r·B1_ans + (r·s)·delta_g1 + s·alpha_g1 + r·beta_g1 + H + L */
    g1_mul_aff(&C, &vk->delta_g1, &rs);
    g1_mul_aff(&t, &vk->alpha_g1, &sc);
    g1_jac_add(&C, &C, &t);
    g1_mul_aff(&t, &vk->beta_g1, &rc);
    g1_jac_add(&C, &C, &t);
    g1_jac_mul(&t, &m->a, &sc);
    g1_jac_add(&C, &C, &t);
    g1_jac_mul(&t, &m->b_g1, &rc);
    g1_jac_add(&C, &C, &t);
    g1_jac_add(&C, &C, &m->h);
    g1_jac_add(&C, &C, &m->l);

    g1_aff a_aff, c_aff;
    g2_aff b_aff;
    g1_jac_to_aff(&a_aff, &A);
    g2_jac_to_aff(&b_aff, &B);
    g1_jac_to_aff(&c_aff, &C);
    g1_encode_compressed(proof, &a_aff);
    g2_encode_compressed(proof + 48, &b_aff);
    g1_encode_compressed(proof + 144, &c_aff);
}

/* ---- randomness ---- */

int groth16_random_fr(fr_t *out)
{
    for (;;) {
        fr_t c;
        uint8_t *p = (uint8_t *)c.l;
        size_t got = 0;
        while (got < sizeof c.l) {
            ssize_t n = getrandom(p + got, sizeof c.l - got, 0);
            if (n < 0) {
                if (errno == EINTR) continue;
                return err_set(CUZK_EIO, "getrandom failed: %s", strerror(errno));
            }
            got += (size_t)n;
        }
        for (int i = 0; i < 4; i++) { /* limbs from little-endian bytes, on any host */
            uint64_t v = 0;
            for (int b = 7; b >= 0; b--) v = v << 8 | p[8 * i + b];
            c.l[i] = v;
        }
        c.l[3] &= 0x7fffffffffffffffULL; /* r < 2^255: reject the rest, ~9 % of draws */
        if (fr_to_mont(out, &c)) return CUZK_OK;
    }
}

/* ---- all of it ---- */

static int resolve_rs(fr_t *out, const fr_t *given, const cuzk_fr *in_partition, int32_t form,
                      const char *name)
{
    if (given) {
        *out = *given;
        return CUZK_OK;
    }
    if (in_partition) {
        if (!is_below_r(in_partition))
            return err_set(CUZK_EINVAL, "%s is not below r", name);
        if (form == CUZK_FR_CANONICAL) fr_to_mont(out, (const fr_t *)in_partition);
        else *out = *(const fr_t *)in_partition;
        return CUZK_OK;
    }
    return groth16_random_fr(out);
}

int groth16_prove_timed(const groth16_params *pk, const cuzk_partition *p, const fr_t *r,
                        const fr_t *s, threadpool *tp, uint8_t proof[192], groth16_stage_ns *t)
{
    if (!proof) return err_set(CUZK_EINVAL, "proof output is NULL");
    int rc = groth16_check_partition(pk, p);
    if (rc) return rc;
    if ((rc = groth16_check_scalars(p, tp))) return rc;
    fr_t rr, ss;
    if ((rc = resolve_rs(&rr, r, p->r, p->scalar_form, "r")) ||
        (rc = resolve_rs(&ss, s, p->s, p->scalar_form, "s")))
        return rc;
    unsigned log_m = log2_ceil(p->abc_len);
    fr_t *h = malloc(((size_t)pk->n_h ? pk->n_h : 1) * sizeof(fr_t));
    if (!h) return err_set(CUZK_ENOMEM, "cannot allocate %u H scalars", pk->n_h);
    uint64_t t0 = groth16_now_ns();
    if ((rc = groth16_compute_h(h, p, log_m, tp))) {
        free(h);
        return rc;
    }
    uint64_t t1 = groth16_now_ns();
    groth16_msm_out m;
    rc = groth16_msms_cpu_timed(&m, pk, p, h, tp, t);
    free(h);
    if (rc) return rc;
    uint64_t t2 = groth16_now_ns();
    groth16_assemble(proof, pk, &m, &rr, &ss);
    uint64_t t3 = groth16_now_ns();
    if (t) {
        t->h = t1 - t0;
        t->assemble = t3 - t2;
    }
    return CUZK_OK;
}

int groth16_prove(const groth16_params *pk, const cuzk_partition *p, const fr_t *r, const fr_t *s,
                  threadpool *tp, uint8_t proof[192])
{
    return groth16_prove_timed(pk, p, r, s, tp, proof, NULL);
}

uint64_t groth16_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
