/*
 * libcuzk — a Groth16 (BLS12-381) proving engine for Filecoin partitions, on GPUs and CPUs.
 *
 * This is the one header a host includes (plus cuzk/r1cs.h for circom tooling). It is plain
 * C99, also valid C++, includes no CUDA header and keeps no logic inline, so cgo, bindgen and
 * any FFI reach every call. Conventions:
 *   - every exported symbol starts with cuzk_; every fallible call returns int:
 *     CUZK_OK (0) or a negative CUZK_E* code; cuzk_strerror() names the code and
 *     cuzk_last_error() gives this thread's detail of its last failure;
 *   - structs that cross the ABI start with uint32_t struct_size so they can grow: fields
 *     are only ever appended, and CUZK_<STRUCT>_SIZE_V1 below freezes each struct's size as
 *     first published (0.1.0). The library accepts any struct_size from that size up and
 *     reads or writes only the prefix the host's struct_size covers, so a host compiled
 *     against an older, smaller struct keeps working against a newer library;
 *   - the formats a host produces and reads (partitions, keys, proofs) are described in the
 *     repository's docs/ (docs/formats.md), the calls in docs/api.md;
 *   - ownership of every pointer is stated next to each call.
 */
#ifndef CUZK_H
#define CUZK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CUZK_BUILDING_LIBRARY) && defined(__GNUC__)
#define CUZK_API __attribute__((visibility("default")))
#else
#define CUZK_API
#endif

/* ---------------------------------------------------------------------------------------- */
/* Version                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/* MAJOR.MINOR names the newest symbol version node (CUZK_MAJOR.MINOR): a minor release adds
 * symbols, each release's in a node of its own. The build takes the library's version from here. */
#define CUZK_VERSION_MAJOR 0
#define CUZK_VERSION_MINOR 4
#define CUZK_VERSION_PATCH 0
#define CUZK_VERSION_NUMBER (CUZK_VERSION_MAJOR * 10000 + CUZK_VERSION_MINOR * 100 + CUZK_VERSION_PATCH)

/* The version of the library actually loaded (compare with CUZK_VERSION_NUMBER). Thread-safe. */
CUZK_API uint32_t cuzk_version_number(void);
/* "MAJOR.MINOR.PATCH" of the loaded library; a static string. Thread-safe. */
CUZK_API const char *cuzk_version_string(void);

/* ---------------------------------------------------------------------------------------- */
/* Errors                                                                                    */
/* ---------------------------------------------------------------------------------------- */

/* Codes are never renumbered or reused. */
enum {
    CUZK_OK = 0,
    CUZK_EINVAL = -1,     /* a NULL or malformed argument                                  */
    CUZK_ENOMEM = -2,     /* host memory exhausted                                         */
    CUZK_EAGAIN = -3,     /* nothing ready within the timeout; try again                   */
    CUZK_ECANCELED = -4,  /* the job was canceled                                          */
    CUZK_EFORMAT = -5,    /* bytes that do not decode (file, point, proof)                 */
    CUZK_EMISMATCH = -6,  /* sizes that do not fit together (partition vs key)             */
    CUZK_EBUDGET = -7,    /* a reservation that can never fit the configured budget        */
    CUZK_EDEVICE = -8,    /* a GPU/CUDA failure                                            */
    CUZK_EVERIFY = -9,    /* a well-formed proof that does not verify                      */
    CUZK_ESHUTDOWN = -10, /* the engine is being destroyed                                 */
    CUZK_EIO = -11,       /* an operating-system I/O failure                               */
    CUZK_ENOTFOUND = -12, /* a stale, foreign or unknown handle                            */
    CUZK_ERANGE = -13     /* an output buffer too small; the call reports the size needed  */
};

/* The name and meaning of a code ("CUZK_EFORMAT: malformed data"); a static string, never
 * NULL (unknown codes give "unknown error"). Thread-safe. */
CUZK_API const char *cuzk_strerror(int code);

/* Detail of the last failure of a cuzk_ call on the calling thread ("b_g2 has 998 points,
 * density popcount is 1000"); "" if none. Every call that returns int clears it ("") when it
 * returns CUZK_OK, so it always describes the calling thread's latest fallible call; the
 * calls that cannot fail (cuzk_version_*, cuzk_strerror, cuzk_last_error itself and the
 * void ones: *_free, *_release, cuzk_engine_destroy) leave it as it was. A job's own failure
 * is not reported here but in its result (cuzk_result.detail). The string is thread-local
 * and valid until the next cuzk_ call on this thread. Thread-safe. */
CUZK_API const char *cuzk_last_error(void);

/* ---------------------------------------------------------------------------------------- */
/* Scalars                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/* One element of Fr, the BLS12-381 scalar field: four little-endian 64-bit limbs. */
typedef struct cuzk_fr {
    uint64_t l[4];
} cuzk_fr;

enum {
    CUZK_FR_MONTGOMERY = 0, /* x·2^256 mod r, as blstrs/bellperson keep scalars in memory */
    CUZK_FR_CANONICAL = 1   /* x itself, < r (32-byte little-endian)                      */
};


/* ---------------------------------------------------------------------------------------- */
/* Partitions and results                                                                    */
/* ---------------------------------------------------------------------------------------- */

typedef uint64_t cuzk_job; /* slot index + generation; a stale handle is CUZK_ENOTFOUND */

/* One partition's witness, exactly as bellperson's synthesis produces it (docs/formats.md).
 * Borrowed, not copied: the engine reads these buffers until it calls
 * release(release_user), exactly once, on success, failure or cancel. */
typedef struct cuzk_partition {
    uint32_t struct_size;            /* sizeof(cuzk_partition) as the host compiled it
                                        (>= CUZK_PARTITION_SIZE_V1)                         */
    int32_t scalar_form;             /* CUZK_FR_MONTGOMERY or CUZK_FR_CANONICAL             */
    const cuzk_fr *a, *b, *c;        /* constraint evaluations, input constraints included  */
    uint64_t abc_len;
    const cuzk_fr *inputs;           /* inputs[0] is ONE                                    */
    uint64_t num_inputs;
    const cuzk_fr *aux;
    uint64_t num_aux;
    const uint64_t *a_aux_density;   /* num_aux bits, LSB first in 64-bit words             */
    const uint64_t *b_input_density; /* num_inputs bits                                     */
    const uint64_t *b_aux_density;   /* num_aux bits                                        */
    const cuzk_fr *r, *s;            /* NULL: drawn from the OS CSPRNG                      */
    int32_t priority;                /* higher first; FIFO within a priority                */
    uint32_t reserved;               /* must be 0                                           */
    uint64_t user_tag;               /* echoed in the result and in trace events            */
    void (*release)(void *release_user); /* may be NULL                                     */
    void *release_user;
} cuzk_partition;

