#!/usr/bin/env bash
# `make serve`: builds the app and serves it with `kubectl proxy --www` against
# your current kubeconfig context (no local cluster).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$HACK_DIR/bootstrap.sh"
bash "$HACK_DIR/build-app.sh"
KUBECTL=${KUBECTL:-$(command -v kubectl || echo "$CLUSTER_BIN/kubectl")}
log "serving http://127.0.0.1:$PROXY_PORT/ui/ for context $("$KUBECTL" config current-context)"
exec "$KUBECTL" proxy --address 127.0.0.1 --port "$PROXY_PORT" --www "$REPO_ROOT/dist" --www-prefix /ui/
