#!/usr/bin/env bash
# examples/go: go vet, go test (real partitions through the engine, verified; many
# goroutines; close with jobs in flight) and the runnable example, against the freshly
# built shared library found through a generated cuzk.pc. No network: no external modules.
set -u
command -v go >/dev/null || { echo "skip: go not installed (make deps installs golang-go)"; exit 77; }
. test/bindings_fixture.sh
pc=$BUILD/pkgconfig; mkdir -p "$pc"
cat > "$pc/cuzk.pc" <<PC
Name: cuzk
Description: libcuzk from the build tree
Version: 0.1.0
Cflags: -I$(pwd)/include
Libs: -L$LIBDIR -lcuzk -Wl,-rpath,$LIBDIR
PC
export PKG_CONFIG_PATH=$(cd "$pc" && pwd) GOFLAGS=-mod=mod GOPROXY=off GOCACHE=$(pwd)/$BUILD/go/cache \
       GOPATH=$(pwd)/$BUILD/go/path CGO_ENABLED=1 CUZK_FIXTURE=$FX
mkdir -p "$GOCACHE" "$GOPATH"
cd examples/go
go vet ./... && echo "ok - go vet" || echo "not ok - go vet"
go test -count=1 -v ./... >"$GOCACHE/../test.log" 2>&1; rc=$?
grep -E '^(--- |ok|FAIL|panic)' "$GOCACHE/../test.log" | sed 's/^/# /'
for t in TestProveVerify TestManyGoroutines TestErrors TestCloseInFlight; do
  if grep -q -- "--- PASS: $t" "$GOCACHE/../test.log"; then echo "ok - go test $t"
  elif grep -q -- "--- SKIP: $t" "$GOCACHE/../test.log"; then echo "ok - go test $t # SKIP"
  else echo "not ok - go test $t"; fi
done
[ $rc = 0 ] || { echo "not ok - go test exited $rc"; tail -40 "$GOCACHE/../test.log"; }
if [ "$FX_OK" != 1 ]; then echo "# go tests that prove were skipped: $FX_WHY"; go build -o /dev/null ./cmd/cuzk-go-example && echo "ok - cuzk-go-example builds" || echo "not ok - cuzk-go-example does not build"; exit 0; fi
if go run ./cmd/cuzk-go-example "$FX/c.params" "$FX/c.vk" "$FX/c.r1cs" "$FX/c.wtns" 3 >"$GOCACHE/../example.log" 2>&1 \
   && [ "$(grep -c valid "$GOCACHE/../example.log")" = 3 ]; then echo "ok - cuzk-go-example proved and verified 3"
else echo "not ok - cuzk-go-example:"; cat "$GOCACHE/../example.log"; fi
