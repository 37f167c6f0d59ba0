/* cuzk-bench: dispatches to one benchmark subcommand (see bench.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cuzk/cuzk.h"
#include "trace_view.h"

/* Subcommands, one line each (defined in bench_<what>.c): keep the list sorted. */
#define BENCH_COMMANDS(X) \
    X("cs-eval", bench_cs_eval, "CPU evaluation of a, b, c (csc_eval) on pipeline --witness's system: --shape porep --log N [--threads T] [--reps R]") \
    X("engine", bench_engine, "the engine's overhead with a trivial prover: latency, throughput, tracing") \
    X("field", bench_field, "Fp/Fr/Fp2 arithmetic, G1/G2 add and double (one thread)") \
    X("gather", bench_gather, "host gather of the bases a streamed MSM needs vs copying all: --log N --threads T --keep F --pcie-gbs G") \
    X("h", bench_h, "Groth16 H step on the GPU: --log 27 [--runs N] [--from-host]") \
    X("mixed", bench_mixed, "a saturated bulk backlog with WinningPoSt/WindowPoSt arriving: --log N [--bulk porep|snap] [--winning-every MS] [--wpost-every MS] [--urgent-priority T] [--seconds S]") \
    X("msm", bench_msm, "multi-scalar multiplication: --backend cpu --curve g1|g2 --log N [--threads T]") \
    X("ntt", bench_ntt, "Fr NTT: --log 20..27 [--backend cuda|cpu] [--runs N]") \
    X("pairing", bench_pairing, "Miller loop, final exponentiation, pairing (one thread)") \
    X("pipeline", bench_pipeline, "a backlog of partitions through the engine: --shape porep|snap|wpost|winning --log N --partitions P [--devices LIST] [--workers W] [--trace f.json] [--svg f.svg] [--events f.jsonl] [--json f.json]") \
    X("prove", bench_prove, "one Groth16 partition: --backend cpu|cuda|auto --shape porep|snap|wpost|winning --log N [--threads T] (stage times)") \
    X("srs-load", bench_srs_load, "proving-key load throughput: --log N | --key FILE [--backend cpu|cuda|auto] [--reps R] [--json f]") \
    X("version", bench_version, "print the library version (a smoke test)")

#define DECLARE(name, fn, help) int fn(int argc, char **argv);
BENCH_COMMANDS(DECLARE)
#define ENTRY(name, fn, help) {name, fn, help},
static const struct { const char *name; bench_fn fn; const char *help; } commands[] = {
    BENCH_COMMANDS(ENTRY)
};

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One median rule for every figure cuzk and cuzk-bench print (examples/trace). */
double bench_median(double *v, int n) { return n > 0 ? tv_median(v, (size_t)n) : 0; }

const char *bench_cpu_name(void)
{
    static char name[256];
    if (name[0]) return name;
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    int cores = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10) && !name[0]) {
            char *c = strchr(line, ':');
            if (c) snprintf(name, sizeof name, "%s", c + 2);
            name[strcspn(name, "\n")] = 0;
        }
        if (!strncmp(line, "processor", 9)) cores++;
    }
    if (f) fclose(f);
    size_t len = strlen(name);
    snprintf(name + len, sizeof name - len, " (%d logical CPUs)", cores);
    return name;
}

int bench_version(int argc, char **argv)
{
    const bench_opt none[] = {{NULL, 0, NULL}};
    int parsed = bench_args("version", "", "prints the library version and this machine's CPU", argc, argv, none);
    if (parsed >= 0) return parsed;
    printf("libcuzk %s on %s\n", cuzk_version_string(), bench_cpu_name());
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench <subcommand> [options]   (cuzk-bench <subcommand> --help for one)\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].name) fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
}

int main(int argc, char **argv)
{
    /* line by line even into a file or pipe: a run killed at a time limit keeps what it printed
     * (the mixed bench's placements were lost that way) */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].name && !strcmp(commands[i].name, argv[1])) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "cuzk-bench: unknown subcommand '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
