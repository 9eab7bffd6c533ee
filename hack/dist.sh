#!/usr/bin/env bash
# `make dist`: a release anyone can install without Rust. Builds the app and
# kubectl-glass (release, the app inside), packs the binary, LICENSE and
# README.md into release/kubectl-glass-<version>-linux-amd64.tar.gz (the
# same bytes for the same binary: sorted, no owners, no times), writes its
# SHA-256 beside it, and fills plugins/glass.yaml (krew's manifest) with the
# version, the archive's address and that checksum.
#
#   KUBEGLASS_RELEASE_BASE   where the archive is published (default: the
#                            project's GitHub releases); krew downloads it
#                            from there unless given --archive.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"
[[ "$(uname -s)/$(uname -m)" == "Linux/x86_64" ]] || die "make dist builds linux-amd64 only, on linux-amd64"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' crates/glass/Cargo.toml | head -1)
[[ -n "$version" ]] || die "no version in crates/glass/Cargo.toml"
homepage="https://github.com/kubeglass/kubeglass"
base="${KUBEGLASS_RELEASE_BASE:-$homepage/releases/download/v$version}"
name="kubectl-glass-$version-linux-amd64"

if [[ "${KUBEGLASS_APP_BUILT:-}" != 1 ]]; then   # make test has just built dist/
  bash "$HACK_DIR/bootstrap.sh"
  bash "$HACK_DIR/build-app.sh"
fi
log "building kubectl-glass $version (release, the app inside)"
cargo build --release -p kubectl-glass --quiet

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
install -m 0755 target/release/kubectl-glass "$stage/kubectl-glass"
install -m 0644 LICENSE README.md "$stage/"
mkdir -p release plugins
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage" \
  -cf - kubectl-glass LICENSE README.md | gzip -9n >"release/$name.tar.gz"
sha=$(sha256sum "release/$name.tar.gz" | cut -d' ' -f1)
echo "$sha  $name.tar.gz" >"release/$name.tar.gz.sha256"
sed -e "s|@VERSION@|$version|" -e "s|@HOMEPAGE@|$homepage|" \
  -e "s|@URI@|$base/$name.tar.gz|" -e "s|@SHA256@|$sha|" \
  "$HACK_DIR/krew/glass.yaml.in" >plugins/glass.yaml
size=$(stat -c %s target/release/kubectl-glass)
log "release/$name.tar.gz ($(($(stat -c %s "release/$name.tar.gz") / 1024)) KiB; the binary $((size / 1024)) KiB)"
log "sha256 $sha"
log "plugins/glass.yaml filled; install with: kubectl krew install --manifest=plugins/glass.yaml --archive=release/$name.tar.gz"
