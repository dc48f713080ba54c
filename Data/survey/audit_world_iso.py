#!/usr/bin/env python3
"""Audit of the world layer's ISO 3166-2 coding (issue 16 §5), for review by hand; not part of the build.

    python3 Data/survey/audit_world_iso.py > /tmp/audit.txt

Runs build.py's own matcher (attach_iso_3166_2, with its hand fixes) on the QGIS Natural Earth provinces
and prints, per country:
1. coded provinces whose NE `name` is far from every iso-codes name/translation of their code
   (similarity of transliteration-folded names < 0.8, lowest first): a wrong code shows up here, or a
   renamed unit (K.P. -> Khyber Pakhtunkhwa);
2. coded provinces whose code another NE province of the country matches clearly better (Belarus's
   Minsk oblast holding Minsk city's BY-HM was of this kind);
3. uncoded provinces with the best still-free iso-codes candidate of the country.
Translations: the Latin-script gettext catalogues listed in LANGS. Review result: Data/README.md
("Audit of the codes").
"""
from __future__ import annotations

import collections
import csv
import difflib
import gettext
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import build  # noqa: E402

LANGS = ("en", "fr", "de", "es", "pt", "it", "nl", "pl", "cs", "sv", "tr", "ro", "hu", "fi", "da", "nb", "id",
         "vi", "hr", "sk", "sl", "lt", "lv", "et", "ca", "eu", "gl")


def provinces():
    with tempfile.TemporaryDirectory(prefix="audit-") as tmp:
        out = os.path.join(tmp, "states.csv")
        subprocess.run(["ogr2ogr", "-f", "CSV", out, build.WORLD_GPKG, "states_provinces"], check=True)
        with open(out, encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    srecs = []
    for fid, p in enumerate(rows):
        cc = p["iso_a2"]
        if not re.fullmatch(r"[A-Z]{2}", cc or ""):
            cc = build.NE_NO_ISO_FIX[p["gu_a3"]][1]
        name = p["name"] or ""
        name = build.NE_PROVINCE_NAME_FIX.get((cc, name), build.NE_PROVINCE_NAME_FIX.get((cc, name, p["gn_name"] or ""), name))
        srecs.append({"fid": fid, "name": name, "iso_cc": cc, "gn_name": p["gn_name"] or ""})
    build.attach_iso_3166_2(srecs)
    return srecs


def main():
    srecs = provinces()
    ents = {e["code"]: e for e in build.iso_3166_2_entries()}
    trans = collections.defaultdict(set)
    for lang in LANGS:
        mo = os.path.join(build.LOCALE_DIR, lang, "LC_MESSAGES", "iso_3166-2.mo")
        if os.path.isfile(mo):
            with open(mo, "rb") as f:
                for k, v in gettext.GNUTranslations(f)._catalog.items():
                    if isinstance(k, str) and k and v:
                        trans[k].add(v)
    key = lambda n: build.translit_key(n).replace(" ", "")  # noqa: E731
    names = {c: {key(v) for nm in [e["name"]] + sorted(trans.get(e["name"], ())) for v in build.name_variants(nm)}
             for c, e in ents.items()}
    memo = {}

    def sim(r, code):
        k = (r["fid"], code)
        if k not in memo:
            a = key(build.norm_name(r["name"])) if r["name"] else ""
            memo[k] = max((1.0 if a == b else difflib.SequenceMatcher(None, a, b).ratio() for b in names[code]),
                          default=0.0) if a else 0.0
        return memo[k]

    print("== 1. coded, NE name far from the code's iso-codes names (lowest first) ==")
    low = sorted((sim(r, r["iso3166_2"]), r["iso_cc"], r["name"], r["gn_name"], r["iso3166_2"]) for r in srecs if r["iso3166_2"])
    for s, cc, n, gn, c in low:
        if s < 0.8:
            print(f"{s:.2f} {cc} {n!r} (gn_name {gn!r}) -> {c} {ents[c]['name']!r} [{ents[c]['type']}]")
    by_cc = collections.defaultdict(list)
    for r in srecs:
        by_cc[r["iso_cc"]].append(r)
    print("== 2. a code another NE province of the country matches clearly better ==")
    for r in srecs:
        c = r["iso3166_2"]
        if c:
            mine = sim(r, c)
            for o in by_cc[r["iso_cc"]]:
                if o is not r and sim(o, c) > mine + 0.1:
                    print(f"  {r['iso_cc']} {r['name']!r} -> {c} {ents[c]['name']!r} ({mine:.2f}); better {o['name']!r} "
                          f"({sim(o, c):.2f}, its code {o['iso3166_2'] or '-'})")
                    break
    print("== 3. uncoded: best iso-codes candidate of the country (FREE: no NE province holds it) ==")
    held = {r["iso3166_2"] for r in srecs if r["iso3166_2"]}
    codes = collections.defaultdict(list)
    for c in ents:
        codes[c.split("-")[0]].append(c)
    for r in srecs:
        if r["iso3166_2"] or not codes.get(r["iso_cc"]):
            continue
        best = sorted(((sim(r, c), c) for c in codes[r["iso_cc"]]), reverse=True)[:2]
        s, c = best[0]
        print(f"  {s:.2f} {'FREE' if c not in held else 'held'} {r['iso_cc']} {r['name']!r} (gn_name {r['gn_name']!r}) -> "
              f"{c} {ents[c]['name']!r} [{ents[c]['type']}]")


if __name__ == "__main__":
    main()
