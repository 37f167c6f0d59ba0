/*
 * The synthetic Filecoin-shaped circuit (synth.h). One generator walks the constraints in
 * order, computing the witness as it goes, and hands each row to a sink: one sink builds a
 * constraint system, the other evaluates a/b/c and the densities directly (no cs held in memory).
 *
 * Constraint kinds (ONE = input 0; every kind but PUB adds one aux variable), written as
 * bellperson's gadgets write them, so the non-zeros per matrix follow real circuits too:
 *   BOOL    (1 − b)·b = 0           A {ONE, −b}    B {b}       C {}            b: a fresh bit
 *                                   (bellperson's AllocatedBit::alloc)
 *   XOR     2a·b' = a + b' − c      A {2a}         B {b'}      C {a, b', −c}   c = a ⊕ b'
 *   NONBIT  (w₋ + k)·b' = w − w₋ − k                                            w: a field value,
 *           A {w₋, k·ONE}  B {b'}  C {w, −w₋, −k·ONE}    i.e. w = (w₋ + k)(b' + 1)
 *   SBOX    (w₋ + k)·w₋ = w         A {w₋, k·ONE}  B {w₋}      C {w}           (a Poseidon-like
 *                                                                               round: a field
 *                                                                               value in B)
 *   ADD     (Σ 2^(t mod 32)·bit_t)·1 = x over 128 bits: four 32-bit words summed as SHA-256's
 *           UInt32::addmany does (its A side: every operand bit, powers of two); x (< 2^34)
 *           is one more term of the next NONBIT's or SBOX's A (w₋ + x + k; and −x in a
 *           NONBIT's C), so it is in A as addmany's result bits are
 *   PACK    (Σ 2^i·bit_i)·1 = x     A {bits}       B {ONE}     C {x}           x < 2^64, in no A
 *   PUB     w·1 = input i           A {w}          B {ONE}     C {input i}     bellperson's
 *           inputize of an earlier field value w (the last constraints; as PACK where the
 *           circuit has no field value yet)
 * k is one of ROUND_CONSTANTS fixed constants (a hash's round constants), so the circuit's
 * distinct coefficients stay few: ±1, 2, the powers of two and ±k (csc.h's table).
 * b' is always a BOOL bit, a is the previous XOR output (a chain), w₋ the previous NONBIT,
 * SBOX or ADD value (no wire appears twice in one linear combination, as in circom's files),
 * so: B holds BOOL bits, the SBOX inputs and ONE (b_aux ≈ BOOL + SBOX shares: 25.4 % + 0 for
 * PoRep; b_input = 1 of the inputs); every aux variable except PACK outputs and each chain's
 * last link is in some A (≈ 99.7 %). Shares: BOOL = bool_pm, PACK 0.3 %, ADD = add_pcm (taken
 * from the non-bits), SBOX = b_aux_pm − bool_pm, NONBIT = the other non-bits, XOR the rest
 * (bits = BOOL + XOR ≈ bit_share_pm).
 * Non-zeros per row, PoRep's shares (BOOL 25.4 %, XOR 64.3 %, NONBIT 9.34 %, ADD 0.656 %,
 * PACK 0.3 %): A 2·.254 + .643 + 2·.0934 + 128·.00656 + 64·.003 = 2.37, B 1.00 (one term in
 * every row), C 3·.643 + 3·.0934 + .0096 = 2.22: 5.59 per row against the published 5.54
 * (722 M / 130.3 M), whose split FORMATS.md gives as A 2.4, B 1.0, C 2.2 (synth_shape.c).
 */
#include "groth16/synth.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

enum { K_BOOL, K_XOR, K_NONBIT, K_PACK, K_SBOX, K_ADD, K_COUNT };
#define PACK_BITS 64
#define ADD_BITS 128       /* four 32-bit operands */
#define ROUND_CONSTANTS 256
#define FRAC_ONE 100000 /* kind shares are in 1/100000 */

typedef struct sink sink;
struct sink {
    /* one constraint k, with the witness already holding every value it mentions */
    int (*row)(sink *s, uint64_t k, const cs_term *a, int na, const cs_term *b, int nb,
               const cs_term *c, int nc);
};

