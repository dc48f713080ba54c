"""The peers, each run in its own process so its peak RSS is its own:

    python -m bench.peers shapely  --work DIR [--threads N] [--passes K] --answers A.i32
    python -m bench.peers duckdb   --work DIR --threads N [--passes K] --answers A.i32
    python -m bench.peers postgis  --work DIR --threads N [--passes K] --answers A.i32
    python -m bench.peers rg       --work DIR --mode 1|2 --answers-cc CC.txt

Each prints one JSON object on stdout. Every containment peer answers, per point, the lowest record number
among the polygons whose interior contains the point (-1 for none): the engine's rule for a point that
several units hold; a point on a border that no interior holds gets -1 here, and the suite's
mismatch check reports such points as border cases (see Benchmarks/README.md).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .common import Timer, first_per_point, load_parts_shapely, log, peak_rss_bytes, read_parts, read_points, write_answers


def median(xs):
    return float(np.median(xs)) if xs else float("nan")


def result(engine: str, n: int, timed: list[tuple[float, float]], **extra) -> dict:
    """timed: (wall, cpu) seconds of each timed pass."""
    passes, cpu = [w for w, _ in timed], [c for _, c in timed]
    m = median(passes)
    return {"engine": engine, "points": n, "passes_s": passes, "pps": n / m, "ns": m * 1e9 / n,
            "cpu_passes_s": cpu, "cpu_ns": median(cpu) * 1e9 / n, **extra}


# ------------------------------------------------------------------------------------------------
# shapely 2
# ------------------------------------------------------------------------------------------------
def run_shapely(a) -> dict:
    import shapely

    t = Timer()
    recs, parts = load_parts_shapely(os.path.join(a.work, "parts.wkb"))
    x, y = read_points(os.path.join(a.work, "points.f64"), a.limit)
    n = len(x)
    load = t.lap()
    tree = shapely.STRtree(parts)
    shapely.prepare(parts)
    build = t.lap()

    def bbox_then_contains(xs, ys):
        # Candidates by bounding box from the tree, then the exact test on prepared polygons, vectorized.
        pi, gi = tree.query(shapely.points(xs, ys))
        hit = shapely.contains_xy(parts[gi], xs[pi], ys[pi])
        return first_per_point(len(xs), pi[hit], recs[gi[hit]])

    def query_within(xs, ys):
        # The tree evaluates the predicate itself (GEOS prepares the query point, not the polygon).
        pi, gi = tree.query(shapely.points(xs, ys), predicate="within")
        return first_per_point(len(xs), pi, recs[gi])

    method = {"contains_xy": bbox_then_contains, "within": query_within}[a.method]
    first = Timer()
    answers = method(x, y)
    first_pass = first.lap()
    passes = []
    for _ in range(a.passes):
        t = Timer()
        got = method(x, y)
        passes.append(t.both())
        assert np.array_equal(got, answers)
    extra = {}
    if a.threads > 1:
        # shapely's vectorized functions release the GIL: split the points over a thread pool.
        chunks = np.array_split(np.arange(n), a.threads * 4)
        with ThreadPoolExecutor(a.threads) as pool:
            def run_all():
                outs = list(pool.map(lambda idx: method(x[idx], y[idx]), chunks))
                return np.concatenate(outs)
            run_all()
            mpasses = []
            for _ in range(a.passes):
                t = Timer()
                got = run_all()
                mpasses.append(t.both())
                assert np.array_equal(got, answers)
        walls, cpus = [w for w, _ in mpasses], [c for _, c in mpasses]
        extra = {"threads": a.threads, "multi_passes_s": walls, "multi_pps": n / median(walls),
                 "multi_ns": median(walls) * 1e9 / n, "multi_cpu_ns": median(cpus) * 1e9 / n}
    write_answers(a.answers, answers)
    return result(f"shapely-{a.method}", n, passes, load_s=load, build_s=build, first_pass_s=first_pass,
                  parts=len(parts), found=int((answers >= 0).sum()), peak_rss=peak_rss_bytes(), answers=a.answers,
                  version=shapely.__version__, geos=shapely.geos_version_string, **extra)


# ------------------------------------------------------------------------------------------------
# DuckDB spatial
# ------------------------------------------------------------------------------------------------
def spatial_extension_path() -> str:
    """The extension binary shipped inside PyPI's duckdb-extension-spatial wheel, for this DuckDB."""
    import duckdb
    import duckdb_extension_spatial
    root = os.path.join(os.path.dirname(duckdb_extension_spatial.__file__), "extensions")
    path = os.path.join(root, f"v{duckdb.__version__}", "spatial.duckdb_extension")
    if not os.path.exists(path):
        raise SystemExit(f"no spatial extension for DuckDB {duckdb.__version__} under {root}")
    return path


