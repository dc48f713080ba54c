"""The 1 M-point CSV files of the end-to-end batch benchmark (bench/endtoend.py), made deterministically.

* world.csv: `id,lat,lon`, uniform over lon -180..180, lat -56..72 (the suite's world box), 6 decimals.
* china_gps.csv: `track,time,lat,lon,speed`, WGS-84 GPS-like tracks: 1,000 drives of 1,000 fixes, each
  starting near one of 24 Chinese cities and moving ~10 m per fix, 6 decimals (what a receiver logs).

    python Benchmarks/bench/endtoend_points.py OUTDIR [--points N]
"""
import argparse
import math
import os
import random

CITIES = [(39.9042, 116.4074), (31.2304, 121.4737), (23.1291, 113.2644), (22.5431, 114.0579),
          (30.5728, 104.0668), (29.5630, 106.5516), (30.5928, 114.3055), (34.3416, 108.9398),
          (32.0603, 118.7969), (30.2741, 120.1551), (39.3434, 117.3616), (36.0671, 120.3826),
          (38.0428, 114.5149), (41.8057, 123.4315), (45.8038, 126.5350), (43.8171, 125.3235),
          (28.2282, 112.9388), (26.0745, 119.2965), (25.0389, 102.7183), (26.6470, 106.6302),
          (22.8170, 108.3665), (36.6512, 117.1201), (34.7466, 113.6253), (43.8256, 87.6168)]


def world(path, n, rng):
    with open(path, "w") as f:
        f.write("id,lat,lon\n")
        for i in range(n):
            f.write(f"{i},{rng.uniform(-56, 72):.6f},{rng.uniform(-180, 180):.6f}\n")


def china(path, n, rng):
    per = 1000
    with open(path, "w") as f:
        f.write("track,time,lat,lon,speed\n")
        written = 0
        track = 0
        while written < n:
            lat, lon = rng.choice(CITIES)
            lat += rng.gauss(0, 0.15)
            lon += rng.gauss(0, 0.15)
            heading = rng.uniform(0, 2 * math.pi)
            t = 1700000000 + track * 3600
            for k in range(min(per, n - written)):
                heading += rng.gauss(0, 0.05)
                step = 10.0 / 111320.0
                lat += step * math.cos(heading)
                lon += step * math.sin(heading) / math.cos(math.radians(lat))
                f.write(f"{track},{t + k},{lat:.6f},{lon:.6f},{rng.uniform(0, 20):.1f}\n")
                written += 1
            track += 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("outdir")
    p.add_argument("--points", type=int, default=1_000_000)
    a = p.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    world(os.path.join(a.outdir, "world.csv"), a.points, random.Random(17001))
    china(os.path.join(a.outdir, "china_gps.csv"), a.points, random.Random(17002))


if __name__ == "__main__":
    main()
