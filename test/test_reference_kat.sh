#!/usr/bin/env bash
# Byte-exact known answers: for fixed small circuits, a fixed setup seed and a fixed r, s seed,
# the .params/.vk of `cuzk setup` and the proof of `cuzk prove` equal, byte for byte, those of
# test/oracle/groth16_ref.mjs, an independent Groth16 written on @noble/curves that shares no
# code with libcuzk. The reference also verifies libcuzk's proof (and rejects it for a changed
# public input). Circuits: a `cuzk gen` PoRep-shaped one and circom's multi.circom.
set -u
BUILD=${BUILD:-build}
cuzk=$BUILD/bin/cuzk
[ -x "$cuzk" ] || { echo "not ok - $cuzk is missing"; exit 1; }
dir=$(test/oracle/install.sh) || { echo "not ok - installing the oracle packages"; exit 1; }
ref="node $dir/groth16_ref.mjs"
work=$BUILD/test-kat
rm -rf "$work" && mkdir -p "$work"
SEED=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
RS=c0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ffeec0ff
fails=0
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
run() { # run "description" command... : ok if it exits 0
  local what=$1; shift
  if "$@" >"$work/out" 2>&1; then ok "$what"; return 0; fi
  nok "$what"; sed 's/^/    /' "$work/out" | tail -n 15; return 1
}
same() { # same "description" FILE_C FILE_REF [params]: byte equality, naming the first difference
  if cmp -s "$2" "$3"; then ok "$1 ($(stat -c %s "$2") bytes)"; return; fi
  local off
  off=$(cmp "$2" "$3" 2>&1 | awk '/differ/ {gsub(",", "", $5); print $5 - 1}')
  nok "$1: $(cmp "$2" "$3" 2>&1 | head -1) (sizes $(stat -c %s "$2") / $(stat -c %s "$3"))"
  [ -n "${4:-}" ] && [ -n "$off" ] && echo "    first difference: $($ref where "$3" "$off")"
}

run "cuzk gen: a 100-constraint PoRep-shaped circuit" \
  "$cuzk" gen --shape porep --constraints 100 --r1cs "$work/porep.r1cs" --wtns "$work/porep.wtns" --seed "$SEED"
cases="porep:$work/porep.r1cs"
if mdir=$(test/circuits/compile.sh multi 2>"$work/compile.log") &&
   node "$mdir/multi_js/generate_witness.js" "$mdir/multi_js/multi.wasm" test/circuits/multi.input.json "$work/multi.wtns"
then cases="$cases multi:$mdir/multi.r1cs"; else nok "circom2: compiling multi.circom"; cat "$work/compile.log"; fi

for cs in $cases; do
  c=${cs%%:*}; r1cs=${cs#*:}; wtns=$work/$c.wtns; w=$work/$c
  run "$c: cuzk setup --seed" "$cuzk" setup --r1cs "$r1cs" --params "$w.params" --vk "$w.vk" --seed "$SEED" || continue
  run "$c: reference setup" $ref setup "$r1cs" "$SEED" "$w.ref.params" "$w.ref.vk" || continue
  same "$c: .params equal the reference's" "$w.params" "$w.ref.params" params
  same "$c: .vk equals the reference's" "$w.vk" "$w.ref.vk"
  run "$c: cuzk prove --seed" "$cuzk" prove --params "$w.params" --r1cs "$r1cs" --wtns "$wtns" --proof "$w.proof" --seed "$RS" || continue
  run "$c: reference prove (on the reference's key)" $ref prove "$r1cs" "$wtns" "$w.ref.params" "$RS" "$w.ref.proof" || continue
  same "$c: proof equals the reference's" "$w.proof" "$w.ref.proof"
  run "$c: the reference verifies cuzk's proof" $ref verify "$w.vk" "$w.proof" "$r1cs" "$wtns"
  $ref verify "$w.vk" "$w.proof" "$r1cs" "$wtns" bump >"$work/out" 2>&1
  rc=$?
  [ "$rc" = 1 ] && ok "$c: the reference rejects it for a changed public input" ||
    { nok "$c: reference verify with a changed input exited $rc"; cat "$work/out"; }
done
[ "$fails" = 0 ]
