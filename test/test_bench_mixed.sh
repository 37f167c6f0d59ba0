#!/usr/bin/env bash
# cuzk-bench mixed end to end on the CPU backend (seconds): a bulk backlog with WinningPoSt and
# WindowPoSt arriving, every kind in the report with its latencies, the bulk's "one stage" line
# (issue 17's WindowPoSt target is checked against it), and the JSON with the same figures.
set -u
BUILD=${BUILD:-build}
bench=$BUILD/bin/cuzk-bench
[ -x "$bench" ] || { echo "not ok - $bench is missing"; exit 1; }
work=$BUILD/test-bench-mixed
rm -rf "$work" && mkdir -p "$work"
fails=0
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
timeout 120 "$bench" mixed --backend cpu --log 10 --seconds 0.3 --alone 1 --winning-every 100 --wpost-every 250 \
  --json "$work/m.json" > "$work/m.out" 2> "$work/m.err"
rc=$?
[ "$rc" = 0 ] && ok "cuzk-bench mixed (cpu, 2^10, 0.3 s per phase): exit 0" || nok "exit $rc: $(tail -3 "$work/m.err")"
for kind in bulk winning wpost; do
  grep -Eq "^  $kind +[1-9][0-9]* " "$work/m.out" && ok "the report has $kind's latencies" || nok "no $kind row"
done
if grep -Eq "one stage of the bulk in flight \(its longest alone, median\): [A-Za-z_ 0-9]+ [0-9.]+ ms; winning p99 - own -?[0-9.]+ ms \((within|beyond) one stage\); wpost" "$work/m.out"; then
  ok "the bulk's one stage and each urgent kind against it"
else nok "no one-stage line: $(grep -i 'one stage' "$work/m.out")"; fi
grep -q -- "--seconds 0.3 " "$work/m.out" && ok "the repeat command keeps --seconds 0.3" || nok "repeat command: $(tail -1 "$work/m.out")"
json=$(cat "$work/m.json" 2>/dev/null)
if echo "$json" | grep -Eq '"bulk_stage_ms":[0-9]+\.[0-9]+' && echo "$json" | grep -q '"kind":"wpost"' &&
   echo "$json" | grep -q '"kind":"winning"'; then
  ok "JSON: bulk_stage_ms and every kind"
else nok "JSON: $json"; fi
exit $((fails > 0))
