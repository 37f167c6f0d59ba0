#!/usr/bin/env bash
# examples/rust: the raw declarations match the headers, then cargo test (real partitions
# through the engine, verified; several threads; drop with jobs in flight) and the example,
# offline, against the freshly built shared library (CUZK_LIB_DIR).
set -u
command -v cargo >/dev/null || { echo "skip: cargo not installed"; exit 77; }
# Every function the headers declare is bound in sys.rs (the other way round only noted:
# sys.rs may bind a function a pending header change adds).
hdr=$(grep -ho 'cuzk_[a-z0-9_]*(' include/cuzk/*.h | tr -d '(' | sort -u)
rs=$(grep -o 'pub fn cuzk_[a-z0-9_]*' examples/rust/src/sys.rs | sed 's/pub fn //' | sort -u)
missing=$(comm -23 <(echo "$hdr") <(echo "$rs"))
[ -z "$missing" ] && echo "ok - sys.rs declares every header function" || echo "not ok - not in sys.rs:" $missing
extra=$(comm -13 <(echo "$hdr") <(echo "$rs")); [ -n "$extra" ] && echo "# sys.rs binds beyond the header:" $extra
. test/bindings_fixture.sh
export CUZK_LIB_DIR=$LIBDIR CARGO_TARGET_DIR=$(pwd)/$BUILD/rust CUZK_FIXTURE=$FX CARGO_NET_OFFLINE=true
log=$CARGO_TARGET_DIR/test.log; mkdir -p "$CARGO_TARGET_DIR"
(cd examples/rust && cargo test --offline -- --test-threads=2) >"$log" 2>&1; rc=$?
grep -E '^test |test result' "$log" | sed 's/^/# /'
for t in prove_and_verify many_threads drop_with_jobs_in_flight errors; do
  grep -q "^test $t ... ok" "$log" && echo "ok - cargo test $t" || echo "not ok - cargo test $t"
done
[ $rc = 0 ] || { echo "not ok - cargo test exited $rc"; tail -40 "$log"; }
grep -q '^skip: no prover' "$log" && echo "# (the prover is not built: engine tests returned early)"
[ "$FX_OK" = 1 ] || { echo "# engine tests returned early: $FX_WHY"; exit 0; }
if (cd examples/rust && cargo run --offline --quiet --example prove -- "$FX/c.params" "$FX/c.vk" "$FX/c.r1cs" "$FX/c.wtns" 2) >"$log" 2>&1 \
   && [ "$(grep -c valid "$log")" = 2 ]; then echo "ok - cargo run --example prove: 2 valid"
else echo "not ok - example prove:"; cat "$log"; fi
