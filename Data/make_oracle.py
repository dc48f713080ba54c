#!/usr/bin/env python3
"""Expected answers for the Swift engine's tests, computed with shapely (an outside oracle).

    python3 Data/make_oracle.py [--data Data] [--out Tests/ReverseGeocoderTests/Fixtures/data-oracle]

Reads the BUNDLED shapefiles (through ogr2ogr, not through build.py's writer) and their manifests, and
answers each WGS-84 point the way the engine is specified to:

  * China dataset first (priority 10, datum gcj02): the WGS-84 point is converted to GCJ-02 with the
    published formula (identity outside the rectangle lon 72.004..137.8347, lat 0.8293..55.8271), then
    looked up; otherwise the world dataset (wgs84) answers with the WGS-84 point itself.
  * Inside a dataset the FINEST layer containing the point answers and the coarser levels come from that
    record's own fields; a coarser layer answers only when no finer layer contains the point.
  * Within a layer: the record whose interior contains the point; if none, the lowest record index
    (file order) whose closure contains it.
  * Empty city fields with a province code listed in the manifest's municipalityCodes: locality and
    localityCode are the province's name and code, localityIsProvinceFallback = true.
  * A unit listed in the manifest's completedBelow (Taiwan, 710000, in the China data): the levels below
    its level are those of the next dataset (by priority) that answers the point; none: they are null.
  * Empty names/codes are null; a point in no polygon of any dataset has expect = null.

Each spot check is also answered from the SOURCE polygons (full resolution); the build fails if they
disagree. Random points carry `sourceAgrees` (false where simplification changes the answer).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile

import numpy as np
import shapely

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build  # noqa: E402  (source loaders and hierarchy, for the source-polygon cross-check)

SEED = 20240604
RULES = [
    "China dataset first (priority 10, datum gcj02): the WGS-84 point is converted to GCJ-02 (published formula; "
    "identity outside lon 72.004..137.8347, lat 0.8293..55.8271) and looked up; otherwise the world dataset "
    "(wgs84) answers with the WGS-84 point itself. Datasets in ascending manifest priority: china 10, localities 50 "
    "(GeoNames place cells, wgs84; present when Data/localities exists), world 100.",
    "Inside a dataset the finest layer containing the point answers; coarser levels come from that record's own "
    "fields (and the manifest's constants); a coarser layer answers only when no finer layer contains the point.",
    "Within a layer: the record whose interior contains the point; if none, the lowest record index (file order) "
    "whose closure contains it.",
    "Empty city fields and a province code listed in the manifest's municipalityCodes: locality/localityCode are "
    "the province's name/code and localityIsProvinceFallback is true.",
    "A unit listed in the manifest's completedBelow (China's 710000, Taiwan): the levels below its level "
    "(locality, subLocality) are those of the next dataset by priority that answers the point (the localities' "
    "GeoNames place); none: null.",
    "Empty names or codes are null; a point in no polygon of any dataset has expect null.",
]

# ---------------------------------------------------------------------------------------------
# WGS-84 -> GCJ-02 (the published "mars" formula on the Krasovsky ellipsoid) and its inverse
# ---------------------------------------------------------------------------------------------
KRASOVSKY_A = 6378245.0
KRASOVSKY_EE = 0.00669342162296594323


def outside_china(lat: float, lon: float) -> bool:
    return lon < 72.004 or lon > 137.8347 or lat < 0.8293 or lat > 55.8271


def _d_lat(x: float, y: float) -> float:
    r = -100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * math.sqrt(abs(x))
    r += (20.0 * math.sin(6.0 * x * math.pi) + 20.0 * math.sin(2.0 * x * math.pi)) * 2.0 / 3.0
    r += (20.0 * math.sin(y * math.pi) + 40.0 * math.sin(y / 3.0 * math.pi)) * 2.0 / 3.0
    r += (160.0 * math.sin(y / 12.0 * math.pi) + 320.0 * math.sin(y * math.pi / 30.0)) * 2.0 / 3.0
    return r


def _d_lon(x: float, y: float) -> float:
    r = 300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * math.sqrt(abs(x))
    r += (20.0 * math.sin(6.0 * x * math.pi) + 20.0 * math.sin(2.0 * x * math.pi)) * 2.0 / 3.0
    r += (20.0 * math.sin(x * math.pi) + 40.0 * math.sin(x / 3.0 * math.pi)) * 2.0 / 3.0
    r += (150.0 * math.sin(x / 12.0 * math.pi) + 300.0 * math.sin(x / 30.0 * math.pi)) * 2.0 / 3.0
    return r


def wgs_to_gcj(lat: float, lon: float) -> tuple[float, float]:
    if outside_china(lat, lon):
        return lat, lon
    x, y = lon - 105.0, lat - 35.0
    rad = lat / 180.0 * math.pi
    magic = 1.0 - KRASOVSKY_EE * math.sin(rad) * math.sin(rad)
    sq = math.sqrt(magic)
    dlat = (_d_lat(x, y) * 180.0) / ((KRASOVSKY_A * (1.0 - KRASOVSKY_EE)) / (magic * sq) * math.pi)
    dlon = (_d_lon(x, y) * 180.0) / (KRASOVSKY_A / sq * math.cos(rad) * math.pi)
    return lat + dlat, lon + dlon


def gcj_to_wgs(lat: float, lon: float) -> tuple[float, float]:
    """Fixed-point inverse of wgs_to_gcj, to 1e-12 degrees."""
    if outside_china(lat, lon):
        return lat, lon
    wl, wo = lat, lon
    for _ in range(50):
        gl, go = wgs_to_gcj(wl, wo)
        el, eo = gl - lat, go - lon
        wl, wo = wl - el, wo - eo
        if abs(el) < 1e-12 and abs(eo) < 1e-12:
            break
    return wl, wo


PUBLISHED_VECTORS = [  # WGS-84 (lat, lon) -> GCJ-02 (lat, lon)
    ((31.1774276, 121.5272106), (31.17530398364597, 121.531541859215)),
    ((22.543847, 113.912316), (22.540796131694766, 113.9171764808363)),
    ((39.911954, 116.377817), (39.91334545536069, 116.38404722455657)),
]


def verify_gcj():
    for (la, lo), (gla, glo) in PUBLISHED_VECTORS:
        a, b = wgs_to_gcj(la, lo)
        assert abs(a - gla) < 1e-12 and abs(b - glo) < 1e-12, f"GCJ-02 vector {la},{lo}: got {a},{b}"
        w = gcj_to_wgs(gla, glo)
        assert abs(w[0] - la) < 1e-9 and abs(w[1] - lo) < 1e-9, f"inverse of {gla},{glo}: {w}"


# ---------------------------------------------------------------------------------------------
# Datasets: layers (finest first) with geometries and records, answering like the engine
# ---------------------------------------------------------------------------------------------
LEVELS = ["country", "province", "city", "district"]


class Layer:
    def __init__(self, level: str, fields: dict, geoms: list, records: list[dict]):
        self.level, self.fields, self.records = level, fields, records
        self.geoms = np.array(geoms, dtype=object)
        shapely.prepare(self.geoms)
        self.tree = shapely.STRtree(self.geoms)
        self.borders = shapely.boundary(self.geoms)
        self.btree = shapely.STRtree(self.borders)

    def find(self, pt) -> int | None:
        idx = sorted(int(i) for i in self.tree.query(pt, predicate="intersects"))
        for i in idx:
            if self.geoms[i].contains_properly(pt):
                return i
        return idx[0] if idx else None


class Dataset:
    def __init__(self, manifest: dict, layers: list[Layer]):
        self.m = manifest
        rank = {lv: i for i, lv in enumerate(LEVELS)}
        self.layers = sorted(layers, key=lambda l: -rank[l.level])  # finest first

    def answer(self, lat: float, lon: float):
        if self.m["datum"] == "gcj02":
            lat, lon = wgs_to_gcj(lat, lon)
        pt = shapely.Point(lon, lat)
        for layer in self.layers:
            i = layer.find(pt)
            if i is not None:
                return self.placemark(layer, layer.records[i])
        return None

    def placemark(self, layer: Layer, rec: dict) -> dict:
        val = {}
        for lv, fm in layer.fields.items():
            if lv not in LEVELS:  # levels the fixture does not record (subadministrativearea)
                continue
            val[lv] = (rec.get(fm.get("name")) or None, rec.get(fm.get("code")) or None)
        for lv, c in self.m.get("constants", {}).items():
            val.setdefault(lv, (c.get("name") or None, c.get("code") or None))
        country = val.get("country", (None, None))
        # ISO 3166-1 worldview (the engine's default): units the manifest gives their own country code
        for lv, codes in self.m.get("isoCountryCodes", {}).items():
            code = val.get(lv, (None, None))[1]
            if code in codes:
                country = (country[0], codes[code])
        prov = val.get("province", (None, None))
        city = val.get("city", (None, None))
        dist = val.get("district", (None, None))
        fallback = False
        if city == (None, None) and prov[1] and prov[1] in self.m.get("municipalityCodes", []):
            city, fallback = prov, True
        return {"country": country[0], "isoCountryCode": country[1],
                "administrativeArea": prov[0], "administrativeAreaCode": prov[1],
                "locality": city[0], "localityCode": city[1], "localityIsProvinceFallback": fallback,
                "subLocality": dist[0], "subLocalityCode": dist[1], "dataset": self.m["name"]}


def load_bundled(data: str, tmp: str) -> list[Dataset]:
    out = []
    for name in ("china", "localities", "world"):
        if name == "localities" and not os.path.exists(os.path.join(data, name, "manifest.json")):
            continue
        with open(os.path.join(data, name, "manifest.json"), encoding="utf-8") as f:
            m = json.load(f)
        layers = []
        for l in m["layers"]:
            g, r = build.read_shapefile(os.path.join(data, name, l["file"]), tmp)
            layers.append(Layer(l["level"], l["fields"], g, r))
        out.append(Dataset(m, layers))
    return sorted(out, key=lambda d: d.m["priority"])


def load_source(bundled: list[Dataset], tmp: str) -> list[Dataset]:
    """The same datasets at full source resolution, records in the same order as the bundle."""
    build.log = lambda *a, **k: None  # quiet
    build.log.time = lambda *a, **k: None
    cg, cr, sg, sr = build.build_world(tmp)
    provs, cities, dists, _, _ = build.china_hierarchy(build.load_china())
    res = []
    for ds in bundled:
        if ds.m["name"] == "localities":  # built from GeoNames points at full resolution: its own source
            res.append(ds)
            continue
        layers = []
        for l in ds.layers:
            if ds.m["name"] == "china":
                src = {"province": provs, "city": cities, "district": dists}[l.level]
                by = {r["adcode"]: r for r in src}
                geoms = [by[r["adcode"]]["geom"] for r in l.records]
            else:
                recs, gs = (cr, cg) if l.level == "country" else (sr, sg)
                key = (lambda r: (r["name"], r["iso_a2"])) if l.level == "country" else \
                      (lambda r: (r["name"], r["iso3166_2"], r["fips"], r["iso_a2"], r["adm0_a3"]))
                pool = {}
                for r, g in zip(recs, gs):
                    pool.setdefault(key(r), []).append(g)
                geoms = [pool[key(r)].pop(0) for r in l.records]
            layers.append(Layer(l.level, l.fields, geoms, l.records))
        res.append(Dataset(ds.m, layers))
    return res


# The fixture's keys for each level below a unit of that level (what a completion takes from below).
BELOW = {"province": ["locality", "localityCode", "localityIsProvinceFallback", "subLocality", "subLocalityCode"],
         "city": ["subLocality", "subLocalityCode"]}
LEVEL_CODE = {"province": "administrativeAreaCode", "city": "localityCode"}


def answer(datasets: list[Dataset], lat: float, lon: float):
    for k, ds in enumerate(datasets):
        a = ds.answer(lat, lon)
        if a is None:
            continue
        # A unit the manifest lists under completedBelow (Taiwan in the China data): the levels below it
        # are the next dataset's that contains the point; none: they stay empty.
        for lv, codes in ds.m.get("completedBelow", {}).items():
            if a[LEVEL_CODE[lv]] in codes:
                below = answer(datasets[k + 1:], lat, lon)
                for key in BELOW[lv]:
                    a[key] = below[key] if below else (False if key == "localityIsProvinceFallback" else None)
        return a
    return None


def min_border_distance_m(datasets: list[Dataset], lat: float, lon: float, radius_m: float = 1.0) -> float:
    """Distance (metres, local flat approximation) from the point, in each dataset's datum, to the nearest
    polygon boundary within radius_m; inf if none is that close."""
    best = math.inf
    for ds in datasets:
        la, lo = wgs_to_gcj(lat, lon) if ds.m["datum"] == "gcj02" else (lat, lon)
        pt = shapely.Point(lo, la)
        kx = 111_320.0 * math.cos(math.radians(la))
        rdeg = radius_m / min(kx, 111_320.0) if kx > 0 else 1.0
        for layer in ds.layers:
            for i in layer.btree.query(pt, predicate="dwithin", distance=rdeg):
                b = shapely.clip_by_rect(layer.borders[i], lo - rdeg, la - rdeg, lo + rdeg, la + rdeg)
                if b.is_empty:
                    continue
                local = shapely.transform(b, lambda c: np.column_stack(((c[:, 0] - lo) * kx, (c[:, 1] - la) * 111_320.0)))
                best = min(best, shapely.distance(shapely.Point(0, 0), local))
    return best


# ---------------------------------------------------------------------------------------------
SPOTS = [
    ("Tiananmen, Beijing", 39.9087, 116.3975),
    ("The Bund, Shanghai", 31.2385, 121.4846),
    ("Jiefangbei, central Chongqing", 29.5577, 106.5770),
    ("Tianhe Sports Center, Guangzhou", 23.1375, 113.3245),
    ("Dongguan city centre", 23.0207, 113.7518),
    ("Mong Kok, Hong Kong", 22.3193, 114.1694),
    ("Ruins of St. Paul's, Macau", 22.1975, 113.5409),
    ("Taipei 101", 25.0340, 121.5645),
    ("Jiyuan (county-level city under Henan)", 35.0904, 112.6022),
    ("Urumqi", 43.8256, 87.6168),
    ("Berlin", 52.5200, 13.4050),
    ("New York, Manhattan", 40.7580, -73.9855),
    ("Sydney", -33.8688, 151.2093),
    ("Pacific Ocean", 0.0, -150.0),
]


def spot_checks(bundled, source):
    res, problems = [], []
    for label, lat, lon in SPOTS:
        a, s = answer(bundled, lat, lon), answer(source, lat, lon)
        print(f"  {label}: {a}")
        if a != s:
            problems.append(f"spot check {label}: bundled {a} != source {s}")
        d = min_border_distance_m(bundled, lat, lon, 50.0)
        if d < 50.0:
            problems.append(f"spot check {label} is {d:.1f} m from a border: pick a clearer point")
        res.append({"label": label, "lat": lat, "lon": lon, "datum": "wgs84", "expect": a})
    if problems:
        raise SystemExit("\n".join(problems))
    # A point whose GCJ-02 position is in Zhuhai city but in none of its districts (source gap):
    # the city layer answers, with no subLocality.
    china = bundled[0]
    city = next(l for l in china.layers if l.level == "city")
    dist = next(l for l in china.layers if l.level == "district")
    zh = city.geoms[[r["adcode"] for r in city.records].index("440400")]
    gap = zh.difference(shapely.union_all([g for g, r in zip(dist.geoms, dist.records) if r["city_code"] == "440400"]))
    gap = max(shapely.get_parts(gap), key=lambda p: p.area)
    c = gap.representative_point()
    lat, lon = gcj_to_wgs(c.y, c.x)
    lat, lon = round(lat, 6), round(lon, 6)
    a, s = answer(bundled, lat, lon), answer(source, lat, lon)
    assert a == s and a["localityCode"] == "440400" and a["subLocality"] is None, (a, s)
    res.append({"label": "Zhuhai, area in no district (city layer answers)", "lat": lat, "lon": lon,
                "datum": "wgs84", "expect": a})
    return res


def border_points(bundled, n=300):
    """Seeded WGS-84 points 1..300 m from an inner district border (measured in GCJ-02, where the
    polygons are), with the district found for the point's exact GCJ-02 conversion."""
    china = bundled[0]
    dist = next(l for l in china.layers if l.level == "district")
    rng = np.random.default_rng(SEED + 1)
    out = []
    tries = 0
    while len(out) < n:
        tries += 1
        i = int(rng.integers(len(dist.geoms)))
        b = dist.geoms[i].boundary
        p = shapely.line_interpolate_point(b, float(rng.uniform()), normalized=True)
        # an inner border: another district touches this boundary point
        near = [j for j in dist.tree.query(p, predicate="dwithin", distance=1e-7) if j != i]
        if not near:
            continue
        L = float(rng.uniform(5.0, 290.0))
        th = float(rng.uniform(0, 2 * math.pi))
        kx = 111_320.0 * math.cos(math.radians(p.y))
        glat, glon = p.y + L * math.sin(th) / 111_320.0, p.x + L * math.cos(th) / kx
        lat, lon = gcj_to_wgs(glat, glon)
        lat, lon = round(lat, 7), round(lon, 7)  # what a test file carries; conversion redone below
        a = answer(bundled, lat, lon)
        if a is None or a["dataset"] != "china" or a["subLocalityCode"] is None:
            continue
        d = min_border_distance_m([china], lat, lon, 300.0)
        if not (1.0 < d < 300.0):
            continue
        gl, go = wgs_to_gcj(lat, lon)
        # what a lookup WITHOUT datum conversion would say (WGS-84 numbers used as GCJ-02)
        pt = shapely.Point(lon, lat)
        k = dist.find(pt)
        out.append({"lat": lat, "lon": lon, "datum": "wgs84", "gcj02Lat": gl, "gcj02Lon": go,
                    "expectAdcode": a["subLocalityCode"], "expectName": a["subLocality"],
                    "borderDistanceM": round(d, 1),
                    "adcodeWithoutConversion": dist.records[k]["adcode"] if k is not None else None})
    return out, tries


