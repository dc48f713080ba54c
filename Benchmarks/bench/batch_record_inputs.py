"""20,000 clean points (and one) as CSV, NDJSON and a GeoJSON FeatureCollection of Point features,
deterministic (seeded), for batch_record_cg.sh: batch_record_inputs.py OUTDIR."""
import json, random, sys

def points(n):
    r = random.Random(20261207)
    return [(round(r.uniform(-56, 72), 6), round(r.uniform(-180, 180), 6)) for _ in range(n)]

out = sys.argv[1]
for n, tag in ((20000, "20k"), (1, "one")):
    p = points(n)
    with open(f"{out}/{tag}.csv", "w") as f:
        f.write("id,lat,lon\n")
        for i, (la, lo) in enumerate(p):
            f.write(f"{i},{la},{lo}\n")
    with open(f"{out}/{tag}.ndjson", "w") as f:
        for i, (la, lo) in enumerate(p):
            f.write(json.dumps({"id": i, "lat": la, "lon": lo}, separators=(",", ":")) + "\n")
    with open(f"{out}/{tag}.geojson", "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        f.write(",\n".join(json.dumps({"type": "Feature", "id": i, "geometry": {"type": "Point", "coordinates": [lo, la]},
                                       "properties": {"n": i}}, separators=(",", ":")) for i, (la, lo) in enumerate(p)))
        f.write("\n]}\n")
