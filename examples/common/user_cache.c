/* The per-user cache directory (user_cache.h). */
#include "user_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mkdir_p(const char *path, mode_t mode)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return errno = ENAMETOOLONG, -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int rc = mkdir(buf, mode);
        *p = '/';
        if (rc && errno != EEXIST) return -1;
    }
    return mkdir(buf, mode) && errno != EEXIST ? -1 : 0;
}

int user_cache_dir(const char *env_var, const char *leaf, char *buf, size_t len, char *err, size_t errlen)
{
    const char *env = env_var ? getenv(env_var) : NULL, *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = env && *env   ? snprintf(buf, len, "%s", env)
          : xdg && *xdg   ? snprintf(buf, len, "%s/cuzk/%s", xdg, leaf)
          : home && *home ? snprintf(buf, len, "%s/.cache/cuzk/%s", home, leaf)
                          : snprintf(buf, len, "/tmp/cuzk-%u/%s", (unsigned)getuid(), leaf);
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "the cache path is longer than %zu bytes", len - 1);
        return -1;
    }
    struct stat st;
    if (mkdir_p(buf, 0700) || lstat(buf, &st)) {
        snprintf(err, errlen, "cannot make the cache %s: %s", buf, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022)) {
        snprintf(err, errlen,
                 "the cache %s is not a directory of this user writable only by it (owner %u, mode %03o)%s%s", buf,
                 (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777), env_var ? ": set " : "", env_var ? env_var : "");
        return -1;
    }
    return 0;
}
