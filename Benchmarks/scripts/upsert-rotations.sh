#!/usr/bin/env bash
# Issue 14's upsert goal measured in rotations: each round runs `upsert-benchmarks REPS` once
# per build given, in turn, so that a change in the shared host's speed falls on every build
# alike. Prints each run's wall and CPU multiples of the hand-written C upsert in the same
# process, with the C upsert's CPU milliseconds (the host's speed at that moment), then
# each build's medians and ranges.
#
#     Benchmarks/scripts/upsert-rotations.sh ROUNDS DIR [DIR…]    (REPS=7 by default)
#
# Each DIR holds a release build's upsert-benchmarks (and its libOpenCoreData.so).
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n 2,10p "$0" >&2; exit 2; }
rounds=$1; shift
reps=${REPS:-7}
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for (( round = 1; round <= rounds; round++ )); do
    for dir in "$@"; do
        out=$("$dir/upsert-benchmarks" "$reps" 2>/dev/null)
        wall=$(sed -n 's/^| OpenCoreData, constraint + object trump (upsert) | [0-9.]* ms | \([0-9.]*\) |$/\1/p' <<< "$out")
        cpu=$(sed -n 's/^CPU time.*, upsert [0-9.]* ms (\([0-9.]*\)×).*/\1/p' <<< "$out")
        sql=$(sed -n 's/^CPU time (user + system), medians: SQLite \([0-9.]*\) ms.*/\1/p' <<< "$out")
        printf '%s\t%s\t%s\t%s\n' "$dir" "$wall" "$cpu" "$sql" >> "$results"
        printf 'round %d  %-40s wall %s×  CPU %s×  (C upsert %s ms CPU, load %s)\n' \
            "$round" "$dir" "$wall" "$cpu" "$sql" "$(cut -d' ' -f1 /proc/loadavg)"
    done
done
python3 - "$results" "$@" <<'PY'
import statistics, sys
rows = [line.rstrip('\n').split('\t') for line in open(sys.argv[1])]
for build in sys.argv[2:]:
    mine = [r for r in rows if r[0] == build]
    wall = [float(r[1]) for r in mine]; cpu = [float(r[2]) for r in mine]
    print(f"{build}: wall median {statistics.median(wall):.2f}× ({min(wall):.2f}–{max(wall):.2f}), "
          f"CPU median {statistics.median(cpu):.2f}× ({min(cpu):.2f}–{max(cpu):.2f}), {len(mine)} runs")
PY
