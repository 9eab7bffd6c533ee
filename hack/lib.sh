# Shared settings for the hack/ scripts. Source it; do not run it.
# shellcheck shell=bash

# Pinned versions. The Go module files in hack/cluster and hack/kwok pin the
# same versions; change them together.
KUBE_VERSION=v1.37.2
ETCD_VERSION=v3.7.0
KWOK_VERSION=v0.8.0

HACK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HACK_DIR/.." && pwd)"

# Everything built or downloaded lives outside the repo, keyed by version, so a
# fresh clone reuses it and a version bump rebuilds.
KUBEGLASS_CACHE="${KUBEGLASS_CACHE:-$HOME/.cache/kubeglass}"
BINARYEN_VERSION=132.0.0
# wasm_split_cli_support, whose wasm-split-cli cuts the wasm by page; its
# format matches wasm_split_helpers 0.2.3 in Cargo.lock (through Leptos).
WASM_SPLIT_VERSION=0.2.4
WASM_OPT="$KUBEGLASS_CACHE/binaryen/node_modules/.bin/wasm-opt"
CLUSTER_BIN="$KUBEGLASS_CACHE/bin/kube-$KUBE_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION"
# metrics-server, for metrics.k8s.io (kubectl top): built by
# hack/build-cluster.sh from the module pinned in hack/metrics-server/go.mod
# (the same version; change them together).
METRICS_SERVER_VERSION=v0.8.0
METRICS_SERVER_BIN="$KUBEGLASS_CACHE/bin/metrics-server-$METRICS_SERVER_VERSION/metrics-server"
# krew, for the release test (hack/build-krew.sh).
KREW_VERSION=v0.4.3
KREW_BIN="$KUBEGLASS_CACHE/bin/krew-$KREW_VERSION/krew"

# Runtime state of the local cluster (data, certificates, logs, kubeconfigs).
CLUSTER_DIR="${KUBEGLASS_CLUSTER_DIR:-$KUBEGLASS_CACHE/cluster}"
ADMIN_KUBECONFIG="$CLUSTER_DIR/admin.kubeconfig"
RESTRICTED_KUBECONFIG="$CLUSTER_DIR/restricted.kubeconfig"

# Ports, all on 127.0.0.1.
ETCD_PORT="${ETCD_PORT:-23790}"
ETCD_PEER_PORT="${ETCD_PEER_PORT:-23800}"
APISERVER_PORT="${APISERVER_PORT:-16443}"
PROXY_PORT="${PROXY_PORT:-8001}"
KWOK_PORT="${KWOK_PORT:-10247}"
METRICS_SERVER_PORT="${METRICS_SERVER_PORT:-10251}"
# The small HTTP server every pod's ports lead to through kwok's port-forward.
DEMO_HTTP_PORT="${DEMO_HTTP_PORT:-10280}"

# kubectl proxy as every script here runs it (docs/kubectl-proxy.md says why):
# the API and the app under a random capability token, so a page that lacks
# it gets 404 on every path; on 127.0.0.1 with the default --accept-hosts;
# and the default reject-paths (exec, attach) extended to port-forward and
# the proxy subresource of pods, services and nodes.
# One list, in hack/reject-paths (one regular expression per line), read here,
# by e2e/lib.mjs and by the kubectl-glass launcher.
REJECT_PATHS=$(paste -sd, "$HACK_DIR/reject-paths")

# new_token: 128 random bits in hex. Hex never starts with "api", which
# kubectl proxy would not strip as a prefix.
new_token() { openssl rand -hex 16; }

# proxy_args TOKEN KUBERC [WWW_DIR]: the flags above for `kubectl proxy`,
# the token not among them. A command line is readable by every local user
# (`ps`, /proc/PID/cmdline), and kubectl takes --api-prefix and --www-prefix
# from flags or, since 1.33, as defaults from a kuberc preferences file; so
# this writes the two prefixes into KUBERC (mode 0600; put it in a folder
# only you can enter, e.g. from `mktemp -d`) and the flags name that file.
# --kuberc fails closed: with kuberc turned off (KUBERC=off,
# KUBECTL_KUBERC=false), or the file missing or unreadable, kubectl exits
# instead of serving without the token.
proxy_args() {
  local token=$1 kuberc=$2 www=${3:-}
  (
    umask 077
    rm -f "$kuberc"
    {
      printf '%s\n' 'apiVersion: kubectl.config.k8s.io/v1beta1' 'kind: Preference' 'defaults:' \
        '- command: proxy' '  options:' '  - name: api-prefix' "    default: \"/$token/\""
      if [[ -n "$www" ]]; then
        printf '%s\n' '  - name: www-prefix' "    default: \"/$token/ui/\""
      fi
    } >"$kuberc"
  )
  printf '%s\n' "--kuberc=$kuberc" --address=127.0.0.1 "--reject-paths=$REJECT_PATHS"
  if [[ -n "$www" ]]; then
    printf '%s\n' "--www=$www"
  fi
}

# http_ok URL: curl's GET of URL succeeds. The URL (a token in its path) goes
# to curl through its standard input, not its command line.
http_ok() { curl -sf -o /dev/null -K - <<<"url = \"$1\""; }

log() { printf '\033[1;34m[%s]\033[0m %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

kubectl_bin() { echo "$CLUSTER_BIN/kubectl"; }
kc() { "$CLUSTER_BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" "$@"; }

# wait_for DESCRIPTION SECONDS COMMAND... : poll until COMMAND succeeds.
wait_for() {
  local what=$1 secs=$2; shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      die "timed out after ${secs}s waiting for $what"
    fi
    sleep 0.3
  done
}

# toolchain_and_control_plane: hack/bootstrap.sh (Rust tools, Trunk,
# wasm-bindgen, wasm-opt, Chromium, npm packages) and hack/build-cluster.sh
# (etcd, kube-apiserver and friends from Go modules) side by side, each line
# tagged with its job; on a fresh machine they are the two long waits, and
# they need different things (crates vs Go modules). Fails if either fails.
toolchain_and_control_plane() {
  local t0=$SECONDS rc=0
  ( bash "$HACK_DIR/build-cluster.sh" 2>&1 | sed -u 's/^/[control plane] /'; exit "${PIPESTATUS[0]}" ) &
  local cp=$!
  ( bash "$HACK_DIR/bootstrap.sh" 2>&1 | sed -u 's/^/[toolchain] /'; exit "${PIPESTATUS[0]}" ) || rc=$?
  if (( rc != 0 )); then
    kill "$cp" 2>/dev/null || true
    wait "$cp" 2>/dev/null || true
    die "the toolchain install failed (lines tagged [toolchain] above)"
  fi
  wait "$cp" || die "the control-plane build failed (lines tagged [control plane] above)"
  log "toolchain and control plane ready in $((SECONDS - t0))s"
}
