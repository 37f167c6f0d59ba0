/*
 * The interface between the engine and a prover backend (CPU, CUDA; tests add their own).
 * Two phases per partition:
 *   start  — on a worker thread of a device: all of the partition's work that reads its
 *            buffers. Synchronous: when start returns, nothing (host thread or device) reads
 *            the job's heap (bjob_alloc memory) or the partition's buffers any more; the
 *            engine then destroys the heap and gives the host budget back at once, before
 *            the worker takes its next partition. Overlap between consecutive partitions on
 *            one device comes from two or more workers per device (one stages while the
 *            other computes), not from start returning early.
 *   finish — on a finisher thread, after start returned CUZK_OK: may wait for device work
 *            that reads only the backend's own memory, then assembles A, B, C into
 *            job->proof. The partition's buffers are still valid (the host's release
 *            callback runs after finish and the self-check), but the heap is gone.
 * The engine does everything else: queueing, the budget, the partition's heap, the pairing
 * self-check (ops->verify, on the finisher), the CPU retry, the release callback, posting
 * the result and the trace. A backend reaches the engine only through the services in
 * job->svc (the bjob_* wrappers below); it never calls into lib/engine by symbol.
 */
#ifndef CUZK_BACKEND_H
#define CUZK_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cuzk/cuzk.h"

/* Memory a partition will need, decided before it is queued (so a partition that can never
 * fit is refused at submit). host_abc_bytes is the part of host_bytes given back once the
 * H step is done (bjob_release_abc). device_bytes is reserved from the engine's device
 * budget per partition; 0 where the backend bounds device memory itself (CUDA: the key's
 * placement sized its slots at load, so a partition of a loaded key always fits). */
struct groth16_params;
struct csc;

typedef struct backend_estimate {
    uint64_t host_bytes;
    uint64_t host_abc_bytes;
    uint64_t device_bytes;
} backend_estimate;

/* The engine's host budget (CUZK_OPT_HOST_BUDGET_BYTES) as a key load sees it: a load that is
 * to page-lock a host copy of the key's own bases (CUDA: a key that streams) reserves it here
 * before it evicts anything on a device, so a load the budget refuses takes nothing from the
 * keys loaded before it. reserve: 1 and the bytes are reserved, 0 when they do not fit now
 * (never waits); ctx is passed back. What a load reserved is the key's once key_load returns
 * CUZK_OK (backend_ops.key_host_reserved says how much: the engine holds it from then on and
 * gives it back with the key); a load that fails gives back what it reserved. reserve NULL:
 * no budget (the engine counts the key's page-locked copy after the load, as before). */
typedef struct backend_host_budget {
    int (*reserve)(void *ctx, uint64_t bytes);
    void (*release)(void *ctx, uint64_t bytes);
    uint64_t (*free_bytes)(void *ctx); /* free now (a refusal's message says how much) */
    uint64_t total;                    /* the whole budget                                 */
    void *ctx;
} backend_host_budget;

/* What the engine tells a backend about its configuration (resolved defaults). */
typedef struct backend_config {
    uint64_t device_mask;        /* 0 = every device */
    uint32_t workers_per_device; /* workers taking any partition                          */
    uint32_t cpu_threads;        /* 0 = one per online CPU */
    uint64_t device_budget_bytes;/* 0 = backend's choice */
    /* Extra workers per device that take only urgent partitions (CUZK_OPT_URGENT_PRIORITY
     * = T: 8 - T of them, 0 when unset): a device's memory must hold their scratch too
     * (each grows to the largest partition it ran; the top levels usually run only small
     * WinningPoSt partitions). */
    uint32_t urgent_workers_per_device;
    uint32_t urgent_priority;    /* that T: a partition of priority >= T is urgent (0: none)  */
    backend_host_budget host;    /* valid until destroy                                       */
} backend_config;

typedef struct backend_job backend_job;

/* What the engine lends a backend for one job. One instance per engine; every backend_job
 * carries a pointer to it (job->svc). Call through the bjob_* wrappers. */
