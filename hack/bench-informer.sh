#!/usr/bin/env bash
# Informer ingest, side by side: client-go (bench/informer-go), kubeglass
# natively and kubeglass in headless Chromium, against the same apiserver in
# the same run. Starts the test cluster (own ports and directory), seeds
# ConfigMaps of ~1 KiB and ~8 KiB, prints JSON lines and a summary table with
# ratios to client-go. Measures; asserts nothing about time.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

export KUBEGLASS_CLUSTER_DIR="${KUBEGLASS_TEST_CLUSTER_DIR:-$KUBEGLASS_CACHE/test-cluster}"
export ETCD_PORT=33790 ETCD_PEER_PORT=33800 APISERVER_PORT=26443 KWOK_PORT=20247 METRICS_SERVER_PORT=20251
BENCH_PROXY_PORT=18001
source "$HACK_DIR/lib.sh"
cd "$REPO_ROOT"

COUNT_1K="${BENCH_COUNT_1K:-10000}"
COUNT_8K="${BENCH_COUNT_8K:-2000}"
RUNS="${BENCH_RUNS:-5}"

children=()
# The proxy's kuberc file (its token), in a folder only we can enter.
secrets=$(mktemp -d "${TMPDIR:-/tmp}/kubeglass-bench.XXXXXX")
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for pid in "${children[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$secrets"
  bash "$HACK_DIR/cluster.sh" down >/dev/null 2>&1 || true
  exit $rc
}
trap cleanup EXIT INT TERM

log "building the client-go baseline (bench/informer-go)"
GO_BENCH="$KUBEGLASS_CACHE/bin/informer-go"
(cd bench/informer-go && go build -o "$GO_BENCH" .)
log "building the native benchmark"
cargo build --quiet --release -p kubeglass-bench --bin informer

bash "$HACK_DIR/cluster.sh" reset >/dev/null
bash "$HACK_DIR/cluster.sh" up
bench_token=$(new_token)
mapfile -t bench_args < <(proxy_args "$bench_token" "$secrets/bench.kuberc")
"$CLUSTER_BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" proxy --port "$BENCH_PROXY_PORT" "${bench_args[@]}" \
  >"$CLUSTER_DIR/logs/bench-proxy.log" 2>&1 &
children+=($!)
SERVER="http://127.0.0.1:$BENCH_PROXY_PORT/$bench_token"
wait_for "kubectl proxy" 30 http_ok "$SERVER/version"
# Both programs take the URL (its token) from here, not from their command line.
export KUBEGLASS_BENCH_SERVER="$SERVER"

"$GO_BENCH" seed -namespace bench-1k -count "$COUNT_1K" -size 1024
"$GO_BENCH" seed -namespace bench-8k -count "$COUNT_8K" -size 8192

out="$CLUSTER_DIR/logs/bench-informer.jsonl"
: >"$out"
for ns in bench-1k bench-8k; do
  for mode in list watchlist; do
    log "$ns $mode: client-go"
    "$GO_BENCH" ingest -namespace "$ns" -mode "$mode" -runs "$RUNS" 2>/dev/null \
      | sed "s/^/$ns /" | tee -a "$out"
    log "$ns $mode: client-go with protobuf (what kube-controller-manager speaks)"
    "$GO_BENCH" ingest -namespace "$ns" -mode "$mode" -runs "$RUNS" -protobuf 2>/dev/null \
      | sed "s/^/$ns /" | tee -a "$out"
    log "$ns $mode: kubeglass native"
    ./target/release/informer --namespace "$ns" --mode "$mode" --runs "$RUNS" \
      | sed "s/^/$ns /" | tee -a "$out"
  done
  log "$ns list: kubeglass native with the DeltaFIFO instead of the in-order queue"
  ./target/release/informer --namespace "$ns" --mode list --queue delta --runs "$RUNS" \
    | sed "s/^/$ns /" | tee -a "$out"
done

log "kubeglass in headless Chromium (list over fetch, streaming list over WebSocket)"
(
  cd crates/web
  KUBEGLASS_BENCH_PROXY="$SERVER" KUBEGLASS_BENCH_NAMESPACES=bench-1k,bench-8k \
  CHROMEDRIVER=/usr/bin/chromedriver \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  WASM_BINDGEN_TEST_TIMEOUT=900 \
    cargo test --release --target wasm32-unknown-unknown -p kubeglass-web \
      --test bench_informer -- --nocapture 2>&1 | grep -E '^bench-' | tee -a "$out"
)

log "summary (medians; ratio = client-go time / this time, >1 is faster than client-go)"
python3 "$HACK_DIR/bench-summary.py" "$out"
