#!/usr/bin/env bash
# The API reference (docs/api.md) against the headers: every function declared CUZK_API in
# include/cuzk/*.h has its section, and no section names a function that does not exist;
# every error code, option, trace kind and frozen struct size of cuzk.h is on the page. Also:
# every int-returning public function is exercised by test/test_last_error.c (a success
# clears cuzk_last_error), the docs' relative links resolve, and the public headers point
# hosts to docs/, not to the project's internal FORMATS.md.
set -u
api=docs/api.md
[ -f "$api" ] || { echo "not ok - $api is missing"; exit 1; }
fails=0
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }

# The declarations: "CUZK_API <type> <name>(" possibly with pointer stars.
declared=$(grep -h 'CUZK_API' include/cuzk/*.h | grep -v '#define' |
           sed -n 's/.*[ *]\(cuzk_[a-z0-9_]*\)(.*/\1/p' | sort -u)
n=$(echo "$declared" | grep -c .)
[ "$n" -ge 20 ] || nok "only $n CUZK_API functions found in include/cuzk/*.h (the pattern broke?)"
missing=""
for f in $declared; do grep -q "^### \`$f\`" "$api" || missing="$missing $f"; done
[ -z "$missing" ] && ok "every CUZK_API function ($n) has a section in $api" || nok "no section in $api for:$missing"

documented=$(sed -n 's/^### `\(cuzk_[a-z0-9_]*\)`.*/\1/p' "$api" | sort -u)
stale=""
for f in $documented; do echo "$declared" | grep -qx "$f" || stale="$stale $f"; done
[ -z "$stale" ] && ok "every section of $api names a declared function" || nok "$api documents undeclared:$stale"

consts=$(grep -oE '\bCUZK_(E[A-Z]+|OK|OPT_[A-Z0-9_]+|TRACE_[A-Z0-9_]+|[A-Z_]+_SIZE_V1)\b' include/cuzk/cuzk.h | sort -u)
absent=""
for c in $consts; do grep -q "\`$c\`" "$api" || grep -q "\b$c\b" "$api" || absent="$absent $c"; done
[ -z "$absent" ] && ok "every error code, option, trace kind and V1 size ($(echo "$consts" | wc -l)) is in $api" \
  || nok "missing from $api:$absent"

fallible=$(grep -h 'CUZK_API int ' include/cuzk/*.h | sed -n 's/.* \(cuzk_[a-z0-9_]*\)(.*/\1/p' | sort -u)
untested=""
for f in $fallible; do grep -q "$f(" test/test_last_error.c || untested="$untested $f"; done
[ -z "$untested" ] && ok "test_last_error.c calls every int-returning public function ($(echo "$fallible" | wc -l))" \
  || nok "test_last_error.c does not call:$untested"

# The safe bindings take every engine option (their docs say Options maps onto CUZK_OPT_*).
opts=$(grep -o 'CUZK_OPT_[A-Z0-9_]* = [0-9]*' include/cuzk/cuzk.h | cut -d' ' -f1 | sort -u)
for b in bindings/rust/cuzk/src/engine.rs bindings/go/cuzk/engine.go; do
  lacking=""
  for o in $opts; do grep -q "\b$o\b" "$b" || lacking="$lacking $o"; done
  [ -z "$lacking" ] && ok "$b sets every engine option ($(echo "$opts" | wc -l))" || nok "$b has no option for:$lacking"
done

# Relative links between the documents. go.md and rust.md belong to the bindings' branch
# (they are linked from docs/README.md before they land), so only their absence is tolerated.
broken=""
for doc in docs/*.md; do
  for target in $(grep -o '](\([^)#:]*\)[)#]' "$doc" | sed 's/^](//; s/[)#]$//' | sort -u); do
    [ -z "$target" ] && continue
    case "$target" in go.md|rust.md) continue ;; esac
    [ -e "$(dirname "$doc")/$target" ] || broken="$broken $doc:$target"
  done
done
[ -z "$broken" ] && ok "the docs' relative links resolve" || nok "broken links:$broken"

if grep -n 'FORMATS\.md' include/cuzk/*.h examples/c/*.h >/dev/null; then
  nok "public headers still point to FORMATS.md: $(grep -ln 'FORMATS\.md' include/cuzk/*.h examples/c/*.h | tr '\n' ' ')"
else ok "public headers point to docs/, not FORMATS.md"; fi
[ "$fails" = 0 ]