typedef struct gen {
    uint64_t rng[4];
    uint64_t ni, na, nc;       /* inputs (ONE included), aux, constraints */
    fr_t *in, *aux;            /* witness, Montgomery */
    uint8_t *bitv;             /* value of each bit aux (0/1) */
    uint32_t *bits, *bbits;    /* aux indices of all bits, of BOOL bits */
    uint32_t *ws;              /* aux indices of the field values (NONBIT, SBOX, ADD) */
    uint64_t nbits, nbbits, nws, next_aux;
    int64_t last_xor, last_w;  /* aux index, -1 if none yet */
    int64_t last_add;          /* an ADD output no row has used yet, -1 if none */
    fr_t one, mone, two, pow2[PACK_BITS];
    fr_t rc[ROUND_CONSTANTS], nrc[ROUND_CONSTANTS]; /* k and −k */
} gen;

/* ---- randomness: xoshiro256** seeded from the 32-byte seed through splitmix64 ---- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rnd(gen *g)
{
    uint64_t *s = g->rng, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = rotl(s[3], 45);
    return r;
}

static uint64_t rnd_below(gen *g, uint64_t n) { return (uint64_t)(((__uint128_t)rnd(g) * n) >> 64); }

static void rnd_fr(gen *g, fr_t *out) /* uniform in [0, r), Montgomery */
{
    for (;;) {
        fr_t c = {{rnd(g), rnd(g), rnd(g), rnd(g) & 0x7fffffffffffffffULL}};
        if (fr_to_mont(out, &c)) return;
    }
}

/* ---- the generator ---- */

static cs_term T(uint64_t var, const fr_t *coeff)
{
    cs_term t;
    t.var = var;
    t.coeff = *coeff;
    return t;
}

static uint64_t new_aux(gen *g) { return g->next_aux++; }

static void add_bit(gen *g, uint64_t j, int v, int is_bool)
{
    g->bitv[j] = (uint8_t)v;
    g->aux[j] = v ? g->one : FR_ZERO;
    g->bits[g->nbits++] = (uint32_t)j;
    if (is_bool) g->bbits[g->nbbits++] = (uint32_t)j;
}

static void add_w(gen *g, uint64_t j)
{
    g->ws[g->nws++] = (uint32_t)j;
    g->last_w = (int64_t)j;
}

/* The pending ADD output as one more A term of a NONBIT or SBOX (its sum's consumer), added
 * to *t; 1 if there was one (its aux index in *j). */
static int take_add(gen *g, cs_term *a, int *na, fr_t *t, uint64_t *j)
{
    if (g->last_add < 0) return 0;
    *j = (uint64_t)g->last_add;
    a[(*na)++] = T(g->ni + *j, &g->one);
    fr_add(t, t, &g->aux[*j]);
    g->last_add = -1;
    return 1;
}

/* Up to 64 distinct random bits packed into one value; *x gets Σ 2^i·bit_i. */
static int pick_pack(gen *g, cs_term *a, fr_t *x)
{
    int m = g->nbits < PACK_BITS ? (int)g->nbits : PACK_BITS;
    uint32_t chosen[PACK_BITS];
    uint64_t v = 0;
    for (int i = 0; i < m; i++) {
        uint32_t j;
        int dup;
        do {
            j = g->bits[rnd_below(g, g->nbits)];
            dup = 0;
            for (int q = 0; q < i; q++) dup |= chosen[q] == j;
        } while (dup);
        chosen[i] = j;
        a[i] = T(g->ni + j, &g->pow2[i]);
        v |= (uint64_t)g->bitv[j] << i;
    }
    fr_from_u64(x, v);
    return m;
}

