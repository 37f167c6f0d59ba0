#!/usr/bin/env bash
# bindings/rust (cuzk-sys + cuzk), offline, no third-party crates:
#   - cuzk-sys declares every function and constant of the headers, and its struct layouts
#     are what a C compiler makes of them;
#   - the workspace builds against an installed libcuzk found through pkg-config alone;
#   - cargo test: real partitions proved and verified (owned witnesses, scoped borrows, a
#     failed job's detail, threads, cancel, trace, stats), on a fixture the tests make;
#     the same tests FAIL, not skip, when pointed at a fixture that is not there;
#   - compile-fail: the borrow checker refuses every way to free an in-flight buffer;
#   - the example proves through the CUZK_LIB_DIR override.
set -u
command -v cargo >/dev/null || { echo "skip: cargo not installed"; exit 77; }
root=$(pwd)
hdr() { grep -ho "$1" include/cuzk/*.h | sed "$2" | sort -u; }
rsd() { grep -o "$1" bindings/rust/cuzk-sys/src/lib.rs | sed "$2" | sort -u; }
for what in functions constants; do
  if [ $what = functions ]; then h=$(hdr 'cuzk_[a-z0-9_]*(' 's/($//'); r=$(rsd 'pub fn cuzk_[a-z0-9_]*' 's/pub fn //')
  else h=$( { grep -ho 'CUZK_[A-Z0-9_]* = ' include/cuzk/*.h | tr -d ' ='; grep -ho '^#define CUZK_[A-Z0-9_]*' include/cuzk/*.h | sed 's/#define //'; } \
              | grep -vxE 'CUZK_(API|H|R1CS_H)' | sort -u)
       r=$(rsd 'pub const CUZK_[A-Z0-9_]*' 's/pub const //'); fi
  missing=$(comm -23 <(echo "$h") <(echo "$r"))
  [ -z "$missing" ] && echo "ok - cuzk-sys declares every header $what ($(echo "$h" | wc -l))" \
                    || echo "not ok - header $what missing in cuzk-sys:" $missing
  extra=$(comm -13 <(echo "$h") <(echo "$r")); [ -n "$extra" ] && echo "# cuzk-sys declares beyond the header:" $extra
done

. test/bindings_fixture.sh
stage_install
export CARGO_TARGET_DIR=$root/$BUILD/rust CARGO_NET_OFFLINE=true
unset CUZK_LIB_DIR CUZK_FIXTURE
log=$CARGO_TARGET_DIR/log; mkdir -p "$CARGO_TARGET_DIR"
cd bindings/rust
t0=$(date +%s)
if cargo build --offline --workspace --all-targets >"$log" 2>&1; then
  echo "ok - cargo build --offline: links the installed libcuzk through pkg-config ($(( $(date +%s) - t0 )) s)"
else echo "not ok - cargo build:"; tail -30 "$log"; exit 1; fi

# Layouts: the example prints "name sizeof|offsetof N"; C computes the same over the header.
if cargo run --offline --quiet -p cuzk-sys --example layout >"$log.rs" 2>&1; then
  { echo '#include <stddef.h>'; echo '#include <stdio.h>'; echo '#include <cuzk/cuzk.h>'; echo 'int main(void) {'
    awk '$2 == "sizeof" { printf "printf(\"%s sizeof %%zu\\n\", sizeof(%s));\n", $1, $1 }
         $2 == "offsetof" { split($1, p, "."); printf "printf(\"%s offsetof %%zu\\n\", offsetof(%s, %s));\n", $1, p[1], p[2] }' "$log.rs"
    echo 'return 0; }'
    # Every constant's value too: "pub const X: T = E;" is C as well once turned around.
    sed -n 's/^pub const \(CUZK_[A-Z0-9_]*\): [a-z0-9_]* = \(.*\);$/_Static_assert((\1) == (\2), "\1 differs");/p' \
      "$root/bindings/rust/cuzk-sys/src/lib.rs"; } > "$CARGO_TARGET_DIR/layout.c"
  if cc -std=c11 -I"$root/include" -o "$CARGO_TARGET_DIR/layout" "$CARGO_TARGET_DIR/layout.c" 2>"$log" \
     && "$CARGO_TARGET_DIR/layout" | diff - "$log.rs" >"$log" && [ -s "$log.rs" ]; then
    echo "ok - cuzk-sys struct layouts and constants match the C header ($(wc -l < "$log.rs") sizes and offsets, $(grep -c _Static_assert "$CARGO_TARGET_DIR/layout.c") values)"
  else echo "not ok - cuzk-sys struct layouts differ from C:"; cat "$log"; fi
else echo "not ok - cargo run --example layout:"; cat "$log.rs"; fi

# supraseal-c2 has its own script (test_supraseal_rust.sh)
cargo test --offline --workspace --exclude supraseal-c2 -- --test-threads=2 >"$log" 2>&1; rc=$?
grep -E '^test |test result' "$log" | sed 's/^/# /'
tests=$(grep -A1 '^#\[test\]' cuzk/tests/engine.rs | grep -o '^fn [a-z_]*' | sed 's/fn //')
for t in $tests; do
  grep -q "^test $t ... ok" "$log" && echo "ok - cargo test $t" || echo "not ok - cargo test $t"
done
[ $rc = 0 ] || { echo "not ok - cargo test exited $rc"; grep -B2 -A12 'panicked' "$log" | head -60; }
# What the failed jobs said, as the host sees it:
cargo test --offline -q --test engine job_failure -- --nocapture 2>&1 | grep '^job (tag [0-9]*) failed' | sed 's/^/# /'

# Without their fixture the tests must fail, not pass or skip.
if CUZK_FIXTURE=$root/$BUILD/no-such-fixture cargo test --offline --test engine owned_witness >"$log" 2>&1; then
  echo "not ok - cargo test passed with CUZK_FIXTURE pointing nowhere"
elif grep -q 'test owned_witness_proves_and_comes_back ... FAILED' "$log" && grep -q 'no-such-fixture' "$log"; then
  echo "ok - cargo test fails (does not skip) when its fixture is missing"
else echo "not ok - cargo test without fixture:"; tail -20 "$log"; fi

# Compile-fail: each program must be refused with its error code; ok.rs must compile.
deps=$CARGO_TARGET_DIR/debug
for f in cuzk/compile-fail/*.rs; do
  [ "$(basename "$f")" = common.rs ] && continue
  want=$(sed -n '1s|^// expect: ||p' "$f")
  rustc --edition 2021 --crate-type bin --emit=metadata -o "$CARGO_TARGET_DIR/cf.rmeta" \
        --extern cuzk="$deps/libcuzk.rlib" -L dependency="$deps/deps" "$f" >"$log" 2>&1; rc=$?
  got=$(grep -o '^error\[E[0-9]*\]' "$log" | tr -d 'error[]' | sort -u | tr '\n' ' ')
  if [ "$want" = ok ]; then
    [ $rc = 0 ] && echo "ok - compile-fail control $f compiles" || { echo "not ok - $f must compile:"; head -30 "$log"; }
  elif [ $rc != 0 ] && [[ " $got" == *" $want "* ]]; then
    echo "ok - $f refused by rustc with $want"
  else echo "not ok - $f: expected $want, got rc=$rc ${got:-no error code}"; head -30 "$log"; fi
done

# The example through the CUZK_LIB_DIR override (the build tree's library, not the stage).
if CUZK_LIB_DIR=$LIBDIR cargo run --offline --quiet -p cuzk --example prove -- "$FX/c.params" "$FX/c.vk" "$FX/c.r1cs" "$FX/c.wtns" 3 >"$log" 2>&1 \
   && [ "$(grep -c valid "$log")" = 3 ]; then echo "ok - CUZK_LIB_DIR=build/lib cargo run --example prove: 3 valid"
else echo "not ok - example prove:"; cat "$log"; fi
