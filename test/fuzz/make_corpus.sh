#!/usr/bin/env bash
# Regenerates the seed corpora under test/fuzz/corpus/ and test/fuzz/data/tiny.vk from a
# tiny `cuzk gen` circuit with a test-only `cuzk setup` key (valid inputs) plus truncated
# and bit-flipped copies (near-valid ones). usage: test/fuzz/make_corpus.sh [path/to/cuzk]
set -eu
cuzk=${1:-build/bin/cuzk}
c=test/fuzz/corpus; w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
SEED=f022f022f022f022f022f022f022f022f022f022f022f022f022f022f022f022
"$cuzk" gen --shape porep --constraints 20 --r1cs "$w/t.r1cs" --wtns "$w/t.wtns" --seed "$SEED" >/dev/null
"$cuzk" setup --r1cs "$w/t.r1cs" --params "$w/t.params" --vk "$w/t.vk" --seed "$SEED" >/dev/null
"$cuzk" prove --params "$w/t.params" --r1cs "$w/t.r1cs" --wtns "$w/t.wtns" --proof "$w/t.proof" --seed "$SEED" --backend cpu >/dev/null
mkdir -p test/fuzz/data "$c"/{point,params,vk,proof,r1cs,wtns,partition}
cp "$w/t.vk" test/fuzz/data/tiny.vk
# near-valid copies: truncated by one byte, and one byte flipped in the middle
variants() { # src dst-prefix [prefix-byte]
  local src=$1 dst=$2 pre=${3:-}
  local n; n=$(stat -c %s "$src")
  { [ -n "$pre" ] && printf "\\x$pre"; cat "$src"; } >"$dst-valid"
  { [ -n "$pre" ] && printf "\\x$pre"; head -c $((n - 1)) "$src"; } >"$dst-trunc"
  { [ -n "$pre" ] && printf "\\x$pre"; cat "$src"; } >"$dst-flip"
  printf '\x5a' | dd of="$dst-flip" bs=1 seek=$(( (n + ${#pre} / 2) / 2 )) conv=notrunc status=none
}
variants "$w/t.params" "$c/params/tiny" 01
variants "$w/t.vk" "$c/vk/tiny"
variants "$w/t.r1cs" "$c/r1cs/tiny"
variants "$w/t.wtns" "$c/wtns/tiny"
# proof: scalar form 1 (canonical), the proof, then the public inputs (canonical, 32 bytes LE)
pub=$("$cuzk" export-public --r1cs "$w/t.r1cs" --wtns "$w/t.wtns" 2>/dev/null || true)
{ printf '\x01'; cat "$w/t.proof"; } >"$c/proof/tiny-noinputs"
python3 - "$w/t.proof" "$c/proof/tiny-inputs" "$pub" <<'PY'
import sys, re
proof = open(sys.argv[1], 'rb').read()
nums = [int(x) for x in re.findall(r'\d+', sys.argv[3])]
with open(sys.argv[2], 'wb') as f:
    f.write(b'\x01' + proof + b''.join(n.to_bytes(32, 'little') for n in nums))
PY
# (the porep shape at 20 constraints has no public inputs: one extra is CUZK_EMISMATCH)
{ cat "$c/proof/tiny-inputs"; head -c 32 /dev/zero; } >"$c/proof/tiny-extra-input"
cp "$c/proof/tiny-inputs" "$c/proof/tiny-flip"
printf '\x5a' | dd of="$c/proof/tiny-flip" bs=1 seek=60 conv=notrunc status=none
# points: selector byte (bit0 subgroup check, bit1 G2, bit2 long form, bit3 any length)
# then alpha_g1 (G1, 96), beta_g2 (G2, 192) from the vk, and A (G1, 48), B (G2, 96) from the proof
{ printf '\x05'; head -c 96 "$w/t.vk"; } >"$c/point/g1-uncompressed"
{ printf '\x07'; tail -c +193 "$w/t.vk" | head -c 192; } >"$c/point/g2-uncompressed"
{ printf '\x01'; head -c 48 "$w/t.proof"; } >"$c/point/g1-compressed"
{ printf '\x03'; tail -c +49 "$w/t.proof" | head -c 96; } >"$c/point/g2-compressed"
{ printf '\x01\xc0'; head -c 47 /dev/zero; } >"$c/point/g1-infinity"
{ printf '\x03\xc0'; head -c 95 /dev/zero; } >"$c/point/g2-infinity"
{ printf '\x09'; head -c 47 "$w/t.proof"; } >"$c/point/g1-short"
# partition: flags 0x11 (struct_size ok, Montgomery, b_g2 = b_g1), 1 input, 0 aux, abc_len 1,
# key ic 1, l 0, h 0, a 1, b_g1 0 -> CUZK_OK; then a mismatching copy (h 1)
printf '\x11\x01\x00\x00\x01\x00\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00' >"$c/partition/ok-minimal"
printf '\x11\x01\x00\x00\x01\x00\x01\x00\x00\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00' >"$c/partition/mismatch-h"
printf '\x11\x04\x10\x00\x20\x00\x04\x10\x00\x1f\x00\x08\x00\x03\x00\xff\x0f\x00\x00\xa5\x5a\xff\x00' >"$c/partition/dense"
ls "$c"/* | head -50
