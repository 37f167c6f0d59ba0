/*
 * Resident MSM bases on the simulated device (simgpu.h): upload, generation, precomputed
 * copies (charged, not made), download; and the two scalar scans the backend runs on the
 * device (msm_gpu_pieces_nonzero, msm_gpu_count_classes).
 */
#include "simgpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cuzk.h"
#include "error.h"
#include "field/field.h"
#include "sim_msm.h"

size_t sim_msm_point_bytes(int curve) { return curve == MSM_CURVE_G1 ? sizeof(g1_aff) : sizeof(g2_aff); }

/* An accumulator of the device's generation kernel (xyzz<F>): what its scratch takes a point. */
static size_t xyzz_bytes(int curve) { return 2 * sim_msm_point_bytes(curve); }

/* A transient device allocation (a kernel's scratch): it needs the room while it lasts. */
static int transient(int dev, size_t bytes, const char *what)
{
    int rc = sim_charge(dev, bytes, what);
    if (rc == CUZK_OK) sim_uncharge(dev, bytes);
    return rc;
}

/* gpu_malloc on dev, its failure worded as the device's allocation (tests look for the call). */
static int dev_alloc(void **p, int dev, size_t bytes, const char *what)
{
    int rc = gpu_set_device(dev);
    if (rc) return rc;
    if ((rc = gpu_malloc(p, bytes))) {
        char why[256];
        snprintf(why, sizeof why, "%s", err_detail());
        return err_set(rc, "%s: %zu bytes (cudaMallocFromPoolAsync): %s", what, bytes, why);
    }
    return CUZK_OK;
}

size_t msm_gpu_bases_count(const msm_gpu_bases *b) { return b ? b->n : 0; }

const void *msm_gpu_bases_data(const msm_gpu_bases *b) { return b ? b->d : NULL; }

static int bases_alloc(msm_gpu_bases **out, int device, int curve, size_t n)
{
    *out = NULL;
    if (curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2)
        return err_set(CUZK_EINVAL, "msm bases: curve %d (1 = G1, 2 = G2)", curve);
    if (n == 0 || n > 0x7fffffffu) return err_set(CUZK_EINVAL, "msm bases: %zu points", n);
    msm_gpu_bases *b = calloc(1, sizeof *b);
    if (!b) return err_set(CUZK_ENOMEM, "msm bases");
    b->device = device, b->curve = curve, b->n = n, b->copies = 1;
    int rc = dev_alloc(&b->d, device, n * sim_msm_point_bytes(curve), "msm bases");
    if (rc) {
        free(b);
        return rc;
    }
    *out = b;
    return CUZK_OK;
}

void msm_gpu_bases_free(msm_gpu_bases *b)
{
    if (!b) return;
    gpu_free(b->d);
    if (b->pre_bytes) sim_uncharge(b->device, b->pre_bytes);
    free(b);
}

int msm_gpu_bases_upload(msm_gpu_bases **out, int device, int curve, const void *affine, size_t n)
{
    int rc = bases_alloc(out, device, curve, n);
    if (rc) return rc;
    memcpy((*out)->d, affine, n * sim_msm_point_bytes(curve));
    return CUZK_OK;
}

int msm_gpu_bases_download(const msm_gpu_bases *b, size_t first, size_t count, void *out)
{
    if (!b || first > b->n || count > b->n - first)
        return err_set(CUZK_EINVAL, "msm_gpu_bases_download: [%zu, +%zu) of %zu", first, count, b ? b->n : 0);
    int rc = gpu_set_device(b->device);
    if (rc) return rc;
    const size_t pb = sim_msm_point_bytes(b->curve);
    memcpy(out, (const char *)b->d + first * pb, count * pb);
    return CUZK_OK;
}

/* ---- generation: bases[i] = (a + (i + 1)·b)·gen ---- */

/* k·P for a 128-bit k (canonical: far below r). */
static void mul128(int curve, sim_msm_jac *r, const sim_msm_jac *p, unsigned __int128 k)
{
    fr_t s = {{(uint64_t)k, (uint64_t)(k >> 64), 0, 0}};
    if (curve == MSM_CURVE_G1) g1_jac_mul(&r->g1, &p->g1, &s);
    else g2_jac_mul(&r->g2, &p->g2, &s);
}

