"""Our point-in-polygon query against shapely, alternated in one run (Benchmarks/results/query-speed.md,
issue 19's "≥ 15× shapely at every size"): per round one `geocode-bench ours --threads 1` run and one
`bench.peers shapely --method contains_xy --threads 1` run on the same points and polygons, the order
swapped every round; then each side's median CPU ns a point and their ratio, and the ratio of every round
(a round's two runs are seconds apart, so a round's ratio sees one load).

    python Benchmarks/bench/query_vs_shapely.py --manifest M --work GROWTH_SET_DIR --points P \
        --binary .build/release/geocode-bench --cache DIR --rounds 7

Run it from Benchmarks/ with `nice -n -15`; the load average is printed with every round.
Also checks, once, that our answers equal shapely's on every point.
"""
import argparse, json, os, statistics, subprocess, sys

import numpy as np


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def ours(a, answers=None):
    cmd = [a.binary, "ours", "--manifest", a.manifest, "--points", a.points, "--datum", a.datum, "--cache", a.cache,
           "--threads", "1", "--passes", str(a.passes), "--latency", "0"]
    if answers:
        cmd += ["--answers", answers]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["single_cpu_ns"]


def shapely(a, answers):
    cmd = [sys.executable, "-m", "bench.peers", "shapely", "--work", a.work, "--method", "contains_xy",
           "--threads", "1", "--passes", str(a.passes), "--answers", answers]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["cpu_ns"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--manifest", required=True, help="our manifest of the set's layer")
    p.add_argument("--work", required=True, help="the growth run's set folder (parts.wkb, points.f64) for shapely")
    p.add_argument("--points", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--cache", required=True)
    p.add_argument("--datum", default="gcj02")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--passes", type=int, default=3)
    a = p.parse_args()
    tmp = os.path.join(a.cache, "answers")
    os.makedirs(tmp, exist_ok=True)
    print(f"load at start: {load()}", flush=True)
    ours(a, os.path.join(tmp, "ours.i32"))  # warm-up: builds the cache if missing, writes our answers
    shapely(a, os.path.join(tmp, "shapely.i32"))
    differ = int((np.fromfile(os.path.join(tmp, "ours.i32"), "<i4") != np.fromfile(os.path.join(tmp, "shapely.i32"), "<i4")).sum())
    print(f"points where our answer differs from shapely's: {differ}", flush=True)
    o, s = [], []
    for i in range(a.rounds):
        if i % 2 == 0:
            o.append(ours(a)); s.append(shapely(a, os.path.join(tmp, "shapely.i32")))
        else:
            s.append(shapely(a, os.path.join(tmp, "shapely.i32"))); o.append(ours(a))
        print(f"round {i + 1}: ours {o[-1]:.1f} ns, shapely {s[-1]:.0f} ns, {s[-1] / o[-1]:.1f}x (load {load()})", flush=True)
    mo, ms = statistics.median(o), statistics.median(s)
    ratios = [y / x for x, y in zip(o, s)]
    print(f"ours median {mo:.1f} CPU ns/point, shapely median {ms:.0f}: {ms / mo:.1f}x; "
          f"per-round ratios median {statistics.median(ratios):.1f}x, lowest {min(ratios):.1f}x")
    print(f"load at end: {load()}")


if __name__ == "__main__":
    main()
