/*
 * The CPU MSM of msm_cpu.h: signed c-bit digits, (window, point range) tasks over the
 * pool, affine buckets added in batches with one shared inversion (XYZZ buckets for small
 * sizes and for collisions), running-sum bucket reduction in XYZZ, Horner over the windows.
 */
#include "error.h"
#include "msm/msm_cpu.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Points per slab: the digits of one slab are held at once (slab · windows · 2 bytes). */
#define MSM_SLAB ((size_t)1 << 19)
#define MSM_BATCH_MAX 1024u
#define MSM_C_MAX 15u /* digits fit int16_t: |d| <= 2^14 */

enum { BKT_EMPTY = 0, BKT_SET = 1, BKT_BUSY = 2 };

typedef struct {
    unsigned c, nwin, parts;
    size_t nbuckets; /* 2^(c-1): digit magnitudes 1 .. 2^(c-1) */
    size_t batch;    /* additions sharing one inversion */
    size_t slab;
    int affine;      /* batch-affine buckets, else XYZZ */
    double inv_cost; /* an inversion, in multiplications */
} msm_plan;

/* A batch-affine addition (≈ 6.5 multiplications plus a share of the inversion) beats a
 * mixed XYZZ one (≈ 12 with its additions) once batches are large enough. */
static int msm_affine_pays(size_t batch, double inv_cost)
{
    return batch >= 16 && 6.5 + inv_cost / (double)batch < 12;
}

typedef struct {
    size_t idx;
    int digit;
} msm_item;

/* Test hooks (msm_cpu_tune): 0 / -1 mean "choose". */
static atomic_uint tune_c, tune_parts;
static atomic_int tune_affine = -1;

void msm_cpu_tune(unsigned c, int affine, unsigned parts)
{
    atomic_store(&tune_c, c <= MSM_C_MAX ? c : MSM_C_MAX);
    atomic_store(&tune_affine, affine);
    atomic_store(&tune_parts, parts);
}

/*
 * Picks the window, the bucket form and how many point ranges each window is split into,
 * by a cost model in field multiplications: a mixed XYZZ add ≈ 12, a batch-affine add
 * ≈ 6.5 plus its share of one inversion (inv_cost), reducing a bucket ≈ 28; the pool runs
 * ceil(tasks / threads) rounds of equal tasks.
 */
static void msm_make_plan(msm_plan *pl, size_t n, unsigned threads, double inv_cost,
                          size_t bucket_bytes)
{
    unsigned fc = atomic_load(&tune_c), fp = atomic_load(&tune_parts);
    int fa = atomic_load(&tune_affine);
    /* Buckets are hit at random: keep them within half of the core's L2, leaving the rest
     * to the streamed points and the batch (G1 2^20 on a 1 MiB L2: c = 13 beat the c = 15
     * the operation count picks by 4 %; G2 2^16: c = 12 beat c = 13 by 8 %). */
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    size_t budget = (l2 > 0 ? (size_t)l2 : (size_t)1 << 20) / 2;
    unsigned cmax = 2;
    while (cmax < MSM_C_MAX && ((size_t)1 << cmax) * bucket_bytes <= budget) cmax++;
    double best = -1;
    for (unsigned c = fc ? fc : 2; c <= (fc ? fc : cmax); c++) {
        unsigned nwin = (256 + c - 1) / c; /* c·nwin >= 256: a canonical scalar's last carry fits */
        size_t nb = (size_t)1 << (c - 1);
        size_t batch = nb / 4 < MSM_BATCH_MAX ? nb / 4 : MSM_BATCH_MAX;
        if (!batch) batch = 1;
        int affine = fa >= 0 ? fa : msm_affine_pays(batch, inv_cost);
        double add = affine ? 6.5 + inv_cost / (double)batch : 12;
        for (unsigned parts = fp ? fp : 1; parts <= (fp ? fp : 64); parts++) {
            if (!fp && parts > 1 && n / parts < nb) break; /* a part should fill its buckets */
            size_t tasks = (size_t)nwin * parts, rounds = (tasks + threads - 1) / threads;
            double t = (double)rounds * ((double)((n + parts - 1) / parts) * add + (double)nb * 28);
            if (best < 0 || t < best) {
                best = t;
                *pl = (msm_plan){.c = c, .nwin = nwin, .parts = parts, .nbuckets = nb,
                                 .batch = batch, .affine = affine, .inv_cost = inv_cost};
            }
        }
    }
    pl->slab = n < MSM_SLAB ? n : MSM_SLAB;
}

/* Window w's reachable buckets, batch and bucket form. The top window holds only the
 * scalar's last 255 - c·(nwin-1) bits (plus a carry), as few as one bucket: a batch larger
 * than a quarter of the buckets would mostly wait on busy ones, and a batch of a handful
 * pays an inversion every few additions, so such a window takes XYZZ buckets. */
static void msm_window_shape(const msm_plan *pl, unsigned w, size_t *nb, size_t *batch, int *affine)
{
    *nb = pl->nbuckets;
    if (w == pl->nwin - 1) {
        unsigned top = 255 - pl->c * (pl->nwin - 1);
        if (top < pl->c - 1) *nb = (size_t)1 << top;
    }
    *batch = *nb / 4 < pl->batch ? *nb / 4 : pl->batch;
    if (!*batch) *batch = 1;
    *affine = pl->affine && (*batch == pl->batch || msm_affine_pays(*batch, pl->inv_cost));
}

