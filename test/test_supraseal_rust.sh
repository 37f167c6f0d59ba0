#!/usr/bin/env bash
# bindings/rust/supraseal-c2 (supraseal-c2 0.1's API on the libcuzk engine), offline:
#   - builds against an installed libcuzk found through pkg-config alone;
#   - cargo test: proof decompression against the generators; layouts and signatures;
#     both proving functions against libcuzk's own API (the cuzk crate) on the same
#     partitions, r and s, a batch of 10; errors (panic text, try_'s Err); SRS
#     clone/drop/evict across threads; the adapter; the environment's options;
#   - the engine says once on stderr that libcuzk proves;
#   - the tests FAIL, not skip, when pointed at a fixture that is not there.
set -u
command -v cargo >/dev/null || { echo "skip: cargo not installed"; exit 77; }
root=$(pwd)
. test/bindings_fixture.sh
stage_install
# A target dir of its own: test_bindings_rust.sh runs beside it with another staging prefix,
# and sharing one would rebuild cuzk-sys back and forth.
export CARGO_TARGET_DIR=$root/$BUILD/rust-supraseal CARGO_NET_OFFLINE=true
unset CUZK_LIB_DIR CUZK_FIXTURE CUZK_BACKEND CUZK_WORKERS_PER_DEVICE CUZK_CPU_THREADS CUZK_QUEUE_CAPACITY
log=$CARGO_TARGET_DIR/log; mkdir -p "$CARGO_TARGET_DIR"
cd bindings/rust
t0=$(date +%s)
if cargo build --offline -p supraseal-c2 --all-targets >"$log" 2>&1; then
  echo "ok - cargo build --offline -p supraseal-c2: links the installed libcuzk through pkg-config ($(( $(date +%s) - t0 )) s)"
else echo "not ok - cargo build:"; tail -30 "$log"; exit 1; fi

cargo test --offline -p supraseal-c2 -- --test-threads=2 >"$log" 2>&1; rc=$?
grep -E '^test |test result' "$log" | sed 's/^/# /'
tests=$(grep -h -A1 '#\[test\]' supraseal-c2/tests/*.rs supraseal-c2/src/*.rs | grep -o 'fn [a-z0-9_]*' | sed 's/fn //')
[ -n "$tests" ] || echo "not ok - no tests found in supraseal-c2"
for t in $tests; do
  grep -Eq "^test ([a-z_]*::)*$t \.\.\. ok" "$log" && echo "ok - cargo test $t" || echo "not ok - cargo test $t"
done
[ $rc = 0 ] || { echo "not ok - cargo test exited $rc"; grep -B2 -A12 'panicked' "$log" | head -60; }

# The line that tells an operator libcuzk proves: once per process, at engine creation.
cargo test --offline -p supraseal-c2 --test env -- --nocapture >"$log" 2>&1
lines=$(grep -c '^supraseal-c2 [0-9.]*: proving with libcuzk [0-9.]* (CPU, 3 workers)$' "$log")
[ "$lines" = 1 ] && echo "ok - the engine announces itself once on stderr: $(grep '^supraseal-c2 ' "$log")" \
                 || { echo "not ok - expected one announcement, saw $lines:"; grep -i 'supraseal-c2' "$log" | head; }

# Without their fixture the tests must fail, not pass or skip.
if CUZK_FIXTURE=$root/$BUILD/no-such-fixture cargo test --offline -p supraseal-c2 --test supraseal batch_of_10 >"$log" 2>&1; then
  echo "not ok - cargo test passed with CUZK_FIXTURE pointing nowhere"
elif grep -q 'test batch_of_10_equals_libcuzk_and_verifies ... FAILED' "$log" && grep -q 'no-such-fixture' "$log"; then
  echo "ok - cargo test fails (does not skip) when its fixture is missing"
else echo "not ok - cargo test without fixture:"; tail -20 "$log"; fi
