#!/usr/bin/env python3
"""docs/ARCHITECTURE.md names only what exists (run by `make test`).

Every name the document quotes in backticks that looks like ours is looked
up in the files git tracks:
- a path (`crates/client/src/rest/list.rs`, `rest/list.rs`, `hack/`): some
  tracked file's path ends with it, or lies under it;
- a module path (`kube/subscribe`, `rules/events`): the module's file exists;
- a qualified name (`ReflectorStatus::undecodable`, `Kube::resolve_for`):
  every segment is an identifier somewhere in the tracked source;
- a CamelCase word of two or more humps (`SharedInformer`) or a snake_case
  one with an underscore (`watch_frames`): an identifier in the tracked
  code (Rust comments do not count: a name only a comment keeps is gone).
Names that are not ours (client-go's and apimachinery's, files made at build
or run time) are listed below with the reason; anything else that does not
resolve fails the check, with the line it is on.

And the map names every room's modules. The rooms are each crate's `src/`
(`src/`, `crates/*/src/`) and the app's folders in `APP_ROOMS`; a room's
modules are the tracked `.rs` files directly in it (but `lib.rs` and
`mod.rs`, the room itself) and the folders directly in it that hold `.rs`
files. Each room has a heading that quotes its folder (`crates/client`,
`src/kube/`), and each of its modules is quoted in that heading's section
(down to the next heading of the same or a higher level) as a path whose
first part, after the room's folder or short name, is the module:
`cache/reflector`, `rest/retry.rs`, `kube/tests`, `table::pages!`, `watch`.
A module missing from its room's section fails the check, with its path.

Usage: check-docs.py [DOC ...]   (default: docs/ARCHITECTURE.md)
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Names the document quotes that are not in this tree, and why.
NOT_OURS = {
    # Made at build or run time, not tracked.
    "./": "Trunk's relative public_url",
    "dist/": "the app's build output",
    "dist/index.html": "the app's build output",
    "ui/": "a URL prefix, not a folder",
    "kubeglass-context.json": "written by the launcher at run time",
    "kwok-crds.yaml": "kwok's CRDs, fetched into the cluster folder by hack/",
    "kwok-metrics.yaml": "kwok's Metric and ClusterResourceUsage, gathered into the binaries' folder by hack/build-cluster.sh",
    # Upstream names, quoted to say what is ported.
    "IsRetryableError": "client-go rest/with_retry.go",
    "FullListIfExpired": "client-go tools/pager",
    "DelayWithReset": "apimachinery util/wait",
    "ListAndWatch": "client-go tools/cache reflector",
    "DeletedFinalStateUnknown": "client-go tools/cache",
    "ListAllByNamespace": "client-go tools/cache listers",
    "UpdateState": "client-go tools/record EventCorrelator",
    "AddAfter": "client-go util/workqueue",
    "inner_html": "Leptos' raw-HTML attribute, named to say it is never used",
}

SOURCE_SUFFIXES = (".rs", ".sh", ".mjs", ".py", ".toml", ".html", ".css", ".go", ".json", ".yaml")


def tracked_files():
    """The files git tracks, as they are in the working tree (a file deleted
    but not yet committed is gone; a new one must be added to count)."""
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [f for f in out.stdout.split() if (ROOT / f).is_file()]


def identifiers(files):
    names = set()
    for f in files:
        if f.endswith(SOURCE_SUFFIXES):
            text = (ROOT / f).read_text(errors="ignore")
            if f.endswith(".rs"):
                # Code only: a name that survives only in a comment is gone.
                text = re.sub(r"//[^\n]*", "", text)
            names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    return names


def modules(files):
    found = set()
    for f in files:
        m = re.match(r"(?:crates/[\w-]+/)?src/(.+?)(?:/mod)?\.rs$", f)
        if m:
            found.add(m.group(1))
    return found


# The app's rooms besides `src/` itself; each crate's `src/` is a room too.
APP_ROOMS = ["src/pages", "src/components", "src/kube", "src/rules", "src/platform"]


def rooms(files):
    """Each room's folder and the names of its first-level modules."""
    folders = sorted({"src"} | {"/".join(f.split("/")[:3]) for f in files if re.match(r"crates/[\w-]+/src/", f)})
    found = {}
    for room in folders + APP_ROOMS:
        mods = {}
        for f in files:
            if not f.startswith(room + "/") or not f.endswith(".rs"):
                continue
            rest = f[len(room) + 1:].split("/")
            name = rest[0].removesuffix(".rs") if len(rest) == 1 else rest[0]
            if len(rest) == 1 and name in ("lib", "mod"):
                continue
            mods.setdefault(name, f if len(rest) == 1 else f"{room}/{name}/")
        found[room] = mods
    return found


