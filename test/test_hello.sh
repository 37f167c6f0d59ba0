#!/usr/bin/env bash
# examples/hello.c, the smallest host: built from the public headers against the shared
# library alone, it proves a small `cuzk gen` circuit with a `cuzk setup` key through the
# engine and checks the proof; with a key of another circuit it fails cleanly.
set -u
# A sanitized library cannot be linked into an uninstrumented host: checked in the plain build.
[ -n "${SANITIZE:-}" ] && { echo "skipped under SANITIZE=$SANITIZE"; exit 77; }
BUILD=${BUILD:-build}
hello=$BUILD/bin/hello cuzk=$BUILD/bin/cuzk
for b in "$hello" "$cuzk"; do [ -x "$b" ] || { echo "not ok - $b is missing"; exit 1; }; done
work=$BUILD/test-hello
rm -rf "$work" && mkdir -p "$work"
SEED=4e110e110e110e110e110e110e110e110e110e110e110e110e110e110e110e11
if "$cuzk" gen --shape porep --constraints 300 --r1cs "$work/c.r1cs" --wtns "$work/c.wtns" --seed "$SEED" >/dev/null &&
   "$cuzk" gen --shape porep --constraints 200 --r1cs "$work/d.r1cs" --wtns "$work/d.wtns" --seed "$SEED" >/dev/null &&
   "$cuzk" setup --r1cs "$work/c.r1cs" --params "$work/c.params" --vk "$work/c.vk" --seed "$SEED" >/dev/null; then
  echo "ok - circuits and a test-only key"
else echo "not ok - cuzk gen / cuzk setup"; exit 1; fi
needed=$(readelf -d "$hello" | awk '/NEEDED/ {print $5}' | tr -d '[]' | sort | tr '\n' ' ')
case "$needed" in
  *libcuzk.so.0*) echo "ok - hello links the shared library ($needed)";;
  *) echo "not ok - hello does not link libcuzk.so.0: $needed";;
esac
if out=$("$hello" "$work/c.params" "$work/c.vk" "$work/c.r1cs" "$work/c.wtns" 2>&1) && echo "$out" | grep -q "verified"; then
  echo "ok - hello proves and verifies: $out"
else echo "not ok - hello failed:"; echo "$out" | sed 's/^/    /'; fi
out=$("$hello" "$work/c.params" "$work/c.vk" "$work/d.r1cs" "$work/d.wtns" 2>&1); rc=$?
if [ "$rc" = 1 ] && echo "$out" | grep -q "CUZK_EMISMATCH"; then echo "ok - another circuit's key is refused (CUZK_EMISMATCH)"
else echo "not ok - wrong key: exit $rc: $out"; fi
out=$("$hello" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "ok - usage without arguments (exit 2)" || echo "not ok - no arguments: exit $rc"
