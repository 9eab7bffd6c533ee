#!/usr/bin/env bash
# Applies the demo workload to the running local cluster: five kwok nodes,
# namespaces, Deployments, a StatefulSet, a CronJob, a CRD with printer
# columns and a dozen instances. Idempotent.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
# The log writer's files live in the cluster's folder: this user's only.
umask 077

kc apply -f "$HACK_DIR/demo/nodes.yaml" >/dev/null
kc apply -f "$HACK_DIR/demo/crd.yaml" >/dev/null
kc wait --for=condition=Established crd/databases.demo.kubeglass.dev --timeout=60s >/dev/null
kc apply -f "$HACK_DIR/demo/workload.yaml" >/dev/null
kc apply -f "$HACK_DIR/demo/databases.yaml" >/dev/null
log "demo workload applied: $(kc get nodes --no-headers | wc -l) nodes, $(kc get databases -A --no-headers | wc -l) databases"

# The containers' logs: hack/demo-logs.py writes them for pods labelled
# kubeglass.dev/logs and tells kwok's kubelet API where they are.
mkdir -p "$CLUSTER_DIR/pids" "$CLUSTER_DIR/logs"
pidfile="$CLUSTER_DIR/pids/demo-logs"
if ! { [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }; then
  python3 "$HACK_DIR/demo-logs.py" --kubectl "$CLUSTER_BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" \
    --dir "$CLUSTER_DIR/pod-logs" >>"$CLUSTER_DIR/logs/demo-logs.log" 2>&1 &
  echo $! >"$pidfile"
fi
