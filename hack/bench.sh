#!/usr/bin/env bash
# `make bench`: measurements, printed (docs/benchmarks.md records them). Nothing
# here asserts anything about time.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"
bash "$HACK_DIR/bootstrap.sh"

log "work queue throughput, native (release build)"
cargo run --quiet --release -p kubeglass-bench --bin queue

log "work queue throughput, headless Chromium (release build)"
(
  cd crates/web
  CHROMEDRIVER=/usr/bin/chromedriver \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    cargo test --release --target wasm32-unknown-unknown -p kubeglass-web --test bench_queue -- --nocapture 2>&1 \
    | grep -E 'browser queue|test result'
)

log "informer ingest: client-go vs kubeglass natively and in Chromium (starts the test cluster)"
bash "$HACK_DIR/bench-informer.sh"

log "wasm size with and without wasm-opt"
bash "$HACK_DIR/wasm-size.sh"
