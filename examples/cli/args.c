/*
 * The CLI's plumbing: option parsing, the one-line error format, whole-file reads and
 * writes, and the number formats (hex seeds, decimal/hex scalars, decimal output).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_fail(int code, const char *fmt, ...)
{
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    fprintf(stderr, "cuzk: %s: %s\n", cuzk_strerror(code), detail);
    return CLI_ERROR;
}

int cli_fail_lib(int code) { return cli_fail(code, "%s", cuzk_last_error()); }

static void list_options(char *out, size_t n, const cli_opt *opts)
{
    size_t used = 0;
    out[0] = '\0';
    for (const cli_opt *o = opts; o->name && used < n; o++)
        used += (size_t)snprintf(out + used, n - used, "%s--%s", o == opts ? "" : ", ", o->name);
}

/* getopt_long over the table (every option takes a value), plus --help / -h, which prints the
 * subcommand's usage and ends the process: nothing has been acquired yet when options are read. */
int cli_parse(const char *cmd, int argc, char **argv, cli_opt *opts)
{
    char known[256];
    size_t n = 0;
    while (opts[n].name) n++;
    struct option *lo = calloc(n + 2, sizeof *lo);
    if (!lo) return cli_fail(CUZK_ENOMEM, "cuzk %s: out of memory", cmd);
    for (size_t i = 0; i < n; i++) lo[i] = (struct option){opts[i].name, required_argument, NULL, (int)(256 + i)};
    lo[n] = (struct option){"help", no_argument, NULL, 'h'};
    list_options(known, sizeof known, opts);
    int rc = CLI_OK, c, at;
    optind = 1;
    opterr = 0; /* errors in cuzk's own one-line format */
    while (rc == CLI_OK && (at = optind, c = getopt_long(argc, argv, "+:h", lo, NULL)) != -1) {
        if (c == 'h') {
            free(lo);
            cli_usage(stdout, cmd);
            exit(CLI_OK);
        }
        const char *arg = at < argc ? argv[at] : "?";
        if (c == ':')
            rc = cli_fail(CUZK_EINVAL, "cuzk %s: option %s needs a value", cmd, arg);
        else if (c == '?')
            rc = cli_fail(CUZK_EINVAL, "cuzk %s: unknown option '%s' (options: %s)", cmd, arg, known);
        else {
            cli_opt *o = &opts[c - 256];
            if (optarg == argv[optind - 1] && !strncmp(optarg, "--", 2)) /* "--a --b": --a has no value */
                rc = cli_fail(CUZK_EINVAL, "cuzk %s: option --%s needs a value", cmd, o->name);
            else if (*o->value)
                rc = cli_fail(CUZK_EINVAL, "cuzk %s: option --%s given twice", cmd, o->name);
            else
                *o->value = optarg;
        }
    }
    free(lo);
    if (rc == CLI_OK && optind < argc)
        rc = cli_fail(CUZK_EINVAL, "cuzk %s: unexpected argument '%s' (options: %s)", cmd, argv[optind], known);
    for (cli_opt *o = opts; rc == CLI_OK && o->name; o++)
        if (o->required && !*o->value) rc = cli_fail(CUZK_EINVAL, "cuzk %s: missing --%s", cmd, o->name);
    return rc;
}

int cli_parse_backend(const char *s, int32_t *out)
{
    if (!s || !strcmp(s, "auto")) *out = CUZK_BACKEND_AUTO;
    else if (!strcmp(s, "cpu")) *out = CUZK_BACKEND_CPU;
    else if (!strcmp(s, "cuda")) *out = CUZK_BACKEND_CUDA;
    else return cli_fail(CUZK_EINVAL, "--backend must be auto, cpu or cuda, not '%s'", s);
    return CLI_OK;
}

int cli_parse_int(const char *name, const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return cli_fail(CUZK_EINVAL, "--%s must be a whole number %ld..%ld, not '%s'", name, lo, hi, s);
    *out = (int)v;
    return CLI_OK;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int cli_parse_seed(const char *hex, uint8_t seed[32])
{
    const char *h = hex;
    if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) h += 2;
    if (strlen(h) != 64)
        return cli_fail(CUZK_EINVAL, "--seed must be 64 hex digits (32 bytes), got %zu characters",
                        strlen(h));
    for (int i = 0; i < 32; i++) {
        int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return cli_fail(CUZK_EINVAL, "--seed has a non-hex character near position %d", 2 * i);
        seed[i] = (uint8_t)(hi << 4 | lo);
    }
    return CLI_OK;
}

