"""Our point-in-polygon query against shapely, alternated in one run (Benchmarks/results/query-speed.md,
issue 19's "≥ 15× shapely at every size"): per round one `geocode-bench ours --threads 1` run and one
`bench.peers shapely --method contains_xy --threads 1` run on the same points and polygons, the order
swapped every round; then each side's median CPU ns a point and their ratio, and the ratio of every round
(a round's two runs are seconds apart, so a round's ratio sees one load).

    python Benchmarks/bench/query_vs_shapely.py --manifest M --work GROWTH_SET_DIR --points P \
        --binary .build/release/geocode-bench --cache DIR --rounds 7

Run it from Benchmarks/ with `nice -n -15`; the load average is printed with every round.
Also checks, once, that our answers equal shapely's on every point.

`--also NAME=BIN:CACHE` (repeatable) times more builds of ours in the same rounds, each beside the same
shapely runs, the order turned every round: on this shared VM one build's runs vary by ±25 % from one
process to the next and by more over an hour, so two builds are only compared, and held against shapely,
within one run.
"""
import argparse, json, os, statistics, subprocess, sys

import numpy as np


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def ours(a, answers=None, binary=None, cache=None):
    cmd = [binary or a.binary, "ours", "--manifest", a.manifest, "--points", a.points, "--datum", a.datum, "--cache", cache or a.cache,
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
    p.add_argument("--also", action="append", default=[], metavar="NAME=BIN:CACHE",
                   help="another build of ours, timed in the same rounds")
    a = p.parse_args()
    tmp = os.path.join(a.cache, "answers")
    os.makedirs(tmp, exist_ok=True)
    builds = [("ours", a.binary, a.cache)] + [(r.split("=", 1)[0], *r.split("=", 1)[1].split(":", 1)) for r in a.also]
    print(f"load at start: {load()}", flush=True)
    shapely(a, os.path.join(tmp, "shapely.i32"))
    want = np.fromfile(os.path.join(tmp, "shapely.i32"), "<i4")
    for name, binary, cache in builds:  # warm-up: builds the cache if missing, writes the answers
        answers = os.path.join(tmp, f"{name}.i32")
        ours(a, answers, binary, cache)
        differ = int((np.fromfile(answers, "<i4") != want).sum())
        print(f"points where {name}'s answer differs from shapely's: {differ}", flush=True)
    times = {name: [] for name, _, _ in builds}
    ratios = {name: [] for name, _, _ in builds}
    s = []
    for i in range(a.rounds):
        # Shapely first, last or between, the builds turned: no build always follows the same neighbour.
        order = builds[i % len(builds):] + builds[:i % len(builds)]
        if i % 2 == 1:
            order = order[::-1]
        runs = [("shapely", None, None)] + order if i % 2 == 0 else order + [("shapely", None, None)]
        for name, binary, cache in runs:
            if name == "shapely":
                s.append(shapely(a, os.path.join(tmp, "shapely.i32")))
            else:
                times[name].append(ours(a, None, binary, cache))
        for name in times:
            ratios[name].append(s[-1] / times[name][-1])
        print(f"round {i + 1}: " + ", ".join(f"{n} {times[n][-1]:.1f} ns ({ratios[n][-1]:.1f}x)" for n in times)
              + f", shapely {s[-1]:.0f} ns (load {load()})", flush=True)
    ms = statistics.median(s)
    for name in times:
        mo = statistics.median(times[name])
        print(f"{name} median {mo:.1f} CPU ns/point, shapely median {ms:.0f}: {ms / mo:.1f}x; "
              f"per-round ratios median {statistics.median(ratios[name]):.1f}x, lowest {min(ratios[name]):.1f}x")
    if len(builds) > 1:
        base = builds[0][0]
        for name in list(times)[1:]:
            pair = [b / a_ for a_, b in zip(times[base], times[name])]
            print(f"{name} / {base}: median of the per-round ratios {statistics.median(pair):.3f}")
    print(f"load at end: {load()}")


if __name__ == "__main__":
    main()
