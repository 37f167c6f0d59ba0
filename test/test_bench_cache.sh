#!/usr/bin/env bash
# The benches keep their test-only keys in a directory only this user can write
# (bench/bench_cache.c): made 0700, used again, and refused when others could write it (a key
# or a symlink planted by another local user); CUZK_BENCH_CACHE picks it.
set -u
BUILD=${BUILD:-build}
bin=$BUILD/bin/cuzk-bench
[ -x "$bin" ] || { echo "not ok - $bin is missing"; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-bench-cache.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cache=$dir/a/b
run() { CUZK_BENCH_CACHE=$cache timeout 120 "$bin" srs-load --shape porep --log 8 --backend cpu --reps 1 --threads 2 "$@"; }
run >"$dir/out" 2>&1; rc=$?
mode=$(stat -c %a "$cache" 2>/dev/null)
[ "$rc" = 0 ] && [ "$mode" = 700 ] && ls "$cache"/pipeline-porep-2^8-*.params >/dev/null 2>&1 \
  && echo "ok - the key is made in a new 0700 cache" || echo "not ok - first run: exit $rc, mode $mode: $(tail -2 "$dir/out")"
key=$(ls "$cache"/pipeline-porep-2^8-*.params 2>/dev/null | head -1)
before=$(stat -c %i.%Y "$key" 2>/dev/null)
sleep 1
run >"$dir/out" 2>&1; rc=$?
[ "$rc" = 0 ] && [ -n "$before" ] && [ "$(stat -c %i.%Y "$key" 2>/dev/null)" = "$before" ] \
  && echo "ok - the cached key is used again (not rewritten)" || echo "not ok - second run: exit $rc"
chmod 777 "$cache"
run >"$dir/out" 2>&1; rc=$?
[ "$rc" != 0 ] && grep -q "writable only by it" "$dir/out" \
  && echo "ok - a cache others can write is refused" || echo "not ok - a 0777 cache: exit $rc: $(tail -2 "$dir/out")"
chmod 700 "$cache"
ln -s "$dir/a" "$dir/link"
CUZK_BENCH_CACHE=$dir/link timeout 120 "$bin" srs-load --shape porep --log 8 --backend cpu --reps 1 --threads 2 >"$dir/out" 2>&1; rc=$?
[ "$rc" != 0 ] && grep -q "not a directory of this user" "$dir/out" \
  && echo "ok - a symlinked cache is refused" || echo "not ok - a symlinked cache: exit $rc"
