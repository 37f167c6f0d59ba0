/*
 * What the stress driver's two files share (stress.c: keys, phases, checks, summary;
 * stress_load.c: the load's threads, call timing, the watchdog). Not for tests: they include
 * stress.h. One run at a time per process, so the run's state is global.
 */
#ifndef CUZK_TEST_STRESS_INT_H
#define CUZK_TEST_STRESS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "support/stress.h"
#include "support/testkey.h"

enum { K_BULK, K_WINNING, K_WINDOW, NKEYS };
/* a job's kind: which producer made it */
enum { J_BULK, J_WINNING, J_WINDOW, J_CHURN, NKINDS };
/* timed calls, each with its own bound and maximum */
enum { C_SUBMIT, C_CANCEL, C_POLL0, C_POLL, C_STATS, C_LOAD, C_RELEASE, C_PLACEMENT, C_HOST_ALLOC, C_HOST_FREE,
       C_CREATE, C_DESTROY, C_CS_LOAD, C_CS_RELEASE, NCALLS };
/* when a job's cancel was asked: none, soon after its submit, or after its result was polled */
enum { CANCEL_NONE, CANCEL_SOON, CANCEL_LATE };

typedef struct skey {
    test_key k;
    cuzk_partition tmpl; /* the circuit's witness (owned; tmpl.release frees it) */
    size_t bytes;        /* one job's copy of its arrays */
    size_t wbytes;       /* one witness-only job's copy: inputs and aux */
    char cs_path[96];    /* the bulk key's circuit as a .r1cs file (cuzk_cs_load), else "" */
} skey;

typedef struct sjob {
    struct sjob *next_free;       /* the list of released cuzk_host_alloc blocks            */
    void *block;                  /* the job's arrays: cuzk_host_alloc (pinned) or malloc    */
    uint64_t id;                  /* its index in the phase's table, and its user_tag        */
    size_t bytes;                 /* of block                                                */
    int pinned, kind, key, alone, after_faults, accepted;
    int witness;                  /* submitted witness-only (cuzk_submit_witness)            */
    int cancel_mode, cancel_rc;   /* the canceling thread's; read after it was joined        */
    cuzk_job h;                   /* written by the submit call (the result may come first)  */
    _Atomic uint64_t t_submit;    /* when submitted; the watchdog's clock for the job        */
    _Atomic int live;             /* submitted and its result not yet polled                 */
    _Atomic int releases, polls, cancel_asked;
    _Atomic int published;        /* the poller's fields below are written                   */
    uint64_t t_result;
    int32_t status;
    cuzk_job result_job;
} sjob;

/* A thread's current call, for the watchdog. */
typedef struct tslot {
    _Atomic uint64_t since, bound_ns; /* since 0: in no call */
    _Atomic int call;
    uint64_t extra_ns;                /* the owner thread's: the bound's allowance (a timeout) */
    const char *who;
} tslot;

/* 1 in the simulated device's build (test/simgpu, make test-simgpu): the CUDA backend with the
 * host's arithmetic, every byte of device memory counted */
#ifdef CUZK_SIMGPU
#define S_SIMGPU 1
#else
#define S_SIMGPU 0
#endif

#define S_CHUNK 1024
#define S_MAX_CHUNKS 4096
#define S_MAX_SLOTS 32

