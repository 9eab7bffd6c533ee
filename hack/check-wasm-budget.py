#!/usr/bin/env python3
"""The first page's wasm stays within its budget (run by `make test`, after
`hack/build-app.sh`).

The wasm is split by page (src/pages/parts.rs, hack/build-app.sh): the first
page loads the main module `kubeglass-<hash>_bg.wasm` alone, and every other
page fetches its part (`split_<page>-<hash>.wasm` and the `chunk_<n>` files
parts share) when it is opened. So the budget is the main module's: its raw
bytes (what `kubectl proxy` serves, and what the browser compiles before the
first page) and the brotli and gzip copies `kubectl glass` serves. The whole
app, every part summed, has a budget too, so that growth anywhere shows.

The size is deterministic for a given toolchain, so this is a check, not a
timed assertion. The limits sit about 2% over the sizes of 2026-12-06 (main
1,292,571 B raw, 389,093 B brotli, 504,781 B gzip; every part 2,890,822 B
raw): a change that needs more says so here, with the figures in
docs/benchmarks.md. Issue #39's round (edit as a patch, lost answers read
back, rollout undo as kubectl, drift as stored, stale objects, Top in
kubectl's figures, the hashed discovery scope) took every part to
2,976,885 B (main 1,310,937 B raw, 395,210 B brotli, 511,721 B gzip, all
within their limits): the every-part limit is now about 2% over that.
The launcher's per-context store (issue #39 item 13: `ServedStorage`, which
every page needs before the first draws) took the main module to 1,320,615 B
raw, 398,416 B brotli, 515,922 B gzip, over the old limits of 1,320,000 /
397,000 / 515,000: the main module's limits are now about 2% over that.
Issue #40's round (a shell, port-forwards, drain) took every part to
3,290,049 B: the shell's page (`split_exec`, the vt100 terminal) is
117,256 B, the Forwards page 27,701 B, and the object page grew with its
Forward and Drain sections; the main module is 1,343,580 B raw, 403,400 B
brotli, 525,559 B gzip (the browser's exec WebSocket and the Forwards link
are needed before the first page draws), within its limits. The every-part
limit was then 3,300,000 B. Actions on many objects (issue #40 item 4:
the marks, the bar, the confirmation and its reviews, the runner) took every
part from 3,288,563 B to 3,443,230 B, nearly all of it the table page's
part (`split_resource`, 166,207 → 316,070 B raw; 103,824 B brotli), with
the drain engine moved from the object page's part to a chunk both share;
the main module unchanged. The every-part limit is now 3,520,000 B, about
2% over. Issue #30's goal is 450 KB gzip for the first page; the
brotli copy, which is what kubectl glass sends, is under it, the gzip copy
is not.
Issue #44's round of names (2026-12-07: `Kube` with private parts and
accessors, Leptos `Trigger`s for the pulses, one `FilterMenu`, kube/
regrouped; the event stream, in the main module because the overview draws
it, among what changed) took the main module from 1,343,580 B to 1,352,378 B
raw, 405,391 B brotli, 529,020 B gzip, over the raw and gzip limits; the
growth was measured across the merge, not broken down by change. The main
module's limits are now about 2% over those figures. (The event rows' ring
of #43 item 3 added another ~13 KB to it with no measured gain, and was
reverted.)

Issue #41's cache that outlives the tab (2026-12-07: informers seeded from
a saved state, `stores::saved` and the browser's Cache Storage or the
launcher's folder behind it, and the quiet hidden tab), which every page
needs before its first draw, took the main module from 1,352,378 B to
1,389,164 B raw (+36,786), 417,102 B brotli, 540,680 B gzip, and every
part to 3,526,783 B. Its first build took 97 KB; writing the saved
objects' metadata by hand (k8s-openapi's `Time` serializes through jiff's
strftime) and reading them back through the client's one list decoder
cut that to the figure above (docs/benchmarks.md has the steps). The
limits are now about 2% over those figures.

The rest of issue #41's round (later on 2026-12-07: the header's menu of
the launcher's contexts and the tab's title, the metrics graphs' points
kept between visits and the polls paused in a quiet tab, and the bound on
the browser's saved copies), all needed before the first page draws, took
the main module to 1,420,990 B raw (+31,826), 427,114 B brotli, 554,324 B
gzip, and every part to 3,557,413 B. The menu and the history came to
1,413,044 B; the bound on Cache Storage (reading every entry's headers and
deleting the oldest) to 7,946 B more, after its first form (a float parsed,
a `Url` built) took 9,167. The main module's limits are now about 2% over
those figures.

Issue #42's first pages (2026-12-07: Permissions, Helm, and a table's own
columns) are parts of their own, fetched when opened: every part went from
3,557,413 B to 3,943,281 B raw. The Permissions page's own files are
167,501 B raw and Helm's 136,346 B (its gzip inflate, `flate2` on
`miniz_oxide`, among them); the rest is chunks they share with other
pages. Custom columns (the JSONPath reader, in the table's part) came to
about 40 KB. The main module grew 8,462 B (1,429,452 B raw, 428,446 B
brotli, 556,855 B gzip: the route's `c=` and the two top-bar links), within
its limits. `node hack/wasm-parts.mjs` prints each page's part; the
every-part limit is now about 2% over the new sum.

The relationship map (#42's last page, 2026-12-07) is a part of its own:
227,658 B raw with the chunks it loads, 92,026 B brotli over the wire the
first time it is opened, 177,894 B of it its own (the rules that read
objects, join, cut and lay out the graph, in `kubeglass_kubectl::map`,
and the page). Every part went from 3,949,137 B to 4,146,342 B raw; the
main module to 1,432,480 B (the route and the top bar's link), within its
limits. The every-part limit is now about 2% over the new sum.

Issue #41's last item (2026-12-08: one watch per collection across the
tabs of a cluster, `kubeglass_client::tabs` and the browser's
BroadcastChannel and Web Locks, needed before the first page's first
watch) took the main module from 1,432,559 B to 1,459,597 B raw (+27,038),
429,888 to 439,118 B brotli, 557,610 to 568,904 B gzip. Its first build
took +48,041 B raw; naming the channel by what is asked (no hash), reading
an event's version through serde_json's `Value` (no typed reader of its
own), copying the request with the client's own copy, and keeping the few
shares and rings in Vecs (no BTreeMap removal code) cut 21,359 B of that.
The main module's limits are now about 2% over those figures.

Usage: check-wasm-budget.py [dist]
"""

