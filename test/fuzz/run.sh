#!/bin/sh
# Runs each libFuzzer harness (BUILD/fuzz/fuzz_<name>) for FUZZ_SECONDS on a scratch copy of
# its seed corpus; prints "ok - fuzz <name> N runs cov: C" or "not ok"; exits 1 on a crash.
# usage: test/fuzz/run.sh BUILD name...
build=$1; shift
secs=${FUZZ_SECONDS:-60}
fail=0
mkdir -p "$build/fuzz-artifacts"
for t in "$@"; do
    work="$build/fuzz-corpus/$t"
    mkdir -p "$work"
    log="$build/fuzz-$t.log"
    if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        nice "$build/fuzz/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 -max_len=16384 \
        -rss_limit_mb=2048 -timeout=20 -artifact_prefix="$build/fuzz-artifacts/$t-" \
        "$work" "test/fuzz/corpus/$t" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
        echo "ok - fuzz $t ${runs:-?} runs cov: ${cov:-?} (${secs}s)"
    else
        echo "not ok - fuzz $t crashed (log $log; inputs in $build/fuzz-artifacts)"
        tail -40 "$log" | sed 's/^/# /'
        fail=1
    fi
done
exit $fail
