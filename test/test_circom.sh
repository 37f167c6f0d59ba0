#!/usr/bin/env bash
# circom end to end: circuits compiled by circom2 (npm) for BLS12-381, witnesses from circom's
# wasm, keys from `cuzk setup`, proofs from `cuzk prove`, checked by `snarkjs groth16 verify`
# on the exported JSON and by `cuzk verify`; a changed public input is rejected by both.
# multi.circom: several public inputs and outputs, an input absent from B, an aux variable
# absent from A and B, zero-valued inputs; big.circom: more than 2^16 constraints.
set -u
BUILD=${BUILD:-build}
cuzk=$BUILD/bin/cuzk
[ -x "$cuzk" ] || { echo "not ok - $cuzk is missing"; exit 1; }
dir=$(test/oracle/install.sh) || { echo "not ok - installing the oracle packages"; exit 1; }
snarkjs="node $dir/node_modules/snarkjs/build/cli.cjs"
work=$BUILD/test-circom
rm -rf "$work" && mkdir -p "$work"
SEED=5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed
fails=0
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { # check "description" command... : ok if the command exits 0
  local what=$1; shift
  if "$@" >"$work/out" 2>&1; then ok "$what"; else nok "$what"; sed 's/^/    /' "$work/out" | tail -n 15; fi
}
expect_exit() { # expect_exit CODE "description" command...
  local code=$1 what=$2; shift 2
  "$@" >"$work/out" 2>&1
  local rc=$?
  if [ "$rc" = "$code" ]; then ok "$what (exit $rc)"; else nok "$what: exit $rc, expected $code"; sed 's/^/    /' "$work/out" | tail -n 15; fi
}

circuits="multi big"
[ -n "${CUZK_TEST_QUICK:-}" ] && circuits="multi"   # the sanitizer pass skips the 2^16 circuit
for c in $circuits; do
  cdir=$(test/circuits/compile.sh "$c" 2>"$work/compile.log") || { nok "$c: circom2 compile"; cat "$work/compile.log"; continue; }
  w=$work/$c
  check "$c: witness from circom's wasm" \
    node "$cdir/${c}_js/generate_witness.js" "$cdir/${c}_js/$c.wasm" "test/circuits/$c.input.json" "$w.wtns"
  t0=$(date +%s)
  check "$c: cuzk setup (test only)" "$cuzk" setup --r1cs "$cdir/$c.r1cs" --params "$w.params" --vk "$w.vk" --seed "$SEED"
  grep -q "TEST-ONLY" "$work/out" && ok "$c: setup says it is TEST-ONLY" || nok "$c: setup does not say TEST-ONLY"
  t1=$(date +%s)
  check "$c: cuzk prove" "$cuzk" prove --params "$w.params" --r1cs "$cdir/$c.r1cs" --wtns "$w.wtns" --proof "$w.proof"
  t2=$(date +%s)
  echo "# $c: setup $((t1 - t0)) s, prove $((t2 - t1)) s"
  "$cuzk" export-vk --vk "$w.vk" --format snarkjs >"$w.vk.json" &&
    "$cuzk" export-proof --proof "$w.proof" --format snarkjs >"$w.proof.json" &&
    "$cuzk" export-public --r1cs "$cdir/$c.r1cs" --wtns "$w.wtns" >"$w.public.json" &&
    ok "$c: exported vk, proof and public inputs as snarkjs JSON" || nok "$c: export"
  check "$c: snarkjs groth16 verify accepts the proof" $snarkjs groth16 verify "$w.vk.json" "$w.public.json" "$w.proof.json"
  grep -q "OK" "$work/out" || nok "$c: snarkjs did not say OK"
  expect_exit 0 "$c: cuzk verify (public inputs from the witness)" \
    "$cuzk" verify --vk "$w.vk" --proof "$w.proof" --r1cs "$cdir/$c.r1cs" --wtns "$w.wtns"
  # the same inputs on the command line (the last one in hex), then one of them changed
  pubs=$(node -e 'const p=JSON.parse(require("fs").readFileSync(process.argv[1]));
    console.log(p.map((x,i)=>i==p.length-1?"0x"+BigInt(x).toString(16):x).join(","))' "$w.public.json")
  expect_exit 0 "$c: cuzk verify --public $pubs" "$cuzk" verify --vk "$w.vk" --proof "$w.proof" --public "$pubs"
  bad=$(node -e 'const p=JSON.parse(require("fs").readFileSync(process.argv[1]));
    p[0]=(BigInt(p[0])+1n).toString(); console.log(p.join(","))' "$w.public.json")
  expect_exit 1 "$c: cuzk verify rejects a changed public input" "$cuzk" verify --vk "$w.vk" --proof "$w.proof" --public "$bad"
  node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));
    p[0]=(BigInt(p[0])+1n).toString(); fs.writeFileSync(process.argv[2], JSON.stringify(p))' "$w.public.json" "$w.bad.json"
  $snarkjs groth16 verify "$w.vk.json" "$w.bad.json" "$w.proof.json" >"$work/out" 2>&1
  if grep -q "Invalid proof" "$work/out" && ! grep -q "OK!" "$work/out"; then ok "$c: snarkjs rejects a changed public input"
  else nok "$c: snarkjs accepted a changed public input"; cat "$work/out"; fi
