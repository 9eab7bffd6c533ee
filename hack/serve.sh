#!/usr/bin/env bash
# `make serve`: builds the app and serves it with `kubectl proxy --www` against
# your current kubeconfig context (no local cluster).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$HACK_DIR/bootstrap.sh"
bash "$HACK_DIR/build-app.sh"
KUBECTL=${KUBECTL:-$(command -v kubectl || echo "$CLUSTER_BIN/kubectl")}
token=$(new_token)
mapfile -t args < <(proxy_args "$token" "$REPO_ROOT/dist")
log "serving http://127.0.0.1:$PROXY_PORT/$token/ui/ for context $("$KUBECTL" config current-context)"
exec "$KUBECTL" proxy --port "$PROXY_PORT" "${args[@]}"
