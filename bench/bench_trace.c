/*
 * The pipeline bench's trace analysis (bench_trace.h): device busy % as the union of device
 * stage intervals over the device's window, gaps between consecutive partitions' device spans,
 * per-stage medians, and the Chrome-trace / SVG writers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_trace.h"

static const char *kind_names[] = {
    [CUZK_TRACE_SUBMIT] = "submit", [CUZK_TRACE_QUEUE_WAIT] = "queue wait",
    [CUZK_TRACE_BUDGET_WAIT] = "budget wait", [CUZK_TRACE_H2D_COPY] = "copy L/A/B scalars",
    [CUZK_TRACE_NTT_INTT] = "iNTT", [CUZK_TRACE_NTT_COSET] = "coset NTT",
    [CUZK_TRACE_NTT_COSET_INTT] = "coset iNTT", [CUZK_TRACE_H_STEP] = "H step",
    [CUZK_TRACE_MSM_H] = "MSM H", [CUZK_TRACE_MSM_L] = "MSM L", [CUZK_TRACE_MSM_A] = "MSM A",
    [CUZK_TRACE_MSM_B_G1] = "MSM B_G1", [CUZK_TRACE_MSM_B_G2] = "MSM B_G2", [CUZK_TRACE_MSM_ALL] = "MSMs",
    [CUZK_TRACE_ASSEMBLY] = "assembly", [CUZK_TRACE_VERIFY] = "self-check", [CUZK_TRACE_RELEASE] = "release",
    [CUZK_TRACE_ARENA_TRIM] = "arena collect", [CUZK_TRACE_DEVICE_IDLE] = "worker idle",
    [CUZK_TRACE_START] = "start (worker)", [CUZK_TRACE_FINISH] = "finish (finisher)",
    [CUZK_TRACE_RESULT] = "result", [CUZK_TRACE_HOST_PREP] = "host prep",
};
#define NKINDS ((int)(sizeof kind_names / sizeof kind_names[0]))

const char *btrace_kind_name(int32_t k) { return k > 0 && k < NKINDS && kind_names[k] ? kind_names[k] : "?"; }

/* Device stages that keep the GPU's arithmetic busy (host-to-device copies run beside them on
 * the copy engines: counted separately, see bench_pipeline's copy figures). */
static int is_device_kind(int32_t k) { return k > CUZK_TRACE_H2D_COPY && k <= CUZK_TRACE_MSM_ALL; }

void btrace_collect(const cuzk_trace_event *ev, void *user)
{
    btrace_log *l = user;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4096;
        cuzk_trace_event *n = realloc(l->ev, cap * sizeof *n);
        if (!n) return;
        l->ev = n;
        l->cap = cap;
    }
    l->ev[l->n++] = *ev;
}

void btrace_result(btrace_log *l, const cuzk_result *r)
{
    double *n = realloc(l->device_ms, (l->nres + 1) * sizeof *n);
    if (!n) return;
    l->device_ms = n;
    l->device_ms[l->nres++] = (double)r->device_ns / 1e6;
}

void btrace_free(btrace_log *l)
{
    free(l->ev);
    free(l->device_ms);
    memset(l, 0, sizeof *l);
}

typedef struct { uint64_t b, e; } span;

static int cmp_span(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return (a->b > b->b) - (a->b < b->b);
}

static double pct(double *v, int n, double q) /* nearest rank, v sorted */
{
    if (n <= 0) return 0;
    int k = (int)(q * n + 0.999999);
    if (k < 1) k = 1;
    if (k > n) k = n;
    return v[k - 1];
}

/* "device" events of one device: its device-timed stages (CUDA), or worker starts (CPU). */
static int dev_event(const cuzk_trace_event *e, int dev, uint64_t parts)
{
    if (e->user_tag < 1 || e->user_tag > parts || e->device != dev) return 0;
    return dev >= 0 ? is_device_kind(e->kind) : e->kind == CUZK_TRACE_START;
}

