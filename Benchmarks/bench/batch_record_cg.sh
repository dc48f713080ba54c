#!/bin/sh
# Instructions per clean record of `geocode batch` under callgrind, -j 1, for one binary:
#   batch_record_cg.sh BIN TAG OUTDIR
# BIN: geocode-testgrid (the CLI over TestSupport's grid: the batch's own work, deterministic) or geocode
# (the engine: its background builds move the counts by tens of instructions a row). Writes
# OUTDIR/TAG-{20k,one}-IN-OUT.out for CSV→CSV, NDJSON→NDJSON, GeoJSON→CSV and GeoJSON→NDJSON;
# batch_record_cg.py makes the table. A release binary's DWARF stops valgrind: `strip -g` a copy first.
set -e
BIN=$1; TAG=$2; OUT=$3
mkdir -p "$OUT"
[ -f "$OUT/20k.geojson" ] || python3 "$(dirname "$0")/batch_record_inputs.py" "$OUT"
export SWIFT_DETERMINISTIC_HASHING=1 GEOCODE_TEST_LOOKUP=grid
for size in one 20k; do
  for run in "csv csv" "ndjson ndjson" "geojson csv" "geojson ndjson"; do
    set -- $run
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$TAG-$size-$1-$2.out" "$BIN" batch -q -j 1 "$OUT/$size.$1" -F "$2" \
      -o "$OUT/$TAG-$size-$1.$2" 2>"$OUT/$TAG-$size-$1-$2.log"
  done
done
