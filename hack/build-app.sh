#!/usr/bin/env bash
# Builds the app with Trunk (release profile) into dist/, shrinks the wasm
# with Binaryen's wasm-opt -Oz (installed by hack/bootstrap.sh from npm; Trunk
# would download its own), then writes the Content-Security-Policy and the
# wasm's new integrity hash into dist/index.html (and the policy into
# dist/csp.txt), writes brotli and gzip copies, and prints the size.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"
log "building the app (trunk build --release)"
trunk build --release >/dev/null
wasm=$(ls dist/*.wasm | head -1)
# Kept for hack/wasm-size.sh, which compares with and without wasm-opt.
cp "$wasm" target/kubeglass-before-wasm-opt.wasm
if [[ -x "$WASM_OPT" ]]; then
  "$WASM_OPT" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-reference-types --enable-multivalue --enable-mutable-globals \
    "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
else
  log "wasm-opt not found at $WASM_OPT (run make bootstrap); the wasm is not optimized"
fi
python3 "$HACK_DIR/csp.py" dist/index.html "$wasm" >/dev/null
# No launcher session (src/kube/session.rs): kubectl glass serves its own.
echo null > dist/kubeglass-context.json
# Brotli and gzip copies, served by kubectl glass by Accept-Encoding.
node "$HACK_DIR/compress.mjs" dist >/dev/null
raw=$(stat -c %s "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
log "app built: $(basename "$wasm") $((raw / 1024)) KiB raw, $((gz / 1024)) KiB gzip"
