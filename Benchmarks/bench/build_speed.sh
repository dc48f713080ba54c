#!/bin/sh
# Index build time, A (main's geocode-bench) against B (this branch's), alternated on the same load:
# each round builds the dataset's cache from its shapefiles once with A and once with B (order swapped
# every round), on one core (taskset -c 0) and on all cores; prints one line per run and the md5 of
# every cache written (A's and B's must be the same bytes). build_s is the engine's load time (index
# built from the shapefiles and the cache written), wall; cpu_s the process's user + system CPU time,
# which a loaded machine moves much less than the wall time.
#   Benchmarks/bench/build_speed.sh A_BINARY B_BINARY DATASET_DIR POINTS ROUNDS OUT_DIR
# DATASET_DIR holds the bench manifest.json (Benchmarks/bench/common.py prepare_layer's).
set -eu
A=$1; B=$2; DATA=$3; POINTS=$4; ROUNDS=$5; OUT=$6
mkdir -p "$OUT"
run() {  # label binary cores round
    cache="$OUT/cache-$1-$3-$4"
    rm -rf "$cache"
    if [ "$3" = 1 ]; then pre="taskset -c 0"; else pre=""; fi
    load=$(cut -d' ' -f1 /proc/loadavg)
    s=$(nice -n -15 /usr/bin/time -f "%U %S" -o "$OUT/time" $pre "$2" ours --manifest "$DATA/manifest.json" --points "$POINTS" \
        --datum gcj02 --cache "$cache" --load-only yes 2>/dev/null | sed -n 's/.*"load_s" : \([0-9.]*\).*/\1/p')
    cpu=$(awk '{printf "%.2f", $1 + $2}' "$OUT/time")
    echo "$1 cores=$3 round=$4 build_s=$s cpu_s=$cpu load=$load md5=$(cat "$cache"/*.geoidx | md5sum | cut -c1-12)"
    rm -rf "$cache"
}
r=1
while [ $r -le "$ROUNDS" ]; do
    for cores in 1 2; do
        if [ $((r % 2)) = 1 ]; then run A "$A" $cores $r; run B "$B" $cores $r; else run B "$B" $cores $r; run A "$A" $cores $r; fi
    done
    r=$((r + 1))
done
