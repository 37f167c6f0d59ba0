/*
 * cuzk trace: a host's trace events (JSON Lines, see trace_view.h) turned into busy % per
 * device and worker, gaps between partitions and stage medians, and optionally a Chrome trace
 * and an SVG timeline. The host saves the events its cuzk_trace_fn received; nothing here needs
 * the engine that produced them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_view.h"

/* "LO..HI" (or one tag N = N..N) -> the user_tag range to measure. */
static int parse_tags(const char *s, uint64_t *lo, uint64_t *hi)
{
    char *end;
    errno = 0;
    *lo = *hi = strtoull(s, &end, 10);
    if (end != s && !strncmp(end, "..", 2)) {
        const char *t = end + 2;
        *hi = strtoull(t, &end, 10);
        if (end == t) return cli_fail(CUZK_EINVAL, "--tags wants LO..HI, not '%s'", s);
    }
    /* digits and ".." only: strtoull would take "-2" as 2^64 - 2 and skip leading blanks */
    if (end == s || *end || errno || *hi < *lo || !isdigit((unsigned char)s[0]) || s[strspn(s, "0123456789.")])
        return cli_fail(CUZK_EINVAL, "--tags wants LO..HI (decimal, LO <= HI), not '%s'", s);
    return CLI_OK;
}

int cmd_trace(int argc, char **argv)
{
    const char *chrome = NULL, *svg = NULL, *title = NULL, *tags = NULL, *in = NULL;
    cli_opt opts[] = {{"chrome", 0, &chrome}, {"svg", 0, &svg}, {"title", 0, &title}, {"tags", 0, &tags},
                      {NULL, 0, NULL}};
    /* the events file comes first: `cuzk trace EVENTS.jsonl [options]` */
    if (argc >= 2 && argv[1][0] != '-') {
        in = argv[1];
        argv[1] = argv[0];
        argv++, argc--;
    }
    if (cli_parse("trace", argc, argv, opts)) return CLI_ERROR;
    if (!in) return cli_fail(CUZK_EINVAL, "cuzk trace: which events file? (cuzk trace EVENTS.jsonl, see --help)");
    uint64_t lo = 0, hi = UINT64_MAX;
    if (tags && parse_tags(tags, &lo, &hi)) return CLI_ERROR;
    tv_log log = {0};
    char err[512];
    int rc = tv_read_jsonl(in, &log, err, sizeof err);
    if (rc) {
        tv_free(&log);
        return cli_fail(rc, "%s", err);
    }
    int ret = CLI_OK;
    tv_summary s;
    tv_analyze(&log, lo, hi, &s);
    printf("%s: %zu events\n", in, log.n);
    tv_print(stdout, &s, "  ", 1);
    if (chrome) {
        if (tv_write_chrome(chrome, &log)) ret = cli_fail(CUZK_EIO, "cannot write %s: %s", chrome, strerror(errno));
        else printf("Chrome trace: %s (open in https://ui.perfetto.dev or chrome://tracing)\n", chrome);
    }
    if (svg) {
        if (tv_write_svg(svg, &log, title ? title : in)) ret = cli_fail(CUZK_EIO, "cannot write %s: %s", svg, strerror(errno));
        else printf("timeline picture: %s\n", svg);
    }
    tv_free(&log);
    return ret;
}
