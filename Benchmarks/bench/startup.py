#!/usr/bin/env python3
"""Start-up and memory benchmarks of the `geocode` binary (issue 19), standalone (Python 3 stdlib only;
the peer rows need `tzfpy`, e.g. /work/venv/bin/python or `pip install tzfpy==<pinned>`).

    python3 Benchmarks/bench/startup.py startup [--binary .build/release/geocode] [--runs 5] [--points 1000]
    python3 Benchmarks/bench/startup.py pss [--binary ...] [--processes 4]

startup: one query from process start (`geocode 39.9087 116.3975`, warm index cache), wall, CPU (user +
  system) and peak RSS, median of `--runs` runs alternated with the peer (a fresh python3 + tzfpy
  answering the time zone of the same point); then `--points` points given one per process invocation
  (the shell-loop user), ours and the peer's, alternated in blocks.
pss: `--processes` concurrent `geocode batch` processes on one machine, each with the index loaded,
  their RSS and PSS from /proc/PID/smaps_rollup, for GEOCODE_INDEX_MEMORY=private (the copy into 2 MB
  pages, the default for a batch) and =shared (the read-only mapping).

Results are printed as Markdown tables; paste them, with the command, into Benchmarks/results/startup.md.
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POINT = ("39.9087", "116.3975")


def child_usage(argv, env):
    """(wall s, CPU s = user + system, peak RSS KB) of one process, from wait4's rusage."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execve(argv[0], argv, env)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{argv} failed with {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def load_average():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def startup(args):
    env = dict(os.environ, GEOCODE_CACHE_DIR=args.cache)
    ours = [args.binary] + list(POINT) + ["--data", args.data]
    warm = subprocess.run(ours, env=env, capture_output=True, text=True)
    if warm.returncode != 0 or "东城区" not in warm.stdout:
        raise SystemExit(f"warm-up failed: {warm.stdout}{warm.stderr}")
    peer = [args.python, "-c", f"import tzfpy; print(tzfpy.get_tz({POINT[1]}, {POINT[0]}))"]
    if subprocess.run(peer, capture_output=True, text=True).stdout.strip() != "Asia/Shanghai":
        raise SystemExit("peer: tzfpy does not answer Asia/Shanghai")
    rows = {"ours": [], "peer": []}
    print(f"load average before: {load_average()}", file=sys.stderr)
    for _ in range(args.runs):
        rows["ours"].append(child_usage(ours, env))
        rows["peer"].append(child_usage(peer, env))
    print(f"load average after: {load_average()}", file=sys.stderr)

    def med(name, k):
        return statistics.median(r[k] for r in rows[name])
    print(f"\n### One query from process start (median of {args.runs}, alternated; load {load_average()})\n")
    print("| | wall ms | CPU ms | peak RSS MB |")
    print("|---|---:|---:|---:|")
    print(f"| `geocode {POINT[0]} {POINT[1]}` (warm cache) | {med('ours', 0) * 1000:.1f} | {med('ours', 1) * 1000:.1f} | {med('ours', 2) / 1024:.1f} |")
    print(f"| python3 + tzfpy, one time zone | {med('peer', 0) * 1000:.1f} | {med('peer', 1) * 1000:.1f} | {med('peer', 2) / 1024:.1f} |")
    print(f"| ratio (ours / peer) | {med('ours', 0) / med('peer', 0):.2f} | {med('ours', 1) / med('peer', 1):.2f} | {med('ours', 2) / med('peer', 2):.2f} |")

    if args.points <= 0:
        return
    rng = random.Random(19)
    points = [(rng.uniform(18, 53), rng.uniform(73, 135)) for _ in range(args.points)]
    totals = {"ours": [0.0, 0.0], "peer": [0.0, 0.0]}
    block = 50
    for i in range(0, len(points), block):
        for name in ("ours", "peer"):
            for lat, lon in points[i:i + block]:
                if name == "ours":
                    argv = [args.binary, f"{lat:.6f}", f"{lon:.6f}", "--data", args.data]
                else:
                    argv = [args.python, "-c", f"import tzfpy; print(tzfpy.get_tz({lon:.6f}, {lat:.6f}))"]
                wall, cpu, _ = child_usage(argv, env)
                totals[name][0] += wall
                totals[name][1] += cpu
    print(f"\n### {args.points} points, one per process invocation (blocks of {block} alternated; load {load_average()})\n")
    print("| | wall s | CPU s | points/s (wall) |")
    print("|---|---:|---:|---:|")
    for name, label in (("ours", "`geocode LAT LON` per point"), ("peer", "`python3 -c 'import tzfpy; ...'` per point")):
        w, c = totals[name]
        print(f"| {label} | {w:.1f} | {c:.1f} | {args.points / w:.1f} |")
    print(f"| ratio (ours / peer) | {totals['ours'][0] / totals['peer'][0]:.2f} | {totals['ours'][1] / totals['peer'][1]:.2f} | |")


def smaps(pid):
    values = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[2] == "kB":
                values[parts[0].rstrip(":")] = int(parts[1])
    return values


def pss(args):
    rng = random.Random(7)
    csv = os.path.join(tempfile.mkdtemp(prefix="geocode-pss-"), "points.csv")
    with open(csv, "w") as f:
        f.write("lat,lon\n")
        for _ in range(args.rows):
            f.write(f"{rng.uniform(18, 53):.6f},{rng.uniform(73, 135):.6f}\n")
    print(f"\n### {args.processes} concurrent `geocode batch` processes (load {load_average()})\n")
    print("| GEOCODE_INDEX_MEMORY | RSS per process MB | PSS per process MB | PSS of all MB | wall s (all done) |")
    print("|---|---:|---:|---:|---:|")
    for mode in ("private", "shared"):
        env = dict(os.environ, GEOCODE_CACHE_DIR=args.cache, GEOCODE_INDEX_MEMORY=mode)
        subprocess.run([args.binary, "index", "--data", args.data], env=env, check=True, capture_output=True)
        start = time.perf_counter()
        procs = []
        for _ in range(args.processes):
            # stdin held open: each process loads, answers the rows, then waits for more, so all are
            # measured loaded at once.
            p = subprocess.Popen([args.binary, "batch", "--data", args.data, "-o", os.devnull], env=env,
                                 stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
            procs.append(p)
        for p in procs:
            with open(csv, "rb") as f:
                p.stdin.write(f.read())
            p.stdin.flush()
        # Wait until every process's RSS has stopped growing (loaded, rows answered).
        last = None
        while True:
            time.sleep(1.0)
            now = [smaps(p.pid)["Rss"] for p in procs]
            if last == now:
                break
            last = now
        samples = [smaps(p.pid) for p in procs]
        for p in procs:
            p.stdin.close()
        for p in procs:
            p.wait()
        wall = time.perf_counter() - start
        rss = statistics.mean(s["Rss"] for s in samples) / 1024
        pss_each = statistics.mean(s["Pss"] for s in samples) / 1024
        print(f"| {mode} | {rss:.0f} | {pss_each:.0f} | {sum(s['Pss'] for s in samples) / 1024:.0f} | {wall:.1f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["startup", "pss"])
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/geocode"))
    ap.add_argument("--data", default=os.path.join(ROOT, "Data"))
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "geocode-bench-startup-cache"))
    ap.add_argument("--python", default=sys.executable, help="the peer's interpreter (with tzfpy)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--rows", type=int, default=20000)
    args = ap.parse_args()
    args.binary = os.path.abspath(args.binary)
    (startup if args.what == "startup" else pss)(args)


if __name__ == "__main__":
    main()