typedef struct backend_services {
    /* Working memory from the partition's heap (64-byte aligned; NULL when the arena is
     * exhausted). Only on the worker thread, only during start. */
    void *(*alloc)(backend_job *job, size_t bytes);
    /* Frees alloc memory early (any thread); everything left goes with the heap. */
    void (*free)(backend_job *job, void *ptr);
    /* The H step is done: give the a/b/c share of the budget back. Idempotent. */
    void (*release_abc)(backend_job *job);
    /* Has the host canceled this job, or is the engine shutting down? */
    int (*canceled)(const backend_job *job);
    /* A stage event (CUZK_TRACE_*) for this job; free when tracing is off. */
    void (*trace)(backend_job *job, int32_t kind, uint64_t begin_ns, uint64_t end_ns, uint64_t bytes);
    /* Nothing reads the host's buffers (witness, a/b/c) any more: the engine keeps a copy of
     * the public inputs for the self-check and runs the host's release callback now, on
     * this thread, instead of after finish. Only on the worker, during start; at most once.
     * A job released early is not proven again on the CPU (its witness is gone). */
    void (*release_host)(backend_job *job);
} backend_services;

/* One partition as the backend sees it. The engine owns it; it lives from before start
 * until after finish. */
struct backend_job {
    const cuzk_partition *p;     /* the host's partition (the struct is the engine's copy) */
    /* A witness-only partition (cuzk_submit_witness): its constraint system, else NULL.
     * Then p->a, p->b, p->c are NULL, p->abc_len is cs->abc_len, the densities are cs's, and
     * start computes a, b, c from cs and p's inputs and aux (groth16/csc.h). */
    const struct csc *cs;
    void *cs_be;                 /* the backend's placement of cs (ops->cs_place), or NULL */
    void *key;                   /* the backend's key (from key_load)                      */
    const backend_services *svc; /* the engine's services (set at engine creation)         */
    int32_t device;              /* set by start: the device ordinal, -1 = CPU             */
    int32_t worker;              /* the engine's worker index                              */
    int32_t status;              /* start/finish may leave an error code here too          */
    uint32_t urgent;             /* 0, or the level (1..7) of the urgent worker running it */
                                 /* (CUZK_OPT_URGENT_PRIORITY; its priority is >= that)    */
    uint8_t proof[192];          /* written by finish                                      */
    uint64_t device_ns;          /* time on the device (or CPU) for the result; 0 = start's */
    void *priv;                  /* backend state from start to finish, priv_size bytes,   */
                                 /* provided by the engine (zeroed before start)           */
};

/* worker_init flags */
enum {
    /* This worker takes only urgent partitions (CUZK_OPT_URGENT_PRIORITY = T: each device
     * has one urgent worker per level T..7, the one of level L taking priorities >= L) and
     * runs beside the device's other workers: give its work precedence where the backend
     * can (CUDA: streams of a higher stream priority, higher levels higher where the device
     * has enough; CPU: the thread pool's urgent lane). The level is
     * BACKEND_WORKER_LEVEL(flags). */
    BACKEND_WORKER_URGENT = 1,
    BACKEND_WORKER_LEVEL_SHIFT = 8
};
#define BACKEND_WORKER_LEVEL(flags) ((flags) >> BACKEND_WORKER_LEVEL_SHIFT)

