/*
 * Trace events made readable, for `cuzk demo`, `cuzk trace` and cuzk-bench: busy time per
 * device and per worker, gaps between consecutive partitions, stage medians, a Chrome trace
 * (chrome://tracing, Perfetto) and an SVG timeline; events saved to and read from JSON Lines so
 * any host (C, Go, Rust) can hand its trace to `cuzk trace`. Not part of the library.
 */
#ifndef CUZK_TRACE_VIEW_H
#define CUZK_TRACE_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/cuzk.h"

#define TV_MAX_DEV 16
#define TV_MAX_WORKERS 64
#define TV_KINDS 32

typedef struct {
    cuzk_trace_event *ev;
    size_t n, cap;
    uint64_t lost; /* events tv_collect could not keep (out of memory) */
} tv_log;

/* A cuzk_trace_fn: appends the event to the tv_log passed as user (the engine calls it from its
 * one trace thread; read the log after cuzk_engine_destroy). */
void tv_collect(const cuzk_trace_event *ev, void *user);
void tv_free(tv_log *log);
const char *tv_kind_name(int32_t kind);

typedef struct {
    int cpu;                           /* no device-timed stage: every time is host (CPU) time */
    size_t partitions;                 /* distinct jobs among the measured events */
    double window_ms;                  /* first to last measured event */
    int ndev;                          /* devices ≥ 0 with device-timed stages */
    int dev[TV_MAX_DEV];
    double busy_pct[TV_MAX_DEV];       /* union of its compute stages (copies aside) over its window */
    double dev_window_ms[TV_MAX_DEV];
    double gap_p50_ms[TV_MAX_DEV], gap_p99_ms[TV_MAX_DEV], gap_max_ms[TV_MAX_DEV];
    double hole_max_ms[TV_MAX_DEV];    /* longest idle stretch inside the device's window */
    int nworkers;                      /* workers 0..nworkers-1 (their whole-partition spans) */
    double worker_busy_pct[TV_MAX_WORKERS];
    double stage_med_ms[TV_KINDS];     /* per kind: median over partitions of the summed time */
    int stage_n[TV_KINDS];
    /* per device-timed kind: % of its time (all measured partitions) during which a host-to-device
     * copy ran on the same device, any partition's (the copy engines' use, where PCIe was idle);
     * -1 where the trace has no copy on that kind's devices */
    double stage_copy_pct[TV_KINDS];
} tv_summary;

/* Measures the partitions' events (job != 0) whose user_tag lies in [tag_lo, tag_hi]
 * (everything: 0, UINT64_MAX). */
void tv_analyze(const tv_log *log, uint64_t tag_lo, uint64_t tag_hi, tv_summary *out);
/* The median of v[0..n) (sorts v in place; 0 when n is 0); for an even n the mean of the two
 * middle values. */
double tv_median(double *v, size_t n);
/* The summary as text, each line starting with indent: busy % and gaps, then (stages != 0) the
 * stage medians, saying which clock they were measured on. */
void tv_print(FILE *f, const tv_summary *s, const char *indent, int stages);

/* Writers: 0 or -1 (errno set). The SVG draws one lane per device (busy on top, then each
 * worker's stream) and per host worker and finisher; partitions are labelled by user_tag. */
int tv_write_chrome(const char *path, const tv_log *log);
int tv_write_svg(const char *path, const tv_log *log, const char *title);

/* JSON Lines: one object per event, {"kind":9,"name":"MSM H","device":0,"worker":1,"job":5,
 * "user_tag":3,"begin_ns":…,"end_ns":…,"bytes":0}. The reader takes numbers, or decimal
 * strings for integers above 2^53; it ignores unknown fields and blank lines. tv_write_jsonl
 * returns 0 or -1 (errno set); tv_read_jsonl returns 0, or with a message in err CUZK_EIO (the
 * path cannot be opened or read: missing, a directory), CUZK_EFORMAT (the line number and what
 * was wrong) or CUZK_ENOMEM. */
int tv_write_jsonl(const char *path, const tv_log *log);
int tv_read_jsonl(const char *path, tv_log *log, char *err, size_t errlen);

#endif
