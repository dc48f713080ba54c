"""Builds the overlay test fixture: real time-zone polygons of a corner of Europe and the North Sea, a
tiny localities-style admin layer with place fields, and the oracles the Swift tests compare against.

    python3 Tests/ReverseGeocoderTests/Fixtures/overlay/make_fixture.py

Needs (pinned as in Benchmarks/requirements.txt): timezonefinder 9.0.0 + timezonefinder-data (the
timezone-boundary-builder polygons, ODbL 1.0), shapely 2.2, geopandas + pyogrio, numpy.

The oracle is shapely on the very polygons written (so it tests the engine, not the simplification);
timezonefinder's own answer on the same points is recorded beside it for information.
"""
import hashlib
import json
import math
import os
import random

import geopandas as gpd
import shapely
from shapely.geometry import Polygon, box, mapping, shape
from timezonefinder import TimezoneFinder

HERE = os.path.dirname(os.path.abspath(__file__))
BBOX = (2.0, 47.0, 10.0, 55.0)  # lon/lat: Benelux, the Rhine, the North Sea
SIMPLIFY = 0.002  # degrees: keeps the fixture small (a few thousand vertices)
R = 6_371_008.8


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def write_layer(folder, name, gdf):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name + ".shp")
    gdf.to_file(path, driver="ESRI Shapefile", encoding="UTF-8")
    files = {}
    for ext in ("shp", "shx", "dbf", "cpg", "prj"):
        p = os.path.join(folder, f"{name}.{ext}")
        if os.path.exists(p):
            files[f"{name}.{ext}"] = {"bytes": os.path.getsize(p), "sha256": sha(p)}
    return files


def timezones():
    tf = TimezoneFinder()
    rng = random.Random(16)
    names = set()
    for _ in range(20000):
        lon, lat = rng.uniform(BBOX[0], BBOX[2]), rng.uniform(BBOX[1], BBOX[3])
        tz = tf.timezone_at(lng=lon, lat=lat)
        if tz:
            names.add(tz)
    clip = box(*BBOX)
    rows = []
    for tz in sorted(names):
        polys = []
        for poly in tf.get_geometry(tz_name=tz, coords_as_pairs=True):
            shell, holes = poly[0], poly[1:]
            g = Polygon(shell, holes)
            if not g.is_valid:
                g = shapely.make_valid(g)
            g = g.intersection(clip)
            if not g.is_empty:
                polys.append(g)
        g = shapely.union_all(polys).simplify(SIMPLIFY, preserve_topology=True)
        g = shapely.make_valid(g)
        g = shapely.MultiPolygon([p for p in getattr(g, "geoms", [g]) if p.geom_type == "Polygon" and p.area > 0]) \
            if g.geom_type != "Polygon" else g
        if not g.is_empty:
            rows.append({"tzid": tz, "geometry": g})
    return gpd.GeoDataFrame(rows, crs="EPSG:4326"), tf


def localities():
    """Three cells around Luxembourg (a localities-style admin layer): each the cell of one place."""
    cells = [
        ("Luxembourg", "2960316", 49.61167, 6.13, box(5.9, 49.45, 6.5, 49.7)),
        ("Esch-sur-Alzette", "2960596", 49.49583, 5.98056, box(5.7, 49.3, 5.9, 49.7)),
        ("Ettelbruck", "2960496", 49.8475, 6.10417, box(5.7, 49.7, 6.5, 50.2)),
    ]
    rows = [{"name": n, "geonameid": gid, "country": "Luxembourg", "iso_a2": "LU",
             "place_lat": f"{lat}", "place_lon": f"{lon}", "geometry": g} for n, gid, lat, lon, g in cells]
    return gpd.GeoDataFrame(rows, crs="EPSG:4326")


