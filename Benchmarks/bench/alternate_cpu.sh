#!/bin/sh
# One-core CPU time (user + system) of two binaries running the same arguments, in alternated pairs (the
# order swapped every pair): on this shared VM single runs vary by ±15 %, so the median of the per-pair
# ratios B/A is the figure to quote. Each run gets a fresh, empty directory wherever an argument is
# `{fresh}` (a cache to build), and GEOCODE_CACHE_DIR points at it too.
# Prints what alternate_wall.sh prints (the same loop, each run under `taskset -c 0`): "A wall_s cpu_s peak_kb
# load" / "B ..." per run, then the medians and median pair ratios; on one core the cpu line is the figure.
#   Benchmarks/bench/alternate_cpu.sh A_BINARY B_BINARY PAIRS ARGUMENT...
exec env ALTERNATE_PIN="taskset -c 0" "$(dirname "$0")/alternate_wall.sh" "$@"
