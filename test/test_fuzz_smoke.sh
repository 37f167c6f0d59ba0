#!/usr/bin/env bash
# Builds the libFuzzer harnesses (make fuzz-build: clang, ASan+UBSan, build-fuzz) and runs
# each for FUZZ_SECONDS (10 here, so CI stays quick) on its seed corpus: any crash, leak or
# UB report fails. Skips (77) when clang or its libFuzzer runtime is missing.
set -u
FUZZ_CC=${FUZZ_CC:-clang}
command -v "$FUZZ_CC" >/dev/null || { echo "skipped: $FUZZ_CC not found"; exit 77; }
probe=$(mktemp -d)
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n' >"$probe/p.c"
if ! "$FUZZ_CC" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
  rm -rf "$probe"; echo "skipped: $FUZZ_CC has no libFuzzer runtime"; exit 77
fi
rm -rf "$probe"
# Under SANITIZE the suite runs with its own sanitizer: the fuzz build is the same either way.
# make test exports USE_CUDA to the scripts; it would override the fuzz build's CUZK_CUDA=0.
unset USE_CUDA
if ! out=$(nice make --no-print-directory -j2 fuzz-build FUZZ_CC="$FUZZ_CC" 2>&1); then
  echo "not ok - make fuzz-build"; echo "$out" | tail -30 | sed 's/^/# /'; exit 1
fi
echo "ok - fuzz harnesses built"
names=$(ls test/fuzz/fuzz_*.c | sed 's|test/fuzz/fuzz_||; s|\.c$||')
FUZZ_SECONDS=${FUZZ_SECONDS:-10} test/fuzz/run.sh build-fuzz $names
