#!/usr/bin/env bash
# The test runner itself (test/run-tests.sh): a script that skips (exit 77) passes as a skip,
# one that reports "not ok" fails the run even if it then exits 77 or 0, and a crash without
# any "not ok" line fails too. Scripts made here; the runner runs them side by side.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mk() { printf '#!/usr/bin/env bash\n%s\n' "$2" > "$tmp/$1.sh"; }
mk test_skip 'echo "skip: nothing to test here"; exit 77'
mk test_fail_then_skip 'echo "ok - a"; echo "not ok - b"; exit 77'
mk test_fail_exit0 'echo "not ok - c"; exit 0'
mk test_crash 'echo "ok - d"; exit 3'
mk test_pass 'echo "ok - e"'
run() { TEST_JOBS=2 bash test/run-tests.sh "$@" >"$tmp/out" 2>&1; echo $?; }
[ "$(run "$tmp/test_skip.sh" "$tmp/test_pass.sh")" = 0 ] && grep -q "^SKIP test_skip.sh" "$tmp/out" \
  && grep -q "^1 passed, 0 failed" "$tmp/out" && echo "ok - a skip is a skip, not a failure" \
  || { echo "not ok - skip:"; sed 's/^/    /' "$tmp/out"; }
for t in test_fail_then_skip test_fail_exit0 test_crash; do
  rc=$(run "$tmp/$t.sh" "$tmp/test_pass.sh")
  [ "$rc" != 0 ] && grep -q "^FAIL $t.sh" "$tmp/out" && echo "ok - $t fails the run" \
    || { echo "not ok - $t: runner exit $rc"; sed 's/^/    /' "$tmp/out"; }
done
