"""End to end, whole process: `geocode batch` beside the tools a data team would otherwise use, on the
same 1 M-point CSV files, in one run (standalone; not part of suite.py).

    Benchmarks/.venv/bin/python Benchmarks/bench/endtoend.py [--points N] [--runs R] [--out FILE]
        [--geocode PATH] [--skip duckdb,rg,...] [--duckdb-path DIR]

(`--duckdb-path DIR`: a directory put first on the DuckDB script's PYTHONPATH, holding duckdb==1.5.5 and
duckdb-extension-spatial==1.5.5 when the interpreter's own DuckDB is another version, e.g.
`pip install --target DIR duckdb==1.5.5 duckdb-extension-spatial==1.5.5`.)

Every tool reads the CSV, answers every point and writes a CSV, as its own process, timed by GNU time
(wall, user+sys CPU, peak RSS):
  * ours:      geocode batch -j 1 / -j 2 IN OUT (default fields), and a 1-row run for the load alone; the
               same with --max-distance 0 (no nearest-unit search at sea: containment only, as the peers);
  * geopandas: read_csv + points_from_xy + sjoin(predicate='within') with the world admin-1 shapefile + to_csv;
  * DuckDB:    spatial extension, read_csv + LEFT JOIN ON ST_Contains(admin-1 polygon, point) + COPY, 1 and 2 threads;
  * reverse_geocoder: read_csv + rg.search (nearest GeoNames place, mode=1: one process, so its CPU is
               all in the timed process; GNU time also counts reaped children) + to_csv.
Answers are checked: ours vs geopandas and DuckDB on the admin-1 code (ISO 3166-2) with our engine on the
world dataset only (the peers' polygons), reverse_geocoder (a nearest-place answer) on the country.
Runs of each tool are alternated; medians are reported, with the machine's load average.
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = sys.executable
WORLD_ADMIN1 = os.path.join(ROOT, "Data", "world", "world_province.shp")

GEOPANDAS = r"""
import sys, geopandas as gpd, pandas as pd
src, shp, out = sys.argv[1:4]
pts = pd.read_csv(src)
lat = 'lat'; lon = 'lon'
g = gpd.GeoDataFrame(pts, geometry=gpd.points_from_xy(pts[lon], pts[lat]), crs='EPSG:4326')
poly = gpd.read_file(shp)[['iso3166_2', 'name', 'country', 'iso_a2', 'geometry']].to_crs('EPSG:4326')
j = gpd.sjoin(g, poly, how='left', predicate='within')
j = j[~j.index.duplicated(keep='first')]   # a point on a shared border: one answer per row, as ours
j.drop(columns=['geometry', 'index_right']).to_csv(out, index=False)
"""

DUCKDB = r"""
import os, sys, tempfile, duckdb, duckdb_extension_spatial
src, shp, out, threads = sys.argv[1:5]
# The spatial extension binary from PyPI's duckdb-extension-spatial wheel; nothing fetched from the network.
ext = os.path.join(os.path.dirname(duckdb_extension_spatial.__file__), "extensions", f"v{duckdb.__version__}",
                   "spatial.duckdb_extension")
con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                             "extension_directory": tempfile.mkdtemp()})
con.execute(f"LOAD '{ext}'")
con.execute(f"SET threads={int(threads)}")
con.execute(f"CREATE TABLE poly AS SELECT iso3166_2, name, iso_a2, geom FROM ST_Read('{shp}')")
con.execute(f'''COPY (SELECT p.*, a.iso3166_2, a.name AS province, a.iso_a2
                FROM read_csv('{src}') p LEFT JOIN poly a ON ST_Contains(a.geom, ST_Point(p.lon, p.lat)))
             TO '{out}' (HEADER, DELIMITER ',')''')
