#!/usr/bin/env bash
# krew, built from its pinned Go module into the cache outside the repo
# (once per version), for the test that installs `make dist`'s archive with
# it: `kubectl krew install --manifest=… --archive=…`, as a user would.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[[ -x "$KREW_BIN" ]] && exit 0
log "building krew $KREW_VERSION (sigs.k8s.io/krew) into $(dirname "$KREW_BIN")"
mkdir -p "$(dirname "$KREW_BIN")"
GOFLAGS="${GOFLAGS:--buildvcs=false}" GOBIN="$(dirname "$KREW_BIN")" \
  go install -trimpath "sigs.k8s.io/krew/cmd/krew@$KREW_VERSION"