/* The size of cuzk_partition as published in 0.1.0 (LP64), the smallest struct_size
 * cuzk_submit_partition accepts. */
#define CUZK_PARTITION_SIZE_V1 144u

/* One finished job. The host sets struct_size before cuzk_poll_result; the library writes
 * only the members that size covers (a host built before 0.2 passes CUZK_RESULT_SIZE_V1 and
 * gets everything up to total_ns) and sets struct_size to the size it wrote. */
typedef struct cuzk_result {
    uint32_t struct_size;
    int32_t status;                  /* CUZK_OK or the error that ended the job             */
    cuzk_job job;
    uint64_t user_tag;
    uint8_t proof[192];              /* A‖B‖C compressed: bellperson Proof::write            */
    int32_t device;                  /* -1 = CPU                                            */
    uint32_t reserved;
    uint64_t queued_ns, device_ns, total_ns;
    /* --- end of CUZK_RESULT_SIZE_V1 (0.1.0); added in 0.2: --- */
    /* Why the job failed, NUL-terminated, human-readable: the detail its worker or finisher
     * reported ("aux[17] is not below r (Montgomery form)", a count that does not fit the
     * key, the CUDA error text) or a fixed text for cancel and shutdown; "" when status is
     * CUZK_OK. At most 255 bytes (longer text is truncated). It is part of the result: a
     * copy owned by the host, valid as long as its cuzk_result, on any thread. */
    char detail[256];
} cuzk_result;

/* The size of cuzk_result as published in 0.1.0 (without detail). */
#define CUZK_RESULT_SIZE_V1 248u

/* ---------------------------------------------------------------------------------------- */
/* Trace events                                                                              */
/* ---------------------------------------------------------------------------------------- */

/* What a trace event measured. Stage events span [begin_ns, end_ns]; instant events have
 * begin_ns == end_ns. New kinds may be added; hosts should ignore kinds they do not know.
 * On the CUDA backend H2D_COPY, H_STEP and the MSM kinds are device time: CUDA events mapped
 * onto the host clock (they may overlap other workers' stages on the same device). */
enum {
    CUZK_TRACE_SUBMIT = 1,      /* the submit call (host thread)                            */
    CUZK_TRACE_QUEUE_WAIT = 2,  /* accepted -> taken by a worker                            */
    CUZK_TRACE_BUDGET_WAIT = 3, /* a worker waited for the memory budget; bytes = reserved  */
    CUZK_TRACE_H2D_COPY = 4,    /* witness staged into device memory; bytes = copied        */
    CUZK_TRACE_NTT_INTT = 5,    /* inverse NTTs of a, b, c (H step)                         */
    CUZK_TRACE_NTT_COSET = 6,   /* coset NTTs of a, b, c (H step)                           */
    CUZK_TRACE_NTT_COSET_INTT = 7, /* a·b − c, ·Z⁻¹ and the coset iNTT (H step)             */
    CUZK_TRACE_H_STEP = 8,      /* the whole H step when its NTTs are not timed one by one  */
    CUZK_TRACE_MSM_H = 9,
    CUZK_TRACE_MSM_L = 10,
    CUZK_TRACE_MSM_A = 11,
    CUZK_TRACE_MSM_B_G1 = 12,
    CUZK_TRACE_MSM_B_G2 = 13,
    CUZK_TRACE_MSM_ALL = 14,    /* all five MSMs when they are not timed one by one         */
    CUZK_TRACE_ASSEMBLY = 15,   /* A, B, C from the MSM sums and r, s                       */
    CUZK_TRACE_VERIFY = 16,     /* the pairing self-check                                   */
    CUZK_TRACE_RELEASE = 17,    /* the host's release callback                              */
    CUZK_TRACE_ARENA_TRIM = 18, /* housekeeping returned idle memory to the OS              */
    CUZK_TRACE_DEVICE_IDLE = 19,/* a worker had nothing to do (worker = -1 for none)        */
    CUZK_TRACE_START = 20,      /* a worker's whole share of one partition (busy time)      */
    CUZK_TRACE_FINISH = 21,     /* a finisher's whole share of one partition                */
    CUZK_TRACE_RESULT = 22,     /* instant: the result was posted; bytes = 0, job, user_tag */
    CUZK_TRACE_HOST_PREP = 23,  /* a worker's host preparation of a partition's scalars (range
                                   checks, staging into pinned memory, density compaction);
                                   bytes = staged                                         */
    CUZK_TRACE_CS_EVAL = 24     /* a witness-only partition's a = A·w, b = B·w, c = C·w
                                   (cuzk_submit_witness); bytes = the three vectors' size   */
};

typedef struct cuzk_trace_event {
    uint32_t struct_size;       /* sizeof(cuzk_trace_event) as the library was built: at
                                   least CUZK_TRACE_EVENT_SIZE_V1; a host reads only the
                                   members it knows (later libraries only append)          */
    int32_t kind;               /* CUZK_TRACE_*                                             */
    int32_t device;             /* GPU ordinal, -1 = CPU                                    */
    int32_t worker;             /* worker index within the engine, -1 = not a worker        */
    uint64_t job;               /* the cuzk_job, 0 if none                                  */
    uint64_t user_tag;          /* the partition's user_tag, 0 if none                      */
    uint64_t begin_ns, end_ns;  /* CLOCK_MONOTONIC nanoseconds                              */
    uint64_t bytes;             /* bytes moved or reserved, 0 if not applicable             */
} cuzk_trace_event;

/* The size of cuzk_trace_event as published in 0.1.0. */
#define CUZK_TRACE_EVENT_SIZE_V1 56u

/* Called on the engine's one trace thread, never on a proving thread, one event at a time
 * in the order the ring received them. The event is borrowed for the call. A slow callback
 * never slows proving: events that find the ring full are dropped and counted
 * (cuzk_stats.trace_dropped). It must not call cuzk_engine_destroy on its own engine. */
typedef void (*cuzk_trace_fn)(const cuzk_trace_event *event, void *user);

