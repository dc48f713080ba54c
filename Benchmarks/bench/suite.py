"""The benchmark suite's driver: prepares the inputs, runs every engine in its own process on the same
points, checks every containment answer against ours, and writes the report. Run it through
Benchmarks/run.sh (see Benchmarks/README.md)."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import zlib

import numpy as np

from . import report
from .common import (finest_layer, load_parts_shapely, log, make_points, prepare_layer, read_answers, read_layer,
                     read_manifest, read_points, write_parts)

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # Benchmarks/
REPO = os.path.dirname(HERE)
PY = sys.executable

ENGINES = ["ours", "brute", "shapely", "duckdb", "postgis", "rg", "cold", "exact"]

# Sizes: the full profile runs in well under 10 minutes on 2 shared cores, quick in about a minute.
PROFILES = {
    "full": dict(points=500_000, passes=9, rounds=4, peer_passes=3, brute=2_000, point_driven=50_000, latency=100_000,
                 cold=5, within=100_000, exact=1_000_000),
    "quick": dict(points=20_000, passes=2, rounds=1, peer_passes=1, brute=200, point_driven=2_000, latency=10_000,
                  cold=2, within=5_000, exact=20_000),
}
WORLD_LAND = (-180.0, -56.0, 180.0, 72.0)  # uniform over the latitudes where land is, minus Antarctica
COLD_POINT = ("39.9087", "116.3975")  # Tian'anmen, WGS-84: answered by the China data if loaded, else the world's


def cpu_snapshot() -> dict:
    """Machine-wide busy and steal CPU time (/proc/stat) and this suite's own (itself + waited-for children),
    to tell afterwards how much of the machine other work took during the run."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    user, nice, system, idle, iowait, irq, softirq, steal = (v + [0] * 8)[:8]
    t = os.times()
    return {"wall": time.monotonic(), "busy": (user + nice + system + irq + softirq) / tick, "steal": steal / tick,
            "own": t.user + t.system + t.children_user + t.children_system}


def cpu_use(a: dict, b: dict, extra_own: float = 0.0) -> dict:
    """extra_own: CPU seconds the suite caused outside its own process tree (the PostgreSQL server)."""
    wall = b["wall"] - a["wall"]
    busy, own = (b["busy"] - a["busy"]) / wall, (b["own"] - a["own"] + extra_own) / wall
    return {"busy_cores": busy, "own_cores": own, "other_cores": max(0.0, busy - own),
            "steal_cores": (b["steal"] - a["steal"]) / wall}


def wait_idle(limit_s: float, window_s: float = 20.0, threshold: float = 0.15):
    """Waits until a window in which the machine's busy CPU time is under `threshold` cores (this process
    sleeps meanwhile, so all of it is other work), or until `limit_s` has passed."""
    deadline = time.monotonic() + limit_s
    while True:
        a = cpu_snapshot()
        time.sleep(window_s)
        use = cpu_use(a, cpu_snapshot())["busy_cores"]
        if use < threshold:
            log(f"machine idle: {use:.2f} cores busy over {window_s:.0f} s")
            return
        if time.monotonic() > deadline:
            log(f"machine still busy ({use:.2f} cores) after waiting {limit_s / 60:.0f} min: running anyway")
            return
        log(f"waiting for an idle machine: {use:.2f} cores busy over the last {window_s:.0f} s")


def sh(cmd, timeout=1800, **kw):
    return subprocess.run(cmd, check=True, timeout=timeout, text=True, **kw)


