#!/usr/bin/env bash
# Compiles test/circuits/NAME.circom with circom2 (npm, a WASI build run by node) for
# BLS12-381 into $BUILD/circuits/NAME-PRIME/ (NAME.r1cs and NAME_js/ for witnesses) unless
# an up-to-date copy is there, and prints that folder.
# Usage: cdir=$(test/circuits/compile.sh NAME [PRIME]) ; oracle dir from test/oracle/install.sh
set -eu
name=$1
prime=${2:-bls12381}
here=$(cd "$(dirname "$0")" && pwd)
oracle=$("$here/../oracle/install.sh")
out=$(cd "${BUILD:-build}" && pwd)/circuits/$name-$prime
src=$here/$name.circom
stamp=$(sha256sum "$src" | cut -c1-16)
mkdir -p "$(dirname "$out")"
exec 9>"$out.lock" && flock 9 # tests run side by side (run-tests.sh): one compiles, the others wait
if [ ! -f "$out/stamp" ] || [ "$(cat "$out/stamp")" != "$stamp" ] || [ ! -f "$out/$name.r1cs" ]; then
  rm -rf "$out" && mkdir -p "$out"
  # circom2's CLI maps the paths it is given relative to the working directory (WASI preopens)
  (cd "$out" && node "$oracle/node_modules/circom2/cli.js" "$src" --r1cs --wasm --prime "$prime" -o . >&2)
  echo "$stamp" > "$out/stamp"
fi
echo "$out"
