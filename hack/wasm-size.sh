#!/usr/bin/env bash
# Measures the release wasm before and after wasm-opt -Oz (hack/build-app.sh
# keeps the file Trunk wrote in target/kubeglass-before-wasm-opt.wasm and
# ships the optimized one in dist/).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"
[[ -f target/kubeglass-before-wasm-opt.wasm ]] || bash "$HACK_DIR/build-app.sh"
wasm=$(ls dist/*.wasm | head -1)
report() { printf '%-22s %8d bytes raw %8d bytes gzip -9\n' "$1" "$(stat -c %s "$2")" "$(gzip -9 -c "$2" | wc -c)"; }
report "without wasm-opt" target/kubeglass-before-wasm-opt.wasm
report "with wasm-opt -Oz (shipped)" "$wasm"
