#!/usr/bin/env python3
"""2-thread scaling of the full placemark, for Benchmarks/results/placemark-speed.md.

    placemark_scaling.py --bin BIN [--bin BIN2 ...] --cache DIR --world P.f64 --china P.f64 [--rounds 3]
                         [--walks 10] [--only "NAME|NAME"]

Each run: `nice -n -15 geocode-bench ours --threads 2 --passes 5 --rounds WALKS --latency 0`: its
single-thread and 2-thread passes alternate within the run (pass by pass), so a slow spell of the shared
host weighs on both. Scaling = multi_pps / single_pps of the same run (wall clock: what a user of two
threads gets). Also a `--threads 1` run (its pool of one worker), for the ratio of the two runs' pool
throughputs. Binaries alternated round by round; the load average (1 min) printed before and after each run.
Scaling is only meaningful when the load is low (2 cores shared with other processes).
"""
import argparse, json, os, statistics, subprocess

CASES = {
    "full placemark, world": ("world", ["--manifest", "Data/world/manifest.json", "--overlay",
                              "Data/localities/manifest.json,Data/timezones/manifest.json", "--lang", "en", "--datum", "wgs84"]),
    "China + tz, GCJ-02": ("china", ["--manifest", "Data/china/manifest.json", "--overlay", "Data/timezones/manifest.json",
                           "--datum", "gcj02"]),
}


def run(binary, points, args, cache, threads, walks):
    cmd = ["nice", "-n", "-15", binary, "ours", "--threads", str(threads), "--passes", "5", "--rounds", str(walks),
           "--latency", "0", "--cache", cache, "--points", points, "--max-distance", "10000"] + args
    load0 = os.getloadavg()[0]
    j = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return j, load0, os.getloadavg()[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--world", required=True)
    ap.add_argument("--china", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--walks", type=int, default=10)
    ap.add_argument("--only")
    o = ap.parse_args()
    points = {"world": o.world, "china": o.china}
    for name in [c for c in CASES if not o.only or c in o.only.split("|")]:
        which, args = CASES[name]
        res = {b: {"scale": [], "pool": [], "single": [], "multi": [], "cpu1": [], "loads": []} for b in o.bin}
        for _ in range(o.rounds):
            for b in o.bin:
                j2, l0, l1 = run(b, points[which], args, o.cache, 2, o.walks)
                j1, l2, l3 = run(b, points[which], args, o.cache, 1, o.walks)
                r = res[b]
                r["scale"].append(j2["multi_pps"] / j2["single_pps"])
                r["pool"].append(j2["multi_pps"] / j1["multi_pps"])
                r["single"].append(j2["single_pps"]); r["multi"].append(j2["multi_pps"])
                r["cpu1"].append(j2["single_cpu_ns"])
                r["loads"] += [l0, l1, l2, l3]
                print(f"  {name} {b}: 2-thread run single {j2['single_pps']:,.0f} pps, 2 threads {j2['multi_pps']:,.0f} pps "
                      f"(x{r['scale'][-1]:.2f}); 1-thread run pool {j1['multi_pps']:,.0f} pps (x{r['pool'][-1]:.2f}); "
                      f"single cpu ns {j2['single_cpu_ns']:.0f}; load {l0:.2f} {l1:.2f} {l2:.2f} {l3:.2f}", flush=True)
        for b in o.bin:
            r = res[b]
            print(f"| {name} | {b} | {', '.join(f'{v:.2f}' for v in r['scale'])} | {statistics.median(r['scale']):.2f}x | "
                  f"{', '.join(f'{v:.2f}' for v in r['pool'])} | {statistics.median(r['pool']):.2f}x | "
                  f"{statistics.median(r['single']):,.0f} | {statistics.median(r['multi']):,.0f} | "
                  f"{statistics.median(r['cpu1']):.0f} | {min(r['loads']):.2f}-{max(r['loads']):.2f} |", flush=True)


if __name__ == "__main__":
    main()
