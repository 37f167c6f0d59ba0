#!/usr/bin/env bash
# Pairings of the library against @noble/curves 1.9.5: Gt values coefficient by coefficient,
# multi-pairing products, and agreement on equalities (test/oracle/pairing_oracle.mjs).
set -u
BUILD=${BUILD:-build}
tool=$BUILD/test/tools/pairing_tool
[ -x "$tool" ] || { echo "not ok - $tool missing"; exit 1; }
command -v node >/dev/null || { echo "not ok - node not found (make deps)"; exit 1; }
dir=$(test/oracle/install.sh) || { echo "not ok - oracle packages did not install"; exit 1; }
node "$dir/pairing_oracle.mjs" "$tool"
