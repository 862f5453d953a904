#!/usr/bin/env bash
# A cpu-clock profile of only the timed part of one OpenCoreData run: a uprobe on the
# subject's `run` marks where the clock starts, and the samples before it (the untimed
# set-up) are dropped. Writes OUT.txt (perf script: time, event, ip, symbol per frame);
# summarize it with perf-fold.py.
#
#     Benchmarks/scripts/profile-timed.sh BUILD_DIR cascade|PHASE OUT [RUNS]
#
# `cascade` profiles graph-benchmarks' cascade delete; any other PHASE is a
# core-data-benchmarks phase (its store written first by the insert phase, unprofiled).
# RUNS (default 3) runs are appended to one OUT.txt. Needs root and perf. Frames through
# SQLite and glibc (no frame pointers) lose their callers: inclusive figures undercount.
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n 2,12p "$0" >&2; exit 2; }
B=$1 PHASE=$2 OUT=$3 RUNS=${4:-3}
if [[ $PHASE == cascade ]]; then
    BIN=$B/graph-benchmarks; pattern='OpenCoreDataGraphV3runys5Int64VAA0F5PhaseOKF$'
else
    BIN=$B/core-data-benchmarks; pattern='OpenCoreDataSubjectV3runySiAA5PhaseOKF$'
fi
symbol=$(nm "$BIN" | awk -v p="$pattern" '$3 ~ p {print $3}')
[[ -n $symbol ]] || { echo "profile-timed: no run symbol in $BIN" >&2; exit 1; }
group=timed$$   # a probe group of this run's own: runs side by side keep their probes
perf probe -q -x "$BIN" --add "$group:run=$symbol" >/dev/null
trap 'perf probe -q -d "$group:*" || true' EXIT
: > "$OUT.txt"
for ((run = 0; run < RUNS; run++)); do
    rm -f "$OUT.sqlite" "$OUT.sqlite-wal" "$OUT.sqlite-shm"
    if [[ $PHASE == cascade ]]; then
        args=(--subject opencoredata --phase cascade --db "$OUT.sqlite")
    else
        [[ $PHASE == insert ]] || "$BIN" --subject opencoredata --phase insert --db "$OUT.sqlite" > /dev/null
        args=(--subject opencoredata --phase "$PHASE" --db "$OUT.sqlite")
    fi
    perf record -q -e cpu-clock -F 4000 -e "$group:run" --call-graph fp -o "$OUT.data" -- "$BIN" "${args[@]}" > /dev/null
    # Keep the samples after the probe's first hit.
    perf script -i "$OUT.data" -F time,event,ip,sym 2>/dev/null | python3 -c '
import sys
started, kept = False, []
for block in sys.stdin.read().split("\n\n"):
    if not block.strip(): continue
    if ":run" in block.split("\n")[0]: started = True; continue
    if started: kept.append(block)
sys.stdout.write("\n\n".join(kept) + "\n\n")' >> "$OUT.txt"
done
echo "profile-timed: $(grep -c cpu-clock "$OUT.txt") samples in $OUT.txt"
