#!/usr/bin/env bash
# The shared library exports only cuzk_ symbols, all under a CUZK_ version node, with the
# right soname; nothing of mimalloc, the CUDA runtime or C++ leaks out.
set -u
# A sanitized library cannot be linked into an uninstrumented host: checked in the plain build.
[ -n "${SANITIZE:-}" ] && { echo "skipped under SANITIZE=$SANITIZE"; exit 77; }
BUILD=${BUILD:-build}
version=$(awk '/^#define CUZK_VERSION_(MAJOR|MINOR|PATCH) / {v = v (v == "" ? "" : ".") $3} END {print v}' include/cuzk/cuzk.h)
so=$BUILD/lib/libcuzk.so.$version
[ -f "$so" ] || { echo "not ok - $so (the header's version) missing"; exit 1; }
syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | sort -u)
bad=$(echo "$syms" | grep -v '^cuzk_' | grep -v '^CUZK_' | grep -v '^$')
if [ -z "$bad" ]; then echo "ok - only cuzk_ symbols exported ($(echo "$syms" | grep -c '^cuzk_'))"
else echo "not ok - symbols exported without the cuzk_ prefix:"; echo "$bad" | head -20; fi
unver=$(nm -D --defined-only --with-symbol-versions "$so" 2>/dev/null | awk '$3 ~ /^cuzk_/ && $3 !~ /@@?CUZK_/')
[ -z "$unver" ] && echo "ok - every cuzk_ symbol carries a CUZK_ version" || { echo "not ok - unversioned: $unver"; }
soname=$(objdump -p "$so" | awk '/SONAME/ {print $2}')
[ "$soname" = libcuzk.so.0 ] && echo "ok - soname libcuzk.so.0" || echo "not ok - soname is '$soname'"
[ "$(readlink "$BUILD/lib/libcuzk.so.0")" = "libcuzk.so.$version" ] && [ "$(readlink "$BUILD/lib/libcuzk.so")" = libcuzk.so.0 ] \
  && echo "ok - .so.0 and .so links" || echo "not ok - links wrong"
# The version is the API's: MAJOR.MINOR of the header (and of the file name) is the newest
# version node the library defines, so a node added without a release bump fails here.
newest=$(readelf -V "$so" | sed -n 's/.*Name: CUZK_\([0-9]*\.[0-9]*\)$/\1/p' | sort -t. -k1,1n -k2,2n | tail -1)
[ -n "$newest" ] && [ "${version%.*}" = "$newest" ] && echo "ok - version $version matches the newest node CUZK_$newest" \
  || echo "not ok - version $version, newest version node CUZK_$newest"
# Every symbol the header declares is exported (nothing promised and missing).
missing=""
for f in $(grep -ho 'cuzk_[a-z0-9_]*(' include/cuzk/*.h | tr -d '(' | sort -u); do
  echo "$syms" | grep -qx "$f" || missing="$missing $f"
done
[ -z "$missing" ] && echo "ok - every declared function is exported" || echo "not ok - declared but not exported:$missing"
# Run-time dependencies: libc, libm, pthread, dl, rt, libstdc++, libgcc and mimalloc only
# (the CUDA runtime is linked statically; the driver is loaded by it at run time).
needed=$(objdump -p "$so" | awk '/NEEDED/ {print $2}')
odd=$(echo "$needed" | grep -Ev '^(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libmimalloc|ld-linux-x86-64)\.so' || true)
[ -z "$odd" ] && echo "ok - run-time dependencies: $(echo $needed)" || echo "not ok - unexpected NEEDED: $odd"
