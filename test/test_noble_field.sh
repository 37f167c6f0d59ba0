#!/usr/bin/env bash
# libcuzk's G1/G2 arithmetic and encodings against @noble/curves (the Node oracle): random
# k·G, sums, encodings, and decoding verdicts on a corpus of good and malformed encodings.
# Replay a run with CUZK_TEST_SEED=0x... (the seed is printed).
set -u
BUILD=${BUILD:-build}
command -v node >/dev/null || { echo "node not found (make deps installs it)"; exit 77; }
dir=$(test/oracle/install.sh) || { echo "not ok - oracle packages failed to install"; exit 1; }
seed=${CUZK_TEST_SEED:-0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')}
echo "seed: $seed"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! CUZK_TEST_SEED=$seed "$BUILD/test/tools/field_corpus" 24 >"$tmp/corpus.txt"; then
  echo "not ok - field_corpus failed"; exit 1
fi
node "$dir/field_oracle.mjs" "$tmp/corpus.txt"
