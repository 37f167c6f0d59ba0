/*
 * The interface between the engine and a prover backend (CPU now, CUDA later). Two phases
 * per partition, so a device never waits for host bookkeeping:
 *   start  — on the worker thread of a device: do (CPU) or enqueue (GPU) all of the work,
 *            then return; the worker moves straight on to the next partition;
 *   finish — on a finisher thread: wait for that work, assemble A, B, C, return.
 * The engine does everything else: queueing, the budget, the partition's heap, the pairing
 * self-check (ops->verify, on the finisher), the release callback, posting the result and
 * the trace. A backend reports stage timestamps through bjob_trace.
 */
#ifndef CUZK_BACKEND_H
#define CUZK_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

/* Memory a partition will need, decided before it is queued (so a partition that can never
 * fit is refused at submit). host_abc_bytes is the part of host_bytes given back once the
 * H step is done (bjob_release_abc). */
struct groth16_params;

typedef struct backend_estimate {
    uint64_t host_bytes;
    uint64_t host_abc_bytes;
    uint64_t device_bytes;
} backend_estimate;

/* What the engine tells a backend about its configuration (resolved defaults). */
typedef struct backend_config {
    uint64_t device_mask;        /* 0 = every device */
    uint32_t workers_per_device;
    uint32_t cpu_threads;        /* 0 = one per online CPU */
    uint64_t device_budget_bytes;/* 0 = backend's choice */
} backend_config;

/* One partition as the backend sees it. The engine owns it; it lives from before start
 * until after finish. */
typedef struct backend_job {
    const cuzk_partition *p;     /* the host's partition (the struct is the engine's copy) */
    void *key;                   /* the backend's key (from key_load)                      */
    int32_t device;              /* set by start: the device ordinal, -1 = CPU             */
    int32_t worker;              /* the engine's worker index                              */
    int32_t status;              /* start/finish may leave an error code here too          */
    uint8_t proof[192];          /* written by finish                                      */
    uint64_t device_ns;          /* time on the device (or CPU) for the result; 0 = start's */
    void *priv;                  /* backend state from start to finish, priv_size bytes,   */
                                 /* provided by the engine (zeroed before start)           */
} backend_job;

typedef struct backend_ops {
    const char *name;
    int32_t kind;                /* CUZK_BACKEND_CPU / CUZK_BACKEND_CUDA (test backends: CPU) */
    uint32_t priv_size;          /* bytes of per-job state the engine provides in job->priv */
    /* 1: the partition's heap must live until finish is done (device copies read it); the
     * engine then destroys it on the worker after finish. 0: destroyed as start returns. */
    uint32_t heap_until_finish;
    /* Partitions in flight per worker (started, not finished) before the worker waits. */
    uint32_t inflight_per_worker;

    /* Engine creation: *devices = number of devices it drives (CPU: 1). */
    int (*create)(const backend_config *cfg, void **be, uint32_t *devices);
    void (*destroy)(void *be);
    /* Ordinal reported for device index d (0 .. devices-1); -1 = CPU. */
    int32_t (*device_ordinal)(void *be, uint32_t d);

    int (*key_load)(void *be, const char *path, uint32_t flags, void **key);
    /* Optional: a key of shape's counts and vk whose bases the backend makes up (benches and
     * tests at sizes no setup reaches; its proofs do not verify). */
    int (*key_synthetic)(void *be, const struct groth16_params *shape, void **key);
    /* Optional (NULL: CUZK_PLACEMENT_HOST): where the key lives on device d. out is zeroed
     * by the caller, struct_size set. */
    int (*key_placement)(void *be, void *key, uint32_t d, cuzk_placement *out);
    /* Optional: the key's groth16_params (the CPU backend's key), which lets the engine
     * prove a failed partition again on the CPU (CUZK_OPT_RETRY_ON_CPU). NULL: no retry. */
    void *(*key_params)(void *key);
    void (*key_free)(void *be, void *key);
    /* Sizes of p against key (CUZK_EMISMATCH / CUZK_EINVAL with details) and its memory.
     * Host thread, any thread, concurrently. */
    int (*check)(void *be, void *key, const cuzk_partition *p, backend_estimate *est);

    /* Per worker state, created on the worker thread itself. */
    int (*worker_init)(void *be, uint32_t device, uint32_t worker, void **ws);
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

/* ---- what the engine offers a backend during start/finish ---- */

/* Working memory from the partition's heap (64-byte aligned; NULL when the arena is
 * exhausted). Only on the worker thread, only during start. */
void *bjob_alloc(backend_job *job, size_t bytes);
/* Frees bjob_alloc memory early (any thread); everything left goes with the heap. */
void bjob_free(backend_job *job, void *ptr);
/* The H step is done: give the a/b/c share of the budget back. Idempotent. */
void bjob_release_abc(backend_job *job);
/* Has the host canceled this job, or is the engine shutting down? Check between stages
 * and return CUZK_ECANCELED when it says so. */
int bjob_canceled(const backend_job *job);
/* A stage event (CUZK_TRACE_*) for this job; free when tracing is off. */
void bjob_trace(backend_job *job, int32_t kind, uint64_t begin_ns, uint64_t end_ns, uint64_t bytes);
/* CLOCK_MONOTONIC nanoseconds (the trace's clock). */
uint64_t bjob_now_ns(void);

/* Backends known to the engine. */
extern const backend_ops backend_cpu_ops;
#if CUZK_HAVE_CUDA
extern const backend_ops backend_cuda_ops; /* backend_cuda.c */
#endif
/* Test-only: a prover that does no arithmetic (see backend_trivial.h). */
extern const backend_ops backend_trivial_ops;

#endif