"""

RG = r"""
import sys, pandas as pd, reverse_geocoder as rg
src, out = sys.argv[1:3]
pts = pd.read_csv(src)
res = rg.search(list(zip(pts['lat'], pts['lon'])), mode=1, verbose=False)
pts['cc'] = [r['cc'] for r in res]
pts['admin1'] = [r['admin1'] for r in res]
pts.to_csv(out, index=False)
"""


def gnu_time(cmd, env=None):
    """(wall s, cpu s, peak RSS MiB) of one whole process. CPU is user+sys of the process and of every
    child it waited for (GNU time's rusage), so a tool that forks workers is counted whole."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        start = time.monotonic()
        r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", tf.name] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        wall = time.monotonic() - start
        if r.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed ({r.returncode}): {r.stderr.decode()[-2000:]}")
        e, u, s, m = tf.read().split()[-4:]
        return wall, float(u) + float(s), int(m) / 1024


def load_column(path, key, value, key_type=int):
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            out[key_type(row[key])] = row.get(value) or ""
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3, help="alternated runs of the fast tools (ours)")
    ap.add_argument("--peer-runs", type=int, default=1, help="runs of each peer (they take minutes)")
    ap.add_argument("--geocode", default=os.path.join(ROOT, ".build", "release", "geocode"))
    ap.add_argument("--work", default=os.path.join(ROOT, "Benchmarks", "work", "endtoend"))
    ap.add_argument("--out", default=os.path.join(ROOT, "Benchmarks", "results", "endtoend.md"))
    ap.add_argument("--duckdb-path", default=None, help="directory put first on the DuckDB script's PYTHONPATH")
    ap.add_argument("--skip", default="", help="comma list of tools to skip: geopandas,duckdb,rg")
    ap.add_argument("--jobs", default="world,china_gps")
    ap.add_argument("--ours", default="default,nomax",
                    help="our variants: default (the nearest-unit search at sea on), nomax (--max-distance 0)")
    a = ap.parse_args()
    skip = set(filter(None, a.skip.split(",")))
    os.makedirs(a.work, exist_ok=True)
    if not all(os.path.exists(os.path.join(a.work, f"{j}.csv")) for j in ("world", "china_gps")):
        subprocess.run([PY, os.path.join(HERE, "endtoend_points.py"), a.work, "--points", str(a.points)], check=True)
    cache = os.path.join(a.work, "cache")
    env = dict(os.environ, GEOCODE_CACHE_DIR=cache)
    data = os.path.join(ROOT, "Data")
    world_only = os.path.join(a.work, "world-only")
    if not os.path.exists(world_only):
        os.makedirs(world_only)
        os.symlink(os.path.join(data, "world"), os.path.join(world_only, "world"))
    one = os.path.join(a.work, "one.csv")
    with open(one, "w") as f:
        f.write("id,lat,lon\n0,48.8566,2.3522\n")
    scripts = {}
    for name, text in (("geopandas", GEOPANDAS), ("duckdb", DUCKDB), ("rg", RG)):
        scripts[name] = os.path.join(a.work, f"peer_{name}.py")
        with open(scripts[name], "w") as f:
            f.write(text)

    load_start = os.getloadavg()
    results = []   # (job, tool, wall, cpu, rss, rows)
    agreement = []
    for job in a.jobs.split(","):
        src = os.path.join(a.work, f"{job}.csv")
        rows = sum(1 for _ in open(src)) - 1
        out = os.path.join(a.work, f"{job}.out.csv")
        # Warm the index cache and the page cache once.
        subprocess.run([a.geocode, "batch", "-q", "--data", data, one, "-o", out], check=True, env=env)
        subprocess.run([a.geocode, "batch", "-q", "--data", world_only, one, "-o", out], check=True, env=env)
        ours = {"ours -j 1": [], "ours -j 2": [], "ours load (1 row)": [],
                "ours -j 1 --max-distance 0": [], "ours -j 2 --max-distance 0": []}
        variants = set(a.ours.split(","))
        for _ in range(a.runs):
            # Alternated: A B C ... A B C, so a change of the machine's load hits every variant alike.
            for j in ("1", "2") if "default" in variants else ():
                ours[f"ours -j {j}"].append(gnu_time([a.geocode, "batch", "-q", "-j", j, "--data", data, src, "-o", out], env))
            ours["ours load (1 row)"].append(gnu_time([a.geocode, "batch", "-q", "-j", "1", "--data", data, one, "-o", out], env))
            for j in ("1", "2") if "nomax" in variants else ():
                ours[f"ours -j {j} --max-distance 0"].append(gnu_time(
                    [a.geocode, "batch", "-q", "-j", j, "--max-distance", "0", "--data", data, src, "-o", out], env))
        for tool, runs in ours.items():
            if not runs:
                continue
            results.append((job, tool, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
                            max(r[2] for r in runs), rows if "load" not in tool else 1))
        # Ours on the peers' polygons, with the codes, for the agreement check.
        ours_codes = os.path.join(a.work, f"{job}.ours-codes.csv")
        subprocess.run([a.geocode, "batch", "-q", "--data", world_only, "--max-distance", "0", "--fields", "country_code,province_code",
                        src, "-o", ours_codes], check=True, env=env)
        id_col = "id" if job == "world" else None
        peers = []
        if "geopandas" not in skip:
            peers.append(("geopandas", [PY, scripts["geopandas"], src, WORLD_ADMIN1, os.path.join(a.work, f"{job}.gpd.csv")]))
        if "duckdb" not in skip:
            for t in (1, 2):
                peers.append((f"DuckDB spatial, {t} thread{'s' if t > 1 else ''}",
                              [PY, scripts["duckdb"], src, WORLD_ADMIN1, os.path.join(a.work, f"{job}.duck{t}.csv"), str(t)]))
        if "rg" not in skip:
            peers.append(("reverse_geocoder", [PY, scripts["rg"], src, os.path.join(a.work, f"{job}.rg.csv")]))
        duck_env = dict(os.environ, PYTHONPATH=a.duckdb_path) if a.duckdb_path else None
        for tool, cmd in peers:
            runs = [gnu_time(cmd, duck_env if tool.startswith("DuckDB") else None) for _ in range(a.peer_runs)]
            results.append((job, tool, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
                            max(r[2] for r in runs), rows))
            write_report(a, results, agreement, load_start, os.getloadavg())   # so far, in case a later peer fails
        agreement += check(job, src, ours_codes, a.work, skip, id_col)
        write_report(a, results, agreement, load_start, os.getloadavg())
    load_end = os.getloadavg()
    write_report(a, results, agreement, load_start, load_end)


