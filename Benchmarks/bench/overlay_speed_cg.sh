#!/usr/bin/env bash
# Instructions per query under callgrind for Benchmarks/results/overlay-speed.md:
# (Ir at --rounds 5 - Ir at --rounds 1) / (4 rounds * 2 walks per round * points), one thread, warm
# caches, so loading and first-use costs cancel out. Instruction counts do not depend on the load.
#   overlay_speed_cg.sh BIN CACHE_DIR POINTS_F64 [--data DIR] [geocode-bench ours options...]
# e.g. overlay_speed_cg.sh .build/release/geocode-bench /tmp/c /tmp/world.f64 --manifest world \
#        --overlay localities,timezones --lang en --datum wgs84
# `--manifest` and `--overlay` name datasets of the data directory (DIR, else this repository's Data/),
# or paths inside it. Prints the data directory and its commit.
# Build the caches natively first (same CACHE_DIR): building an index under valgrind takes long.
set -eu
BIN=$1; CACHE=$2; P=$3; shift 3
. "$(dirname "$0")/cg_data.sh"
cg_bench_args "$@"
set -- "${CG_ARGS[@]}"
n=$(( $(stat -c %s "$P") / 16 ))
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" ours --cache "$CACHE" --threads 1 --passes 1 \
        --rounds "$1" --latency 0 --points "$P" "${@:2}" 2>&1 >/dev/null | grep -o "refs: *[0-9,]*" | tr -d ',' | grep -o "[0-9]*$"; }
a=$(ir 1 "$@"); b=$(ir 5 "$@")
python3 -c "print(round(($b-$a)/(4*$n*2),1))"
