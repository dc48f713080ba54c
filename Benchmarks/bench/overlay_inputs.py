"""Inputs for the overlay speed measurements (Benchmarks/results/overlay.md): a world time-zone overlay
dataset (all timezone-boundary-builder zones, ocean zones included, from PyPI timezonefinder 9.0.0 +
timezonefinder-data, ODbL 1.0), simplified by --simplify degrees, written as a shapefile with an overlay
manifest. Not bundled data (helper tzdata builds Data/timezones/): a stand-in of the same shape, for
timing only.

    /work/venv/bin/python Benchmarks/bench/overlay_inputs.py --out /tmp/ov-bench/timezones --simplify 0.005
"""
import argparse
import json
import os

import geopandas as gpd
import shapely
from shapely.geometry import Polygon
from timezonefinder import TimezoneFinder


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--simplify", type=float, default=0.005)
    a = ap.parse_args()
    tf = TimezoneFinder()
    rows = []
    for tz in tf.timezone_names:
        polys = []
        for poly in tf.get_geometry(tz_name=tz, coords_as_pairs=True):
            g = Polygon(poly[0], poly[1:])
            if not g.is_valid:
                g = shapely.make_valid(g)
            g = g.simplify(a.simplify, preserve_topology=True)
            if not g.is_empty:
                polys.append(g)
        if polys:
            rows.append({"tzid": tz, "geometry": shapely.union_all(polys)})
    os.makedirs(a.out, exist_ok=True)
    gpd.GeoDataFrame(rows, crs="EPSG:4326").to_file(os.path.join(a.out, "timezones.shp"), encoding="UTF-8")
    manifest = {"format": 1, "name": "timezones-bench", "role": "overlay", "datum": "wgs84", "priority": 200,
                "license": "ODbL-1.0 (timezone-boundary-builder)",
                "attribution": "Time zones: timezone-boundary-builder by Evan Siroky, ODbL 1.0, via timezonefinder",
                "build": f"Benchmarks/bench/overlay_inputs.py --simplify {a.simplify}",
                "layers": [{"file": "timezones.shp", "fields": {"timeZone": {"name": "tzid"}}}]}
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    print(len(rows), "zones,", sum(shapely.get_num_coordinates(g) for g in gpd.read_file(os.path.join(a.out, "timezones.shp")).geometry), "vertices")


if __name__ == "__main__":
    main()
