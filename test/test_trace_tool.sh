#!/usr/bin/env bash
# `cuzk trace`: a host's trace events (JSON Lines) become busy %, gaps and stage medians, a
# Chrome trace and an SVG. Hand-made traces with known answers: a GPU one (device 0 busy 350 of
# 400 us, one 50 us gap), a CPU-backend one and an even count's median; malformed input is
# refused with its line, an unreadable path (missing, a directory) as an I/O error.
set -u
BUILD=${BUILD:-build}
cuzk=$BUILD/bin/cuzk
[ -x "$cuzk" ] || { echo "not ok - $cuzk is missing"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ev() { # kind device worker job user_tag begin_us end_us
  printf '{"kind":%d,"device":%d,"worker":%d,"job":%s,"user_tag":%s,"begin_ns":%d000,"end_ns":%d000,"bytes":0}\n' "$@"; }
big=18446744073709551615 # 2^64 - 1: past a double, so written as a string
{
  ev 20 0 0 11 7 1000 1200          # worker 0's share of partition 7 (host)
  ev 8 0 0 11 7 1000 1100           # its H step on GPU 0
  ev 9 0 0 11 7 1100 1200           # its MSM H
  ev 20 0 1 12 9 1150 1450          # worker 1, partition 9
  ev 8 0 1 12 9 1250 1300           # GPU 0 idle 1200..1250: the gap
  ev 10 0 1 12 9 1300 1400
  ev 16 -1 0 12 9 1400 1450         # self-check on a finisher (host)
  ev 19 -1 -1 0 0 0 5000            # worker idle: no partition, left out of the figures
  printf '{"kind":9,"device":0,"worker":1,"job":"%s","user_tag":"%s","begin_ns":"1500000","end_ns":1500000}\n' $big $big
} > "$tmp/gpu.jsonl"
out=$("$cuzk" trace "$tmp/gpu.jsonl" --chrome "$tmp/gpu.json" --svg "$tmp/gpu.svg" --tags 1..100 2>&1); rc=$?
[ "$rc" = 0 ] && echo "ok - cuzk trace exits 0" || { echo "not ok - exit $rc"; echo "$out" | sed 's/^/    /'; }
echo "$out" | grep -q "GPU 0: busy 87.50 % of 0.4 ms" && echo "ok - GPU 0 busy 87.50 % of 0.4 ms (350 of 400 us)" \
  || echo "not ok - busy figure"
echo "$out" | grep -q "gaps between partitions p50 0.050 ms" && echo "ok - the 50 us gap between partitions" \
  || echo "not ok - gap"
echo "$out" | grep -q "^  2 partitions" && echo "ok - 2 partitions measured (idle and out-of-range tags left out)" \
  || echo "not ok - partition count"
echo "$out" | grep -q "CUDA-event times" && echo "ok - device stages named CUDA-event times" || echo "not ok - clock"
if command -v node >/dev/null; then
  node -e 'const t = JSON.parse(require("fs").readFileSync(process.argv[1])); process.exit(t.traceEvents.length > 5 ? 0 : 1)' \
    "$tmp/gpu.json" && echo "ok - the Chrome trace is JSON" || echo "not ok - Chrome trace does not parse"
else echo "ok - # SKIP node missing: Chrome trace not parsed"; fi
grep -q '>7</text>' "$tmp/gpu.svg" && grep -q '>9</text>' "$tmp/gpu.svg" && grep -q 'GPU 0 busy' "$tmp/gpu.svg" \
  && echo "ok - the SVG labels partitions by user_tag (7, 9) and has the GPU busy lane" || echo "not ok - SVG labels"
{
  ev 20 -1 0 21 3 0 1000            # CPU backend: the worker's share, with its stages inside
  ev 8 -1 0 21 3 0 200
  ev 9 -1 0 21 3 200 900
  ev 20 -1 0 22 4 1000 2000
  ev 9 -1 0 22 4 1000 1900
} > "$tmp/cpu.jsonl"
out=$("$cuzk" trace "$tmp/cpu.jsonl" --svg "$tmp/cpu.svg" 2>&1)
echo "$out" | grep -q "CPU workers: at least one busy 100.00 %" && echo "$out" | grep -q "CPU time" \
  && ! echo "$out" | grep -q "CUDA" && echo "ok - CPU trace: workers busy 100 %, stage times called CPU time" \
  || { echo "not ok - CPU summary"; echo "$out" | sed 's/^/    /'; }
# on the CPU backend the stages sit below the partition bands, never under them
stages=$(grep -c '<title>MSM H: partition' "$tmp/cpu.svg"); bands=$(grep -c '<title>span: partition' "$tmp/cpu.svg")
last_band=$(grep -n '<title>span: partition' "$tmp/cpu.svg" | tail -1 | cut -d: -f1)
first_stage=$(grep -n '<title>MSM H: partition' "$tmp/cpu.svg" | head -1 | cut -d: -f1)
[ "$stages" = 2 ] && [ "$bands" = 2 ] && [ "$first_stage" -gt "$last_band" ] && grep -q "CPU time" "$tmp/cpu.svg" \
  && echo "ok - CPU SVG: 2 bands, then 2 MSM H bars drawn over them, says CPU time" || echo "not ok - CPU SVG layout"
echo '{"kind":9,"begin_ns":5,"end_ns":4}' > "$tmp/bad1.jsonl"
printf '{"kind":9}\n[1,2]\n' > "$tmp/bad2.jsonl"
echo '{"kind":9,"job":9007199254740993.0}' > "$tmp/bad3.jsonl"
for f in bad1 bad2 bad3; do
  err=$("$cuzk" trace "$tmp/$f.jsonl" 2>&1); rc=$?
  [ "$rc" = 2 ] && echo "$err" | grep -q "CUZK_EFORMAT: .*$f.jsonl:[12]:" && echo "ok - $f refused: ${err#*: *: }" \
    || echo "not ok - $f: exit $rc: $err"
done
# a path that cannot be read is CUZK_EIO naming it, as for every other file cuzk reads; a
# directory is one too (fopen accepts it, and it read as "0 events" with exit 0 before)
err=$("$cuzk" trace "$tmp/none.jsonl" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$err" | grep -q "CUZK_EIO: .*$tmp/none.jsonl" && echo "ok - a missing file: $err" \
  || echo "not ok - missing file: exit $rc: $err"
mkdir "$tmp/dir.jsonl"
err=$("$cuzk" trace "$tmp/dir.jsonl" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$err" | grep -q "CUZK_EIO: .*$tmp/dir.jsonl" && ! echo "$err" | grep -q "0 events" \
  && echo "ok - a directory: $err" || echo "not ok - directory: exit $rc: $err"
# copies to the device during each stage: the union of every copy on that device (overlapping
# copies, another partition's, one on another GPU that must not count), over each stage's time.
# H step 1000..1200 under copies 900..1050 and 1000..1100 (union 900..1100): 100 of 200 us, 50 %;
# MSM H 1200..1400 and 2000..2200 under 1350..1400 (partition 6's copy) and nothing: 50 of 400,
# 12.5 %; MSM L 3000..3100 with no copy on GPU 0 (GPU 1's 3000..3100 is another device's): 0 %
{
  ev 8 0 0 41 5 1000 1200
  ev 4 0 0 41 5 900 1050
  ev 4 0 0 41 5 1000 1100
  ev 9 0 0 41 5 1200 1400
  ev 4 0 1 42 6 1350 1400
  ev 9 0 1 42 6 2000 2200
  ev 10 0 1 42 6 3000 3100
  ev 4 1 0 43 7 3000 3100
  ev 9 1 0 43 7 2900 3200
} > "$tmp/copies.jsonl"
out=$("$cuzk" trace "$tmp/copies.jsonl" --tags 5..6 2>&1)
echo "$out" | grep -q "H step .*copies to the device during it 50.0 %" \
  && echo "$out" | grep -q "MSM H .*copies to the device during it 12.5 %" \
  && echo "$out" | grep -q "MSM L .*copies to the device during it 0.0 %" \
  && echo "ok - copies during each stage: H step 50 %, MSM H 12.5 %, MSM L 0 % (another GPU's copy left out)" \
  || { echo "not ok - copies during stages"; echo "$out" | sed 's/^/    /'; }
echo "$("$cuzk" trace "$tmp/cpu.jsonl" 2>&1)" | grep -q "copies to the device" \
  && echo "not ok - a trace without copies prints a copy share" || echo "ok - a trace without copies prints no copy share"
# stage medians over an even count are the mean of the two middle values: MSM H of 4 partitions
# took 0.1, 0.2, 0.4 and 1.0 ms -> 0.30 (the upper middle alone would say 0.40, the lower 0.20)
{
  for p in "1 100" "2 200" "3 400" "4 1000"; do
    set -- $p; ev 20 -1 0 $((30 + $1)) "$1" $(($1 * 2000)) $(($1 * 2000 + $2))
    ev 9 -1 0 $((30 + $1)) "$1" $(($1 * 2000)) $(($1 * 2000 + $2))
  done
} > "$tmp/even.jsonl"
out=$("$cuzk" trace "$tmp/even.jsonl" 2>&1)
echo "$out" | grep -q "MSM H  *0\.30  (4 partitions)" && echo "ok - median of an even count: 0.30 ms of 0.1/0.2/0.4/1.0" \
  || { echo "not ok - even-count median"; echo "$out" | sed 's/^/    /'; }
# --tags: a sign on either bound is refused (strtoull would wrap "-2" to 2^64 - 2), and so is
# a missing bound or a space (strtoull would read ".." as 0 and skip leading blanks)
for t in 1..-2 -1..3 +1..2 ..5 " 1..2" "1.. 2" 1..; do
  "$cuzk" trace "$tmp/cpu.jsonl" --tags "$t" >/dev/null 2>&1; rc=$?
  [ "$rc" = 2 ] && echo "ok - --tags $t refused" || echo "not ok - --tags $t: exit $rc"
done
# the title (a file name by default, or --title) is text in the SVG, escaped: the picture stays XML
"$cuzk" trace "$tmp/cpu.jsonl" --svg "$tmp/t.svg" --title 'a<b&c>' >/dev/null 2>&1
grep -q 'a&lt;b&amp;c&gt;' "$tmp/t.svg" && ! grep -q 'a<b' "$tmp/t.svg" && echo "ok - the SVG title is escaped" \
  || echo "not ok - the SVG title is not escaped: $(grep -o '<text[^>]*font-size="12">[^/]*' "$tmp/t.svg")"
# more lanes than the Chrome writer names (64 GPUs x 4 workers' streams + their busy lanes): the
# names stop at the limit, never past it (ASan: a stack overflow in tv_write_chrome before)
for d in $(seq 0 63); do for w in 0 1 2 3; do
  printf '{"kind":9,"device":%d,"worker":%d,"job":1,"user_tag":1,"begin_ns":1000,"end_ns":2000}\n' "$d" "$w"
done; done > "$tmp/lanes.jsonl"
out=$("$cuzk" trace "$tmp/lanes.jsonl" --chrome "$tmp/lanes.json" --svg "$tmp/lanes.svg" 2>&1); rc=$?
named=$(grep -c '"thread_name"' "$tmp/lanes.json" 2>/dev/null)
procs=$(grep -c '"process_name"' "$tmp/lanes.json" 2>/dev/null)
[ "$rc" = 0 ] && [ $((named + procs - 1)) -le 256 ] && [ "$(grep -c '"ph":"X"' "$tmp/lanes.json")" = 256 ] \
  && echo "ok - 320 lanes: $named lanes and $((procs - 1)) GPUs named (at most 256), all 256 events written" \
  || { echo "not ok - many lanes: exit $rc, $named lanes named, $procs processes"; echo "$out" | tail -5 | sed 's/^/    /'; }
