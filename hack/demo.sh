#!/usr/bin/env bash
# `make demo`: installs what is missing and builds the control plane, side by
# side; builds the app and the kubectl-glass launcher with it inside; starts
# the cluster, the demo workload, a slow churn and the launcher (which runs
# kubectl proxy on its private socket and prints the URL), and stays in the
# foreground. Ctrl-C stops everything it started.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

children=()
cleanup() {
  trap - INT TERM EXIT
  echo
  log "stopping the demo"
  # Background jobs of a script ignore SIGINT, so each gets a TERM.
  for pid in "${children[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  bash "$HACK_DIR/cluster.sh" down
}
trap cleanup INT TERM EXIT

toolchain_and_control_plane
bash "$HACK_DIR/build-app.sh"
bash "$HACK_DIR/cluster.sh" up
bash "$HACK_DIR/demo-workload.sh"

bash "$HACK_DIR/churn.sh" &
children+=($!)

log "building the kubectl-glass launcher with the app inside"
cargo build -p kubectl-glass --quiet --manifest-path "$REPO_ROOT/Cargo.toml"

cat <<MSG

  kubectl against the demo cluster:
    export KUBECONFIG=$ADMIN_KUBECONFIG
  Component logs: $CLUSTER_DIR/logs/     Press Ctrl-C to stop everything.

MSG
# The launcher binds its port before kubectl starts and holds the token in
# memory only; it prints the URL once kubectl answers.
"$REPO_ROOT/target/debug/kubectl-glass" --kubectl "$CLUSTER_BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" \
  --port "$PROXY_PORT" --no-open &
children+=($!)
wait
