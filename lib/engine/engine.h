/*
 * The engine's internals shared by engine.c (threads, the life of a job) and engine_api.c
 * (the public calls). Hosts never see this header.
 */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "engine/arena.h"
#include "backend/backend.h"
#include "engine/budget.h"
#include "cuzk/cuzk.h"
#include "engine/evcount.h"
#include "engine/trace.h"
#include "engine/tracker.h"

#define CUZK_OPT_LAST CUZK_OPT_URGENT_PRIORITY
#define CONFIG_MAGIC 0x6366677a75u /* "uzcfg" */
#define ENGINE_MAGIC 0x656e677a75u
#define SRS_MAGIC 0x7372737a75u
#define CS_MAGIC 0x63737a75u

struct cuzk_config {
    uint64_t magic;
    int64_t opt[CUZK_OPT_LAST + 1];
    cuzk_trace_fn trace_fn;
    void *trace_user;
};

/* The options an engine runs with, defaults resolved. */
typedef struct engine_opts {
    int32_t backend;
    uint64_t device_mask;
    uint32_t workers_per_device, cpu_threads, finishers, queue_capacity, trace_capacity;
    uint64_t host_budget, device_budget;
    uint64_t spin_ns;
    int verify;
    int retry_on_cpu;
    uint32_t urgent_priority;    /* 0 = no urgent workers; else the lowest urgent priority */
} engine_opts;
void config_resolve(const cuzk_config *cfg, engine_opts *o);

struct cuzk_srs {
    uint64_t magic;
    cuzk_engine *engine;
    void *key;
    _Atomic uint32_t refs;       /* the host's hold + one per job not yet completed */
    _Atomic uint32_t released;   /* the host called cuzk_srs_release                */
    cuzk_srs *next, *prev;       /* engine->srs_list, under srs_lock                */
    cuzk_srs *dead_next;         /* engine->srs_dead (lock-free push)               */
    uint64_t host_reserved;      /* host budget held for the key's pinned bases      */
};

/* A loaded constraint system (engine_cs.c): like a key, the host's hold plus one reference
 * per job that uses it; the last one frees it. */
struct csc;
struct cuzk_cs {
    uint64_t magic;
    cuzk_engine *engine;
    struct csc *sys;
    void *be_cs;                 /* the backend's placement (ops->cs_place), or NULL   */
    uint64_t host_bytes;
    uint64_t device_bytes;       /* what the placement holds on the devices (stats)   */
    uint32_t resident_devices, streamed_devices;
    _Atomic uint32_t refs;
    _Atomic uint32_t released;
    cuzk_cs *next, *prev;        /* engine->cs_list, under srs_lock                  */
};

/* A job's payload, parallel to the tracker's slots. backend_job comes first so the
 * backend's job pointer is the job's. */
typedef struct job {
    _Alignas(CUZK_CACHELINE) backend_job bj; /* jobs on their own cache lines */
    cuzk_partition p;            /* the host's struct, copied at submit */
    cuzk_engine *engine;
    cuzk_srs *srs;
    cuzk_cs *cs;                 /* a witness-only partition's constraint system, or NULL */
    cuzk_fr *inputs_copy;        /* the public inputs kept after an early release (malloc) */
    uint64_t handle;
    backend_estimate est;
    uint64_t host_reserved;      /* bytes of the host budget still held */
    uint64_t device_reserved;
    uint32_t device_index;
    uint32_t abc_released;
    uint32_t started;            /* counts in its worker's in-flight */
    uint32_t retried;            /* proven again on the CPU already */
    uint32_t never_fits;         /* its host budget wait gave up: nothing would give it room */
    uint32_t holds_host;         /* counted in the engine's holding until finish_job        */
    uint32_t host_released;      /* the release callback ran early (release_host service)   */
    struct worker *worker;
    arena_heap *heap;
    uint64_t t_submit, t_dequeue, t_start, t_started;
    cuzk_result result;          /* detail: written where the job fails, the rest at post */
} job;

typedef struct worker {
    _Alignas(CUZK_CACHELINE) _Atomic uint32_t inflight;
    evcount slot_free;           /* notified when inflight drops                 */
    cuzk_engine *engine;
    pthread_t thread;
    uint32_t index, device_index;
    uint32_t min_level;          /* lowest priority it takes: 0, or its urgent level */
    int32_t device;              /* ordinal reported in results and events       */
    void *ws;                    /* backend's worker state                       */
    int init_rc;
    char init_detail[256];       /* cuzk_last_error of a failed worker_init      */
    int running;
} worker;

typedef struct counter {         /* one statistic on its own cache line */
    _Alignas(CUZK_CACHELINE) _Atomic uint64_t v;
} counter;

