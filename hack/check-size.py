#!/usr/bin/env python3
"""No room too big (run by `make test`).

- No Rust file of any crate (the app's `src/`, `crates/*`, `bench/`) is over
  500 lines, tests included.
- No function in `src/` or the launcher (`crates/glass/src/`) is over 80
  lines, counted from its `fn` line to its closing brace. A Leptos component
  is a function too: a long `view!` becomes smaller components.

Braces are counted outside strings, character literals and `//` comments,
which is enough for this tree's code (a check, not a parser): a miscount
shows as an absurd length and fails loudly rather than passing quietly.

Usage: check-size.py [--list]   (--list prints every function over 40 lines)
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FILE_LINES = 500
MAX_FN_LINES = 80
FILE_ROOTS = ["src", "crates", "bench"]
# Not ours to size: build output.
SKIP = ("target",)
FN_ROOTS = ["src", "crates/glass/src"]

FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(async\s+)?(const\s+)?(unsafe\s+)?fn\s+(\w+)")
STRING = re.compile(r'"(\\.|[^"\\])*"')
CHAR = re.compile(r"'(\\.|[^'\\])'")


def code(line):
    """The line without its strings, character literals and comment."""
    line = STRING.sub('""', line)
    line = CHAR.sub("''", line)
    return line.split("//")[0]


def functions(lines):
    """(name, first line, length) of every function with a body."""
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for j in range(i, len(lines)):
            text = code(lines[j])
            for ch in text:
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
            if opened and depth == 0:
                yield m.group(6), i + 1, j - i + 1
                break
            if not opened and text.rstrip().endswith(";"):
                break  # a declaration without a body (a trait's)


def main():
    listing = "--list" in sys.argv[1:]
    failures = []
    for root in FILE_ROOTS:
        for path in sorted((ROOT / root).rglob("*.rs")):
            if any(part in SKIP for part in path.relative_to(ROOT).parts):
                continue
            n = len(path.read_text().splitlines())
            if n > MAX_FILE_LINES:
                failures.append(f"{path.relative_to(ROOT)}: {n} lines (at most {MAX_FILE_LINES})")
    for root in FN_ROOTS:
        for path in sorted((ROOT / root).rglob("*.rs")):
            lines = path.read_text().splitlines()
            for name, first, length in functions(lines):
                where = f"{path.relative_to(ROOT)}:{first} fn {name}"
                if length > MAX_FN_LINES:
                    failures.append(f"{where}: {length} lines (at most {MAX_FN_LINES})")
                elif listing and length > 40:
                    print(f"{where}: {length} lines")
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print(f"{len(failures)} too big: split by idea (smaller components, named steps)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
