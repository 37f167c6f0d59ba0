#!/usr/bin/env bash
# Loading libcuzk must not change which malloc the host process uses: libcuzk depends on
# mimalloc (whose .so also exports malloc), yet a host linked only against libcuzk must
# keep libc's. And nothing in libcuzk calls malloc_trim.
set -u
[ -n "${SANITIZE:-}" ] && { echo "skipped under SANITIZE=$SANITIZE (the sanitizer owns malloc)"; exit 77; }
BUILD=${BUILD:-build}
so=$BUILD/lib/libcuzk.so
[ -f "$so" ] || { echo "not ok - $so missing"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/host.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuzk/cuzk.h>
static const char *owner(void *fn)
{
    Dl_info di;
    return fn && dladdr(fn, &di) && di.dli_fname ? di.dli_fname : "?";
}
int main(void)
{
    /* use the library so it is really loaded and initialized */
    cuzk_config *cfg;
    if (cuzk_config_new(&cfg) != CUZK_OK) return 2;
    cuzk_engine *e = NULL;
    int rc = cuzk_engine_create(cfg, &e); /* may fail without a prover: loading is the point */
    void *p = malloc(1000);
    void *mi = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_NOLOAD);
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void *global = dlsym(RTLD_DEFAULT, "malloc");
    void *from_libc = libc ? dlsym(libc, "malloc") : NULL;
    void *global_free = dlsym(RTLD_DEFAULT, "free");
    void *libc_free = libc ? dlsym(libc, "free") : NULL;
    printf("mimalloc loaded: %s\n", mi ? "yes" : "no");
    printf("malloc -> %s, libc's malloc -> %s\n", owner(global), owner(from_libc));
    printf("engine_create: %d\n", rc);
    int ok = mi && global && global == from_libc && global_free == libc_free && strstr(owner(global), "libc.so");
    free(p);
    if (e) cuzk_engine_destroy(e);
    cuzk_config_free(cfg);
    return ok ? 0 : 1;
}
C
if ! cc -std=c11 -Iinclude -o "$tmp/host" "$tmp/host.c" -L"$BUILD/lib" -lcuzk -Wl,-rpath,"$(cd "$BUILD/lib" && pwd)" 2>"$tmp/cc.log"; then
  echo "not ok - cannot build the host"; cat "$tmp/cc.log"; exit 1
fi
if ldd "$tmp/host" | grep -q mimalloc && ! readelf -d "$tmp/host" | grep NEEDED | grep -q mimalloc; then
  echo "ok - the host links libcuzk only (mimalloc comes in as libcuzk's dependency)"
else echo "not ok - unexpected link: $(readelf -d "$tmp/host" | grep NEEDED)"; fi
if out=$("$tmp/host" 2>&1); then echo "ok - the host's malloc and free stay libc's with libcuzk loaded"
else echo "not ok - malloc replaced:"; echo "$out" | sed 's/^/    /'; fi
echo "$out" | sed 's/^/# /'
if nm -D --undefined-only "$BUILD/lib/libcuzk.so.0" | grep -q malloc_trim; then
  echo "not ok - libcuzk references malloc_trim"
else echo "ok - libcuzk never calls malloc_trim"; fi
