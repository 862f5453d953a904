#!/usr/bin/env bash
# One pass over issue 16's and issue 14's speed goals, in the order Benchmarks/README.md's
# tables list them, from the release build of this package:
#
#     swift build -c release --package-path Benchmarks
#     Benchmarks/scripts/final-pass.sh [BUILD_DIR] > pass.log 2>&1
#
# Prints the load average before each command: the shared host's speed moves with it.
set -euo pipefail
B=${1:-"$(dirname "$0")/../.build/release"}
for tool in core-data-benchmarks graph-benchmarks upsert-benchmarks; do
    [[ -x "$B/$tool" ]] || { echo "final-pass: $B/$tool is missing; build with swift build -c release --package-path Benchmarks" >&2; exit 1; }
done
step() {
    echo "==> $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg): $*"
    "$@"
}
for phase in insert fetch-by-id; do
    step "$B/core-data-benchmarks" --pairs 11 --phase "$phase" --only sqlite,grdb-fast,opencoredata
done
for phase in fetch-all fetch-all-typed update-all delete-all; do
    step "$B/core-data-benchmarks" --pairs 7 --phase "$phase" --only sqlite,grdb-fast,opencoredata
done
step "$B/core-data-benchmarks" --object-floor --repeat 5
# The same floors as subjects, each run a fresh process as OpenCoreData's is (since the r19
# pass), then each run on a heap an untimed run already paged in (--warm).
for warm in "" --warm; do
    step "$B/core-data-benchmarks" --pairs 11 --phase fetch-all --only object-floor-4,object-floor-6,opencoredata $warm
    step "$B/core-data-benchmarks" --pairs 11 --phase fetch-all-typed --only object-floor-3,object-floor-5,opencoredata $warm
done
step "$B/core-data-benchmarks" --by-id-floor --repeat 9
step "$B/graph-benchmarks"
step "$B/upsert-benchmarks" 7
