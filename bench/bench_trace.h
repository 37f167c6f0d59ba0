/*
 * Trace events collected from the engine's callback, turned into utilization figures (device
 * busy %, gaps between consecutive partitions, stage medians), a Chrome trace and an SVG.
 */
#ifndef CUZK_BENCH_TRACE_H
#define CUZK_BENCH_TRACE_H

#include <stdint.h>

#include "cuzk/cuzk.h"

#define BTRACE_MAX_DEV 16

typedef struct {
    cuzk_trace_event *ev;
    size_t n, cap;
    double *device_ms;   /* per result: cuzk_result.device_ns in ms */
    size_t nres;
    uint64_t wall_ns;    /* first submit -> last result of the measured partitions */
} btrace_log;

typedef struct {
    int ndev;
    int dev[BTRACE_MAX_DEV];            /* device ordinals seen (-1 = CPU backend: worker busy) */
    double busy_pct[BTRACE_MAX_DEV];
    double window_ms[BTRACE_MAX_DEV];
    double gap_p50_ms[BTRACE_MAX_DEV], gap_p99_ms[BTRACE_MAX_DEV], gap_max_ms[BTRACE_MAX_DEV];
    double hole_max_ms[BTRACE_MAX_DEV]; /* longest idle stretch inside the window */
    double stage_med_ms[32];            /* per trace kind: median over partitions of the summed time */
    int stage_n[32];
    double device_ms_med;               /* median of the results' device_ns */
    double parts_per_s;
} btrace_summary;

void btrace_collect(const cuzk_trace_event *ev, void *user); /* the engine's trace callback */
void btrace_result(btrace_log *log, const cuzk_result *r);
/* Only events whose user_tag is 1..parts are measured (warm-up partitions carry others). */
void btrace_analyze(const btrace_log *log, uint64_t parts, btrace_summary *out);
void btrace_print(const btrace_summary *s, const btrace_log *log, int parts, int failures, int synthetic);
int btrace_write_json(const char *path, const btrace_summary *s, const char *shape, const char *desc, int log_m,
                      int parts, int workers, int synthetic);
int btrace_write_chrome(const char *path, const btrace_log *log);
int btrace_write_svg(const char *path, const btrace_log *log, const char *title);
void btrace_free(btrace_log *log);
const char *btrace_kind_name(int32_t kind);

#endif