def random_points(bundled, source, n_china=2000, n_world=2000):
    rng = np.random.default_rng(SEED)
    china = bundled[0]
    pts = []
    # China's bbox (WGS-84, slightly larger than the GCJ-02 polygons' bbox) and the world's land latitudes
    for region, n, (lo0, lo1, la0, la1) in (("china-bbox", n_china, (73.4, 135.2, 3.7, 53.7)),
                                             ("world", n_world, (-180.0, 180.0, -56.0, 84.0))):
        k = 0
        while k < n:
            lat = round(float(rng.uniform(la0, la1)), 6)
            lon = round(float(rng.uniform(lo0, lo1)), 6)
            # keep clear of borders so neither float noise nor rounding can matter
            if min_border_distance_m(bundled, lat, lon, 1.0) <= 1.0:
                continue
            a, s = answer(bundled, lat, lon), answer(source, lat, lon)
            p = {"region": region, "lat": lat, "lon": lon, "datum": "wgs84", "expect": a, "sourceAgrees": a == s}
            # In the China dataset at the GCJ-02 position but not at the WGS-84 one, or the reverse: an engine
            # that decides "inside China?" some other way than by the converted point may differ here.
            in_gcj = china.answer(lat, lon) is not None
            in_wgs = any(l.find(shapely.Point(lon, lat)) is not None for l in china.layers)
            if in_gcj != in_wgs:
                p["chinaEdgeAmbiguous"] = True
            pts.append(p)
            k += 1
    return pts


