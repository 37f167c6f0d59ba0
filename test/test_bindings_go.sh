#!/usr/bin/env bash
# bindings/go/cuzk, against an installed libcuzk found through pkg-config alone, offline (no
# external modules): go vet; go test (real partitions proved and verified, a failed job's
# detail, many goroutines, Close in flight, cancel, trace channel, stats, typed errors) on a
# fixture the tests make; the same tests FAIL, not skip, when pointed at a missing fixture;
# a module outside the repository imports the package through a replace directive (as
# docs/go.md says); the example program proves and verifies.
set -u
command -v go >/dev/null || { echo "skip: go not installed (make deps installs golang-go)"; exit 77; }
. test/bindings_fixture.sh
stage_install
root=$(pwd)
# An installed prefix outside the loader's path: the programs find libcuzk.so at run time here.
export LD_LIBRARY_PATH=$STAGE_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GOFLAGS=-mod=mod GOPROXY=off GOCACHE=$root/$BUILD/go/cache GOPATH=$root/$BUILD/go/path CGO_ENABLED=1
unset CUZK_FIXTURE
log=$root/$BUILD/go/log; mkdir -p "$GOCACHE" "$GOPATH"
cd bindings/go/cuzk
go vet ./... >"$log" 2>&1 && echo "ok - go vet" || { echo "not ok - go vet"; cat "$log"; }
go test -count=1 -v ./... >"$log" 2>&1; rc=$?
grep -E '^(--- |ok|FAIL|panic)|failed:' "$log" | sed 's/^/# /'
for t in $(grep -ho '^func Test[A-Za-z]*' *_test.go | sed 's/func //' | grep -v TestMain); do
  grep -q -- "--- PASS: $t " "$log" && echo "ok - go test $t" || echo "not ok - go test $t"
done
[ $rc = 0 ] || { echo "not ok - go test exited $rc"; tail -40 "$log"; }

# Without their fixture the tests must fail, not pass or skip.
if CUZK_FIXTURE=$root/$BUILD/no-such-fixture go test -count=1 -v -run 'TestProveVerify$' . >"$log" 2>&1; then
  echo "not ok - go test passed with CUZK_FIXTURE pointing nowhere"
elif grep -q -- '--- FAIL: TestProveVerify' "$log" && grep -q 'no-such-fixture' "$log" && ! grep -q -- '--- SKIP' "$log"; then
  echo "ok - go test fails (does not skip) when its fixture is missing"
else echo "not ok - go test without fixture:"; tail -20 "$log"; fi

# A host module elsewhere imports the package by its module path, through a replace.
host=$root/$BUILD/go/host; rm -rf "$host"; mkdir -p "$host"
cat > "$host/go.mod" <<MOD
module example.com/host

go 1.19

require github.com/libcuzk/libcuzk/bindings/go/cuzk v0.0.0

replace github.com/libcuzk/libcuzk/bindings/go/cuzk => $root/bindings/go/cuzk
MOD
cat > "$host/main.go" <<'GO'
package main

import (
	"errors"
	"fmt"

	"github.com/libcuzk/libcuzk/bindings/go/cuzk"
)

func main() {
	_, v := cuzk.Version()
	_, err := cuzk.LoadCircuit("/nonexistent.r1cs")
	fmt.Println("libcuzk", v, "compatible", cuzk.Compatible(), "io error", errors.Is(err, cuzk.ErrIO))
}
GO
if (cd "$host" && go run . >"$log" 2>&1) && grep -q 'compatible true io error true' "$log"; then
  echo "ok - a module outside the repository imports github.com/libcuzk/libcuzk/bindings/go/cuzk ($(head -1 "$log"))"
else echo "not ok - importing the module from another one:"; cat "$log"; fi

if go run ./cmd/cuzk-go-example "$FX/c.params" "$FX/c.vk" "$FX/c.r1cs" "$FX/c.wtns" 3 >"$log" 2>&1 \
   && [ "$(grep -c valid "$log")" = 3 ]; then echo "ok - cuzk-go-example proved and verified 3"
else echo "not ok - cuzk-go-example:"; cat "$log"; fi
