"""Alternated A/B runs of the point-in-polygon query (Benchmarks/results/query-speed.md): CPU ns per point of
`geocode-bench ours` on one thread, binaries taken in turn, each with its own index cache (a format change
makes the caches differ), then the median per binary. Also writes each binary's answers once and counts the
points where they differ from shapely's (`shapely.i32` of the growth run, same points).

    python Benchmarks/bench/query_ab.py --manifest M --points P --shapely S.i32 --rounds 7 NAME=BIN:CACHE ...

Run with `nice -n -15` on a loaded machine; the load average is printed before and after.
"""
import argparse, json, os, statistics, subprocess, sys


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(bin_, cache, a, answers=None):
    cmd = [bin_, "ours", "--manifest", a.manifest, "--points", a.points, "--datum", "gcj02", "--cache", cache,
           "--threads", "1", "--passes", str(a.passes), "--latency", str(a.latency)]
    if answers:
        cmd += ["--answers", answers]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--manifest", required=True)
    p.add_argument("--points", required=True)
    p.add_argument("--shapely", required=True)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--passes", type=int, default=3)
    p.add_argument("--latency", type=int, default=100_000)
    p.add_argument("runs", nargs="+", help="NAME=BINARY:CACHE_DIR")
    a = p.parse_args()
    runs = [(r.split("=", 1)[0], *r.split("=", 1)[1].split(":", 1)) for r in a.runs]
    print(f"load at start: {load()}", flush=True)
    import numpy as np
    shapely = np.fromfile(a.shapely, dtype="<i4")
    for name, b, c in runs:  # warm-up, builds the cache if missing, and the answers
        ans = f"/tmp/query-answers-{name}.i32"
        run(b, c, a, ans)
        ours = np.fromfile(ans, dtype="<i4")
        print(f"{name}: {int((ours != shapely).sum())} points differ from shapely", flush=True)
    res = {n: [] for n, _, _ in runs}
    p50 = {n: [] for n, _, _ in runs}
    p99 = {n: [] for n, _, _ in runs}
    for i in range(a.rounds):
        for name, b, c in (runs if i % 2 == 0 else runs[::-1]):
            r = run(b, c, a)
            res[name].append(r["single_cpu_ns"]); p50[name].append(r["latency_p50_ns"]); p99[name].append(r["latency_p99_ns"])
        print(f"round {i + 1}: " + ", ".join(f"{n} {res[n][-1]:.1f}" for n in res) + f" (load {load()})", flush=True)
    for n in res:
        print(f"{n}: median {statistics.median(res[n]):.1f} ns/point (runs {', '.join(f'{v:.0f}' for v in res[n])}); "
              f"p50 {statistics.median(p50[n]):.0f} ns, p99 {statistics.median(p99[n]):.0f} ns")
    print(f"load at end: {load()}")


if __name__ == "__main__":
    main()