def write_json(path, obj):
    """Pretty JSON with one point (list item) per line, so diffs stay readable."""
    def one(x):
        return json.dumps(x, ensure_ascii=False, separators=(", ", ": "))

    def items(lst):
        return "[\n" + ",\n".join("  " + one(x) for x in lst) + "\n]"

    if isinstance(obj, list):
        text = items(obj)
    else:
        parts = []
        for k, v in obj.items():
            body = items(v) if k == "points" else json.dumps(v, ensure_ascii=False, indent=1)
            parts.append(json.dumps(k) + ": " + body.replace("\n", "\n "))
        text = "{\n " + ",\n ".join(parts) + "\n}"
    json.loads(text)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text + "\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=here)
    ap.add_argument("--out", default=os.path.join(here, "..", "Tests", "ReverseGeocoderTests", "Fixtures",
                                                  "data-oracle"))
    args = ap.parse_args()
    verify_gcj()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="oracle-") as tmp:
        bundled = load_bundled(args.data, tmp)
        source = load_source(bundled, tmp)
    about = {"generator": "python3 Data/make_oracle.py (shapely %s, GEOS %s)" % (shapely.__version__,
                                                                                  shapely.geos_version_string),
             "data": {ds.m["name"]: {"build": ds.m["build"], "sourceVersion": ds.m["sourceVersion"],
                                     "shp_sha256": {f: v["sha256"] for f, v in ds.m["files"].items()
                                                    if f.endswith(".shp")}} for ds in bundled},
             "rules": RULES}

    spots = spot_checks(bundled, source)
    write_json(os.path.join(args.out, "spot_checks.json"), spots)
    print(f"spot checks: {len(spots)}")

    bp, tries = border_points(bundled)
    write_json(os.path.join(args.out, "datum_border_points.json"), {
        "about": dict(about, seed=SEED + 1, description=(
            "WGS-84 points 1..300 m (borderDistanceM, measured in GCJ-02 around the converted point) from an "
            "inner district border of the bundled China data. expectAdcode is the district shapely finds for "
            "the point's exact GCJ-02 conversion (gcj02Lat/gcj02Lon) in the bundled GCJ-02 polygons. "
            "adcodeWithoutConversion: the district a lookup that forgot the datum conversion would give.")),
        "points": bp})
    wrong = sum(1 for p in bp if p["adcodeWithoutConversion"] != p["expectAdcode"])
    print(f"datum border points: {len(bp)} ({tries} draws); {wrong} would be answered wrongly without conversion")

    rp = random_points(bundled, source)
    dis = sum(1 for p in rp if not p["sourceAgrees"])
    write_json(os.path.join(args.out, "random_points.json"), {
        "about": dict(about, seed=SEED, description=(
            "Seeded uniform WGS-84 points: region china-bbox over lon 73.4..135.2, lat 3.7..53.7; region world "
            "over lon -180..180, lat -56..84. Points within 1 m of any polygon boundary (in the datum of the "
            "dataset) were skipped and redrawn. expect is the answer from the bundled data (null: in no "
            "polygon); sourceAgrees is false where the full-resolution source polygons answer differently; "
            "chinaEdgeAmbiguous marks points inside the China dataset at exactly one of their WGS-84 and GCJ-02 "
            "positions (answered here by the GCJ-02 rule)."),
            counts={"points": len(rp), "null": sum(1 for p in rp if p["expect"] is None),
                    "china": sum(1 for p in rp if p["expect"] and p["expect"]["dataset"] == "china"),
                    "world": sum(1 for p in rp if p["expect"] and p["expect"]["dataset"] == "world"),
                    "sourceDisagrees": dis,
                    "chinaEdgeAmbiguous": sum(1 for p in rp if p.get("chinaEdgeAmbiguous"))}),
        "points": rp})
    print(f"random points: {len(rp)}, {dis} answered differently by the source polygons")


if __name__ == "__main__":
    main()