static int emit(gen *g, sink *s, uint64_t k, int kind)
{
    cs_term a[ADD_BITS + 2], b[2], c[4];
    int na = 0, nb = 0, nc = 0;
    switch (kind) {
    case K_BOOL: {
        uint64_t j = new_aux(g);
        add_bit(g, j, (int)(rnd(g) & 1), 1);
        a[na++] = T(0, &g->one);
        a[na++] = T(g->ni + j, &g->mone);
        b[nb++] = T(g->ni + j, &g->one);
        break;
    }
    case K_XOR: {
        uint64_t bj = g->bbits[rnd_below(g, g->nbbits)];
        uint64_t aj = (uint64_t)g->last_xor; /* an XOR output, never a BOOL bit like bj */
        if (g->last_xor < 0)
            do aj = g->bits[rnd_below(g, g->nbits)]; while (aj == bj);
        uint64_t j = new_aux(g);
        add_bit(g, j, g->bitv[aj] ^ g->bitv[bj], 0);
        g->last_xor = (int64_t)j;
        a[na++] = T(g->ni + aj, &g->two);
        b[nb++] = T(g->ni + bj, &g->one);
        c[nc++] = T(g->ni + aj, &g->one);
        c[nc++] = T(g->ni + bj, &g->one);
        c[nc++] = T(g->ni + j, &g->mone);
        break;
    }
    case K_NONBIT: {
        uint64_t bj = g->bbits[rnd_below(g, g->nbbits)];
        unsigned ki = (unsigned)rnd_below(g, ROUND_CONSTANTS);
        fr_t t = g->rc[ki], u;
        uint64_t j = new_aux(g);
        c[nc++] = T(g->ni + j, &g->one);
        if (g->last_w >= 0) {
            a[na++] = T(g->ni + (uint64_t)g->last_w, &g->one);
            c[nc++] = T(g->ni + (uint64_t)g->last_w, &g->mone);
            fr_add(&t, &t, &g->aux[g->last_w]);
        }
        uint64_t xj;
        if (take_add(g, a, &na, &t, &xj)) c[nc++] = T(g->ni + xj, &g->mone);
        a[na++] = T(0, &g->rc[ki]);
        c[nc++] = T(0, &g->nrc[ki]);
        b[nb++] = T(g->ni + bj, &g->one);
        fr_add(&u, &g->aux[bj], &g->one);
        fr_mul(&g->aux[j], &t, &u);
        add_w(g, j);
        break;
    }
    case K_SBOX: { /* the first one has a NONBIT before it (gen_run) */
        uint64_t wj = (uint64_t)g->last_w;
        unsigned ki = (unsigned)rnd_below(g, ROUND_CONSTANTS);
        fr_t t;
        fr_add(&t, &g->rc[ki], &g->aux[wj]);
        a[na++] = T(g->ni + wj, &g->one);
        uint64_t xj;
        take_add(g, a, &na, &t, &xj);
        a[na++] = T(0, &g->rc[ki]);
        b[nb++] = T(g->ni + wj, &g->one);
        uint64_t j = new_aux(g);
        fr_mul(&g->aux[j], &t, &g->aux[wj]);
        add_w(g, j);
        c[nc++] = T(g->ni + j, &g->one);
        break;
    }
    case K_ADD: { /* ADD_BITS consecutive entries of the bit list: distinct bits */
        uint64_t w = g->nbits < ADD_BITS ? g->nbits : ADD_BITS, s0 = rnd_below(g, g->nbits), v = 0;
        for (uint64_t t = 0; t < w; t++) {
            uint32_t bj = g->bits[(s0 + t) % g->nbits];
            a[na++] = T(g->ni + bj, &g->pow2[t % 32]);
            v += (uint64_t)g->bitv[bj] << (t % 32);
        }
        uint64_t j = new_aux(g);
        fr_from_u64(&g->aux[j], v);
        g->ws[g->nws++] = (uint32_t)j;
        g->last_add = (int64_t)j;
        b[nb++] = T(0, &g->one);
        c[nc++] = T(g->ni + j, &g->one);
        break;
    }
    case K_PACK: {
        na = pick_pack(g, a, &g->aux[g->next_aux]);
        uint64_t j = new_aux(g);
        b[nb++] = T(0, &g->one);
        c[nc++] = T(g->ni + j, &g->one);
        break;
    }
    default: { /* public input number kind - K_COUNT + 1 */
        uint64_t i = (uint64_t)(kind - K_COUNT) + 1;
        if (g->nws) { /* bellperson's inputize: an earlier field value, times ONE */
            uint64_t wj = g->ws[rnd_below(g, g->nws)];
            a[na++] = T(g->ni + wj, &g->one);
            g->in[i] = g->aux[wj];
        } else {
            na = pick_pack(g, a, &g->in[i]);
        }
        b[nb++] = T(0, &g->one);
        c[nc++] = T(i, &g->one);
        break;
    }
    }
    return s->row(s, k, a, na, b, nb, c, nc);
}

static uint64_t default_public(uint64_t n) { return n / 32 < 327 ? n / 32 : 327; }

/* 0 in the cfg: PoRep's 25.4 % (every B variable a bit) */
static uint32_t bool_pm(const synth_cfg *cfg) { return cfg->bool_pm ? cfg->bool_pm : 254; }
static uint32_t b_aux_pm(const synth_cfg *cfg) { return cfg->b_aux_pm ? cfg->b_aux_pm : bool_pm(cfg); }

