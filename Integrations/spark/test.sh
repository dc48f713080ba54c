#!/usr/bin/env bash
# Geocodes generated points with PySpark in local mode and with `geocode batch` directly, compares every
# row, checks a retried task, and prints both throughputs. Not part of CI (a 1 M-row run takes minutes).
#
#   Integrations/spark/test.sh                 # 1,000,000 rows (the default)
#   Integrations/spark/test.sh --rows 20000    # quick check, well under a minute after setup
#   options: --rows N  --partitions P  --seed S  --fault-rows N (0 skips the retry test)
#
# Needs Java 17+ and Python 3.9+. Sets up Integrations/spark/.venv with pyspark (about 500 MB, once) and
# builds .build/release/geocode if it is missing. Exit status 0 only when every row matched.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
binary="${GEOCODE_BINARY:-$root/.build/release/geocode}"
data="${GEOCODE_DATA:-$root/Data}"

command -v java >/dev/null || { echo "test.sh: Java is needed (apt-get install -y openjdk-17-jre-headless)" >&2; exit 2; }
if [ ! -x "$here/.venv/bin/python" ] || ! "$here/.venv/bin/python" -c 'import pyspark, pyarrow, pandas' 2>/dev/null; then
  echo "setting up $here/.venv with pyspark ..."
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet 'pyspark[sql]>=3.4'
fi
if [ ! -x "$binary" ]; then
  echo "building $binary ..."
  (cd "$root" && swift build -c release --product geocode)
fi
exec "$here/.venv/bin/python" "$here/compare.py" --binary "$binary" --data "$data" "$@"