/* Points first .. first + count of the sequence into out (affine): the first by one scalar
 * multiplication, the rest by adding b·gen, each slice to affine with one inversion. The
 * multipliers wrap at 2^128 as the device kernel's do. */
#define GEN_SLICE 4096
static int generate_host(void *out, int curve, size_t first, size_t count, const void *gen, uint64_t a, uint64_t b)
{
    const int g1 = curve == MSM_CURVE_G1;
    const size_t jb = g1 ? sizeof(g1_jac) : sizeof(g2_jac), pb = sim_msm_point_bytes(curve);
    uint8_t *jac = malloc(GEN_SLICE * jb);
    if (!jac) return err_set(CUZK_ENOMEM, "msm bases: generation scratch");
    sim_msm_jac g, step, acc;
    if (g1) g1_jac_from_aff(&g.g1, gen);
    else g2_jac_from_aff(&g.g2, gen);
    mul128(curve, &step, &g, b);
    mul128(curve, &acc, &g, (unsigned __int128)a + (unsigned __int128)(first + 1) * b);
    for (size_t s0 = 0; s0 < count; s0 += GEN_SLICE) {
        const size_t m = count - s0 < GEN_SLICE ? count - s0 : GEN_SLICE;
        for (size_t j = 0; j < m; j++) {
            if (s0 + j) sim_msm_add(curve, &acc, &step);
            memcpy(jac + j * jb, g1 ? (const void *)&acc.g1 : (const void *)&acc.g2, jb);
        }
        if (g1) g1_batch_to_aff((g1_aff *)((uint8_t *)out + s0 * pb), (const g1_jac *)jac, m);
        else g2_batch_to_aff((g2_aff *)((uint8_t *)out + s0 * pb), (const g2_jac *)jac, m);
    }
    free(jac);
    return CUZK_OK;
}

int msm_gpu_bases_generate_into(void *d_out, int curve, size_t first, size_t count, const void *gen, uint64_t a,
                                uint64_t b)
{
    if (!gen || !d_out || b == 0) return err_set(CUZK_EINVAL, "msm_gpu_bases_generate_into: no output, generator or b = 0");
    if (curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2) return err_set(CUZK_EINVAL, "msm bases: curve %d", curve);
    if (!count) return CUZK_OK;
    /* the kernel's scratch (slices of 2^22 accumulators) and its one step point */
    const size_t slice = (size_t)1 << 22, sp = count < slice ? count : slice;
    int rc = transient(sim_current_device(), sp * xyzz_bytes(curve) + sim_msm_point_bytes(curve),
                       "generating bases (scratch)");
    return rc ? rc : generate_host(d_out, curve, first, count, gen, a, b);
}

int msm_gpu_bases_generate(msm_gpu_bases **out, int device, int curve, size_t n, const void *gen, uint64_t a,
                           uint64_t b)
{
    if (!gen || b == 0) return err_set(CUZK_EINVAL, "msm_gpu_bases_generate: no generator or b = 0");
    int rc = bases_alloc(out, device, curve, n);
    if (rc) return rc;
    if ((rc = msm_gpu_bases_generate_into((*out)->d, curve, 0, n, gen, a, b))) {
        msm_gpu_bases_free(*out);
        *out = NULL;
    }
    return rc;
}

/* ---- precomputed copies: the device's memory, not its points ---- */

static unsigned windows_of(unsigned c) { return (256 + c - 1) / c; }

size_t msm_gpu_precompute_bytes(int curve, size_t n, unsigned copies)
{
    return copies <= 1 ? 0 : (size_t)(copies - 1) * n * sim_msm_point_bytes(curve);
}

unsigned msm_gpu_bases_copies(const msm_gpu_bases *b, unsigned *window_bits)
{
    if (window_bits) *window_bits = b && b->copies > 1 ? b->pre_c : 0;
    return b && b->copies > 1 ? b->copies : 1;
}

/* The plan's window for n points lives in C++ (msm_plan.cuh's cost model); its estimate
 * reports it: a whole run's merge buffer (MSM_PART_MERGE) is one window's buckets,
 * xyzz·2^(c-1) bytes plus the pool's 256, at exactly the window msm_gpu_bases_precompute
 * takes. */
