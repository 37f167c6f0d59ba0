#!/usr/bin/env bash
# Issue 27's host-memory figures in cuzk-bench, end to end on the CPU backend at 2^10..2^12
# (seconds), so the options behind them cannot rot: pipeline's "host memory per partition in
# flight" line (its bytes checked against the layout computed here from the printed counts),
# --distinct (every partition in its own buffers, freed at release; RSS before and peak printed
# and in the JSON), its refusal when MemAvailable is too small (CUZK_BENCH_MEM_AVAILABLE stands
# in for the machine's), and cs-eval (checked against the synthesized a, b, c; timed).
set -u
BUILD=${BUILD:-build}
bench=$BUILD/bin/cuzk-bench
[ -x "$bench" ] || { echo "not ok - $bench is missing"; exit 1; }
work=$BUILD/test-bench-mem
rm -rf "$work" && mkdir -p "$work"
fails=0
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
r64() { echo $(( ($1 + 63) / 64 * 64 )); }

# the bytes one partition's buffers take, from the counts pipeline prints ("N constraints, I inputs, X aux")
expect_bytes() { # out witness(0|1)
  local line cons ins aux abc wi wa
  line=$(grep -m1 '^pipeline: ' "$1")
  cons=$(echo "$line" | sed -n 's/.* \([0-9]*\) constraints, .*/\1/p')
  ins=$(echo "$line" | sed -n 's/.* \([0-9]*\) inputs, .*/\1/p')
  aux=$(echo "$line" | sed -n 's/.* \([0-9]*\) aux .*/\1/p')
  [ -n "$cons" ] && [ -n "$ins" ] && [ -n "$aux" ] || { echo 0; return; }
  abc=$((cons + ins)); wi=$(( (ins + 63) / 64 )); wa=$(( (aux + 63) / 64 ))
  if [ "$2" = 1 ]; then echo $(( $(r64 $((ins * 32))) + $(r64 $((aux * 32))) ))
  else echo $(( 3 * $(r64 $((abc * 32))) + $(r64 $((ins * 32))) + $(r64 $((aux * 32))) + $(r64 $(((wi + 2 * wa) * 8))) )); fi
}
printed_bytes() { sed -n 's/.*host memory per partition in flight ([^)]*): [^(]*(\([0-9]*\) B).*/\1/p' "$1" | head -1; }

for w in 0 1; do
  flag=; [ "$w" = 1 ] && flag=--witness
  name=${flag:-abc}
  timeout 120 "$bench" pipeline --backend cpu --log 10 --partitions 2 --workers 1 $flag > "$work/$name.out" 2> "$work/$name.err"
  rc=$?
  want=$(expect_bytes "$work/$name.out" $w); got=$(printed_bytes "$work/$name.out")
  [ "$rc" = 0 ] && [ -n "$got" ] && [ "$got" = "$want" ] \
    && ok "pipeline ${flag:-(a/b/c)}: host memory per partition $got B, as the layout of the printed counts" \
    || nok "pipeline ${flag:-(a/b/c)}: exit $rc, printed '$got' B, expected $want: $(tail -2 "$work/$name.err")"
done
abc=$(printed_bytes "$work/abc.out"); wit=$(printed_bytes "$work/--witness.out")
grep -q "the witness-only path: " "$work/abc.out" && grep -q "the a/b/c path: " "$work/--witness.out" \
  && [ -n "$abc" ] && [ -n "$wit" ] && [ "$wit" -lt "$abc" ] \
  && ok "each run names the other path's figure; witness-only $wit B < a/b/c $abc B" || nok "the other path's figure"

# a JSON file's integer field (the bench writes one object, no nesting before these keys)
jint() { grep -o "\"$2\":[0-9]*" "$1" | head -1 | cut -d: -f2; }

