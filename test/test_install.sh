#!/usr/bin/env bash
# make install into a temporary DESTDIR, then a tiny C host finds, builds against and runs
# the library through pkg-config alone (shared, and static with --static), and the installed
# cuzk proves, verifies and draws from the installed tree (nothing of the build tree used).
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
for f in include/cuzk/cuzk.h lib/libcuzk.so.0.1.0 lib/libcuzk.so.0 lib/libcuzk.so lib/libcuzk.a lib/pkgconfig/cuzk.pc \
         bin/cuzk bin/cuzk-bench; do
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
# the installed tools, run from a directory without a build tree
mkdir -p "$tmp/elsewhere"
out=$(cd "$tmp/elsewhere" && "$root/bin/cuzk" demo --log 8 --count 2 --cache "$tmp/demo" 2>&1); rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q "cuzk_verify accepted 2 of 2" && [ -s "$tmp/demo/timeline.svg" ] \
  && echo "ok - installed cuzk demo: 2 of 2 verified, timeline drawn" || { echo "not ok - installed cuzk demo: exit $rc"; echo "$out" | tail -5; }
"$root/bin/cuzk" trace "$tmp/demo/events.jsonl" | grep -q "2 partitions" \
  && echo "ok - installed cuzk trace reads the demo's events" || echo "not ok - installed cuzk trace"
"$root/bin/cuzk-bench" version | grep -q "^libcuzk " && echo "ok - installed cuzk-bench runs" || echo "not ok - installed cuzk-bench"