/* Bits [off, off + c) of a 256-bit little-endian scalar (zero above bit 255). */
static unsigned msm_bits(const uint64_t *s, unsigned off, unsigned c)
{
    unsigned limb = off / 64, sh = off % 64;
    if (limb >= 4) return 0;
    uint64_t v = s[limb] >> sh;
    if (sh + c > 64 && limb + 1 < 4) v |= s[limb + 1] << (64 - sh);
    return (unsigned)(v & ((1ull << c) - 1));
}

typedef struct {
    int16_t *digits;
    const fr_t *scalars;
    size_t len;
    const msm_plan *pl;
} msm_digit_job;

/* Signed digits in [-(2^(c-1) - 1), 2^(c-1)]: a window value above 2^(c-1) becomes
 * value - 2^c and carries one into the next window. */
static void msm_digit_range(void *arg, size_t chunk)
{
    msm_digit_job *j = arg;
    size_t lo = chunk * 4096, hi = j->len - lo < 4096 ? j->len : lo + 4096;
    unsigned c = j->pl->c, half = 1u << (c - 1);
    for (size_t i = lo; i < hi; i++) {
        unsigned carry = 0;
        for (unsigned w = 0; w < j->pl->nwin; w++) {
            unsigned v = msm_bits(j->scalars[i].l, w * c, c) + carry;
            carry = v > half;
            j->digits[(size_t)w * j->len + i] = (int16_t)((int)v - (int)(carry << c));
        }
    }
}

static void msm_digits(int16_t *digits, const fr_t *scalars, size_t len, const msm_plan *pl,
                       threadpool *tp)
{
    msm_digit_job j = {digits, scalars, len, pl};
    threadpool_parallel_for(tp, (len + 4095) / 4096, msm_digit_range, &j);
}

/* ---- G1 ---- */
#define F fp_t
#define F_ADD fp_add
#define F_SUB fp_sub
#define F_DBL fp_dbl
#define F_NEG fp_neg
#define F_MUL fp_mul
#define F_SQR fp_sqr
#define F_INV fp_inv
#define F_EQ fp_eq
#define F_IS_ZERO fp_is_zero
#define F_ONE FP_ONE
#define AFF g1_aff
#define JAC g1_jac
#define G_(x) g1_##x
#define FN(x) msm1_##x
#include "msm_cpu_tmpl.inc"
#undef F
#undef F_ADD
#undef F_SUB
#undef F_DBL
#undef F_NEG
#undef F_MUL
#undef F_SQR
#undef F_INV
#undef F_EQ
#undef F_IS_ZERO
#undef F_ONE
#undef AFF
#undef JAC
#undef G_
#undef FN

/* ---- G2 ---- */
#define F fp2_t
#define F_ADD fp2_add
#define F_SUB fp2_sub
#define F_DBL fp2_dbl
#define F_NEG fp2_neg
#define F_MUL fp2_mul
#define F_SQR fp2_sqr
#define F_INV fp2_inv
#define F_EQ fp2_eq
#define F_IS_ZERO fp2_is_zero
#define F_ONE FP2_ONE
#define AFF g2_aff
#define JAC g2_jac
#define G_(x) g2_##x
#define FN(x) msm2_##x
#include "msm_cpu_tmpl.inc"

/* Inversion over multiplication cost (Fermat inversion): ~540 in Fp, ~160 in Fp2. */
size_t msm_cpu_scratch_bytes(size_t n, unsigned threads, int g2)
{
    if (!threads) threads = 1;
    return g2 ? msm2_scratch_bytes(n, threads, 160) : msm1_scratch_bytes(n, threads, 540);
}

void msm_g1(g1_jac *out, const g1_aff *bases, const fr_t *scalars, size_t n, threadpool *tp)
{
    msm_g1_ex(out, bases, scalars, n, tp, NULL);
}

void msm_g2(g2_jac *out, const g2_aff *bases, const fr_t *scalars, size_t n, threadpool *tp)
{
    msm_g2_ex(out, bases, scalars, n, tp, NULL);
}

int msm_g1_ex(g1_jac *out, const g1_aff *bases, const fr_t *scalars, size_t n, threadpool *tp,
              const scratch_alloc *sa)
{
    g1_jac_set_inf(out);
    if (n == 0 || msm1_msm(out, bases, scalars, n, tp, 540, sa)) return CUZK_OK;
    /* Out of memory for the digits or buckets. A caller's allocator (an engine partition's
     * heap) gets the error: the slow way below takes hours at PoRep sizes and cannot be
     * canceled. Standalone callers (NULL) get the slow way, which needs no memory. */
    if (sa) return err_set(CUZK_ENOMEM, "no working memory for a G1 MSM of %zu points", n);
    for (size_t i = 0; i < n; i++) {
        g1_jac p, q;
        g1_jac_from_aff(&p, &bases[i]);
        g1_jac_mul(&q, &p, &scalars[i]);
        g1_jac_add(out, out, &q);
    }
    return CUZK_OK;
}

int msm_g2_ex(g2_jac *out, const g2_aff *bases, const fr_t *scalars, size_t n, threadpool *tp,
              const scratch_alloc *sa)
{
    g2_jac_set_inf(out);
    if (n == 0 || msm2_msm(out, bases, scalars, n, tp, 160, sa)) return CUZK_OK;
    if (sa) return err_set(CUZK_ENOMEM, "no working memory for a G2 MSM of %zu points", n);
    for (size_t i = 0; i < n; i++) {
        g2_jac p, q;
        g2_jac_from_aff(&p, &bases[i]);
        g2_jac_mul(&q, &p, &scalars[i]);
        g2_jac_add(out, out, &q);
    }
    return CUZK_OK;
}
