"""Geocodes the same generated points with PySpark (local mode) and with `geocode batch` directly, and
compares every row. Run through test.sh, which sets up the venv and the binary.

Checks:
  1. every input row comes back from Spark exactly once, in order (the id column), with the same
     placemark and the same geocode_error as the direct CLI run on the same file;
  2. a task whose geocode process fails mid-partition (injected on the first attempt of one partition)
     is retried by Spark, and the result still has every row exactly once and equal to the direct run;
  3. a consumer that stops early (limit) ends the processes instead of hanging.
Prints throughput (rows/s) of both; exits 1 on any mismatch.
"""

import argparse
import glob
import json
import math
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import geocode_spark as gs  # noqa: E402

BAD_VALUES = ["", "abc", "95.5", "-91", "NaN", "1e999", "12,5", "0x10"]


def generate(path, rows, seed):
    """id,lat,lon: ~35 % in China's box, ~35 % anywhere on land-ish latitudes, ~30 % open ocean, and
    about one row in 4000 with a bad coordinate. Seeded: same arguments, same file."""
    rng = random.Random(seed)
    bad = 0
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write("id,lat,lon\n")
        lines = []
        for i in range(rows):
            r = rng.random()
            if r < 0.35:
                lat, lon = rng.uniform(18.0, 54.0), rng.uniform(73.0, 135.0)
            elif r < 0.70:
                lat, lon = rng.uniform(-56.0, 72.0), rng.uniform(-180.0, 180.0)
            elif r < 0.85:
                lat, lon = rng.uniform(-40.0, 40.0), rng.uniform(-170.0, -130.0)   # Pacific
            else:
                lat, lon = rng.uniform(-50.0, -5.0), rng.uniform(60.0, 100.0)      # Indian Ocean
            slat, slon = f"{lat:.6f}", f"{lon:.6f}"
            if rng.random() < 1 / 4000 or i == 1:
                bad += 1
                value = rng.choice(BAD_VALUES)
                if rng.random() < 0.5:
                    slat = value
                else:
                    slon = value if value not in ("95.5", "-91") else "181.25"
            if "," in slat or "," in slon:
                slat, slon = f'"{slat}"', f'"{slon}"'
            lines.append(f"{i},{slat},{slon}\n")
            if len(lines) >= 10000:
                out.write("".join(lines))
                lines.clear()
        out.write("".join(lines))
    return bad


def run_direct(binary, data, csv_path, out_path, fields):
    start = time.perf_counter()
    subprocess.run([binary, "batch", csv_path, "-o", out_path, "--output-format", "ndjson", "--quiet",
                    "--fields", ",".join(fields), "--data", data], check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def spark_session(master, app):
    from pyspark.sql import SparkSession
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    return (SparkSession.builder.master(master).appName(app)
            .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.memory", "2g")
            .config("spark.sql.shuffle.partitions", "4").config("spark.python.worker.reuse", "true")
            .getOrCreate())


def read_points(spark, csv_path, partitions):
    from pyspark.sql.types import LongType, StringType, StructField, StructType
    size = os.path.getsize(csv_path)
    # Split the file into about `partitions` byte ranges; file order is partition order.
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(max(1 << 16, math.ceil(size / partitions) + 1)))
    spark.conf.set("spark.sql.files.openCostInBytes", "0")
    schema = StructType([StructField("id", LongType(), False), StructField("lat", StringType(), True),
                         StructField("lon", StringType(), True)])
    return spark.read.csv(csv_path, header=True, schema=schema, mode="FAILFAST")


def spark_rows(out_dir):
    """The JSON that Spark wrote, partition by partition, in partition order."""
    for part in sorted(glob.glob(os.path.join(out_dir, "part-*"))):
        with open(part, encoding="utf-8") as f:
            for line in f:
                yield json.loads(line)


def _norm(value):
    """Bad-row messages name a CSV column as (column "lat") and an NDJSON key as (key "lat"), and Spark's
    CSV reader turns an empty field into null, which the CLI calls "is null, not a number" where it
    calls the empty CSV field "is empty": the same verdict otherwise."""
    if not isinstance(value, str):
        return value
    return value.replace(' (column "', ' (key "').replace(" is null, not a number", " is empty")


