/*
 * The CPU NTT of ntt_cpu.h: bit reversal, then decimation-in-time butterflies. The first
 * NTT_BLOCK_LOG stages run block by block inside the cache; the stages above run two at a
 * time (radix-4 passes) so a large transform streams through memory half as often.
 */
#include "ntt/ntt_cpu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* 2^12 elements = 128 KiB: a block and its twiddles stay in a core's L2. */
#define NTT_BLOCK_LOG 12u
/* Twiddle tables up to this size are kept for the life of the process (32 MiB at most in
 * all); larger ones are built per call. */
#define NTT_CACHE_LOG 20u

static atomic_uint table_limit_log = 32;
static atomic_uint cache_log = NTT_CACHE_LOG;

void ntt_cpu_set_cache_limit(unsigned log_n)
{
    atomic_store(&cache_log, log_n < NTT_CACHE_LOG ? log_n : NTT_CACHE_LOG);
}

void ntt_cpu_set_table_limit(unsigned log_n)
{
    atomic_store(&table_limit_log, log_n);
}

/* ---- running a range [0, n) in chunks over the pool ---- */

typedef void (*range_fn)(void *arg, size_t begin, size_t end);
typedef struct {
    range_fn fn;
    void *arg;
    size_t n, chunk;
} range_job;

static void range_body(void *p, size_t c)
{
    range_job *r = p;
    size_t b = c * r->chunk, e = r->n - b < r->chunk ? r->n : b + r->chunk;
    r->fn(r->arg, b, e);
}

/* About four chunks per thread, none smaller than min_chunk (the work per call must
 * outweigh the dispatch). */
static void par_range(threadpool *tp, size_t n, size_t min_chunk, range_fn fn, void *arg)
{
    size_t t = threadpool_size(tp), chunk = (n + 4 * t - 1) / (4 * t);
    if (chunk < min_chunk) chunk = min_chunk;
    size_t nchunks = (n + chunk - 1) / chunk;
    if (nchunks <= 1) {
        if (n) fn(arg, 0, n);
        return;
    }
    range_job r = {fn, arg, n, chunk};
    threadpool_parallel_for(tp, nchunks, range_body, &r);
}

/* ---- twiddles: tw[j] = ω_n^j for j < n/2 ---- */

typedef struct {
    fr_t *tw;
    fr_t w;
} tw_job;

static void tw_fill(void *p, size_t b, size_t e)
{
    tw_job *t = p;
    fr_t x;
    fr_pow_u64(&x, &t->w, b);
    for (size_t j = b; j < e; j++) {
        t->tw[j] = x;
        fr_mul(&x, &x, &t->w);
    }
}

void ntt_cpu_table_fill(fr_t *tw, unsigned log_n, threadpool *tp)
{
    if (log_n == 0) return;
    tw_job t = {tw, {{0}}};
    fr_root_of_unity(&t.w, log_n);
    par_range(tp, (size_t)1 << (log_n - 1), 1024, tw_fill, &t);
}

size_t ntt_cpu_table_bytes(unsigned log_n)
{
    if (log_n == 0 || log_n <= atomic_load(&cache_log) || log_n > atomic_load(&table_limit_log)) return 0;
    return ((size_t)1 << (log_n - 1)) * sizeof(fr_t);
}

static fr_t *tw_build(unsigned log_n, threadpool *tp)
{
    size_t half = (size_t)1 << (log_n - 1);
    fr_t *tw = malloc(half * sizeof *tw);
    if (tw) ntt_cpu_table_fill(tw, log_n, tp);
    return tw;
}

static pthread_mutex_t tw_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static fr_t *tw_cache[NTT_CACHE_LOG + 1];

/* The table for 2^log_n (log_n >= 1); *owned says whether the caller must free it. NULL if
 * memory ran out or the table is over the limit: the caller computes twiddles on the fly. */
