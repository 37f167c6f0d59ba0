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
# The table's medians over an even count (4 partitions): the mean of the two middle values, the
# same figure `cuzk trace` prints for the saved events (the table took the upper middle before).
# Oracle: awk over events.jsonl. Printed to 0.01 ms, so they must agree within rounding.
oracle=$(grep '"name":"partition (worker)"' "$work/events.jsonl" \
  | sed 's/.*"begin_ns":\([0-9]*\),"end_ns":\([0-9]*\).*/\1 \2/' | awk '{print ($2 - $1) / 1e6}' | sort -g \
  | awk '{v[NR] = $1} END {if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%d %.4f", NR, m}')
table=$(echo "$out" | awk '/^worker, whole partition/ {print $5}')
traced=$("$cuzk" trace "$work/events.jsonl" | awk '/^ +partition \(worker\)/ {print $3}')
if [ "${oracle%% *}" = 4 ] && awk -v o="${oracle#* }" -v a="$table" -v b="$traced" \
     'BEGIN { d1 = o - a; d2 = o - b; exit !(a != "" && b != "" && d1 * d1 < 3e-5 && d2 * d2 < 3e-5) }'; then
  echo "ok - median of 4 partitions' worker time: table $table, cuzk trace $traced, events ${oracle#* } ms"
else echo "not ok - even-count median: table '$table', cuzk trace '$traced', events (n, median) '$oracle'"; fi
out2=$("$cuzk" demo --log 8 --count 2 --cache "$work" 2>&1)
echo "$out2" | grep -q "making a TEST-ONLY key" && echo "not ok - the key was not cached" || echo "ok - the key is cached"
echo "$out" | sed 's/^/# /'