/* ---------------------------------------------------------------------------------------- */
/* Configuration                                                                             */
/* ---------------------------------------------------------------------------------------- */

/* Options for cuzk_config_set. 0 means "the default" for every option but CUZK_OPT_VERIFY. */
enum {
    CUZK_OPT_BACKEND = 1,            /* CUZK_BACKEND_*; default AUTO (CUDA if usable, else CPU) */
    CUZK_OPT_DEVICE_MASK = 2,        /* bit i = use GPU i; default 0 = every GPU                */
    CUZK_OPT_WORKERS_PER_DEVICE = 3, /* 1..64 proving threads per device (the CPU is one); 0 = 1 */
    CUZK_OPT_CPU_THREADS = 4,        /* threads for CPU arithmetic, 0 = one per online CPU     */
    CUZK_OPT_HOST_BUDGET_BYTES = 5,  /* working-memory budget, 0 = 3/4 of physical memory      */
    CUZK_OPT_DEVICE_BUDGET_BYTES = 6,/* per-GPU budget, 0 = what the GPU has free at start     */
    CUZK_OPT_QUEUE_CAPACITY = 7,     /* jobs in the engine at once (queued, running or waiting
                                        to be polled), 1..1048576; 0 = 1024                   */
    CUZK_OPT_VERIFY = 8,             /* 1 = check every proof with a pairing before returning
                                        it (default), 0 = do not                               */
    CUZK_OPT_FINISHER_THREADS = 9,   /* 1..64 threads that finish, verify and post; 0 = 2      */
    CUZK_OPT_TRACE_CAPACITY = 10,    /* trace ring size in events, 16..2^20; 0 = 8192          */
    CUZK_OPT_IDLE_SPIN_NS = 11,      /* how long an idle engine thread (and a waiting poll) polls
                                        before it sleeps, 1..1e9 ns; -1 = never; 0 = 20 us
                                        with 4 or more online CPUs, else never                */
    CUZK_OPT_RETRY_ON_CPU = 12,      /* 1 = a partition that ends with CUZK_EDEVICE, CUZK_EBUDGET
                                        or CUZK_EVERIFY is proven once more, on the CPU, before
                                        its result is posted (on a finisher thread; the result's
                                        device is then -1; a second failure is the result).
                                        Skipped when canceled, shutting down, or when the host
                                        budget cannot hold the CPU prover now. The release
                                        callback still runs once, after the retry. On a GPU
                                        engine a CPU prover (CPU_THREADS threads) is kept
                                        for it. 0 = off (default)                              */
    CUZK_OPT_URGENT_PRIORITY = 13    /* T in 1..7: partitions of priority T or higher are urgent:
                                        each device gets 8 - T more workers, one per level
                                        L = T..7 taking only priorities >= L, which run beside
                                        the others (see "Priorities" at cuzk_submit_partition).
                                        Filecoin: 6 (WindowPoSt at 6, WinningPoSt at 7).
                                        0 = no urgent workers (default)                        */
};
enum { CUZK_BACKEND_AUTO = 0, CUZK_BACKEND_CPU = 1, CUZK_BACKEND_CUDA = 2 };

typedef struct cuzk_config cuzk_config;

/* A configuration holding every default. *out is owned by the caller: free it with
 * cuzk_config_free (an engine keeps its own copy). Thread-safe.
 * Errors: CUZK_EINVAL (out NULL), CUZK_ENOMEM. */
CUZK_API int cuzk_config_new(cuzk_config **out);
/* Frees a configuration; NULL is ignored. */
CUZK_API void cuzk_config_free(cuzk_config *cfg);
/* Sets one option (CUZK_OPT_*). Not thread-safe on one cfg.
 * Errors: CUZK_EINVAL (cfg NULL, unknown option, value out of the option's range; the
 * detail names the option and the range). */
CUZK_API int cuzk_config_set(cuzk_config *cfg, int32_t option, int64_t value);
/* Reads one option back into *value (0 = default). Errors: CUZK_EINVAL. */
CUZK_API int cuzk_config_get(const cuzk_config *cfg, int32_t option, int64_t *value);
/* The trace callback (fn NULL = no tracing, the default) and its user pointer, passed back
 * untouched on every call; user must stay valid until cuzk_engine_destroy returns.
 * Errors: CUZK_EINVAL (cfg NULL). */
CUZK_API int cuzk_config_set_trace(cuzk_config *cfg, cuzk_trace_fn fn, void *user);

/* ---------------------------------------------------------------------------------------- */
/* Engine and proving keys                                                                   */
/* ---------------------------------------------------------------------------------------- */

typedef struct cuzk_engine cuzk_engine;
typedef struct cuzk_srs cuzk_srs;

/* Starts an engine: its workers, finishers, trace and housekeeping threads. cfg (NULL =
 * defaults) is borrowed for the call. *out is owned by the caller until
 * cuzk_engine_destroy. Thread-safe.
 * Errors: CUZK_EINVAL (out NULL; or, on CUDA, a tuning variable CUZK_MSM_*, CUZK_NTT_RADIX
 * or CUZK_H_FUSE set to a value it does not take: the detail names it and what it takes),
 * CUZK_EDEVICE (CUDA requested but unusable), CUZK_ENOMEM. */
CUZK_API int cuzk_engine_create(const cuzk_config *cfg, cuzk_engine **out);
/* Cancels queued jobs (their results are discarded), waits for running ones, runs every
 * outstanding release callback, delivers the trace events still in the ring, stops the
 * threads and frees the engine, its keys and any cuzk_host_alloc memory still held. After
 * it returns every handle of this engine is invalid. NULL is ignored. Must not race any
 * other call on the same engine, nor be called from the engine's own callbacks. */
CUZK_API void cuzk_engine_destroy(cuzk_engine *engine);

