#!/usr/bin/env bash
# Fuzzes the predicate format-string parser with libFuzzer for a bounded time.
#
#   scripts/fuzz-predicates.sh [seconds]     (default 30)
#
# Compiles the library's sources (Sources/OpenCoreData)
# with -sanitize=fuzzer,address and the entry point in scripts/fuzz/, seeds a corpus with
# example predicates, and runs until the time is up. A crash, a hang (-timeout), a stack
# overflow or a format that does not print back to itself stops the run with a reproducer
# file in the output directory. Exits non-zero if the fuzzer found a problem.
# Leak detection is off: corelibs Foundation's NSRegularExpression leaks its ICU state when
# a pattern does not compile (MATCHES with an invalid constant pattern), which is not ours.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
# The Swift runtime's crash backtracer keeps the pipe below open after a crash; libFuzzer
# reports the crash itself.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
seconds="${1:-30}"
out="${FUZZ_OUT:-.build/fuzz-predicates}"
mkdir -p "$out/corpus"

# The whole library, so that the parser is fuzzed exactly as it is built (its code reaches
# managed objects, errors and exceptions). The @Managed macro is declared but not used here,
# so no compiler plugin is needed.
sources=(
  $(find Sources/OpenCoreData -name '*.swift')
  scripts/fuzz/PredicateFuzzEntry.swift
)

# A binary left from an earlier run must not stand in for one that failed to compile.
rm -f "$out/fuzz-predicates"
echo "==> Compiling the Digest module the library imports"
mkdir -p "$out/modules"
swiftc -parse-as-library -O -module-name Digest -emit-module -emit-module-path "$out/modules/Digest.swiftmodule" \
  -emit-library -static -o "$out/libDigest.a" Sources/Digest/*.swift
echo "==> Compiling the library and the fuzz entry point with -sanitize=fuzzer,address"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name OpenCoreData \
  -swift-version 5 -I Sources/CSQLite -I Sources/CSwiftRuntime/include -I "$out/modules" -L "$out" -lDigest -lsqlite3 \
  "${sources[@]}" -o "$out/fuzz-predicates" 2>&1 | grep -v "Cannot export local symbol" || true
if [ ! -x "$out/fuzz-predicates" ]; then
  echo "error: the fuzz target did not compile" >&2
  exit 1
fi

seeds=(
  'name == "x"' 'rating > 3 AND name BEGINSWITH[cd] "a"' 'ANY hikes.rating >= 4' 'NONE tags IN {"a", "b"}'
  'SUBQUERY(hikes, $h, $h.rating > 3).@count > 0' 'hikes.@avg.distance < 2.5e3' '%K == %@' 'a[FIRST] == 1'
  'NOT (a == 1 OR b != 2)' 'name LIKE[c] "R*e?"' 'code MATCHES "[A-Z]+"' 'x BETWEEN {1, 0x10}'
  'created > CAST(585000000.5, "NSDate")' 'sum:(hikes.distance) > 4 * (2 + 1) ** 2' 'TERNARY(a > 1, "y", "n") == "y"'
  'FUNCTION(name, "uppercaseString") == "X"' '#in == $var' 'TRUEPREDICATE' 'lowercase(name) == %@' '{1, 2} UNION %@ CONTAINS 2'
)
i=0
for seed in "${seeds[@]}"; do
  printf '%s' "$seed" > "$out/corpus/seed$i"
  i=$((i + 1))
done

echo "==> Fuzzing for ${seconds}s"
set +e
"$out/fuzz-predicates" "$out/corpus" -max_total_time="$seconds" -timeout=5 -max_len=512 -detect_leaks=0 \
  -artifact_prefix="$out/" -print_final_stats=1 2>&1 | tee "$out/log.txt" | grep -E "^#[0-9]+.*(DONE|pulse)|stat::|ERROR|Fatal|SUMMARY|crash|timeout|deadly" 
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  echo "==> The fuzzer found a problem (exit $status); see $out/log.txt and $out/crash-* / timeout-*" >&2
  exit "$status"
fi
echo "==> No crash in ${seconds}s"