import sys
from pathlib import Path

BUDGET = {"": 1_489_000, ".br": 448_000, ".gz": 580_300}
NAMES = {"": "raw", ".br": "brotli", ".gz": "gzip"}
ALL_PARTS_RAW = 4_230_000


def main() -> int:
    dist = Path(sys.argv[1] if len(sys.argv) > 1 else "dist")
    mains = sorted(dist.glob("*_bg.wasm"))
    if len(mains) != 1:
        print(f"check-wasm-budget: expected one main module *_bg.wasm in {dist}, found {len(mains)} (run hack/build-app.sh)")
        return 1
    parts = sorted(dist.glob("*.wasm"))
    if len(parts) < 2:
        print(f"check-wasm-budget: only {len(parts)} wasm file in {dist}: the build did not split it by page")
        return 1
    over = []
    for suffix, limit in BUDGET.items():
        f = Path(f"{mains[0]}{suffix}")
        if not f.exists():
            over.append(f"{f.name} is missing (hack/build-app.sh writes it)")
            continue
        size = f.stat().st_size
        print(f"first page's wasm {NAMES[suffix]}: {size:,} B of {limit:,} B")
        if size > limit:
            over.append(f"the first page's {NAMES[suffix]} {size:,} B is over its budget of {limit:,} B")
    total = sum(p.stat().st_size for p in parts)
    print(f"every part ({len(parts)} files) raw: {total:,} B of {ALL_PARTS_RAW:,} B")
    if total > ALL_PARTS_RAW:
        over.append(f"every part summed, {total:,} B raw, is over its budget of {ALL_PARTS_RAW:,} B")
    for o in over:
        print(f"check-wasm-budget: {o}; see what grew with hack/wasm-size.sh")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