def connect_duckdb(ext_dir: str):
    """A DuckDB connection that cannot reach the network for extensions: no auto-install, no autoload,
    an empty extension directory; the spatial extension is LOADed from the wheel's file."""
    import duckdb
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                                 "extension_directory": ext_dir})
    con.execute(f"LOAD '{spatial_extension_path()}'")
    return con


def write_inputs_csv(work: str, tmp: str, limit):
    recs, blobs = read_parts(os.path.join(work, "parts.wkb"))
    x, y = read_points(os.path.join(work, "points.f64"), limit)
    polys_csv = os.path.join(tmp, "polys.csv")
    with open(polys_csv, "w") as f:
        f.write("rec,wkb\n")
        for r, b in zip(recs, blobs):
            f.write(f"{r},{b.hex()}\n")
    pts_csv = os.path.join(tmp, "points.csv")
    # %.17g round-trips every double exactly.
    np.savetxt(pts_csv, np.column_stack([np.arange(len(x)), x, y]), fmt=["%d", "%.17g", "%.17g"],
               delimiter=",", header="id,x,y", comments="")
    return polys_csv, pts_csv, len(x), len(recs)


def run_duckdb(a) -> list[dict]:
    """Points and polygons as DuckDB tables (GEOMETRY columns), then the join, at threads=1 and threads=N
    in the same process. DuckDB's planner turns a join on ST_Contains into its SPATIAL_JOIN operator,
    which builds an R-tree over the smaller side (the polygons) inside every join: there is no separate
    index build to report."""
    import duckdb

    tmp = tempfile.mkdtemp(prefix="bench-duckdb-")
    out = []
    try:
        t = Timer()
        polys_csv, pts_csv, n, nparts = write_inputs_csv(a.work, tmp, a.limit)
        os.makedirs(os.path.join(tmp, "ext"))
        con = connect_duckdb(os.path.join(tmp, "ext"))
        con.execute(f"CREATE TABLE polys AS SELECT rec::INTEGER AS rec, ST_GeomFromHEXWKB(wkb) AS geom "
                    f"FROM read_csv('{polys_csv}', columns = {{'rec': 'INTEGER', 'wkb': 'VARCHAR'}}, header = true)")
        con.execute(f"CREATE TABLE pts AS SELECT id, ST_Point(x, y) AS geom "
                    f"FROM read_csv('{pts_csv}', columns = {{'id': 'INTEGER', 'x': 'DOUBLE', 'y': 'DOUBLE'}}, header = true)")
        load = t.lap()
        query = ("SELECT p.id, min(g.rec) AS rec FROM pts p JOIN polys g ON ST_Contains(g.geom, p.geom) "
                 "GROUP BY p.id")
        plan = "\n".join(r[1] for r in con.execute("EXPLAIN " + query).fetchall())
        operator = "SPATIAL_JOIN" if "SPATIAL_JOIN" in plan else "other (no SPATIAL_JOIN in the plan)"
        spatial = con.execute("SELECT extension_version FROM duckdb_extensions() "
                              "WHERE extension_name = 'spatial'").fetchone()[0]

        def once() -> tuple[float, float]:
            con.execute("DROP TABLE IF EXISTS res")
            t = Timer()
            con.execute("CREATE TABLE res AS " + query)
            return t.both()

        for threads in sorted({1, a.threads}):
            con.execute(f"SET threads = {threads}")
            first_pass = once()[0]
            passes = [once() for _ in range(a.passes)]
            rows = con.execute("SELECT id, rec FROM res").fetchnumpy()
            answers = np.full(n, -1, dtype=np.int32)
            answers[rows["id"]] = rows["rec"]
            path = a.answers.replace(".i32", f"-t{threads}.i32")
            write_answers(path, answers)
            out.append(result(f"duckdb-t{threads}", n, passes, threads=threads, load_s=load, build_s=None,
                              first_pass_s=first_pass, parts=nparts, operator=operator,
                              found=int((answers >= 0).sum()), peak_rss=peak_rss_bytes(), answers=path,
                              version=duckdb.__version__, spatial_version=spatial))
            log(f"duckdb threads={threads}: {out[-1]['ns']:.0f} ns/point ({operator})")
        con.close()
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------------------------------------
# PostGIS in a throw-away cluster
# ------------------------------------------------------------------------------------------------
PG_BIN = "/usr/lib/postgresql/15/bin"


