#!/usr/bin/env python3
"""Instructions a query of `ReverseGeocoder.placemark(for:datum:)`, and where they go, under callgrind, for
Benchmarks/results/placemark-speed.md.

    placemark_cg.py BIN CACHE_DIR POINTS_F64 [--top 30] [--data DIR] -- [geocode-bench ours options...]

`--manifest` and `--overlay` name datasets of the data directory (DIR, else this repository's Data/):
`--manifest china --overlay localities,timezones`, or are paths inside it. The data directory and the
git commit it is at are printed with the figures (a count compares only with one on the same data).

Only the instructions inside `placemark(for:datum:)` are counted (callgrind `--toggle-collect`), so the
load (and the hugePages copy of the cache, which made overlay_speed_cg.sh's small runs noisy) counts
nothing. Two runs, `--rounds 5` and `--rounds 1` (one thread, `--passes 1 --latency 0`): the difference
over (4 rounds x 2 walks x points) is the warm cost a query; the first (cold) pass cancels out. Then the
same difference function by function (self cost, `callgrind_annotate --inclusive=no`).
Runs with SWIFT_DETERMINISTIC_HASHING=1, so the two runs' cold passes cost the same.
Build the caches natively first (same CACHE_DIR): building an index under valgrind takes long.
"""
import re, subprocess, sys, tempfile, os

REPO_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Data")

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


def data_dir(path):
    """The data directory, absolute, and a line naming it with its git commit and the one that last changed it."""
    d = os.path.realpath(path or REPO_DATA)
    if not os.path.isdir(d):
        sys.exit(f"data directory {d}: no such directory")
    git = lambda *a: subprocess.run(["git", "-C", d, *a], capture_output=True, text=True)
    head = git("rev-parse", "--short", "HEAD")
    if head.returncode != 0:
        return d, f"data: {d} (not in a git repository)"
    dirty = " + uncommitted changes" if git("status", "--porcelain", "--", ".").stdout.strip() else ""
    last = git("log", "-1", "--format=%h", "--", ".").stdout.strip()
    return d, f"data: {d} (git {head.stdout.strip()}, last changed in {last}{dirty})"


def manifest(data, name):
    """Dataset `name` of `data` (or a path inside it) as its manifest's path."""
    path = os.path.realpath(name) if "/" in name else os.path.join(data, name)
    if os.path.isdir(path):
        path = os.path.join(path, "manifest.json")
    if not path.startswith(data + os.sep):
        sys.exit(f"manifest {name} is outside the data directory {data} (give a dataset name, or --data DIR)")
    if not os.path.isfile(path):
        sys.exit(f"manifest {name}: no file {path}")
    return path


def resolved(data, extra):
    """geocode-bench options with the datasets of --manifest and --overlay resolved in `data`."""
    out, i = [], 0
    while i < len(extra):
        if extra[i] in ("--manifest", "--overlay") and i + 1 < len(extra):
            out += [extra[i], ",".join(manifest(data, m) for m in extra[i + 1].split(","))]
            i += 2
        else:
            out.append(extra[i])
            i += 1
    return out


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
    data = None
    split = args.index("--") if "--" in args else len(args)
    if "--data" in args[:split]:
        i = args.index("--data"); data = args[i + 1]; del args[i:i + 2]
    split = args.index("--") if "--" in args else len(args)
    binary, cache, points = args[:3]
    data, about = data_dir(data)
    extra = resolved(data, args[split + 1:])
    print(about)
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