void btrace_analyze(const btrace_log *l, uint64_t parts, btrace_summary *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < l->n; i++) { /* devices seen */
        const cuzk_trace_event *e = &l->ev[i];
        if (e->kind != CUZK_TRACE_START || e->user_tag < 1 || e->user_tag > parts) continue;
        int k = 0;
        while (k < s->ndev && s->dev[k] != e->device) k++;
        if (k == s->ndev && s->ndev < BTRACE_MAX_DEV) s->dev[s->ndev++] = e->device;
    }
    span *sp = malloc((l->n + 1) * sizeof *sp), *job = calloc(parts + 1, sizeof *job);
    double *gaps = malloc((parts + 1) * sizeof *gaps);
    for (int d = 0; d < s->ndev; d++) {
        size_t n = 0;
        for (uint64_t j = 0; j <= parts; j++) job[j].b = UINT64_MAX, job[j].e = 0;
        for (size_t i = 0; i < l->n; i++) {
            const cuzk_trace_event *e = &l->ev[i];
            if (!dev_event(e, s->dev[d], parts)) continue;
            sp[n++] = (span){e->begin_ns, e->end_ns};
            span *js = &job[e->user_tag];
            if (e->begin_ns < js->b) js->b = e->begin_ns;
            if (e->end_ns > js->e) js->e = e->end_ns;
        }
        if (!n) continue;
        qsort(sp, n, sizeof *sp, cmp_span);
        uint64_t busy = 0, cur_b = sp[0].b, cur_e = sp[0].e, lo = sp[0].b, hi = 0, hole = 0;
        for (size_t i = 0; i < n; i++) {
            if (sp[i].e > hi) hi = sp[i].e;
            if (sp[i].b > cur_e) {
                busy += cur_e - cur_b;
                if (sp[i].b - cur_e > hole) hole = sp[i].b - cur_e;
                cur_b = sp[i].b;
                cur_e = sp[i].e;
            } else if (sp[i].e > cur_e) cur_e = sp[i].e;
        }
        busy += cur_e - cur_b;
        s->window_ms[d] = (double)(hi - lo) / 1e6;
        s->busy_pct[d] = hi > lo ? 100.0 * (double)busy / (double)(hi - lo) : 0;
        s->hole_max_ms[d] = (double)hole / 1e6;
        /* gaps: partitions in order of their first device stage; a gap is the time from the
         * end of everything before to the next partition's first device stage */
        size_t nj = 0;
        for (uint64_t j = 1; j <= parts; j++)
            if (job[j].e) sp[nj++] = job[j];
        qsort(sp, nj, sizeof *sp, cmp_span);
        int ng = 0;
        uint64_t end = nj ? sp[0].e : 0;
        for (size_t i = 1; i < nj; i++) {
            gaps[ng++] = sp[i].b > end ? (double)(sp[i].b - end) / 1e6 : 0;
            if (sp[i].e > end) end = sp[i].e;
        }
        bench_median(gaps, ng); /* sorts */
        s->gap_p50_ms[d] = pct(gaps, ng, 0.5);
        s->gap_p99_ms[d] = pct(gaps, ng, 0.99);
        s->gap_max_ms[d] = ng ? gaps[ng - 1] : 0;
    }
    /* stage medians: per partition the summed time of each kind, median over partitions */
    double *v = malloc((parts + 1) * sizeof *v), *sum = malloc((parts + 1) * sizeof *sum);
    for (int k = 1; k < NKINDS && k < 32; k++) {
        memset(sum, 0, (parts + 1) * sizeof *sum);
        int seen = 0;
        for (size_t i = 0; i < l->n; i++) {
            const cuzk_trace_event *e = &l->ev[i];
            if (e->kind != k || e->user_tag < 1 || e->user_tag > parts) continue;
            sum[e->user_tag] += (double)(e->end_ns - e->begin_ns) / 1e6;
            seen = 1;
        }
        if (!seen) continue;
        int n = 0;
        for (uint64_t j = 1; j <= parts; j++) v[n++] = sum[j];
        s->stage_med_ms[k] = bench_median(v, n);
        s->stage_n[k] = n;
    }
    double *dm = malloc((l->nres + 1) * sizeof *dm);
    memcpy(dm, l->device_ms, l->nres * sizeof *dm);
    s->device_ms_med = bench_median(dm, (int)l->nres);
    s->parts_per_s = l->wall_ns ? (double)parts * 1e9 / (double)l->wall_ns : 0;
    free(dm);
    free(v);
    free(sum);
    free(sp);
    free(job);
    free(gaps);
}