static const fr_t *tw_get(unsigned log_n, threadpool *tp, int *owned)
{
    *owned = 0;
    if (log_n > atomic_load(&table_limit_log)) return NULL;
    if (log_n > atomic_load(&cache_log)) {
        fr_t *tw = tw_build(log_n, tp);
        *owned = tw != NULL;
        return tw;
    }
    pthread_mutex_lock(&tw_cache_lock);
    fr_t *tw = tw_cache[log_n];
    pthread_mutex_unlock(&tw_cache_lock);
    if (tw) return tw;
    /* Built outside the lock: building uses the pool, and a pool job of another thread may
     * be waiting for this lock (a nested NTT), which would deadlock. */
    fr_t *mine = tw_build(log_n, tp);
    if (!mine) return NULL;
    pthread_mutex_lock(&tw_cache_lock);
    if (!tw_cache[log_n]) tw_cache[log_n] = mine;
    else free(mine); /* another thread won the race */
    tw = tw_cache[log_n];
    pthread_mutex_unlock(&tw_cache_lock);
    return tw;
}

/* ---- bit reversal ---- */

typedef struct {
    fr_t *a;
    unsigned log_n;
} br_job;

static size_t bitrev(size_t i, unsigned bits)
{
    size_t r = 0;
    for (unsigned b = 0; b < bits; b++, i >>= 1) r = (r << 1) | (i & 1);
    return r;
}

static void br_range(void *p, size_t b, size_t e)
{
    br_job *j = p;
    /* Each pair is swapped once, by its smaller index. */
    for (size_t i = b; i < e; i++) {
        size_t k = bitrev(i, j->log_n);
        if (i < k) {
            fr_t t = j->a[i];
            j->a[i] = j->a[k];
            j->a[k] = t;
        }
    }
}

void ntt_bit_reverse(fr_t *a, unsigned log_n, threadpool *tp)
{
    br_job j = {a, log_n};
    par_range(tp, (size_t)1 << log_n, 4096, br_range, &j);
}

/* ---- butterflies ---- */

static inline void bfly(fr_t *x0, fr_t *x1, const fr_t *w)
{
    fr_t t;
    fr_mul(&t, x1, w);
    fr_sub(x1, x0, &t);
    fr_add(x0, x0, &t);
}

typedef struct {
    fr_t *a;
    size_t n;
    unsigned log_n;
    const fr_t *tw;   /* ω_n^j, j < n/2, or NULL */
    const fr_t *tb;   /* ω_B^j, j < B/2, B = the block size */
    unsigned log_b;   /* log2 of the block size (<= log_n) */
    size_t m;         /* half-size of the (first) stage of a big pass */
} ntt_ctx;

/* Stages of half-size 1 .. B/2 inside each block of B consecutive elements. */
static void block_range(void *p, size_t b, size_t e)
{
    ntt_ctx *c = p;
    size_t bsz = (size_t)1 << c->log_b;
    for (size_t blk = b; blk < e; blk++) {
        fr_t *x = c->a + blk * bsz;
        for (size_t m = 1, stride = bsz / 2; m < bsz; m <<= 1, stride >>= 1)
            for (size_t g = 0; g < bsz; g += 2 * m) {
                /* j = 0: twiddle one */
                fr_t t = x[g + m];
                fr_sub(&x[g + m], &x[g], &t);
                fr_add(&x[g], &x[g], &t);
                for (size_t j = 1; j < m; j++) bfly(&x[g + j], &x[g + j + m], &c->tb[j * stride]);
            }
    }
}

/* ω_{2m}^j from the table, or from ω_{2m} by pow (only at chunk starts) when there is none. */
static void tw_at(fr_t *w, const ntt_ctx *c, size_t j, size_t m)
{
    size_t idx = j * (c->n / (2 * m));
    if (c->tw) { *w = c->tw[idx]; return; }
    fr_t root;
    fr_root_of_unity(&root, c->log_n);
    fr_pow_u64(w, &root, idx);
}

