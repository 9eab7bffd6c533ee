#!/usr/bin/env bash
# Installs the toolchain the build and the tests need, each step only when it is
# missing: the wasm32 target, Trunk 0.21, wasm-bindgen-cli at exactly the version
# in Cargo.lock, Debian's chromium and chromium-driver, and the e2e runner's Node
# packages. Idempotent; safe to run on every `make`.
#
# Trunk builds the page and its CSS; hack/build-app.sh builds the wasm, split
# by page with wasm-split-cli (installed here), and shrinks it with Binaryen's
# wasm-opt from npm (Trunk would download its own).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
command -v openssl >/dev/null || need_apt+=(openssl)
command -v curl >/dev/null || need_apt+=(curl)
if ((${#need_apt[@]})); then
  log "installing Debian packages: ${need_apt[*]}"
  SUDO=""; [[ $(id -u) == 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

command -v cargo >/dev/null || die "cargo is not installed (install Rust with rustup)"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if ! trunk --version 2>/dev/null | grep -q '^trunk 0\.21\.'; then
  log "installing trunk 0.21 (a few minutes on 2 cores)"
  # Trunk's own release profile is fat LTO with one codegen unit: the best
  # binary, and the slowest build (docs/benchmarks.md has both timings). A
  # build tool gains little from it, so: no LTO, 16 codegen units.
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install trunk --version "~0.21" --locked
fi

wb_version=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3; exit}' "$REPO_ROOT/Cargo.lock")
[[ -n "$wb_version" ]] || die "could not read the wasm-bindgen version from Cargo.lock"
if ! wasm-bindgen --version 2>/dev/null | grep -q " $wb_version\$"; then
  log "installing wasm-bindgen-cli $wb_version (the version in Cargo.lock)"
  # Not --locked, unlike the others: wasm-bindgen-cli 0.2.130's published
  # Cargo.lock pins webpki-roots 1.0.11 (through ureq), which the registry
  # these machines reach does not have (1.0.10 is its newest), so --locked
  # fails to resolve; without it cargo picks 1.0.10. Add --locked with the
  # next wasm-bindgen whose lock resolves here (`cargo metadata --locked` in
  # the unpacked crate tells, without building).
  cargo install wasm-bindgen-cli --version "$wb_version" --force
fi

# wasm-split-cli, which cuts the wasm into the main module and one part per
# page (hack/build-app.sh); its format must match the wasm_split_helpers in
# Cargo.lock (through Leptos), so the version is pinned in hack/lib.sh.
if ! wasm-split-cli --help >/dev/null 2>&1 || [[ "$(cat "$KUBEGLASS_CACHE/wasm-split-cli.version" 2>/dev/null)" != "$WASM_SPLIT_VERSION" ]]; then
  log "installing wasm-split-cli (wasm_split_cli_support $WASM_SPLIT_VERSION, a few minutes on 2 cores)"
  cargo install wasm_split_cli_support --version "=$WASM_SPLIT_VERSION" --features build-binary --locked --force
  mkdir -p "$KUBEGLASS_CACHE" && echo "$WASM_SPLIT_VERSION" > "$KUBEGLASS_CACHE/wasm-split-cli.version"
fi

# wasm-opt from Binaryen's npm package (a registry package; Trunk would try to
# download its own, so hack/build-app.sh runs it after Trunk instead).
if [[ ! -x "$KUBEGLASS_CACHE/binaryen/node_modules/.bin/wasm-opt" ]]; then
  log "installing wasm-opt (npm binaryen@$BINARYEN_VERSION) into $KUBEGLASS_CACHE/binaryen"
  mkdir -p "$KUBEGLASS_CACHE/binaryen"
  (cd "$KUBEGLASS_CACHE/binaryen" && npm install --no-audit --no-fund --loglevel=error "binaryen@$BINARYEN_VERSION" >/dev/null)
fi

if [[ ! -d "$REPO_ROOT/e2e/node_modules/playwright-core" ]]; then
  log "installing the e2e runner's Node packages (playwright-core; it never downloads a browser)"
  (cd "$REPO_ROOT/e2e" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi

log "toolchain ready: $(trunk --version), $(wasm-bindgen --version), $(chromium --version 2>/dev/null | head -1)"
