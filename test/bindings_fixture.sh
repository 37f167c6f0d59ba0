#!/usr/bin/env bash
# Sourced by the binding and example tests: a tiny circuit, witness and TEST-ONLY key pair
# made with the cuzk CLI (gen, setup), once per build dir, in $FX (c.r1cs c.wtns c.params
# c.vk), for the example programs; a CLI that cannot make them fails the sourcing script
# (never a skip that passes). (The Go and Rust test suites make their own fixture and need
# none of this.) stage_install puts the
# library into $STAGE with `make install` and points pkg-config at it, so hosts build the way
# an integrator's do. Exits 77 (skip) under a sanitizer: a sanitized library cannot be loaded
# into an uninstrumented host.
BUILD=${BUILD:-build}
[ -n "${SANITIZE:-}" ] && { echo "skipped under SANITIZE=$SANITIZE"; exit 77; }
[ -f "$BUILD/lib/libcuzk.so" ] || { echo "not ok - $BUILD/lib/libcuzk.so missing"; exit 1; }
LIBDIR=$(cd "$BUILD/lib" && pwd)
FX=$BUILD/fixture
exec 9>"$BUILD/fixture.lock" && flock 9 # tests run side by side (run-tests.sh): one makes it, the others wait
if [ ! -f "$FX/c.vk" ]; then
  mkdir -p "$FX"
  cli=$BUILD/bin/cuzk
  if ! [ -x "$cli" ]; then
    echo "not ok - $cli is missing: no test circuit for the examples"; exit 1
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

# `make install` into $BUILD/stage (DESTDIR, PREFIX=/usr/local); pkg-config then finds the
# installed cuzk.pc and, through its sysroot variable, the staged paths. STAGE_LIB is where
# the installed libcuzk.so is (a host outside the loader's path needs it at run time).
stage_install() {
  local cuda=${USE_CUDA:-}
  [ -n "$cuda" ] || { [ -d "$BUILD/obj/kernels" ] && cuda=1 || cuda=0; } # never rebuild another way
  # one staging prefix per test: run-tests.sh runs the Go and Rust tests side by side
  local name; name=$(basename "$0" .sh)
  STAGE=$(pwd)/$BUILD/stage-$name
  rm -rf "$STAGE"
  make --no-print-directory -s install BUILD="$BUILD" CUZK_CUDA="$cuda" DESTDIR="$STAGE" PREFIX=/usr/local \
    >"$BUILD/stage-$name.log" 2>&1 || { echo "not ok - make install into $STAGE failed"; cat "$BUILD/stage-$name.log"; exit 1; }
  export PKG_CONFIG_LIBDIR=$STAGE/usr/local/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$STAGE
  unset PKG_CONFIG_PATH
  STAGE_LIB=$STAGE/usr/local/lib
  pkg-config --exists cuzk || { echo "not ok - pkg-config does not find the installed cuzk.pc"; exit 1; }
}
