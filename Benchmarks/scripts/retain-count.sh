#!/bin/bash
# The exact number of swift_retain and swift_release calls one upsert by a save makes, counted
# by perf's uprobes over whole `upsert-benchmarks N --upsert-only` processes: three upserts
# minus one, halved, so that what a process does once (making the store, loading the model)
# cancels out. Deterministic (the hashing seed is fixed), unlike retain-sites.sh's total,
# which loses the calls whose stacks the unwinder cannot follow; use this one to compare
# builds and retain-sites.sh to find where the calls are.
#
#     Benchmarks/scripts/retain-count.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../.build/release}
source "$here/runtime-probes.sh"
add_runtime_probes swift_retain swift_release
calls() {
    SWIFT_DETERMINISTIC_HASHING=1 perf stat -x, -e probe_libswiftCore:swift_retain -e probe_libswiftCore:swift_release \
        "$build/upsert-benchmarks" "$1" --upsert-only 2>&1 > /dev/null | awk -F, '/probe_libswiftCore/ { total += $1 } END { print total }'
}
one=$(calls 1)
three=$(calls 3)
echo "retain + release calls per upsert: $(( (three - one) / 2 ))"
