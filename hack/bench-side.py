#!/usr/bin/env python3
"""Kubeglass and k9s side by side: reads the lines of JSON that
e2e/bench/ui.mjs and e2e/bench/k9s.mjs end with (from `make bench-app`'s
log, given as the argument, or standard input) and prints one Markdown
table, a pair of columns per size. Each k9s line is paired with the
Kubeglass line before it (bench-app runs k9s right after each table, on
the same pods)."""
import json
import sys


def runs(lines):
    pairs, app = [], None
    for line in lines:
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            continue
        if d.get("bench") == "kubeglass":
            app = d
        elif d.get("bench") == "k9s":
            pairs.append((app, d))
            app = None
    if app:
        pairs.append((app, None))
    return pairs


def cpu(c):
    if not c:
        return "—"
    rate = f" at {c['changesPerSecond']:.0f}/s" if c.get("changesPerSecond") else ""
    return f"{c['percentOfOneCore']:.0f}%{rate}"


def row(name, app, k9s, of_app, of_k9s):
    cells = []
    for a, k in zip(app, k9s):
        cells += [of_app(a) if a else "—", of_k9s(k) if k else "—"]
    return f"| {name} | " + " | ".join(cells) + " |"


def main():
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    pairs = runs(src)
    if not pairs:
        sys.exit("no lines of JSON from ui.mjs or k9s.mjs")
    app = [a for a, _ in pairs]
    k9s = [k for _, k in pairs]
    head = []
    for a, k in pairs:
        pods = (a or k)["pods"]
        scope = "" if not a or a.get("allNamespaces") else " (app: one namespace)"
        head += [f"Kubeglass, {pods:,} pods{scope}", f"k9s, {k['pods']:,} pods" if k else "k9s"]
    print("| | " + " | ".join(head) + " |")
    print("|---|" + "---:|" * len(head))
    print(row("from a start until the full count is shown (app: a fresh tab opening the table's link; k9s: its spawn)", app, k9s,
              lambda a: f"{a['coldFullCountMs']:,} ms" if "coldFullCountMs" in a else "—", lambda k: f"{k['fullCountMs']:,} ms"))
    print(row("the full count once running (app: from the route change in an open tab; k9s: from its view's first drawing)", app, k9s,
              lambda a: f"{a['fullCountMs']:,} ms (first rows {a['firstRowsMs']:,} ms)", lambda k: f"{k['fullCountAfterFirstDrawMs']:,} ms"))
    print(row("resident memory at the full count (app: the tab's renderer, and its wasm memory; k9s: its RSS)", app, k9s,
              lambda a: f"{a['rendererRssMiB']:,.0f} MiB (wasm memory at most {a['wasmMiB']:,.0f} MiB)", lambda k: f"{k['rssAtFullCountMiB']:,.0f} MiB"))
    print(row("memory at the end (app: the renderer; k9s: its peak RSS)", app, k9s,
              lambda a: f"{a['rendererRssEndMiB']:,.0f} MiB", lambda k: f"{k['peakRssMiB']:,.0f} MiB"))
    print(row("all of Chromium's processes' RSS, summed (shared pages counted in each)", app, k9s,
              lambda a: f"{a['chromiumRssMiB']:,.0f} MiB", lambda k: "(one process)"))
    print(row("CPU, nothing changing (10 s, share of one core; app: all of Chromium)", app, k9s,
              lambda a: cpu(a["cpuQuiet"]), lambda k: cpu(k["cpuQuiet"])))
    print(row("CPU under label patches (10 s)", app, k9s,
              lambda a: cpu(a["cpuUnderChanges"]), lambda k: cpu(k["cpuUnderChanges"])))

if __name__ == "__main__":
    main()