def run_json(cmd, timeout=1800):
    """Runs an engine process; its stdout is one JSON value, its stderr goes to ours."""
    log("$ " + " ".join(os.path.relpath(c, REPO) if c.startswith(REPO) else c for c in cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed with exit code {p.returncode}")
    return json.loads(p.stdout)


# ------------------------------------------------------------------------------------------------
# Inputs
# ------------------------------------------------------------------------------------------------
def discover(data_dir: str) -> list[str]:
    if not os.path.isdir(data_dir):
        sys.exit(f"suite: no data directory {data_dir} (pass --data DIR: one subdirectory with manifest.json per dataset)")
    found = sorted(d for d in os.listdir(data_dir) if os.path.exists(os.path.join(data_dir, d, "manifest.json")))
    if not found:
        sys.exit(f"suite: no dataset (a subdirectory with manifest.json) in {data_dir}")
    return [os.path.join(data_dir, d) for d in found]


def fingerprint(info: dict, points: int, seed: int) -> dict:
    base = os.path.splitext(info["shp"])[0]
    files = {}
    for ext in (".shp", ".shx", ".dbf"):
        st = os.stat(base + ext)
        files[ext] = [st.st_size, int(st.st_mtime)]
    return {"points": points, "seed": seed, "files": files, "manifest": info["manifest"]}


def prepare(dataset_dir: str, work: str, points: int) -> dict:
    """Benchmark layer, polygon parts, unit table and points for one dataset (reused while unchanged)."""
    import shapely
    os.makedirs(work, exist_ok=True)
    info = prepare_layer(dataset_dir, work)
    name = info["manifest"]["name"]
    seed = 6_000_000 + zlib.crc32(name.encode()) % 1_000_000  # issue 6; per dataset, independent of order
    fp = fingerprint(info, points, seed)
    fp_path = os.path.join(work, "inputs.json")
    old = None
    if os.path.exists(fp_path):
        with open(fp_path) as f:
            old = json.load(f)
    if old != fp:
        # Inputs changed: earlier answers no longer describe these points.
        for f in os.listdir(work):
            if f.endswith((".i32", ".txt", ".json")) and f not in ("manifest.json",):
                os.remove(os.path.join(work, f))
    t = time.perf_counter()
    records, units = read_layer(info["shp"], info["layer"], info["manifest"])
    nparts = write_parts(records, os.path.join(work, "parts.wkb"))
    with open(os.path.join(work, "units.json"), "w", encoding="utf-8") as f:
        json.dump(units, f, ensure_ascii=False)
    allparts = [p for r in records for p in r]
    bounds = tuple(float(v) for v in shapely.total_bounds(np.array(allparts, dtype=object)))
    domain = WORLD_LAND if bounds[2] - bounds[0] > 180 else bounds
    make_points(os.path.join(work, "points.f64"), points, seed, domain)
    with open(fp_path, "w") as f:
        json.dump(fp, f, ensure_ascii=False)
    invalid = int(sum(not p.is_valid for p in allparts))
    log(f"{name}: {len(records)} records, {nparts} parts, {invalid} invalid; {points} points in {domain} "
        f"(seed {seed}); prepared in {time.perf_counter() - t:.1f} s")
    return {**info, "name": name, "dir": dataset_dir, "work": work, "seed": seed, "domain": domain,
            "bounds": bounds, "records": len(records), "parts": nparts, "invalid": invalid,
            "vertices": int(sum(shapely.get_num_coordinates(p) for p in allparts)), "units": units,
            "datum": info["manifest"].get("datum", "wgs84")}


# ------------------------------------------------------------------------------------------------
# Correctness: every containment answer against ours, disagreements classified
# ------------------------------------------------------------------------------------------------
class Arbiter:
    """Decides a point with shapely over the same parts: which records' interiors and closures hold it."""

    def __init__(self, work: str):
        import shapely
        self.recs, self.parts = load_parts_shapely(os.path.join(work, "parts.wkb"))
        self.tree = shapely.STRtree(self.parts)
        shapely.prepare(self.parts)

    def classify(self, x: float, y: float):
        import shapely
        cand = self.tree.query(shapely.Point(x, y))
        interior = sorted({int(self.recs[g]) for g in cand if shapely.contains_xy(self.parts[g], x, y)})
        closure = sorted({int(self.recs[g]) for g in cand if shapely.intersects_xy(self.parts[g], x, y)})
        rule = interior[0] if interior else (closure[0] if closure else -1)
        return interior, closure, rule


def compare(ds: dict, ours, other, arbiter: Arbiter, x, y, cap=500) -> dict:
    n = min(len(ours), len(other))
    diff = np.nonzero(ours[:n] != other[:n])[0]
    kinds = {"border": 0, "overlap": 0, "ours wrong": 0, "peer wrong": 0, "both wrong": 0}
    examples = []
    for i in diff[:cap]:
        interior, closure, rule = arbiter.classify(float(x[i]), float(y[i]))
        if interior != closure:
            kind = "border"  # on a unit's boundary: the closure rule and the interior-only answer may differ
        elif len(interior) > 1:
            kind = "overlap"
        elif ours[i] != rule and other[i] != rule:
            kind = "both wrong"
        elif ours[i] != rule:
            kind = "ours wrong"
        else:
            kind = "peer wrong"
        kinds[kind] += 1
        if len(examples) < 5:
            examples.append({"i": int(i), "x": float(x[i]), "y": float(y[i]), "ours": int(ours[i]),
                             "peer": int(other[i]), "interior": interior, "closure": closure, "kind": kind})
    return {"compared": int(n), "mismatches": int(len(diff)), "classified": int(min(len(diff), cap)),
            "kinds": {k: v for k, v in kinds.items() if v}, "examples": examples}


CHINA_SET = {"CN", "HK", "MO", "TW"}


def rg_disagreement(ds: dict, ours_cc: list[str], rg_cc: list[str]) -> dict:
    """Country of rg's nearest city against the country of the polygon that holds the point."""
    n = min(len(ours_cc), len(rg_cc))
    ours_cc, rg_cc = ours_cc[:n], rg_cc[:n]
    land = [i for i in range(n) if ours_cc[i]]
    china = ds["datum"] != "wgs84"
    if china:
        # The China data answers "CN" for every unit it has (Hong Kong, Macau and Taiwan included where it
        # has them); GeoNames files those under their own codes, which is not a geometric disagreement.
        same = lambda o, r: (r in CHINA_SET) if o else (r not in CHINA_SET)
        differ_land = sum(1 for i in land if not same(True, rg_cc[i]))
        sea = [i for i in range(n) if not ours_cc[i]]
        claimed = sum(1 for i in sea if rg_cc[i] in CHINA_SET)
    else:
        differ_land = sum(1 for i in land if rg_cc[i] != ours_cc[i])
        sea = [i for i in range(n) if not ours_cc[i]]
        claimed = len(sea)  # rg names a city for every point, at sea too
    return {"points": n, "in_polygons": len(land), "differ_in_polygons": differ_land,
            "rate_in_polygons": differ_land / max(1, len(land)), "outside": len(sea), "claimed_outside": claimed,
            "china": china}


# ------------------------------------------------------------------------------------------------
# Engines
# ------------------------------------------------------------------------------------------------
def bench_dataset(ds: dict, prof: dict, only: set[str], binary: str, threads: int, cell_size: str | None) -> dict:
    w = ds["work"]
    pts = os.path.join(w, "points.f64")
    res: dict = {"rows": {}, "checks": {}}
    peer = lambda *args: [PY, "-m", "bench.peers", *args, "--work", w]
    extra = ["--cell-size", cell_size] if cell_size else []
    if "ours" in only:
        # The index cache: built once (timed), then every run below loads from it (timed as load_s).
        cache = os.path.join(w, "index-cache")
        shutil.rmtree(cache, ignore_errors=True)
        extra = extra + ["--cache", cache]
        builds = {}
        for key, manifest in (("ours", ds["bench_manifest"]), ("ours-shipped", os.path.join(ds["dir"], "manifest.json"))):
            builds[key] = run_json([binary, "ours", *extra, "--manifest", manifest, "--points", pts, "--datum", ds["datum"],
                                    "--load-only", "yes"])
        # The same timing for every row of ours.
        timed = ["--threads", str(threads), "--passes", str(prof["passes"]), "--rounds", str(prof["rounds"]),
                 "--latency", str(prof["latency"])]
        res["rows"]["ours"] = run_json([binary, "ours", *extra, *timed, "--manifest", ds["bench_manifest"], "--points", pts,
                                        "--datum", ds["datum"], "--answers", os.path.join(w, "ours.i32")])
        res["rows"]["ours-shipped"] = run_json([binary, "ours", *extra, *timed, "--manifest", os.path.join(ds["dir"], "manifest.json"),
                                                "--points", pts, "--datum", ds["datum"],
                                                "--answers-country", os.path.join(w, "ours-country.txt")])
        if ds["datum"] != "wgs84":
            # The same coordinates as GPS fixes (WGS-84): what a phone or a receiver in China asks.
            res["rows"]["ours-wgs84"] = run_json([binary, "ours", *extra, *timed, "--manifest", ds["bench_manifest"], "--points", pts,
                                                  "--datum", "wgs84"])
        for key in builds:
            res["rows"][key]["build_s"] = builds[key]["load_s"]
            res["rows"][key]["build_cache"] = builds[key]["cache"]
            res["rows"][key]["build_peak_rss"] = builds[key]["peak_rss"]
    if "exact" in only:
        # The fast path against GEOS: uniform points (another seed than the timed ones) and every vertex and
        # edge midpoint of the finest layer.
        uniform = os.path.join(w, "exact-uniform.f64")
        make_points(uniform, prof["exact"], ds["seed"] + 1, ds["domain"])
        border = os.path.join(w, "exact-border.f64")
        write_border_points(ds["shp"], border)
        res["exact"] = run_json([binary, "exact", "--manifest", ds["bench_manifest"], "--points", f"{uniform},{border}",
                                 "--datum", ds["datum"]], timeout=3600)
        if ds["datum"] != "wgs84":
            # The same uniform points taken as WGS-84 GPS fixes: the path that skips the conversion where
            # a whole grid cell lands in one unit, against converting every point.
            res["exact_wgs84"] = run_json([binary, "exact", "--manifest", ds["bench_manifest"], "--points", uniform,
                                           "--datum", "wgs84"], timeout=3600)
    if "brute" in only:
        res["rows"]["brute"] = run_json([binary, "brute", "--polygons", os.path.join(w, "parts.wkb"), "--points", pts,
                                         "--limit", str(prof["brute"]), "--answers", os.path.join(w, "brute.i32")])
        res["rows"]["brute"]["answers"] = os.path.join(w, "brute.i32")
    if "shapely" in only:
        res["rows"]["shapely"] = run_json(peer("shapely", "--method", "contains_xy", "--threads", str(threads),
                                               "--passes", str(prof["peer_passes"]),
                                               "--answers", os.path.join(w, "shapely.i32")))
        res["rows"]["shapely-within"] = run_json(peer("shapely", "--method", "within", "--passes", "1",
                                                      "--limit", str(prof["within"]),
                                                      "--answers", os.path.join(w, "shapely-within.i32")))
    if "duckdb" in only:
        for r in run_json(peer("duckdb", "--threads", str(threads), "--passes", str(prof["peer_passes"]),
                               "--answers", os.path.join(w, "duckdb.i32"))):
            res["rows"][r["engine"]] = r
    if "postgis" in only:
        for r in run_json(peer("postgis", "--threads", str(threads), "--passes", str(max(1, prof["peer_passes"] - 1)),
                               "--point-driven-limit", str(prof["point_driven"]),
                               "--answers", os.path.join(w, "postgis.i32"))):
            res["rows"][r["engine"]] = r
    if "rg" in only:
        for mode in (1, 2):
            res["rows"][f"rg-mode{mode}"] = run_json(peer("rg", "--mode", str(mode), "--passes", "1",
                                                          "--answers-cc", os.path.join(w, f"rg-mode{mode}.txt")))

    # Correctness: everything that answered containment, now or in an earlier run on the same inputs.
    ours_path = os.path.join(w, "ours.i32")
    if os.path.exists(ours_path):
        ours = read_answers(ours_path)
        x, y = read_points(pts)
        arbiter = None
        for f in sorted(os.listdir(w)):
            if not f.endswith(".i32") or f == "ours.i32":
                continue
            arbiter = arbiter or Arbiter(w)
            key = f[:-4]
            res["checks"][key] = compare(ds, ours, read_answers(os.path.join(w, f)), arbiter, x, y)
            res["checks"][key]["fresh"] = any(r.get("answers", "").endswith(f) for r in res["rows"].values())
            c = res["checks"][key]
            log(f"check {ds['name']}: {key}: {c['mismatches']} mismatches of {c['compared']} {c['kinds'] or ''}")
        res["negative_codes"] = int((ours == -2).sum())
    cc_path = os.path.join(w, "ours-country.txt")
    for mode in (1, 2):
        rg_path = os.path.join(w, f"rg-mode{mode}.txt")
        if os.path.exists(cc_path) and os.path.exists(rg_path):
            with open(cc_path) as f:
                ours_cc = f.read().split("\n")[:-1]
            with open(rg_path) as f:
                rg_cc = f.read().split("\n")[:-1]
            res["checks"][f"rg-mode{mode}-country"] = rg_disagreement(ds, ours_cc, rg_cc)
    return res


def write_border_points(shp: str, path: str):
    """Every vertex of every ring of the shapefile, and the midpoint of every edge."""
    import shapefile  # pyshp
    chunks = []
    for shape in shapefile.Reader(shp).iterShapes():
        if not shape.points:
            continue
        xy = np.asarray(shape.points, dtype="<f8")[:, :2]
        parts = list(shape.parts) + [len(xy)]
        for a, b in zip(parts[:-1], parts[1:]):
            ring = xy[a:b]
            chunks.append(ring)
            if len(ring) > 1:
                chunks.append((ring[:-1] + ring[1:]) / 2)
    np.concatenate(chunks).astype("<f8").tofile(path)


def find_cli(binary_dir: str, data_dir: str, build: bool):
    """The `geocode` CLI, if this checkout's builds and answers `geocode LAT LON --data DIR`."""
    if build:
        p = subprocess.run(["swift", "build", "-c", "release", "--product", "geocode"], cwd=REPO,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            return None, "swift build --product geocode failed"
    cli = os.path.join(binary_dir, "geocode")
    if not os.path.exists(cli):
        return None, "no geocode binary"
    try:
        p = subprocess.run([cli, *COLD_POINT, "--data", data_dir], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "geocode LAT LON --data DIR did not finish in 120 s"
    if p.returncode != 0 or not p.stdout.strip():
        return None, f"`geocode LAT LON --data DIR` exited {p.returncode} printing {p.stdout.strip()[:60]!r}"
    return cli, p.stdout.strip().splitlines()[0]


def cold_start(cmd: list[str], reps: int, env: dict | None = None) -> dict:
    """Process start to the first line of output: once with an empty index cache (the one-time build),
    then `reps` times with the cache (page cache warm)."""
    def once():
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        line = p.stdout.readline()
        d = time.perf_counter() - t
        p.stdout.read()
        p.wait()
        if p.returncode != 0:
            raise RuntimeError(f"{cmd} exited {p.returncode}")
        return d, line.strip()

    first, _ = once()
    times, answer = [], ""
    for _ in range(reps):
        d, answer = once()
        times.append(d)
    rss = None
    if os.path.exists("/usr/bin/time"):
        p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, env=env)
        rss = int(p.stderr.strip().splitlines()[-1]) * 1024
    return {"times_s": times, "median_s": float(np.median(times)), "answer": answer, "peak_rss": rss,
            "first_run_s": first}


# ------------------------------------------------------------------------------------------------
def main():
    p = argparse.ArgumentParser(prog="Benchmarks/run.sh", description=__doc__)
    p.add_argument("--quick", action="store_true", help="small point counts (about a minute); for CI")
    p.add_argument("--data", default="Data", help="data directory: one subdirectory with manifest.json per dataset")
    p.add_argument("--only", default=",".join(ENGINES),
                   help=f"comma-separated engines to run ({', '.join(ENGINES)}); e.g. --only ours")
    p.add_argument("--datasets", help="comma-separated dataset names (default: all in the data directory)")
    p.add_argument("--points", type=int, help="override the profile's number of points per dataset")
    p.add_argument("--threads", type=int, default=os.cpu_count(), help="the all-threads count (default: all cores)")
    p.add_argument("--out", help="report file (default: Benchmarks/RESULTS.md for a full run of every engine, "
                                 "else Benchmarks/work/<profile>/RESULTS.md)")
    p.add_argument("--skip-build", action="store_true", help="use the geocode-bench already built")
    p.add_argument("--wait-idle", type=float, metavar="MINUTES",
                   help="first wait, up to MINUTES, for 20 s in which other work uses under 0.15 cores")
    p.add_argument("--cell-size", help="our engine's ReverseGeocoder.Options.cellSize in degrees, or off "
                                       "(default: the engine's default)")
    a = p.parse_args()

    profile = "quick" if a.quick else "full"
    prof = dict(PROFILES[profile])
    if a.points:
        prof["points"] = a.points
    only = set(a.only.split(","))
    unknown = only - set(ENGINES)
    if unknown:
        sys.exit(f"suite: unknown engine(s) {sorted(unknown)}; known: {ENGINES}")
    complete = only == set(ENGINES) and profile == "full" and not a.points and not a.datasets and not a.cell_size
    out = a.out or (os.path.join(HERE, "RESULTS.md") if complete else os.path.join(HERE, "work", profile, "RESULTS.md"))
    data_dir = os.path.abspath(os.path.join(REPO, a.data) if not os.path.isabs(a.data) else a.data)
    if a.wait_idle:
        wait_idle(a.wait_idle * 60)
    started = time.time()
    load_start = os.getloadavg()
    cpu_start = cpu_snapshot()

    bin_dir = os.path.join(REPO, ".build", "release")
    binary = os.path.join(bin_dir, "geocode-bench")
    if not a.skip_build:
        log("building geocode-bench (release)")
        sh(["swift", "build", "-c", "release", "--product", "geocode-bench"], cwd=REPO, stdout=subprocess.DEVNULL)

    datasets = discover(data_dir)
    if a.datasets:
        want = set(a.datasets.split(","))
        datasets = [d for d in datasets if read_manifest(d)["name"] in want or os.path.basename(d) in want]
    results = {"profile": profile, "prof": prof, "only": sorted(only), "threads": a.threads, "datasets": [],
               "data_dir": data_dir, "command": os.environ.get("BENCH_COMMAND", "Benchmarks/run.sh " + " ".join(sys.argv[1:]))}
    for d in datasets:
        ds = prepare(d, os.path.join(HERE, "work", profile, os.path.basename(d)), prof["points"])
        log(f"== {ds['name']} ==")
        r = bench_dataset(ds, prof, only, binary, a.threads, a.cell_size)
        ds = {k: v for k, v in ds.items() if k not in ("units",)}
        results["datasets"].append({"info": ds, **r})

    if "cold" in only:
        cli, note = find_cli(bin_dir, data_dir, build=not a.skip_build)
        if cli:
            cmd, how = [cli, *COLD_POINT, "--data", data_dir], "geocode CLI"
        else:
            cmd, how = [binary, "cold-start", "--data", data_dir, *COLD_POINT], f"geocode-bench cold-start ({note})"
        log(f"cold start: {how}")
        cli_cache = os.path.join(HERE, "work", profile, "cli-index-cache")
        shutil.rmtree(cli_cache, ignore_errors=True)
        env = dict(os.environ, GEOCODE_CACHE_DIR=cli_cache)
        results["cold"] = {"how": how, "command": " ".join(os.path.relpath(c, REPO) if c.startswith(REPO) else c
                                                          for c in cmd), **cold_start(cmd, prof["cold"], env)}

    results["elapsed_s"] = time.time() - started
    results["load_start"] = load_start
    results["load_end"] = os.getloadavg()
    server = sum(r.get("cluster_cpu_s", 0) for d in results["datasets"] for r in d["rows"].values())
    results["cpu_use"] = cpu_use(cpu_start, cpu_snapshot(), server)
    results["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(os.path.join(HERE, "work", profile, "results.json"), "w") as f:
        json.dump(results, f, indent=1, ensure_ascii=False, default=str)
    report.write(results, out, REPO)
    log(f"wrote {os.path.relpath(out, REPO)} in {results['elapsed_s']:.0f} s")
    print(report.summary(results))
    # A wrong answer of ours fails the run (so a CI job running --quick catches it): any disagreement with
    # brute force (which follows our rule exactly, borders included), and any disagreement elsewhere that
    # the arbiter does not put down to a border, an overlap, or the peer's own mistake.
    bad = []
    for d in results["datasets"]:
        for k, c in d["checks"].items():
            if "mismatches" not in c or not c["mismatches"]:
                continue
            if k == "brute" or any(c["kinds"].get(x) for x in ("ours wrong", "both wrong")):
                bad.append(f"{d['info']['name']}/{k}: {c['mismatches']} ({c['kinds']})")
        if d.get("exact_wgs84", {}).get("mismatches"):
            bad.append(f"{d['info']['name']}/exact-wgs84: {d['exact_wgs84']['mismatches']} points differ")
        if d.get("exact", {}).get("mismatches"):
            bad.append(f"{d['info']['name']}/exact: {d['exact']['mismatches']} points where the fast path and GEOS differ")
    if bad:
        print("suite: OUR ANSWERS DISAGREE: " + "; ".join(bad), file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
