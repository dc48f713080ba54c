#!/usr/bin/env bash
# The benchmark suite in one command (see Benchmarks/README.md):
#   Benchmarks/run.sh [--quick] [--data DIR] [--only ours,shapely,...] [--datasets china,world] [--points N]
# Installs what is missing (setup.sh), builds geocode-bench in release mode, runs every engine on the same
# points, checks their answers against ours, and writes Benchmarks/RESULTS.md (a full run of every engine)
# or Benchmarks/work/<profile>/RESULTS.md (quick or partial runs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
"$here/setup.sh" >&2
cd "$repo"
export BENCH_COMMAND="Benchmarks/run.sh${*:+ $*}"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
exec "$here/.venv/bin/python" -m bench.suite "$@"
