#!/bin/sh
# Wall time and CPU time (user + system) of two binaries running the same arguments on every core the
# shell may use, in alternated pairs (the order swapped every pair), each run with a fresh, empty
# GEOCODE_CACHE_DIR (and `{fresh}` in the arguments replaced by it): a first run, as the README's first
# command is. alternate_cpu.sh measures one core's CPU; this measures what a user waits for, and what the
# parallelism costs in CPU. On this shared VM single runs vary widely with the load, so the medians of the
# per-pair ratios B/A are the figures to quote, with the load average beside each run.
# Prints "A wall_s cpu_s maxrss_kb load" / "B ..." per run, then the medians and the median pair ratios.
#   Benchmarks/bench/alternate_wall.sh A_BINARY B_BINARY PAIRS ARGUMENT...
# ALTERNATE_PIN, when set, is a command each run is started under (alternate_cpu.sh: `taskset -c 0`).
set -eu
A=$1; B=$2; PAIRS=$3; shift 3
pin=${ALTERNATE_PIN:-}
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
        load=$(cut -d' ' -f1 /proc/loadavg)
        GEOCODE_CACHE_DIR="$tmp/fresh" /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" $pin "$bin" "$@" >/dev/null 2>&1
        echo "$X $(awk '{printf "%.3f %.3f %d", $1, $2 + $3, $4}' "$tmp/time") $load"
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
def col(x, i): return [float(r[i]) for r in runs if r[0] == x]
for i, what in [(1, "wall"), (2, "cpu")]:
    a, b = col("A", i), col("B", i)
    print(f"{what}: A median {statistics.median(a):.3f} s, B median {statistics.median(b):.3f} s, "
          f"median pair ratio B/A {statistics.median(y / x for x, y in zip(a, b)):.3f}")
PY
