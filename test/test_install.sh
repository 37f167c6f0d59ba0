#!/usr/bin/env bash
# make install into a temporary DESTDIR, then a tiny C host finds, builds against and runs
# the library through pkg-config alone (shared, and static with --static).
set -u
# A sanitized library cannot be linked into an uninstrumented host: checked in the plain build.
[ -n "${SANITIZE:-}" ] && { echo "skipped under SANITIZE=$SANITIZE"; exit 77; }
BUILD=${BUILD:-build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=/opt/cuzk-test
if make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$tmp" PREFIX=$prefix >"$tmp/install.log" 2>&1; then
  echo "ok - make install DESTDIR"
else echo "not ok - make install failed"; cat "$tmp/install.log"; exit 1; fi
root=$tmp$prefix
for f in include/cuzk/cuzk.h lib/libcuzk.so.0.1.0 lib/libcuzk.so.0 lib/libcuzk.so lib/libcuzk.a lib/pkgconfig/cuzk.pc; do
  [ -e "$root/$f" ] || echo "not ok - $f not installed"
done
echo "ok - installed files present"
cat > "$tmp/host.c" <<'C'
#include <cuzk/cuzk.h>
#include <stdio.h>
int main(void)
{
    if (cuzk_version_number() != CUZK_VERSION_NUMBER) { puts("version mismatch"); return 1; }
    printf("libcuzk %s: %s\n", cuzk_version_string(), cuzk_strerror(CUZK_EFORMAT));
    return 0;
}
C
export PKG_CONFIG_LIBDIR=$root/lib/pkgconfig
pc() { pkg-config --define-variable=prefix="$root" "$@" cuzk; }
flags=$(pc --cflags --libs) || { echo "not ok - pkg-config cannot find cuzk"; exit 1; }
if cc -o "$tmp/host" "$tmp/host.c" $flags && LD_LIBRARY_PATH=$root/lib "$tmp/host" | grep -q "CUZK_EFORMAT"; then
  echo "ok - host links through pkg-config --cflags --libs cuzk (shared)"
else echo "not ok - shared host: cc $flags"; fi
sflags=$(pc --static --cflags --libs)
if cc -o "$tmp/host_static" "$tmp/host.c" -Wl,-Bstatic -lcuzk -Wl,-Bdynamic $(echo "$sflags" | sed 's/-lcuzk//') \
   && "$tmp/host_static" | grep -q CUZK_EFORMAT && ! ldd "$tmp/host_static" | grep -q libcuzk; then
  echo "ok - host links statically through pkg-config --static"
else echo "not ok - static host: $sflags"; fi