def unmapped(doc, room_mods):
    """The modules whose room's section of the map does not name them."""
    lines = doc.splitlines()
    headings = [(i, len(m.group(1))) for i, line in enumerate(lines) if (m := re.match(r"(#+)\s", line))]

    def section(key):
        for n, (i, level) in enumerate(headings):
            if key in {t.rstrip("/") for t in re.findall(r"`([^`\n]+)`", lines[i])}:
                end = next((j for j, lv in headings[n + 1:] if lv <= level), len(lines))
                return "\n".join(lines[i + 1:end])
        return None

    for room, mods in room_mods.items():
        key = room.removesuffix("/src") if room.startswith("crates/") else room
        text = section(key)
        prefixes = sorted({room + "/", key + "/", room.split("/")[-1] + "/"}, key=len, reverse=True)
        named = set()
        for token in re.findall(r"`([^`\n]+)`", text or ""):
            for prefix in prefixes:
                if token.startswith(prefix):
                    token = token[len(prefix):]
                    break
            named.add(re.split(r"/|::|\.rs\b|[.(!\s]", token)[0])
        for name, path in sorted(mods.items()):
            if name not in named:
                where = f"under the heading that quotes `{key}`" if text is not None else f"(no heading quotes `{key}`)"
                yield f"{path}: the module `{name}` is not in the map {where}"


def problems(doc, files, names, mods):
    tops = {m.split("/")[0] for m in mods if "/" in m}

    def path_exists(p):
        p = p.rstrip("/")
        return any(f == p or f.endswith("/" + p) or f.startswith(p + "/") or f"/{p}/" in f"/{f}" for f in files)

    for lineno, line in enumerate(doc.splitlines(), 1):
        for token in re.findall(r"`([^`\n]+)`", line):
            if token in NOT_OURS:
                continue
            bare = token.removesuffix("()")
            if re.fullmatch(r"[\w.\-/]+\.(rs|sh|mjs|py|toml|md|json|yaml|html|css)|[\w.\-]+/([\w.\-]+/)*", token):
                ok, what = path_exists(token), "path"
            elif re.fullmatch(r"[a-z_]+(/[a-z_]+)+", token) and token.split("/")[0] in tops:
                ok, what = token in mods, "module"
            elif re.fullmatch(r"[A-Za-z_]\w*(::\w+)+", bare):
                segments = [s for s in bare.split("::") if s not in ("crate", "self", "super")]
                ok, what = all(s in names for s in segments), "name"
            elif re.fullmatch(r"[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+|[a-z][a-z0-9]*(_[a-z0-9]+)+", bare):
                ok, what = bare in names, "name"
            else:
                continue
            if not ok:
                yield f"{lineno}: the {what} `{token}` is not in the tree"


def main():
    docs = sys.argv[1:] or ["docs/ARCHITECTURE.md"]
    files = tracked_files()
    names, mods = identifiers(files), modules(files)
    failed = False
    room_mods = rooms(files)
    for d in docs:
        doc = (ROOT / d).read_text()
        for p in problems(doc, files, names, mods):
            print(f"{d}:{p}", file=sys.stderr)
            failed = True
        if d == "docs/ARCHITECTURE.md":
            for p in unmapped(doc, room_mods):
                print(f"{d}: {p}", file=sys.stderr)
                failed = True
    if failed:
        print("fix the document (or, for a name that is not ours, add it to NOT_OURS in hack/check-docs.py;"
              " for a new module, name it in its room's section)", file=sys.stderr)
        return 1
    print(f"{', '.join(docs)}: every path, module and name quoted exists, and every room's modules are in the map")
    return 0


if __name__ == "__main__":
    sys.exit(main())