# --distinct: 3 partitions each in its own buffers, every proof verified, RSS before and peak.
# a/b/c at 2^14 takes 2 MiB a partition, past cuzk_host_alloc's own-mapping threshold (1 MiB), so
# the RSS once they are made must have grown by at least their bytes: buffers of their own.
for w in 0 1; do
  flag=; log=14; [ "$w" = 1 ] && flag=--witness && log=12
  out=$work/distinct$w.out js=$work/distinct$w.json
  timeout 120 "$bench" pipeline --backend cpu --log $log --partitions 3 --workers 1 --warmup 1 --distinct $flag \
    --json "$js" > "$out" 2> "$work/distinct$w.err"
  rc=$?
  if [ "$rc" = 0 ] && grep -q "0 failed; every proof verified" "$out" &&
     grep -Eq "host RSS with 3 distinct partitions in flight: [0-9.]+ [KMG]iB before they were made, .*peak [0-9.]+ [KMG]iB while in flight \(VmHWM, reset before they were made\)" "$out" &&
     tail -1 "$out" | grep -q -- "--distinct"; then
    ok "pipeline --distinct ${flag:-(a/b/c)}: 3 verified, RSS before and peak printed, repeat command keeps --distinct"
  else nok "pipeline --distinct ${flag}: exit $rc: $(grep -E 'RSS|failed' "$out") $(tail -2 "$work/distinct$w.err")"; fi
  before=$(jint "$js" rss_before_bytes) made=$(jint "$js" rss_made_bytes) peak=$(jint "$js" rss_peak_bytes)
  one=$(jint "$js" host_bytes_per_partition) a=$(jint "$js" abc_host_bytes_per_partition) wo=$(jint "$js" witness_host_bytes_per_partition)
  if grep -q '"distinct":true' "$js" && grep -q '"peak_reset_before":true' "$js" && [ -n "$before" ] && [ -n "$peak" ] &&
     [ "$before" -gt 0 ] && [ "$peak" -ge "$made" ] && [ "$made" -ge "$before" ] && [ "$one" = "$(printed_bytes "$out")" ] &&
     [ "$wo" -lt "$a" ]; then
    ok "--distinct JSON: before $before <= made $made <= peak $peak, $one B a partition as printed"
  else nok "--distinct JSON: before '$before' made '$made' peak '$peak' one '$one' ($js)"; fi
  if [ "$w" = 0 ]; then
    [ -n "$made" ] && [ $((made - before)) -ge $((3 * one)) ] && ok "RSS grew by $((made - before)) B >= 3 x $one B once made" \
      || nok "RSS grew by $((made - before)) B once made, less than 3 x $one B: buffers shared?"
  fi
done

# refused, before any key or partition is made, when the buffers exceed MemAvailable
for flag in "" --witness; do
  CUZK_BENCH_MEM_AVAILABLE=100000 timeout 60 "$bench" pipeline --backend cpu --log 12 --partitions 8 --distinct $flag \
    > "$work/refuse.out" 2> "$work/refuse.err"
  rc=$?
  [ "$rc" = 2 ] && grep -q "needs .* but MemAvailable is 97.7 KiB: refused rather than swap" "$work/refuse.err" \
    && ! grep -q "partitions in" "$work/refuse.out" \
    && ok "pipeline --distinct ${flag:-(a/b/c)} beyond MemAvailable: refused (exit 2), nothing run" \
    || nok "refusal ${flag}: exit $rc: $(cat "$work/refuse.err" | tail -2)"
done

# cs-eval: pipeline --witness's system and witness, every row checked, timed
timeout 120 "$bench" cs-eval --shape porep --log 11 --threads 2 --reps 2 --json "$work/cs.json" > "$work/cs.out" 2> "$work/cs.err"
rc=$?
[ "$rc" = 0 ] && grep -q "check: every row equals the synthesized circuit's a, b, c; [0-9]* sampled rows" "$work/cs.out" &&
  grep -Eq "evaluation of a, b, c per partition: [0-9.]+ ms median of 2 .*: [0-9.]+ M non-zeros/s" "$work/cs.out" \
  && ok "cs-eval --log 11: every row checked, ms per partition and non-zeros/s" || nok "cs-eval: exit $rc: $(cat "$work/cs.out" "$work/cs.err" | tail -3)"
nnz=$(grep -o '"nnz":\[[0-9]*,[0-9]*,[0-9]*\]' "$work/cs.json")
grep -q '"all_rows_checked":true' "$work/cs.json" && grep -q '"threads":2,' "$work/cs.json" &&
  grep -Eq '"ms_median":[0-9.]*[1-9]' "$work/cs.json" && [ -n "$nnz" ] && ! echo "$nnz" | grep -Eq '[[,]0[],]' \
  && ok "cs-eval JSON: non-zeros $nnz, timing, every row checked" || nok "cs-eval JSON: $(cat "$work/cs.json")"
CUZK_BENCH_MEM_AVAILABLE=1000 timeout 60 "$bench" cs-eval --log 11 > /dev/null 2> "$work/cs-refuse.err"; rc=$?
[ "$rc" = 2 ] && grep -q "refused rather than swap" "$work/cs-refuse.err" && ok "cs-eval beyond MemAvailable: refused (exit 2)" \
  || nok "cs-eval refusal: exit $rc"
exit $((fails > 0))
