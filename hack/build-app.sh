#!/usr/bin/env bash
# Builds the app (release profile) into dist/: Trunk the page and its CSS,
# this script the wasm, split by page (wasm-split-cli, installed by
# hack/bootstrap.sh) and shrunk with Binaryen's wasm-opt -Oz (from npm; Trunk
# would download its own); hack/link-app.py names the files by their hash
# and writes the loader into dist/index.html, hack/csp.py the
# Content-Security-Policy (and dist/csp.txt). Then brotli and gzip copies,
# and the sizes.
#
# Skipped when nothing it reads has changed since dist/ was built: a digest
# of every input file (the app, the crates it links, the page, the styles,
# the lock file, these scripts) and of the tools' versions is kept beside the
# output in target/app.inputs (not in dist/, which the launcher serves);
# KUBEGLASS_REBUILD=1 builds anyway.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"

# Every file the build reads, and the tools that read them.
inputs_digest() {
  {
    find src crates style public -type f \
      -not -path 'crates/glass/*' -not -path 'crates/native/*' -not -path '*/target/*' -print0 |
      sort -z | xargs -0 sha256sum
    sha256sum index.html Cargo.toml Cargo.lock Trunk.toml "$HACK_DIR/build-app.sh" "$HACK_DIR/link-app.py" \
      "$HACK_DIR/csp.py" "$HACK_DIR/compress.mjs"
    rustc -V; trunk --version; wasm-bindgen --version; cat "$KUBEGLASS_CACHE/wasm-split-cli.version" 2>/dev/null || true
    [[ -x "$WASM_OPT" ]] && "$WASM_OPT" --version
  } | sha256sum | cut -d' ' -f1
}
digest=$(inputs_digest)
stamp=target/app.inputs
if [[ -z "${KUBEGLASS_REBUILD:-}" && -f "$stamp" && "$(cat "$stamp")" == "$digest" ]] &&
  compgen -G 'dist/*_bg.wasm' >/dev/null; then
  log "app unchanged since dist/ was built (its inputs' digest is the same): kept; KUBEGLASS_REBUILD=1 builds anyway"
  exit 0
fi
rm -f "$stamp"
log "building the app (trunk build --release: the page, CSS and icon)"
trunk build --release >/dev/null
# The wasm, by hand, because it is split by page (src/pages/parts.rs) and
# Trunk cannot split (trunk#1022): linked with its relocations kept, cut by
# wasm-split into the main module, one part per page and the chunks parts
# share, bound by wasm-bindgen (keeping the exports the parts link to), then
# each file shrunk by wasm-opt.
out=target/app
rm -rf "$out" && mkdir -p "$out"
log "compiling the wasm (cargo, release profile: LTO and one codegen unit, the longest step: minutes on two cores)"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Clink-args=--emit-relocs" \
  cargo build --release --target wasm32-unknown-unknown --bin kubeglass --quiet
log "splitting the wasm by page (wasm-split-cli), then wasm-bindgen"
wasm-split-cli target/wasm32-unknown-unknown/release/kubeglass.wasm "$out" --out-name kubeglass
wasm-bindgen --target web --keep-lld-exports --no-typescript --out-dir "$out" --out-name kubeglass "$out/kubeglass.wasm"
rm "$out/kubeglass.wasm"
# Kept for hack/wasm-size.sh, which compares with and without wasm-opt.
cp "$out/kubeglass_bg.wasm" target/kubeglass-before-wasm-opt.wasm
if [[ -x "$WASM_OPT" ]]; then
  files=("$out"/*.wasm)
  n=0
  for f in "${files[@]}"; do
    n=$((n + 1))
    # The first, every tenth and the last: how far it has got.
    if (( n == 1 || n % 10 == 0 || n == ${#files[@]} )); then
      log "wasm-opt -Oz: file $n of ${#files[@]} ($(basename "$f"))"
    fi
    # wasm-split leaves a name subsection wasm-opt does not know and warns
    # about once per file; any other message is shown.
    "$WASM_OPT" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
      --enable-sign-ext --enable-reference-types --enable-multivalue --enable-mutable-globals \
      "$f" -o "$f.opt" 2>"$f.log" || { cat "$f.log" >&2; die "wasm-opt failed on $f"; }
    grep -v '^warning: unknown name subsection' "$f.log" >&2 || true
    rm "$f.log"
    mv "$f.opt" "$f"
  done
else
  log "wasm-opt not found at $WASM_OPT (run make bootstrap); the wasm is not optimized"
fi
python3 "$HACK_DIR/link-app.py" "$out" dist >/dev/null
wasm=$(ls dist/*_bg.wasm | head -1)
python3 "$HACK_DIR/csp.py" dist/index.html >/dev/null
# No launcher session (src/kube/stores/session.rs): kubectl glass serves its own.
echo null > dist/kubeglass-context.json
# Brotli and gzip copies, served by kubectl glass by Accept-Encoding.
node "$HACK_DIR/compress.mjs" dist >/dev/null
raw=$(stat -c %s "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
all=$(cat dist/*.wasm | wc -c)
mkdir -p target && echo "$digest" > "$stamp"
log "app built: $(basename "$wasm") $((raw / 1024)) KiB raw, $((gz / 1024)) KiB gzip (the first page); every part $((all / 1024)) KiB raw"
