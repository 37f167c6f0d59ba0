#!/usr/bin/env bash
# make abi-check passes on this tree and fails on deliberately broken copies: a function
# removed from the version script, a public struct field's type changed, a new function
# put in an existing version node; and passes again once the new function has its own node
# and a CHANGELOG line. libcuzk-supraseal.so has its own baseline: a symbol removed from
# supraseal/supraseal.map or a field of its error struct retyped fails the check too. The copies reuse this build's objects, so each only recompiles one
# file and relinks.
set -u
[ -n "${SANITIZE:-}" ] && { echo "skipped under SANITIZE=$SANITIZE"; exit 77; }
command -v abidiff >/dev/null || { echo "skip: abidiff not installed (make deps installs abigail-tools)"; exit 77; }
BUILD=${BUILD:-build}
cuda=$([ "${USE_CUDA:-}" = 1 ] && echo 1 || echo 0)
out=$(make --no-print-directory -s abi-check BUILD="$BUILD" CUZK_CUDA=$cuda 2>&1); rc=$?
[ $rc = 0 ] && echo "ok - make abi-check passes on the tree" || { echo "not ok - make abi-check fails on the tree:"; echo "$out" | sed 's/^/    /'; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fresh() { # a copy of the tree (tracked and new files) with this build's objects
  rm -rf "$tmp/t"; mkdir -p "$tmp/t/b"
  git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$tmp/t"
  cp -a "$BUILD/obj" "$BUILD/lib" "$tmp/t/b/"
  # the records of the options the objects were built with (mk/record.mk): without them every
  # object would count as built with unknown options and be rebuilt
  cp -a "$BUILD/flags" "$BUILD/config.mk" "$tmp/t/b/" 2>/dev/null
}
check_copy() { # $1: expected outcome (pass|fail), $2: what, $3: a pattern the output must have
  (cd "$tmp/t" && make --no-print-directory -s lib BUILD=b CUZK_CUDA=$cuda >"$tmp/build.log" 2>&1) \
    || { echo "not ok - $2: the copy does not build"; tail -5 "$tmp/build.log"; return; }
  out=$(cd "$tmp/t" && make --no-print-directory -s abi-check BUILD=b CUZK_CUDA=$cuda 2>&1); rc=$?
  if { [ "$1" = fail ] && [ $rc != 0 ]; } || { [ "$1" = pass ] && [ $rc = 0 ]; }; then
    if echo "$out" | grep -q -- "$3"; then echo "ok - abi-check says $1: $2"
    else echo "not ok - $2: output lacks '$3':"; echo "$out" | sed 's/^/    /' | head -20; fi
  else echo "not ok - abi-check should $1 ($2), exit $rc:"; echo "$out" | sed 's/^/    /' | head -20; fi
}

fresh
sed -i '/^ *cuzk_cancel;$/d' "$tmp/t/lib/cuzk.map"
check_copy fail "cuzk_cancel removed from the version script" "INCOMPATIBLE"

fresh
# cuzk_result.device int32_t -> uint32_t (same size and offset, another type): only the unit
# that defines cuzk_poll_result is rebuilt.
sed -i '/uint8_t proof\[192\]/{n;s/int32_t device;/uint32_t device;/}' "$tmp/t/include/cuzk/cuzk.h"
grep -q 'uint32_t device;' "$tmp/t/include/cuzk/cuzk.h" || echo "not ok - the header edit did not apply"
find "$tmp/t/b/obj" -name '*.o' -exec touch {} +
rm -f "$tmp/t/b/obj/lib/engine/engine_api.o"
check_copy fail "cuzk_result.device changed type" "INCOMPATIBLE"

# A 0.1.0 member that grows (int32_t -> int64_t moves every later member) does not even
# compile: the library asserts the frozen layouts (CUZK_*_SIZE_V1).
fresh
sed -i '/uint8_t proof\[192\]/{n;s/int32_t device;/int64_t device;/}' "$tmp/t/include/cuzk/cuzk.h"
rm -f "$tmp/t/b/obj/lib/engine/engine_api.o"
if (cd "$tmp/t" && make --no-print-directory -s lib BUILD=b CUZK_CUDA=$cuda >"$tmp/build.log" 2>&1); then
  echo "not ok - a moved 0.1.0 member of cuzk_result compiled"
elif grep -q "0.1.0 members must keep their layout" "$tmp/build.log"; then
  echo "ok - a moved 0.1.0 member of cuzk_result is refused at compile time"
else echo "not ok - the build failed for another reason:"; tail -5 "$tmp/build.log" | sed 's/^/    /'; fi

fresh
printf '\nCUZK_API int cuzk_abi_probe(void);\nCUZK_API int cuzk_abi_probe(void) { return 1; }\n' >> "$tmp/t/lib/version.c"
sed -i 's/^ *cuzk_version_number;$/    cuzk_version_number;\n    cuzk_abi_probe;/' "$tmp/t/lib/cuzk.map"
check_copy fail "a new function in the existing node CUZK_0.1" "add a new node"
# The same function in a node of its own, inheriting the newest, with a CHANGELOG line.
sed -i '/^ *cuzk_abi_probe;$/d' "$tmp/t/lib/cuzk.map"
last=$(grep -o '^CUZK_[0-9.]*' "$tmp/t/lib/cuzk.map" | tail -1)
printf '\nCUZK_9.9 {\n  global:\n    cuzk_abi_probe;\n} %s;\n' "$last" >> "$tmp/t/lib/cuzk.map"
check_copy fail "a new node without a CHANGELOG entry" "not in CHANGELOG"
printf -- '- `cuzk_abi_probe` (node CUZK_9.9).\n' >> "$tmp/t/CHANGELOG.md"
check_copy pass "a new function in a new node, in CHANGELOG" "abi-check: ok"

# libcuzk-supraseal.so, against abi/libcuzk-supraseal.abi
fresh
sed -i '/^ *evict_SRS;$/d' "$tmp/t/supraseal/supraseal.map"
check_copy fail "evict_SRS removed from supraseal/supraseal.map" "INCOMPATIBLE"

fresh
# sppark's error struct: int32_t code -> uint32_t (same size, another type)
sed -i '/typedef struct supraseal_c2_error {/{n;s/int32_t code;/uint32_t code;/}' "$tmp/t/supraseal/supraseal_c2.h"
grep -q 'uint32_t code;' "$tmp/t/supraseal/supraseal_c2.h" || echo "not ok - the supraseal header edit did not apply"
find "$tmp/t/b/obj" -name '*.o' -exec touch {} +
rm -f "$tmp/t/b/obj/supraseal/supraseal_c2.o"
check_copy fail "supraseal_c2_error.code changed type" "INCOMPATIBLE"
