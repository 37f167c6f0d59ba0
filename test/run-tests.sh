#!/usr/bin/env bash
# Runs test binaries (cmocka) and test scripts, and prints "N passed, N failed" last.
# cmocka binaries: their "[  PASSED  ] n test(s)" / "[  FAILED  ] n test(s)" lines count.
# Scripts: each "ok ..." / "not ok ..." line counts (TAP-like); a script that prints none
# counts as one test by its exit status. Exit status 77 means "skipped" (no GPU, say).
set -u
passed=0; failed=0; skipped=0; failures=()
TEST_TIMEOUT=${TEST_TIMEOUT:-1800}
for t in "$@"; do
  name=$(basename "$t")
  log=$(mktemp)
  start=$(date +%s.%N)
  if [[ "$t" == *.sh ]]; then timeout "$TEST_TIMEOUT" bash "$t" >"$log" 2>&1; rc=$?
  else timeout "$TEST_TIMEOUT" "$t" >"$log" 2>&1; rc=$?; fi
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  p=0; f=0
  if [[ "$t" == *.sh ]]; then
    p=$(grep -c '^ok' "$log"); f=$(grep -c '^not ok' "$log")
  else
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  fi
  if [ "$rc" = 77 ]; then
    skipped=$((skipped + 1)); echo "SKIP $name ($(tail -n 1 "$log"))"; rm -f "$log"; continue
  fi
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  if [ "$rc" = 0 ] && [ "$p" = 0 ] && [ "$f" = 0 ]; then p=1; fi
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$f" != 0 ]; then
    echo "FAIL $name (exit $rc, $p passed, $f failed, ${secs}s) — log:"
    sed 's/^/    /' "$log" | tail -n 60
    failures+=("$name")
  else
    echo "ok   $name ($p passed, ${secs}s)"
  fi
  rm -f "$log"
done
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
[ "$skipped" -gt 0 ] && echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
