#!/usr/bin/env bash
# Applies the demo workload to the running local cluster: five kwok nodes,
# namespaces, Deployments, a StatefulSet, a CronJob, a CRD with printer
# columns and a dozen instances. Idempotent.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

kc apply -f "$HACK_DIR/demo/nodes.yaml" >/dev/null
kc apply -f "$HACK_DIR/demo/crd.yaml" >/dev/null
kc wait --for=condition=Established crd/databases.demo.kubeglass.dev --timeout=60s >/dev/null
kc apply -f "$HACK_DIR/demo/workload.yaml" >/dev/null
kc apply -f "$HACK_DIR/demo/databases.yaml" >/dev/null
log "demo workload applied: $(kc get nodes --no-headers | wc -l) nodes, $(kc get databases -A --no-headers | wc -l) databases"
