# Sourced by hack/test.sh (`make test`) and hack/e2e.sh (`make e2e`): the
# test cluster's ports and folder, starting it with the kubectl proxies and
# the test control the tests use, and running end-to-end test files against
# it. Source hack/lib.sh first.

# A cluster of its own, so a running `make demo` is not disturbed.
export KUBEGLASS_CLUSTER_DIR="${KUBEGLASS_TEST_CLUSTER_DIR:-$KUBEGLASS_CACHE/test-cluster}"
export ETCD_PORT=33790 ETCD_PEER_PORT=33800 APISERVER_PORT=26443 KWOK_PORT=20247 METRICS_SERVER_PORT=20251 DEMO_HTTP_PORT=20280
TEST_PROXY_PORT=18001
RESTRICTED_PROXY_PORT=18002
FAULT_PROXY_PORT=18003   # owned by hack/test-control.py, killed and restarted by tests
CONTROL_PORT=18009
source "$HACK_DIR/lib.sh"

# start_test_env SECRETS [DETACH]: a fresh test cluster with the demo
# workload, the admin and restricted proxies and the fault control, each
# answering under a token of its own (kuberc files in SECRETS, a folder only
# we can enter); their pids are added to `children`, and the tests' URLs
# exported. DETACH (`setsid`) starts them in a session of their own, so they
# outlive the caller (`make e2e` keeps them for the next run).
start_test_env() {
  local secrets=$1 detach=${2:-}
  step "local cluster (etcd, kube-apiserver, controller-manager, scheduler, kwok)"
  bash "$HACK_DIR/cluster.sh" reset >/dev/null
  bash "$HACK_DIR/cluster.sh" up
  bash "$HACK_DIR/demo-workload.sh"
  # The cluster's keys, tokens and logs are the person's alone.
  open_to_others=$(find "$CLUSTER_DIR" -perm /077 -printf '%m %p\n' | head -5)
  [[ -z "$open_to_others" ]] || die "the cluster folder has files others may read: $open_to_others"

  step "kubectl proxy for the integration tests: admin on :$TEST_PROXY_PORT, restricted on :$RESTRICTED_PROXY_PORT (capability URLs)"
  # Each proxy, and the test control, answers only under a token of its own,
  # and no token is on a command line (every local user can read those): each
  # proxy's is in a kuberc file of its own (hack/lib.sh, proxy_args), the test
  # control's two are in its environment.
  admin_token=$(new_token) restricted_token=$(new_token) fault_token=$(new_token) control_token=$(new_token)
  mapfile -t admin_args < <(proxy_args "$admin_token" "$secrets/admin.kuberc")
  mapfile -t restricted_args < <(proxy_args "$restricted_token" "$secrets/restricted.kuberc")
  $detach "$CLUSTER_BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" proxy --port "$TEST_PROXY_PORT" "${admin_args[@]}" \
    >"$CLUSTER_DIR/logs/test-proxy.log" 2>&1 &
  children+=($!)
  $detach "$CLUSTER_BIN/kubectl" --kubeconfig "$RESTRICTED_KUBECONFIG" proxy --port "$RESTRICTED_PROXY_PORT" "${restricted_args[@]}" \
    >"$CLUSTER_DIR/logs/test-proxy-restricted.log" 2>&1 &
  children+=($!)
  wait_for "kubectl proxy" 30 http_ok "http://127.0.0.1:$TEST_PROXY_PORT/$admin_token/version"
  wait_for "the restricted kubectl proxy" 30 http_ok "http://127.0.0.1:$RESTRICTED_PROXY_PORT/$restricted_token/version"
  step "fault control for the informer tests: a proxy on :$FAULT_PROXY_PORT they may kill, etcd compaction (:$CONTROL_PORT)"
  KUBEGLASS_CONTROL_TOKEN="$control_token" KUBEGLASS_FAULT_PROXY_TOKEN="$fault_token" \
  $detach python3 "$HACK_DIR/test-control.py" --port "$CONTROL_PORT" \
    --proxy-port "$FAULT_PROXY_PORT" --reject-paths "$REJECT_PATHS" \
    --kubectl "$CLUSTER_BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" \
    --etcd "https://127.0.0.1:$ETCD_PORT" --etcd-ca "$CLUSTER_DIR/pki/ca.crt" \
    --etcd-cert "$CLUSTER_DIR/pki/etcd-client.crt" --etcd-key "$CLUSTER_DIR/pki/etcd-client.key" \
    --log "$CLUSTER_DIR/logs/test-control.log" &
  children+=($!)
  wait_for "the test control" 30 http_ok "http://127.0.0.1:$CONTROL_PORT/$control_token/healthz"
  # The tokens as a pattern file for grep, so grep's own command line holds none.
  # (Its status is 2 when a process ends while it reads, match or not: judge
  # by what it printed.)
  token_patterns() { printf '%s\n' "$admin_token" "$restricted_token" "$fault_token" "$control_token"; }
  on_argv=$(grep -lFf <(token_patterns) /proc/[0-9]*/cmdline 2>/dev/null || true)
  [[ -z "$on_argv" ]] || die "a capability token is on the command line of: $(echo $on_argv)"
  export KUBEGLASS_TEST_FAULT_PROXY="http://127.0.0.1:$FAULT_PROXY_PORT/$fault_token"
  export KUBEGLASS_TEST_CONTROL="http://127.0.0.1:$CONTROL_PORT/$control_token"
  export KUBEGLASS_TEST_PROXY="http://127.0.0.1:$TEST_PROXY_PORT/$admin_token"
  export KUBEGLASS_TEST_RESTRICTED_PROXY="http://127.0.0.1:$RESTRICTED_PROXY_PORT/$restricted_token"
}

# run_e2e FILE_OR_FLAG…: the end-to-end tests named (node --test arguments:
# files, folders, --test-name-pattern=…) against the running test cluster,
# with the launcher at $GLASS.
run_e2e() {
  RELEASE_ARCHIVE="${RELEASE_ARCHIVE:-}"
  (
    cd e2e
    KUBECTL="$CLUSTER_BIN/kubectl" KUBECONFIG="$ADMIN_KUBECONFIG" \
    RESTRICTED_KUBECONFIG="$RESTRICTED_KUBECONFIG" DIST="$REPO_ROOT/dist" \
    KUBE_VERSION="$KUBE_VERSION" GLASS="$GLASS" \
    KREW="$KREW_BIN" KUBEGLASS_RELEASE="$RELEASE_ARCHIVE" KUBEGLASS_MANIFEST="$REPO_ROOT/plugins/glass.yaml" \
    ETCD_URL="https://127.0.0.1:$ETCD_PORT" ETCD_PKI="$CLUSTER_DIR/pki" \
    APISERVER_URL="https://127.0.0.1:$APISERVER_PORT" \
    KWOK_URL="http://127.0.0.1:$KWOK_PORT" CONTROL_URL="http://127.0.0.1:$CONTROL_PORT" \
      node --test --test-concurrency=1 --test-reporter=spec "$@"
  )
}
