#!/usr/bin/env python3
"""How well do GeoNames place cells stand in for real city polygons? Measured where truth exists: China.

    python3 Data/measure_localities.py [--points 100000] [--out Data/localities_measure.md]

Builds the locality method for China from GeoNames CN places ALONE and compares it with Amap's real city
and district polygons (the committed Data/china shapefiles, GCJ-02; GeoNames places are WGS-84 and are
converted with geonames_places.wgs_to_gcj, checked against the published vectors first).

For every variant (place threshold x plain/population-weighted x clipped to the province/not) and two
point sets it reports the share of points whose locality cell's place lies in the same Amap city (and
the same Amap district) as the point:
  * random: seeded uniform GCJ-02 points in China's bbox, kept when inside an Amap district (land);
  * places: every GeoNames cities500 CN place inside an Amap district (where people live).
A point's cell is found exactly as the polygons would answer it, without building polygons:
  * plain: the nearest place (clipped: among the places in the point's own province), in the planar
    metric the build uses (longitude scaled by cos of the province's mean latitude; unclipped: of China's);
  * weighted: the place minimising distance / max(population, threshold)^a (multiplicatively weighted
    Voronoi; a = 0.1, 0.25 and 0.5), searched exactly per population class (powers of two, k = 8 nearest per class).
A place's own city/district is the Amap unit containing its GCJ-02 position, or the nearest one within
0.1 degrees (coastal places); places farther from any district are dropped (counted).
"""
from __future__ import annotations

import argparse
import collections
import math
import os
import sys
import time

import numpy as np
import pyogrio
import shapely
from scipy.spatial import cKDTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import geonames_places as gp  # noqa: E402

SEED = 20261201
HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = (0.0, 0.1, 0.25, 0.5)  # exponent a of population; 0 = plain Voronoi


def load_districts():
    df = pyogrio.read_dataframe(os.path.join(HERE, "china", "china_district.shp"))
    geoms = np.array(df.geometry.values, dtype=object)
    city = np.array([c if c else p for c, p in zip(df["city_code"], df["prov_code"])])
    return geoms, df["adcode"].to_numpy(), city, df["prov_code"].to_numpy()


def locate(tree, geoms, x, y, snap: float | None):
    pts = shapely.points(x, y)
    pi, gi = tree.query(pts, predicate="intersects")
    ans = np.full(len(pts), -1)
    ans[pi[::-1]] = gi[::-1]  # lowest geometry index wins on shared borders
    if snap is not None:
        miss = np.flatnonzero(ans < 0)
        if len(miss):
            mi, mg = tree.query_nearest(pts[miss], max_distance=snap, all_matches=False)
            ans[miss[mi]] = mg
    return ans


