#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
# kwok and metrics-server from the pinned Go modules in hack/cluster, hack/kwok
# and hack/metrics-server, into cache directories outside the repo keyed by
# version. Idempotent: a second run with the binaries in place returns at once.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok)

missing=()
for b in "${BINARIES[@]}"; do
  [[ -x "$CLUSTER_BIN/$b" ]] || missing+=("$b")
done
[[ -f "$CLUSTER_BIN/kwok-stages.yaml" ]] || missing+=(kwok-stages.yaml)
grep -qs 'name: clusterportforwards.kwok.x-k8s.io' "$CLUSTER_BIN/kwok-crds.yaml" || missing+=(kwok-crds.yaml)
[[ -f "$CLUSTER_BIN/kwok-metrics.yaml" ]] || missing+=(kwok-metrics.yaml)
[[ -x "$METRICS_SERVER_BIN" ]] || missing+=(metrics-server)
if ((${#missing[@]} == 0)); then
  log "control plane $KUBE_VERSION (etcd $ETCD_VERSION, kwok $KWOK_VERSION) cached in $CLUSTER_BIN, metrics-server $METRICS_SERVER_VERSION in $(dirname "$METRICS_SERVER_BIN")"
  exit 0
fi

command -v go >/dev/null || die "go is not installed"
mkdir -p "$CLUSTER_BIN" "$(dirname "$METRICS_SERVER_BIN")"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

major=${KUBE_VERSION#v}; major=${major%%.*}
minor=${KUBE_VERSION#v*.}; minor=${minor%%.*}
# Stamp the version the way the Kubernetes release build does, so /version
# reports the real gitVersion instead of v0.0.0-master.
kube_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kube_ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  kube_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

build() { # build NAME MODULE_DIR PACKAGE LDFLAGS [OUTPUT]
  local name=$1 dir=$2 pkg=$3 ldflags=$4 out=${5:-$CLUSTER_BIN/$1} start=$SECONDS
  if [[ -x "$out" ]]; then return; fi
  log "building $name ($pkg) — the first build of the control plane takes many minutes on 2 cores"
  (cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg")
  mv "$out.tmp" "$out"
  log "built $name in $((SECONDS - start))s"
}

log "downloading Go modules (cached in $(go env GOMODCACHE))"
(cd "$HACK_DIR/cluster" && go mod download)
(cd "$HACK_DIR/kwok" && go mod download)
(cd "$HACK_DIR/metrics-server" && go mod download)

build etcd "$HACK_DIR/cluster" go.etcd.io/etcd/server/v3 "-s -w"
build kube-apiserver "$HACK_DIR/cluster" k8s.io/kubernetes/cmd/kube-apiserver "$kube_ldflags"
build kubectl "$HACK_DIR/cluster" k8s.io/kubernetes/cmd/kubectl "$kube_ldflags"
build kube-controller-manager "$HACK_DIR/cluster" k8s.io/kubernetes/cmd/kube-controller-manager "$kube_ldflags"
build kube-scheduler "$HACK_DIR/cluster" k8s.io/kubernetes/cmd/kube-scheduler "$kube_ldflags"
build kwok "$HACK_DIR/kwok" sigs.k8s.io/kwok/cmd/kwok "-s -w"
# metrics-server's own release build stamps client-go's version the same way.
build metrics-server "$HACK_DIR/metrics-server" sigs.k8s.io/metrics-server/cmd/metrics-server \
  "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$METRICS_SERVER_VERSION -X k8s.io/client-go/pkg/version.buildDate=1970-01-01T00:00:00Z" \
  "$METRICS_SERVER_BIN"

# kwok's stage definitions ship in its module; gather the ones the cluster uses
# (fast node start, lease heartbeats, the general pod lifecycle, and the opt-in
# "container fails" chaos stage) into one config file next to the binary.
if [[ ! -f "$CLUSTER_BIN/kwok-stages.yaml" ]]; then
  kwok_src=$(cd "$HACK_DIR/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  stages="$kwok_src/kustomize/stage"
  {
    for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
             pod/general/pod-create.yaml pod/general/pod-init-container-running.yaml \
             pod/general/pod-init-container-completed.yaml pod/general/pod-ready.yaml \
             pod/general/pod-complete.yaml pod/general/pod-delete.yaml \
             pod/chaos/pod-container-running-failed.yaml; do
      echo "---"
      cat "$stages/$f"
    done
  } > "$CLUSTER_BIN/kwok-stages.yaml.tmp"
  mv "$CLUSTER_BIN/kwok-stages.yaml.tmp" "$CLUSTER_BIN/kwok-stages.yaml"
fi

# The CRDs of kwok's kubelet-API resources the cluster uses: Logs and
# ClusterLogs, which tell kwok's server which file holds a container's log,
# and ClusterExec, which tells it how to run a command "in" a container
# (hack/cluster.sh: as nobody, in a folder of its own on this machine),
# and ClusterPortForward, which tells it where a pod's port leads (a small
# HTTP server of the cluster's). Made again when an older cache lacks them.
if ! grep -qs 'name: clusterportforwards.kwok.x-k8s.io' "$CLUSTER_BIN/kwok-crds.yaml"; then
  kwok_src=$(cd "$HACK_DIR/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  {
    for f in kwok.x-k8s.io_logs.yaml kwok.x-k8s.io_clusterlogs.yaml kwok.x-k8s.io_clusterexecs.yaml kwok.x-k8s.io_clusterportforwards.yaml; do
      echo "---"
      cat "$kwok_src/kustomize/crd/bases/$f"
    done
  } > "$CLUSTER_BIN/kwok-crds.yaml.tmp"
  mv "$CLUSTER_BIN/kwok-crds.yaml.tmp" "$CLUSTER_BIN/kwok-crds.yaml"
fi

# kwok's simulated kubelet /metrics/resource endpoint, which metrics-server
# scrapes: the Metric resource (the path the nodes' annotation
# metrics.k8s.io/resource-metrics-path names) and the ClusterResourceUsage
# that reads each pod's usage from its annotations kwok.x-k8s.io/usage-cpu
# and kwok.x-k8s.io/usage-memory (1m and 1Mi a container without them).
if [[ ! -f "$CLUSTER_BIN/kwok-metrics.yaml" ]]; then
  kwok_src=$(cd "$HACK_DIR/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  {
    for f in resource/metrics-resource.yaml usage/usage-from-annotation.yaml; do
      echo "---"
      cat "$kwok_src/kustomize/metrics/$f"
    done
  } > "$CLUSTER_BIN/kwok-metrics.yaml.tmp"
  mv "$CLUSTER_BIN/kwok-metrics.yaml.tmp" "$CLUSTER_BIN/kwok-metrics.yaml"
fi

log "control plane ready in $CLUSTER_BIN, metrics-server in $(dirname "$METRICS_SERVER_BIN")"
