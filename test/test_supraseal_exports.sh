#!/usr/bin/env bash
# libcuzk-supraseal.so exports exactly supraseal C2's five C entry points, each under the
# CUZK_SUPRASEAL_ version node, with its soname; libcuzk's own symbols stay inside it (it needs
# no libcuzk.so), and nothing of mimalloc or the CUDA runtime leaks out.
set -u
# A sanitized library cannot be linked into an uninstrumented host: checked in the plain build.
[ -n "${SANITIZE:-}" ] && { echo "skipped under SANITIZE=$SANITIZE"; exit 77; }
BUILD=${BUILD:-build}
version=$(awk '/^#define CUZK_VERSION_(MAJOR|MINOR|PATCH) / {v = v (v == "" ? "" : ".") $3} END {print v}' include/cuzk/cuzk.h)
so=$BUILD/lib/libcuzk-supraseal.so.$version
[ -f "$so" ] || { echo "not ok - $so missing"; exit 1; }
want="clone_SRS create_SRS drop_SRS evict_SRS generate_groth16_proofs_c"
got=$(nm -D --defined-only "$so" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u | tr '\n' ' ' | sed 's/ $//')
[ "$got" = "$want" ] && echo "ok - exactly the five symbols exported: $got" \
  || echo "not ok - exported: '$got', want '$want'"
unver=$(nm -D --defined-only "$so" | awk '$2 != "A" && $3 !~ /@@CUZK_SUPRASEAL_[0-9]+\.[0-9]+$/ {print $3}')
[ -z "$unver" ] && echo "ok - every symbol carries a CUZK_SUPRASEAL_ version" || echo "not ok - unversioned: $unver"
soname=$(objdump -p "$so" | awk '/SONAME/ {print $2}')
[ "$soname" = libcuzk-supraseal.so.0 ] && echo "ok - soname libcuzk-supraseal.so.0" || echo "not ok - soname is '$soname'"
[ "$(readlink "$BUILD/lib/libcuzk-supraseal.so.0")" = "libcuzk-supraseal.so.$version" ] \
  && [ "$(readlink "$BUILD/lib/libcuzk-supraseal.so")" = libcuzk-supraseal.so.0 ] \
  && echo "ok - .so.0 and .so links" || echo "not ok - links wrong"
needed=$(objdump -p "$so" | awk '/NEEDED/ {print $2}')
odd=$(echo "$needed" | grep -Ev '^(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libmimalloc|ld-linux-x86-64)\.so' || true)
[ -z "$odd" ] && echo "ok - run-time dependencies: $(echo $needed) (no libcuzk.so)" || echo "not ok - unexpected NEEDED: $odd"
# The header declares the five and compiles as C99 and C++ for a host.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#include "supraseal_c2.h"\nint main(void) { supraseal_c2_srs s; supraseal_c2_error e = create_SRS(&s, "x", 0);\n  return e.code == 0; }\n' > "$tmp/h.c"
if cc -std=c99 -Wall -Wextra -Werror -Isupraseal -c "$tmp/h.c" -o "$tmp/h.o" && \
   { ! command -v c++ >/dev/null || c++ -x c++ -Wall -Wextra -Werror -Isupraseal -c "$tmp/h.c" -o "$tmp/hpp.o"; } && \
   cc -o "$tmp/h" "$tmp/h.o" -L"$BUILD/lib" -lcuzk-supraseal -Wl,--no-undefined; then
  echo "ok - supraseal_c2.h compiles as C99 and C++; a host links -lcuzk-supraseal alone"
else echo "not ok - a host of supraseal_c2.h does not build"; fi
