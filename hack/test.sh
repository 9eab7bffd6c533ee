#!/usr/bin/env bash
# `make test`: every test. Lints (fmt, clippy with warnings as errors), native
# unit tests, in-browser tests (wasm-bindgen-test in headless Chromium against
# the real apiserver through kubectl proxy) and end-to-end tests (real
# Chromium driving the real UI against the real local cluster). Starts its own
# cluster on separate ports and directory, and stops it at the end.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

source "$HACK_DIR/test-env.sh"

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

# Each stage's name and start, for the summary at the end (docs/benchmarks.md
# keeps one run's).
stages=() stage_starts=()
step() { stages+=("$*"); stage_starts+=("$SECONDS"); log "── $* ──"; }
stage_summary() {
  local i end
  for i in "${!stages[@]}"; do
    end=${stage_starts[$((i + 1))]:-$SECONDS}
    printf '  %5ds  %s\n' "$((end - stage_starts[i]))" "${stages[$i]}"
  done
}
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
step "make check: fmt, the docs and size checks, clippy, the house's rules, the native tests"
bash "$HACK_DIR/check.sh"
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

# A test cluster `make e2e` kept running holds the same ports: stopped first.
if [[ -f "$CLUSTER_DIR/e2e-env" ]]; then bash "$HACK_DIR/e2e.sh" down; fi
start_test_env "$secrets"

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
run_e2e ${E2E_ONLY:-tests/}

step "no token in any log of the cluster's folder"
if grep -rlFf <(token_patterns) "$CLUSTER_DIR/logs"; then
  die "a capability token was written to the logs above"
fi

log "all tests passed in $((SECONDS - started))s; by stage:"
stage_summary