done

# Without --seed, r and s come from the OS: two proofs of one witness differ, both valid.
c=multi; cdir=$BUILD/circuits/$c-bls12381; w=$work/$c
"$cuzk" prove --params "$w.params" --r1cs "$cdir/$c.r1cs" --wtns "$w.wtns" --proof "$w.proof2" >/dev/null 2>&1
if [ -f "$w.proof2" ] && ! cmp -s "$w.proof" "$w.proof2" &&
   "$cuzk" verify --vk "$w.vk" --proof "$w.proof2" --r1cs "$cdir/$c.r1cs" --wtns "$w.wtns" >/dev/null 2>&1
then ok "two unseeded proofs differ and both verify"; else nok "unseeded proofs"; fi
# With --seed they are reproducible.
"$cuzk" prove --params "$w.params" --r1cs "$cdir/$c.r1cs" --wtns "$w.wtns" --proof "$w.s1" --seed "$SEED" >/dev/null 2>&1
"$cuzk" prove --params "$w.params" --r1cs "$cdir/$c.r1cs" --wtns "$w.wtns" --proof "$w.s2" --seed "$SEED" >/dev/null 2>&1
cmp -s "$w.s1" "$w.s2" && ok "seeded proofs are reproducible" || nok "seeded proofs differ"
# The witness-only path (cuzk_submit_witness), from the .r1cs and from its compact file: the
# same bytes as the a/b/c path for the same seed, for each circom circuit compiled above.
for cc in $circuits; do
  cd2=$BUILD/circuits/$cc-bls12381; w2=$work/$cc
  [ -f "$w2.wtns" ] || continue
  "$cuzk" prove --params "$w2.params" --r1cs "$cd2/$cc.r1cs" --wtns "$w2.wtns" --proof "$w2.abc" --seed "$SEED" >/dev/null 2>&1
  check "$cc: cuzk prove --via witness" "$cuzk" prove --params "$w2.params" --r1cs "$cd2/$cc.r1cs" --wtns "$w2.wtns" \
    --proof "$w2.wit" --seed "$SEED" --via witness
  check "$cc: cuzk cs-convert" "$cuzk" cs-convert --r1cs "$cd2/$cc.r1cs" --out "$w2.cuzkcs"
  check "$cc: cuzk prove --cs" "$cuzk" prove --params "$w2.params" --cs "$w2.cuzkcs" --wtns "$w2.wtns" --proof "$w2.wit2" --seed "$SEED"
  cmp -s "$w2.abc" "$w2.wit" && cmp -s "$w2.abc" "$w2.wit2" && ok "$cc: witness-only proofs are the a/b/c path's bytes" \
    || nok "$cc: witness-only proofs differ from the a/b/c path's"
done

# `cuzk gen` writes files other tools read: snarkjs checks the witness against the circuit.
check "cuzk gen --shape porep" "$cuzk" gen --shape porep --constraints 60 --r1cs "$work/g.r1cs" --wtns "$work/g.wtns" --seed "$SEED"
check "snarkjs r1cs info reads cuzk gen's .r1cs" $snarkjs r1cs info "$work/g.r1cs"
grep -q "# of Constraints: 60" "$work/out" || nok "snarkjs r1cs info does not see 60 constraints"
check "snarkjs wtns check: cuzk gen's witness satisfies its circuit" $snarkjs wtns check "$work/g.r1cs" "$work/g.wtns"
grep -q "WITNESS IS CORRECT" "$work/out" || nok "snarkjs wtns check did not say WITNESS IS CORRECT"
# Every shape: a PoSt-shaped circuit (field values in B, SBOX rows) is as readable and satisfied.
for sh in snap wpost winning; do
  check "cuzk gen --shape $sh --log 8" "$cuzk" gen --shape $sh --log 8 --r1cs "$work/$sh.r1cs" --wtns "$work/$sh.wtns" --seed "$SEED"
  grep -q "($sh shape)" "$work/out" || nok "cuzk gen --shape $sh does not name its shape"
  check "snarkjs wtns check: cuzk gen --shape $sh" $snarkjs wtns check "$work/$sh.r1cs" "$work/$sh.wtns"
  grep -q "WITNESS IS CORRECT" "$work/out" || nok "snarkjs wtns check of the $sh shape did not say WITNESS IS CORRECT"
