#!/usr/bin/env bash
# Measures the release wasm with and without wasm-opt. The build itself keeps
# wasm-opt off; this script installs Binaryen's npm package (a registry
# package) into the cache only to measure what -Oz would save.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"
[[ -d dist ]] || bash "$HACK_DIR/build-app.sh"
wasm=$(ls dist/*.wasm | head -1)
bdir="$KUBEGLASS_CACHE/binaryen"
if [[ ! -x "$bdir/node_modules/.bin/wasm-opt" ]]; then
  mkdir -p "$bdir"
  (cd "$bdir" && npm install --no-audit --no-fund --loglevel=error binaryen@132.0.0 >/dev/null)
fi
out=$(mktemp --suffix .wasm)
"$bdir/node_modules/.bin/wasm-opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-reference-types --enable-multivalue --enable-mutable-globals \
  "$wasm" -o "$out"
report() { printf '%-22s %8d bytes raw %8d bytes gzip -9\n' "$1" "$(stat -c %s "$2")" "$(gzip -9 -c "$2" | wc -c)"; }
report "without wasm-opt" "$wasm"
report "with wasm-opt -Oz" "$out"
rm -f "$out"