class ThrowawayCluster:
    """initdb + pg_ctl start in a temporary directory, listening on a free loopback port only; stop and
    delete on exit. As root, the server runs as the `postgres` system user (initdb refuses root)."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="bench-pg-")
        self.data = os.path.join(self.dir, "data")
        self.port = self._free_port()
        self.as_user = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            os.chmod(self.dir, 0o700)
            self.as_user = ["runuser", "-u", "postgres", "--"]

    @staticmethod
    def _free_port() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    def _run(self, *cmd):
        subprocess.run(self.as_user + list(cmd), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def __enter__(self):
        self._run(f"{PG_BIN}/initdb", "-D", self.data, "-A", "trust", "-U", "bench", "-E", "UTF8", "--no-sync")
        opts = (f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.dir} "
                f"-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=512MB "
                f"-c work_mem=256MB -c maintenance_work_mem=512MB -c jit=off -c autovacuum=off")
        self._run(f"{PG_BIN}/pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"), "-o", opts, "-w", "start")
        return self

    def __exit__(self, *exc):
        try:
            self._run(f"{PG_BIN}/pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def cpu_seconds(self, backend: int) -> float:
        """CPU time of a backend, plus what the postmaster's finished children (parallel workers) used."""
        tick = os.sysconf("SC_CLK_TCK")
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            postmaster = int(f.readline())

        def fields(pid):
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()

        b, p = fields(backend), fields(postmaster)
        # After the command name: utime, stime are fields 12, 13; cutime, cstime 14, 15 (0-based).
        return (int(b[11]) + int(b[12]) + int(p[13]) + int(p[14])) / tick

    def total_cpu_seconds(self) -> float:
        """CPU time the whole server has used so far: the postmaster, its finished children, and the
        children still running (checkpointer, writers...)."""
        tick = os.sysconf("SC_CLK_TCK")
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            postmaster = int(f.readline())
        total = 0
        for pid in [d for d in os.listdir("/proc") if d.isdigit()]:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    v = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(pid) == postmaster:
                total += int(v[11]) + int(v[12]) + int(v[13]) + int(v[14])
            elif int(v[1]) == postmaster:  # field 4, the parent
                total += int(v[11]) + int(v[12])
        return total / tick

    def connect(self):
        import psycopg
        return psycopg.connect(host="127.0.0.1", port=self.port, user="bench", dbname="postgres", autocommit=True)


