#!/usr/bin/env bash
# Builds the app with Trunk (release profile) into dist/ and prints its size.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"
log "building the app (trunk build --release)"
trunk build --release >/dev/null
python3 "$HACK_DIR/csp.py" dist/index.html >/dev/null
wasm=$(ls dist/*.wasm | head -1)
raw=$(stat -c %s "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
log "app built: $(basename "$wasm") $((raw / 1024)) KiB raw, $((gz / 1024)) KiB gzip"
