#!/bin/sh
# One-core CPU of a whole `geocode index` (every dataset of a data directory read, indexed and written
# to a fresh cache), A against B in alternated pairs (the order swapped every pair): the build a user's
# first run pays. Prints "A user sys wall peak_kb load" / "B ..." per run, then the medians of user +
# system and the median pair ratio B/A.
#   Benchmarks/bench/index_speed_1core.sh A_GEOCODE B_GEOCODE DATA_DIR PAIRS
set -eu
A=$1; B=$2; DATA=$3; PAIRS=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
r=1
while [ $r -le "$PAIRS" ]; do
    if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
    for X in $order; do
        if [ "$X" = A ]; then bin=$A; else bin=$B; fi
        rm -rf "$tmp/cache"
        GEOCODE_CACHE_DIR="$tmp/cache" /usr/bin/time -f "%U %S %e %M" -o "$tmp/time" taskset -c 0 "$bin" index --data "$DATA" >/dev/null 2>&1
        echo "$X $(cat "$tmp/time") $(cut -d' ' -f1 /proc/loadavg)"
    done
    r=$((r + 1))
done | tee "$tmp/runs"
python3 - "$tmp/runs" <<'PY'
import statistics, sys
runs = [line.split() for line in open(sys.argv[1])]
cpu = {k: [float(r[1]) + float(r[2]) for r in runs if r[0] == k] for k in "AB"}
print(f"A median {statistics.median(cpu['A']):.2f} s, B median {statistics.median(cpu['B']):.2f} s of CPU, "
      f"median pair ratio B/A {statistics.median(b / a for a, b in zip(cpu['A'], cpu['B'])):.3f}")
PY
