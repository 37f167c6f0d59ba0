#!/usr/bin/env bash
# The CPU path under valgrind memcheck: a short soak (test/test_soak.c: engines created and
# destroyed, concurrent key loads, cancels, injected faults, every proof verified) with
# --leak-check=full; any error or definite/indirect leak fails. Built without tail calls so
# the suppressions (test/valgrind.supp: mimalloc's free alias) see the arena wrappers.
# Skips (77) without valgrind and under SANITIZE. CUZK_VALGRIND_SECONDS (default 20) is the
# soak's length; valgrind makes it ~50x slower per partition, so it does fewer of them.
set -u
command -v valgrind >/dev/null || { echo "skipped: valgrind not found (make deps installs it)"; exit 77; }
if [ -n "${SANITIZE:-}" ]; then echo "skipped: under SANITIZE=$SANITIZE (valgrind needs a plain build)"; exit 77; fi
vb=build-valgrind
# USE_CUDA=0: make test exports USE_CUDA to the scripts, and the environment would win over CUZK_CUDA=0
if ! out=$(nice make --no-print-directory -j2 BUILD=$vb CUZK_CUDA=0 USE_CUDA=0 OPT="-O1 -fno-optimize-sibling-calls -fno-inline-functions" \
           $vb/test/test_soak 2>&1); then
  echo "not ok - build the soak for valgrind"; echo "$out" | tail -20 | sed 's/^/# /'; exit 1
fi
log=$(mktemp)
if CUZK_SOAK_SECONDS=${CUZK_VALGRIND_SECONDS:-20} CUZK_SOAK_BURST=8 nice valgrind --error-exitcode=1 \
     --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
     --suppressions=test/valgrind.supp --num-callers=30 -q $vb/test/test_soak >"$log" 2>&1; then
  echo "ok - soak under valgrind: $(grep -o 'soak: .*' "$log")"
else
  echo "not ok - soak under valgrind"; tail -60 "$log" | sed 's/^/# /'
fi
rm -f "$log"