/* Flags for cuzk_srs_load. */
enum {
    CUZK_SRS_CHECK_SUBGROUP = 1, /* check every point's subgroup (slower; for untrusted files)  */
    CUZK_SRS_PIN = 2,            /* keep this key ready: its bases resident in the memory of
                                    every device it serves, never streamed and never evicted
                                    (WinningPoSt's key, which must prove within seconds).
                                    Where it does not fit resident beside the workers and the
                                    keys loaded before it, idle keys give way (see Eviction
                                    below); where even that is not enough the load fails with
                                    CUZK_EBUDGET (load it first where memory is short). The
                                    CPU backend keeps every key in host memory and accepts
                                    the flag.                                                  */
    CUZK_SRS_URGENT = 4          /* its partitions come at urgent priority (WindowPoSt's key):
                                    with urgent workers (CUZK_OPT_URGENT_PRIORITY), each device
                                    keeps room for an urgent slot of this key's size, taken
                                    from this key's own resident bases (more of it streams;
                                    a key that streams at all has its host copy page-locked,
                                    counted in the host budget), so its urgent partitions
                                    start beside a running backlog instead of waiting for a
                                    worker slot to free. Where keeping the room would change
                                    the layout (full to lean, more slot bytes) or leave less
                                    than WinningPoSt's 1 GiB free beside it, the load succeeds
                                    without it (cuzk_srs_placement shows what stays resident;
                                    its urgent partitions then get a slot where one fits). The
                                    room goes with the key's release once no such key is left
                                    on the device (the slot's buffers are freed then, with no
                                    wait); where an urgent partition holds or waits for that
                                    slot at that moment, at the next key release or load on the
                                    device.
                                    Ignored without urgent workers and by the CPU backend.    */
};

/* Loads a proving key (bellperson's parameter file format) for this engine. params_path is
 * borrowed for the call; *out is owned by the caller until cuzk_srs_release. Thread-safe.
 * Errors: CUZK_EINVAL (NULL argument, unknown flag), CUZK_EIO (cannot read the file),
 * CUZK_EFORMAT (not a valid key; the detail names the byte offset), CUZK_ENOMEM,
 * CUZK_EDEVICE (cannot place the key on a GPU), CUZK_EBUDGET (a GPU's device budget — what
 * it had free when the engine started, or CUZK_OPT_DEVICE_BUDGET_BYTES — cannot hold even one
 * worker that streams the key's bases; the detail names the bytes needed). On a GPU the key
 * is placed by what fits, see cuzk_srs_placement.
 * Eviction (CUDA): a key is placed at its load, around the workers and the keys loaded before
 * it. Where a new key would not load at all (CUZK_EBUDGET), or pinned would not be resident,
 * keys loaded before it give way some of their resident bases, whole vectors: the least
 * recently used key first, each key's vectors the cheapest to stream first (H, then L, A,
 * B_G2, B_G1), and no more than the new key needs (without any one of the vectors taken it
 * would not load, or be resident). Only keys that are not pinned, have no partition on that
 * device at the moment, and whose partitions fit the device's worker slots when streamed give
 * way; a key in use is never evicted. The key that gave way keeps working: its later
 * partitions copy what it lost from host memory, page-locked for it during the load that took
 * from it (the params' arrays registered in place, seconds for a PoRep key) and counted in
 * the host budget (CUZK_OPT_HOST_BUDGET_BYTES) from then on, beyond it if it must; its
 * cuzk_srs_placement says partial or streamed. It is not made resident again later (release
 * and load it again for that). Its device memory is freed with no wait. A load that fails on a later device (several GPUs), or while uploading, leaves the
 * keys it took from on earlier devices as they became. */
CUZK_API int cuzk_srs_load(cuzk_engine *engine, const char *params_path, uint32_t flags,
                           cuzk_srs **out);

/* Where a key's bases live on one GPU, decided when it was loaded from the memory the device
 * had (and CUZK_OPT_DEVICE_BUDGET_BYTES, which bounds everything libcuzk holds on a device:
 * resident bases of every key and every worker's working memory):
 *   RESIDENT — every base on the device (80 GB cards and up for a PoRep key): fastest;
 *   PARTIAL  — the bases that cost most to stream (B, then A, L) stay, the rest are copied
 *              from page-locked host memory in pieces during each MSM;
 *   STREAMED — all bases copied per partition; a 16 GB card proves a 2^27 partition so.
 * Streamed bases live once per process in page-locked host memory (the key's own host copy,
 * pinned in place). HOST: the engine proves on the CPU. */
enum { CUZK_PLACEMENT_RESIDENT = 0, CUZK_PLACEMENT_PARTIAL = 1, CUZK_PLACEMENT_STREAMED = 2,
       CUZK_PLACEMENT_HOST = 3 };
/* A worker slot's working memory: FULL (three domain vectors, copies overlapped with the H
 * step) or LEAN (two, reused across stages: about 8.6 GB at 2^27 instead of 22 GB). */
enum { CUZK_WORKING_SET_FULL = 0, CUZK_WORKING_SET_LEAN = 1 };
typedef struct cuzk_placement {
    uint32_t struct_size;            /* set by the caller                                    */
    int32_t device;                  /* the device's CUDA ordinal (-1: CPU)                   */
    int32_t kind;                    /* CUZK_PLACEMENT_*                                      */
    int32_t working_set;             /* CUZK_WORKING_SET_*                                    */
    uint32_t slots;                  /* partitions the device works on at once                */
    uint32_t reserved;
    uint64_t slot_bytes;             /* device bytes of one slot                              */
    uint64_t device_budget_bytes;    /* what libcuzk may hold on the device                   */
    uint64_t resident_bytes;         /* this key's bases kept on the device                   */
    uint64_t streamed_bytes;         /* bases copied per partition at most (all-zero pieces   */
                                     /* of scalars are skipped)                               */
    uint64_t pinned_host_bytes;      /* the key's page-locked host memory (shared by devices) */
    uint64_t vector_bytes[5];        /* H, L, A, B_G1, B_G2: bytes of each base vector        */
    uint64_t vector_resident_bytes[5]; /* of which resident (a prefix)                         */
} cuzk_placement;

/* The size of cuzk_placement as first published (0.3), the smallest struct_size accepted. */
#define CUZK_PLACEMENT_SIZE_V1 144u

/* Fills *out (set out->struct_size first, at least CUZK_PLACEMENT_SIZE_V1; the library writes
 * no more than that and sets out->struct_size to the bytes written) with srs's placement on
 * the engine's device number device_index (0 .. devices-1 as counted in cuzk_stats; the CPU
 * backend has one, placement CUZK_PLACEMENT_HOST). Thread-safe.
 * Errors: CUZK_EINVAL (NULL, struct_size too small, no such device). */
CUZK_API int cuzk_srs_placement(cuzk_srs *srs, uint32_t device_index, cuzk_placement *out);
/* Gives up the caller's hold on a key. The key itself lives on while submitted jobs still
 * use it and is freed with the last of them. NULL is ignored; releasing twice is undefined.
 * Thread-safe, but not with cuzk_engine_destroy of its engine. */