class Searcher:
    """argmin over generators of dist/pop^a within groups (provinces, or one group), planar scaled metric."""

    def __init__(self, gx, gy, pop, group, a: float, scale_of_group: dict, floor: int):
        self.a = a
        self.trees = collections.defaultdict(list)  # group -> [(tree, idx)]
        w = np.maximum(pop, floor).astype(float)  # GeoNames population 0 = unknown: the threshold
        cls = np.floor(np.log2(w)).astype(int) if a > 0 else np.zeros(len(w), int)
        self.w = w ** a
        for g in np.unique(group):
            s = scale_of_group[g]
            m = group == g
            for c in np.unique(cls[m]):
                idx = np.flatnonzero(m & (cls == c))
                self.trees[g].append((cKDTree(np.c_[gx[idx] * s, gy[idx]]), idx))
        self.scale = scale_of_group

    def nearest(self, x, y, group):
        out = np.full(len(x), -1)
        for g in np.unique(group):
            m = np.flatnonzero(group == g)
            if g not in self.trees:
                continue
            q = np.c_[x[m] * self.scale[g], y[m]]
            best = np.full(len(m), np.inf)
            bi = np.full(len(m), -1)
            for tree, idx in self.trees[g]:
                k = min(8 if self.a > 0 else 1, len(idx))
                d, j = tree.query(q, k=k)
                if k == 1:
                    d, j = d[:, None], j[:, None]
                score = d / self.w[idx[j]]
                c = score.argmin(axis=1)
                sc = score[np.arange(len(m)), c]
                better = sc < best
                best[better] = sc[better]
                bi[better] = idx[j[np.arange(len(m)), c]][better]
            out[m] = bi
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--out", default=os.path.join(HERE, "localities_measure.md"))
    args = ap.parse_args()
    t0 = time.monotonic()
    gp.verify_gcj()
    geoms, dcode, ccode, pcode = load_districts()
    tree = shapely.STRtree(geoms)
    minx, miny, maxx, maxy = shapely.total_bounds(geoms)
    prov_lat = {}
    for p in np.unique(pcode):
        b = shapely.total_bounds(geoms[pcode == p])
        prov_lat[p] = math.cos(math.radians((b[1] + b[3]) / 2))
    china_scale = math.cos(math.radians((miny + maxy) / 2))

    # random land points
    rng = np.random.default_rng(SEED)
    rx, ry, ri = [], [], []
    drawn = 0
    while sum(len(a) for a in rx) < args.points:
        n = 200_000
        x, y = rng.uniform(minx, maxx, n), rng.uniform(miny, maxy, n)
        drawn += n
        a = locate(tree, geoms, x, y, None)
        k = a >= 0
        rx.append(x[k]); ry.append(y[k]); ri.append(a[k])
    rx, ry, ri = (np.concatenate(v)[:args.points] for v in (rx, ry, ri))
    print(f"random: {args.points} land points of {drawn} drawn  [{time.monotonic() - t0:.0f} s]", flush=True)

    # test places: every cities500 CN place inside a district (own position, not snapped)
    p500 = [p for p in gp.load_places(500) if p["cc"] == "CN"]
    tlat, tlon = gp.wgs_to_gcj([p["lat"] for p in p500], [p["lon"] for p in p500])
    ti = locate(tree, geoms, tlon, tlat, None)
    tk = ti >= 0
    tx, ty, ti = tlon[tk], tlat[tk], ti[tk]
    print(f"test places: {int(tk.sum())} of {len(p500)} cities500 CN places inside an Amap district", flush=True)

    rows = []
    gen_info = {}
    for thr in gp.THRESHOLDS:
        pl = [p for p in gp.load_places(thr) if p["cc"] == "CN"]
        glat, glon = gp.wgs_to_gcj([p["lat"] for p in pl], [p["lon"] for p in pl])
        gi = locate(tree, geoms, glon, glat, 0.1)
        keep = gi >= 0
        gen_info[thr] = (len(pl), int(keep.sum()))
        gx, gy, gi = glon[keep], glat[keep], gi[keep]
        pop = np.array([p["pop"] for p, k in zip(pl, keep) if k])
        gprov = pcode[gi]
        for a in WEIGHTS:
            for clip in (False, True):
                if clip:
                    s = Searcher(gx, gy, pop, gprov, a, prov_lat, thr)
                    fr = s.nearest(rx, ry, pcode[ri])
                    ft = s.nearest(tx, ty, pcode[ti])
                else:
                    one = np.zeros(len(gx), int)
                    s = Searcher(gx, gy, pop, one, a, {0: china_scale}, thr)
                    fr = s.nearest(rx, ry, np.zeros(len(rx), int))
                    ft = s.nearest(tx, ty, np.zeros(len(tx), int))

                def share(found, truth_i, level):
                    ok = found >= 0
                    lv = ccode if level == "city" else dcode
                    return float(np.mean(ok & (lv[gi[np.maximum(found, 0)]] == lv[truth_i])))
                rows.append((thr, a, clip, len(gx), share(fr, ri, "city"), share(fr, ri, "district"),
                             share(ft, ti, "city"), share(ft, ti, "district")))
                print(f"cities{thr} a={a} clip={clip}: " + " ".join(f"{v:.4f}" for v in rows[-1][4:]) +
                      f"  [{time.monotonic() - t0:.0f} s]", flush=True)

    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write(f"<!-- made by: python3 Data/measure_localities.py --points {args.points} (seed {SEED}) -->\n")
        f.write(f"Random points: {args.points:,} uniform GCJ-02 points inside Amap districts ({drawn:,} drawn). "
                f"Test places: {int(tk.sum()):,} of {len(p500):,} GeoNames cities500 CN places inside an Amap "
                f"district. Generators per threshold (CN places, kept within 0.1° of a district): " +
                ", ".join(f"cities{t} {k:,} of {n:,}" for t, (n, k) in gen_info.items()) + ".\n\n")
        f.write("| places | weighting | clipped to province | generators | random: same city | random: same "
                "district | places: same city | places: same district |\n")
        f.write("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
        for thr, a, clip, n, rc, rd, pc, pd in rows:
            wname = "plain" if a == 0 else f"population^{a}"
            f.write(f"| cities{thr} | {wname} | {'yes' if clip else 'no'} | {n:,} | {100 * rc:.2f} % | "
                    f"{100 * rd:.2f} % | {100 * pc:.2f} % | {100 * pd:.2f} % |\n")
    print(f"wrote {args.out}  [{time.monotonic() - t0:.0f} s]")


if __name__ == "__main__":
    main()
