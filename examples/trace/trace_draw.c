/*
 * The trace drawn (trace_view.h): a Chrome trace (one process per GPU with a thread per worker's
 * stream, and the host with its workers and finishers) and an SVG timeline with the same lanes.
 * In the SVG a partition is a labelled band (its user_tag) at the top of a lane and its stages
 * are bars below the band, so neither hides the other on any backend.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_view.h"

static int is_stage(int32_t k) { return k >= CUZK_TRACE_H2D_COPY && k <= CUZK_TRACE_MSM_ALL; }
static int is_span(int32_t k) { return k == CUZK_TRACE_START || k == CUZK_TRACE_FINISH; }

/* Lanes, as pid * 1024 + tid: pid 1 + device for device-timed stages (tid = worker's stream),
 * with tid 1023 for the device's busy lane; pid 1000 for the host: tid = worker for the worker
 * threads (and, on the CPU backend, their stages), 100 + worker for the finishers of that
 * worker's jobs, 99 for events of no worker (housekeeping). Submits and queue waits happen on
 * host threads that are not the library's: left out. */
static int lane_of(const cuzk_trace_event *e)
{
    if (e->kind == CUZK_TRACE_SUBMIT || e->kind == CUZK_TRACE_QUEUE_WAIT || e->kind == CUZK_TRACE_RESULT) return -1;
    int w = e->worker >= 0 && e->worker < 99 ? e->worker : -1;
    if (is_stage(e->kind) && e->device >= 0 && e->device < 64) return (1 + e->device) * 1024 + (w < 0 ? 0 : w);
    if (w < 0) return 1000 * 1024 + 99;
    if (is_stage(e->kind) || e->kind == CUZK_TRACE_START || e->kind == CUZK_TRACE_HOST_PREP ||
        e->kind == CUZK_TRACE_DEVICE_IDLE || e->kind == CUZK_TRACE_BUDGET_WAIT)
        return 1000 * 1024 + w;
    return 1000 * 1024 + 100 + w;
}

static void lane_name(char *buf, size_t len, int lane)
{
    int pid = lane / 1024, tid = lane % 1024;
    if (pid < 1000 && tid == 1023) snprintf(buf, len, "GPU %d busy", pid - 1);
    else if (pid < 1000) snprintf(buf, len, "GPU %d, worker %d's stream", pid - 1, tid);
    else if (tid == 99) snprintf(buf, len, "housekeeping");
    else if (tid >= 100) snprintf(buf, len, "finisher (worker %d's jobs)", tid - 100);
    else snprintf(buf, len, "host worker %d", tid);
}

/* The window drawn: from the first to the last event of any partition (idle stretches before
 * the first and after the last partition are clipped), or of anything when no event has a job. */
static void window_ns(const tv_log *l, uint64_t *t0, uint64_t *t1)
{
    for (int any = 0; any < 2; any++) {
        *t0 = UINT64_MAX, *t1 = 0;
        for (size_t i = 0; i < l->n; i++) {
            const cuzk_trace_event *e = &l->ev[i];
            if (lane_of(e) < 0 || (!any && !e->job)) continue;
            if (e->begin_ns < *t0) *t0 = e->begin_ns;
            if (e->end_ns > *t1) *t1 = e->end_ns;
        }
        if (*t1) return;
    }
    *t0 = *t1 = 0;
}

static int any_device(const tv_log *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (is_stage(l->ev[i].kind) && l->ev[i].device >= 0) return 1;
    return 0;
}

/* Lanes in drawing order: GPUs first (busy lane, then streams), then host workers, finishers. */
static int lane_rank(int lane)
{
    int pid = lane / 1024, tid = lane % 1024;
    return pid * 2048 + (tid == 1023 ? 0 : 1 + tid);
}

static int find_lane(const int *lanes, int nl, int lane)
{
    for (int k = 0; k < nl; k++)
        if (lanes[k] == lane) return k;
    return -1;
}

enum { SVG_W = 1400, SVG_L = 200, SVG_H = 30, SVG_TOP = 52, MAX_LANES = 256 };

