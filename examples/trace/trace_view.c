/*
 * Trace analysis (trace_view.h): the event log, busy % as the union of stage intervals over a
 * window, gaps between consecutive partitions on a device, per-stage medians, and the text
 * summary. The drawings are in trace_draw.c, the JSON Lines reader and writer in trace_jsonl.c.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_view.h"

static const char *kind_names[] = {
    [CUZK_TRACE_SUBMIT] = "submit", [CUZK_TRACE_QUEUE_WAIT] = "queue wait",
    [CUZK_TRACE_BUDGET_WAIT] = "budget wait", [CUZK_TRACE_H2D_COPY] = "copy to device",
    [CUZK_TRACE_NTT_INTT] = "iNTT", [CUZK_TRACE_NTT_COSET] = "coset NTT",
    [CUZK_TRACE_NTT_COSET_INTT] = "coset iNTT", [CUZK_TRACE_H_STEP] = "H step",
    [CUZK_TRACE_MSM_H] = "MSM H", [CUZK_TRACE_MSM_L] = "MSM L", [CUZK_TRACE_MSM_A] = "MSM A",
    [CUZK_TRACE_MSM_B_G1] = "MSM B_G1", [CUZK_TRACE_MSM_B_G2] = "MSM B_G2", [CUZK_TRACE_MSM_ALL] = "MSMs",
    [CUZK_TRACE_ASSEMBLY] = "assembly", [CUZK_TRACE_VERIFY] = "self-check", [CUZK_TRACE_RELEASE] = "release",
    [CUZK_TRACE_ARENA_TRIM] = "arena collect", [CUZK_TRACE_DEVICE_IDLE] = "worker idle",
    [CUZK_TRACE_START] = "partition (worker)", [CUZK_TRACE_FINISH] = "finish (finisher)",
    [CUZK_TRACE_RESULT] = "result", [CUZK_TRACE_HOST_PREP] = "host prep", [CUZK_TRACE_CS_EVAL] = "a,b,c evaluation",
};
#define NKINDS ((int)(sizeof kind_names / sizeof kind_names[0]))

const char *tv_kind_name(int32_t k) { return k > 0 && k < NKINDS && kind_names[k] ? kind_names[k] : "?"; }

/* The stages a device runs (CUDA-event times on a GPU; the worker's own times on the CPU). */
static int is_stage(int32_t k) { return k >= CUZK_TRACE_H2D_COPY && k <= CUZK_TRACE_MSM_ALL; }
/* Those that keep a GPU's arithmetic busy: host-to-device copies run beside them on the copy
 * engines, so they count neither as busy time nor as the start of a partition's device work. */
static int is_compute(int32_t k) { return k > CUZK_TRACE_H2D_COPY && k <= CUZK_TRACE_MSM_ALL; }

void tv_collect(const cuzk_trace_event *ev, void *user)
{
    tv_log *l = user;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4096;
        cuzk_trace_event *n = realloc(l->ev, cap * sizeof *n);
        if (!n) {
            l->lost++;
            return;
        }
        l->ev = n;
        l->cap = cap;
    }
    l->ev[l->n++] = *ev;
}

void tv_free(tv_log *l)
{
    free(l->ev);
    memset(l, 0, sizeof *l);
}

typedef struct {
    uint64_t key, b, e;
} span;

static int cmp_begin(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return (a->b > b->b) - (a->b < b->b);
}

