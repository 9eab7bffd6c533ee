#!/usr/bin/env bash
# `make test`: every test. Lints (fmt, clippy with warnings as errors), native
# unit tests, in-browser tests (wasm-bindgen-test in headless Chromium against
# the real apiserver through kubectl proxy) and end-to-end tests (real
# Chromium driving the real UI against the real local cluster). Starts its own
# cluster on separate ports and directory, and stops it at the end.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# A cluster of its own, so a running `make demo` is not disturbed.
export KUBEGLASS_CLUSTER_DIR="${KUBEGLASS_TEST_CLUSTER_DIR:-$KUBEGLASS_CACHE/test-cluster}"
export ETCD_PORT=33790 ETCD_PEER_PORT=33800 APISERVER_PORT=26443 KWOK_PORT=20247 METRICS_SERVER_PORT=20251
TEST_PROXY_PORT=18001
RESTRICTED_PROXY_PORT=18002
FAULT_PROXY_PORT=18003   # owned by hack/test-control.py, killed and restarted by tests
CONTROL_PORT=18009
source "$HACK_DIR/lib.sh"

children=()
# The proxies' kuberc files (their tokens), in a folder only we can enter.
secrets=$(mktemp -d "${TMPDIR:-/tmp}/kubeglass-test.XXXXXX")
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for pid in "${children[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$secrets"
  bash "$HACK_DIR/cluster.sh" down || true
  exit $rc
}
trap cleanup EXIT INT TERM

step() { log "── $* ──"; }
# E2E_ONLY="tests/edit.test.mjs tests/rollout.test.mjs" runs only those
# end-to-end files, after the build and the cluster: no lints, no unit,
# integration or in-browser tests, no release. For checking a change; CI
# runs everything.
E2E_ONLY="${E2E_ONLY:-}"
full() { [[ -z "$E2E_ONLY" ]]; }
started=$SECONDS

# A clean run writes a few GiB under target/ (and the control plane's cache
# more on a first run); when the disk fills, the linker dies with a bare
# "Bus error" that names no cause, so say it up front.
free_kib=$(df -Pk "$REPO_ROOT" | awk 'NR == 2 { print $4 }')
if [[ -n "$free_kib" ]] && (( free_kib < 8 * 1024 * 1024 )); then
  log "warning: only $((free_kib / 1024)) MiB free on the disk holding $REPO_ROOT;" \
    "a clean \`make test\` needs about 8 GiB, and a full disk shows up as a linker 'Bus error'"
fi

step "toolchain and control plane, side by side"
toolchain_and_control_plane
cd "$REPO_ROOT"

if full; then
step "rustfmt"
cargo fmt --all --check

step "docs/ARCHITECTURE.md names only paths, modules and names that exist"
python3 "$HACK_DIR/check-docs.py"

step "no room too big: no file in src/ over 500 lines, no function in src/ or the launcher over 80"
python3 "$HACK_DIR/check-size.py"

step "clippy (native and wasm32, warnings are errors)"
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p kubeglass -p kubeglass-web --all-targets --quiet -- -D warnings

step "pages subscribe through kube/ only, and the browser's glue stays in src/platform/"
if grep -rnE 'InformerOptions|kubeglass_client::cache|kubeglass_web' src/pages; then
  die "a page builds informer options or calls the browser crate itself: use kube.subscribe(…) and crate::platform"
fi
if grep -rlE 'web_sys|js_sys|wasm_bindgen' src | grep -v '^src/platform/'; then
  die "only src/platform/ may name web_sys, js_sys or wasm_bindgen"
fi

step "one list of Chromium flags: crates/web/webdriver.json starts it as e2e/chromium.json says"
python3 - "$REPO_ROOT" <<'PY' || die "crates/web/webdriver.json and e2e/chromium.json disagree (binary or flags)"
import json, sys
root = sys.argv[1]
spec = json.load(open(f"{root}/e2e/chromium.json"))
driver = json.load(open(f"{root}/crates/web/webdriver.json"))["goog:chromeOptions"]
missing = [f for f in spec["flags"] if f not in driver["args"]]
if driver["binary"] != spec["binary"] or missing:
    print("webdriver.json lacks", missing or spec["binary"], file=sys.stderr)
    sys.exit(1)
PY

step "the client crate depends on no browser or runtime crate"
if cargo tree -p kubeglass-client -e normal --target wasm32-unknown-unknown --prefix none \
  | grep -E '^(web-sys|wasm-bindgen|js-sys|gloo[a-z-]*|tokio) v'; then
  die "kubeglass-client must not depend on the crates listed above"