typedef struct backend_ops {
    const char *name;
    int32_t kind;                /* CUZK_BACKEND_CPU / CUZK_BACKEND_CUDA (test backends: CPU) */
    uint32_t priv_size;          /* bytes of per-job state the engine provides in job->priv */
    /* Partitions per worker started and not yet finished before the worker waits (start
     * is synchronous, so this only lets finish of one overlap start of the next). */
    uint32_t inflight_per_worker;

    /* Engine creation: *devices = number of devices it drives (CPU: 1). */
    int (*create)(const backend_config *cfg, void **be, uint32_t *devices);
    void (*destroy)(void *be);
    /* Ordinal reported for device index d (0 .. devices-1); -1 = CPU. */
    int32_t (*device_ordinal)(void *be, uint32_t d);

    /* flags: CUZK_SRS_* (cuzk.h), already checked by the engine. */
    int (*key_load)(void *be, const char *path, uint32_t flags, void **key);
    /* Optional: a key of shape's counts and vk whose bases the backend makes up (benches and
     * tests at sizes no setup reaches; its proofs do not verify). */
    int (*key_synthetic)(void *be, const struct groth16_params *shape, uint32_t flags, void **key);
    /* Optional (NULL: CUZK_PLACEMENT_HOST): where the key lives on device d. out is zeroed
     * by the caller, struct_size set. */
    int (*key_placement)(void *be, void *key, uint32_t d, cuzk_placement *out);
    /* Optional: the key's groth16_params (the CPU backend's key), which lets the engine
     * prove a failed partition again on the retry backend (CUZK_OPT_RETRY_ON_CPU). NULL:
     * no retry. */
    void *(*key_params)(void *key);
    /* Optional (NULL: 0): host budget bytes the key's load reserved through
     * backend_config.host, which the engine holds for the key from now on. */
    uint64_t (*key_host_reserved)(void *key);
    /* Called once no job uses the key any more (the engine counts its users). */
    void (*key_free)(void *be, void *key);
    /* Sizes of p against key (CUZK_EMISMATCH / CUZK_EINVAL with details) and its memory.
     * Host thread, any thread, concurrently. */
    int (*check)(void *be, void *key, const cuzk_partition *p, backend_estimate *est);
    /* The same for a witness-only partition of cs (p as in backend_job.cs). NULL: the
     * backend cannot evaluate a, b, c, and cuzk_submit_witness says so (CUZK_EINVAL). */
    int (*check_witness)(void *be, void *key, const struct csc *cs, void *cs_be, const cuzk_partition *p,
                         backend_estimate *est);
    /* Optional: places a constraint system on the backend's devices at cuzk_cs_load (CUDA:
     * resident or streamed, through the device budget) into *out (cs_be, passed back to
     * check_witness and in backend_job.cs_be); cs outlives it. cs_unplace gives it back once
     * no job uses it; cs_device_bytes: what it holds on the devices (summed), and on how many
     * devices it is resident (whole) and streamed. */
    int (*cs_place)(void *be, const struct csc *cs, uint32_t flags, void **out); /* CUZK_CS_* */
    void (*cs_unplace)(void *be, void *cs_be);
    void (*cs_device)(void *be, void *cs_be, uint64_t *device_bytes, uint32_t *resident, uint32_t *streamed);

    /* Per worker state, created on the worker thread itself; flags: BACKEND_WORKER_*. */
    int (*worker_init)(void *be, uint32_t device, uint32_t worker, uint32_t flags, void **ws);
    void (*worker_fini)(void *ws);
    /* Worker thread. Returns CUZK_OK or an error that ends the job (finish is skipped). */
    int (*start)(void *ws, backend_job *job);
    /* Finisher thread. Writes job->proof. */
    int (*finish)(void *be, backend_job *job);
    /* Finisher thread: CUZK_OK if job->proof verifies against the key and p's inputs. */
    int (*verify)(void *be, void *key, backend_job *job);

    /* Optional (NULL: plain memory): memory for cuzk_host_alloc (CUDA: pinned). */
    int (*host_alloc)(void *be, size_t bytes, void **out);
    void (*host_free)(void *be, void *p, size_t bytes);
} backend_ops;

/* ---- the engine's services, as backends call them ---- */

static inline void *bjob_alloc(backend_job *job, size_t bytes) { return job->svc->alloc(job, bytes); }
static inline void bjob_free(backend_job *job, void *ptr) { job->svc->free(job, ptr); }
static inline void bjob_release_abc(backend_job *job) { job->svc->release_abc(job); }
static inline void bjob_release_host(backend_job *job) { job->svc->release_host(job); }
/* Check between stages and return CUZK_ECANCELED when it says so. */
static inline int bjob_canceled(const backend_job *job) { return job->svc->canceled(job); }
static inline void bjob_trace(backend_job *job, int32_t kind, uint64_t begin_ns, uint64_t end_ns, uint64_t bytes)
{
    job->svc->trace(job, kind, begin_ns, end_ns, bytes);
}
/* CLOCK_MONOTONIC nanoseconds: the trace's clock (cuzk.h), read directly — no service. */
static inline uint64_t bjob_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