static int cmp_key(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return (a->key > b->key) - (a->key < b->key);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* For an even n the mean of the two middle values: the textbook median, symmetric (the upper
 * middle alone leans slow). The one median of cuzk demo, cuzk trace and cuzk-bench, so the same
 * events give the same figure in each. */
double tv_median(double *v, size_t n)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double pct(const double *v, size_t n, double q) /* nearest rank; v sorted */
{
    if (!n) return 0;
    size_t k = (size_t)(q * (double)n + 0.999999);
    if (k < 1) k = 1;
    if (k > n) k = n;
    return v[k - 1];
}

/* Sorts sp by begin; the union's length, and the longest hole inside [first begin, last end]. */
static uint64_t union_ns(span *sp, size_t n, uint64_t *lo, uint64_t *hi, uint64_t *hole)
{
    *lo = *hi = *hole = 0;
    if (!n) return 0;
    qsort(sp, n, sizeof *sp, cmp_begin);
    uint64_t busy = 0, cb = sp[0].b, ce = sp[0].e;
    *lo = sp[0].b;
    for (size_t i = 0; i < n; i++) {
        if (sp[i].e > *hi) *hi = sp[i].e;
        if (sp[i].b > ce) {
            busy += ce - cb;
            if (sp[i].b - ce > *hole) *hole = sp[i].b - ce;
            cb = sp[i].b;
            ce = sp[i].e;
        } else if (sp[i].e > ce) ce = sp[i].e;
    }
    return busy + (ce - cb);
}

/* Groups spans by key (a job) into one span per key, from its first begin to its last end. */
static size_t per_key(span *sp, size_t n)
{
    if (!n) return 0;
    qsort(sp, n, sizeof *sp, cmp_key);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && sp[m - 1].key == sp[i].key) {
            if (sp[i].b < sp[m - 1].b) sp[m - 1].b = sp[i].b;
            if (sp[i].e > sp[m - 1].e) sp[m - 1].e = sp[i].e;
        } else sp[m++] = sp[i];
    }
    return m;
}

/* Events of a partition (job != 0) whose user_tag is in range; idle and housekeeping events
 * belong to no partition and are left out of every figure. */
static int measured(const cuzk_trace_event *e, uint64_t lo, uint64_t hi)
{
    return e->job && e->user_tag >= lo && e->user_tag <= hi;
}

/* One device: its busy %, window, longest hole, and the gaps between partitions (from the end of
 * everything before to a partition's first stage). dev -1: the CPU workers' partitions. */
static void device_figures(const tv_log *l, uint64_t lo, uint64_t hi, int dev, span *sp, double *gaps,
                           tv_summary *s, int d)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const cuzk_trace_event *e = &l->ev[i];
        if (!measured(e, lo, hi) || e->device != dev || e->end_ns <= e->begin_ns) continue;
        if (dev >= 0 ? !is_compute(e->kind) : e->kind != CUZK_TRACE_START) continue;
        sp[n++] = (span){e->job, e->begin_ns, e->end_ns};
    }
    uint64_t a, b, hole, busy = union_ns(sp, n, &a, &b, &hole);
    s->dev[d] = dev;
    s->dev_window_ms[d] = (double)(b - a) / 1e6;
    s->busy_pct[d] = b > a ? 100.0 * (double)busy / (double)(b - a) : 0;
    s->hole_max_ms[d] = (double)hole / 1e6;
    size_t nj = per_key(sp, n), ng = 0;
    qsort(sp, nj, sizeof *sp, cmp_begin);
    uint64_t end = nj ? sp[0].e : 0;
    for (size_t i = 1; i < nj; i++) {
        gaps[ng++] = sp[i].b > end ? (double)(sp[i].b - end) / 1e6 : 0;
        if (sp[i].e > end) end = sp[i].e;
    }
    qsort(gaps, ng, sizeof *gaps, cmp_double);
    s->gap_p50_ms[d] = pct(gaps, ng, 0.5);
    s->gap_p99_ms[d] = pct(gaps, ng, 0.99);
    s->gap_max_ms[d] = ng ? gaps[ng - 1] : 0;
}

/* Length of [b, e) covered by u[0..n), disjoint spans sorted by begin. */
static uint64_t covered(const span *u, size_t n, uint64_t b, uint64_t e)
{
    size_t lo = 0, hi = n; /* the first span ending after b */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (u[mid].e <= b) lo = mid + 1;
        else hi = mid;
    }
    uint64_t t = 0;
    for (size_t i = lo; i < n && u[i].b < e; i++) t += (u[i].e < e ? u[i].e : e) - (u[i].b > b ? u[i].b : b);
    return t;
}