CUZK_API void cuzk_srs_release(cuzk_srs *srs);

/* ---------------------------------------------------------------------------------------- */
/* Constraint systems and witness-only partitions (0.4)                                     */
/* ---------------------------------------------------------------------------------------- */

/* A circuit's constraint matrices A, B, C, loaded once like a key. With it a host hands over
 * only the witness (inputs and aux) of each partition, and the engine computes a = A·w,
 * b = B·w, c = C·w itself (cuzk_submit_witness): a host keeps and sends about a quarter of
 * the bytes per partition (PoRep: 3.9 GiB of aux instead of 16 GiB with a, b, c). */
typedef struct cuzk_cs cuzk_cs;

/* cuzk_cs_load flags. */
enum {
    CUZK_CS_STREAM = 1           /* CUDA: keep only the coefficient table on the devices and
                                    stream the matrices from page-locked host memory at each
                                    evaluation, whatever fits (on a card too small for the key
                                    and the system: load the system first with this flag, so
                                    the key's placement leaves room for what its witness-only
                                    partitions add; loaded after, it takes what it lacks from
                                    the idle key's resident bases). Ignored by the CPU backend. */
};

/* Loads a constraint system for this engine from path: a circom .r1cs file (as
 * cuzk_r1cs_load reads it) or libcuzk's compact constraint system file (docs/formats.md,
 * made by cuzk_cs_convert or `cuzk cs-convert`), told apart by the file's first bytes. The
 * rows are bellperson's: the circuit's constraints, then one row per input (A = that input,
 * B = C = 0), so abc_len = constraints + inputs; the three density bitmaps are derived here,
 * once. flags: 0 or CUZK_CS_STREAM. On CUDA it is placed on each device through the device
 * budget like a key: resident where its matrices fit beside what is loaded, else streamed,
 * and where not even that fits, idle unpinned keys give way resident bases as to a key load
 * (docs/api.md, cuzk_srs_load, "Eviction"; never to make it resident).
 * path is borrowed for the call; *out is owned by the caller until
 * cuzk_cs_release. Its host memory is reported by cuzk_cs_get_info and in cuzk_stats
 * (cs_host_bytes). Thread-safe.
 * Errors: CUZK_EINVAL (NULL argument, unknown flags), CUZK_EIO (cannot read the file),
 * CUZK_EFORMAT (a malformed file; the detail names the offset or entry), CUZK_ENOMEM, and on
 * CUDA CUZK_EBUDGET (not even streamed it fits, after what idle keys could give way: the
 * detail gives the bytes; nothing evicted where the plan over every GPU refused, the GPUs
 * done so far left as they became where a later step failed), CUZK_EDEVICE. */
CUZK_API int cuzk_cs_load(cuzk_engine *engine, const char *path, uint32_t flags, cuzk_cs **out);

/* Gives up the caller's hold on a constraint system; it lives on while submitted
 * partitions use it and is freed with the last of them. NULL is ignored; releasing twice is
 * undefined. Thread-safe, but not with cuzk_engine_destroy of its engine. */
CUZK_API void cuzk_cs_release(cuzk_cs *cs);

/* What a loaded constraint system holds. */
typedef struct cuzk_cs_info {
    uint32_t struct_size;            /* set by the caller                                    */
    uint32_t num_coeffs;             /* distinct non-zero coefficients (the table's size)    */
    uint64_t num_inputs;             /* ONE included                                         */
    uint64_t num_aux;
    uint64_t num_constraints;        /* the circuit's own, without the per-input rows        */
    uint64_t abc_len;                /* num_constraints + num_inputs                          */
    uint64_t nnz[3];                 /* non-zeros of A, B, C (A's per-input rows included)   */
    uint64_t host_bytes;             /* host memory it takes                                 */
    /* --- end of CUZK_CS_INFO_SIZE_V1; also 0.4 (CUDA; 0 on the CPU backend): --- */
    uint64_t device_bytes;           /* device memory it holds, every device together         */
    uint32_t resident_devices;       /* devices holding its matrices whole                   */
    uint32_t streamed_devices;       /* devices that copy them in pieces from page-locked host
                                        memory at each evaluation (only the coefficient table
                                        stays there)                                         */
} cuzk_cs_info;

/* The size of cuzk_cs_info as first published (0.4), the smallest struct_size accepted. */
#define CUZK_CS_INFO_SIZE_V1 72u

/* Fills *out (out->struct_size set first, at least CUZK_CS_INFO_SIZE_V1; the library writes
 * no more than that and sets out->struct_size to the bytes written). Thread-safe.
 * Errors: CUZK_EINVAL (NULL, not a constraint system, struct_size too small). */
CUZK_API int cuzk_cs_get_info(cuzk_cs *cs, cuzk_cs_info *out);

/* Converts a circom .r1cs file into the compact constraint system file that cuzk_cs_load
 * reads in a few large reads instead of parsing every term (no engine needed). Both paths
 * are borrowed for the call. Thread-safe.
 * Errors: CUZK_EINVAL (NULL path), CUZK_EIO, CUZK_EFORMAT (as cuzk_r1cs_load), CUZK_ENOMEM. */
CUZK_API int cuzk_cs_convert(const char *r1cs_path, const char *out_path);

/* One partition given as its witness only: the inputs and aux of a partition of the
 * circuit a cuzk_cs holds (what a WitnessCS-style synthesis produces: the assignments, no
 * a/b/c). Like cuzk_partition, borrowed, not copied: the engine reads these buffers until
 * it calls release(release_user) — exactly once, on success, failure or cancel — which it
 * does as soon as it no longer reads them (on the CPU backend once the partition's
 * arithmetic is done), always before the job's result can be polled. */
typedef struct cuzk_witness_partition {
    uint32_t struct_size;            /* sizeof(cuzk_witness_partition) as the host compiled it
                                        (>= CUZK_WITNESS_PARTITION_SIZE_V1)                 */
    int32_t scalar_form;             /* CUZK_FR_MONTGOMERY or CUZK_FR_CANONICAL             */
    const cuzk_fr *inputs;           /* inputs[0] is ONE                                    */
    uint64_t num_inputs;             /* must be the constraint system's                     */
    const cuzk_fr *aux;
    uint64_t num_aux;                /* must be the constraint system's                     */
    const cuzk_fr *r, *s;            /* NULL: drawn from the OS CSPRNG                      */
    int32_t priority;                /* as cuzk_partition.priority                          */
    uint32_t reserved;               /* must be 0                                           */
    uint64_t user_tag;               /* echoed in the result and in trace events            */
    void (*release)(void *release_user); /* may be NULL                                     */
    void *release_user;
} cuzk_witness_partition;