typedef struct stress_phase {
    int index, workers, faults;
    const char *name;
    uint64_t budget;
    _Atomic(cuzk_engine *) e;     /* atomic: the watchdog reads it when it reports a stall   */
    cuzk_srs *srs[NKEYS];
    cuzk_cs *cs;                  /* the bulk key's constraint system (NULL: none loaded)     */
    pthread_mutex_t cs_lock;      /* cs: a submit on it against its swap and release          */
    pthread_mutex_t lock;         /* job table growth and the free list                     */
    sjob *chunks[S_MAX_CHUNKS];   /* written before njobs is raised past them                */
    _Atomic uint64_t njobs;
    sjob *free_list;
    pthread_t watchdog;
    _Atomic int stop_load, stop_pollers, stop_watch, jobs_unwatched, destroyed, in_destroy;
    _Atomic uint64_t faults_off_ns; /* the fault phase: when the faults stopped (0: not yet) */
    _Atomic uint64_t max_ns[NCALLS];
    _Atomic uint64_t bulk_inflight, accepted, polled_total, ok, canceled, fault_failed, fault_calls_failed;
    _Atomic uint64_t ok_after_faults, loads, load_refused, releases, faults_fired, faults_armed;
    _Atomic uint64_t cancels_soon, cancels_late, late_cancel_ok;
    _Atomic uint64_t witness_accepted, witness_ok, cs_loads, cs_refused, cs_releases;
    _Atomic uint64_t failed_by_code[16]; /* jobs failed by faults, by -status              */
    uint64_t alone_ns[2];         /* WinningPoSt, WindowPoSt: median alone                   */
    tslot slots[S_MAX_SLOTS];
    _Atomic int nslots;
} stress_phase;

extern const stress_cfg *S_cfg;
extern uint64_t S_seed;
extern stress_phase *P;
extern skey S_keys[NKEYS];
extern _Atomic int S_failures;
extern const char *const s_kind_name[NKINDS];
extern const char *const s_call_name[NCALLS];

uint64_t s_now(void);
uint64_t s_rand(uint64_t *state); /* splitmix64 */
void s_sleep_ms(double ms);
/* Counts and prints a failure, naming the seed and the phase. */
void s_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int s_cmp_u64(const void *a, const void *b); /* qsort of uint64_t */
void s_fill_partition(const skey *k, void *block, cuzk_partition *p);
/* The template's witness (inputs, aux) copied into block (k->wbytes) and w pointed at it. */
void s_fill_witness(const skey *k, void *block, cuzk_witness_partition *w);

/* Call timing: expr runs inside the thread's slot, watched against the call's bound (plus
 * extra_ns: a poll's timeout); its duration (past extra_ns) goes into the phase's maximum. */
uint64_t s_call_begin(tslot *s, int call, uint64_t extra_ns);
void s_call_end(tslot *s, int call, uint64_t t0);
#define S_TIMED(slot, call, extra_ns, expr)                                                      \
    do {                                                                                         \
        uint64_t t0_ = s_call_begin((slot), (call), (extra_ns));                                 \
        expr;                                                                                    \
        s_call_end((slot), (call), t0_);                                                         \
    } while (0)

tslot *s_slot(const char *who);
sjob *s_job_at(uint64_t i);
/* A fresh phase (P) and its watchdog; s_phase_end stops the watchdog and frees it. */
void s_phase_begin(int index, const char *name, uint64_t budget, int workers, int faults);
void s_phase_end(void);
/* The phase's engine (the options of stress.h) and its three keys; 0 or the failing code
 * (printed; a failing load is a test failure only when must). */
int s_engine_create(tslot *s, uint64_t budget, int workers, int faults, cuzk_engine **out);
int s_load_keys(tslot *s, cuzk_engine *e, cuzk_srs *srs[NKEYS], int must);
/* A constraint system of the bulk key's circuit (on a GPU CUZK_CS_STREAM when stream, else at
 * random); NULL when it could not be loaded (a failure unless a budget or a fault explains it). */
cuzk_cs *s_cs_load(tslot *s, uint64_t *rng, int stream);
void s_cs_release(tslot *s, cuzk_cs *cs); /* NULL: nothing; timed and counted */
/* One witness-only partition on P->cs (none: nothing) proven on the idle engine: every phase
 * with a constraint system proves one whatever the load's timing (the load's may all still be
 * queued at destroy on a slow machine). */
void s_witness_alone(tslot *s);
/* Each urgent kind's median time alone into P->alone_ns. */
void s_alone(tslot *s);
/* The load for cfg->seconds; returns with every load thread joined (jobs still in flight). */
void s_load_run(void);
/* After destroy: the released cuzk_host_alloc blocks not yet freed were freed by it. */
void s_drop_free_list(void);

#endif
