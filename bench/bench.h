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

#endif