void btrace_print(const btrace_summary *s, const btrace_log *l, int parts, int failures, int synthetic)
{
    printf("  %d partitions in %.3f s: %.3f partitions/s; %d failed; %s\n", parts, (double)l->wall_ns / 1e9,
           s->parts_per_s, failures, synthetic ? "proofs NOT verified (synthetic key)" : "every proof verified");
    printf("  median device time per partition (first -> last device stage): %.1f ms\n", s->device_ms_med);
    for (int d = 0; d < s->ndev; d++)
        printf("  device %d: busy %.2f %% of %.1f ms; gaps between partitions p50 %.3f ms, p99 %.3f ms, max %.3f ms; "
               "longest idle stretch %.3f ms\n",
               s->dev[d], s->busy_pct[d], s->window_ms[d], s->gap_p50_ms[d], s->gap_p99_ms[d], s->gap_max_ms[d],
               s->hole_max_ms[d]);
    printf("  stage medians per partition (ms; device stages are CUDA-event times):\n");
    for (int k = 1; k < 32; k++)
        if (s->stage_n[k]) printf("    %-22s %10.2f\n", btrace_kind_name(k), s->stage_med_ms[k]);
}

int btrace_write_json(const char *path, const btrace_summary *s, const char *shape, const char *desc, int log_m,
                      int parts, int workers, int synthetic)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "{\"bench\":\"pipeline\",\"shape\":\"%s\",\"log_m\":%d,\"partitions\":%d,\"workers\":%d,"
               "\"verified\":%s,\"desc\":\"%s\",\"partitions_per_s\":%.4f,\"device_ms_median\":%.3f,\"devices\":[",
            shape, log_m, parts, workers, synthetic ? "false" : "true", desc, s->parts_per_s, s->device_ms_med);
    for (int d = 0; d < s->ndev; d++)
        fprintf(f, "%s{\"device\":%d,\"busy_pct\":%.3f,\"window_ms\":%.3f,\"gap_p50_ms\":%.4f,\"gap_p99_ms\":%.4f,"
                   "\"gap_max_ms\":%.4f,\"idle_max_ms\":%.4f}",
                d ? "," : "", s->dev[d], s->busy_pct[d], s->window_ms[d], s->gap_p50_ms[d], s->gap_p99_ms[d],
                s->gap_max_ms[d], s->hole_max_ms[d]);
    fprintf(f, "],\"stage_median_ms\":{");
    int first = 1;
    for (int k = 1; k < 32; k++)
        if (s->stage_n[k]) {
            fprintf(f, "%s\"%s\":%.3f", first ? "" : ",", btrace_kind_name(k), s->stage_med_ms[k]);
            first = 0;
        }
    fprintf(f, "}}\n");
    return fclose(f);
}

static uint64_t first_ns(const btrace_log *l)
{
    uint64_t t = UINT64_MAX;
    for (size_t i = 0; i < l->n; i++)
        if (l->ev[i].begin_ns < t) t = l->ev[i].begin_ns;
    return t == UINT64_MAX ? 0 : t;
}

/* Lanes: pid 1 + device (one thread per worker's stream), pid 1000 host (worker threads,
 * finishers by the worker that started the job). Submit and queue waits are left out. */
