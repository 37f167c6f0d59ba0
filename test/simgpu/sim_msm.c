/*
 * kernels/msm.h's MSMs on the simulated device (simgpu.h): each sum by the CPU MSM (lib/msm),
 * so the CUDA backend's proofs equal the CPU backend's; the arguments checked, deferred sums
 * held back until collected, and the device memory each run would take charged first
 * (sim_msm_ctx.c), so a run that would not fit on the device fails here too.
 */
#include "simgpu.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/cuzk.h"
#include "error.h"
#include "field/field.h"
#include "msm/msm_cpu.h"
#include "sim_msm.h"

/* Montgomery scalars are converted in slices of this many (a bounded host buffer); each slice's
 * MSM is added to the sum. */
#define SUM_SLICE ((size_t)1 << 20)

void sim_msm_add(int curve, sim_msm_jac *acc, const sim_msm_jac *p)
{
    if (curve == MSM_CURVE_G1) g1_jac_add(&acc->g1, &acc->g1, &p->g1);
    else g2_jac_add(&acc->g2, &acc->g2, &p->g2);
}

static void set_inf(int curve, sim_msm_jac *p)
{
    if (curve == MSM_CURVE_G1) g1_jac_set_inf(&p->g1);
    else g2_jac_set_inf(&p->g2);
}

static void cpu_msm(int curve, sim_msm_jac *out, const void *bases, const fr_t *k, size_t n)
{
    /* one thread: the backend's worker slots already run side by side on the host's cores */
    if (curve == MSM_CURVE_G1) msm_g1(&out->g1, bases, k, n, NULL);
    else msm_g2(&out->g2, bases, k, n, NULL);
}

