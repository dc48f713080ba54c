#!/usr/bin/env bash
# Instructions per query under callgrind for the overlay measurements (Benchmarks/results/overlay.md):
# (Ir at --rounds 5 - Ir at --rounds 1) / (4 rounds * 2 walks per round * points), one thread, warm caches,
# so loading and first-use costs cancel out. Instruction counts do not depend on the machine's load.
# usage: overlay_cg.sh BIN MANIFEST DATUM POINTS_F64 [OVERLAY_MANIFEST[,...]]
set -u
BIN=$1; M=$2; D=$3; P=$4; O=${5:-}
n=$(( $(stat -c %s "$P") / 16 ))
extra=(); [ -n "$O" ] && extra=(--overlay "$O")
cache=/tmp/ov-cg-cache-$(echo "$BIN" | md5sum | cut -c1-8)
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" ours --cache "$cache" --threads 1 --passes 1 --rounds "$1" \
        --latency 0 --manifest "$M" --points "$P" --datum "$D" "${extra[@]}" 2>&1 >/dev/null | grep -o "refs: *[0-9,]*" | tr -d ',' | grep -o "[0-9]*$"; }
# (run the binary once natively with the same --cache first: building the index under valgrind takes long)
a=$(ir 1); b=$(ir 5)
python3 -c "print('$(basename $(dirname $(dirname $BIN)))', '$(basename $(dirname $M))', '$D', '${O:+overlay}', round(($b-$a)/(4*$n*2),1), 'instructions/query')"