def row_keys(path, id_col):
    """Each output row's key: the id column, or (for files without one) the row's own position."""
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        for i, row in enumerate(r):
            yield (int(row[id_col]) if id_col else (row["track"], row["time"])), row


def check(job, src, ours_codes, work, skip, id_col):
    ours = {k: (row.get("province_code") or "", row.get("country_code") or "") for k, row in row_keys(ours_codes, id_col)}
    found = []
    for tool, path, code, country in (("geopandas", f"{job}.gpd.csv", "iso3166_2", "iso_a2"),
                                      ("DuckDB spatial, 1 thread", f"{job}.duck1.csv", "iso3166_2", "iso_a2")):
        if tool.split()[0].lower() in skip or not os.path.exists(os.path.join(work, path)):
            continue
        same = differ = both_none = 0
        examples = []
        for k, row in row_keys(os.path.join(work, path), id_col):
            theirs = row.get(code) or ""
            mine = ours[k][0]
            # Our country-layer fallback (a point in a country with no admin-1 polygon there) has no
            # province code: the peers, on the admin-1 layer alone, have none either.
            if theirs == mine:
                same += 1
                if not theirs:
                    both_none += 1
            else:
                differ += 1
                if len(examples) < 3:
                    examples.append(f"{k}: ours {mine or '-'} vs {theirs or '-'}")
        found.append((job, tool, "admin-1 code", same, differ, "; ".join(examples)))
    if "rg" not in skip and os.path.exists(os.path.join(work, f"{job}.rg.csv")):
        same = differ = considered = 0
        for k, row in row_keys(os.path.join(work, f"{job}.rg.csv"), id_col):
            mine = ours[k][1]
            if not mine:
                continue   # at sea: reverse_geocoder always names the nearest place
            considered += 1
            if row["cc"] == mine:
                same += 1
            else:
                differ += 1
        found.append((job, "reverse_geocoder", "country (points on land)", same, differ, ""))
    return found