int tv_write_chrome(const char *path, const tv_log *l)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    uint64_t t0, t1;
    window_ns(l, &t0, &t1);
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"clock\":\"%s\"},\"traceEvents\":[\n",
            any_device(l) ? "device stages: CUDA events on the host clock" : "CPU backend: host clock");
    fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1000,\"args\":{\"name\":\"host\"}}");
    int named[MAX_LANES], nn = 0;
    char name[64];
    for (size_t i = 0; i < l->n; i++) {
        const cuzk_trace_event *e = &l->ev[i];
        int lane = lane_of(e);
        if (lane < 0 || e->end_ns < t0 || e->begin_ns > t1) continue;
        int pid = lane / 1024, tid = lane % 1024;
        /* a GPU's first lane names the GPU's process too: room for both, or neither is named */
        int gpu_new = pid < 1000 && find_lane(named, nn, pid * 1024 + 1023) < 0;
        if (find_lane(named, nn, lane) < 0 && nn + 1 + gpu_new <= MAX_LANES) { /* name the lane (and its GPU) once */
            if (gpu_new) {
                named[nn++] = pid * 1024 + 1023;
                fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"GPU %d\"}}",
                        pid, pid - 1);
            }
            named[nn++] = lane;
            lane_name(name, sizeof name, lane);
            fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
                    pid, tid, name);
        }
        uint64_t b = e->begin_ns < t0 ? t0 : e->begin_ns, en = e->end_ns > t1 ? t1 : e->end_ns;
        fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%s\",\"ts\":%.3f,", tv_kind_name(e->kind),
                pid < 1000 ? "device" : "host", b == en ? "i" : "X", (double)(b - t0) / 1e3);
        if (b != en) fprintf(f, "\"dur\":%.3f,", (double)(en - b) / 1e3);
        else fprintf(f, "\"s\":\"t\",");
        fprintf(f, "\"pid\":%d,\"tid\":%d,\"args\":{\"user_tag\":%llu,\"job\":%llu,\"bytes\":%llu}}", pid, tid,
                (unsigned long long)e->user_tag, (unsigned long long)e->job, (unsigned long long)e->bytes);
    }
    fprintf(f, "\n]}\n");
    return fclose(f);
}

static const char *kind_color(int32_t k)
{
    switch (k) {
    case CUZK_TRACE_H_STEP:
    case CUZK_TRACE_NTT_INTT:
    case CUZK_TRACE_NTT_COSET:
    case CUZK_TRACE_NTT_COSET_INTT: return "#4e79a7";
    case CUZK_TRACE_H2D_COPY: return "#9c755f";
    case CUZK_TRACE_MSM_H: return "#f28e2b";
    case CUZK_TRACE_MSM_L: return "#e15759";
    case CUZK_TRACE_MSM_A: return "#76b7b2";
    case CUZK_TRACE_MSM_B_G1: return "#59a14f";
    case CUZK_TRACE_MSM_B_G2: return "#edc948";
    case CUZK_TRACE_MSM_ALL: return "#e8a33d";
    case CUZK_TRACE_HOST_PREP: return "#b07aa1";
    case CUZK_TRACE_START:
    case CUZK_TRACE_FINISH: return "#d9d4d0";
    case CUZK_TRACE_VERIFY: return "#ff9da7";
    case CUZK_TRACE_ASSEMBLY: return "#8cd17d";
    case CUZK_TRACE_BUDGET_WAIT: return "#e0e0e0";
    default: return "#999999";
    }
}

typedef struct {
    int lane;
    uint64_t job, tag, b, e;
} band;

static int cmp_band(const void *x, const void *y)
{
    const band *a = x, *b = y;
    if (a->lane != b->lane) return a->lane < b->lane ? -1 : 1;
    return (a->job > b->job) - (a->job < b->job);
}

static void bar(FILE *f, double x, double w, int y, int h, const char *fill, const cuzk_trace_event *e,
                const char *what)
{
    fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>%s: partition %llu "
               "(job %llu), %.3f ms</title></rect>\n",
            x, y, w < 0.3 ? 0.3 : w, h, fill, what, (unsigned long long)e->user_tag, (unsigned long long)e->job,
            (double)(e->end_ns - e->begin_ns) / 1e6);
}

/* text as SVG (XML) character data: a title is the host's (a file name, --title) */
static void put_xml(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        default: fputc(*s, f);
        }
    }
}