unsigned sim_msm_choose_window(int curve, size_t n)
{
    msm_scratch_parts p;
    msm_gpu_scratch_parts(curve, n, 0, 0, 0, 1, MSM_ACC_XYZZ, &p);
    const size_t m = p.part[MSM_PART_MERGE], P = xyzz_bytes(curve);
    if (m <= 256 || (m - 256) % P) return 0;
    const size_t B = (m - 256) / P;
    if (B & (B - 1)) return 0;
    unsigned c = 1;
    while (((size_t)1 << (c - 1)) < B) c++;
    return c;
}

int msm_gpu_bases_precompute(msm_gpu_bases *b, unsigned copies, unsigned window_bits)
{
    if (!b) return err_set(CUZK_EINVAL, "msm_gpu_bases_precompute: NULL bases");
    int rc = gpu_set_device(b->device);
    if (rc) return rc;
    /* the old copies go first: a failure leaves plain bases */
    if (b->pre_bytes) sim_uncharge(b->device, b->pre_bytes);
    b->pre_bytes = 0, b->copies = 1, b->pre_c = 0;
    if (copies <= 1) return CUZK_OK;
    const unsigned c = window_bits ? window_bits : sim_msm_choose_window(b->curve, b->n);
    if (c >= 4 && c <= 22 && copies <= windows_of(c)) { /* copies that would hold no window are not made */
        const unsigned g = (windows_of(c) + copies - 1) / copies;
        copies = (windows_of(c) + g - 1) / g;
    }
    if (c < 4 || c > 22 || copies > windows_of(c))
        return err_set(CUZK_EINVAL, "msm_gpu_bases_precompute: %u copies of %u-bit windows (4..22 bits, at most "
                       "one copy per window)", copies, c);
    if ((double)copies * (double)b->n >= 2147483648.0)
        return err_set(CUZK_EINVAL, "msm_gpu_bases_precompute: %u copies of %zu points (at most 2^31 - 1 in all)",
                       copies, b->n);
    const size_t bytes = msm_gpu_precompute_bytes(b->curve, b->n, copies);
    if ((rc = sim_charge(b->device, bytes, "precomputed copies of msm bases (cudaMallocFromPoolAsync)"))) return rc;
    /* the shift kernel's scratch (slices of 2^22 accumulators) beside them */
    const size_t slice = (size_t)1 << 22, sp = b->n < slice ? b->n : slice;
    if ((rc = transient(b->device, sp * xyzz_bytes(b->curve), "precomputing shifted bases (scratch)"))) {
        sim_uncharge(b->device, bytes);
        return rc;
    }
    b->pre_bytes = bytes, b->copies = copies, b->pre_c = c;
    return CUZK_OK;
}

/* ---- scans of device scalars ---- */

int msm_gpu_pieces_nonzero(const void *d_scalars, size_t n, size_t piece, uint8_t *d_flags, void *stream)
{
    (void)stream;
    if (!piece || (n && (!d_scalars || !d_flags))) return err_set(CUZK_EINVAL, "msm_gpu_pieces_nonzero: bad argument");
    if (!n) return CUZK_OK;
    memset(d_flags, 0, (n + piece - 1) / piece);
    const uint64_t *s = d_scalars;
    for (size_t i = 0; i < n; i++)
        if (s[4 * i] | s[4 * i + 1] | s[4 * i + 2] | s[4 * i + 3]) d_flags[i / piece] = 1;
    return CUZK_OK;
}

int msm_gpu_count_classes(const void *d_scalars, size_t n, int scalar_form, uint32_t *d_counts, void *stream)
{
    (void)stream;
    if ((n && !d_scalars) || !d_counts) return err_set(CUZK_EINVAL, "msm_gpu_count_classes: NULL argument");
    if (scalar_form != 0 && scalar_form != 1)
        return err_set(CUZK_EINVAL, "msm_gpu_count_classes: scalar form %d (0 Montgomery, 1 canonical)", scalar_form);
    if (!n) return CUZK_OK;
    uint32_t c[2];
    msm_count_classes_host(d_scalars, n, scalar_form, c);
    d_counts[0] += c[0]; /* adds, as the kernel's atomics do: several MSMs' counts in one read-back */
    d_counts[1] += c[1];
    return CUZK_OK;
}