/* The size of cuzk_witness_partition as published in 0.4 (LP64). */
#define CUZK_WITNESS_PARTITION_SIZE_V1 88u

/* Queues a witness-only partition of cs for the key srs and returns at once, like
 * cuzk_submit_partition (same queueing, priorities, budget, result and release rules). The
 * engine evaluates a, b, c from cs and the witness (on CUDA on the device, on the CPU backend on
 * its arithmetic threads) with the witness's range checks, then proves as for an a/b/c partition: the proof
 * is byte for byte the one cuzk_submit_partition gives for the same witness, r and s.
 * cs and srs must be of this engine and fit each other and the witness.
 * Thread-safe. *out receives the job handle.
 * Errors: as cuzk_submit_partition, and CUZK_EINVAL (cs NULL, released or another engine's,
 * a backend that cannot evaluate), CUZK_EMISMATCH (the witness's counts differ from cs's, or cs does not fit the key: the
 * detail gives both counts). A witness value not below r fails the job (its result,
 * CUZK_EINVAL, names it). */
CUZK_API int cuzk_submit_witness(cuzk_engine *engine, cuzk_srs *srs, cuzk_cs *cs,
                                 const cuzk_witness_partition *w, cuzk_job *out);

/* ---------------------------------------------------------------------------------------- */
/* Proving                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/* Priorities (cuzk_partition.priority, clamped to 0..7; higher first).
 * What they guarantee, on one engine:
 *   - Order: a worker that becomes free takes the oldest queued partition of the highest
 *     priority, so a partition starts before every lower-priority one still queued when it
 *     was submitted.
 *   - With CUZK_OPT_URGENT_PRIORITY = T: each device has 8 - T extra workers, one per
 *     level L = T..7, the one of level L taking only partitions of priority >= L. A
 *     partition of priority P >= T whose level's worker (or a free one of a lower urgent
 *     level) is free starts at once, beside the partitions in flight, instead of waiting
 *     until one of them ends (so, with a saturated backlog, its result comes before those
 *     of the lower-priority partitions that had not started when it was submitted, unless
 *     it is the longer work by far). A partition of the top level never waits behind a
 *     lower urgent one: that one's worker cannot take it away from the level above. Its
 *     work takes precedence where the hardware allows: on CUDA its kernels run on streams
 *     of the device's highest stream priority when it has its own slot (the GPU schedules
 *     their thread blocks ahead of the backlog's as blocks retire, see Memory below); on the CPU its loops' chunks are handed out before the
 *     backlog's. An urgent partition arriving while the urgent workers it may use are busy
 *     is first in line for whichever of them, or of the ordinary workers, frees first.
 * What they do not guarantee:
 *   - No preemption of a kernel: a started partition runs to its end. On CUDA, while a
 *     partition of priority >= T runs on a device (on whichever worker), the others there give
 *     way at their next chunk: a chunk is a stage's part between two pause points (stage
 *     boundaries, the H step's transforms, an MSM's window groups: tens of ms of a 2^27 MSM
 *     on an H200, ~0.1 s per transform). Their threads keep at most one chunk on the device
 *     and wait on the host, never the device on the host, so every wait in the engine ends:
 *     an API call or a thread that waits for the device (a key's release, cuzk_host_free of
 *     page-locked memory) waits for at most one chunk of each running partition and the
 *     urgent work, and device memory is allocated and freed stream-ordered (no wait at all).
 *     So an urgent partition shares the SMs with at most one chunk of each running partition
 *     and PCIe with the copies they enqueued before, and the backlog loses about the urgent
 *     work's device time. On the CPU backend, whose cores the running partitions fill, it
 *     starts at once but its serial work competes with theirs (bench/RESULTS.md: about twice
 *     its own time).
 *   - Memory: an urgent partition reserves its budget like any other and waits while the
 *     host budget is full. On CUDA, with urgent workers configured, each key's placement
 *     keeps 1 GiB of the device free for the urgent workers' own slot (enough for
 *     WinningPoSt, 2^19) where only resident bases give way to it (never the layout or the
 *     number of slots; see cuzk_srs_placement). The slot is made at the first urgent
 *     partition, in the key's layout or, where that does not fit, the two-vector one. A key
 *     loaded with CUZK_SRS_URGENT (WindowPoSt's) keeps room for a second urgent slot of its
 *     own size, taken from its own resident bases where that keeps the layout (on the H200
 *     beside a resident 2^27 PoRep key, 12.2 GiB more of the WindowPoSt key's bases stream;
 *     its partition alone 3 % slower); without the flag a larger urgent partition gets a
 *     slot only where the card has that much left beside the keys and the shared slots.
 *     Keys loaded later may use room the first left; load the bulk key first (a later key
 *     fits around the slots the first one sized). A CUZK_SRS_URGENT key's partitions take
 *     the second urgent slot first, others the first (a slot that changes layout
 *     reallocates device memory); the first slot's streams have the device's highest
 *     priority, the second's the next.
 *     An urgent partition whose slots are busy waits for one of them or for a shared slot,
 *     whichever frees first, ahead of the ordinary workers; where no urgent slot fits, for
 *     a shared slot, i.e. for a running partition to end.
 *     Host staging: arrays in page-locked memory (cuzk_host_alloc) are copied to the device
 *     directly; others through the worker's page-locked staging (4 MiB made with the
 *     worker), which grows at the first partition that needs more and stays. Growing it
 *     frees page-locked memory, which waits for the device's chunks in flight, so build
 *     urgent partitions in cuzk_host_alloc memory.
 *   - CUDA hardware queues: streams share the GPU's CUDA_DEVICE_MAX_CONNECTIONS work queues
 *     (8 by default), and work in one queue runs in the order it was enqueued, whatever the
 *     stream. Each worker slot has three streams, so the library sets the variable to 32 (the
 *     most) before its first CUDA call unless the environment sets it. A host that uses CUDA
 *     itself before its first cuzk_engine_create must set CUDA_DEVICE_MAX_CONNECTIONS=32 first,
 *     or an urgent partition can wait for a running partition's enqueued work. The
 *     library sets it with setenv(3) while the first engine that may use CUDA is created
 *     (CUZK_BACKEND_AUTO or CUDA); a host whose other threads read or change the environment
 *     at that moment must set it itself first (setenv is not safe beside them). Likewise
 *     CUDA_MODULE_LOADING=EAGER (unless set): with lazy loading, an urgent partition's first
 *     launch of a kernel may wait for every running kernel; a host that sets LAZY accepts
 *     that once.
 *   - What the CUDA backend does for it, measured on the H200 (bench/RESULTS.md, session 8:
 *     beside a saturated 2^27 PoRep backlog, WindowPoSt 2^27 p99 9.9 s against 8.9 s
 *     alone — with pauses at stage boundaries only it was 11.3 s: the bulk's MSM H in
 *     flight takes 2.3 s — and WinningPoSt 2^19 p99 210 ms against 49 ms alone, some beside
 *     a WindowPoSt; on the H200 made 24 GiB 117 ms): with urgent workers, the
 *     ordinary partitions give way chunk by chunk (above), the MSMs' longest kernels
 *     run as 8 waves of short-lived thread blocks (the urgent kernels get SMs within a few
 *     ms, the MSM costs ~1 % more and its scratch grows by up to ~0.8 GiB per slot; not a
 *     pinned key's, whose slot must fit the room kept for it);
 *     and the urgent workers' own copies from page-locked memory run as kernels on their
 *     stream, not on a copy engine (which served them only after the backlog's queued
 *     gigabytes, ~0.5 s).
 *   - After its device work a partition is finished (assembly, self-check: milliseconds)
 *     by the finisher threads in arrival order, whatever its priority.
 *   - Results are posted in the order partitions finish, not by priority. No deadline, no
 *     aging: lower priorities wait as long as higher ones keep coming. The CPU retry
 *     (CUZK_OPT_RETRY_ON_CPU) of a failed urgent partition gets no precedence. Priorities
 *     mean nothing across engines.
 */

