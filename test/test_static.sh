#!/usr/bin/env bash
# libcuzk.a gives a static host only cuzk_ symbols: nm finds no other global definition in it,
# and a small C host that defines functions and data named like the library's internals
# (sha256, threadpool_create, ring_push, fp_mul, err_set, FP_ONE, ...) links against it with
# -l:libcuzk.a and still gets correct answers from the library (nothing clashes, nothing is
# interposed). mimalloc and the CUDA runtime stay separate libraries on the link line.
set -u
[ -n "${SANITIZE:-}" ] && { echo "skipped under SANITIZE=$SANITIZE"; exit 77; }
BUILD=${BUILD:-build}
a=$BUILD/lib/libcuzk.a
[ -f "$a" ] || { echo "not ok - $a missing"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# 1. nm: every global definition is cuzk_ (undefined references to libc, mimalloc, cudart are fine)
nm -g --defined-only "$a" | awk 'NF == 3 {print $3}' | sort -u >"$tmp/defined"
bad=$(grep -v '^cuzk_' "$tmp/defined" || true)
n=$(grep -c '^cuzk_' "$tmp/defined")
if [ -z "$bad" ] && [ "$n" -gt 20 ]; then echo "ok - libcuzk.a defines only cuzk_ globals ($n)"
else echo "not ok - libcuzk.a defines non-cuzk_ globals ($(echo "$bad" | wc -l)):"; echo "$bad" | head -20 | sed 's/^/    /'; fi
# the same set as the shared library exports
nm -D --defined-only "$BUILD/lib/libcuzk.so" | awk '{print $3}' | sed 's/@.*//' | grep '^cuzk_' | sort -u >"$tmp/so"
if diff -q "$tmp/so" <(grep '^cuzk_' "$tmp/defined") >/dev/null; then echo "ok - libcuzk.a and libcuzk.so define the same cuzk_ symbols"
else echo "not ok - libcuzk.a and libcuzk.so differ:"; diff "$tmp/so" <(grep '^cuzk_' "$tmp/defined") | sed 's/^/    /' | head; fi

# 2. a static host whose own symbols are named like the library's internals
cat >"$tmp/host.c" <<'C'
#include <cuzk/cuzk.h>
#include <stdio.h>
#include <string.h>
/* the host's own things, named like libcuzk's internals: they must neither clash at link
 * time nor be called by the library in place of its own */
const unsigned long long FP_ONE[6] = {0};
int host_hits;
void sha256(const void *d, size_t n, unsigned char out[32]) { (void)d; (void)n; memset(out, 0, 32); host_hits++; }
void *threadpool_create(unsigned n) { (void)n; host_hits++; return 0; }
int ring_push(void *r, const void *x) { (void)r; (void)x; host_hits++; return 0; }
void fp_mul(void *r, const void *a, const void *b) { (void)r; (void)a; (void)b; host_hits++; }
int err_set(int code, const char *fmt, ...) { (void)fmt; host_hits++; return code; }
void *arena_heap_new(void) { host_hits++; return 0; }
int main(void)
{
    cuzk_config *cfg;
    cuzk_engine *e;
    if (cuzk_config_new(&cfg) || cuzk_config_set(cfg, CUZK_OPT_BACKEND, CUZK_BACKEND_CPU) ||
        cuzk_config_set(cfg, CUZK_OPT_CPU_THREADS, 2) || cuzk_engine_create(cfg, &e)) {
        printf("engine: %s\n", cuzk_last_error());
        return 1;
    }
    cuzk_config_free(cfg);
    void *m = 0;
    int rc = cuzk_host_alloc(e, 1 << 20, &m);
    cuzk_host_free(e, m);
    /* a key that is not one: the library's own decoder and error text must answer */
    unsigned char vk[900] = {0}, proof[192] = {0};
    int vrc = cuzk_verify(vk, sizeof vk, proof, 0, 0, CUZK_FR_CANONICAL);
    printf("host_alloc %d, verify %s (%s), host functions called %d\n", rc, cuzk_strerror(vrc),
           cuzk_last_error(), host_hits);
    cuzk_engine_destroy(e);
    return rc == CUZK_OK && vrc == CUZK_EFORMAT && strstr(cuzk_last_error(), "verifying key") && !host_hits ? 0 : 1;
}
C
cuda_libs=""
[ "${USE_CUDA:-}" = 1 ] && cuda_libs="-L${CUDA_HOME:-/usr/local/cuda}/lib64 -lcudart_static -ldl -lrt -lstdc++"
if cc -std=c99 -O1 -Iinclude -o "$tmp/host" "$tmp/host.c" -L"$BUILD/lib" -l:libcuzk.a -lmimalloc -lpthread -lm $cuda_libs \
   >"$tmp/link.log" 2>&1; then
  echo "ok - a host defining sha256, threadpool_create, ring_push, fp_mul, err_set, FP_ONE links -l:libcuzk.a"
else echo "not ok - the static host does not link:"; sed 's/^/    /' "$tmp/link.log" | head -20; exit 1; fi
if ldd "$tmp/host" | grep -q libcuzk; then echo "not ok - the static host loads libcuzk.so"
else echo "ok - the static host does not load libcuzk.so"; fi
if out=$("$tmp/host" 2>&1); then echo "ok - the library answers with its own internals: $out"
else echo "not ok - the static host: $out"; fi