/* BLS12-381's r, little-endian limbs (the CLI does its own range check on input text). */
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                    0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

int cli_parse_fr(const char *s, cuzk_fr *out)
{
    uint64_t v[5] = {0, 0, 0, 0, 0}; /* one spare limb catches overflow */
    const char *p = s;
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!*p) return cli_fail(CUZK_EINVAL, "'%s' is not a number", s);
    for (; *p; p++) {
        int d = base == 16 ? hexval(*p) : (*p >= '0' && *p <= '9' ? *p - '0' : -1);
        if (d < 0) return cli_fail(CUZK_EINVAL, "'%s' is not a %s number", s, base == 16 ? "hex" : "decimal");
        unsigned __int128 carry = (unsigned)d;
        for (int l = 0; l < 5; l++) {
            carry += (unsigned __int128)v[l] * base;
            v[l] = (uint64_t)carry;
            carry >>= 64;
        }
        if (v[4] || carry) return cli_fail(CUZK_EINVAL, "'%s' is not below r (BLS12-381's scalar field)", s);
    }
    for (int l = 3; l >= 0; l--) {
        if (v[l] < R_LIMBS[l]) break;
        if (v[l] > R_LIMBS[l] || l == 0)
            return cli_fail(CUZK_EINVAL, "'%s' is not below r (BLS12-381's scalar field)", s);
    }
    for (int l = 0; l < 4; l++) out->l[l] = v[l];
    return CLI_OK;
}

void cli_decimal(char *out, const uint64_t *limbs, int nlimbs)
{
    uint64_t v[8];
    char rev[8 * 24];
    int n = 0, top = nlimbs;
    memcpy(v, limbs, (size_t)nlimbs * 8);
    while (top > 0 && v[top - 1] == 0) top--;
    if (top == 0) {
        strcpy(out, "0");
        return;
    }
    while (top > 0) { /* divide by 10^19, emit the remainder's 19 digits */
        const uint64_t D = 10000000000000000000ULL;
        unsigned __int128 rem = 0;
        for (int l = top - 1; l >= 0; l--) {
            unsigned __int128 cur = rem << 64 | v[l];
            v[l] = (uint64_t)(cur / D);
            rem = cur % D;
        }
        uint64_t r = (uint64_t)rem;
        while (top > 0 && v[top - 1] == 0) top--;
        for (int i = 0; i < 19 && (top > 0 || r); i++, r /= 10) rev[n++] = (char)('0' + r % 10);
    }
    for (int i = 0; i < n; i++) out[i] = rev[n - 1 - i];
    out[n] = '\0';
}

int cli_read_file(const char *path, uint8_t **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cli_fail(CUZK_EIO, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    for (;;) {
        if (!b) {
            fclose(f);
            return cli_fail(CUZK_ENOMEM, "cannot read %s into memory", path);
        }
        n += fread(b + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *nb = realloc(b, cap * 2);
        if (!nb) free(b);
        b = nb;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(b);
        return cli_fail(CUZK_EIO, "cannot read %s", path);
    }
    *buf = b;
    *len = n;
    return CLI_OK;
}

int cli_write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return cli_fail(CUZK_EIO, "cannot create %s: %s", path, strerror(errno));
    int bad = fwrite(buf, 1, len, f) != len;
    if (fclose(f) != 0) bad = 1;
    if (bad) return cli_fail(CUZK_EIO, "cannot write %s: %s", path, strerror(errno));
    return CLI_OK;
}

int cli_wait_proof(cuzk_engine *engine, const char *proof_path, cuzk_result *res)
{
    memset(res, 0, sizeof *res);
    res->struct_size = sizeof *res;
    int rc = cuzk_poll_result(engine, res, -1);
    if (rc) return cli_fail_lib(rc);
    if (res->status == CUZK_EVERIFY)
        return cli_fail(res->status, "the proof just made does not verify against the key's vk (%s)", res->detail);
    if (res->status != CUZK_OK) return cli_fail(res->status, "proving failed: %s", res->detail);
    return cli_write_file(proof_path, res->proof, sizeof res->proof);
}