/* Queues one partition for proving and returns at once (it never waits for memory or a
 * worker). The cuzk_partition struct itself is copied; the buffers it points to are
 * borrowed until the engine calls p->release(p->release_user) — exactly once, on success,
 * failure or cancel, on an engine thread, before the job's result can be polled. When this
 * call fails, release is NOT called and the buffers are the host's again at once.
 * Priorities are clamped to 0..7 (higher first; FIFO within one priority). A partition whose
 * working memory does not fit the budget now waits in the queue until it does, while other
 * partitions hold budget; when none does and it still does not fit (what keys' page-locked
 * bases and cuzk_host_alloc memory leave of CUZK_OPT_HOST_BUDGET_BYTES is too little), its
 * result is CUZK_EBUDGET, the numbers in the detail, instead of a wait for memory only the
 * host could free.
 * Thread-safe. *out receives the job handle (owned by the caller; it stays valid until its
 * result has been polled).
 * Errors: CUZK_EINVAL (NULL argument, struct_size below CUZK_PARTITION_SIZE_V1 or a larger
 * struct setting fields this library does not know, unknown scalar_form, reserved
 * not 0, a key released or of another engine), CUZK_EMISMATCH (sizes that do not fit the
 * key; the detail gives the counts), CUZK_EBUDGET (the partition needs more memory than the
 * whole budget, so it can never run; the detail gives both numbers), CUZK_EAGAIN (the
 * engine holds CUZK_OPT_QUEUE_CAPACITY jobs: poll results, then retry), CUZK_ESHUTDOWN. */
CUZK_API int cuzk_submit_partition(cuzk_engine *engine, cuzk_srs *srs, const cuzk_partition *p,
                                   cuzk_job *out);

/* Takes one finished job's result (any job, each exactly once). Before the call set
 * out->struct_size = sizeof(cuzk_result) (any value >= CUZK_RESULT_SIZE_V1 is accepted);
 * the library writes no more than that and sets out->struct_size to the bytes written (the
 * largest published size that fits). timeout_ns: 0 = do not block, < 0 = wait forever,
 * > 0 = wait at most that long. On CUZK_OK *out holds the result: out->status is CUZK_OK
 * with the proof, or the error that ended the job (CUZK_ECANCELED, CUZK_EVERIFY,
 * CUZK_EINVAL, CUZK_ENOMEM, CUZK_EDEVICE, ...; proof zeroed) with its reason in
 * out->detail. The job's release callback has already run. The call itself succeeded, so
 * cuzk_last_error() is "" afterwards whatever the job's status. Thread-safe; results are
 * shared out among all pollers.
 * Errors: CUZK_EINVAL (NULL argument, struct_size below CUZK_RESULT_SIZE_V1), CUZK_EAGAIN
 * (no result within the timeout). */
CUZK_API int cuzk_poll_result(cuzk_engine *engine, cuzk_result *out, int64_t timeout_ns);

/* Asks that a job be canceled. A queued job never starts; a running one stops at its next
 * stage boundary (or is discarded when it finishes). Either way its result arrives with
 * CUZK_ECANCELED. Canceling twice is harmless. Thread-safe.
 * Errors: CUZK_EINVAL (engine NULL), CUZK_ENOTFOUND (stale, foreign or unknown handle, or
 * a result already polled), CUZK_EAGAIN (too late: the job has finished and its result,
 * with its own status, is waiting for cuzk_poll_result). */
CUZK_API int cuzk_cancel(cuzk_engine *engine, cuzk_job job);