static void lane_of(const cuzk_trace_event *e, int *pid, int *tid)
{
    if (is_device_kind(e->kind) && e->device >= 0) {
        *pid = 1 + e->device;
        *tid = e->worker;
    } else if (e->kind == CUZK_TRACE_START || e->kind == CUZK_TRACE_HOST_PREP || e->kind == CUZK_TRACE_DEVICE_IDLE ||
               e->kind == CUZK_TRACE_BUDGET_WAIT || is_device_kind(e->kind)) {
        *pid = 1000;
        *tid = e->worker;
    } else {
        *pid = 1000;
        *tid = 100 + e->worker;
    }
}

int btrace_write_chrome(const char *path, const btrace_log *l)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    uint64_t t0 = first_ns(l);
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    int first = 1, named[64] = {0};
    for (size_t i = 0; i < l->n; i++) {
        const cuzk_trace_event *e = &l->ev[i];
        if (e->kind == CUZK_TRACE_SUBMIT || e->kind == CUZK_TRACE_QUEUE_WAIT) continue;
        int pid, tid;
        lane_of(e, &pid, &tid);
        if (pid < 1000 && pid < 64 && !named[pid]) {
            named[pid] = 1;
            fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"GPU %d\"}}",
                    first ? "" : ",\n", pid, pid - 1);
            first = 0;
        }
        fprintf(f, "%s{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%s\",\"ts\":%.3f,", first ? "" : ",\n",
                btrace_kind_name(e->kind), pid < 1000 ? "device" : "host", e->begin_ns == e->end_ns ? "i" : "X",
                (double)(e->begin_ns - t0) / 1e3);
        if (e->begin_ns != e->end_ns) fprintf(f, "\"dur\":%.3f,", (double)(e->end_ns - e->begin_ns) / 1e3);
        else fprintf(f, "\"s\":\"t\",");
        fprintf(f, "\"pid\":%d,\"tid\":%d,\"args\":{\"partition\":%llu,\"bytes\":%llu}}", pid, tid,
                (unsigned long long)e->user_tag, (unsigned long long)e->bytes);
        first = 0;
    }
    fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1000,\"args\":{\"name\":\"host (worker w; "
               "finishers 100+w)\"}}\n]}\n", first ? "" : ",\n");
    return fclose(f);
}

static const char *kind_color(int32_t k)
{
    switch (k) {
    case CUZK_TRACE_H_STEP: return "#4e79a7";
    case CUZK_TRACE_H2D_COPY: return "#9c755f";
    case CUZK_TRACE_MSM_H: return "#f28e2b";
    case CUZK_TRACE_MSM_L: return "#e15759";
    case CUZK_TRACE_MSM_A: return "#76b7b2";
    case CUZK_TRACE_MSM_B_G1: return "#59a14f";
    case CUZK_TRACE_MSM_B_G2: return "#edc948";
    case CUZK_TRACE_HOST_PREP: return "#b07aa1";
    case CUZK_TRACE_START: return "#bab0ac";
    case CUZK_TRACE_VERIFY: return "#ff9da7";
    case CUZK_TRACE_DEVICE_IDLE: return "#eeeeee";
    default: return "#888888";
    }
}

/* One lane per device (busy = any device stage), per device stream (worker), per host worker
 * thread and per finisher share; x = time. */