struct cuzk_engine {
    tracker trk;                 /* first: 64-byte aligned with the engine */
    evcount work;                /* workers: a job became ready            */
    evcount urgent_work[TRACKER_LEVELS]; /* urgent workers of level L: a job of priority >= L */
    evcount finish;              /* finishers: a job needs finishing        */
    evcount results;             /* pollers (and destroy): a result posted  */
    budget host;
    budget *dev;                 /* one per device                          */
    trace tr;
    housekeeper hk;
    counter submitted, dequeued, posted, polled, ok, failed, canceled, verify_failed;
    counter host_alloc_bytes;
    counter retried;             /* partitions proven again on the CPU (RETRY_ON_CPU) */
    _Atomic uint64_t holding;    /* jobs that hold or may free host budget, and a generation
                                  * (host_reserve in engine.c) */
    _Alignas(CUZK_CACHELINE) _Atomic uint32_t shutdown;
    _Atomic uint32_t stop;
    uint64_t magic;
    engine_opts o;
    const backend_ops *ops;
    void *be;
    const backend_ops *retry_ops;/* the backend retries run on (RETRY_ON_CPU), or NULL   */
    void *retry_be;              /* its instance, or NULL                                  */
    int retry_be_owned;          /* created for retries (not e->be): destroyed with the engine */
    uint32_t devices, nworkers, nfinishers;
    worker *workers;
    pthread_t *finishers;
    uint32_t finishers_started;
    _Atomic uint32_t workers_ready; /* workers past worker_init (results evc notified) */
    job *jobs;
    unsigned char *priv;         /* capacity × ops->priv_size                */
    pthread_mutex_t srs_lock;    /* key load/release bookkeeping, not a hot path */
    cuzk_srs *srs_list;
    cuzk_cs *cs_list;            /* live constraint systems, under srs_lock  */
    _Atomic uint64_t cs_bytes;   /* their host bytes (stats)                 */
    _Atomic uint64_t cs_device_bytes; /* their device bytes (stats)        */
    _Atomic(cuzk_srs *) srs_dead;
    pthread_mutex_t alloc_lock;  /* cuzk_host_alloc bookkeeping, not a hot path  */
    struct host_block *allocs;
};

/* Internal (not exported): an engine on the backend `ops`; failed partitions are proven
 * again on `retry_ops` (NULL: never) when CUZK_OPT_RETRY_ON_CPU is set. The engine names
 * no backend itself: cuzk_engine_create picks the library's (backends.h), tests bring
 * their own (test/support/backend_trivial.h). */
int engine_create_with_backend(const cuzk_config *cfg, const backend_ops *ops, const backend_ops *retry_ops,
                               cuzk_engine **out);

/* engine.c, for engine_api.c */
static inline job *engine_job(cuzk_engine *e, uint64_t h) { return &e->jobs[tracker_index(h)]; }
void engine_srs_unref(cuzk_srs *s);
/* A key of shape's counts and vk with bases the backend makes up (backend_ops.key_synthetic):
 * the internal interface benches and tests use for sizes no setup reaches. flags: CUZK_SRS_PIN,
 * CUZK_SRS_URGENT as for cuzk_srs_load. */
struct groth16_params;
int engine_srs_load_synthetic(cuzk_engine *e, const struct groth16_params *shape, uint32_t flags, cuzk_srs **out);
void engine_srs_reap(cuzk_engine *e); /* frees dead keys' structs; srs_lock held */
/* Raises each live key's host reservation to the host memory it holds page-locked now (keys
 * that gave way to a load stream from there; engine_api.c). srs_lock not held. */
void engine_srs_count_pinned(cuzk_engine *e);
/* A key load in flight, counted among the holders of host budget from before the backend's
 * load until its reservation is the key's or given back: a partition waiting for room does not
 * give up (never fits) while a load that may fail and give its bytes back is running. */
void engine_hold_enter(cuzk_engine *e);
void engine_hold_leave(cuzk_engine *e);
/* engine_cs.c: one job's or the host's hold on a constraint system; the last frees it */
void engine_cs_unref(cuzk_cs *cs);
void engine_cs_free_all(cuzk_engine *e); /* at destroy: every job is done */
/* cuzk_cs_load of a system already in memory (benches and tests): sys (calloc'd, finalized)
 * becomes the handle's; on failure it stays the caller's. flags: CUZK_CS_*. */
int engine_cs_adopt(cuzk_engine *e, struct csc *sys, uint32_t flags, cuzk_cs **out);
/* engine_api.c, for engine_cs.c: queues a checked partition copy (its struct_size is this
 * library's) with its estimate; srs and cs (may be NULL) get one more reference for the
 * job. *out: the job's handle. CUZK_EBUDGET or CUZK_EAGAIN as cuzk_submit_partition. */
int engine_submit_checked(cuzk_engine *e, cuzk_srs *srs, cuzk_cs *cs, const cuzk_partition *copy,
                          const backend_estimate *est, uint64_t t0, uint64_t *out);
void engine_host_allocs_free_all(cuzk_engine *e);
/* The fixed detail of a canceled job: by cuzk_cancel, or by the engine's destruction. */
const char *engine_cancel_text(const cuzk_engine *e);
static inline int engine_ok(const cuzk_engine *e) { return e && e->magic == ENGINE_MAGIC; }
/* Before a thread sleeps it polls for up to o.spin_ns, so hand-offs between threads stay
 * well under a microsecond when cores are free. Returns 1 while the caller should poll on. */
typedef struct spinner {
    uint64_t start;
    unsigned n;
} spinner;
int engine_spin(const cuzk_engine *e, spinner *sp);

#endif