def compare(out_dir, direct_path, fields, rows, label):
    """Every Spark row against the direct run's row at the same position. Returns (mismatches, report)."""
    keys = list(fields) + [gs.ERROR_FIELD]
    mismatches, shown, n = 0, [], 0
    bad_rows = ocean = 0
    with open(direct_path, encoding="utf-8") as direct:
        for got in spark_rows(out_dir):
            want_line = direct.readline()
            if not want_line:
                mismatches += 1
                shown.append(f"extra Spark row {got}")
                break
            want = json.loads(want_line)
            problems = []
            if got.get("id") != n:
                problems.append(f"id {got.get('id')} at position {n} (order or exactly-once broken)")
            if str(want.get("id")) != str(n):
                problems.append(f"direct id {want.get('id')} at position {n}")
            for k in keys:
                if _norm(got.get(k)) != _norm(want.get(k)):
                    problems.append(f"{k}: spark {got.get(k)!r} direct {want.get(k)!r}")
            if want.get(gs.ERROR_FIELD):
                bad_rows += 1
            elif want.get("country") is None:
                ocean += 1
            if problems:
                mismatches += 1
                if len(shown) < 10:
                    shown.append(f"row {n} (lat {want.get('lat')!r} lon {want.get('lon')!r}): " + "; ".join(problems))
            n += 1
        if direct.readline():
            mismatches += 1
            shown.append("Spark returned fewer rows than the direct run")
    if n != rows:
        mismatches += 1
        shown.append(f"Spark returned {n} rows for {rows}")
    print(f"[{label}] compared {n} rows: {mismatches} mismatches ({bad_rows} bad rows flagged, {ocean} in no polygon)")
    for line in shown:
        print(f"[{label}]   {line}")
    return mismatches, n


def _local_cores(master):
    """N of local[N] (or local[N,F]); the retry check runs on local[N,4]."""
    inside = master[len("local["):-1] if master.startswith("local[") and master.endswith("]") else None
    cores = inside.split(",")[0] if inside else ""
    if not cores.isdigit() or int(cores) < 1:
        raise SystemExit(f"compare.py: --master must be local[N] with N >= 1, not {master!r}")
    return int(cores)