/* stage_copy_pct: per device, its copies' union (any partition's: PCIe busy is busy), then each
 * measured compute stage's time under it. sp holds l->n + 1 spans. */
static void copy_overlap(const tv_log *l, uint64_t lo, uint64_t hi, span *sp, tv_summary *s)
{
    uint64_t in[TV_KINDS] = {0}, all[TV_KINDS] = {0};
    int copies[TV_KINDS] = {0};
    for (int d = 0; d < s->ndev; d++) {
        if (s->dev[d] < 0) continue;
        size_t n = 0;
        for (size_t i = 0; i < l->n; i++) {
            const cuzk_trace_event *e = &l->ev[i];
            if (e->kind == CUZK_TRACE_H2D_COPY && e->device == s->dev[d] && e->end_ns > e->begin_ns)
                sp[n++] = (span){0, e->begin_ns, e->end_ns};
        }
        if (!n) continue;
        qsort(sp, n, sizeof *sp, cmp_begin);
        size_t m = 0; /* merged in place */
        for (size_t i = 0; i < n; i++) {
            if (m && sp[i].b <= sp[m - 1].e) {
                if (sp[i].e > sp[m - 1].e) sp[m - 1].e = sp[i].e;
            } else sp[m++] = sp[i];
        }
        for (size_t i = 0; i < l->n; i++) {
            const cuzk_trace_event *e = &l->ev[i];
            if (!measured(e, lo, hi) || e->device != s->dev[d] || !is_compute(e->kind) || e->kind >= TV_KINDS ||
                e->end_ns <= e->begin_ns)
                continue;
            in[e->kind] += covered(sp, m, e->begin_ns, e->end_ns);
            all[e->kind] += e->end_ns - e->begin_ns;
            copies[e->kind] = 1;
        }
    }
    for (int k = 0; k < TV_KINDS; k++)
        s->stage_copy_pct[k] = copies[k] && all[k] ? 100.0 * (double)in[k] / (double)all[k] : -1;
}

