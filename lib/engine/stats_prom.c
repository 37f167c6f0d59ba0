/*
 * cuzk_stats_format_prometheus: a cuzk_stats snapshot as Prometheus text (exposition format
 * 0.0.4), so hosts serve the engine's counters on /metrics without their own mapping.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "cuzk/cuzk.h"
#include "error.h"

/* Appends to buf while it fits and always counts, so one pass yields the length needed. */
typedef struct prom_out {
    char *buf;
    size_t len, n;
} prom_out;

static void prom_put(prom_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void prom_put(prom_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = o->buf && o->n < o->len ? o->buf + o->n : NULL;
    int k = vsnprintf(dst, dst ? o->len - o->n : 0, fmt, ap);
    va_end(ap);
    if (k > 0) o->n += (size_t)k;
}

static void prom_metric(prom_out *o, const char *name, const char *type, const char *help, uint64_t v)
{
    prom_put(o, "# HELP %s %s\n# TYPE %s %s\n%s %" PRIu64 "\n", name, help, name, type, name, v);
}

CUZK_API int cuzk_stats_format_prometheus(const cuzk_stats *stats, const uint64_t *device_busy_ns,
                                          uint32_t n_devices, char *buf, size_t len,
                                          size_t *written)
{
    if (!stats || !written || (!buf && len) || (!device_busy_ns && n_devices))
        return err_set(CUZK_EINVAL, "cuzk_stats_format_prometheus: stats and written must not be "
                       "NULL, nor buf with len > 0, nor device_busy_ns with n_devices > 0");
    if (stats->struct_size < CUZK_STATS_SIZE_V1) /* the fields read here are all 0.1.0's */
        return err_set(CUZK_EINVAL, "cuzk_stats_format_prometheus: stats->struct_size %u is below "
                       "CUZK_STATS_SIZE_V1 (%u)", stats->struct_size, CUZK_STATS_SIZE_V1);
    prom_out o = {buf, len, 0};
    const char *backend = stats->backend == CUZK_BACKEND_CUDA ? "cuda" : "cpu";
    prom_put(&o, "# HELP cuzk_info The loaded libcuzk and its backend.\n# TYPE cuzk_info gauge\n"
             "cuzk_info{version=\"%s\",backend=\"%s\"} 1\n", cuzk_version_string(), backend);
    prom_metric(&o, "cuzk_devices", "gauge", "GPUs in use (0 on the CPU backend).", stats->devices);
    prom_metric(&o, "cuzk_workers", "gauge", "Proving threads.", stats->workers);
    prom_metric(&o, "cuzk_proofs_submitted_total", "counter", "Partitions accepted for proving.",
                stats->submitted);
    prom_metric(&o, "cuzk_proofs_completed_total", "counter", "Proofs returned with CUZK_OK.",
                stats->completed);
    prom_metric(&o, "cuzk_proofs_failed_total", "counter",
                "Jobs that ended in an error (verify failures included, cancels not).",
                stats->failed + stats->verify_failed);
    prom_metric(&o, "cuzk_proofs_verify_failed_total", "counter",
                "Proofs that failed the pairing self-check.", stats->verify_failed);
    prom_metric(&o, "cuzk_proofs_canceled_total", "counter", "Jobs canceled.", stats->canceled);
    prom_metric(&o, "cuzk_queue_depth", "gauge", "Jobs waiting for a worker.", stats->queued);
    prom_metric(&o, "cuzk_jobs_running", "gauge", "Jobs being proved or finished.", stats->running);
    prom_metric(&o, "cuzk_results_unpolled", "gauge", "Results waiting to be polled.",
                stats->unpolled);
    prom_metric(&o, "cuzk_queue_capacity", "gauge", "Jobs the engine holds at most.",
                stats->queue_capacity);
    prom_metric(&o, "cuzk_host_budget_bytes", "gauge", "Host working-memory budget.",
                stats->host_budget_bytes);
    prom_metric(&o, "cuzk_host_budget_used_bytes", "gauge",
                "Host budget reserved now (cuzk_host_alloc memory included).",
                stats->host_reserved_bytes);
    prom_metric(&o, "cuzk_host_budget_peak_bytes", "gauge", "Highest host budget reservation.",
                stats->host_reserved_peak);
    prom_metric(&o, "cuzk_host_alloc_bytes", "gauge", "Memory held through cuzk_host_alloc.",
                stats->host_alloc_bytes);
    prom_metric(&o, "cuzk_budget_waits_total", "counter", "Partitions that waited for memory.",
                stats->budget_waits);
    prom_metric(&o, "cuzk_trace_events_total", "counter", "Trace events delivered.",
                stats->trace_events);
    prom_metric(&o, "cuzk_trace_dropped_total", "counter", "Trace events dropped (ring full).",
                stats->trace_dropped);
    prom_metric(&o, "cuzk_arena_collects_total", "counter",
                "Times housekeeping returned memory to the OS.", stats->arena_collects);
    prom_metric(&o, "cuzk_arena_bytes", "gauge", "Working-memory arena address space.",
                stats->arena_bytes);
    if (n_devices) {
        prom_put(&o, "# HELP cuzk_device_busy_seconds_total Time devices spent proving.\n"
                 "# TYPE cuzk_device_busy_seconds_total counter\n");
        for (uint32_t i = 0; i < n_devices; i++) {
            uint64_t ns = device_busy_ns[i];
            if (stats->backend == CUZK_BACKEND_CUDA)
                prom_put(&o, "cuzk_device_busy_seconds_total{device=\"%u\"} %" PRIu64 ".%09" PRIu64 "\n",
                         i, ns / 1000000000u, ns % 1000000000u);
            else
                prom_put(&o, "cuzk_device_busy_seconds_total{device=\"cpu\"} %" PRIu64 ".%09" PRIu64 "\n",
                         ns / 1000000000u, ns % 1000000000u);
        }
    }
    *written = o.n;
    if (o.n >= len) {
        if (len) buf[0] = '\0';
        return err_set(CUZK_ERANGE, "cuzk_stats_format_prometheus: the text needs %zu bytes and "
                       "a NUL, the buffer holds %zu", o.n, len);
    }
    return err_done(CUZK_OK);
}