def write_flaky_wrapper(path, fail_after):
    """A stand-in binary: on the first attempt of partition 1 it lets the real geocode answer
    `fail_after` rows, then dies with status 7 (as a crashed or killed process would); otherwise it is
    the real geocode. It leaves a marker file so the test knows the fault was injected."""
    with open(path, "w") as f:
        f.write(f"""#!/bin/sh
real="$(dirname "$0")/{gs.BINARY_NAME}"
if [ "$GEOCODE_SPARK_PARTITION" = 1 ] && [ "$GEOCODE_SPARK_ATTEMPT" = 0 ]; then
  echo "partition 1 attempt 0 failed on purpose" > "$FAULT_MARK"
  "$real" "$@" | head -n {fail_after}
  exit 7
fi
exec "$real" "$@"
""")
    os.chmod(path, 0o755)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--fault-rows", type=int, default=40_000, help="rows of the retry test (0 skips it)")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--engines", default="arrow,rdd", help="geocode_dataframe engines to compare")
    parser.add_argument("--master", default="local[2]", help="Spark master, local[N] (the retry check runs on local[N,4])")
    parser.add_argument("--warmup-rows", type=int, default=50_000,
                        help="rows geocoded once per engine before the timed runs (0 skips the warm-up)")
    parser.add_argument("--lib-dir", help="a directory of shared libraries to ship with the binary (bundle.sh's dist/libs)")
    parser.add_argument("--work", default=os.path.join(HERE, "work"))
    parser.add_argument("--check-only", nargs=3, metavar=("SPARK_OUT", "DIRECT_NDJSON", "ROWS"),
                        help="only compare a Spark JSON output directory with a direct run (all fields)")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    fields = gs.ALL_FIELDS
    cores = _local_cores(args.master)
    engines = args.engines.split(",")
    if args.check_only:
        out, direct, rows = args.check_only
        mismatches, _ = compare(out, direct, fields, int(rows), "spark-submit")
        print(f"{'PASS' if mismatches == 0 else 'FAIL'}: {mismatches} problem(s)")
        return 0 if mismatches == 0 else 1
    failures = 0
    summary = []
    for stale in ("fault-points.csv", "direct-fault.ndjson"):
        if os.path.exists(os.path.join(args.work, stale)):
            os.remove(os.path.join(args.work, stale))

    # ---- 1. the big comparison on local[2]
    points = os.path.join(args.work, f"points-{args.rows}-{args.seed}.csv")
    t = time.perf_counter()
    bad = generate(points, args.rows, args.seed)
    print(f"generated {args.rows} points ({bad} bad rows) in {time.perf_counter() - t:.1f} s: {points}")

    direct_out = os.path.join(args.work, "direct.ndjson")
    direct_s = run_direct(args.binary, args.data, points, direct_out, fields)
    print(f"direct: geocode batch (all cores) {args.rows} rows in {direct_s:.1f} s = {args.rows / direct_s:,.0f} rows/s")

    t0 = time.perf_counter()
    spark = spark_session(args.master, "geocode-spark-compare")
    spark.sparkContext.setLogLevel("ERROR")
    options = gs.ship(spark.sparkContext, args.binary, args.data, lib_dir=args.lib_dir)
    options = gs.GeocodeOptions(binary=options.binary, data=options.data, lib_dir=options.lib_dir, fields=fields)
    df = read_points(spark, points, args.partitions)
    nparts = df.rdd.getNumPartitions()
    print(f"spark: session start and shipping {time.perf_counter() - t0:.1f} s")
    # Warm up the JVM (JIT), the Python workers and the page cache on a small sample, so that the timed
    # runs below measure steady state and neither engine pays for going first.
    # (--warmup-rows 0, as in test.sh --quick, skips it: a correctness run, whose timings are not steady.)
    warmup_rows = min(args.rows, args.warmup_rows)
    if warmup_rows > 0:
        sample = os.path.join(args.work, "warmup.csv")
        with open(points, encoding="utf-8") as src, open(sample, "w", encoding="utf-8") as dst:
            for _, line in zip(range(warmup_rows + 1), src):
                dst.write(line)
        t = time.perf_counter()
        for engine in engines:
            warm = read_points(spark, sample, 2)
            gs.geocode_dataframe(warm, "lat", "lon", options, engine=engine).write.mode("overwrite").json(
                os.path.join(args.work, "warmup-out"))
        print(f"spark: warm-up on {warmup_rows} rows {time.perf_counter() - t:.1f} s")
    df = read_points(spark, points, args.partitions)
    for engine in engines:
        placed = gs.geocode_dataframe(df, "lat", "lon", options, engine=engine)
        spark_out = os.path.join(args.work, f"spark-out-{engine}")
        t = time.perf_counter()
        placed.write.mode("overwrite").json(spark_out)
        spark_s = time.perf_counter() - t
        print(f"spark ({engine}): {args.master}, {nparts} partitions, one geocode process per partition (1 thread "
              f"each): {args.rows} rows in {spark_s:.1f} s = {args.rows / spark_s:,.0f} rows/s")
        mismatches, n = compare(spark_out, direct_out, fields, args.rows, f"{args.master} {engine}")
        failures += mismatches
        summary.append(f"{args.master} {engine}: {n} rows, {nparts} partitions, {mismatches} mismatches; "
                       f"spark {args.rows / spark_s:,.0f} rows/s ({spark_s:.1f} s), "
                       f"direct CLI {args.rows / direct_s:,.0f} rows/s ({direct_s:.1f} s)")

    # ---- 3. early stop: limit() must not hang or leave processes behind
    t = time.perf_counter()
    few = placed.limit(3).collect()
    ok = len(few) == 3 and all(r["id"] is not None for r in few)
    print(f"limit(3): {len(few)} rows in {time.perf_counter() - t:.1f} s")
    if not ok:
        failures += 1
    summary.append(f"limit(3): {'ok' if ok else 'FAILED'}")
    spark.stop()

    # ---- 2. retry: a geocode process that dies mid-partition on the first attempt
    if args.fault_rows > 0:
        fault_points = os.path.join(args.work, "fault-points.csv")  # test.sh's spark-submit check reuses it
        generate(fault_points, args.fault_rows, args.seed + 1)
        fault_direct = os.path.join(args.work, "direct-fault.ndjson")
        run_direct(args.binary, args.data, fault_points, fault_direct, fields)
        wrapper = os.path.join(args.work, "geocode-flaky")
        write_flaky_wrapper(wrapper, fail_after=args.fault_rows // 8 // 2)
        # local[N,4]: N cores, and a task may fail up to 4 times (plain local[N] never retries).
        retry_master = f"local[{cores},4]"
        spark = spark_session(retry_master, "geocode-spark-retry")
        spark.sparkContext.setLogLevel("OFF")
        shipped = gs.ship(spark.sparkContext, args.binary, args.data, lib_dir=args.lib_dir)
        spark.sparkContext.addFile(wrapper)
        df = read_points(spark, fault_points, 4)
        nparts = df.rdd.getNumPartitions()
        # Each engine in its own job: attempt numbers are per job, so partition 1's first attempt fails
        # in every one of them.
        for engine in engines:
            marker = os.path.join(args.work, f"fault-injected-{engine}")
            if os.path.exists(marker):
                os.remove(marker)
            options = gs.GeocodeOptions(binary="geocode-flaky", data=shipped.data, lib_dir=shipped.lib_dir,
                                        fields=fields, env={"FAULT_MARK": marker})
            fault_out = os.path.join(args.work, f"spark-fault-out-{engine}")
            t = time.perf_counter()
            gs.geocode_dataframe(df, "lat", "lon", options, engine=engine).write.mode("overwrite").json(fault_out)
            print(f"retry ({engine}): {retry_master}, {args.fault_rows} rows, {nparts} partitions, "
                  f"in {time.perf_counter() - t:.1f} s")
            injected = os.path.exists(marker)
            mismatches, n = compare(fault_out, fault_direct, fields, args.fault_rows, f"retry {engine}")
            if not injected:
                print(f"[retry {engine}] the fault was never injected (no partition 1? {nparts} partitions)")
                failures += 1
            failures += mismatches
            summary.append(f"retry {engine}: fault injected={injected}, {n} rows, {mismatches} mismatches")
        spark.stop()

    print("\nSUMMARY")
    for line in summary:
        print("  " + line)
    print(f"{'PASS' if failures == 0 else 'FAIL'}: {failures} problem(s)")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
