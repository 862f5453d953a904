#!/bin/bash
# The exact number of swift_retain, swift_release and swift_tryRetain calls per object of a
# core-data-benchmarks phase, counted by perf's uprobes on the Swift runtime over whole
# processes: the phase run on 30,000 rows minus the phase on 10,000, divided by 20,000, so
# that what a process does once (loading the model, opening the store) cancels out.
# Deterministic (the hashing seed is fixed): compare builds with it. retain-count.sh does
# the same for the upsert.
#
#     Benchmarks/scripts/phase-retain-count.sh [BUILD_DIR] [PHASE]
#
# BUILD_DIR holds core-data-benchmarks (default: Benchmarks/.build/release); PHASE is one of
# its phases (default fetch-all). Every phase but insert runs on a store that the insert
# phase of the same build writes first. Needs root (uprobes) and perf; about ten seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../.build/release}
phase=${2:-fetch-all}
source "$here/runtime-probes.sh"
add_runtime_probes swift_retain swift_release swift_tryRetain
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# "retains releases tryRetains" of one process running the phase on $1 rows.
calls() {
    local rows=$1 db="$scratch/rows-$1.sqlite"
    if [[ $phase != insert ]]; then
        BENCH_ROWS=$rows "$build/core-data-benchmarks" --subject opencoredata --phase insert --db "$db" > /dev/null
    fi
    SWIFT_DETERMINISTIC_HASHING=1 BENCH_ROWS=$rows perf stat -x, \
        -e probe_libswiftCore:swift_retain -e probe_libswiftCore:swift_release -e probe_libswiftCore:swift_tryRetain \
        "$build/core-data-benchmarks" --subject opencoredata --phase "$phase" --db "$db" 2>&1 > /dev/null \
        | awk -F, '/probe_libswiftCore/ { printf "%s ", $1 }'
}
small=$(calls 10000)
large=$(calls 30000)
python3 - "$phase" "$small" "$large" <<'PY'
import sys
phase, small, large = sys.argv[1], [int(x) for x in sys.argv[2].split()], [int(x) for x in sys.argv[3].split()]
retain, release, try_retain = ((b - a) / 20000 for a, b in zip(small, large))
print(f"{phase}, per object: retain {retain:.2f}, release {release:.2f}, retain + release {retain + release:.2f}; tryRetain {try_retain:.2f}")
PY
