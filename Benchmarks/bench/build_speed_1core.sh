#!/bin/sh
# One-core index build CPU time of one layer (the growth bench's), A against B, in many alternated pairs
# (alternate_cpu.sh): the median of the per-pair ratios B/A is the figure to quote.
#   Benchmarks/bench/build_speed_1core.sh A_BINARY B_BINARY DATASET_DIR POINTS PAIRS
# A and B are geocode-bench binaries; DATASET_DIR holds the bench manifest.json (as for build_speed.sh).
set -eu
exec "$(dirname "$0")/alternate_cpu.sh" "$1" "$2" "$5" ours --manifest "$3/manifest.json" --points "$4" --datum gcj02 \
    --cache "{fresh}" --load-only yes
