#!/usr/bin/env bash
# The CLI's witness-only path without Node or circom: `cuzk gen` circuits (PoRep-,
# WindowPoSt- and, by --log, SnapDeals-shaped, random seeds printed), `cuzk setup`, then `cuzk prove` through a/b/c,
# through the witness from the .r1cs, and through the compact file from `cuzk cs-convert`:
# the three proofs are the same bytes for the same --seed, and `cuzk verify` accepts them. A
# witness of another circuit is refused (CUZK_EINVAL, exit 2), so is a corrupted compact file
# (CUZK_EFORMAT).
set -u
BUILD=${BUILD:-build}
cuzk=$BUILD/bin/cuzk
[ -x "$cuzk" ] || { echo "not ok - $cuzk is missing"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-witness-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
hex64() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }
for shape in porep:700 wpost:3000 snap:log12; do
  s=${shape%%:*} n=${shape##*:} size=(--constraints "${shape##*:}")
  case $n in log*) size=(--log "${n#log}") ;; esac
  GEN=$(hex64) SEED=$(hex64)
  echo "# $s ${size[*]}: gen seed $GEN, r/s seed $SEED"
  w=$work/$s
  "$cuzk" gen --shape "$s" "${size[@]}" --r1cs "$w.r1cs" --wtns "$w.wtns" --seed "$GEN" >"$w.gen" &&
    grep -q "seed $GEN" "$w.gen" &&
    "$cuzk" setup --r1cs "$w.r1cs" --params "$w.params" --vk "$w.vk" --seed "$GEN" >/dev/null 2>&1 ||
    { nok "$s: gen and setup"; continue; }
  "$cuzk" prove --params "$w.params" --r1cs "$w.r1cs" --wtns "$w.wtns" --proof "$w.abc" --seed "$SEED" --backend cpu \
    >/dev/null 2>&1 || nok "$s: prove --via abc"
  "$cuzk" prove --params "$w.params" --r1cs "$w.r1cs" --wtns "$w.wtns" --proof "$w.wit" --seed "$SEED" --backend cpu \
    --via witness >"$w.out" 2>&1 && grep -q "witness only" "$w.out" || { nok "$s: prove --via witness"; cat "$w.out"; }
  "$cuzk" cs-convert --r1cs "$w.r1cs" --out "$w.cuzkcs" >"$w.out" 2>&1 && grep -q "loaded in" "$w.out" \
    && ok "$s: cs-convert: $(tail -1 "$w.out" | sed 's/^ *//')" || { nok "$s: cs-convert"; cat "$w.out"; }
  "$cuzk" prove --params "$w.params" --cs "$w.cuzkcs" --wtns "$w.wtns" --proof "$w.wit2" --seed "$SEED" --backend cpu \
    >/dev/null 2>&1 || nok "$s: prove --cs"
  cmp -s "$w.abc" "$w.wit" && cmp -s "$w.abc" "$w.wit2" && ok "$s: the three proofs are the same bytes" \
    || nok "$s: witness-only proofs differ from the a/b/c path's"
  "$cuzk" verify --vk "$w.vk" --proof "$w.wit2" --r1cs "$w.r1cs" --wtns "$w.wtns" >/dev/null 2>&1 \
    && ok "$s: cuzk verify accepts it" || nok "$s: cuzk verify"
done
# porep's witness against wpost's circuit: the counts differ
"$cuzk" prove --params "$work/wpost.params" --cs "$work/wpost.cuzkcs" --wtns "$work/porep.wtns" --proof "$work/x" \
  --backend cpu >"$work/out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q "CUZK_EINVAL" "$work/out" && ok "another circuit's witness: exit 2, CUZK_EINVAL" \
  || { nok "another circuit's witness: exit $rc"; cat "$work/out"; }
# a column beyond the variables, in A's first non-zero (after the 72-byte header and the table)
cp "$work/porep.cuzkcs" "$work/bad.cuzkcs"
ncoef=$(od -An -tu8 -j40 -N8 "$work/bad.cuzkcs" | tr -d ' ')
rows=$(( $(od -An -tu8 -j32 -N8 "$work/bad.cuzkcs" | tr -d ' ') + $(od -An -tu8 -j16 -N8 "$work/bad.cuzkcs" | tr -d ' ') + 1 ))
printf '\xff\xff\xff\xff' | dd of="$work/bad.cuzkcs" bs=1 seek=$((72 + 32 * ncoef + 8 * rows)) conv=notrunc 2>/dev/null
"$cuzk" prove --params "$work/porep.params" --cs "$work/bad.cuzkcs" --wtns "$work/porep.wtns" --proof "$work/x" \
  --backend cpu >"$work/out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q "CUZK_EFORMAT" "$work/out" && grep -q "refers to variable" "$work/out" \
  && ok "a corrupted compact file: exit 2, CUZK_EFORMAT naming the entry" || { nok "corrupted compact file: exit $rc"; cat "$work/out"; }
exit $((fails > 0))