def run_postgis(a) -> list[dict]:
    """One throw-away cluster, the polygons and points loaded once, then each join shape in a fresh
    session (so the backend's peak RSS is that shape's own):
      polys-gist: GiST on the polygons; the planner loops over the points and probes the polygon index
                  (what a lookup per point does; the polygon changes at every test).
      points-gist: GiST on the points as well; the planner loops over the polygons and probes the point
                  index, so consecutive tests share a polygon and PostGIS's prepared-geometry cache works.
                  Indexing the query points is part of the batch's cost: its build time is added to the
                  join time in points/s."""
    recs, blobs = read_parts(os.path.join(a.work, "parts.wkb"))
    x, y = read_points(os.path.join(a.work, "points.f64"), a.limit)
    n = len(x)
    out = []
    t = Timer()
    with ThrowawayCluster() as pg:
        startup = t.lap()
        with pg.connect() as con:
            cur = con.cursor()
            cur.execute("CREATE EXTENSION postgis")
            cur.execute("CREATE TABLE polys (rec integer, geom geometry)")
            with cur.copy("COPY polys (rec, geom) FROM STDIN") as cp:
                for r, b in zip(recs, blobs):
                    cp.write_row((int(r), b.hex()))
            cur.execute("CREATE TABLE pts_xy (id integer, x double precision, y double precision)")
            with cur.copy("COPY pts_xy (id, x, y) FROM STDIN") as cp:
                for i in range(n):
                    cp.write_row((i, float(x[i]), float(y[i])))
            cur.execute("CREATE TABLE pts AS SELECT id, ST_MakePoint(x, y) AS geom FROM pts_xy")
            load = t.lap()
            cur.execute("CREATE INDEX polys_geom ON polys USING gist (geom)")
            build = t.lap()
            cur.execute("VACUUM ANALYZE polys")
            cur.execute("VACUUM ANALYZE pts")
            cur.execute("SELECT postgis_full_version(), version()")
            postgis_version, pg_version = cur.fetchone()
        version = postgis_version.split('"')[1] if '"' in postgis_version else postgis_version
        # The same join for both shapes; which loop PostgreSQL runs follows from which table has an index
        # (and the plan is checked): with only the polygons indexed it probes that index once per point;
        # with only the points indexed it probes theirs once per polygon.
        query = ("SELECT p.id, min(g.rec) AS rec FROM {src} p JOIN polys g ON ST_Contains(g.geom, p.geom) "
                 "GROUP BY p.id")
        for shape in a.shapes.split(","):
            pts_limit = a.point_driven_limit if shape == "polys-gist" else n
            src = "pts"
            with pg.connect() as con:
                cur = con.cursor()
                if pts_limit < n:
                    # A plain table (temporary ones are never scanned by parallel workers).
                    src = "pts_sub"
                    cur.execute(f"DROP TABLE IF EXISTS pts_sub")
                    cur.execute(f"CREATE TABLE pts_sub AS SELECT * FROM pts WHERE id < {pts_limit}")
                    cur.execute("VACUUM ANALYZE pts_sub")
                if shape == "points-gist":
                    cur.execute("DROP INDEX IF EXISTS polys_geom")
                else:
                    cur.execute("CREATE INDEX IF NOT EXISTS polys_geom ON polys USING gist (geom)")
                cur.execute("ANALYZE polys")
            for threads in sorted({1, a.threads}):
                with pg.connect() as con:
                    cur = con.cursor()
                    workers = threads - 1  # the leader works too
                    cur.execute(f"SET max_parallel_workers_per_gather = {workers}")
                    cur.execute(f"SET max_parallel_workers = {workers}")
                    if workers:
                        cur.execute("SET parallel_setup_cost = 0")
                        cur.execute("SET parallel_tuple_cost = 0")
                        cur.execute("SET min_parallel_table_scan_size = 0")
                    cur.execute("SELECT pg_backend_pid()")
                    backend = cur.fetchone()[0]
                    index_s = (0.0, 0.0)
                    if shape == "points-gist":
                        cur.execute("DROP INDEX IF EXISTS pts_geom")
                        t = Timer(cpu=lambda: pg.cpu_seconds(backend))
                        cur.execute(f"CREATE INDEX pts_geom ON {src} USING gist (geom)")
                        index_s = t.both()
                        cur.execute(f"ANALYZE {src}")
                    q = query.format(src=src)
                    cur.execute("EXPLAIN " + q)
                    plan = "\n".join(r[0] for r in cur.fetchall())
                    driver = "points" if "on polys_geom" in plan or "using polys_geom" in plan else (
                        "polygons" if "on pts_geom" in plan or "using pts_geom" in plan else "other")
                    planned = max([int(l.split(":")[1]) for l in plan.splitlines() if "Workers Planned:" in l] or [0])

                    def once() -> tuple[float, float]:
                        cur.execute("DROP TABLE IF EXISTS res")
                        t = Timer(cpu=lambda: pg.cpu_seconds(backend))
                        cur.execute("CREATE UNLOGGED TABLE res AS " + q)
                        return t.both()

                    first_pass = once()[0]
                    passes = [tuple(v + i for v, i in zip(once(), index_s)) for _ in range(a.passes)]
                    cur.execute("SELECT id, rec FROM res")
                    answers = np.full(pts_limit, -1, dtype=np.int32)
                    for i, r in cur.fetchall():
                        answers[i] = r
                    rss = peak_rss_bytes(backend)
                    cur.execute("DROP TABLE res")
                    if shape == "points-gist":
                        cur.execute("DROP INDEX pts_geom")
                name = f"postgis-{shape}-t{threads}"
                path = a.answers.replace(".i32", f"-{shape}-t{threads}.i32")
                write_answers(path, answers)
                out.append(result(name, pts_limit, passes, shape=shape, threads=threads, workers_planned=planned,
                                  loop_over=driver, load_s=load, build_s=build, points_index_s=index_s[0] or None,
                                  first_pass_s=first_pass, startup_s=startup, parts=len(recs),
                                  found=int((answers >= 0).sum()), peak_rss=rss, answers=path, version=version,
                                  server=pg_version.split(" on ")[0]))
                log(f"{name}: {out[-1]['ns']:.0f} ns/point (loop over {driver}, {planned} workers planned)")
        # For the suite's account of who used the machine during the run (the server is not its child).
        out[-1]["cluster_cpu_s"] = pg.total_cpu_seconds()
    return out


