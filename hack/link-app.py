#!/usr/bin/env python3
"""Puts the split, bound and optimized wasm into dist/ under content-hashed
names, and writes the page's loader into dist/index.html (run by
hack/build-app.sh after wasm-split, wasm-bindgen and wasm-opt).

In the build folder:
  kubeglass.js, kubeglass_bg.wasm   the main module and wasm-bindgen's glue
  __wasm_split.js                   wasm-split's loader of the other parts
  split_<page>.wasm, chunk_<n>.wasm the pages' parts and the code they share

Every name gets one hash of all the files (`<stem>-<16 hex>`), so that
`kubectl glass` may cache them for good (crates/glass `is_hashed`), and the
files' references to each other are rewritten to match. index.html gets one
inline module script that starts the app (hack/csp.py allows exactly it by
its hash) and preloads of the glue, the loader and the main wasm, each with
its Subresource Integrity hash, and of the session file and `/version`,
which the first page waits for.

Usage: link-app.py <build folder> <dist folder>
"""

import base64
import hashlib
import re
import shutil
import sys
from pathlib import Path

build, dist = Path(sys.argv[1]), Path(sys.argv[2])
root = Path(__file__).resolve().parent.parent
glue, main, loader = "kubeglass.js", "kubeglass_bg.wasm", "__wasm_split.js"
parts = sorted(p.name for p in build.glob("*.wasm") if re.fullmatch(r"(split|chunk)_\w+\.wasm", p.name))
names = [glue, main, loader, *parts]
for n in names:
    if not (build / n).is_file():
        sys.exit(f"link-app: {build / n} is missing")

digest = hashlib.sha256()
for n in names:
    digest.update(n.encode() + b"\0" + (build / n).read_bytes())
h = digest.hexdigest()[:16]


def hashed(name: str) -> str:
    if name == main:
        return f"kubeglass-{h}_bg.wasm"
    stem, ext = name.rsplit(".", 1)
    return f"{stem}-{h}.{ext}"


def rewrite(text: str, refs: list[str], what: str, before: str = "") -> str:
    """Points `text`'s references to `refs` at their hashed names. The glue
    also uses the loader's name as the main wasm's import module, which stays
    as it is: only its `from "./…"` imports change."""
    for ref in refs:
        quoted = f'{before}"./{ref}"'
        if quoted not in text:
            sys.exit(f"link-app: {what} does not name {quoted}")
        text = text.replace(quoted, f'{before}"./{hashed(ref)}"')
    return text


glue_js = rewrite((build / glue).read_text(), [loader], glue, before="from ")
loader_js = rewrite((build / loader).read_text(), [glue], loader, before="from ")
loader_js = rewrite(loader_js, parts, loader)
(dist / hashed(glue)).write_text(glue_js)
(dist / hashed(loader)).write_text(loader_js)
for n in [main, *parts]:
    shutil.copyfile(build / n, dist / hashed(n))


def sri(name: str) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384((dist / hashed(name)).read_bytes()).digest()).decode()


script = (
    f"\nimport init from './{hashed(glue)}';\n"
    f"await init({{ module_or_path: './{hashed(main)}' }});\n"
)
tags = (
    f'<script type="module">{script}</script>\n'
    f'    <link rel="modulepreload" href="./{hashed(glue)}" crossorigin="anonymous" integrity="{sri(glue)}">\n'
    f'    <link rel="modulepreload" href="./{hashed(loader)}" crossorigin="anonymous" integrity="{sri(loader)}">\n'
    f'    <link rel="preload" href="./{hashed(main)}" crossorigin="anonymous" integrity="{sri(main)}" as="fetch" type="application/wasm">\n'
)
# The two answers the first page waits for, asked for while the wasm is
# still on its way: the launcher's session file beside the page and the
# server's version (the API is the parent of the page's folder). A
# same-origin fetch() with no headers of its own, as the app sends both,
# is answered from these preloads.
session_rs = (root / "crates/kubectl/src/session.rs").read_text()
m = re.search(r'pub const SESSION_FILE: &str = "([\w.-]+)";', session_rs)
if not m:
    sys.exit("link-app: SESSION_FILE not found in crates/kubectl/src/session.rs")
tags += (
    f'    <link rel="preload" href="./{m.group(1)}" as="fetch" crossorigin="anonymous">\n'
    '    <link rel="preload" href="../version" as="fetch" crossorigin="anonymous">\n'
)
index = dist / "index.html"
html = index.read_text()
# index.html names the crate with data-trunk-skip, so that Trunk builds no
# wasm of its own; Trunk leaves that tag in the page, and it goes here.
skipped = re.compile(r'\s*<link\b[^>]*\brel="rust"[^>]*>')
if len(skipped.findall(html)) != 1:
    sys.exit("link-app: index.html should hold exactly one skipped rust link (data-trunk-skip)")
html = skipped.sub("", html)
if "<script" in html:
    sys.exit("link-app: index.html already has a script (Trunk's rust asset should be gone)")
html = html.replace("</head>", "    " + tags + "  </head>", 1)
index.write_text(html)
print(f"linked {len(names)} files as *-{h}")
