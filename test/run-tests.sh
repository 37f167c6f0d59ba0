#!/usr/bin/env bash
# Runs test binaries (cmocka) and test scripts, and prints "N passed, N failed" last.
# cmocka binaries: their "[  PASSED  ] n test(s)" / "[  FAILED  ] n test(s)" lines count.
# Scripts: each "ok ..." / "not ok ..." line counts (TAP-like); a script that prints none
# counts as one test by its exit status. Exit status 77 means "skipped" (no GPU, say).
# TEST_JOBS tests run at once (default 1; make test passes one per CPU): each test's output
# is kept apart and its result printed when it ends, longest-known tests started first.
set -u
passed=0; failed=0; skipped=0; failures=()
TEST_TIMEOUT=${TEST_TIMEOUT:-1800}
jobs=${TEST_JOBS:-1}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || jobs=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

run_one() { # $1 test, $2 index: writes $work/$2.log and $work/$2.status ("rc secs")
  local t=$1 i=$2 start rc
  start=$(date +%s.%N)
  if [[ "$t" == *.sh ]]; then timeout "$TEST_TIMEOUT" bash "$t" >"$work/$i.log" 2>&1; rc=$?
  else timeout "$TEST_TIMEOUT" "$t" >"$work/$i.log" 2>&1; rc=$?; fi
  echo "$rc $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')" >"$work/$i.status"
}

report() { # $1 test, $2 index: counts and prints one finished test
  local t=$1 i=$2 name rc secs p f log=$work/$2.log
  name=$(basename "$t")
  read -r rc secs <"$work/$i.status"
  p=0; f=0
  if [[ "$t" == *.sh ]]; then
    p=$(grep -c '^ok' "$log"); f=$(grep -c '^not ok' "$log")
  else
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  fi
  if [ "$rc" = 77 ] && [ "$f" = 0 ]; then # a skip after a failure is a failure
    skipped=$((skipped + 1)); echo "SKIP $name ($(tail -n 1 "$log"))"; return
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
}

# The slow ones first, so that with several at once the suite is not left waiting on one of
# them at the end (the rest keep their order).
tests=()
for t in "$@"; do case $(basename "$t") in test_valgrind.sh|test_fuzz_smoke.sh|test_circom.sh|test_msm_cpu) tests+=("$t");; esac; done
for t in "$@"; do case $(basename "$t") in test_valgrind.sh|test_fuzz_smoke.sh|test_circom.sh|test_msm_cpu) ;; *) tests+=("$t");; esac; done

declare -A running=() # pid -> index
next=0; done_count=0
while [ "$done_count" -lt ${#tests[@]} ]; do
  while [ ${#running[@]} -lt "$jobs" ] && [ "$next" -lt ${#tests[@]} ]; do
    run_one "${tests[$next]}" "$next" & running[$!]=$next; next=$((next + 1))
  done
  wait -n
  for pid in "${!running[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid" 2>/dev/null; i=${running[$pid]}; unset "running[$pid]"
      report "${tests[$i]}" "$i"; done_count=$((done_count + 1))
    fi
  done
done
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
[ "$skipped" -gt 0 ] && echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
