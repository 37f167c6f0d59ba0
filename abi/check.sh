#!/usr/bin/env bash
# The ABI guard (make abi-check / make abi-dump). The baseline abi/libcuzk.abi is abidw's
# description of the exported ABI (symbols with their version nodes, and every type they
# reach), written without paths or locations so that it is reproducible.
#   abi/check.sh dump  LIB BASELINE [HEADERS]   write the baseline (after a release adds a node)
#   abi/check.sh check LIB BASELINE [HEADERS]   fail on a removed or changed function or type, on a symbol
#        added to a version node the baseline already has (additions need a new node,
#        liburing style), and on a node or added symbol that CHANGELOG.md does not name.
# HEADERS is the directory of the library's public headers (default include/cuzk; supraseal for
# libcuzk-supraseal.so): types defined elsewhere are the library's private business.
set -u
mode=$1 lib=$2 base=$3 headers=${4:-include/cuzk}
changelog=${CHANGELOG:-CHANGELOG.md}
command -v abidw >/dev/null && command -v abidiff >/dev/null \
  || { echo "abi-check: abidw/abidiff not found (make deps installs abigail-tools)"; exit 77; }
dump() { # the library's exported ABI; ELF NEEDED entries differ between CPU and CUDA builds
  abidw --no-corpus-path --no-comp-dir-path --no-show-locs --drop-undefined-syms \
        --drop-private-types --headers-dir "$headers" --type-id-style hash "$1" | sed '/<elf-needed>/,/<\/elf-needed>/d'
}
syms() { # "name version" per exported symbol of an abidw file
  sed -n "s/.*<elf-symbol name='\([^']*\)' version='\([^']*\)'.*/\1 \2/p" "$1" | sort -u
}
case $mode in
dump) dump "$lib" > "$base" && echo "wrote $base ($(syms "$base" | wc -l) symbols)"; exit ;;
check) ;;
*) echo "usage: $0 dump|check LIB BASELINE"; exit 2 ;;
esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dump "$lib" > "$tmp/now.abi" || { echo "abi-check: abidw failed on $lib"; exit 1; }
abidiff --no-show-locs "$base" "$tmp/now.abi" > "$tmp/diff"; rc=$?
bad=0
if (( rc & 3 )); then echo "abi-check: abidiff failed ($rc)"; cat "$tmp/diff"; exit 1; fi
# abidiff flags removals (exit bit 8); a changed type under a kept function (a struct field
# retyped or moved, a struct grown) only sets bit 4, so those are refused here: growing a
# struct_size struct at its end is allowed by design, but only through a reviewed
# `make abi-dump` and a CHANGELOG entry.
if (( rc & 8 )) || grep -Eq 'changes summary: [0-9]+ Removed, [1-9][0-9]* Changed|changes summary: [1-9][0-9]* Removed' "$tmp/diff"; then
  echo "abi-check: INCOMPATIBLE ABI change against $base:"; sed 's/^/  /' "$tmp/diff"; bad=1
elif (( rc & 4 )); then
  echo "abi-check: compatible ABI change against $base:"; sed 's/^/  /' "$tmp/diff"
fi
# Removed symbols are abidiff's; a changed version node of a kept symbol is checked here.
syms "$base" > "$tmp/base.syms"; syms "$tmp/now.abi" > "$tmp/now.syms"
old_nodes=$(awk '{print $2}' "$tmp/base.syms" | sort -u)
while read -r name node; do
  if grep -q "^$name " "$tmp/base.syms"; then
    grep -qx "$name $node" "$tmp/base.syms" || { echo "abi-check: $name moved to node $node"; bad=1; }
    continue
  fi
  if echo "$old_nodes" | grep -qx "$node"; then
    echo "abi-check: $name is new but in node $node, which the baseline already has: add a new node"
    echo "           (e.g. 'CUZK_0.N { global: $name; } CUZK_0.M;' in its version script)"; bad=1
  fi
  grep -q "$name" "$changelog" || { echo "abi-check: $name is new but $changelog does not mention it"; bad=1; }
done < "$tmp/now.syms"
for node in $(awk '{print $2}' "$tmp/now.syms" | sort -u); do
  grep -q "$node" "$changelog" || { echo "abi-check: version node $node is not in $changelog"; bad=1; }
done
[ $bad = 0 ] && echo "abi-check: ok ($(wc -l < "$tmp/now.syms") symbols, nodes: $(awk '{print $2}' "$tmp/now.syms" | sort -u | tr '\n' ' '))"
exit $bad
