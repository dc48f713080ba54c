#!/usr/bin/env python3
"""CPU ns a point of the coast fallback's configurations, two geocode-bench builds alternated (A, B, A, B,
...), for Benchmarks/results/coast-speed.md.

    coast_speed.py --a BIN_A --b BIN_B --cache DIR --world P.f64 --china P.f64 [--rounds 3] [--only "NAME|NAME"]
                   [--latency N]

Each run: `geocode-bench ours --threads 1 --passes 3 --latency 0` (single_cpu_ns: the median of its 3
single-thread passes; the engine's background aids ready first, `waitUntilReady`). Prints, per case, every
round's figure, the medians and A/B, and the load average before and after. `--latency N`: each run also
times N single queries one by one and the table gets their median (`latency_p50_ns`, the clock's own
~20 ns included) per round.
"""
import argparse, json, os, statistics, subprocess

CASES = {
    "full placemark, world": ("world", ["--manifest", "Data/world/manifest.json", "--overlay",
                              "Data/localities/manifest.json,Data/timezones/manifest.json", "--lang", "en", "--datum", "wgs84"]),
    "China + tz, GCJ-02": ("china", ["--manifest", "Data/china/manifest.json", "--overlay", "Data/timezones/manifest.json",
                           "--datum", "gcj02"]),
    "China + tz, WGS-84": ("china", ["--manifest", "Data/china/manifest.json", "--overlay", "Data/timezones/manifest.json",
                           "--datum", "wgs84"]),
    "full placemark, world, fallback off": ("world", ["--manifest", "Data/world/manifest.json", "--overlay",
                                            "Data/localities/manifest.json,Data/timezones/manifest.json", "--lang", "en",
                                            "--datum", "wgs84", "--max-distance", "0"]),
}


def run(binary, points, args, cache, latency=0):
    cmd = ["nice", "-n", "-15", binary, "ours", "--threads", "1", "--passes", "3", "--latency", str(latency),
           "--cache", cache, "--points", points] + args
    if "--max-distance" not in args:
        cmd += ["--max-distance", "10000"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    j = json.loads(out)
    return j["single_cpu_ns"], j["ready_wall_s"], j["latency_p50_ns"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--world", required=True)
    ap.add_argument("--china", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only")
    ap.add_argument("--latency", type=int, default=0)
    o = ap.parse_args()
    points = {"world": o.world, "china": o.china}
    cases = [c for c in CASES if not o.only or c in o.only.split("|")]  # names hold commas
    print(f"load average before: {os.getloadavg()}")
    for name in cases:
        which, args = CASES[name]
        a, b, ra, rb, pa, pb = [], [], [], [], [], []
        for _ in range(o.rounds):
            ns, ready, p50 = run(o.a, points[which], args, o.cache, o.latency); a.append(ns); ra.append(ready); pa.append(p50)
            ns, ready, p50 = run(o.b, points[which], args, o.cache, o.latency); b.append(ns); rb.append(ready); pb.append(p50)
        ma, mb = statistics.median(a), statistics.median(b)
        p50s = ""
        if o.latency:
            qa, qb = statistics.median(pa), statistics.median(pb)
            p50s = (f" p50 A {', '.join(f'{v:,.0f}' for v in pa)} ({qa:,.0f}) | p50 B {', '.join(f'{v:,.0f}' for v in pb)} "
                    f"({qb:,.0f}) | {qa / qb:.2f}x |")
        print(f"| {name} | {', '.join(f'{v:,.0f}' for v in a)} | {ma:,.0f} | {', '.join(f'{v:,.0f}' for v in b)} | "
              f"{mb:,.0f} | {ma / mb:.2f}x |{p50s} ready s A {statistics.median(ra):.2f} B {statistics.median(rb):.2f} |"
              f" load {os.getloadavg()[0]:.1f} |", flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