/* One radix-2 stage of half-size m over butterflies [b, e) of the n/2. */
static void stage2_range(void *p, size_t b, size_t e)
{
    ntt_ctx *c = p;
    size_t m = c->m, step = c->n / (2 * m);
    fr_t w, wm;
    if (!c->tw) { tw_at(&w, c, b & (m - 1), m); tw_at(&wm, c, 1, m); }
    for (size_t t = b; t < e; t++) {
        size_t j = t & (m - 1), i = (t - j) * 2 + j;
        if (c->tw) w = c->tw[j * step];
        else if (j == 0) w = FR_ONE;
        bfly(&c->a[i], &c->a[i + m], &w);
        if (!c->tw) fr_mul(&w, &w, &wm);
    }
}

/* Two stages at once (half-sizes m and 2m) over quartets [b, e) of the n/4: elements
 * i, i+m, i+2m, i+3m with j = i mod m go through both stages while in registers. */
static void stage4_range(void *p, size_t b, size_t e)
{
    ntt_ctx *c = p;
    size_t m = c->m, s1 = c->n / (2 * m), s2 = s1 / 2;
    fr_t w1, w2, w3, w1m, w2m, w4;
    if (!c->tw) {
        size_t j0 = b & (m - 1);
        tw_at(&w1, c, j0, m);
        tw_at(&w2, c, j0, 2 * m);
        tw_at(&w1m, c, 1, m);
        tw_at(&w2m, c, 1, 2 * m);
        tw_at(&w4, c, m, 2 * m); /* ω_4: ω_{4m}^(j+m) = ω_{4m}^j · ω_4 */
    }
    for (size_t t = b; t < e; t++) {
        size_t j = t & (m - 1), i = (t - j) * 4 + j;
        if (c->tw) {
            w1 = c->tw[j * s1];
            w2 = c->tw[j * s2];
            w3 = c->tw[(j + m) * s2];
        } else {
            if (j == 0) { w1 = FR_ONE; w2 = FR_ONE; }
            fr_mul(&w3, &w2, &w4);
        }
        fr_t *x = c->a + i;
        bfly(&x[0], &x[m], &w1);
        bfly(&x[2 * m], &x[3 * m], &w1);
        bfly(&x[0], &x[2 * m], &w2);
        bfly(&x[m], &x[3 * m], &w3);
        if (!c->tw) { fr_mul(&w1, &w1, &w1m); fr_mul(&w2, &w2, &w2m); }
    }
}

/* Natural order in, natural order out: evaluations at ω_n^i. */
static void ntt_core(fr_t *a, unsigned log_n, threadpool *tp, const fr_t *given)
{
    if (log_n == 0) return;
    size_t n = (size_t)1 << log_n;
    ntt_bit_reverse(a, log_n, tp);

    ntt_ctx c = {.a = a, .n = n, .log_n = log_n};
    c.log_b = log_n < NTT_BLOCK_LOG ? log_n : NTT_BLOCK_LOG;
    int owned = 0, tb_owned = 0;
    c.tw = given ? given : tw_get(log_n, tp, &owned);
    c.tb = given && c.log_b == log_n ? given : tw_get(c.log_b, tp, &tb_owned);
    fr_t *tb_local = NULL;
    if (!c.tb) {
        /* No memory for even the block table: build one on the stack's behalf, small. */
        size_t half = ((size_t)1 << c.log_b) / 2;
        tb_local = malloc(half * sizeof *tb_local);
        if (tb_local) {
            fr_t w;
            fr_root_of_unity(&w, c.log_b);
            tb_local[0] = FR_ONE;
            for (size_t j = 1; j < half; j++) fr_mul(&tb_local[j], &tb_local[j - 1], &w);
            c.tb = tb_local;
        }
    }
    if (c.tb) {
        par_range(tp, n >> c.log_b, 1, block_range, &c);
        c.m = (size_t)1 << c.log_b;
    } else {
        c.m = 1; /* out of memory: every stage streams with twiddles on the fly */
    }
    /* Remaining stages: pairs as radix-4 passes, then a last radix-2 stage if one is left. */
    for (; 4 * c.m <= n; c.m *= 4) par_range(tp, n / 4, 1024, stage4_range, &c);
    if (2 * c.m <= n) par_range(tp, n / 2, 1024, stage2_range, &c);

    if (owned) free((void *)c.tw);
    if (tb_owned) free((void *)c.tb);
    free(tb_local);
}