/* Kind shares in 1/FRAC_ONE (see the top of the file); negative = impossible cfg. */
static void kind_shares(const synth_cfg *cfg, int64_t share[K_COUNT])
{
    int64_t unit = FRAC_ONE / 1000, nonbits = (int64_t)(1000 - (int64_t)cfg->bit_share_pm) * unit;
    share[K_BOOL] = (int64_t)bool_pm(cfg) * unit;
    share[K_PACK] = 300;
    share[K_SBOX] = ((int64_t)b_aux_pm(cfg) - (int64_t)bool_pm(cfg)) * unit;
    /* ADD rows are non-bits too: taken from the NONBIT rows, as many as there are */
    int64_t room = nonbits - share[K_SBOX];
    share[K_ADD] = (int64_t)cfg->add_pcm < room ? (int64_t)cfg->add_pcm : (room > 0 ? room : 0);
    share[K_NONBIT] = nonbits - share[K_SBOX] - share[K_ADD];
    share[K_XOR] = FRAC_ONE - share[K_BOOL] - share[K_PACK] - share[K_NONBIT] - share[K_SBOX] - share[K_ADD];
}

static int cfg_counts(const synth_cfg *cfg, uint64_t *pub)
{
    if (!cfg) return err_set(CUZK_EINVAL, "synth: cfg is NULL");
    uint64_t n = cfg->constraints;
    uint64_t p = cfg->num_public == SYNTH_PUBLIC_DEFAULT ? default_public(n) : cfg->num_public;
    if (n == 0 || p >= n)
        return err_set(CUZK_EINVAL, "synth: %llu constraints cannot hold %llu public inputs "
                       "(need at least one more constraint)",
                       (unsigned long long)n, (unsigned long long)p);
    if (n > ((uint64_t)1 << 32) || n + p + 1 > ((uint64_t)1 << 32)) /* n first: n + p + 1 may wrap */
        return err_set(CUZK_EINVAL, "synth: %llu constraints exceed the largest domain 2^32",
                       (unsigned long long)n);
    int64_t share[K_COUNT];
    kind_shares(cfg, share);
    if (share[K_XOR] < 0 || share[K_SBOX] < 0 || share[K_NONBIT] < 0)
        return err_set(CUZK_EINVAL, "synth: shares do not add up: %u per mille bits, %u of them in B, "
                       "%u per mille of aux in B (need bool <= b_aux <= bool + non-bits, and "
                       "bool + 0.3 %% + non-bits <= 100 %%)",
                       cfg->bit_share_pm, bool_pm(cfg), b_aux_pm(cfg));
    *pub = p;
    return CUZK_OK;
}

static void gen_free(gen *g)
{
    free(g->bitv);
    free(g->bits);
    free(g->bbits);
    free(g->ws);
}

/* Sets up g (allocating in/aux unless the caller did) and runs every row through s. */
static int gen_run(gen *g, const synth_cfg *cfg, sink *s)
{
    uint64_t p;
    int rc = cfg_counts(cfg, &p);
    if (rc) return rc;
    g->nc = cfg->constraints;
    g->ni = p + 1;
    g->na = g->nc - p;
    uint64_t x = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t w;
        memcpy(&w, cfg->seed + 8 * i, 8);
        x ^= w;
        g->rng[i] = splitmix(&x) ^ w;
    }
    g->one = FR_ONE;
    fr_neg(&g->mone, &FR_ONE);
    fr_add(&g->two, &FR_ONE, &FR_ONE);
    for (int i = 0; i < PACK_BITS; i++) fr_from_u64(&g->pow2[i], (uint64_t)1 << i);
    for (int i = 0; i < ROUND_CONSTANTS; i++) {
        rnd_fr(g, &g->rc[i]);
        fr_neg(&g->nrc[i], &g->rc[i]);
    }
    g->bitv = calloc(g->na, 1);
    g->bits = malloc(g->na * sizeof(uint32_t));
    g->bbits = malloc(g->na * sizeof(uint32_t));
    g->ws = malloc(g->na * sizeof(uint32_t));
    if (!g->bitv || !g->bits || !g->bbits || !g->ws)
        return err_set(CUZK_ENOMEM, "synth: cannot allocate %llu aux variables",
                       (unsigned long long)g->na);
    g->in[0] = FR_ONE;
    g->last_xor = g->last_w = g->last_add = -1;

    int64_t share[K_COUNT]; /* cfg_counts checked they are all >= 0 */
    kind_shares(cfg, share);
    uint64_t done[K_COUNT] = {0};
    for (uint64_t k = 0; k < g->na; k++) {
        int kind = K_BOOL;
        if (k > 0) { /* the kind furthest behind its share (error diffusion: evenly mixed) */
            int64_t best = INT64_MIN;
            for (int t = 0; t < K_COUNT; t++) {
                int64_t lag = share[t] * (int64_t)(k + 1) - (int64_t)done[t] * FRAC_ONE;
                if (share[t] > 0 && lag > best) best = lag, kind = t;
            }
        }
        /* the first XOR needs two distinct bits (one wire per linear combination) */
        if (kind == K_XOR && g->last_xor < 0 && g->nbits < 2) kind = K_BOOL;
        /* an SBOX squares the previous non-bit: the first non-bit is a NONBIT */
        if (kind == K_SBOX && g->last_w < 0) kind = K_NONBIT;
        done[kind]++;
        rc = emit(g, s, k, kind);
        if (rc) return rc;
    }
    for (uint64_t i = 0; i < p; i++) {
        rc = emit(g, s, g->na + i, K_COUNT + (int)i);
        if (rc) return rc;
    }
    return CUZK_OK;
}

