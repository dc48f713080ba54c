#!/usr/bin/env python3
"""The benchmark suite's seeded points for the full-placemark cases (Benchmarks/bench/suite.py `prepare`):
world uniform over lon -180..180, lat -56..72; China uniform over its district layer's box (GCJ-02
numbers); seed 6,000,000 + crc32(dataset name) % 1,000,000. Also the 20,000- and 4,000-point prefixes.

    make_points.py OUT_DIR [--points 200000]      (writes world.f64, china.f64, world-20k.f64, ...)
"""
import argparse, os, sys, zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # Benchmarks/
import numpy as np, shapefile  # noqa: E402
from bench.common import make_points  # noqa: E402
from bench.suite import WORLD_LAND  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--points", type=int, default=200_000)
    o = ap.parse_args()
    os.makedirs(o.out, exist_ok=True)
    china_box = tuple(float(v) for v in shapefile.Reader(os.path.join(REPO, "Data/china/china_district.shp")).bbox)
    for name, box in (("world", WORLD_LAND), ("china", china_box)):
        path = os.path.join(o.out, f"{name}.f64")
        make_points(path, o.points, 6_000_000 + zlib.crc32(name.encode()) % 1_000_000, box)
        xy = np.fromfile(path, dtype="<f8")
        for n, tag in ((20_000, "20k"), (4_000, "4k")):
            xy[: 2 * n].tofile(os.path.join(o.out, f"{name}-{tag}.f64"))
        print(f"{path}: {o.points} points in {box}")


if __name__ == "__main__":
    main()