done

# Errors: one line "cuzk: <code>: <detail>" on stderr, exit 2.
err_line() { # err_line "description" PATTERN command...
  local what=$1 pat=$2; shift 2
  "$@" >/dev/null 2>"$work/err"
  local rc=$? lines
  lines=$(wc -l <"$work/err")
  if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -q "^cuzk: CUZK_E[A-Z]*: .*$pat" "$work/err"; then ok "$what"
  else nok "$what: exit $rc, stderr: $(cat "$work/err")"; fi
}
err_line "cuzk gen names the shapes it knows" "porep|snap|wpost|winning" \
  "$cuzk" gen --shape nope --log 8 --r1cs "$work/x.r1cs" --wtns "$work/x.wtns"
if bn=$(test/circuits/compile.sh multi bn128 2>/dev/null); then
  err_line "a bn128 circuit is refused, naming the prime" "bn128" \
    "$cuzk" setup --r1cs "$bn/multi.r1cs" --params "$work/x.params" --vk "$work/x.vk"
else nok "compiling multi for bn128"; fi
err_line "a missing file is CUZK_EIO" "nonexistent" "$cuzk" prove --params "$work/nonexistent.params" \
  --r1cs "$cdir/$c.r1cs" --wtns "$w.wtns" --proof "$work/x.proof"
err_line "a witness of another circuit is refused" "values but the circuit has 14 wires" \
  "$cuzk" prove --params "$w.params" --r1cs "$cdir/$c.r1cs" --wtns "$work/g.wtns" --proof "$work/x.proof"
err_line "an unknown option is refused" "unknown option" "$cuzk" verify --vk "$w.vk" --proof "$w.proof" --pubic 1
err_line "a public input >= r is refused" "not below r" "$cuzk" verify --vk "$w.vk" --proof "$w.proof" \
  --public 52435875175126190479447740508185965837690552500527637822603658699938581184513
err_line "a short seed is refused" "64 hex digits" "$cuzk" setup --r1cs "$cdir/$c.r1cs" --params "$work/x" --vk "$work/y" --seed abc
err_line "an unknown command is refused" "unknown command" "$cuzk" frobnicate
head -c 191 "$w.proof" >"$work/short.proof"
err_line "a 191-byte proof is CUZK_EFORMAT" "191 bytes" "$cuzk" verify --vk "$w.vk" --proof "$work/short.proof" --public 1
# --public: every comma-separated item counts; an empty one is refused, not skipped
err_line "an empty first --public item is refused" "item 1 is empty" "$cuzk" verify --vk "$w.vk" --proof "$w.proof" --public ",1"
err_line "an empty middle --public item is refused" "item 2 is empty" "$cuzk" verify --vk "$w.vk" --proof "$w.proof" --public "1,,2"
err_line "a trailing comma in --public is refused" "item 2 is empty" "$cuzk" verify --vk "$w.vk" --proof "$w.proof" --public "1,"
# A at infinity (compressed: flags 0xc0, then zeros): refused by verify and by export-proof alike
{ printf '\300'; head -c 47 /dev/zero; tail -c 144 "$w.proof"; } >"$work/inf.proof"
err_line "verify refuses a proof whose A is infinity" "A (bytes 0..48) is the point at infinity" \
  "$cuzk" verify --vk "$w.vk" --proof "$work/inf.proof" --r1cs "$cdir/$c.r1cs" --wtns "$w.wtns"
err_line "export-proof refuses a proof whose A is infinity" "A (bytes 0..48) is the point at infinity" \
  "$cuzk" export-proof --proof "$work/inf.proof" --format snarkjs
[ "$fails" = 0 ]