# ------------------------------------------------------------------------------------------------
# reverse_geocoder (GeoNames cities, k-d tree): nearest city, not the containing polygon
# ------------------------------------------------------------------------------------------------
def run_rg(a) -> dict:
    import importlib.metadata
    import reverse_geocoder as rg

    x, y = read_points(os.path.join(a.work, "points.f64"), a.limit)
    n = len(x)
    t = Timer()
    geocoder = rg.RGeocoder(mode=a.mode, verbose=False)
    build = t.lap()
    coords = list(zip(y.tolist(), x.tolist()))  # (lat, lon) tuples, the input it takes
    conv = t.lap()
    first = geocoder.query(coords)
    first_pass = t.lap()
    passes = []
    for _ in range(a.passes):
        t = Timer()
        geocoder.query(coords)
        passes.append(t.both())
    with open(a.answers_cc, "w") as f:
        f.write("\n".join(r["cc"] for r in first) + "\n")
    # Mode 2's worker processes: the largest of them (their ru_maxrss includes the parent's image they share).
    rss = max(peak_rss_bytes(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 if a.mode == 2 else 0)
    return result(f"rg-mode{a.mode}", n, passes, mode=a.mode, build_s=build, tuples_s=conv, first_pass_s=first_pass,
                  cities=len(geocoder.locations), peak_rss=rss, answers_cc=a.answers_cc,
                  version=importlib.metadata.version("reverse_geocoder"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("engine", choices=["shapely", "duckdb", "postgis", "rg"])
    p.add_argument("--work", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--passes", type=int, default=3)
    p.add_argument("--limit", type=int)
    p.add_argument("--method", default="contains_xy", choices=["contains_xy", "within"])
    p.add_argument("--mode", type=int, default=1)
    p.add_argument("--shapes", default="polys-gist,points-gist")
    p.add_argument("--point-driven-limit", type=int, default=20_000)
    p.add_argument("--answers")
    p.add_argument("--answers-cc")
    a = p.parse_args()
    out = {"shapely": run_shapely, "duckdb": run_duckdb, "postgis": run_postgis, "rg": run_rg}[a.engine](a)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