/* ---- scaling passes ---- */

typedef struct {
    fr_t *a;
    size_t n;
    fr_t c0, g; /* a[i] *= c0·g^i */
} scale_job;

static void scale_range(void *p, size_t b, size_t e)
{
    scale_job *s = p;
    fr_t f;
    fr_pow_u64(&f, &s->g, b);
    fr_mul(&f, &f, &s->c0);
    for (size_t i = b; i < e; i++) {
        fr_mul(&s->a[i], &s->a[i], &f);
        fr_mul(&f, &f, &s->g);
    }
}

static void scale_powers(fr_t *a, size_t n, const fr_t *c0, const fr_t *g, threadpool *tp)
{
    scale_job s = {a, n, *c0, *g};
    par_range(tp, n, 4096, scale_range, &s);
}

/* The forward transform evaluated at ω^-i is the same values at index n - i: reverse
 * a[1..n-1] and multiply everything by c (1/n, or 1 when a coset pass follows). */
typedef struct {
    fr_t *a;
    size_t n;
    fr_t c;
} rev_job;

static void rev_range(void *p, size_t b, size_t e)
{
    rev_job *r = p;
    for (size_t i = b; i < e; i++) {
        if (i == 0 || 2 * i == r->n) {
            fr_mul(&r->a[i], &r->a[i], &r->c);
        } else {
            fr_t t;
            fr_mul(&t, &r->a[i], &r->c);
            fr_mul(&r->a[i], &r->a[r->n - i], &r->c);
            r->a[r->n - i] = t;
        }
    }
}

static void reverse_scale(fr_t *a, unsigned log_n, const fr_t *c, threadpool *tp)
{
    size_t n = (size_t)1 << log_n;
    rev_job r = {a, n, *c};
    par_range(tp, n / 2 + 1, 4096, rev_range, &r); /* n = 1: just index 0 */
}

static void n_inverse(fr_t *r, unsigned log_n)
{
    fr_t n;
    fr_from_u64(&n, 1);
    for (unsigned i = 0; i < log_n; i++) fr_add(&n, &n, &n);
    fr_inv(r, &n);
}

/* ---- the contract ---- */

void ntt_forward(fr_t *a, unsigned log_n, threadpool *tp)
{
    ntt_core(a, log_n, tp, NULL);
}

void ntt_inverse(fr_t *a, unsigned log_n, threadpool *tp) { ntt_inverse_tw(a, log_n, tp, NULL); }

void ntt_inverse_tw(fr_t *a, unsigned log_n, threadpool *tp, const fr_t *tw)
{
    fr_t ninv;
    n_inverse(&ninv, log_n);
    ntt_core(a, log_n, tp, tw);
    reverse_scale(a, log_n, &ninv, tp);
}

void ntt_coset_forward(fr_t *a, unsigned log_n, threadpool *tp) { ntt_coset_forward_tw(a, log_n, tp, NULL); }

void ntt_coset_forward_tw(fr_t *a, unsigned log_n, threadpool *tp, const fr_t *tw)
{
    scale_powers(a, (size_t)1 << log_n, &FR_ONE, &FR_COSET_GEN, tp);
    ntt_core(a, log_n, tp, tw);
}

void ntt_coset_inverse(fr_t *a, unsigned log_n, threadpool *tp) { ntt_coset_inverse_tw(a, log_n, tp, NULL); }

void ntt_coset_inverse_tw(fr_t *a, unsigned log_n, threadpool *tp, const fr_t *tw)
{
    fr_t ninv, ginv;
    n_inverse(&ninv, log_n);
    fr_inv(&ginv, &FR_COSET_GEN);
    ntt_core(a, log_n, tp, tw);
    reverse_scale(a, log_n, &FR_ONE, tp);
    scale_powers(a, (size_t)1 << log_n, &ninv, &ginv, tp);
}
