/*
 * cuzk-bench subcommands. Each lives in its own bench/bench_<what>.c, prints what it
 * measured, on what device, with the command to reproduce it, and registers in main.c.
 */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stdint.h>

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

#endif
