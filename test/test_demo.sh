#!/usr/bin/env bash
# `cuzk demo` in small: a batch of PoRep-shaped partitions through the engine, every proof
# verified, and the per-stage table and worker timeline printed.
set -u
BUILD=${BUILD:-build}
cuzk=$BUILD/bin/cuzk
[ -x "$cuzk" ] || { echo "not ok - $cuzk is missing"; exit 1; }
work=$BUILD/test-demo
rm -rf "$work"
out=$("$cuzk" demo --log 8 --count 4 --workers 2 --cache "$work" 2>&1); rc=$?
[ "$rc" = 0 ] && echo "ok - cuzk demo exits 0" || { echo "not ok - cuzk demo: exit $rc"; echo "$out" | sed 's/^/    /'; exit 1; }
echo "$out" | grep -q "proved 4 of 4" && echo "$out" | grep -q "cuzk_verify accepted 4 of 4" \
  && echo "ok - 4 of 4 proved and verified" || echo "not ok - not all proved and verified"
echo "$out" | grep -q "^MSM H " && echo "$out" | grep -q "^self-check (pairing)" \
  && echo "ok - the per-stage table" || echo "not ok - per-stage table missing"
[ "$(echo "$out" | grep -c '^worker [0-9]')" = 2 ] && echo "$out" | grep -q "^finishers" \
  && echo "ok - a timeline row per worker and for the finishers" || echo "not ok - timeline rows"
"$cuzk" demo --log 99 >/dev/null 2>&1; [ $? = 2 ] && echo "ok - a bad --log is refused" || echo "not ok - --log 99"
# numbers are read whole: trailing text is refused with the range, not cut off (atoi read "8x" as 8)
for a in "--log 8x" "--count 2junk" "--workers 1.5" "--threads -1"; do
  err=$("$cuzk" demo $a --cache "$work" 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] && echo "$err" | grep -q "must be a whole number [0-9]*\.\.[0-9]*, not" && echo "ok - demo $a refused: $err" \
    || echo "not ok - demo $a: exit $rc: $err"
done
echo "$out" | grep -q "^CPU workers: at least one busy\|^GPU [0-9]*: busy" \
  && echo "ok - busy % of the device or CPU workers" || echo "not ok - no busy line"
svg=$(echo "$out" | sed -n 's/^timeline picture: \([^ ]*\) .*/\1/p')
[ "$svg" = "$work/timeline.svg" ] && grep -q "^<svg" "$svg" && grep -q '>3</text>' "$svg" \
  && echo "ok - the timeline picture's path is printed; it labels partition 3" || echo "not ok - timeline picture '$svg'"
[ "$(grep -c '"kind"' "$work/events.jsonl")" -gt 20 ] && "$cuzk" trace "$work/events.jsonl" | grep -q "^  4 partitions" \
  && echo "ok - the events (JSON Lines) read back by cuzk trace" || echo "not ok - events.jsonl"
out2=$("$cuzk" demo --log 8 --count 2 --cache "$work" 2>&1)
echo "$out2" | grep -q "making a TEST-ONLY key" && echo "not ok - the key was not cached" || echo "ok - the key is cached"
echo "$out" | sed 's/^/# /'
