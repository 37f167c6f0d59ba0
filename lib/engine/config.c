/* cuzk_config: an opaque bag of numbered options with range checks, and the resolution of
 * defaults an engine runs with. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "error.h"

static const struct {
    const char *name;
    int64_t min, max; /* 0 (default) is always accepted */
} opt_info[CUZK_OPT_LAST + 1] = {
    [CUZK_OPT_BACKEND] = {"CUZK_OPT_BACKEND", CUZK_BACKEND_AUTO, CUZK_BACKEND_CUDA},
    [CUZK_OPT_DEVICE_MASK] = {"CUZK_OPT_DEVICE_MASK", INT64_MIN, INT64_MAX},
    [CUZK_OPT_WORKERS_PER_DEVICE] = {"CUZK_OPT_WORKERS_PER_DEVICE", 1, 64},
    [CUZK_OPT_CPU_THREADS] = {"CUZK_OPT_CPU_THREADS", 1, 4096},
    [CUZK_OPT_HOST_BUDGET_BYTES] = {"CUZK_OPT_HOST_BUDGET_BYTES", 1, INT64_MAX},
    [CUZK_OPT_DEVICE_BUDGET_BYTES] = {"CUZK_OPT_DEVICE_BUDGET_BYTES", 1, INT64_MAX},
    [CUZK_OPT_QUEUE_CAPACITY] = {"CUZK_OPT_QUEUE_CAPACITY", 1, TRACKER_MAX_CAPACITY},
    [CUZK_OPT_VERIFY] = {"CUZK_OPT_VERIFY", 0, 1},
    [CUZK_OPT_FINISHER_THREADS] = {"CUZK_OPT_FINISHER_THREADS", 1, 64},
    [CUZK_OPT_TRACE_CAPACITY] = {"CUZK_OPT_TRACE_CAPACITY", 16, 1 << 20},
    [CUZK_OPT_IDLE_SPIN_NS] = {"CUZK_OPT_IDLE_SPIN_NS", -1, 1000000000},
    [CUZK_OPT_RETRY_ON_CPU] = {"CUZK_OPT_RETRY_ON_CPU", 0, 1},
    [CUZK_OPT_URGENT_PRIORITY] = {"CUZK_OPT_URGENT_PRIORITY", 1, TRACKER_LEVELS - 1},
};

static int cfg_ok(const cuzk_config *cfg) { return cfg && cfg->magic == CONFIG_MAGIC; }

CUZK_API int cuzk_config_new(cuzk_config **out)
{
    if (!out) return err_set(CUZK_EINVAL, "cuzk_config_new: out is NULL");
    cuzk_config *c = calloc(1, sizeof *c);
    if (!c) return err_set(CUZK_ENOMEM, "cuzk_config_new: out of memory");
    c->magic = CONFIG_MAGIC;
    c->opt[CUZK_OPT_VERIFY] = 1;
    *out = c;
    return err_done(CUZK_OK);
}

CUZK_API void cuzk_config_free(cuzk_config *cfg)
{
    if (!cfg_ok(cfg)) return;
    cfg->magic = 0;
    free(cfg);
}

CUZK_API int cuzk_config_set(cuzk_config *cfg, int32_t option, int64_t value)
{
    if (!cfg_ok(cfg)) return err_set(CUZK_EINVAL, "cuzk_config_set: cfg is NULL or not a cuzk_config");
    if (option < 1 || option > CUZK_OPT_LAST)
        return err_set(CUZK_EINVAL, "cuzk_config_set: unknown option %d (1..%d)", option, CUZK_OPT_LAST);
    if (value != 0 && (value < opt_info[option].min || value > opt_info[option].max))
        return err_set(CUZK_EINVAL, "%s: %lld is out of range (0 = default, or %lld..%lld)",
                       opt_info[option].name, (long long)value, (long long)opt_info[option].min,
                       (long long)opt_info[option].max);
    /* VERIFY's default is on, so 0 means "off" here, not "default" */
    cfg->opt[option] = value;
    return err_done(CUZK_OK);
}

CUZK_API int cuzk_config_get(const cuzk_config *cfg, int32_t option, int64_t *value)
{
    if (!cfg_ok(cfg) || !value) return err_set(CUZK_EINVAL, "cuzk_config_get: NULL argument");
    if (option < 1 || option > CUZK_OPT_LAST)
        return err_set(CUZK_EINVAL, "cuzk_config_get: unknown option %d (1..%d)", option, CUZK_OPT_LAST);
    *value = cfg->opt[option];
    return err_done(CUZK_OK);
}

CUZK_API int cuzk_config_set_trace(cuzk_config *cfg, cuzk_trace_fn fn, void *user)
{
    if (!cfg_ok(cfg)) return err_set(CUZK_EINVAL, "cuzk_config_set_trace: cfg is NULL or not a cuzk_config");
    cfg->trace_fn = fn;
    cfg->trace_user = user;
    return err_done(CUZK_OK);
}

void config_resolve(const cuzk_config *cfg, engine_opts *o)
{
    static const cuzk_config defaults = {.magic = CONFIG_MAGIC, .opt = {[CUZK_OPT_VERIFY] = 1}};
    if (!cfg) cfg = &defaults;
    const int64_t *v = cfg->opt;
    memset(o, 0, sizeof *o);
    o->backend = (int32_t)v[CUZK_OPT_BACKEND];
    o->device_mask = (uint64_t)v[CUZK_OPT_DEVICE_MASK];
    o->workers_per_device = v[CUZK_OPT_WORKERS_PER_DEVICE] ? (uint32_t)v[CUZK_OPT_WORKERS_PER_DEVICE] : 1;
    o->cpu_threads = (uint32_t)v[CUZK_OPT_CPU_THREADS];
    o->host_budget = v[CUZK_OPT_HOST_BUDGET_BYTES] ? (uint64_t)v[CUZK_OPT_HOST_BUDGET_BYTES]
                                                   : physical_memory_bytes() / 4 * 3;
    o->device_budget = (uint64_t)v[CUZK_OPT_DEVICE_BUDGET_BYTES];
    o->queue_capacity = v[CUZK_OPT_QUEUE_CAPACITY] ? (uint32_t)v[CUZK_OPT_QUEUE_CAPACITY] : 1024;
    o->verify = v[CUZK_OPT_VERIFY] != 0;
    o->retry_on_cpu = v[CUZK_OPT_RETRY_ON_CPU] != 0;
    o->urgent_priority = (uint32_t)v[CUZK_OPT_URGENT_PRIORITY];
    o->finishers = v[CUZK_OPT_FINISHER_THREADS] ? (uint32_t)v[CUZK_OPT_FINISHER_THREADS] : 2;
    o->trace_capacity = v[CUZK_OPT_TRACE_CAPACITY] ? (uint32_t)v[CUZK_OPT_TRACE_CAPACITY] : 8192;
    /* polling helps only where spare cores exist: with fewer than 4, a polling thread takes
     * the core the thread it waits for needs (measured: 3x slower hand-offs on 2 cores) */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t spin = v[CUZK_OPT_IDLE_SPIN_NS];
    o->spin_ns = spin < 0 ? 0 : spin > 0 ? (uint64_t)spin : ncpu >= 4 ? 20000 : 0;
}
