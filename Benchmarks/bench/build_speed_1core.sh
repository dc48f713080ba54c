#!/bin/sh
# One-core index build CPU time, A against B, in many alternated pairs (the order swapped every pair): on
# this shared VM single runs vary by ±15 %, so the median of the per-pair ratios B/A is the figure to quote.
# Prints "A cpu_s" / "B cpu_s" per run, then each binary's median and the median pair ratio.
#   Benchmarks/bench/build_speed_1core.sh A_BINARY B_BINARY DATASET_DIR POINTS PAIRS
# DATASET_DIR holds the bench manifest.json (as for build_speed.sh).
set -eu
A=$1; B=$2; DATA=$3; POINTS=$4; PAIRS=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
r=1
while [ $r -le "$PAIRS" ]; do
    if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
    for X in $order; do
        if [ "$X" = A ]; then bin=$A; else bin=$B; fi
        rm -rf "$tmp/cache"
        /usr/bin/time -f "%U %S" -o "$tmp/time" taskset -c 0 "$bin" ours --manifest "$DATA/manifest.json" --points "$POINTS" \
            --datum gcj02 --cache "$tmp/cache" --load-only yes >/dev/null 2>&1
        echo "$X $(awk '{printf "%.3f", $1 + $2}' "$tmp/time")"
    done
    r=$((r + 1))
done | tee "$tmp/runs"
python3 - "$tmp/runs" <<'PY'
import statistics, sys
runs = [line.split() for line in open(sys.argv[1])]
a = [float(v) for k, v in runs if k == "A"]; b = [float(v) for k, v in runs if k == "B"]
print(f"A median {statistics.median(a):.3f} s, B median {statistics.median(b):.3f} s, "
      f"median pair ratio B/A {statistics.median(y / x for x, y in zip(a, b)):.3f}")
PY
