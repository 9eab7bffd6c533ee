#!/usr/bin/env bash
# `make check`: everything that needs no cluster and no browser, in a few
# minutes on two cores: formatting, the docs and size checks, clippy (native
# and wasm32, warnings are errors), the house's rules, and the native unit
# and integration tests against the crates' own fakes. `make test` runs this
# first, then the tests against the real cluster in real Chromium; `make e2e
# FILE=…` runs one end-to-end file against a test cluster kept running.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"
started=$SECONDS
step() { log "── $* ──"; }

step "rustfmt"
cargo fmt --all --check

step "docs/ARCHITECTURE.md names only paths, modules and names that exist"
python3 "$HACK_DIR/check-docs.py"

step "no room too big: no Rust file over 500 lines in any crate, no function in src/ or the launcher over 80 lines (and clippy: none over 80 lines of code anywhere)"
python3 "$HACK_DIR/check-size.py"

step "clippy (native and wasm32, warnings are errors)"
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p kubeglass -p kubeglass-web --all-targets --quiet -- -D warnings

step "pages subscribe through kube/ only, and the browser's glue stays in src/platform/"
if grep -rnE 'InformerOptions|kubeglass_client::cache|kubeglass_web' src/pages; then
  die "a page builds informer options or calls the browser crate itself: use kube.subscribe(…) and crate::platform"
fi
if grep -rlE 'web_sys|js_sys|wasm_bindgen' src | grep -v '^src/platform/'; then
  die "only src/platform/ may name web_sys, js_sys or wasm_bindgen"
fi

step "one list of Chromium flags: crates/web/webdriver.json starts it as e2e/chromium.json says"
python3 - "$REPO_ROOT" <<'PY' || die "crates/web/webdriver.json and e2e/chromium.json disagree (binary or flags)"
import json, sys
root = sys.argv[1]
spec = json.load(open(f"{root}/e2e/chromium.json"))
driver = json.load(open(f"{root}/crates/web/webdriver.json"))["goog:chromeOptions"]
missing = [f for f in spec["flags"] if f not in driver["args"]]
if driver["binary"] != spec["binary"] or missing:
    print("webdriver.json lacks", missing or spec["binary"], file=sys.stderr)
    sys.exit(1)
PY

step "the client and kubectl crates depend on no browser or runtime crate"
if cargo tree -p kubeglass-client -p kubeglass-kubectl -e normal --target wasm32-unknown-unknown --prefix none \
  | grep -E '^(web-sys|wasm-bindgen|js-sys|gloo[a-z-]*|tokio) v'; then
  die "kubeglass-client and kubeglass-kubectl must not depend on the crates listed above"
fi

step "native tests (the crates' fakes, no cluster)"
# kubeglass-web's tests run in a browser, kubeglass-native's against the
# real cluster (ignored here), closed_stdout needs the built app: make test's.
cargo test --workspace --exclude kubeglass-web --quiet

log "make check passed in $((SECONDS - started))s"
