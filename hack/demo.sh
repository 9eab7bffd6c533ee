#!/usr/bin/env bash
# `make demo`: installs what is missing and builds the control plane, side by
# side; builds the app; starts the cluster, the demo workload, a slow churn and
# kubectl proxy, prints the URL and stays in the foreground. Ctrl-C stops
# everything it started.
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

log "starting kubectl proxy on 127.0.0.1:$PROXY_PORT under a fresh capability token"
token=$(new_token)
mapfile -t args < <(proxy_args "$token" "$REPO_ROOT/dist")
# Process substitution, not a pipe, so that $! is kubectl's own pid.
"$CLUSTER_BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" proxy --port "$PROXY_PORT" "${args[@]}" \
  > >(sed -u 's/^/[proxy] /') 2>&1 &
children+=($!)
wait_for "kubectl proxy" 30 curl -sf "http://127.0.0.1:$PROXY_PORT/$token/version"

cat <<MSG

  Kubeglass is running:  http://127.0.0.1:$PROXY_PORT/$token/ui/
  (the token in the URL is the key: any page without it gets 404)

  kubectl against the demo cluster:
    export KUBECONFIG=$ADMIN_KUBECONFIG
  Component logs: $CLUSTER_DIR/logs/     Press Ctrl-C to stop everything.

MSG
wait
