#!/usr/bin/env python3
"""Fails when a public symbol of OpenCoreData has no `///` summary.

Reads the symbol graphs that `swift package dump-symbol-graph` writes (one file for the
module, one per module it extends) and lists, with file and line, every public or open
symbol whose documentation comment is missing or has an empty first line. Exit status 1
when there is any, so `make docs` (and CI) stops on an undocumented addition.

usage: check-doc-summaries.py SYMBOLGRAPH_DIR [MODULE]
"""
import glob
import json
import os
import sys


def summary(symbol):
    """The first non-empty line of the symbol's doc comment, or None."""
    comment = symbol.get("docComment") or {}
    for line in comment.get("lines", []):
        text = line.get("text", "").strip()
        if text:
            return text
    return None


def location(symbol):
    loc = symbol.get("location") or {}
    uri = loc.get("uri", "")
    path = uri[len("file://"):] if uri.startswith("file://") else uri
    path = os.path.relpath(path) if path else "?"
    line = loc.get("position", {}).get("line", -1) + 1
    return f"{path}:{line}"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    module = sys.argv[2] if len(sys.argv) > 2 else "OpenCoreData"
    files = sorted(glob.glob(os.path.join(directory, f"{module}.symbols.json")) +
                   glob.glob(os.path.join(directory, f"{module}@*.symbols.json")))
    if not files:
        sys.exit(f"error: no symbol graph for {module} in {directory}")
    missing, total = [], 0
    for path in files:
        with open(path, encoding="utf-8") as handle:
            graph = json.load(handle)
        for symbol in graph.get("symbols", []):
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            name = ".".join(symbol.get("pathComponents", []))
            # Names starting with an underscore are implementation details by convention
            # (DocC hides them too).
            if any(part.startswith("_") for part in symbol.get("pathComponents", [])):
                continue
            total += 1
            if summary(symbol) is None:
                kind = symbol.get("kind", {}).get("displayName", "symbol")
                missing.append(f"{location(symbol)}: {kind.lower()} {name} has no /// summary")
    for line in sorted(missing):
        print(line)
    if missing:
        print(f"error: {len(missing)} of {total} public symbols of {module} have no summary",
              file=sys.stderr)
        sys.exit(1)
    print(f"==> All {total} public symbols of {module} have a summary")


if __name__ == "__main__":
    main()
