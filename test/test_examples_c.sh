#!/usr/bin/env bash
# examples/c against the freshly built shared library (public headers only): the supraseal
# adapter's round trip and checks, then prove_threads: 4 threads x 2 partitions through the
# engine, every proof checked with cuzk_verify, trace summary and Prometheus text printed.
set -u
. test/bindings_fixture.sh
out=$BUILD/examples/c; mkdir -p "$out"
cflags="-std=c11 -Wall -Wextra -Werror -O2 -Iinclude -Iexamples/c"
if cc $cflags -o "$out/supraseal_test" test/examples/supraseal_adapter_test.c examples/c/supraseal_adapter.c \
     -L"$LIBDIR" -lcuzk -Wl,-rpath,"$LIBDIR"; then
  "$out/supraseal_test" || echo "not ok - supraseal adapter test exited $?"
else echo "not ok - supraseal adapter test does not build"; fi
if cc $cflags -o "$out/prove_threads" examples/c/prove_threads.c examples/c/supraseal_adapter.c \
     -L"$LIBDIR" -lcuzk -lpthread -Wl,-rpath,"$LIBDIR"; then
  echo "ok - examples/c/prove_threads builds against include/ and libcuzk.so"
else echo "not ok - prove_threads does not build"; exit 1; fi
"$out/prove_threads" "$FX/c.params" "$FX/c.vk" "$FX/c.r1cs" "$FX/c.wtns" 4 2 >"$out/log" 2>&1; rc=$?
if [ $rc = 77 ]; then cat "$out/log"; exit 77; fi
if [ $rc = 0 ] && grep -q '8 valid, 0 invalid' "$out/log"; then
  echo "ok - 4 threads x 2 partitions proved and verified"
else echo "not ok - prove_threads exited $rc:"; sed 's/^/    /' "$out/log" | tail -30; fi
grep -q '^  start ' "$out/log" && grep -q '^  result ' "$out/log" \
  && echo "ok - trace summary has start and result events" || echo "not ok - trace summary incomplete"
grep -q '^cuzk_proofs_completed_total 8$' "$out/log" && grep -q '^cuzk_device_busy_seconds_total{device="cpu"} [0-9]' "$out/log" \
  && echo "ok - Prometheus text: 8 completed, busy seconds" || echo "not ok - Prometheus text wrong"
