#!/usr/bin/env bash
# Slow churn for the demo: a Deployment scaled up and down, a ConfigMap updated,
# and the crash-looping pod replaced now and then. Runs until killed.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

say() { printf '\033[2m[%s churn]\033[0m %s\n' "$(date +%H:%M:%S)" "$*"; }
# A bare pod whose container kwok fails a second or two after it starts
# (kwok's opt-in "container running failed" stage); recreated every minute.
flaky_pod() {
  kc -n demo-shop delete pod flaky-worker --ignore-not-found --wait=true --timeout=20s >/dev/null 2>&1
  kc apply -f - >/dev/null <<'YAML' && say "started demo-shop/flaky-worker again (it fails within seconds)"
apiVersion: v1
kind: Pod
metadata:
  name: flaky-worker
  namespace: demo-shop
  labels: {app: flaky-worker, kubeglass.dev/logs: failing, "pod-container-running-failed.stage.kwok.x-k8s.io": "true"}
  annotations:
    "pod-container-running-failed.stage.kwok.x-k8s.io/reason": "Error"
    "pod-container-running-failed.stage.kwok.x-k8s.io/message": "model file /models/latest.bin not found"
spec:
  restartPolicy: Never
  containers:
  - {name: worker, image: "registry.example/shop/flaky-worker:0.1.0"}
YAML
}

flaky_pod
# Wait in the background so a TERM ends the loop at once, sleep included.
nap=""
trap '[[ -n $nap ]] && kill "$nap" 2>/dev/null; exit 0' TERM INT
tick=0
while true; do
  sleep 15 &
  nap=$!
  wait "$nap"
  tick=$((tick + 1))
  case $((tick % 4)) in
    1) kc -n demo-shop scale deployment/frontend --replicas=5 >/dev/null && say "scaled demo-shop/frontend to 5" ;;
    3) kc -n demo-shop scale deployment/frontend --replicas=3 >/dev/null && say "scaled demo-shop/frontend to 3" ;;
  esac
  kc -n demo-shop patch configmap feature-flags --type merge \
    -p "{\"data\":{\"banner\":\"Welcome (updated $(date +%H:%M:%S))\"}}" >/dev/null \
    && say "updated demo-shop/feature-flags"
  if ((tick % 4 == 2)); then
    flaky_pod
  fi
done
