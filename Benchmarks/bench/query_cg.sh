#!/usr/bin/env bash
# Instructions and simulated cache misses per query under callgrind for Benchmarks/results/query-speed.md:
# (count at --rounds 3 - count at --rounds 1) / (2 rounds * 2 walks per round * points), one thread, so
# loading and first-use costs cancel out. A 48 KB L1d and a 2 MB last level (this machine's L1d and its
# L2 per core; the shared L3 is busy with the other jobs), so "LL misses" are the loads that leave the
# core: the chain of misses a border point pays. Deterministic, unlike timings on a loaded machine.
#   query_cg.sh BIN CACHE_DIR POINTS_F64 [--data DIR] [geocode-bench ours options...]
# `--manifest` and `--overlay` name datasets of the data directory (DIR, else this repository's Data/):
# `--manifest china --overlay timezones`, or paths inside it. Prints the data directory and its commit.
set -eu
BIN=$1; CACHE=$2; P=$3; shift 3
. "$(dirname "$0")/cg_data.sh"
cg_bench_args "$@"
set -- "${CG_ARGS[@]}"
n=$(( $(stat -c %s "$P") / 16 ))
cg() { valgrind --tool=callgrind --cache-sim=yes --D1=49152,12,64 --LL=2097152,16,64 --callgrind-out-file=/dev/null \
        "$BIN" ours --cache "$CACHE" --threads 1 --passes 1 --rounds "$1" --latency 0 --points "$P" "${@:2}" 2>&1 >/dev/null; }
a=$(cg 1 "$@"); b=$(cg 3 "$@")
get() { echo "$1" | grep -o "$2 *[0-9,]*" | head -1 | tr -d ',' | grep -o "[0-9]*$"; }
python3 -c "
n=$n*2*2
print('Ir/query %.1f  D1 misses/query %.2f  LL misses/query %.3f' % (($(get "$b" 'refs:')-$(get "$a" 'refs:'))/n,
  ($(get "$b" 'D1  misses:')-$(get "$a" 'D1  misses:'))/n, ($(get "$b" 'LLd misses:')-$(get "$a" 'LLd misses:'))/n))"
