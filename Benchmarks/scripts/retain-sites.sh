#!/bin/bash
# Counts the swift_retain and swift_release calls of one upsert by a save (the timed part of
# `upsert-benchmarks --upsert-only`), by call site, through perf's uprobes on the Swift
# runtime. Each call is an atomic operation of a few nanoseconds, and a third of the upsert's
# time was spent in them (r16 pass, Benchmarks/README.md).
#
#     Benchmarks/scripts/retain-sites.sh [BUILD_DIR] [TOP]
#
# BUILD_DIR holds upsert-benchmarks and libOpenCoreData.so (default: Benchmarks/.build/release).
# Needs root (uprobes) and perf; about two minutes. The total it prints misses the calls whose
# stacks the frame-pointer unwinder cannot follow to the upsert: compare builds with
# retain-count.sh, which counts every call.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../.build/release}
top=${2:-80}
source "$here/runtime-probes.sh"
add_runtime_probes swift_retain swift_release
data=$(mktemp /tmp/retain-sites.XXXXXX)
trap 'rm -f "$data"' EXIT
SWIFT_DETERMINISTIC_HASHING=1 perf record -q -e probe_libswiftCore:swift_retain -e probe_libswiftCore:swift_release -g \
    -o "$data" "$build/upsert-benchmarks" 1 --upsert-only > /dev/null
perf script -i "$data" -F event,ip,sym 2>/dev/null | python3 "$here/retain-sites.py" "$build/libOpenCoreData.so" "$top"