def haversine(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * R * math.asin(min(1.0, math.sqrt(h)))


def first_containing(gdf, field, lon, lat):
    pt = shapely.Point(lon, lat)
    for _, row in gdf.iterrows():
        if row.geometry.contains(pt):
            return row
    for _, row in gdf.iterrows():
        if row.geometry.covers(pt):
            return row
    return None


def main():
    tz, tf = timezones()
    tz_files = write_layer(os.path.join(HERE, "timezones"), "timezones", tz)
    tz_manifest = {
        "format": 1, "name": "fixture-timezones", "role": "overlay", "datum": "wgs84", "priority": 200,
        "title": "Time zones of a corner of Europe (test fixture)",
        "source": "timezone-boundary-builder via PyPI timezonefinder 9.0.0 / timezonefinder-data",
        "license": "ODbL-1.0 (timezone-boundary-builder)",
        "attribution": "Time zones: timezone-boundary-builder by Evan Siroky, ODbL 1.0, via timezonefinder",
        "build": "python3 Tests/ReverseGeocoderTests/Fixtures/overlay/make_fixture.py",
        "layers": [{"file": "timezones.shp", "fields": {"timeZone": {"name": "tzid"}}}],
        "files": tz_files,
    }
    with open(os.path.join(HERE, "timezones", "manifest.json"), "w") as f:
        json.dump(tz_manifest, f, indent=2, ensure_ascii=False)

    loc = localities()
    loc_files = write_layer(os.path.join(HERE, "localities"), "localities", loc)
    loc_manifest = {
        "format": 1, "name": "fixture-localities", "datum": "wgs84", "priority": 50,
        "title": "Three place cells around Luxembourg (test fixture)",
        "license": "CC-BY-4.0 (GeoNames place names and positions)",
        "attribution": "Places: GeoNames, CC BY 4.0",
        "build": "python3 Tests/ReverseGeocoderTests/Fixtures/overlay/make_fixture.py",
        "layers": [{"file": "localities.shp", "level": "city",
                    "provenance": {"city": "nearest_place"},
                    "place": {"latitude": "place_lat", "longitude": "place_lon"},
                    "fields": {"city": {"name": "name", "code": "geonameid"},
                               "country": {"name": "country", "code": "iso_a2"}}}],
        "files": loc_files,
    }
    with open(os.path.join(HERE, "localities", "manifest.json"), "w") as f:
        json.dump(loc_manifest, f, indent=2, ensure_ascii=False)

    rng = random.Random(1600)
    tz_points = []
    for _ in range(2000):
        lon, lat = round(rng.uniform(BBOX[0], BBOX[2]), 6), round(rng.uniform(BBOX[1], BBOX[3]), 6)
        row = first_containing(tz, "tzid", lon, lat)
        tz_points.append({"latitude": lat, "longitude": lon, "tzid": None if row is None else row["tzid"],
                          "timezonefinder": tf.timezone_at(lng=lon, lat=lat)})
    place_points = []
    for _ in range(300):
        lon, lat = round(rng.uniform(5.6, 6.6), 6), round(rng.uniform(49.2, 50.3), 6)
        row = first_containing(loc, "name", lon, lat)
        tzrow = first_containing(tz, "tzid", lon, lat)
        place_points.append({
            "latitude": lat, "longitude": lon,
            "city": None if row is None else row["name"],
            "metres": None if row is None else haversine(lat, lon, float(row["place_lat"]), float(row["place_lon"])),
            "tzid": None if tzrow is None else tzrow["tzid"],
        })
    oracle = {"made_by": "Tests/ReverseGeocoderTests/Fixtures/overlay/make_fixture.py (shapely "
                         + shapely.__version__ + ")",
              "zones": sorted(tz["tzid"]), "timezone_points": tz_points, "place_points": place_points}
    with open(os.path.join(HERE, "oracle.json"), "w") as f:
        json.dump(oracle, f, indent=1)
    agree = sum(p["tzid"] == p["timezonefinder"] for p in tz_points)
    print(f"{len(tz)} zones: {sorted(tz['tzid'])}; vertices {sum(shapely.get_num_coordinates(g) for g in tz.geometry)}")
    print(f"oracle vs timezonefinder (full resolution): {agree}/{len(tz_points)} agree; "
          f"{sum(p['tzid'] is None for p in tz_points)} in no zone")


if __name__ == "__main__":
    main()
