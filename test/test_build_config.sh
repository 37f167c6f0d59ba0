#!/usr/bin/env bash
# A build directory remembers its options (mk/config.mk): configured CPU-only, a later plain
# `make install` in it must not start nvcc — a logging stand-in for nvcc is first on PATH, so
# the old behaviour (CUDA auto-detected again at install time) would call it — and installs a
# library without CUDA symbols. A changed option rebuilds; an unchanged one rebuilds nothing.
set -u
# A sanitized build of the suite gains nothing from a second, plain build here: checked once.
[ -n "${SANITIZE:-}" ] && { echo "skipped under SANITIZE=$SANITIZE"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/cuda/bin"
for tool in nvcc __nvcc_device_query nvidia-smi; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/cuda.log"\nexit 1\n' "$tool" "$tmp" > "$tmp/cuda/bin/$tool"
  chmod +x "$tmp/cuda/bin/$tool"
done
# a user's shell: no options from the make that runs this test, the stand-in toolkit on PATH
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CUZK_CUDA -u CUDA_ARCHS -u OPT -u SANITIZE -u CFLAGS \
         -u USE_CUDA -u BUILD PATH="$tmp/cuda/bin:$PATH" make --no-print-directory "$@"; }
b=$tmp/build
# -O0: the library builds in seconds; that it stays -O0 at install time is checked too
if mk lib BUILD="$b" CUZK_CUDA=0 OPT=-O0 >"$tmp/configure.log" 2>&1; then
  echo "ok - CPU-only build directory configured (CUZK_CUDA=0 OPT=-O0)"
else echo "not ok - configure failed"; tail -20 "$tmp/configure.log"; exit 1; fi
head -n 1 "$tmp/configure.log" | grep -q "CPU only (CUZK_CUDA=0)" \
  && echo "ok - the first line says what is built: $(head -n 1 "$tmp/configure.log" | cut -c1-60)..." \
  || echo "not ok - first line: $(head -n 1 "$tmp/configure.log")"
grep -qx 'saved_CUZK_CUDA := 0' "$b/config.mk" && grep -qx 'saved_OPT := -O0' "$b/config.mk" \
  && echo "ok - $b/config.mk records CUZK_CUDA=0 and OPT=-O0" || { echo "not ok - config.mk:"; cat "$b/config.mk"; }
n=$(mk -n lib BUILD="$b" | grep -c -- ' -c ')
[ "$n" = 0 ] && echo "ok - nothing to rebuild with the remembered options" || echo "not ok - $n compiles planned"
dest=$tmp/dest
if mk install BUILD="$b" DESTDIR="$dest" PREFIX=/usr >"$tmp/install.log" 2>&1; then
  echo "ok - make install in the configured directory, no options given"
else echo "not ok - make install failed"; tail -20 "$tmp/install.log"; fi
[ ! -s "$tmp/cuda.log" ] && echo "ok - nvcc (and the GPU queries) never ran" \
  || { echo "not ok - the CUDA toolkit was used:"; sed 's/^/    /' "$tmp/cuda.log"; }
grep -q -- "-O3\|-DCUZK_HAVE_CUDA" "$tmp/install.log" \
  && echo "not ok - install compiled with other options: $(grep -m1 -- '-O3\|CUZK_HAVE_CUDA' "$tmp/install.log")" \
  || echo "ok - install used the directory's options (no -O3, no CUDA objects)"
lib=$dest/usr/lib
cudasyms=$( { nm -D "$lib/libcuzk.so.0"; nm "$lib/libcuzk.a" 2>/dev/null; } | grep -E ' (cuda[A-Z]|__cuda|__nv|_Z.*cub)' | head -5)
[ -f "$lib/libcuzk.so.0" ] && [ -z "$cudasyms" ] && ! objdump -h "$lib/libcuzk.so.0" | grep -q nv_fatbin \
  && echo "ok - the installed libraries have no CUDA symbol or fat binary" || echo "not ok - CUDA in the library: $cudasyms"
"$dest/usr/bin/cuzk" --version | grep -q '^cuzk ' && echo "ok - the installed cuzk runs" || echo "not ok - installed cuzk"
n=$(mk -n lib BUILD="$b" OPT=-O1 | grep -c -- ' -c ')
[ "$n" -gt 10 ] && echo "ok - a changed option (OPT=-O1) rebuilds every object ($n)" || echo "not ok - OPT=-O1 plans $n compiles"
