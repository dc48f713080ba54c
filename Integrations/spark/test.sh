#!/usr/bin/env bash
# Geocodes generated points with PySpark in local mode and with `geocode batch` directly, compares every
# row, checks a retried task per engine, and prints both throughputs.
#
#   Integrations/spark/test.sh                 # 1,000,000 rows on local[2] (the default; minutes)
#   Integrations/spark/test.sh --quick         # what CI runs: 20,000 rows on local[1], no warm-up,
#                                              # retry check on 8,000 rows (see README.md for timings)
#   Integrations/spark/test.sh --bundle ...    # test bundle.sh's dist/ (static Swift runtime, shipped
#                                              # libraries) instead of .build/release/geocode
#   Integrations/spark/test.sh --setup-only    # check Java and set up the venv, nothing else (CI
#                                              # starts this early, beside the fuzz smoke)
#   options passed on to compare.py: --rows N  --partitions P  --seed S  --master local[N]
#     --engines arrow,rdd  --warmup-rows N  --fault-rows N (0 skips the retry and spark-submit checks)
#
# Needs Java 17+ (Debian: openjdk-17-jre-headless) and Python 3.9+ with venv (Debian: python3-venv).
# Sets up Integrations/spark/.venv from requirements.txt (about 600 MB, once; again when the file
# changes). Builds the binary under test first: .build/release/geocode (or GEOCODE_BINARY, used as
# given), or with --bundle runs bundle.sh. Exit status 0 only when every row matched.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
data="${GEOCODE_DATA:-$root/Data}"

bundle=0
setup_only=0
master="local[2]"
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) pass+=(--rows 20000 --fault-rows 8000 --warmup-rows 0); master="local[1]" ;;
    --bundle) bundle=1 ;;
    --setup-only) setup_only=1 ;;
    --master) [ $# -ge 2 ] || { echo "test.sh: --master needs a value" >&2; exit 2; }; master="$2"; shift ;;
    --master=*) master="${1#--master=}" ;;
    *) pass+=("$1") ;;
  esac
  shift
done
# Later options win in argparse, so `--quick --rows 50000` means 50,000 rows.
pass=(--master "$master" "${pass[@]}")

# Java: Spark 4 runs on 17 or newer.
if ! command -v java >/dev/null; then
  echo "test.sh: Java 17+ is needed and there is no java on PATH (Debian: apt-get install -y openjdk-17-jre-headless)" >&2
  exit 2
fi
java_major=$(java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == 1 ? v[2] : v[1]); exit}')
if [ -z "$java_major" ] || [ "$java_major" -lt 17 ]; then
  echo "test.sh: Java 17+ is needed, $(command -v java) is ${java_major:-unknown} (Debian: apt-get install -y openjdk-17-jre-headless)" >&2
  exit 2
fi

# The venv, from the pinned requirements; rebuilt when they change or an import fails.
venv="$here/.venv"
py="$venv/bin/python"
want=$(sha256sum "$here/requirements.txt" | cut -c1-16)
if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$want" ] || ! "$py" -c 'import pyspark, pyarrow, pandas' 2>/dev/null; then
  echo "test.sh: setting up $venv from requirements.txt ..."
  start=$(date +%s)
  rm -rf "$venv"
  python3 -m venv "$venv" || {
    echo "test.sh: '$(command -v python3) -m venv' failed (Debian's python3: apt-get install -y python3-venv)" >&2; exit 2; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" || {
    echo "test.sh: pip install -r $here/requirements.txt failed" >&2; exit 2; }
  echo "$want" > "$venv/.requirements"
  echo "test.sh: venv ready in $(( $(date +%s) - start )) s"
fi
[ "$setup_only" = 0 ] || exit 0

# The binary under test is always built from the sources here (an up-to-date build is a no-op), so a
# stale one is never what passes.
start=$(date +%s)
if [ "$bundle" = 1 ]; then
  dist="$here/dist"
  "$here/bundle.sh" "$data"
  binary="$dist/geocode"
  pass+=(--lib-dir "$dist/libs")
  echo "test.sh: bundle.sh took $(( $(date +%s) - start )) s"
elif [ -n "${GEOCODE_BINARY:-}" ]; then
  binary="$GEOCODE_BINARY"
  [ -x "$binary" ] || { echo "test.sh: GEOCODE_BINARY=$binary is not an executable file" >&2; exit 2; }
else
  binary="$root/.build/release/geocode"
  (cd "$root" && swift build -c release --product geocode)
  echo "test.sh: release build took $(( $(date +%s) - start )) s"
fi
echo "test.sh: binary $binary, master $master"
"$py" "$here/compare.py" --binary "$binary" --data "$data" "${pass[@]}"

# The documented spark-submit route: binary by --files, data by --archives NAME#geocode-data (and with
# --bundle the libraries by --archives NAME#geocode-libs, as README's "At scale"), this module by
# --py-files, on the retry test's points (its direct run is already in work/).
work="$here/work"
points="$work/fault-points.csv"
if [ -f "$points" ] && [ -f "$work/direct-fault.ndjson" ]; then
  archives="$work/geocode-data.tar.gz#geocode-data"
  libs=()
  if [ "$bundle" = 1 ]; then
    archives="$dist/geocode-data.tar.gz#geocode-data,$dist/geocode-libs.tar.gz#geocode-libs"
    libs=(--libs)
  else
    "$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); import geocode_spark as g; g.make_data_archive(sys.argv[2], sys.argv[3])' \
      "$here" "$data" "$work/geocode-data.tar.gz"
  fi
  echo "spark-submit --master $master --files geocode --archives ${archives//$here\//} --py-files geocode_spark.py example_job.py ... ${libs[*]}"
  start=$(date +%s)
  PYSPARK_PYTHON="$py" "$venv/bin/spark-submit" --master "$master" \
    --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 --conf spark.ui.enabled=false --conf spark.ui.showConsoleProgress=false \
    --files "$binary" --archives "$archives" --py-files "$here/geocode_spark.py" \
    "$here/example_job.py" "$points" "$work/submit-out" --fields all "${libs[@]}" 2> "$work/submit.log" \
    || { tail -n 30 "$work/submit.log" >&2; echo "FAIL: spark-submit (log: $work/submit.log)" >&2; exit 1; }
  echo "spark-submit finished in $(( $(date +%s) - start )) s"
  "$py" "$here/compare.py" --binary "$binary" --data "$data" --check-only "$work/submit-out" "$work/direct-fault.ndjson" \
    "$(( $(wc -l < "$points") - 1 ))"
fi
