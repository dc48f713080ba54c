#!/usr/bin/env python3
"""Writes beijing-tianjin.gpx (a drive from Tiananmen to Tianjin, a fix every ~250 m) and
beijing-tianjin.expected.json (the city of every fix and the city changes), the city computed by
shapely on the bundled Data/ polygons through Data/make_oracle.py: an answer from outside the engine.

    python3 Tests/LocationKitTests/Fixtures/make_drive.py

Deterministic: the same Data/ gives byte-identical files.
"""
import datetime, json, math, os, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Data"))
import make_oracle  # noqa: E402

# Waypoints roughly along the Beijing–Tianjin expressway (WGS-84 lat, lon).
WAYPOINTS = [(39.9087, 116.3975), (39.8650, 116.4600), (39.7900, 116.5600), (39.6900, 116.6800),
             (39.5600, 116.8000), (39.4300, 116.9300), (39.2800, 117.0600), (39.1600, 117.1700),
             (39.1256, 117.1909)]
STEP_M = 250.0
MIN_RUN = 8  # every city stretch must be long enough that no hysteresis setting could merge it away


def haversine(a, b):
    r = 6371008.8
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dp, dl = p2 - p1, math.radians(b[1] - a[1])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(min(1, math.sqrt(h)))


def points(waypoints=WAYPOINTS, step_m=STEP_M):
    """The route: each leg cut into pieces of about step_m metres, coordinates rounded to 1e-7 degrees."""
    out = []
    for a, b in zip(waypoints, waypoints[1:]):
        n = max(1, round(haversine(a, b) / step_m))
        for k in range(n):
            t = k / n
            out.append((round(a[0] + (b[0] - a[0]) * t, 7), round(a[1] + (b[1] - a[1]) * t, 7)))
    out.append(waypoints[-1])
    return out


def write_gpx(path, pts, name, creator, seconds_per_fix):
    """One track segment, a trkpt per point, timestamps seconds_per_fix apart from 2023-11-14T22:13:20Z."""
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write(f'<gpx version="1.1" creator="{creator}" xmlns="http://www.topografix.com/GPX/1/1">\n')
        f.write(f' <trk><name>{name}</name><trkseg>\n')
        for i, (lat, lon) in enumerate(pts):
            when = datetime.datetime.fromtimestamp(1700000000 + seconds_per_fix * i, datetime.timezone.utc)
            t = when.strftime("%Y-%m-%dT%H:%M:%SZ")
            f.write(f'  <trkpt lat="{lat}" lon="{lon}"><time>{t}</time><hdop>1.0</hdop></trkpt>\n')
        f.write(' </trkseg></trk>\n</gpx>\n')


def main():
    with tempfile.TemporaryDirectory() as tmp:
        datasets = make_oracle.load_bundled(os.path.join(ROOT, "Data"), tmp)
        pts = points()
        cities = []
        for lat, lon in pts:
            p = make_oracle.answer(datasets, lat, lon)
            cities.append(None if p is None else p["localityCode"])
    runs = []
    for c in cities:
        if runs and runs[-1][0] == c:
            runs[-1][1] += 1
        else:
            runs.append([c, 1])
    short = [r for r in runs if r[1] < MIN_RUN]
    if short or any(c is None for c in cities):
        sys.exit(f"route unsuitable: short runs {short}, unknown cities {cities.count(None)}")
    write_gpx(os.path.join(HERE, "beijing-tianjin.gpx"), pts, "Beijing to Tianjin", "make_drive.py", 10)
    expected = {"about": "city (localityCode) of every trkpt by shapely on the bundled Data/, via make_drive.py",
                "cities": cities, "runs": runs, "changes": [[a[0], b[0]] for a, b in zip(runs, runs[1:])]}
    with open(os.path.join(HERE, "beijing-tianjin.expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(len(pts), "points;", "runs:", runs)


if __name__ == "__main__":
    main()
