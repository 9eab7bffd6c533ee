#!/usr/bin/env bash
# `make bench-app`: the app's own measurements in headless Chromium against
# the demo cluster (start it with `make demo` or `bash hack/cluster.sh up &&
# bash hack/demo-workload.sh`), printed; docs/benchmarks.md records them.
# Nothing here asserts anything about time.
#
#   cold start of the first page  e2e/bench/cold.mjs (5 fresh profiles each)
#   the event stream              e2e/bench/events.mjs, 10,000 events
#   a table of N pods             e2e/bench/ui.mjs: first rows, full sync, the
#                                 Table LIST's floor, scrolling, frames under
#                                 ~200 changes/s, memory per row
#   warm start against cold       e2e/bench/warm.mjs, right after each table:
#                                 the namespace's table from a link in a
#                                 fresh profile, nothing saved, then saved
#                                 (first row, full count, confirmed; LISTs)
#   k9s on the same pods          e2e/bench/k9s.mjs, right after each table:
#                                 k9s (hack/build-k9s.sh pins it) in a
#                                 pseudo-terminal, all namespaces, pods view:
#                                 time to the full count, RSS, CPU quiet and
#                                 under ~200 changes/s (BENCH_K9S=0 skips it);
#                                 beside it the app's table shows every
#                                 namespace (BENCH_ALL=0: the namespace's)
#   side by side                  hack/bench-side.py: one table of both at
#                                 each size, from their lines of JSON
#
# BENCH_PODS="10000 20000" picks the tables' sizes (default 10000);
# BENCH_ALL=1 measures the all-namespaces table (with 150000, SIG
# Scalability's limit: expect ~10 minutes to create the pods on two cores,
# and reset the demo cluster afterwards, `make cluster-reset`). The
# namespaces the benches create are deleted unless BENCH_KEEP=1.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"

kc get --raw /version >/dev/null 2>&1 \
  || die "the demo cluster is not up: run \`make demo\` (or hack/cluster.sh up) first"

log "building the app (release, wasm-opt) and the launcher with it inside"
bash "$HACK_DIR/build-app.sh"
cargo build -p kubectl-glass --quiet
# The peer, from its pinned module (cached after the first build).
if [[ ${BENCH_K9S:-1} != 0 ]]; then
  K9S=$(bash "$HACK_DIR/build-k9s.sh")
  export K9S
fi

# A launcher of its own, on a port of its own, so a running `make demo` is
# not disturbed; its URL is the first line it prints.
port=${BENCH_PORT:-19490}
out=$(mktemp)
"$REPO_ROOT/target/debug/kubectl-glass" --kubectl "$CLUSTER_BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" \
  --port "$port" --no-open >"$out" 2>&1 &
glass=$!
results=$(mktemp)
trap 'kill "$glass" 2>/dev/null || true; rm -f "$out" "$results"' EXIT
K9S_ON=
[[ ${BENCH_K9S:-1} != 0 && ${BENCH_RESOURCE:-pods} == pods ]] && K9S_ON=1
for _ in $(seq 1 100); do
  grep -q "\.localhost:$port/" "$out" && break
  kill -0 "$glass" 2>/dev/null || { cat "$out" >&2; die "kubectl-glass stopped"; }
  sleep 0.1
done
app=$(grep -o "http://[0-9a-f]*\.localhost:$port/[^ ]*/ui/" "$out" | head -1)
[[ -n "$app" ]] || { cat "$out" >&2; die "kubectl-glass printed no URL"; }
# (The benches' own requests go to 127.0.0.1, as any program's do: Node
# does not resolve the run's <name>.localhost; e2e/lib.mjs's nodeBase.)
api=${app%ui/}
api=${api%/}

export CHROMIUM="${CHROMIUM:-$(command -v chromium)}"
cd e2e
log "cold start of the first page"
node bench/cold.mjs "$app"
# The event stream first: a pod table's namespace is deleted as its bench
# ends, and kwok terminating thousands of pods would share the two cores
# with the next measurement.
log "the event stream with 10,000 events"
node bench/events.mjs "$api" 10000
for n in ${BENCH_PODS:-10000}; do
  log "a table of $n pods${BENCH_ALL:+ (all namespaces)}"
  # The table's pods stay for k9s, which measures the same cluster next
  # (every pod in it, as the all-namespaces table shows them), and go after.
  # Beside k9s, which shows every namespace's pods, the app's table shows
  # every namespace's too (BENCH_ALL=0 keeps the namespace's).
  all=${BENCH_ALL:-}
  [[ -n $K9S_ON ]] && all=${BENCH_ALL:-1}
  [[ $all == 0 ]] && all=
  BENCH_ALL=$all BENCH_KEEP=1 node bench/ui.mjs "$api" "$n" | tee -a "$results"
  if [[ ${BENCH_RESOURCE:-pods} == pods && -z ${BENCH_ALL:-} ]]; then
    log "warm start against cold: the table of $n pods from a link"
    KUBECTL="$CLUSTER_BIN/kubectl" KUBECONFIG="$ADMIN_KUBECONFIG" node bench/warm.mjs "$api" "$n"
  fi
  if [[ -n $K9S_ON ]]; then
    log "k9s on the same cluster: all namespaces, the pods view"
    K9S_KUBECONFIG="$ADMIN_KUBECONFIG" node bench/k9s.mjs "$api" "$n" | tee -a "$results"
  fi
  if [[ ${BENCH_KEEP:-} != 1 ]]; then
    ns=bench-ui; [[ ${BENCH_RESOURCE:-pods} == pods ]] || ns=bench-ui-cm
    kc delete namespace "$ns" --wait=false >/dev/null
    log "namespace $ns deleted"
  fi
done
if [[ -n $K9S_ON ]]; then
  log "Kubeglass and k9s side by side (hack/bench-side.py)"
  python3 "$HACK_DIR/bench-side.py" "$results"
fi
