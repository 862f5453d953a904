#!/usr/bin/env bash
# Two builds of the same benchmark, A and B (say main's and a branch's), run alternately so
# that a change in the shared host's speed falls on both, A first in odd pairs and B first
# in even ones. Prints each pair's CPU seconds (for upsert, multiples of the C API's CPU
# time) and B ÷ A, then the median of the ratios.
#
#     Benchmarks/scripts/ab-pairs.sh A_DIR B_DIR PHASE [PAIRS]
#
# A_DIR and B_DIR hold the release executables. PHASE is a core-data-benchmarks phase
# (insert, fetch-by-id, …; every phase but insert runs on a store the insert phase of the
# same build writes first, untimed), `upsert` (`upsert-benchmarks 3` each, comparing
# the upsert's CPU time as a multiple of the C API's in the same run) or `cascade`
# (graph-benchmarks' timed cascade delete of 100,001 objects, its tree written untimed).
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n 2,13p "$0" >&2; exit 2; }
A=$1 B=$2 PHASE=$3 PAIRS=${4:-9}
for dir in "$A" "$B"; do
    tool=core-data-benchmarks; [[ $PHASE == upsert ]] && tool=upsert-benchmarks
    [[ $PHASE == cascade ]] && tool=graph-benchmarks
    [[ -x "$dir/$tool" ]] || { echo "ab-pairs: $dir/$tool is missing" >&2; exit 1; }
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# CPU seconds of one run of build $1.
cpu_of() {
    local dir=$1 db="$scratch/run.sqlite"
    if [[ $PHASE == upsert ]]; then
        # "CPU time (user + system), medians: SQLite 21.0 ms (1.00×), GRDB …, upsert 61.2 ms (2.91×), …"
        "$dir/upsert-benchmarks" 3 2>/dev/null | sed -n 's/^CPU time.*, upsert [0-9.]* ms (\([0-9.]*\)×).*/\1/p'
        return
    fi
    rm -f "$db" "$db-wal" "$db-shm"
    if [[ $PHASE == cascade ]]; then
        "$dir/graph-benchmarks" --subject opencoredata --phase cascade --db "$db" \
            | python3 -c 'import json, sys; print("%.4f" % json.loads(sys.stdin.readlines()[-1])["cpuSeconds"])'
        return
    fi
    if [[ $PHASE != insert ]]; then
        "$dir/core-data-benchmarks" --subject opencoredata --phase insert --db "$db" > /dev/null
    fi
    "$dir/core-data-benchmarks" --subject opencoredata --phase "$PHASE" --db "$db" \
        | python3 -c 'import json, sys; print("%.4f" % json.loads(sys.stdin.readlines()[-1])["cpuSeconds"])'
}

unit=s; [[ $PHASE == upsert ]] && unit=×
ratios=()
for ((pair = 1; pair <= PAIRS; pair++)); do
    if ((pair % 2)); then a=$(cpu_of "$A"); b=$(cpu_of "$B"); else b=$(cpu_of "$B"); a=$(cpu_of "$A"); fi
    ratio=$(python3 -c "print(f'{$b / $a:.3f}')")
    ratios+=("$ratio")
    echo "pair $pair: A $a $unit, B $b $unit, B/A $ratio"
done
python3 -c "import statistics, sys; r = [float(x) for x in sys.argv[1:]]; print(f'median B/A {statistics.median(r):.3f} (range {min(r):.3f}-{max(r):.3f}, {len(r)} pairs)')" "${ratios[@]}"
