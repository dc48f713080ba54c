#!/usr/bin/env python3
"""Time zone alone: timezonefinder, tzfpy and ours on the same uniform random points of the sphere.

    python3 Benchmarks/bench/timezones.py [--points 1000000] [--rounds 3] [--data Data/timezones]
                                          [--skip-build] [--out Benchmarks/results/timezones.md]

* timezonefinder: `TimezoneFinder().timezone_at(lng=, lat=)`, one Python call per point (what its README
  shows; its batch call `timezone_names_at` is timed too, for the record);
* tzfpy: `tzfpy.get_tz(lng, lat)`, one call per point;
* ours: `geocode-bench ours` (release build) on a manifest of the time-zone dataset alone, one thread,
  timed in CPU time like the peers (the walk's wall time is recorded beside it).
  It needs the overlay engine (manifest role "overlay"); when geocode-bench cannot load the dataset the
  row is skipped with the reason.

Rounds alternate the engines (tf, tzfpy, ours, tf, ...) so a slow spell of the shared machine weighs on
all of them; the table quotes the median of the rounds in ns per point on one core, and the ratios to
timezonefinder measured in the same run. The load average is recorded beside the numbers.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
from bench.common import log, read_points  # noqa: E402

SEED = 20261201  # the points of Data/measure_timezones.py's random set


def sphere_points(path: str, n: int, seed: int):
    """Uniform in area: longitude uniform, sine of latitude uniform (same draw as measure_timezones.py)."""
    rng = np.random.default_rng(seed)
    xy = np.empty((n, 2), dtype="<f8")
    xy[:, 0] = rng.uniform(-180.0, 180.0, n)
    xy[:, 1] = np.degrees(np.arcsin(rng.uniform(-1.0, 1.0, n)))
    xy.tofile(path)


def time_tf(xs, ys):
    from timezonefinder import TimezoneFinder
    tf = TimezoneFinder()
    at = tf.timezone_at
    c0 = time.process_time()
    out = [at(lng=x, lat=y) for x, y in zip(xs, ys)]
    return time.process_time() - c0, out


def time_tf_batch(xs, ys):
    from timezonefinder import TimezoneFinder
    tf = TimezoneFinder()
    lng, lat = np.asarray(xs), np.asarray(ys)
    c0 = time.process_time()
    tf.timezone_names_at(lngs=lng, lats=lat)
    return time.process_time() - c0, None


def time_tzfpy(xs, ys):
    import tzfpy
    get = tzfpy.get_tz
    c0 = time.process_time()
    out = [get(x, y) for x, y in zip(xs, ys)]
    return time.process_time() - c0, out


def run_ours(binary: str, manifest: str, points: str, cache: str):
    """(CPU seconds of one single-thread walk, result JSON) or (None, reason). CPU, not wall time: the
    peers are timed by process_time, and on a loaded machine a wall time counts other processes' turns."""
    cmd = [binary, "ours", "--manifest", manifest, "--points", points, "--datum", "wgs84", "--threads", "1",
           "--passes", "1", "--latency", "0", "--cache", cache]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        return None, f"geocode-bench ours failed (exit {p.returncode}): {tail}"
    r = json.loads(p.stdout)
    return min(r["single_cpu_passes_s"]), r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--data", default=os.path.join(REPO, "Data", "timezones"))
    ap.add_argument("--skip-build", action="store_true", help="use the geocode-bench already built")
    ap.add_argument("--binary", default=os.path.join(REPO, ".build", "release", "geocode-bench"),
                    help="geocode-bench to run (default: the release build)")
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "timezones.md"))
    a = ap.parse_args()
    cmd = " ".join([sys.executable, os.path.relpath(os.path.abspath(sys.argv[0]))] + sys.argv[1:])
    where = os.path.relpath(os.getcwd(), REPO)
    uptime0 = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="tz-bench-")
    pts = os.path.join(work, "points.f64")
    sphere_points(pts, a.points, SEED)
    xs, ys = read_points(pts)
    xs, ys = xs.tolist(), ys.tolist()
    load0 = os.getloadavg()

    binary = a.binary
    ours_note = None
    if not a.skip_build:
        log("building geocode-bench (release)")
        b = subprocess.run(["swift", "build", "-c", "release", "--product", "geocode-bench"], cwd=REPO,
                           capture_output=True, text=True)
        if b.returncode != 0:
            ours_note = "swift build --product geocode-bench failed: " + (b.stderr.strip().splitlines() or [""])[-1]
    if ours_note is None and not os.path.exists(binary):
        ours_note = f"{binary} not built"
    manifest = os.path.join(os.path.abspath(a.data), "manifest.json")  # the dataset alone, as shipped
    cache = os.path.join(work, "index-cache")
    ours_info = None
    if ours_note is None:
        log("ours: building the index cache (untimed)")
        t, r = run_ours(binary, manifest, pts, cache)
        if t is None:
            ours_note = r
        else:
            ours_info = r

    times = {"timezonefinder": [], "timezonefinder batch": [], "tzfpy": [], "ours": []}
    answers = {}
    walls = []
    for k in range(a.rounds):
        log(f"round {k + 1} of {a.rounds}")
        t, answers["timezonefinder"] = time_tf(xs, ys)
        times["timezonefinder"].append(t)
        t, _ = time_tf_batch(xs, ys)
        times["timezonefinder batch"].append(t)
        t, answers["tzfpy"] = time_tzfpy(xs, ys)
        times["tzfpy"].append(t)
        if ours_note is None:
            t, r = run_ours(binary, manifest, pts, cache)
            if t is None:
                ours_note = r
            else:
                times["ours"].append(t)
                walls.append(min(r["single_passes_s"]))
                ours_info = r
    load1 = os.getloadavg()
    uptime1 = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    n = len(xs)
    ns = {k: statistics.median(v) / n * 1e9 for k, v in times.items() if v}
    agree = sum(1 for p, q in zip(answers["tzfpy"], answers["timezonefinder"]) if p == q)

    lines = ["# Time zone alone: timezonefinder, tzfpy, ours", "",
             f"Command (from `{where if where != '.' else 'the repository root'}`): `{cmd}`", "",
             f"{n:,} uniform random points on the sphere (seed {SEED}, the random set of "
             "`Data/measure_timezones.py`); one core; median of "
             f"{a.rounds} alternated rounds; CPU time of the process (Python peers) or of the timed single-thread "
             "walk (ours, `geocode-bench ours --threads 1`: CPU time of the process during the walk on one thread, its "
             "other threads idle); so every ratio is per core.", "",
             f"Load average at start {load0[0]:.1f} / end {load1[0]:.1f} on {os.cpu_count()} cores (shared machine). "
             f"`uptime` at start: `{uptime0}`; at end: `{uptime1}`.", "",
             f"timezonefinder {importlib.metadata.version('timezonefinder')} (data "
             f"{importlib.metadata.version('timezonefinder-data')}), tzfpy {importlib.metadata.version('tzfpy')}; "
             f"ours on `{os.path.relpath(a.data, REPO)}`.", "",
             "| engine | ns / point (median) | rounds (s) | vs timezonefinder |", "| --- | ---: | --- | ---: |"]
    for k in ("timezonefinder", "timezonefinder batch", "tzfpy", "ours"):
        if k not in ns:
            continue
        lines.append(f"| {k} | {ns[k]:,.0f} | {', '.join(f'{t:.2f}' for t in times[k])} | "
                     f"{ns['timezonefinder'] / ns[k]:.2f}× |")
    if ours_note:
        lines += ["", f"ours: skipped: {ours_note}"]
    elif ours_info:
        lines += ["", f"ours: {ours_info.get('found')} of {n} points answered; load from cache "
                  f"{ours_info.get('load_s', 0):.3f} s; peak RSS {ours_info.get('peak_rss', 0) / 1e6:.0f} MB; "
                  "wall time of the walks (s, for the record; the load inflates it): "
                  + ", ".join(f"{w:.2f}" for w in walls) + "."]
    lines += ["", f"tzfpy agrees with timezonefinder on {agree:,} of {n:,} points ({100.0 * agree / n:.3f} %)."]
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(a.out + ".tmp", a.out)
    print("\n".join(lines))
    shutil.rmtree(work, ignore_errors=True)  # the points and the index cache: some 100 MB per run


if __name__ == "__main__":
    main()
