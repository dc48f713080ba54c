#!/bin/bash
# Alternated whole-process runs of `geocode batch` binaries (A B A B ...), for 1- vs 2-thread CPU and wall
# on a shared machine: ROUNDS rounds of, for each binary, `-j 1`, `-j 2` and a 1-row run (the load alone),
# `--max-distance 0`, each under GNU time ("NAME jN wall user sys maxrss_kB"), with `uptime` after each
# round. Results in Benchmarks/results/endtoend.md.
#
#   Benchmarks/bench/alternate.sh ROUNDS IN.csv LOG NAME=BINARY [NAME=BINARY ...]
set -euo pipefail
rounds=$1; input=$2; log=$3; shift 3
data="$(cd "$(dirname "$0")/../.." && pwd)/Data"
one=$(mktemp --suffix=.csv); out=$(mktemp --suffix=.csv)
printf 'id,lat,lon\n0,48.8566,2.3522\n' > "$one"
uptime >> "$log"
for _ in $(seq "$rounds"); do
  for pair in "$@"; do
    name=${pair%%=*}; bin=${pair#*=}
    for j in 1 2; do
      /usr/bin/time -f "$name j$j %e %U %S %M" -a -o "$log" "$bin" batch -q -j "$j" --max-distance 0 --data "$data" "$input" -o "$out"
    done
    /usr/bin/time -f "$name one %e %U %S %M" -a -o "$log" "$bin" batch -q -j 1 --max-distance 0 --data "$data" "$one" -o "$out"
  done
  uptime >> "$log"
done
rm -f "$one" "$out"
