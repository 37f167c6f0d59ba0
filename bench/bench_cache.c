/* Where the benches keep their test-only keys: user_cache_dir's "bench" (examples/common),
 * $CUZK_BENCH_CACHE when set. */
#include <stdio.h>

#include "bench.h"
#include "user_cache.h"

int bench_cache_dir(char *buf, size_t len)
{
    char err[4200];
    if (!user_cache_dir("CUZK_BENCH_CACHE", "bench", buf, len, err, sizeof err)) return 0;
    fprintf(stderr, "cuzk-bench: key cache: %s\n", err);
    return -1;
}
