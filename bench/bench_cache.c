/*
 * Where the benches keep their test-only keys: a directory only this user can write
 * ($CUZK_BENCH_CACHE, else $XDG_CACHE_HOME/cuzk/bench, else ~/.cache/cuzk/bench, else
 * /tmp/cuzk-bench-UID), so no other local user can plant a key or a symlink there. A
 * directory that exists must be this user's and not writable by others.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

/* mkdir -p with mode 0700 for what it makes. */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc && errno != EEXIST) return -1;
    }
    return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

int bench_cache_dir(char *buf, size_t len)
{
    const char *env = getenv("CUZK_BENCH_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = env && *env   ? snprintf(buf, len, "%s", env)
          : xdg && *xdg   ? snprintf(buf, len, "%s/cuzk/bench", xdg)
          : home && *home ? snprintf(buf, len, "%s/.cache/cuzk/bench", home)
                          : snprintf(buf, len, "/tmp/cuzk-bench-%u", (unsigned)getuid());
    if (n < 0 || (size_t)n >= len) {
        fprintf(stderr, "cuzk-bench: the key cache path is longer than %zu bytes\n", len - 1);
        return -1;
    }
    struct stat st;
    if (make_dirs(buf) || lstat(buf, &st)) {
        fprintf(stderr, "cuzk-bench: cannot make the key cache %s: %s\n", buf, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022)) {
        fprintf(stderr,
                "cuzk-bench: the key cache %s is not a directory of this user writable only by it (owner %u, mode "
                "%03o): set CUZK_BENCH_CACHE\n",
                buf, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
        return -1;
    }
    return 0;
}