int tv_write_svg(const char *path, const tv_log *l, const char *title)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    uint64_t t0, t1;
    window_ns(l, &t0, &t1);
    int lanes[MAX_LANES], nl = 0, gpu = any_device(l);
    band *bands = malloc((l->n + 1) * sizeof *bands);
    size_t nb = 0;
    for (size_t i = 0; i < l->n; i++) {
        const cuzk_trace_event *e = &l->ev[i];
        int lane = lane_of(e);
        if (lane < 0 || e->begin_ns >= e->end_ns || e->end_ns <= t0 || e->begin_ns >= t1) continue;
        int keys[2] = {lane, lane < 1000 * 1024 ? lane / 1024 * 1024 + 1023 : -1};
        for (int q = 0; q < 2; q++)
            if (keys[q] >= 0 && find_lane(lanes, nl, keys[q]) < 0 && nl < MAX_LANES) lanes[nl++] = keys[q];
        /* partition bands: the worker's and finisher's own spans; on a GPU stream, the job's stages */
        if (bands && (is_span(e->kind) || lane < 1000 * 1024))
            bands[nb++] = (band){lane, e->job, e->user_tag, e->begin_ns, e->end_ns};
    }
    for (int i = 1; i < nl; i++)
        for (int j = i; j > 0 && lane_rank(lanes[j - 1]) > lane_rank(lanes[j]); j--) {
            int t = lanes[j - 1];
            lanes[j - 1] = lanes[j], lanes[j] = t;
        }
    if (bands) { /* one band per (lane, job): from its first to its last event there */
        qsort(bands, nb, sizeof *bands, cmp_band);
        size_t m = 0;
        for (size_t i = 0; i < nb; i++) {
            if (m && bands[m - 1].lane == bands[i].lane && bands[m - 1].job == bands[i].job) {
                if (bands[i].b < bands[m - 1].b) bands[m - 1].b = bands[i].b;
                if (bands[i].e > bands[m - 1].e) bands[m - 1].e = bands[i].e;
            } else bands[m++] = bands[i];
        }
        nb = m;
    }
    double span_ns = (double)(t1 > t0 ? t1 - t0 : 1), sx = SVG_W / span_ns;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"8\" y=\"16\" font-size=\"12\">",
            SVG_W + SVG_L + 20, SVG_TOP + nl * SVG_H + 64);
    put_xml(f, title ? title : "libcuzk trace");
    fprintf(f, "</text>\n<text x=\"8\" y=\"32\" fill=\"#555\">%s; each partition is a band labelled with its "
               "user_tag, its stages are the bars below it</text>\n",
            gpu ? "device stages are CUDA-event times on the host clock" : "CPU backend: CPU time on the host clock");
    char name[64];
    for (int k = 0; k < nl; k++) {
        int y = SVG_TOP + k * SVG_H;
        lane_name(name, sizeof name, lanes[k]);
        fprintf(f, "<text x=\"6\" y=\"%d\">%s</text><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n",
                y + 19, name, SVG_L, y + SVG_H - 1, SVG_L + SVG_W, y + SVG_H - 1);
    }
    for (size_t i = 0; i < nb; i++) { /* bands first, so nothing drawn later is hidden by them */
        int k = find_lane(lanes, nl, bands[i].lane), y = SVG_TOP + k * SVG_H;
        if (k < 0) continue;
        double x = SVG_L + sx * (double)(bands[i].b - t0), w = sx * (double)(bands[i].e - bands[i].b);
        cuzk_trace_event e = {.job = bands[i].job, .user_tag = bands[i].tag, .begin_ns = bands[i].b,
                              .end_ns = bands[i].e};
        bar(f, x, w, y + 2, 10, "#d9d4d0", &e, "span");
        char label[24];
        int len = snprintf(label, sizeof label, "%llu", (unsigned long long)bands[i].tag);
        if (w >= 6.0 * len + 4)
            fprintf(f, "<text x=\"%.2f\" y=\"%d\" font-size=\"9\" text-anchor=\"middle\">%s</text>\n", x + w / 2,
                    y + 10, label);
    }
    for (size_t i = 0; i < l->n; i++) {
        const cuzk_trace_event *e = &l->ev[i];
        int lane = lane_of(e), k = lane < 0 ? -1 : find_lane(lanes, nl, lane);
        if (k < 0 || e->begin_ns >= e->end_ns || is_span(e->kind) || e->end_ns <= t0 || e->begin_ns >= t1) continue;
        uint64_t b = e->begin_ns < t0 ? t0 : e->begin_ns, en = e->end_ns > t1 ? t1 : e->end_ns;
        double x = SVG_L + sx * (double)(b - t0), w = sx * (double)(en - b);
        bar(f, x, w, SVG_TOP + k * SVG_H + 13, 14, kind_color(e->kind), e, tv_kind_name(e->kind));
        if (lane < 1000 * 1024 && e->kind != CUZK_TRACE_H2D_COPY) { /* the device's busy lane: its arithmetic */
            if ((k = find_lane(lanes, nl, lane / 1024 * 1024 + 1023)) < 0) continue;
            bar(f, x, w, SVG_TOP + k * SVG_H + 4, 22, "#333333", e, tv_kind_name(e->kind));
        }
    }
    int y = SVG_TOP + nl * SVG_H + 20;
    fprintf(f, "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.1f ms</text>\n", SVG_L, y,
            SVG_L + SVG_W, y, span_ns / 1e6);
    const int32_t legend[] = {CUZK_TRACE_START,    CUZK_TRACE_H_STEP,   CUZK_TRACE_H2D_COPY, CUZK_TRACE_MSM_H,
                              CUZK_TRACE_MSM_L,    CUZK_TRACE_MSM_A,    CUZK_TRACE_MSM_B_G1, CUZK_TRACE_MSM_B_G2,
                              CUZK_TRACE_HOST_PREP, CUZK_TRACE_ASSEMBLY, CUZK_TRACE_VERIFY};
    for (int i = 0; i < (int)(sizeof legend / sizeof legend[0]); i++)
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
                SVG_L + (i % 6) * 200, y + 12 + (i / 6) * 16, kind_color(legend[i]), SVG_L + (i % 6) * 200 + 14,
                y + 21 + (i / 6) * 16, legend[i] == CUZK_TRACE_START ? "partition (user_tag)" : tv_kind_name(legend[i]));
    fprintf(f, "</svg>\n");
    free(bands);
    return fclose(f);
}
