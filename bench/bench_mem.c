/*
 * This process's and this machine's memory for the benches' host-memory figures: RSS and its
 * peak from /proc/self/status, MemAvailable from /proc/meminfo (so a run that would not fit
 * is refused before it swaps the machine).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int64_t bench_proc_bytes(const char *file, const char *key)
{
    FILE *f = fopen(file, "r");
    if (!f) return -1;
    char line[256];
    size_t n = strlen(key);
    int64_t v = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') {
            long long kb;
            if (sscanf(line + n + 1, "%lld", &kb) == 1) v = (int64_t)kb * 1024;
            break;
        }
    fclose(f);
    return v;
}

int bench_reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

const char *bench_bytes(char buf[32], double b)
{
    const double a = b < 0 ? -b : b;
    if (a >= (double)(1ull << 30)) snprintf(buf, 32, "%.3f GiB", b / (double)(1ull << 30));
    else if (a >= (double)(1 << 20)) snprintf(buf, 32, "%.2f MiB", b / (double)(1 << 20));
    else snprintf(buf, 32, "%.1f KiB", b / 1024.0);
    return buf;
}

int bench_check_mem_available(const char *cmd, uint64_t need, const char *what, const char *hint)
{
    /* CUZK_BENCH_MEM_AVAILABLE=BYTES stands in for the machine's figure (test_bench_mem.sh
     * checks the refusal at a size any machine holds) */
    const char *fake = getenv("CUZK_BENCH_MEM_AVAILABLE");
    int64_t avail = fake && *fake ? (int64_t)strtoll(fake, NULL, 10) : bench_proc_bytes("/proc/meminfo", "MemAvailable");
    if (avail < 0 || need <= (uint64_t)avail) return 0;
    char n[32], a[32];
    fprintf(stderr, "cuzk-bench %s: %s needs %s (%llu B) but MemAvailable is %s: refused rather than swap%s%s%s\n",
            cmd, what, bench_bytes(n, (double)need), (unsigned long long)need, bench_bytes(a, (double)avail),
            hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
    return 2;
}
