/* cuzk: the command-line host of libcuzk. main() only dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *usage;
} commands[] = {
    {"setup", cmd_setup, "--r1cs C.r1cs --params OUT.params --vk OUT.vk [--seed HEX64]   (TEST ONLY)"},
    {"prove", cmd_prove, "--params P.params --r1cs C.r1cs --wtns W.wtns --proof OUT.proof "
                         "[--seed HEX64] [--backend auto|cpu|cuda]   (through the engine)"},
    {"verify", cmd_verify, "--vk V.vk --proof P.proof (--r1cs C.r1cs --wtns W.wtns | --public X1,X2,...)"},
    {"export-vk", cmd_export_vk, "--vk V.vk --format snarkjs"},
    {"export-proof", cmd_export_proof, "--proof P.proof --format snarkjs"},
    {"export-public", cmd_export_public, "--r1cs C.r1cs --wtns W.wtns"},
    {"gen", cmd_gen, "--shape porep|snap|wpost|winning (--constraints N | --log N) --r1cs OUT.r1cs --wtns OUT.wtns [--seed HEX64]"},
    {"demo", cmd_demo, "[--log N] [--count 10] [--workers W] [--threads T] [--backend auto|cpu|cuda] "
                       "[--cache DIR]   prove a batch of PoRep-shaped partitions through the engine, "
                       "verify them, print per-stage times and a timeline"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk <command> [options]   (libcuzk %s)\n", cuzk_version_string());
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
