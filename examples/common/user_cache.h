/*
 * The per-user cache directory cuzk (demo) and cuzk-bench keep their test-only keys in: one
 * only this user can write, so no other local user can plant a key or a symlink there.
 */
#ifndef CUZK_USER_CACHE_H
#define CUZK_USER_CACHE_H

#include <stddef.h>
#include <sys/types.h>

/* mkdir -p: the directories it makes get mode; 0, or -1 with errno. */
int mkdir_p(const char *path, mode_t mode);

/* The cache directory `leaf` of this user into buf: $env_var when env_var is set and not
 * empty, else $XDG_CACHE_HOME/cuzk/leaf, else ~/.cache/cuzk/leaf, else /tmp/cuzk-UID/leaf;
 * made 0700 and refused when it is not a directory of this user that only it can write.
 * 0, or -1 with the reason in err. */
int user_cache_dir(const char *env_var, const char *leaf, char *buf, size_t len, char *err, size_t errlen);

#endif
