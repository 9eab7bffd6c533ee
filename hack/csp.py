"""Adds a Content-Security-Policy to dist/index.html after Trunk builds it,
and (given the wasm file) rewrites the wasm's Subresource Integrity hash
after wasm-opt changed the file.

Trunk writes the loader as an inline module script whose text changes with
every build (it names the hashed files), so the policy allows exactly that
script by its SHA-256 hash instead of allowing inline scripts at large.

It also writes the policy to csp.txt beside index.html: kubectl glass sends
it as a real response header, adding what a <meta> tag cannot carry
(frame-ancestors).

Usage: csp.py dist/index.html [dist/<name>_bg.wasm]
"""
import base64
import hashlib
import re
import sys

path = sys.argv[1]
html = open(path, encoding="utf-8").read()
scripts = re.findall(r"<script type=\"module\">(.*?)</script>", html, re.S)
if len(scripts) != 1:
    sys.exit(f"expected one inline module script in {path}, found {len(scripts)}")
digest = base64.b64encode(hashlib.sha256(scripts[0].encode("utf-8")).digest()).decode()
policy = "; ".join([
    "default-src 'self'",
    f"script-src 'self' 'wasm-unsafe-eval' 'sha256-{digest}'",
    "connect-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
])
meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}" />'
html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>\s*', "", html)
html = html.replace("<head>", "<head>\n    " + meta, 1)
if len(sys.argv) > 2:
    wasm = sys.argv[2]
    name = wasm.rsplit("/", 1)[-1]
    sri = "sha384-" + base64.b64encode(hashlib.sha384(open(wasm, "rb").read()).digest()).decode()
    pattern = r'(<link[^>]*href="[^"]*' + re.escape(name) + r'"[^>]*integrity=")[^"]*(")'
    html, n = re.subn(pattern, lambda m: m.group(1) + sri + m.group(2), html)
    if n != 1:
        sys.exit(f"expected one integrity attribute for {name}, found {n}")
open(path, "w", encoding="utf-8").write(html)
open(path.rsplit("/", 1)[0] + "/csp.txt" if "/" in path else "csp.txt", "w", encoding="utf-8").write(policy + "\n")
print(f"Content-Security-Policy: {policy}")
