#!/usr/bin/env bash
# Instructions per query under callgrind for the overlay measurements (Benchmarks/results/overlay.md):
# (Ir at --rounds 5 - Ir at --rounds 1) / (4 rounds * 2 walks per round * points), one thread, warm caches,
# so loading and first-use costs cancel out. Instruction counts do not depend on the machine's load.
# usage: overlay_cg.sh [--data DIR] BIN MANIFEST DATUM POINTS_F64 [OVERLAY_MANIFEST[,...]]
# MANIFEST and the overlays name datasets of the data directory (DIR, else this repository's Data/), or are
# paths inside it. Prints the data directory and its commit.
set -u
data=
if [ "${1:-}" = --data ]; then data=$2; shift 2; fi
BIN=$1; M=$2; D=$3; P=$4; O=${5:-}
. "$(dirname "$0")/cg_data.sh"
cg_data_dir "$data"
M=$(cg_manifest "$M") || exit 2
n=$(( $(stat -c %s "$P") / 16 ))
extra=()
if [ -n "$O" ]; then O=$(cg_manifests "$O") || exit 2; extra=(--overlay "$O"); fi
# The script's own cache directory, one per binary.
cache=/tmp/ov-cg-cache-$(echo "$BIN" | md5sum | cut -c1-8)
mkdir -p "$cache"
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" ours --cache "$cache" --threads 1 --passes 1 --rounds "$1" \
        --latency 0 --manifest "$M" --points "$P" --datum "$D" "${extra[@]}" 2>&1 >/dev/null | grep -o "refs: *[0-9,]*" | tr -d ',' | grep -o "[0-9]*$"; }
# The index built (or its cache checked) natively first: building it under valgrind takes long.
"$BIN" ours --cache "$cache" --load-only yes --manifest "$M" --points "$P" --datum "$D" "${extra[@]}" >/dev/null || exit 1
a=$(ir 1); b=$(ir 5)
python3 -c "print('$(basename $(dirname $(dirname $BIN)))', '$(basename $(dirname $M))', '$D', '${O:+overlay}', round(($b-$a)/(4*$n*2),1), 'instructions/query')"
