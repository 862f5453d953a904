#!/usr/bin/env bash
# The workbook's overhead: `workbook verify` on a cold cache against compiling and running
# the same generated sources with bare swiftc (the run.sh that `workbook sources` writes),
# and `workbook verify` on a warm cache.
#
# Usage: Benchmarks/workbook/bench.sh [ROUNDS] [CHAPTER...]   (default: 5 rounds, chapter 00)
# Prints medians in seconds. Not a test: nothing fails when the numbers are bad.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
rounds="${1:-5}"
shift || true
chapters=("${@:-00}")

swift build >/dev/null
wb=.build/debug/workbook
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
timed() { local start end; start=$(now); "$@" >/dev/null 2>&1 || true; end=$(now); calc "$end - $start"; }
calc() { awk "BEGIN { print $1 }"; }

for chapter in "${chapters[@]}"; do
  "$wb" sources "$chapter" --out "$scratch/$chapter" >/dev/null
done
baseline_all() { for chapter in "${chapters[@]}"; do sh "$scratch/$chapter/run.sh"; done; }

# Warm the file system and the compiler's module cache once, untimed.
baseline_all >/dev/null 2>&1 || true
"$wb" verify --no-cache --jobs 1 "${chapters[@]}" >/dev/null 2>&1 || true

baseline=(); cold=(); ratios=(); cold_parallel=(); warm=(); warm_book=()
for round in $(seq "$rounds"); do
  # Paired, in alternating order: the ratio of each pair cancels most of the drift of a
  # shared machine's load, and its median is the figure to read.
  if [ $((round % 2)) -eq 1 ]; then
    b_i="$(timed baseline_all)"; c_i="$(timed "$wb" verify --no-cache --jobs 1 "${chapters[@]}")"
  else
    c_i="$(timed "$wb" verify --no-cache --jobs 1 "${chapters[@]}")"; b_i="$(timed baseline_all)"
  fi
  baseline+=("$b_i"); cold+=("$c_i"); ratios+=("$(calc "$c_i / $b_i")")
  cold_parallel+=("$(timed "$wb" verify --no-cache "${chapters[@]}")")
  "$wb" verify "${chapters[@]}" >/dev/null 2>&1 || true
  warm+=("$(timed "$wb" verify "${chapters[@]}")")
  "$wb" verify >/dev/null 2>&1 || true
  warm_book+=("$(timed "$wb" verify)")
done

b=$(printf '%s\n' "${baseline[@]}" | median)
c=$(printf '%s\n' "${cold[@]}" | median)
p=$(printf '%s\n' "${cold_parallel[@]}" | median)
w=$(printf '%s\n' "${warm[@]}" | median)
wb_all=$(printf '%s\n' "${warm_book[@]}" | median)
printf 'chapters: %s; rounds: %s; cores: %s; %s\n' "${chapters[*]}" "$rounds" "$(nproc)" "$(swiftc --version 2>/dev/null | head -1)"
printf 'bare swiftc (compile + run, serial)     %6.2f s\n' "$b"
r=$(printf '%s\n' "${ratios[@]}" | median)
printf 'workbook verify, cold cache, --jobs 1   %6.2f s   median paired ratio %.3f (overhead %+.1f%%)\n' "$c" "$r" "$(calc "($r - 1) * 100")"
printf '  paired ratios: %s\n' "$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ printf "%.2f ", $1 }')"
printf 'workbook verify, cold cache, parallel   %6.2f s\n' "$p"
printf 'workbook verify, warm cache             %6.2f s\n' "$w"
printf 'workbook verify, warm cache, whole book %6.2f s\n' "$wb_all"
