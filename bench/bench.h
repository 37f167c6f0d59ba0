/*
 * cuzk-bench subcommands. Each lives in its own bench/bench_<what>.c, prints what it
 * measured, on what device, with the command to reproduce it, and registers in main.c.
 */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stdint.h>

#include "cuzk/cuzk.h"
#include "groth16/synth.h"
#include "threadpool.h"

typedef int (*bench_fn)(int argc, char **argv); /* argv[0] is the subcommand name */

/* Monotonic clock in nanoseconds. */
uint64_t bench_now_ns(void);
/* Median of n values (sorts in place). */
double bench_median(double *v, int n);
/* One line describing this machine's CPU (model, cores) for the report. */
const char *bench_cpu_name(void);

/* A subcommand's options: --name (BOPT_FLAG sets an int to 1) or --name VALUE / --name=VALUE,
 * stored into dst as an int, long long, double or the string itself. A NULL name ends the table. */
typedef enum { BOPT_FLAG, BOPT_INT, BOPT_I64, BOPT_DOUBLE, BOPT_STR } bench_opt_kind;
typedef struct {
    const char *name;
    bench_opt_kind kind;
    void *dst;
} bench_opt;
/* getopt_long over argv (argv[0] = the subcommand). -1: parsed, go on; otherwise the exit status
 * to return: 0 after --help printed "usage: cuzk-bench CMD USAGE" and WHAT, 2 after an error. */
int bench_args(const char *cmd, const char *usage, const char *what, int argc, char **argv, const bench_opt *opts);
/* --backend auto|cpu|cuda -> CUZK_BACKEND_*; anything else: a message naming it and -1. */
int32_t bench_parse_backend(const char *cmd, const char *name);

/* A bench circuit (bench_shape.c): shape `name` (porep|snap|wpost|winning) at domain 2^log_m,
 * constraints + inputs filling fill % of it (0 = the shape's own), deterministic. */
typedef struct bench_circuit {
    const synth_shape *shape;
    int log_m, fill;
    synth_cfg cfg;
    char key_path[4200];         /* where its test-only key is cached (bench_cache_dir) */
} bench_circuit;
/* 0, or 2 after printing what is wrong. */
/* The benches' key cache directory into buf (made 0700; refused when another user could write
 * it): 0, or -1 with a message on stderr. */
int bench_cache_dir(char *buf, size_t len);
int bench_shape_cfg(const char *name, int log_m, int fill, bench_circuit *out);
/* Makes the circuit's test-only key (groth16_setup from its seed) unless the cache holds it
 * already; *setup_s = seconds spent (0 when cached). 0, or 2 after printing the error. */
int bench_shape_key(const bench_circuit *c, threadpool *tp, double *setup_s);

/* bench_part.c: partitions and keys for the engine benches. */
/* The host buffers of one partition as the benches lay them out, each 64-byte aligned in one
 * block: a, b, c (abc_len scalars each), inputs, aux, the densities (b_input, a_aux, b_aux
 * bitmaps). Witness-only (cuzk_submit_witness): inputs and aux alone, a, b, c and the
 * densities being the engine's and the constraint system's. */
enum { BP_A, BP_B, BP_C, BP_INPUTS, BP_AUX, BP_DENS, BP_N };
/* sz[BP_*] = each array's bytes; returns the block's bytes (what bench_place_partition
 * allocates: the host memory one partition in flight keeps). */
uint64_t bench_part_layout(uint64_t num_inputs, uint64_t abc_len, uint64_t num_aux, int witness_only,
                           uint64_t sz[BP_N]);
typedef struct bench_part {
    void *block;                 /* one block holding every buffer of p */
    int pageable;                /* malloc'd (else cuzk_host_alloc of the engine) */
    uint64_t bytes;              /* the block's size (bench_part_layout) */
    uint64_t sizes[BP_N];        /* its arrays' bytes */
    cuzk_partition p;            /* release does nothing: the block is the bench's */
} bench_part;
/* c's partition (Montgomery form), synthesized at 2^20 and to be tiled when c->log_m > 22:
 * *abc_len, *num_aux are the sizes to place it at. 0 or 2 after printing the error. */
int bench_circuit_partition(const bench_circuit *c, threadpool *tp, cuzk_partition *p0, uint64_t *abc_len,
                            uint64_t *num_aux, double *synth_s);
/* src copied into one block of e's cuzk_host_alloc memory (pinned on CUDA; malloc if
 * pageable, e may then be NULL), tiled up to abc_len / num_aux (same shape and value mix, not a
 * satisfied circuit: for the synthetic key only). witness_only: inputs and aux alone (p's a, b,
 * c and densities NULL, abc_len kept). 0 or 2. */
int bench_place_partition(cuzk_engine *e, threadpool *tp, const cuzk_partition *src, int pageable,
                          uint64_t abc_len, uint64_t num_aux, int witness_only, bench_part *out);
void bench_part_free(cuzk_engine *e, bench_part *bp);
/* The key for p: key_path, or with synthetic a key of p's shape whose bases are random valid
 * points generated on the device (proofs do not verify). 0 or 2 after printing the error. */
int bench_load_key(cuzk_engine *e, const char *key_path, const cuzk_partition *p, int synthetic, uint32_t flags,
                   cuzk_srs **srs);
/* bench_mem.c: this process's and this machine's memory, from /proc. */
/* A "Key:   N kB" line of /proc/self/status (VmRSS, VmHWM) or /proc/meminfo (MemAvailable) in
 * bytes; -1 if absent or unreadable. */
int64_t bench_proc_bytes(const char *file, const char *key);
/* b bytes as "x.xxx GiB", "x.xx MiB" or "x.x KiB", whichever reads best; returns buf. */
const char *bench_bytes(char buf[32], double b);
/* Resets VmHWM to the current RSS (writes 5 to /proc/self/clear_refs, Linux >= 4.0): 0 or -1. */
int bench_reset_peak_rss(void);
/* 0 if need bytes fit in MemAvailable; otherwise prints "cuzk-bench CMD: WHAT needs X GiB but
 * MemAvailable is Y GiB: refused (HINT)" and returns 2. An unreadable MemAvailable passes. */
int bench_check_mem_available(const char *cmd, uint64_t need, const char *what, const char *hint);
uint64_t bench_popcount(const uint64_t *bits, uint64_t n);
/* Where srs's bases live on each of the engine's devices (cuzk_srs_placement), one line
 * each; nothing on the CPU backend. */
void bench_print_placement(cuzk_srs *srs, uint32_t devices);
/* --device-memory GIB: makes each device of mask (0 = all) really that small before any
 * engine starts, by allocating and holding the rest of its free memory (held[] up to
 * 64 per device, *nheld counts them), so a placement cannot see more. 0, or 2 after printing
 * the error (a build without CUDA). bench_release_device_memory gives it back. */
int bench_hold_device_memory(uint64_t mask, double gib, void **held, int *nheld);
void bench_release_device_memory(void **held, int nheld);
/* "0,2,3" -> a device mask; 0 if malformed. */
uint64_t bench_parse_devices(const char *s);

/* bench_witness.c: c's constraint system for witness-only partitions (cuzk-bench pipeline
 * --witness): synthesized, or tiled like the partition above 2^22, to abc_len rows and num_aux
 * aux; *out calloc'd and finalized (engine_cs_adopt takes it). 0, or 2 after printing. */
struct csc;
int bench_witness_cs(const bench_circuit *c, threadpool *tp, uint64_t abc_len, uint64_t num_aux, struct csc **out,
                     double *build_s);

#endif
