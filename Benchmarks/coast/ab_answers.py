#!/usr/bin/env python3
"""A/B of the coast fallback's answers: two geocode-bench builds answer the same points with the same
datasets (`ours --answers-full`, every answer whole: fields and each level's provenance with its distance),
and the answers are compared line by line.

    ab_answers.py --a BIN_A --b BIN_B --points P.f64 --manifest M [--overlay M2,M3] [--lang en] \
                  --datum D [--cache DIR] [--max-distance 10000]

Prints: points, answers identical, answers differing only in a nearest-unit distance (and the largest
relative difference), answers differing otherwise (each listed). Exit code 0 either way (a report).
"""
import argparse, os, re, subprocess, sys, tempfile

NEAREST = re.compile(r"nearestUnit\(metres: ([0-9.e+-]+)\)")
# The same distance in the fields' text (countryDistance: 123.4, ...).
FIELD_DISTANCE = re.compile(r"(?:country|administrativeArea|subAdministrativeArea|locality|subLocality)Distance: [0-9.e+-]+")


def answers(binary, args, out):
    cmd = [binary, "ours", "--threads", "1", "--passes", "1", "--latency", "0", "--answers-full", out] + args
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--points", required=True)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--overlay")
    ap.add_argument("--lang")
    ap.add_argument("--datum", required=True)
    ap.add_argument("--cache")
    ap.add_argument("--max-distance", default="10000")
    o = ap.parse_args()
    args = ["--points", o.points, "--manifest", o.manifest, "--datum", o.datum, "--max-distance", o.max_distance]
    for k in ("overlay", "lang", "cache"):
        if getattr(o, k):
            args += ["--" + k, getattr(o, k)]
    with tempfile.TemporaryDirectory() as t:
        a = answers(o.a, args, os.path.join(t, "a.txt"))
        b = answers(o.b, args, os.path.join(t, "b.txt"))
    assert len(a) == len(b), (len(a), len(b))
    same = metres_only = 0
    worst = 0.0
    other = []
    nearest = sum(1 for line in a if "nearestUnit" in line)
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            same += 1
            continue
        if FIELD_DISTANCE.sub("D", NEAREST.sub("M", x)) == FIELD_DISTANCE.sub("D", NEAREST.sub("M", y)):
            metres_only += 1
            for u, v in zip(NEAREST.findall(x), NEAREST.findall(y)):
                worst = max(worst, abs(float(u) - float(v)) / max(float(u), 1e-9))
            continue
        other.append((i, x, y))
    print(f"points {len(a)}; answered by the coast fallback (A) {nearest}; identical {same}; "
          f"differing only in a nearest-unit distance {metres_only} (largest relative difference {worst:.3g}); "
          f"differing otherwise {len(other)}")
    for i, x, y in other[:20]:
        print(f"  point {i}:\n    A {x}\n    B {y}")


if __name__ == "__main__":
    sys.exit(main())
