#!/usr/bin/env bash
# Geocodes generated points with PySpark in local mode and with `geocode batch` directly, compares every
# row, checks a retried task, and prints both throughputs. Not part of CI (a 1 M-row run takes minutes).
#
#   Integrations/spark/test.sh                 # 1,000,000 rows (the default)
#   Integrations/spark/test.sh --rows 20000    # quick check, well under a minute after setup
#   options: --rows N  --partitions P  --seed S  --fault-rows N (0 skips the retry and spark-submit checks)
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
  "$here/.venv/bin/pip" install --quiet 'pyspark[sql]>=3.4' 'pandas<3'
fi
if [ ! -x "$binary" ]; then
  echo "building $binary ..."
  (cd "$root" && swift build -c release --product geocode)
fi
py="$here/.venv/bin/python"
"$py" "$here/compare.py" --binary "$binary" --data "$data" "$@"

# The documented spark-submit route: binary by --files, data by --archives NAME#geocode-data, this
# module by --py-files, on the retry test's points (its direct run is already in work/).
work="$here/work"
points="$work/fault-points.csv"
if [ -f "$points" ] && [ -f "$work/direct-fault.ndjson" ]; then
  "$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); import geocode_spark as g; g.make_data_archive(sys.argv[2], sys.argv[3])' \
    "$here" "$data" "$work/geocode-data.tar.gz"
  echo "spark-submit --master local[2] --files geocode --archives geocode-data.tar.gz#geocode-data --py-files geocode_spark.py example_job.py ..."
  start=$(date +%s)
  PYSPARK_PYTHON="$py" "$here/.venv/bin/spark-submit" --master 'local[2]' \
    --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 --conf spark.ui.enabled=false \
    --files "$binary" --archives "$work/geocode-data.tar.gz#geocode-data" --py-files "$here/geocode_spark.py" \
    "$here/example_job.py" "$points" "$work/submit-out" --fields all 2> "$work/submit.log" \
    || { tail -n 30 "$work/submit.log" >&2; echo "FAIL: spark-submit" >&2; exit 1; }
  echo "spark-submit finished in $(( $(date +%s) - start )) s"
  "$py" "$here/compare.py" --binary "$binary" --data "$data" --check-only "$work/submit-out" "$work/direct-fault.ndjson" \
    "$(( $(wc -l < "$points") - 1 ))"
fi
