#!/usr/bin/env python3
"""Reads `perf script -F event,ip,sym` of swift_retain/swift_release uprobes from stdin and
prints the calls made inside the timed part of one upsert (samples under
`runOpenCoreData`, minus the untimed store copy, open, close and check; or under
RETAIN_SITES_ROOT minus RETAIN_SITES_UNTIMED, for another benchmark), by call site:
the first frame outside the Swift runtime and the standard library, with the source
lines `addr2line` gives for it in LIBRARY (inlined frames joined by `<-`)."""
import collections, subprocess, sys

import os
# The timed function's mangled name (a part of it), and frames beneath it that are not timed.
ROOT = os.environ.get('RETAIN_SITES_ROOT', '15runOpenCoreDataSdyKF')
UNTIMED = tuple(filter(None, os.environ.get('RETAIN_SITES_UNTIMED',
    'freshCopy NSPersistentStoreCfD NSPersistentStoreCoordinatorC6remove 5check loadPersistentStores 4open').split()))
RUNTIME = ('swift_', 'swift::', '_swift', '$ss', '$sS', 'tuple_', '__swift')

library, top = sys.argv[1], int(sys.argv[2])
total = collections.Counter()
sites = collections.Counter()
events = collections.defaultdict(collections.Counter)
event, frames = None, []

def flush():
    if event is None or len(frames) < 2:
        return
    symbols = [symbol for _, symbol in frames]
    roots = [i for i, symbol in enumerate(symbols) if ROOT in symbol]
    if not roots or any(u in symbol for symbol in symbols[:roots[-1]] for u in UNTIMED):
        return
    total[event] += 1
    for ip, symbol in frames[1:]:
        if symbol.startswith(RUNTIME) and 'OpenCoreData' not in symbol:
            continue
        sites[(symbol, ip)] += 1
        events[(symbol, ip)][event] += 1
        return

for line in sys.stdin:
    if not line.strip():
        continue
    if not line.startswith('\t'):
        flush()
        event, frames = ('retain' if 'retain' in line else 'release'), []
        continue
    parts = line.split(None, 1)
    if len(parts) == 2:
        frames.append((parts[0], parts[1].strip()))
flush()

print(f"retain + release calls in the timed upsert: {sum(total.values())} (retain {total['retain']}, release {total['release']})")
by_function = collections.Counter()
for (symbol, _), count in sites.items():
    by_function[symbol] += count
print('\nby function (first frame outside the runtime):')
for symbol, count in by_function.most_common(top // 2):
    print(f'{count:8d}  {symbol[:150]}')
print('\nby call site:')
for (symbol, ip), count in sites.most_common(top):
    lines = subprocess.run(['addr2line', '-e', library, '-i', '-f', '0x' + ip], capture_output=True, text=True).stdout.split('\n')
    chain = [f"{lines[i].replace('$s12OpenCoreData', '')[:40]}@{lines[i + 1].split('/')[-1]}"
             for i in range(0, len(lines) - 1, 2) if 'compiler-generated' not in lines[i + 1]]
    kinds = events[(symbol, ip)]
    print(f"{count:8d} (retain {kinds['retain']}, release {kinds['release']}) {ip} {symbol.replace('$s12OpenCoreData', '')[:70]}")
    print(f"          {' <- '.join(chain)[:300] or '(compiler-generated)'}")