fi

step "native unit tests"
cargo test -p kubeglass-client --quiet
cargo test -p kubeglass --quiet   # the app's models (src/model/), kube/ on a stepped host, routes, outcomes
cargo test -p kubectl-glass --quiet
fi

step "build the app, and the kubectl-glass launcher with the app inside"
bash "$HACK_DIR/build-app.sh"
python3 "$HACK_DIR/check-wasm-budget.py" dist
cargo build -p kubectl-glass --quiet
GLASS="$REPO_ROOT/target/debug/kubectl-glass"
# The launcher's own tests that run the built binary (the app inside it):
# a closed stdout ends the run (a fake kubectl; e2e has the real one).
cargo test -p kubectl-glass --quiet --test closed_stdout -- --ignored

if full || [[ "$E2E_ONLY" == *krew* ]]; then
step "the release (make dist: archive, SHA-256, krew manifest) and krew from its Go module"
KUBEGLASS_APP_BUILT=1 bash "$HACK_DIR/dist.sh"
bash "$HACK_DIR/build-krew.sh"
glass_version=$(sed -n 's/^version = "\(.*\)"/\1/p' crates/glass/Cargo.toml | head -1)
RELEASE_ARCHIVE="$REPO_ROOT/release/kubectl-glass-$glass_version-linux-amd64.tar.gz"
fi

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
"$CLUSTER_BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" proxy --port "$TEST_PROXY_PORT" "${admin_args[@]}" \
  >"$CLUSTER_DIR/logs/test-proxy.log" 2>&1 &
children+=($!)
"$CLUSTER_BIN/kubectl" --kubeconfig "$RESTRICTED_KUBECONFIG" proxy --port "$RESTRICTED_PROXY_PORT" "${restricted_args[@]}" \
  >"$CLUSTER_DIR/logs/test-proxy-restricted.log" 2>&1 &
children+=($!)
wait_for "kubectl proxy" 30 http_ok "http://127.0.0.1:$TEST_PROXY_PORT/$admin_token/version"
wait_for "the restricted kubectl proxy" 30 http_ok "http://127.0.0.1:$RESTRICTED_PROXY_PORT/$restricted_token/version"
step "fault control for the informer tests: a proxy on :$FAULT_PROXY_PORT they may kill, etcd compaction (:$CONTROL_PORT)"
KUBEGLASS_CONTROL_TOKEN="$control_token" KUBEGLASS_FAULT_PROXY_TOKEN="$fault_token" \
python3 "$HACK_DIR/test-control.py" --port "$CONTROL_PORT" \
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

if full; then
step "native integration tests (the client natively against the real apiserver)"
cargo test -p kubeglass-native --quiet -- --include-ignored

step "in-browser tests (wasm-bindgen-test, headless Chromium, real apiserver)"
(
  cd crates/web
  CHROMEDRIVER=/usr/bin/chromedriver \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  WASM_BINDGEN_TEST_TIMEOUT=300 \
    cargo test --target wasm32-unknown-unknown -p kubeglass-web --test browser
)
fi

step "end-to-end tests (real Chromium, real UI, real cluster)"
RELEASE_ARCHIVE="${RELEASE_ARCHIVE:-}"
(
  cd e2e
  KUBECTL="$CLUSTER_BIN/kubectl" KUBECONFIG="$ADMIN_KUBECONFIG" \
  RESTRICTED_KUBECONFIG="$RESTRICTED_KUBECONFIG" DIST="$REPO_ROOT/dist" \
  KUBE_VERSION="$KUBE_VERSION" E2E_PROXY_PORT=18101 GLASS="$GLASS" \
  KREW="$KREW_BIN" KUBEGLASS_RELEASE="$RELEASE_ARCHIVE" KUBEGLASS_MANIFEST="$REPO_ROOT/plugins/glass.yaml" \
  ETCD_URL="https://127.0.0.1:$ETCD_PORT" ETCD_PKI="$CLUSTER_DIR/pki" \
  APISERVER_URL="https://127.0.0.1:$APISERVER_PORT" \
  KWOK_URL="http://127.0.0.1:$KWOK_PORT" CONTROL_URL="http://127.0.0.1:$CONTROL_PORT" \
    node --test --test-concurrency=1 --test-reporter=spec ${E2E_ONLY:-tests/}
)

step "no token in any log of the cluster's folder"
if grep -rlFf <(token_patterns) "$CLUSTER_DIR/logs"; then
  die "a capability token was written to the logs above"
fi

log "all tests passed in $((SECONDS - started))s"
