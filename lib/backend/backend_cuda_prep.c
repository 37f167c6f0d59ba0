/*
 * Host-side preparation for the CUDA backend, spread over the backend's thread pool: copies
 * (or Montgomery conversions) into a worker's pinned staging buffer, and the density
 * compaction of the A and B scalars straight into pinned memory, in the partition's form.
 */
#include <string.h>

#include "backend/backend_cuda_prep.h"

#define PREP_CHUNK ((size_t)1 << 16) /* elements per task; a multiple of 64 (density words) */

typedef struct {
    fr_t *dst;
    const fr_t *src;
    size_t n;
    int to_mont;
} pcopy_job;

static void pcopy_chunk(void *arg, size_t c)
{
    const pcopy_job *j = arg;
    size_t lo = c * PREP_CHUNK, hi = j->n - lo < PREP_CHUNK ? j->n : lo + PREP_CHUNK;
    if (!j->to_mont) {
        memcpy(j->dst + lo, j->src + lo, (hi - lo) * sizeof(fr_t));
        return;
    }
    for (size_t i = lo; i < hi; i++) fr_to_mont(&j->dst[i], &j->src[i]);
}

void prep_copy(threadpool *tp, fr_t *dst, const cuzk_fr *src, size_t n, int to_mont)
{
    if (!n) return;
    pcopy_job j = {dst, (const fr_t *)src, n, to_mont};
    threadpool_parallel_for(tp, (n + PREP_CHUNK - 1) / PREP_CHUNK, pcopy_chunk, &j);
}

static uint64_t bits_in(const uint64_t *d, uint64_t lo, uint64_t hi) /* bits lo..hi-1, lo % 64 == 0 */
{
    uint64_t c = 0, w = lo / 64;
    for (; lo + 64 <= hi; lo += 64, w++) c += (uint64_t)__builtin_popcountll(d[w]);
    if (lo < hi) c += (uint64_t)__builtin_popcountll(d[w] & (((uint64_t)1 << (hi - lo)) - 1));
    return c;
}

typedef struct {
    const cuzk_partition *p;
    fr_t *a, *b;
    uint64_t *off_a, *off_b; /* per chunk: first output index (after the counting pass) */
    int pass;
} compact_job;

static void compact_chunk(void *arg, size_t c)
{
    compact_job *j = arg;
    const cuzk_partition *p = j->p;
    uint64_t lo = c * PREP_CHUNK, hi = p->num_aux - lo < PREP_CHUNK ? p->num_aux : lo + PREP_CHUNK;
    if (j->pass == 0) {
        j->off_a[c] = bits_in(p->a_aux_density, lo, hi);
        j->off_b[c] = bits_in(p->b_aux_density, lo, hi);
        return;
    }
    const cuzk_fr *aux = p->aux;
    uint64_t ka = j->off_a[c], kb = j->off_b[c];
    for (uint64_t i = lo; i < hi; i++) {
        uint64_t wa = p->a_aux_density[i / 64] >> (i % 64), wb = p->b_aux_density[i / 64] >> (i % 64);
        if (wa & 1) memcpy(&j->a[ka++], &aux[i], sizeof(fr_t));
        if (wb & 1) memcpy(&j->b[kb++], &aux[i], sizeof(fr_t));
    }
}

int prep_compact(threadpool *tp, const cuzk_partition *p, fr_t *a, fr_t *b, uint64_t *n_a, uint64_t *n_b)
{
    uint64_t cap_a = *n_a, cap_b = *n_b;
    uint64_t ni = p->num_inputs, na = p->num_aux;
    /* a: every input, then the aux values a_aux_density selects; b: the inputs b_input_density
     * selects, then the aux values b_aux_density selects (groth16_msm_scalars_make's order) */
    uint64_t kb = 0;
    for (uint64_t i = 0; i < ni; i++) kb += p->b_input_density[i / 64] >> (i % 64) & 1;
    size_t nc = (na + PREP_CHUNK - 1) / PREP_CHUNK;
    uint64_t small[2 * 64], *off = nc <= 64 ? small : malloc(2 * nc * sizeof(uint64_t));
    if (!off) return err_set(CUZK_ENOMEM, "CUDA backend: cannot allocate %zu chunk offsets", nc);
    compact_job j = {p, a, b, off, off + nc, 0};
    threadpool_parallel_for(tp, nc, compact_chunk, &j);
    uint64_t ka = ni;
    for (size_t c = 0; c < nc; c++) { /* counts -> first indices */
        uint64_t ca = off[c], cb = off[nc + c];
        off[c] = ka;
        off[nc + c] = kb;
        ka += ca;
        kb += cb;
    }
    if (ka != cap_a || kb != cap_b) { /* the densities changed since submit checked them */
        if (off != small) free(off);
        return err_set(CUZK_EINVAL, "partition's densities select %llu A and %llu B scalars, the key has %llu and %llu",
                       (unsigned long long)ka, (unsigned long long)kb, (unsigned long long)cap_a,
                       (unsigned long long)cap_b);
    }
    memcpy(a, p->inputs, ni * sizeof(fr_t));
    for (uint64_t i = 0, k = 0; i < ni; i++)
        if (p->b_input_density[i / 64] >> (i % 64) & 1) memcpy(&b[k++], &p->inputs[i], sizeof(fr_t));
    j.pass = 1;
    threadpool_parallel_for(tp, nc, compact_chunk, &j);
    if (off != small) free(off);
    *n_a = ka;
    *n_b = kb;
    return CUZK_OK;
}