int btrace_write_svg(const char *path, const btrace_log *l, const char *title)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    uint64_t t0 = first_ns(l), t1 = t0;
    for (size_t i = 0; i < l->n; i++)
        if (l->ev[i].end_ns > t1) t1 = l->ev[i].end_ns;
    double span_ns = (double)(t1 - t0 ? t1 - t0 : 1);
    /* lanes: key = pid * 1024 + tid, plus a "busy" lane per device (tid -1) */
    int lanes[256], nl = 0;
    for (size_t i = 0; i < l->n; i++) {
        const cuzk_trace_event *e = &l->ev[i];
        if (e->kind == CUZK_TRACE_SUBMIT || e->kind == CUZK_TRACE_QUEUE_WAIT || e->begin_ns == e->end_ns) continue;
        int pid, tid;
        lane_of(e, &pid, &tid);
        int keys[2] = {pid * 1024 + tid, pid < 1000 ? pid * 1024 + 1023 : -1};
        for (int q = 0; q < 2; q++) {
            if (keys[q] < 0) continue;
            int k = 0;
            while (k < nl && lanes[k] != keys[q]) k++;
            if (k == nl && nl < 256) lanes[nl++] = keys[q];
        }
    }
    for (int i = 1; i < nl; i++) /* sort: devices first, busy lane on top of each */
        for (int j = i; j > 0; j--) {
            int a = lanes[j - 1], b = lanes[j];
            int ka = a / 1024 * 2048 + (a % 1024 == 1023 ? 0 : 1 + a % 1024);
            int kb = b / 1024 * 2048 + (b % 1024 == 1023 ? 0 : 1 + b % 1024);
            if (ka <= kb) break;
            lanes[j - 1] = b, lanes[j] = a;
        }
    const int W = 1400, L = 190, H = 22, top = 40;
    int height = top + nl * H + 60;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"8\" y=\"16\" font-size=\"12\">%s</text>\n",
            W + L + 20, height, title);
    for (int k = 0; k < nl; k++) {
        int pid = lanes[k] / 1024, tid = lanes[k] % 1024, y = top + k * H;
        char name[64];
        if (pid < 1000 && tid == 1023) snprintf(name, sizeof name, "GPU %d busy", pid - 1);
        else if (pid < 1000) snprintf(name, sizeof name, "GPU %d / worker %d stream", pid - 1, tid);
        else if (tid >= 100) snprintf(name, sizeof name, "finisher (worker %d's jobs)", tid - 100);
        else snprintf(name, sizeof name, "host worker %d", tid);
        fprintf(f, "<text x=\"6\" y=\"%d\">%s</text><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n",
                y + 15, name, L, y + H - 1, L + W, y + H - 1);
    }
    for (size_t i = 0; i < l->n; i++) {
        const cuzk_trace_event *e = &l->ev[i];
        if (e->kind == CUZK_TRACE_SUBMIT || e->kind == CUZK_TRACE_QUEUE_WAIT || e->begin_ns == e->end_ns) continue;
        int pid, tid;
        lane_of(e, &pid, &tid);
        double x = L + W * (double)(e->begin_ns - t0) / span_ns, w = W * (double)(e->end_ns - e->begin_ns) / span_ns;
        if (w < 0.3) w = 0.3;
        for (int q = 0; q < 2; q++) {
            int key = q ? (pid < 1000 ? pid * 1024 + 1023 : -1) : pid * 1024 + tid;
            if (key < 0) continue;
            int k = 0;
            while (k < nl && lanes[k] != key) k++;
            fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s, partition %llu, "
                       "%.3f ms</title></rect>\n",
                    x, top + k * H + 2, w, H - 5, q ? "#333333" : kind_color(e->kind), btrace_kind_name(e->kind),
                    (unsigned long long)e->user_tag, (double)(e->end_ns - e->begin_ns) / 1e6);
        }
    }
    int y = top + nl * H + 20;
    fprintf(f, "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.1f ms</text>\n", L, y,
            L + W, y, span_ns / 1e6);
    const int32_t legend[] = {CUZK_TRACE_H_STEP, CUZK_TRACE_H2D_COPY, CUZK_TRACE_MSM_H, CUZK_TRACE_MSM_L,
                              CUZK_TRACE_MSM_A, CUZK_TRACE_MSM_B_G1, CUZK_TRACE_MSM_B_G2, CUZK_TRACE_HOST_PREP,
                              CUZK_TRACE_START, CUZK_TRACE_VERIFY};
    for (int i = 0; i < (int)(sizeof legend / sizeof legend[0]); i++)
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
                L + i * 120, y + 12, kind_color(legend[i]), L + i * 120 + 14, y + 21, btrace_kind_name(legend[i]));
    fprintf(f, "</svg>\n");
    return fclose(f);
}
