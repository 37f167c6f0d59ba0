#!/usr/bin/env bash
# Sourced by the binding and example tests: a tiny circuit, witness and TEST-ONLY key pair
# made with the cuzk CLI (gen, setup), once per build dir, in $FX (c.r1cs c.wtns c.params
# c.vk). FX_OK=1 when they exist; FX_OK=0 (FX_WHY says why) when this CLI cannot make them,
# and the scripts then run only what needs no circuit. Exits 77 (skip) under a sanitizer:
# a sanitized library cannot be loaded into an uninstrumented host.
BUILD=${BUILD:-build}
[ -n "${SANITIZE:-}" ] && { echo "skipped under SANITIZE=$SANITIZE"; exit 77; }
[ -f "$BUILD/lib/libcuzk.so" ] || { echo "not ok - $BUILD/lib/libcuzk.so missing"; exit 1; }
LIBDIR=$(cd "$BUILD/lib" && pwd)
FX=$BUILD/fixture FX_OK=1 FX_WHY=
exec 9>"$BUILD/fixture.lock" && flock 9 # tests run side by side (run-tests.sh): one makes it, the others wait
if [ ! -f "$FX/c.vk" ]; then
  mkdir -p "$FX"
  cli=$BUILD/bin/cuzk
  if ! [ -x "$cli" ] || ! "$cli" --help 2>&1 | grep -q ' gen '; then
    FX_OK=0 FX_WHY="$cli has no gen/setup to make a test circuit"
  elif ! { "$cli" gen --shape porep --constraints 256 --r1cs "$FX/c.r1cs" --wtns "$FX/c.wtns" \
            --seed 0101010101010101010101010101010101010101010101010101010101010101 >/dev/null &&
          "$cli" setup --r1cs "$FX/c.r1cs" --params "$FX/c.params" --vk "$FX/c.vk.tmp" \
            --seed 0202020202020202020202020202020202020202020202020202020202020202 >/dev/null &&
          mv "$FX/c.vk.tmp" "$FX/c.vk"; }; then
    echo "not ok - cuzk gen/setup failed"; exit 1
  fi
fi
flock -u 9
FX=$(cd "$FX" && pwd)
[ "$FX_OK" = 1 ] || FX=
