/*
 * Shared pieces of the `cuzk` command-line host: option parsing, error lines, files, and
 * the number formats its subcommands read and print. One file per subcommand group.
 */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

/* Exit codes: 0 success (and "valid" for verify), 1 "invalid" (verify only), 2 any error. */
enum { CLI_OK = 0, CLI_INVALID = 1, CLI_ERROR = 2 };

/* Prints "cuzk: <cuzk_strerror(code)>: <detail>" as one line on stderr; returns CLI_ERROR. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with the library's cuzk_last_error() as the detail. */
int cli_fail_lib(int code);

/* --name value / --name=value options (getopt_long; unique prefixes accepted); a NULL name ends
 * the table. Values stay NULL when absent. --help (-h) prints the subcommand's usage and exits 0.
 * Returns CLI_OK or CLI_ERROR (already reported: unknown, repeated or value-less options, stray
 * arguments, a required one missing). */
typedef struct cli_opt {
    const char *name;   /* without the dashes */
    int required;
    const char **value;
} cli_opt;
int cli_parse(const char *cmd, int argc, char **argv, cli_opt *opts);
/* The usage and description of one subcommand (main.c's table). */
void cli_usage(FILE *f, const char *cmd);

/* The value s of option --name as a decimal int in lo..hi, all of it (no trailing text, no
 * wrap); CLI_ERROR (reported, with the range and the text) otherwise. */
int cli_parse_int(const char *name, const char *s, long lo, long hi, int *out);
/* --backend auto|cpu|cuda (NULL: auto) -> CUZK_BACKEND_* in *out; anything else refused. */
int cli_parse_backend(const char *s, int32_t *out);

/* 64 hex digits -> 32 bytes, in order. */
int cli_parse_seed(const char *hex, uint8_t seed[32]);
/* A scalar < r, decimal or 0x-hex -> canonical. */
int cli_parse_fr(const char *s, cuzk_fr *out);
/* Decimal text of a little-endian multi-limb integer (out needs 24 * nlimbs bytes). */
void cli_decimal(char *out, const uint64_t *limbs, int nlimbs);

/* The public inputs (ONE excluded) of a circuit's witness, canonical, malloc'd; the witness
 * must satisfy the circuit. CLI_OK or CLI_ERROR (reported). */
int cli_public_from_witness(const char *r1cs_path, const char *wtns_path, cuzk_fr **out, size_t *n);

int cli_read_file(const char *path, uint8_t **buf, size_t *len); /* malloc'd; CLI_ERROR reported */
int cli_write_file(const char *path, const void *buf, size_t len);
/* Waits for the engine's one submitted job and writes its proof to proof_path; *res holds the
 * result. CLI_OK, or CLI_ERROR reported (a failed job with its detail). */
int cli_wait_proof(cuzk_engine *engine, const char *proof_path, cuzk_result *res);

/* Subcommands: argv[0] is the subcommand's name. */
int cmd_setup(int argc, char **argv);
int cmd_prove(int argc, char **argv);
/* cuzk prove through cuzk_submit_witness: the circuit from cs_path (.r1cs or compact file),
 * the witness from the .wtns (circom's wire order is inputs then aux). */
int cli_prove_witness(const char *params, const char *cs_path, const char *wtns, const char *proof_path,
                      const char *seed_hex, const char *backend);
int cmd_cs_convert(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_export_vk(int argc, char **argv);
int cmd_export_proof(int argc, char **argv);
int cmd_export_public(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_trace(int argc, char **argv);

#endif