void sim_msm_sum(int curve, const void *bases, const void *scalars, size_t n, int form, sim_msm_jac *out)
{
    const fr_t *k = scalars;
    if (form == CUZK_FR_CANONICAL || !n) {
        cpu_msm(curve, out, bases, k, n); /* the CPU MSM takes canonical scalars as they are */
        return;
    }
    const size_t pb = sim_msm_point_bytes(curve), sl = n < SUM_SLICE ? n : SUM_SLICE;
    fr_t *c = malloc(sl * sizeof *c);
    set_inf(curve, out);
    for (size_t i0 = 0; i0 < n; i0 += sl) {
        const size_t m = n - i0 < sl ? n - i0 : sl;
        sim_msm_jac part;
        if (!c) { /* no host memory for a slice: one scalar at a time */
            for (size_t i = i0; i < i0 + m; i++) {
                fr_t one;
                fr_from_mont(&one, &k[i]);
                cpu_msm(curve, &part, (const uint8_t *)bases + i * pb, &one, 1);
                sim_msm_add(curve, out, &part);
            }
            continue;
        }
        for (size_t i = 0; i < m; i++) fr_from_mont(&c[i], &k[i0 + i]);
        cpu_msm(curve, &part, (const uint8_t *)bases + i0 * pb, c, m);
        sim_msm_add(curve, out, &part);
    }
    free(c);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The stats of a run the CPU summed: the counts and the accumulation its plan would take;
 * the window plan is the device's alone (no window, one "group"). */
static msm_gpu_stats stats_of(const msm_gpu_ctx *c, size_t n, size_t n_one, size_t n_rest, unsigned copies,
                              unsigned pauses, double ms)
{
    msm_gpu_stats st;
    memset(&st, 0, sizeof st);
    st.device_ms = (float)ms;
    st.window_groups = n_rest ? 1 : 0;
    st.pauses = pauses;
    st.copies = copies;
    st.acc = c->acc != MSM_ACC_AUTO ? (uint32_t)c->acc : n_rest >= c->pair_min ? MSM_ACC_PAIRWISE : MSM_ACC_XYZZ;
    st.reduce = c->reduce == MSM_REDUCE_SEGMUL ? MSM_REDUCE_SEGMUL : MSM_REDUCE_LEVELS;
    st.n_one = n_one, st.n_rest = n_rest, st.n_zero = n - n_one - n_rest;
    return st;
}

/* Drops what is pending after an error: nothing more reaches the outputs (msm.cu's run_failed). */
static int run_failed(msm_gpu_ctx *c, int rc)
{
    c->npend = 0;
    c->known = 0;
    return rc;
}

void msm_gpu_ctx_discard(msm_gpu_ctx *c)
{
    if (!c) return;
    c->known = 0;
    c->npend = 0;
}

int msm_gpu_ctx_collect(msm_gpu_ctx *c)
{
    if (!c) return err_set(CUZK_EINVAL, "msm_gpu_ctx_collect: NULL context");
    for (unsigned i = 0; i < c->npend; i++) {
        const sim_msm_pending *p = &c->pend[i];
        if (p->curve == MSM_CURVE_G1) memcpy(p->out, &p->sum.g1, sizeof p->sum.g1);
        else memcpy(p->out, &p->sum.g2, sizeof p->sum.g2);
        c->last = p->st;
    }
    c->npend = 0;
    return CUZK_OK;
}

/* The device's landing slots for sums (MSM_GPU_DEFERRED) all taken. */
static int slots_full(const msm_gpu_ctx *c)
{
    if (c->npend < MSM_GPU_DEFERRED) return CUZK_OK;
    return err_set(CUZK_EINVAL, "msm: more than %d runs before msm_gpu_ctx_collect", MSM_GPU_DEFERRED);
}

/* A finished sum into the next pending slot (slots_full said there is one). */
static void enqueue(msm_gpu_ctx *c, int curve, const sim_msm_jac *sum, const msm_gpu_stats *st, void *out)
{
    c->pend[c->npend++] = (sim_msm_pending){curve, out, *sum, *st};
}

/* The gate between window groups: here once a run or piece, before its sum (pacing of urgent
 * work needs a pass inside every long MSM, not where). */
static int gate_pass(const msm_gpu_ctx *c, unsigned *pauses)
{
    if (!c->gate) return CUZK_OK;
    ++*pauses;
    return gpu_gate_pass(c->gate, c->stream);
}

/* msm.cu's run_enqueue: the same checks in the same order, then the memory, then the sum. */
static int run_enqueue(msm_gpu_ctx *c, const msm_gpu_bases *bases, size_t first, const void *scalars, size_t n,
                       int scalar_form, int scalars_where, void *out)
{
    if (!c) return err_set(CUZK_EINVAL, "msm_gpu_run: NULL context");
    const int known = c->known; /* the counts set for this run, used by it or by none */
    const uint32_t known_one = c->known_one, known_rest = c->known_rest;
    c->known = 0;
    if (!bases || !out || (n && !scalars)) return err_set(CUZK_EINVAL, "msm_gpu_run: NULL argument");
    if (known && known_one + (uint64_t)known_rest > n)
        return err_set(CUZK_EINVAL, "msm_gpu_run: %u ones and %u others among %zu scalars", known_one, known_rest, n);
    if (scalar_form != 0 && scalar_form != 1)
        return err_set(CUZK_EINVAL, "msm_gpu_run: scalar form %d (0 Montgomery, 1 canonical)", scalar_form);
    if (bases->device != c->device)
        return err_set(CUZK_EINVAL, "msm_gpu_run: bases on device %d, context on device %d", bases->device, c->device);
    if (first > bases->n || n > bases->n - first)
        return err_set(CUZK_EINVAL, "msm_gpu_run: %zu scalars from base %zu, but only %zu bases", n, first, bases->n);
    if (n > 0x7fffffffu) return err_set(CUZK_EINVAL, "msm_gpu_run: %zu points (at most 2^31 - 1)", n);
    if (scalars_where == MSM_SCALARS_DEVICE && ((uintptr_t)scalars & 15))
        return err_set(CUZK_EINVAL, "msm_gpu_run: device scalars must be 16-byte aligned");
    int rc = gpu_set_device(c->device);
    if (rc) return rc;
    const double t0 = now_ms();
    if (scalars_where != MSM_SCALARS_DEVICE && n && (rc = sim_msm_ctx_grow_scalars(c, n))) return rc;
    uint32_t cnt[2] = {known_one, known_rest};
    if (!known) msm_count_classes_host(scalars, n, scalar_form, cnt);
    /* the copies where the run may take them (the plan's cost model decides there; a forced
     * run is sized as the model decides) */
    const int pre = bases->copies > 1 && c->pre_mode != MSM_PRE_OFF;
    unsigned pauses = 0;
    /* the landing slot is checked after the plan's memory, as there */
    if ((rc = sim_msm_ctx_grow(c, bases->curve, n, cnt[0], cnt[1], 0, 0, pre ? bases->copies : 1,
                               pre ? bases->pre_c : 0)) ||
        (rc = slots_full(c)) || (rc = gate_pass(c, &pauses)))
        return run_failed(c, rc);
    sim_msm_jac sum;
    const size_t pb = sim_msm_point_bytes(bases->curve);
    sim_msm_sum(bases->curve, (const uint8_t *)bases->d + first * pb, scalars, n, scalar_form, &sum);
    /* the copies a forced run sums over; the cost model's choice is the device's alone */
    const unsigned copies = pre && c->pre_mode == MSM_PRE_FORCE && cnt[1] ? bases->copies : 1;
    const msm_gpu_stats st = stats_of(c, n, cnt[0], cnt[1], copies, pauses, now_ms() - t0);
    enqueue(c, bases->curve, &sum, &st, out);
    return CUZK_OK;
}

int msm_gpu_run(msm_gpu_ctx *c, const msm_gpu_bases *bases, size_t first, const void *scalars, size_t n,
                int scalar_form, int scalars_where, void *out)
{
    int rc = run_enqueue(c, bases, first, scalars, n, scalar_form, scalars_where, out);
    return rc ? rc : msm_gpu_ctx_collect(c);
}

int msm_gpu_run_deferred(msm_gpu_ctx *c, const msm_gpu_bases *bases, size_t first, const void *d_scalars, size_t n,
                         int scalar_form, void *out)
{
    return run_enqueue(c, bases, first, d_scalars, n, scalar_form, MSM_SCALARS_DEVICE, out);
}

/* ---- an MSM accumulated over pieces ---- */

int msm_gpu_acc_begin(msm_gpu_ctx *c, int curve, size_t n_total, int scalar_form, int persist, size_t bucket_bytes_max)
{
    (void)n_total; /* the sizing takes the pieces' total at end (below) */
    if (!c) return err_set(CUZK_EINVAL, "msm_gpu_acc_begin: NULL context");
    if (curve != MSM_CURVE_G1 && curve != MSM_CURVE_G2) return err_set(CUZK_EINVAL, "msm_gpu_acc_begin: curve %d", curve);
    if (scalar_form != 0 && scalar_form != 1)
        return err_set(CUZK_EINVAL, "msm_gpu_acc_begin: scalar form %d (0 Montgomery, 1 canonical)", scalar_form);
    int rc = gpu_set_device(c->device);
    if (rc) return rc;
    c->acc_curve = curve;
    c->acc_form = scalar_form;
    set_inf(curve, &c->acc_sum);
    c->acc_n = c->acc_piece = c->acc_one = c->acc_rest = 0;
    c->acc_pauses = 0;
    c->acc_shared = persist ? bucket_bytes_max : 0;
    return CUZK_OK;
}

/* Memory of pieces: the sizing runs an accumulated MSM only whole, its scalars' classes spread
 * over the pieces by a rule, where the device's pieces each have their own. So each piece is
 * sized as a one-piece accumulation of its own counts (exact for its index lists and ones, and
 * for the rest where its window is the one the first piece fixed), and at the end the whole
 * MSM as pieces of the largest one with its counts spread evenly (spread 1: the plan's
 * window fixed by an average piece, as the scratch tests model the backend's pieces). */
int msm_gpu_acc_add(msm_gpu_ctx *c, const void *d_bases, const void *d_scalars, size_t n)
{
    if (!c || !c->acc_curve) return err_set(CUZK_EINVAL, "msm_gpu_acc_add: no msm_gpu_acc_begin on this context");
    if (!n) return CUZK_OK;
    if (!d_bases || !d_scalars) return err_set(CUZK_EINVAL, "msm_gpu_acc_add: NULL device buffer");
    if (n > 0x7fffffffu) return err_set(CUZK_EINVAL, "msm_gpu_acc_add: %zu points (at most 2^31 - 1)", n);
    if ((uintptr_t)d_scalars & 15) return err_set(CUZK_EINVAL, "msm_gpu_acc_add: device scalars must be 16-byte aligned");
    uint32_t cnt[2];
    msm_count_classes_host(d_scalars, n, c->acc_form, cnt);
    int rc = sim_msm_ctx_grow(c, c->acc_curve, n, cnt[0], cnt[1], n, c->acc_shared, 1, 0);
    if (!rc) rc = gate_pass(c, &c->acc_pauses);
    if (rc) {
        c->acc_curve = 0;
        return rc;
    }
    sim_msm_jac part;
    sim_msm_sum(c->acc_curve, d_bases, d_scalars, n, c->acc_form, &part);
    sim_msm_add(c->acc_curve, &c->acc_sum, &part);
    c->acc_n += n, c->acc_one += cnt[0], c->acc_rest += cnt[1];
    if (n > c->acc_piece) c->acc_piece = n;
    return CUZK_OK;
}

int msm_gpu_acc_end(msm_gpu_ctx *c, void *out)
{
    if (!c || !c->acc_curve || !out) return err_set(CUZK_EINVAL, "msm_gpu_acc_end: no MSM in progress");
    const int curve = c->acc_curve;
    c->acc_curve = 0;
    int rc = c->acc_n ? sim_msm_ctx_grow(c, curve, c->acc_n, c->acc_one, c->acc_rest, c->acc_piece, c->acc_shared, 1, 0)
                      : CUZK_OK;
    if (rc) return run_failed(c, rc);
    const msm_gpu_stats st = stats_of(c, c->acc_n, c->acc_one, c->acc_rest, 1, c->acc_pauses, 0);
    if ((rc = slots_full(c))) return run_failed(c, rc);
    enqueue(c, curve, &c->acc_sum, &st, out);
    return msm_gpu_ctx_collect(c);
}