def write_report(a, results, agreement, load_start, load_end):
    lines = ["## End to end: `geocode batch` and its peers, whole process", "",
             f"Command: `python Benchmarks/bench/endtoend.py --points {a.points} --runs {a.runs}"
             f" --peer-runs {a.peer_runs} --jobs {a.jobs} --ours {a.ours}{' --skip ' + a.skip if a.skip else ''}`  ",
             f"Load average at start {load_start[0]:.1f}, at end {load_end[0]:.1f} (2 cores, shared with other work: "
             "compare ratios within this run, not the absolute times).", ""]
    for job in dict.fromkeys(r[0] for r in results):
        rs = [r for r in results if r[0] == job]
        ours1 = next(r for r in rs if r[1] in ("ours -j 1", "ours -j 1 --max-distance 0"))
        load = next(r for r in rs if r[1].startswith("ours load"))
        lines += [f"### {job}.csv ({ours1[5]:,} points)", "",
                  f"| tool | wall s | CPU s | rows/s | CPU ns/row | CPU ns/row beyond load | peak RSS MiB | CPU ratio to {ours1[1]} | to {ours1[1]} beyond load |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for job_, tool, wall, cpu, rss, rows in rs:
            if tool.startswith("ours load"):
                lines.append(f"| {tool} | {wall:.2f} | {cpu:.2f} | | | | {rss:.0f} | | |")
                continue
            beyond = (cpu - load[3]) / rows * 1e9 if tool.startswith("ours") else None
            per_core = cpu / ours1[3]
            # A 1-row run that cost more than the job (the load's page faults swing by ±0.5 s on a busy
            # machine) leaves no "beyond load" figure: say so rather than divide by noise.
            ours_beyond = ours1[3] - load[3]
            beyond_ratio = "" if beyond is not None else (f"{cpu / ours_beyond:.1f}×" if ours_beyond > 0.05 else "n/a")
            lines.append(f"| {tool} | {wall:.2f} | {cpu:.2f} | {rows / wall:,.0f} | {cpu / rows * 1e9:,.0f} | "
                         f"{'' if beyond is None else (f'{beyond:,.0f}' if beyond > 0 else 'n/a')} | {rss:.0f} | {per_core:.1f}× | {beyond_ratio} |")
        ours2 = next((r for r in rs if r[1] == ours1[1].replace("-j 1", "-j 2")), None)
        if ours2:
            lines.append("")
            beyond_wall = (f"{(ours1[2] - load[2]) / (ours2[2] - load[2]):.2f}×" if ours2[2] > load[2]
                           else "not measurable: the 1-row run's wall exceeds the 2-thread run's")
            lines.append(f"Two threads: wall {ours1[2] / ours2[2]:.2f}× faster than one (beyond load: {beyond_wall}); "
                         f"CPU {ours2[3] / ours1[3]:.2f}× one thread's.")
        lines.append("")
    if agreement:
        lines += ["### Do the answers agree?", "",
                  "Ours here: the world dataset alone (the peers' polygons), `--fields country_code,province_code`.", "",
                  "| job | peer | compared on | same | differ | examples |", "|---|---|---|---:|---:|---|"]
        for job, tool, what, same, differ, ex in agreement:
            lines.append(f"| {job} | {tool} | {what} | {same:,} | {differ:,} | {ex} |")
        lines.append("")
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
