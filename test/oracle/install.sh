#!/usr/bin/env bash
# Installs the pinned oracle packages (package.json) into $BUILD/oracle/node_modules once,
# copies the oracle scripts (*.mjs) beside them (ESM resolves packages from the script's
# folder) and prints that folder. Usage: dir=$(test/oracle/install.sh); node "$dir/x.mjs"
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dest=$(cd "${BUILD:-build}" && pwd)/oracle
mkdir -p "$dest"
exec 9>"$dest.lock" && flock 9 # tests run side by side (run-tests.sh): one installs, the others wait
if ! cmp -s "$here/package.json" "$dest/package.json" || [ ! -d "$dest/node_modules" ]; then
  cp "$here/package.json" "$dest/package.json"
  (cd "$dest" && npm install --no-audit --no-fund --loglevel=error >&2)
fi
cp "$here"/*.mjs "$dest"/ 2>/dev/null || true   # ESM resolves packages from the script's folder
echo "$dest"
