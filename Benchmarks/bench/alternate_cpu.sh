#!/bin/sh
# One-core CPU time (user + system) of two binaries running the same arguments, in alternated pairs (the
# order swapped every pair): on this shared VM single runs vary by ±15 %, so the median of the per-pair
# ratios B/A is the figure to quote. Each run gets a fresh, empty directory wherever an argument is
# `{fresh}` (a cache to build), and GEOCODE_CACHE_DIR points at it too.
# Prints "A cpu_s peak_kb load" / "B ..." per run, then each binary's median and the median pair ratio.
#   Benchmarks/bench/alternate_cpu.sh A_BINARY B_BINARY PAIRS ARGUMENT...
set -eu
A=$1; B=$2; PAIRS=$3; shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
r=1
while [ $r -le "$PAIRS" ]; do
    if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
    for X in $order; do
        if [ "$X" = A ]; then bin=$A; else bin=$B; fi
        rm -rf "$tmp/fresh"
        for arg in "$@"; do
            if [ "$arg" = "{fresh}" ]; then set -- "$@" "$tmp/fresh"; else set -- "$@" "$arg"; fi
            shift
        done
        GEOCODE_CACHE_DIR="$tmp/fresh" /usr/bin/time -f "%U %S %M" -o "$tmp/time" taskset -c 0 "$bin" "$@" >/dev/null 2>&1
        echo "$X $(awk '{printf "%.3f %d", $1 + $2, $3}' "$tmp/time") $(cut -d' ' -f1 /proc/loadavg)"
        for arg in "$@"; do
            if [ "$arg" = "$tmp/fresh" ]; then set -- "$@" "{fresh}"; else set -- "$@" "$arg"; fi
            shift
        done
    done
    r=$((r + 1))
done | tee "$tmp/runs"
python3 - "$tmp/runs" <<'PY'
import statistics, sys
runs = [line.split() for line in open(sys.argv[1])]
a = [float(r[1]) for r in runs if r[0] == "A"]; b = [float(r[1]) for r in runs if r[0] == "B"]
print(f"A median {statistics.median(a):.3f} s, B median {statistics.median(b):.3f} s, "
      f"median pair ratio B/A {statistics.median(y / x for x, y in zip(a, b)):.3f}")
PY