/* A snapshot of the engine's counters. Fields may be added at the end (struct_size). */
typedef struct cuzk_stats {
    uint32_t struct_size;            /* set by the caller before cuzk_engine_stats          */
    int32_t backend;                 /* CUZK_BACKEND_CPU or CUZK_BACKEND_CUDA               */
    uint32_t devices;                /* GPUs in use (0 on the CPU backend)                   */
    uint32_t workers;                /* proving threads                                      */
    uint64_t submitted;              /* jobs accepted by cuzk_submit_partition              */
    uint64_t completed;              /* results posted with CUZK_OK                          */
    uint64_t failed;                 /* results posted with another error than below        */
    uint64_t canceled;               /* results posted with CUZK_ECANCELED                   */
    uint64_t verify_failed;          /* results posted with CUZK_EVERIFY                     */
    uint64_t queued;                 /* jobs waiting for a worker now                        */
    uint64_t running;                /* jobs being proved or finished now                    */
    uint64_t unpolled;               /* results waiting for cuzk_poll_result now             */
    uint64_t queue_capacity;
    uint64_t host_budget_bytes;
    uint64_t host_reserved_bytes;    /* now, including cuzk_host_alloc memory                */
    uint64_t host_reserved_peak;
    uint64_t host_alloc_bytes;       /* held through cuzk_host_alloc now                     */
    uint64_t budget_waits;           /* partitions that waited for memory                    */
    uint64_t trace_events;           /* events delivered to the callback                     */
    uint64_t trace_dropped;          /* events dropped because the ring was full             */
    uint64_t arena_collects;         /* times housekeeping returned memory to the OS         */
    uint64_t arena_bytes;            /* the process-wide working-memory arena (address space) */
    /* --- end of CUZK_STATS_SIZE_V1 (0.1.0); added in 0.4: --- */
    uint64_t cs_host_bytes;          /* host memory of the loaded constraint systems         */
                                     /* (cuzk_cs_load), not counted in the host budget        */
    uint64_t cs_device_bytes;        /* their device memory (CUDA: resident matrices and       */
                                     /* coefficient tables), within the device budget          */
} cuzk_stats;

/* The size of cuzk_stats as published in 0.1.0, the smallest struct_size accepted. */
#define CUZK_STATS_SIZE_V1 160u

/* Fills *out (out->struct_size set by the caller, at least CUZK_STATS_SIZE_V1; the library
 * writes no more than that and sets out->struct_size to the bytes written).
 * Thread-safe; the counters are read one by one, not as one atomic snapshot.
 * Errors: CUZK_EINVAL (NULL argument, struct_size below CUZK_STATS_SIZE_V1). */
CUZK_API int cuzk_engine_stats(cuzk_engine *engine, cuzk_stats *out);

/* Formats a stats snapshot in the Prometheus text exposition format (version 0.0.4), ready
 * to serve on a /metrics endpoint: proofs submitted, completed, failed, verify-failed and
 * canceled (counters), queue depth, running and unpolled jobs (gauges), host budget, used
 * and peak bytes, budget waits, trace events and drops, arena collections and bytes, and
 * per-device busy seconds. Every metric is named cuzk_*.
 * The engine does not keep busy time: a host that wants cuzk_device_busy_seconds_total
 * sums (end_ns - begin_ns) of CUZK_TRACE_START events per device and passes the sums in
 * device_busy_ns[0..n_devices) (index i = GPU ordinal i; on the CPU backend one entry,
 * labelled device="cpu"); device_busy_ns NULL with n_devices 0 leaves that metric out.
 * stats is a snapshot from cuzk_engine_stats (struct_size as filled there, at least
 * CUZK_STATS_SIZE_V1; only those fields are read). buf[0..len) is
 * owned by the caller; on CUZK_OK it holds the text, NUL-terminated, and *written its length
 * without the NUL. Every pointer is borrowed for the call; no shared state, so thread-safe.
 * Errors: CUZK_EINVAL (stats or written NULL, buf NULL with len > 0, stats->struct_size
 * below CUZK_STATS_SIZE_V1, device_busy_ns NULL with n_devices > 0); CUZK_ERANGE (len is not enough:
 * *written receives the text's length, so a buffer of *written + 1 bytes fits; buf, when
 * len > 0, receives an empty string). Call with buf NULL and len 0 to ask for the size. */
CUZK_API int cuzk_stats_format_prometheus(const cuzk_stats *stats, const uint64_t *device_busy_ns,
                                          uint32_t n_devices, char *buf, size_t len,
                                          size_t *written);

/* Memory a host can synthesize a partition into, counted in the host budget (and
 * page-locked when a GPU backend is active, so it needs no staging copy). 64-byte aligned.
 * *out is owned by the caller until cuzk_host_free(engine, *out); memory still held at
 * cuzk_engine_destroy is freed there. Thread-safe.
 * Errors: CUZK_EINVAL (NULL argument, bytes 0), CUZK_EBUDGET (bytes exceed the whole host
 * budget), CUZK_EAGAIN (does not fit the budget now; retry after results come back),
 * CUZK_ENOMEM. */
CUZK_API int cuzk_host_alloc(cuzk_engine *engine, size_t bytes, void **out);
/* Frees memory from cuzk_host_alloc of the same engine and returns it to the budget. NULL
 * is ignored; a pointer not from cuzk_host_alloc of this engine is ignored when it can be
 * recognized (undefined otherwise). Thread-safe. */
CUZK_API void cuzk_host_free(cuzk_engine *engine, void *p);

/* ---------------------------------------------------------------------------------------- */
/* Verification (no engine needed)                                                          */
/* ---------------------------------------------------------------------------------------- */

/* Checks a 192-byte proof (A‖B‖C compressed, bellperson Proof::write) against a verifying
 * key in bellperson's byte format (vk[0..vk_len): alpha_g1, beta_g1, beta_g2, gamma_g2,
 * delta_g1, delta_g2, the ic count and points; bytes after ic are ignored, so a whole .params
 * file is accepted too) and the n public inputs (ONE excluded) in scalar_form.
 * One multi-pairing on the CPU, about a millisecond plus n scalar multiplications.
 * Ownership: every pointer is borrowed for the call only. Thread-safe (no shared state).
 * Returns:
 *   CUZK_OK        the proof is valid;
 *   CUZK_EVERIFY   the proof is well formed but does not verify (wrong proof or inputs);
 *   CUZK_EFORMAT   the vk or the proof does not decode (truncated, bad flags, coordinate
 *                  >= p, not on the curve, not in the prime-order subgroup, infinity where
 *                  bellperson refuses it); cuzk_last_error() names the field and offset;
 *   CUZK_EMISMATCH n + 1 differs from the key's number of ic points;
 *   CUZK_EINVAL    vk or proof NULL, public_inputs NULL with n > 0, a bad scalar_form, or a
 *                  public input not below r (in either form);
 *   CUZK_ENOMEM    host memory exhausted. */
CUZK_API int cuzk_verify(const uint8_t *vk, size_t vk_len, const uint8_t proof[192],
                         const cuzk_fr *public_inputs, size_t n, int32_t scalar_form);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_H */
