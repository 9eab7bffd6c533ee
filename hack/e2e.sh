#!/usr/bin/env bash
# `make e2e FILE=e2e/tests/edit.test.mjs [NAME=pattern]`: one end-to-end file
# (or several, or a folder) against the test cluster, which is started the
# first time and kept running for the next call; `make e2e-down` stops it.
# The app and the launcher are rebuilt only when their inputs changed
# (hack/build-app.sh's digest, cargo's own), so a second run starts its
# tests in seconds. `make test` uses the same cluster's ports and stops it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$HACK_DIR/test-env.sh"
cd "$REPO_ROOT"
step() { log "── $* ──"; }

# What the running test cluster's helpers are: their pids and the tests'
# URLs (tokens included), in the cluster's folder, which only we can enter.
# (The proxies' kuberc files beside it, not in it: starting the cluster
# empties its folder.)
state="$CLUSTER_DIR/e2e-env"
secrets="$KUBEGLASS_CACHE/e2e-secrets"

down() {
  if [[ -f "$state" ]]; then
    # shellcheck disable=SC1090
    source "$state"
    for pid in ${E2E_PIDS:-}; do kill "$pid" 2>/dev/null || true; done
  fi
  rm -rf "$state" "$secrets"
  bash "$HACK_DIR/cluster.sh" down || true
}

if [[ "${1:-}" == "down" ]]; then
  down
  log "test cluster stopped"
  exit 0
fi
files=("$@")
(( ${#files[@]} > 0 )) || die "name a file: make e2e FILE=e2e/tests/edit.test.mjs (paths relative to the repository or to e2e/)"
for i in "${!files[@]}"; do
  f=${files[$i]}
  [[ "$f" == --* ]] && continue
  f=${f#e2e/}
  [[ -e "e2e/$f" ]] || die "no such file or folder: e2e/$f"
  files[$i]=$f
done
started=$SECONDS

step "toolchain and control plane"
toolchain_and_control_plane
cd "$REPO_ROOT"
step "the app and the launcher (rebuilt only when their inputs changed)"
bash "$HACK_DIR/build-app.sh"
cargo build -p kubectl-glass --quiet
GLASS="$REPO_ROOT/target/debug/kubectl-glass"

alive() {
  [[ -f "$state" ]] || return 1
  # shellcheck disable=SC1090
  source "$state"
  http_ok "$KUBEGLASS_TEST_PROXY/version" && http_ok "$KUBEGLASS_TEST_RESTRICTED_PROXY/version" &&
    http_ok "$KUBEGLASS_TEST_CONTROL/healthz"
}
if alive; then
  log "test cluster already running: reused (make e2e-down stops it)"
else
  down >/dev/null 2>&1 || true
  children=()
  # Until the state file is written, a failure stops what was started.
  trap 'for pid in "${children[@]}"; do kill "$pid" 2>/dev/null || true; done
        bash "$HACK_DIR/cluster.sh" down >/dev/null 2>&1 || true' EXIT
  rm -rf "$secrets" && mkdir -m 700 "$secrets"
  start_test_env "$secrets" setsid
  (
    umask 077
    {
      printf 'export KUBEGLASS_TEST_PROXY=%q KUBEGLASS_TEST_RESTRICTED_PROXY=%q\n' \
        "$KUBEGLASS_TEST_PROXY" "$KUBEGLASS_TEST_RESTRICTED_PROXY"
      printf 'export KUBEGLASS_TEST_FAULT_PROXY=%q KUBEGLASS_TEST_CONTROL=%q\n' \
        "$KUBEGLASS_TEST_FAULT_PROXY" "$KUBEGLASS_TEST_CONTROL"
      printf 'E2E_PIDS=%q\n' "${children[*]}"
    } >"$state"
  )
  trap - EXIT
  log "test cluster started in $((SECONDS - started))s and kept running (make e2e-down stops it)"
fi

step "end-to-end: ${files[*]}"
t0=$SECONDS
# node --test reads options only before the first file: flags go first.
flags=() paths=()
for f in "${files[@]}"; do
  if [[ "$f" == --* ]]; then flags+=("$f"); else paths+=("$f"); fi
done
run_e2e "${flags[@]}" "${paths[@]}"
log "end-to-end passed in $((SECONDS - t0))s ($((SECONDS - started))s in all)"
