#!/usr/bin/env python3
"""Summarizes profile-timed.sh's OUT.txt (perf script with time, event, ip, sym).

    perf-fold.py OUT.txt self [N]            the N symbols most often on top of the stack
    perf-fold.py OUT.txt incl [N]            the N symbols most often anywhere in it
    perf-fold.py OUT.txt callers REGEX [N]   for stacks through REGEX, its first caller
                                             outside the Swift runtime and Foundation
Percentages are of all samples.
"""
import collections, re, sys

path, mode = sys.argv[1], sys.argv[2]
pattern = re.compile(sys.argv[3]) if mode == "callers" else None
limit = int(sys.argv[4 if mode == "callers" else 3]) if len(sys.argv) > (4 if mode == "callers" else 3) else 45
runtime = re.compile(r"(swift_|\$ss|swift::|_swift|\$s10Foundation)")

blocks = [b for b in open(path).read().split("\n\n") if "cpu-clock" in b]
counts = collections.Counter()
for block in blocks:
    frames = [line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else "?" for line in block.strip().split("\n")[1:]]
    if not frames:
        continue
    if mode == "self":
        counts[frames[0]] += 1
    elif mode == "incl":
        counts.update(set(frames))
    elif mode == "callers":
        for index, frame in enumerate(frames):
            if pattern.search(frame):
                caller = index + 1
                while caller < len(frames) and runtime.match(frames[caller]):
                    caller += 1
                counts[frames[caller] if caller < len(frames) else "?"] += 1
                break
    else:
        sys.exit(__doc__)
for symbol, count in counts.most_common(limit):
    print(f"{100 * count / max(len(blocks), 1):6.2f}% {symbol[:150]}")
