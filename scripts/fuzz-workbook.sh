#!/usr/bin/env bash
# Fuzzes the workbook's chapter parser and output matcher with libFuzzer for a bounded time.
#
#   scripts/fuzz-workbook.sh [seconds]     (default 30, for each target)
#
# Compiles the sources each target needs from Sources/WorkbookKit (the parser links the
# system libcmark) with -sanitize=fuzzer,address and its entry point in scripts/fuzz/,
# seeds a corpus, and runs until the time is up. A crash, a hang (-timeout) or a broken
# invariant stops the run with a reproducer file in the output directory. Exits non-zero
# if the fuzzer found a problem.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
# The Swift runtime's crash backtracer keeps the pipe below open after a crash; libFuzzer
# reports the crash itself.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
seconds="${1:-30}"
base="${FUZZ_OUT:-.build/fuzz-workbook}"
kit=Sources/WorkbookKit

fuzz() {
  local name="$1"; shift
  local out="$base/$name"
  mkdir -p "$out/corpus"
  # A binary left from an earlier run must not stand in for one that failed to compile.
  rm -f "$out/fuzz"
  echo "==> Compiling the $name fuzz target with -sanitize=fuzzer,address"
  swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name WorkbookKit -swift-version 6 \
    -I Sources/CCMark "$@" -o "$out/fuzz" 2>&1 | grep -v "Cannot export local symbol" || true
  if [ ! -x "$out/fuzz" ]; then
    echo "error: the $name fuzz target did not compile" >&2
    exit 1
  fi
  echo "==> Fuzzing the $name for ${seconds}s"
  set +e
  "$out/fuzz" "$out/corpus" -max_total_time="$seconds" -timeout=5 -max_len=4096 -detect_leaks=0 \
    -artifact_prefix="$out/" -print_final_stats=1 2>&1 | tee "$out/log.txt" | grep -E "^#[0-9]+.*(DONE|pulse)|stat::|ERROR|Fatal|SUMMARY|crash|timeout|deadly"
  local status=${PIPESTATUS[0]}
  set -e
  if [ "$status" -ne 0 ]; then
    echo "==> The fuzzer found a problem in the $name (exit $status); see $out/log.txt and $out/crash-* / timeout-*" >&2
    exit "$status"
  fi
  echo "==> No crash in the $name in ${seconds}s"
}

# Seeds: the fixture chapters and two small chapters with other line endings.
mkdir -p "$base/chapter-parser/corpus" "$base/output-matcher/corpus"
cp Tests/WorkbookKitTests/Fixtures/chapters/*.md "$base/chapter-parser/corpus/" 2>/dev/null || true
printf '# T\r\n\r\n```swift\r\nprint(1)\r\n```\r\n\r\n```output\r\n1\r\n```\r\n' > "$base/chapter-parser/corpus/crlf.md"
printf '# T\r\r\t```swift\r\tx\r\t```\r<!-- workbook: timeout=0 -->\r' > "$base/chapter-parser/corpus/cr.md"
printf 'id \xe2\x80\xa6\n\xe2\x80\xa6\nend \\u{2026}\n\xffid 7\nmore\nend \xe2\x80\xa6\n' > "$base/output-matcher/corpus/ellipsis"
printf 'a\\u{D}b\n\xffa\rb\x00c\n\\u{41}\n' > "$base/output-matcher/corpus/escapes"

fuzz chapter-parser $kit/Parsing/*.swift $kit/Model/Chapter.swift $kit/Model/RunResult.swift scripts/fuzz/ChapterParserFuzzEntry.swift
fuzz output-matcher $kit/Checking/OutputMatcher.swift $kit/Checking/OutputEscapes.swift scripts/fuzz/OutputMatcherFuzzEntry.swift
