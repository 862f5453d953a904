#!/bin/bash
# The exact number of swift_retain and swift_release calls of the timed cascade delete of
# `graph-benchmarks` (a tree of 100,001 nodes deleted through its root, then saved),
# counted by perf's uprobes on the Swift runtime: the counts are read every 10 ms and
# summed from the interval in which a temporary probe on the subject's `run` first fires,
# so the untimed building of the tree is left out (up to 10 ms of it may fall in). Deterministic
# up to that interval: compare builds with it.
#
#     Benchmarks/scripts/cascade-retain-count.sh [BUILD_DIR]
#
# BUILD_DIR holds graph-benchmarks (default: Benchmarks/.build/release). Needs root and perf.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../.build/release}
source "$here/runtime-probes.sh"
add_runtime_probes swift_retain swift_release
run='$s16graph_benchmarks17OpenCoreDataGraphV3runys5Int64VAA0F5PhaseOKF'
perf probe -q -d 'probe_graph:cascade_run' > /dev/null 2>&1 || true
perf probe -q -x "$build/graph-benchmarks" -a "probe_graph:cascade_run=$run"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; perf probe -q -d "probe_graph:cascade_run" > /dev/null 2>&1 || true' EXIT
SWIFT_DETERMINISTIC_HASHING=1 perf stat -I 10 -x, -o "$scratch/stat.txt" \
    -e probe_libswiftCore:swift_retain -e probe_libswiftCore:swift_release -e probe_graph:cascade_run \
    "$build/graph-benchmarks" --subject opencoredata --phase cascade --db "$scratch/tree.sqlite" > /dev/null
awk -F, '$4 ~ /cascade_run/ && $2 + 0 > 0 { on = 1 }
    on && $4 ~ /swift_retain/ { retains += $2 }
    on && $4 ~ /swift_release/ { releases += $2 }
    END { printf "retain + release calls in the timed cascade: %d (retain %d, release %d)\n", retains + releases, retains, releases }' "$scratch/stat.txt"