void synth_cfg_default(synth_cfg *cfg, uint64_t n, const uint8_t seed[32])
{
    memset(cfg, 0, sizeof *cfg);
    cfg->constraints = n;
    cfg->num_public = SYNTH_PUBLIC_DEFAULT;
    cfg->bit_share_pm = 900;
    cfg->add_pcm = SYNTH_ADD_POREP;
    if (seed) memcpy(cfg->seed, seed, 32);
}

void synth_cfg_for_domain(synth_cfg *cfg, unsigned log_m, const uint8_t seed[32])
{
    uint64_t m = (uint64_t)1 << log_m, n = m - 1 - default_public(m);
    while (n + 1 + default_public(n + 1) + 1 <= m) n++; /* constraints + inputs <= m */
    while (n > 1 && n + default_public(n) + 1 > m) n--;
    synth_cfg_default(cfg, n, seed);
}

/* ---- sink 1: a constraint system ---- */

typedef struct cs_sink {
    sink base;
    cs *sys;
    uint64_t cap[3];
} cs_sink;

static int cs_push(cs_lc_rows *r, uint64_t *cap, uint64_t k, const cs_term *t, int n)
{
    uint64_t used = r->off[k];
    if (used + (uint64_t)n > *cap) {
        uint64_t nc = *cap * 2 + (uint64_t)n + 1024;
        cs_term *nt = realloc(r->terms, nc * sizeof *nt);
        if (!nt) return err_set(CUZK_ENOMEM, "synth: cannot grow the constraint rows");
        r->terms = nt;
        *cap = nc;
    }
    if (n) memcpy(r->terms + used, t, (size_t)n * sizeof *t);
    r->off[k + 1] = used + (uint64_t)n;
    return CUZK_OK;
}

static int cs_row(sink *s, uint64_t k, const cs_term *a, int na, const cs_term *b, int nb,
                  const cs_term *c, int nc)
{
    cs_sink *cs_s = (cs_sink *)s;
    cs *sys = cs_s->sys;
    int rc = cs_push(&sys->a, &cs_s->cap[0], k, a, na);
    if (!rc) rc = cs_push(&sys->b, &cs_s->cap[1], k, b, nb);
    if (!rc) rc = cs_push(&sys->c, &cs_s->cap[2], k, c, nc);
    return rc;
}

int synth_cs(const synth_cfg *cfg, cs *out, fr_t **inputs, fr_t **aux)
{
    uint64_t p;
    int rc = cfg_counts(cfg, &p);
    if (rc) return rc;
    if (!out || !inputs || !aux) return err_set(CUZK_EINVAL, "synth_cs: NULL output");
    memset(out, 0, sizeof *out);
    gen g;
    memset(&g, 0, sizeof g);
    uint64_t n = cfg->constraints;
    g.in = calloc(p + 1, sizeof(fr_t));
    g.aux = calloc(n - p, sizeof(fr_t));
    cs_lc_rows *rows[3] = {&out->a, &out->b, &out->c};
    for (int w = 0; w < 3; w++) rows[w]->off = calloc(n + 1, sizeof(uint64_t));
    cs_sink s = {{cs_row}, out, {0, 0, 0}};
    if (!g.in || !g.aux || !out->a.off || !out->b.off || !out->c.off)
        rc = err_set(CUZK_ENOMEM, "synth: cannot allocate %llu constraints", (unsigned long long)n);
    else
        rc = gen_run(&g, cfg, &s.base);
    gen_free(&g);
    if (rc) {
        free(g.in);
        free(g.aux);
        cs_free(out);
        return rc;
    }
    out->num_inputs = g.ni;
    out->num_aux = g.na;
    out->num_constraints = g.nc;
    *inputs = g.in;
    *aux = g.aux;
    return CUZK_OK;
}

