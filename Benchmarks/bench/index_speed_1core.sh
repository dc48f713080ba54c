#!/bin/sh
# One-core CPU of a whole `geocode index` (every dataset of a data directory read, indexed and written to a
# fresh cache): the build a user's first run pays. A against B in alternated pairs (alternate_cpu.sh).
#   Benchmarks/bench/index_speed_1core.sh A_GEOCODE B_GEOCODE DATA_DIR PAIRS
set -eu
exec "$(dirname "$0")/alternate_cpu.sh" "$1" "$2" "$4" index --data "$3"
