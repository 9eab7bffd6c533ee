#!/usr/bin/env bash
# Measures the first page's wasm (the main module) before and after wasm-opt
# -Oz (hack/build-app.sh keeps the main module wasm-bindgen wrote in
# target/kubeglass-before-wasm-opt.wasm and ships the optimized one in dist/),
# and every part of the split wasm.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"
[[ -f target/kubeglass-before-wasm-opt.wasm ]] || bash "$HACK_DIR/build-app.sh"
wasm=$(ls dist/*_bg.wasm | head -1)
report() { printf '%-22s %8d bytes raw %8d bytes gzip -9\n' "$1" "$(stat -c %s "$2")" "$(gzip -9 -c "$2" | wc -c)"; }
report "without wasm-opt" target/kubeglass-before-wasm-opt.wasm
report "with wasm-opt -Oz (shipped)" "$wasm"
all=0
for f in dist/*.wasm; do all=$((all + $(stat -c %s "$f"))); done
printf '%-22s %8d bytes raw in %d files\n' "every part (shipped)" "$all" "$(ls dist/*.wasm | wc -l)"