void tv_analyze(const tv_log *l, uint64_t lo, uint64_t hi, tv_summary *s)
{
    memset(s, 0, sizeof *s);
    span *sp = malloc((l->n + 1) * sizeof *sp);
    double *v = malloc((l->n + 1) * sizeof *v);
    if (!sp || !v) goto out;
    uint64_t first = UINT64_MAX, last = 0;
    size_t n = 0;
    s->cpu = 1;
    for (size_t i = 0; i < l->n; i++) {
        const cuzk_trace_event *e = &l->ev[i];
        if (!measured(e, lo, hi)) continue;
        if (e->begin_ns < first) first = e->begin_ns;
        if (e->end_ns > last) last = e->end_ns;
        if (e->job) sp[n++] = (span){e->job, 0, 0};
        if (is_stage(e->kind) && e->device >= 0) {
            s->cpu = 0;
            int k = 0;
            while (k < s->ndev && s->dev[k] != e->device) k++;
            if (k == s->ndev && s->ndev < TV_MAX_DEV) s->dev[s->ndev++] = e->device;
        }
        if (e->kind == CUZK_TRACE_START && e->worker >= s->nworkers && e->worker < TV_MAX_WORKERS)
            s->nworkers = e->worker + 1;
    }
    s->partitions = per_key(sp, n);
    s->window_ms = last > first ? (double)(last - first) / 1e6 : 0;
    if (s->cpu) s->ndev = 1, s->dev[0] = -1;
    for (int d = 0; d < s->ndev; d++) device_figures(l, lo, hi, s->dev[d], sp, v, s, d);
    /* each worker's partitions over the window of all workers' partitions */
    uint64_t wlo = UINT64_MAX, whi = 0;
    for (size_t i = 0; i < l->n; i++) {
        const cuzk_trace_event *e = &l->ev[i];
        if (!measured(e, lo, hi) || e->kind != CUZK_TRACE_START) continue;
        if (e->begin_ns < wlo) wlo = e->begin_ns;
        if (e->end_ns > whi) whi = e->end_ns;
    }
    for (int w = 0; w < s->nworkers && whi > wlo; w++) {
        n = 0;
        for (size_t i = 0; i < l->n; i++) {
            const cuzk_trace_event *e = &l->ev[i];
            if (measured(e, lo, hi) && e->kind == CUZK_TRACE_START && e->worker == w)
                sp[n++] = (span){0, e->begin_ns, e->end_ns};
        }
        uint64_t a, b, hole;
        s->worker_busy_pct[w] = 100.0 * (double)union_ns(sp, n, &a, &b, &hole) / (double)(whi - wlo);
    }
    /* stage medians: per partition the summed time of each kind, median over partitions */
    for (int k = 1; k < NKINDS && k < TV_KINDS; k++) {
        n = 0;
        for (size_t i = 0; i < l->n; i++) {
            const cuzk_trace_event *e = &l->ev[i];
            if (e->kind == k && measured(e, lo, hi) && e->end_ns > e->begin_ns)
                sp[n++] = (span){e->job, 0, e->end_ns - e->begin_ns};
        }
        if (!n) continue;
        qsort(sp, n, sizeof *sp, cmp_key);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (i && sp[i].key == sp[i - 1].key) v[m - 1] += (double)sp[i].e / 1e6;
            else v[m++] = (double)sp[i].e / 1e6;
        }
        s->stage_med_ms[k] = tv_median(v, m);
        s->stage_n[k] = (int)m;
    }
    copy_overlap(l, lo, hi, sp, s);
out:
    free(sp);
    free(v);
}

void tv_print(FILE *f, const tv_summary *s, const char *in, int stages)
{
    fprintf(f, "%s%zu partitions over %.1f ms of trace\n", in, s->partitions, s->window_ms);
    for (int d = 0; d < s->ndev; d++) {
        if (s->dev[d] >= 0)
            fprintf(f, "%sGPU %d: busy %.2f %% of %.1f ms (union of its compute stages); gaps between partitions "
                       "p50 %.3f ms, p99 %.3f ms, max %.3f ms; longest idle stretch %.3f ms\n",
                    in, s->dev[d], s->busy_pct[d], s->dev_window_ms[d], s->gap_p50_ms[d], s->gap_p99_ms[d],
                    s->gap_max_ms[d], s->hole_max_ms[d]);
        else
            fprintf(f, "%sCPU workers: at least one busy %.2f %% of %.1f ms; gaps between partitions p50 %.3f ms, "
                       "max %.3f ms\n",
                    in, s->busy_pct[d], s->dev_window_ms[d], s->gap_p50_ms[d], s->gap_max_ms[d]);
    }
    for (int w = 0; w < s->nworkers; w++)
        fprintf(f, "%shost worker %d: busy %.1f %% (its partitions, over all workers' window)\n", in, w,
                s->worker_busy_pct[w]);
    if (!stages) return;
    fprintf(f, "%sstage medians per partition, ms (%s):\n", in,
            s->cpu ? "CPU backend: CPU time on the host clock, no device"
                   : "device stages are CUDA-event times, host stages the host clock");
    for (int k = 1; k < TV_KINDS; k++) {
        if (!s->stage_n[k]) continue;
        fprintf(f, "%s  %-20s %10.2f  (%d partitions)", in, tv_kind_name(k), s->stage_med_ms[k], s->stage_n[k]);
        if (s->stage_copy_pct[k] >= 0) fprintf(f, "  copies to the device during it %.1f %%", s->stage_copy_pct[k]);
        fputc('\n', f);
    }
}