/* ---- sink 2: the partition, evaluated row by row ---- */

typedef struct part_sink {
    sink base;
    gen *g;
    fr_t *a, *b, *c;
    uint64_t *a_aux_d, *b_in_d, *b_aux_d;
} part_sink;

static void eval(fr_t *out, const gen *g, const cs_term *t, int n, uint64_t *in_d, uint64_t *aux_d)
{
    fr_t acc = FR_ZERO, m;
    for (int i = 0; i < n; i++) {
        const fr_t *v;
        if (t[i].var < g->ni) {
            v = &g->in[t[i].var];
            if (in_d) in_d[t[i].var / 64] |= (uint64_t)1 << (t[i].var % 64);
        } else {
            uint64_t j = t[i].var - g->ni;
            v = &g->aux[j];
            if (aux_d) aux_d[j / 64] |= (uint64_t)1 << (j % 64);
        }
        fr_mul(&m, &t[i].coeff, v);
        fr_add(&acc, &acc, &m);
    }
    *out = acc;
}

static int part_row(sink *s, uint64_t k, const cs_term *a, int na, const cs_term *b, int nb,
                    const cs_term *c, int nc)
{
    part_sink *ps = (part_sink *)s;
    eval(&ps->a[k], ps->g, a, na, NULL, ps->a_aux_d);
    eval(&ps->b[k], ps->g, b, nb, ps->b_in_d, ps->b_aux_d);
    eval(&ps->c[k], ps->g, c, nc, NULL, NULL);
    return CUZK_OK;
}

static void release_block(void *block) { free(block); }

int synth_partition(const synth_cfg *cfg, int32_t scalar_form, cuzk_partition *out)
{
    uint64_t p;
    int rc = cfg_counts(cfg, &p);
    if (rc) return rc;
    if (!out) return err_set(CUZK_EINVAL, "synth_partition: out is NULL");
    if (scalar_form != CUZK_FR_MONTGOMERY && scalar_form != CUZK_FR_CANONICAL)
        return err_set(CUZK_EINVAL, "synth_partition: scalar_form %d is not a CUZK_FR_ form",
                       (int)scalar_form);
    uint64_t nc = cfg->constraints, ni = p + 1, na = nc - p, n = nc + ni;
    uint64_t wi = (ni + 63) / 64, wa = (na + 63) / 64;
    size_t bytes = (size_t)(3 * n + ni + na) * sizeof(fr_t) + (size_t)(2 * wa + wi) * 8;
    uint8_t *block = calloc(1, bytes);
    if (!block) return err_set(CUZK_ENOMEM, "synth: cannot allocate %zu bytes", bytes);
    gen g;
    memset(&g, 0, sizeof g);
    part_sink s;
    s.base.row = part_row;
    s.g = &g;
    s.a = (fr_t *)block;
    s.b = s.a + n;
    s.c = s.b + n;
    g.in = s.c + n;
    g.aux = g.in + ni;
    s.a_aux_d = (uint64_t *)(g.aux + na);
    s.b_in_d = s.a_aux_d + wa;
    s.b_aux_d = s.b_in_d + wi;
    rc = gen_run(&g, cfg, &s.base);
    gen_free(&g);
    if (rc) {
        free(block);
        return rc;
    }
    for (uint64_t i = 0; i < ni; i++) s.a[nc + i] = g.in[i]; /* A = input i, B = C = 0 */
    if (scalar_form == CUZK_FR_CANONICAL)
        for (fr_t *v = s.a; v < g.aux + na; v++) fr_from_mont(v, v);
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->scalar_form = scalar_form;
    out->a = (const cuzk_fr *)s.a;
    out->b = (const cuzk_fr *)s.b;
    out->c = (const cuzk_fr *)s.c;
    out->abc_len = n;
    out->inputs = (const cuzk_fr *)g.in;
    out->num_inputs = ni;
    out->aux = (const cuzk_fr *)g.aux;
    out->num_aux = na;
    out->a_aux_density = s.a_aux_d;
    out->b_input_density = s.b_in_d;
    out->b_aux_density = s.b_aux_d;
    out->release = release_block;
    out->release_user = block;
    return CUZK_OK;
}
