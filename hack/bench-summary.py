#!/usr/bin/env python3
"""Summarises bench-informer.jsonl: median lines as a Markdown table with
ratios to client-go over JSON, and speed against client-go over protobuf."""
import json
import sys

rows = {}
for line in open(sys.argv[1]):
    ns, _, body = line.strip().partition(" ")
    if not body.startswith("{"):
        continue
    d = json.loads(body)
    if d.get("run") != "median":
        continue
    rows[(ns, d["mode"], d["impl"])] = d

print("| objects | mode | implementation | objects | time to sync | objects/s | µs/object | heap B/object | speed vs client-go | heap vs client-go | speed vs client-go protobuf |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for (ns, mode, impl), d in sorted(rows.items()):
    base = rows.get((ns, mode, "client-go"))
    speed = heap = ""
    if base and d["seconds"]:
        speed = f"{base['seconds'] / d['seconds']:.2f}×"
    if base and d.get("heap_bytes_per_object") and base.get("heap_bytes_per_object"):
        heap = f"{d['heap_bytes_per_object'] / base['heap_bytes_per_object']:.2f}×"
    proto = rows.get((ns, mode, "client-go-protobuf"))
    vs_proto = f"{proto['seconds'] / d['seconds']:.2f}×" if proto and d["seconds"] else ""
    print(f"| {ns} | {mode} | {impl} | {d['objects']} | {d['seconds']:.3f} s | {d['objects_per_second']:.0f} | "
          f"{d['ns_per_object'] / 1000:.1f} | {d.get('heap_bytes_per_object') or 0:.0f} | {speed} | {heap} | {vs_proto} |")
