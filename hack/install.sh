#!/usr/bin/env bash
# `make install`: builds the app and the kubectl-glass binary with the app
# inside, and puts the binary in $PREFIX/bin (default ~/.local/bin), where
# kubectl finds it as the plugin `kubectl glass`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"
PREFIX="${PREFIX:-$HOME/.local}"
bash "$HACK_DIR/bootstrap.sh"
bash "$HACK_DIR/build-app.sh"
log "building kubectl-glass (release)"
cargo build --release -p kubectl-glass --quiet
mkdir -p "$PREFIX/bin"
install -m 0755 target/release/kubectl-glass "$PREFIX/bin/kubectl-glass"
size=$(stat -c %s "$PREFIX/bin/kubectl-glass")
log "installed $PREFIX/bin/kubectl-glass ($((size / 1024)) KiB, the app inside)"
case ":$PATH:" in
  *":$PREFIX/bin:"*) log "run: kubectl glass [--context C]" ;;
  *) log "$PREFIX/bin is not on your PATH: add it, then run: kubectl glass [--context C]" ;;
esac
