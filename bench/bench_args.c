/*
 * Option parsing for cuzk-bench's subcommands: a table of long options read with getopt_long,
 * typed values checked on the way in, and --help (-h) printing the subcommand's usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int bad(const char *cmd, const char *usage, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "cuzk-bench %s: ", cmd);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nusage: cuzk-bench %s %s\n", cmd, usage);
    return 2;
}

static int store(const bench_opt *o, const char *v)
{
    char *end;
    errno = 0;
    switch (o->kind) {
    case BOPT_FLAG: *(int *)o->dst = 1; return 0;
    case BOPT_STR: *(const char **)o->dst = v; return 0;
    case BOPT_INT: {
        long x = strtol(v, &end, 10);
        if (end == v || *end || errno || x < -2147483647L || x > 2147483647L) return -1;
        *(int *)o->dst = (int)x;
        return 0;
    }
    case BOPT_I64: {
        long long x = strtoll(v, &end, 10);
        if (end == v || *end || errno) return -1;
        *(long long *)o->dst = x;
        return 0;
    }
    case BOPT_DOUBLE: {
        double x = strtod(v, &end);
        if (end == v || *end || errno) return -1;
        *(double *)o->dst = x;
        return 0;
    }
    }
    return -1;
}

int32_t bench_parse_backend(const char *cmd, const char *name)
{
    if (!strcmp(name, "auto")) return CUZK_BACKEND_AUTO;
    if (!strcmp(name, "cpu")) return CUZK_BACKEND_CPU;
    if (!strcmp(name, "cuda")) return CUZK_BACKEND_CUDA;
    fprintf(stderr, "cuzk-bench %s: --backend must be auto, cpu or cuda, not '%s'\n", cmd, name);
    return -1;
}

int bench_args(const char *cmd, const char *usage, const char *what, int argc, char **argv, const bench_opt *opts)
{
    size_t n = 0;
    while (opts[n].name) n++;
    struct option *lo = calloc(n + 2, sizeof *lo);
    if (!lo) return 2;
    for (size_t i = 0; i < n; i++)
        lo[i] = (struct option){opts[i].name, opts[i].kind == BOPT_FLAG ? no_argument : required_argument, NULL,
                                (int)(256 + i)};
    lo[n] = (struct option){"help", no_argument, NULL, 'h'};
    int c, at, rc = -1;
    optind = 1;
    opterr = 0;
    while (rc < 0 && (at = optind, c = getopt_long(argc, argv, "+:h", lo, NULL)) != -1) {
        const char *arg = at < argc ? argv[at] : "?";
        if (c == 'h') {
            printf("usage: cuzk-bench %s %s\n  %s\n", cmd, usage, what);
            rc = 0;
        } else if (c == ':') rc = bad(cmd, usage, "option %s needs a value%s", arg, "");
        else if (c == '?') rc = bad(cmd, usage, "unknown option '%s'%s", arg, "");
        else if (store(&opts[c - 256], optarg)) rc = bad(cmd, usage, "--%s: '%s' is not a valid value", opts[c - 256].name, optarg);
    }
    if (rc < 0 && optind < argc) rc = bad(cmd, usage, "unexpected argument '%s'%s", argv[optind], "");
    free(lo);
    return rc;
}
