#!/usr/bin/env bash
# `make serve`: builds the app and the kubectl-glass launcher with it inside,
# and runs the launcher for your current kubeconfig context (no local
# cluster): kubectl proxy on its private socket, the URL printed, the browser
# opened. Flags after `--` go to the launcher: `make serve ARGS="--context c"`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$HACK_DIR/bootstrap.sh"
bash "$HACK_DIR/build-app.sh"
log "building the kubectl-glass launcher with the app inside"
cargo build -p kubectl-glass --quiet --manifest-path "$REPO_ROOT/Cargo.toml"
KUBECTL=${KUBECTL:-$(command -v kubectl || echo "$CLUSTER_BIN/kubectl")}
# shellcheck disable=SC2086 # ARGS is split into the launcher's flags on purpose
exec "$REPO_ROOT/target/debug/kubectl-glass" --kubectl "$KUBECTL" ${ARGS:-}
