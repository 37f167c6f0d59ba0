#!/usr/bin/env bash
# Every subcommand of cuzk and cuzk-bench answers --help: exit 0, "usage: <tool> <sub>" on
# stdout, nothing run; an unknown option is an error (exit 2). The subcommands are read from
# each tool's own list, so a new one is covered without editing this test.
set -u
BUILD=${BUILD:-build}
for tool in cuzk cuzk-bench; do
  bin=$BUILD/bin/$tool
  [ -x "$bin" ] || { echo "not ok - $bin is missing"; continue; }
  "$bin" --help >"${TMPDIR:-/tmp}/help.$$" 2>&1 && grep -q "^usage: $tool" "${TMPDIR:-/tmp}/help.$$" \
    && echo "ok - $tool --help" || echo "not ok - $tool --help"
  subs=$(sed -n 's/^  \(cuzk \)\{0,1\}\([a-z][a-z0-9-]*\) .*/\2/p' "${TMPDIR:-/tmp}/help.$$" | grep -v "^cuzk$")
  rm -f "${TMPDIR:-/tmp}/help.$$"
  [ "$(echo "$subs" | wc -w)" -ge 8 ] || echo "not ok - $tool lists only: $subs"
  for s in $subs; do
    out=$(timeout 20 "$bin" "$s" --help 2>&1); rc=$?
    [ "$rc" = 0 ] && echo "$out" | grep -q "^usage: $tool $s" && echo "ok - $tool $s --help" \
      || echo "not ok - $tool $s --help: exit $rc: $(echo "$out" | head -2)"
    timeout 20 "$bin" "$s" --no-such-option >/dev/null 2>&1; rc=$?
    [ "$rc" = 2 ] && echo "ok - $tool $s refuses --no-such-option" || echo "not ok - $tool $s --no-such-option: exit $rc"
  done
done
# help for something that is not a subcommand is an error, not the general usage with exit 0
out=$(timeout 20 "$BUILD/bin/cuzk" help no-such-command 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "no-such-command" && echo "ok - cuzk help no-such-command: exit 2, named" \
  || echo "not ok - cuzk help no-such-command: exit $rc: $(echo "$out" | head -1)"
# --backend is auto, cpu or cuda: a misspelt one is refused before any work, not run as auto
for args in "cuzk-bench mixed --log 10 --seconds 0.1" "cuzk-bench pipeline --log 8 --partitions 1" \
            "cuzk-bench srs-load --log 8 --reps 1" "cuzk prove --params x --r1cs x --wtns x --proof x" \
            "cuzk demo --count 1"; do
  set -- $args
  out=$(timeout 60 "$BUILD/bin/$1" "${@:2}" --backend cdua 2>&1); rc=$?
  [ "$rc" = 2 ] && echo "$out" | grep -qi "backend" && echo "ok - $args --backend cdua: exit 2, named" \
    || echo "not ok - $args --backend cdua: exit $rc: $(echo "$out" | head -2)"
done
# ntt's multiplier options: a --chains no row has, or one without --mul, and --mul on the CPU
# are refused, not a header alone with exit 0 (or the NTT timed instead)
for args in "--mul --chains 3" "--chains 2" "--mul --backend cpu"; do
  out=$(timeout 20 "$BUILD/bin/cuzk-bench" ntt $args 2>&1); rc=$?
  [ "$rc" = 2 ] && echo "$out" | grep -q -- "--" && echo "ok - cuzk-bench ntt $args: exit 2" \
    || echo "not ok - cuzk-bench ntt $args: exit $rc: $(echo "$out" | head -2)"
done
# msm --precompute times its copies under one accumulation: a list of them is refused, not cut
if [ -x "$BUILD/bin/cuzk-bench" ] && "$BUILD/bin/cuzk-bench" msm --backend cuda --help 2>&1 | grep -q -- "--precompute"; then
  out=$(timeout 20 "$BUILD/bin/cuzk-bench" msm --backend cuda --log 4 --precompute 2 --acc xyzz,affine 2>&1); rc=$?
  [ "$rc" = 2 ] && echo "$out" | grep -q "precompute" && echo "ok - cuzk-bench msm --precompute with two --acc: exit 2" \
    || echo "not ok - cuzk-bench msm --precompute with two --acc: exit $rc: $(echo "$out" | head -2)"
  for bad in "--precompute 1," "--acc xyzz," "--precompute 1,,2"; do
    out=$(timeout 20 "$BUILD/bin/cuzk-bench" msm --backend cuda --log 4 $bad 2>&1); rc=$?
    [ "$rc" = 2 ] && echo "$out" | grep -q "usage" && echo "ok - cuzk-bench msm $bad: refused (exit 2)" \
      || echo "not ok - cuzk-bench msm $bad: exit $rc: $(echo "$out" | head -2)"
  done
fi
