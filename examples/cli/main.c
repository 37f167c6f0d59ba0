/* cuzk: the command-line host of libcuzk. main() only dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *usage;
    const char *what;
} commands[] = {
    {"setup", cmd_setup, "--r1cs C.r1cs --params OUT.params --vk OUT.vk [--seed HEX64]",
     "TEST ONLY: a proving and a verifying key for a circom circuit, toxic waste from the seed"},
    {"prove", cmd_prove, "--params P.params (--r1cs C.r1cs | --cs C.cuzkcs) --wtns W.wtns --proof OUT.proof "
                         "[--seed HEX64] [--backend auto|cpu|cuda] [--via abc|witness]",
     "one proof of a circom circuit's witness, through the engine: --via abc (default with --r1cs)\n"
     "  hands it a, b, c; --via witness (always with --cs) only the witness, from which the engine\n"
     "  evaluates a, b, c itself (cuzk_submit_witness); the same proof for the same --seed"},
    {"cs-convert", cmd_cs_convert, "--r1cs C.r1cs --out C.cuzkcs",
     "the circuit as a compact constraint system file (cuzk_cs_load reads it in a few large reads);\n"
     "  prints both files' sizes and how long each takes to load"},
    {"verify", cmd_verify, "--vk V.vk --proof P.proof (--r1cs C.r1cs --wtns W.wtns | --public X1,X2,...)",
     "checks a proof against the verifying key and the public inputs"},
    {"export-vk", cmd_export_vk, "--vk V.vk --format snarkjs", "the verifying key as snarkjs JSON"},
    {"export-proof", cmd_export_proof, "--proof P.proof --format snarkjs", "the proof as snarkjs JSON"},
    {"export-public", cmd_export_public, "--r1cs C.r1cs --wtns W.wtns", "the public inputs as snarkjs JSON"},
    {"gen", cmd_gen, "--shape porep|snap|wpost|winning (--constraints N | --log N) --r1cs OUT.r1cs --wtns OUT.wtns "
                     "[--seed HEX64]",
     "a circom circuit of one of Filecoin's shapes and a witness that satisfies it"},
    {"demo", cmd_demo, "[--log N] [--count C] [--workers W] [--threads T] [--backend auto|cpu|cuda] [--cache DIR] "
                       "[--svg FILE] [--events FILE]",
     "proves a backlog of PoRep-shaped partitions through the engine and verifies them; prints the\n"
     "  busy % of each GPU (or CPU worker), per-stage times and a timeline, and writes the timeline as\n"
     "  an SVG (default DIR/timeline.svg) and the trace as JSON Lines (default DIR/events.jsonl).\n"
     "  Defaults: on a GPU 16 partitions of 2^20, on the CPU 6 of 2^14; the test-only key is cached in DIR\n"
     "  (default ~/.cache/cuzk/demo; make demo uses build/demo)"},
    {"trace", cmd_trace, "EVENTS.jsonl [--chrome OUT.json] [--svg OUT.svg] [--title TEXT] [--tags LO..HI]",
     "reads a host's trace events (JSON Lines, one cuzk_trace_event per line: kind, device, worker,\n"
     "  job, user_tag, begin_ns, end_ns, bytes) and prints busy % per device and worker, the gaps\n"
     "  between partitions and stage medians; writes a Chrome trace (Perfetto) and an SVG timeline"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

void cli_usage(FILE *f, const char *cmd)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(cmd, commands[i].name))
            fprintf(f, "usage: cuzk %s %s\n  %s\n", commands[i].name, commands[i].usage, commands[i].what);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk <command> [options]   (libcuzk %s; cuzk <command> --help for one)\n",
            cuzk_version_string());
    for (size_t i = 0; i < NCOMMANDS; i++) fprintf(f, "  cuzk %-13s %s\n", commands[i].name, commands[i].usage);
    fprintf(f, "exit status: 0 success (verify: valid), 1 verify: invalid, 2 error\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_ERROR;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        if (argc > 2) {
            for (size_t i = 0; i < NCOMMANDS; i++)
                if (!strcmp(argv[2], commands[i].name)) {
                    cli_usage(stdout, argv[2]);
                    return CLI_OK;
                }
            return cli_fail(CUZK_EINVAL, "no help for '%s': not a command (cuzk --help lists them)", argv[2]);
        }
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("cuzk %s\n", cuzk_version_string());
        return CLI_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    return cli_fail(CUZK_EINVAL, "unknown command '%s' (try cuzk --help)", argv[1]);
}
