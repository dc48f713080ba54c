#!/usr/bin/env python3
"""Instructions a query of `ReverseGeocoder.placemark(for:datum:)`, and where they go, under callgrind, for
Benchmarks/results/placemark-speed.md.

    placemark_cg.py BIN CACHE_DIR POINTS_F64 [--top 30] -- [geocode-bench ours options...]

Only the instructions inside `placemark(for:datum:)` are counted (callgrind `--toggle-collect`), so the
load (and the hugePages copy of the cache, which made overlay_speed_cg.sh's small runs noisy) counts
nothing. Two runs, `--rounds 5` and `--rounds 1` (one thread, `--passes 1 --latency 0`): the difference
over (4 rounds x 2 walks x points) is the warm cost a query; the first (cold) pass cancels out. Then the
same difference function by function (self cost, `callgrind_annotate --inclusive=no`).
Runs with SWIFT_DETERMINISTIC_HASHING=1, so the two runs' cold passes cost the same.
Build the caches natively first (same CACHE_DIR): building an index under valgrind takes long.
"""
import re, subprocess, sys, tempfile, os

PATTERN = "$s15ReverseGeocoderAAC9placemark3for5datum8GeoModel9PlacemarkVSgAF10CoordinateV_AF5DatumOtAF0B5ErrorOYKF"


def run(binary, cache, points, rounds, extra, out):
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", f"--toggle-collect={PATTERN}",
           binary, "ours", "--cache", cache, "--threads", "1", "--passes", "1", "--rounds", str(rounds),
           "--latency", "0", "--points", points] + extra
    # Swift seeds its hashing per process: the cold pass's dictionary work (localizing each unit's names,
    # ~45,000 instructions a unit) then varies run to run by tens of instructions a warm query.
    subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, "SWIFT_DETERMINISTIC_HASHING": "1"})
    ann = subprocess.run(["callgrind_annotate", "--inclusive=no", "--auto=no", "--threshold=100", out], check=True,
                         capture_output=True, text=True).stdout
    total, funcs = 0, {}
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?PROGRAM TOTALS", line)
        if m:
            total = int(m.group(1).replace(",", ""))
            continue
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)$", line)
        if m and ":" in m.group(2) and total:
            name = m.group(2).split(":", 1)[1].strip()
            funcs[name] = funcs.get(name, 0) + int(m.group(1).replace(",", ""))
    return total, funcs


def short(name):
    try:
        return subprocess.run(["swift", "demangle", "--simplified", "--compact", name], capture_output=True, text=True,
                              check=True).stdout.strip()[:150]
    except Exception:
        return name[:150]


def main():
    args = sys.argv[1:]
    top = 30
    if "--top" in args:
        i = args.index("--top"); top = int(args[i + 1]); del args[i:i + 2]
    split = args.index("--") if "--" in args else len(args)
    binary, cache, points = args[:3]
    extra = args[split + 1:]
    n = os.path.getsize(points) // 16
    d = tempfile.mkdtemp(prefix="placemark-cg-")  # the callgrind files stay there, for callgrind_annotate
    t1, f1 = run(binary, cache, points, 1, extra, f"{d}/r1.out")
    t5, f5 = run(binary, cache, points, 5, extra, f"{d}/r5.out")
    print(f"callgrind files: {d}/r1.out, {d}/r5.out")
    q = 4 * 2 * n
    print(f"instructions a query: {(t5 - t1) / q:.1f}  ({n} points, {q} warm queries)")
    diff = sorted(((f5.get(k, 0) - f1.get(k, 0)) / q, k) for k in set(f5) | set(f1))
    for v, k in reversed(diff[-top:]):
        print(f"{v:9.1f}  {short(k)}")


if __name__ == "__main__":
    main()
