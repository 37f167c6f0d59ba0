#!/usr/bin/env bash
# make install into a temporary DESTDIR, then a tiny C host finds, builds against and runs
# the library through pkg-config alone (shared through cuzk.pc, static through cuzk-static.pc
# with the .so installed beside it), and the installed cuzk proves, verifies and draws from the
# installed tree (nothing of the build tree used).
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
# the version the header says (the tree's), as the library's file name and the .pc's Version
version=$(awk '/^#define CUZK_VERSION_(MAJOR|MINOR|PATCH) / {v = v (v == "" ? "" : ".") $3} END {print v}' include/cuzk/cuzk.h)
for f in include/cuzk/cuzk.h lib/libcuzk.so.$version lib/libcuzk.so.0 lib/libcuzk.so lib/libcuzk.a lib/pkgconfig/cuzk.pc \
         lib/pkgconfig/cuzk-static.pc bin/cuzk bin/cuzk-bench include/cuzk/supraseal_c2.h \
         lib/libcuzk-supraseal.so.$version lib/libcuzk-supraseal.so.0 lib/libcuzk-supraseal.so; do
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
pc() { pkg-config --define-variable=prefix="$root" "$@"; }
flags=$(pc --cflags --libs cuzk) || { echo "not ok - pkg-config cannot find cuzk"; exit 1; }
if cc -o "$tmp/host" "$tmp/host.c" $flags && LD_LIBRARY_PATH=$root/lib "$tmp/host" | grep -q "libcuzk $version: CUZK_EFORMAT"; then
  echo "ok - host links through pkg-config --cflags --libs cuzk (shared), loads libcuzk $version"
else echo "not ok - shared host: cc $flags"; fi
# docs/c.md's recipe for a prefix the loader does not search: an rpath from the .pc's libdir
# lets the host run with no LD_LIBRARY_PATH; without it the loader refuses (docs' message),
# unless this machine has a libcuzk of its own in the loader's cache
if cc -o "$tmp/host_rpath" "$tmp/host.c" $flags -Wl,-rpath,"$(pc --variable=libdir cuzk)" \
   && "$tmp/host_rpath" | grep -q CUZK_EFORMAT \
   && { /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuzk\.so\.0 ' \
        || "$tmp/host" 2>&1 | grep -q "error while loading shared libraries: libcuzk.so.0"; }; then
  echo "ok - an rpath from pkg-config --variable=libdir cuzk finds the library; without it the loader refuses"
else echo "not ok - rpath host (libdir $(pc --variable=libdir cuzk))"; fi
for m in cuzk cuzk-static; do
  [ "$(pc --modversion $m)" = "$version" ] && echo "ok - $m.pc says Version $version" || echo "not ok - $m.pc: $(pc --modversion $m)"
done
# Static beside the installed .so, exactly as pkg-config prints it (no -Wl,-Bstatic help): the
# host runs without LD_LIBRARY_PATH and needs no libcuzk.so. cuzk.pc's -lcuzk would take the .so.
sflags=$(pc --cflags --libs cuzk-static)
if cc -o "$tmp/host_static" "$tmp/host.c" $sflags && "$tmp/host_static" | grep -q CUZK_EFORMAT \
   && ! ldd "$tmp/host_static" | grep -q libcuzk; then
  echo "ok - host links statically through pkg-config --libs cuzk-static: $sflags"
else echo "not ok - static host: cc $sflags: $(ldd "$tmp/host_static" 2>&1 | grep libcuzk)"; fi
# --static cuzk: the same libraries, for a link of archives only (cc -static)
pc --static --libs cuzk | grep -q -- "-lcuzk .*-lmimalloc" && echo "ok - pkg-config --static --libs cuzk adds Libs.private" \
  || echo "not ok - --static cuzk: $(pc --static --libs cuzk)"
# the installed tools, run from a directory without a build tree
mkdir -p "$tmp/elsewhere"
out=$(cd "$tmp/elsewhere" && "$root/bin/cuzk" demo --log 8 --count 2 --cache "$tmp/demo" 2>&1); rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q "cuzk_verify accepted 2 of 2" && [ -s "$tmp/demo/timeline.svg" ] \
  && echo "ok - installed cuzk demo: 2 of 2 verified, timeline drawn" || { echo "not ok - installed cuzk demo: exit $rc"; echo "$out" | tail -5; }
"$root/bin/cuzk" trace "$tmp/demo/events.jsonl" | grep -q "2 partitions" \
  && echo "ok - installed cuzk trace reads the demo's events" || echo "not ok - installed cuzk trace"
"$root/bin/cuzk-bench" version | grep -q "^libcuzk " && echo "ok - installed cuzk-bench runs" || echo "not ok - installed cuzk-bench"
