#!/usr/bin/env python3
"""Build the time-zone overlay dataset (OUT/timezones/) from timezone-boundary-builder polygons.

    python3 Data/build_timezones.py --out Data                 # bundled, coverage-simplified (committed)
    python3 Data/build_timezones.py --out DIR --full           # full resolution: answers as timezonefinder does
    python3 Data/build_timezones.py --out DIR --tolerance T    # another simplification tolerance (degrees)

Source: the timezone-boundary-builder release (with the ocean zones Etc/GMT+-N) as PyPI
`timezonefinder-data` ships it, read through `timezonefinder`'s own reader (`TimezoneFinder.coords_of`,
its hole list and its boundary -> zone table). timezonefinder stores every coordinate as an int32 count of
1e-7 degrees (on a 1e-6 degree grid); the build uses exactly those integers, divided by 1e7, as the
vertices, so a point-in-polygon test on the full build sees the polygons timezonefinder tests.

The source polygons are not a clean coverage: a few zones overlap (disputed areas, e.g. Africa/Juba and
Africa/Khartoum around Kafia Kingi, America/Argentina/Rio_Gallegos and America/Punta_Arenas on the
Southern Patagonian Ice Field) and land and ocean zones leave slivers of overlap and gap (1e-10 square
degrees) between them. The build nodes every boundary together with the box of the globe, polygonizes the
result into faces that tile the globe, and gives each face the zone of the one source polygon that
contains it; a face in several (overlap) or in none (gap) gets what timezonefinder answers at an interior
point of it. The zones are then unions of their faces: a valid coverage, with no gaps and no overlaps, and
every point of the globe in exactly one zone's closure.

The manifest also says which country each zone belongs to where it belongs to exactly one
(`timeZoneCountries`, from PyPI `tzdata`'s zone1970.tab and zone.tab: a zone is one country's only when
both tables name that country alone), and which borders the zones are not to move (`disputedBorders`):
the engine moves an answer of a generalized dataset across a border to the zone's country (README,
"Borders"; Data/README.md, "Borders refined by the time zones").

Needs: Python 3.11, shapely >= 2.1 (GEOS >= 3.12), numpy, timezonefinder + timezonefinder-data (pinned below),
tzdata (PyPI, public domain), and Data/build.py beside this file (its shapefile writer, checks and hashing
are reused).
"""
from __future__ import annotations

import argparse
import collections
import importlib.metadata
import os
import shutil
import sys

import numpy as np
import shapely

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build as base  # noqa: E402  (Data/build.py: shapefile writer, checks, hashing, JSON)
from build import check  # noqa: E402

# Pinned: the newest the PyPI index reachable here offers (issue 16 named timezonefinder 9.2.0 /
# timezonefinder-data 4.2026.5, which `pip index versions` does not list here); see Data/README.md.
EXPECTED_VERSIONS = {
    "timezonefinder": "9.0.0",
    "timezonefinder-data": "3.2026.3.post1",
    "shapely": "2.2.0",
}
EXPECTED_DATA_VERSION = "2026c"  # timezone-boundary-builder release inside timezonefinder-data
EXPECTED_COUNTS = {"zones": 444, "polygons": 1322, "holes": 756}
DEFAULT_TOLERANCE = 0.001  # degrees; see Data/README.md (size vs agreement table) for why
COORD_SCALE = 1e7  # timezonefinder's int32 unit: 1e-7 degrees
GLOBE = (-180.0, -90.0, 180.0, 90.0)
ATTRIBUTION = ("Time zones: timezone-boundary-builder by Evan Siroky, ODbL 1.0, "
               "via PyPI timezonefinder-data {version}")


def versions() -> dict:
    import timezonefinder
    return {
        "timezonefinder": importlib.metadata.version("timezonefinder"),
        "timezonefinder-data": importlib.metadata.version("timezonefinder-data"),
        "timezone-boundary-builder": timezonefinder.TimezoneFinder().data_version,
        "shapely": shapely.__version__,
        "geos": shapely.geos_version_string,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
    }


# ---------------------------------------------------------------------------------------------
# Which country a zone belongs to (tzdata's tables)
# ---------------------------------------------------------------------------------------------
# Borders the zones are not to move: where they follow who administers a place and the admin data another
# view, the zones do not settle it. timezone-boundary-builder draws Asia/Jerusalem over East Jerusalem and
# the West Bank's settlements, where Natural Earth and GeoNames draw Palestine (PS): the zones would move
# 174 GeoNames places of Palestine into Israel for 32 they would put right (Data/README.md, "Borders
# refined by the time zones"). Africa/El_Aaiun covers Western Sahara (EH), which the bundled world data
# draws as Morocco's. And it draws Australia/Perth, America/Argentina/Ushuaia and America/Punta_Arenas over
# parts of Antarctica (AQ) that those countries claim: 1.5 % of random land points asked for a search there
# that could only fail (no unit of the claimant is near).
DISPUTED_BORDERS = [["IL", "PS"], ["EH", "MA"], ["AQ", "AU"], ["AQ", "AR"], ["AQ", "CL"]]


def zone_tab_countries() -> tuple[dict, str]:
    """Each zone's countries by PyPI tzdata's zone1970.tab and zone.tab, and tzdata's version. A zone is
    one country's only when both tables give that country alone: zone1970.tab lists every country whose
    clocks have agreed with the zone since 1970 (Asia/Bangkok: TH, CX, KH, LA, VN, as
    timezone-boundary-builder draws it over northern Vietnam), zone.tab the one a zone is named for."""
    import importlib.resources
    countries = collections.defaultdict(set)
    for tab in ("zone1970.tab", "zone.tab"):
        text = importlib.resources.files("tzdata").joinpath("zoneinfo", tab).read_text(encoding="utf-8")
        for line in text.splitlines():
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            countries[fields[2]].update(fields[0].split(","))
    return countries, importlib.metadata.version("tzdata")


def zone_countries(tzids) -> tuple[dict, str]:
    """`timeZoneCountries` for the zones `tzids`: the one country of each zone that has one."""
    tab, version = zone_tab_countries()
    one = {z: next(iter(tab[z])) for z in sorted(tzids) if len(tab.get(z, ())) == 1}
    return one, version


# ---------------------------------------------------------------------------------------------
# Source: timezonefinder's own polygons
# ---------------------------------------------------------------------------------------------
def load_source(log):
    """Every boundary polygon (with its holes) as timezonefinder stores it, and its zone id."""
    from timezonefinder import TimezoneFinder
    tf = TimezoneFinder()
    names = list(tf.timezone_names)
    log(f"source zones: expected {EXPECTED_COUNTS['zones']}, read {len(names)} "
        f"({sum(n.startswith('Etc/') for n in names)} of them Etc/ ocean or UTC zones)")
    log(f"source boundary polygons: expected {EXPECTED_COUNTS['polygons']}, read {tf.nr_of_polygons}; "
        f"holes: expected {EXPECTED_COUNTS['holes']}, read {tf.nr_of_holes}")
    check(len(names) == EXPECTED_COUNTS["zones"], "zone count differs from the pinned source")
    check(tf.nr_of_polygons == EXPECTED_COUNTS["polygons"], "polygon count differs from the pinned source")
    check(tf.nr_of_holes == EXPECTED_COUNTS["holes"], "hole count differs from the pinned source")
    polys, zones = [], []
    nv = 0
    for i in range(tf.nr_of_polygons):
        shell = tf.coords_of(i)  # int32, shape (2, n): row 0 longitudes, row 1 latitudes, ring not closed
        check(shell.dtype == np.int32 and shell.shape[0] == 2, f"polygon {i}: unexpected coordinate array")
        holes = [h.T.astype(np.float64) / COORD_SCALE for h in tf._holes_of_poly(i)]
        nv += shell.shape[1] + sum(len(h) for h in holes)
        p = shapely.Polygon(shell.T.astype(np.float64) / COORD_SCALE, holes)
        check(p.is_valid, f"source polygon {i} ({names[tf._zone_id_of(i)]}) invalid: {shapely.is_valid_reason(p)}")
        polys.append(p)
        zones.append(int(tf._zone_id_of(i)))
    log(f"source vertices: {nv} (int32 1e-7 degree units on a 1e-6 grid), all {len(polys)} polygons valid")
    check(set(zones) == set(range(len(names))), "some zone has no polygon")
    return tf, names, np.array(polys, dtype=object), np.array(zones)


# ---------------------------------------------------------------------------------------------
# Coverage: node, polygonize, assign faces
# ---------------------------------------------------------------------------------------------
def faces_of(polys, log):
    lines = np.concatenate([shapely.boundary(polys), [shapely.box(*GLOBE).boundary]])
    noded = shapely.union_all(lines)
    log.time("boundaries noded")
    faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(noded)))
    log.time("faces polygonized")
    area = float(shapely.area(faces).sum())
    check(abs(area - 360.0 * 180.0) < 1e-6, f"faces cover {area} square degrees, not the globe's 64800")
    return faces


def assign_faces(tf, names, polys, zones, faces, log):
    """Zone id of every face: the one source polygon containing its interior point, else timezonefinder's answer."""
    reps = shapely.point_on_surface(faces)
    tree = shapely.STRtree(polys)
    fi, pi = tree.query(reps, predicate="within")
    hits = collections.defaultdict(set)
    for f, p in zip(fi.tolist(), pi.tolist()):
        hits[f].add(int(zones[p]))
    index = {n: k for k, n in enumerate(names)}
    zone_of = np.empty(len(faces), dtype=np.int64)
    kinds = collections.Counter()
    resolved = []
    for f in range(len(faces)):
        zs = hits.get(f, set())
        if len(zs) == 1:
            zone_of[f] = next(iter(zs))
            kinds["single"] += 1
            continue
        x, y = reps[f].x, reps[f].y
        answer = tf.timezone_at(lng=x, lat=y)
        check(answer in index, f"timezonefinder has no zone at face point ({y}, {x})")
        zone_of[f] = index[answer]
        kind = "gap" if not zs else "overlap"
        kinds[kind] += 1
        resolved.append((kind, float(faces[f].area), y, x, sorted(names[z] for z in zs), answer))
    log(f"faces: {len(faces)}; in one source zone {kinds['single']}, in several (overlap) {kinds['overlap']}, "
        f"in none (gap) {kinds['gap']}; the last two get timezonefinder's answer at an interior point")
    resolved.sort(key=lambda r: -r[1])
    for kind, area, y, x, zs, answer in resolved[:12]:
        log(f"  {kind} face {area:.3e} sq deg at ({y:.6f}, {x:.6f}): in {zs or 'no zone'} -> {answer}")
    small = sum(1 for r in resolved if r[1] < 1e-6)
    log(f"  ({small} of the {len(resolved)} overlap/gap faces are slivers under 1e-6 square degrees)")
    return zone_of


def zone_geometries(names, faces, zone_of, log):
    by_zone = collections.defaultdict(list)
    for f, z in zip(faces, zone_of.tolist()):
        by_zone[z].append(f)
    geoms = []
    for z in range(len(names)):
        check(z in by_zone, f"zone {names[z]} lost every face")
        g = shapely.coverage_union_all(by_zone[z])
        g = base.ensure_valid(base.polygonal(g), f"zone {names[z]}")
        geoms.append(g)
    return np.array(geoms, dtype=object)


def check_coverage(geoms, what: str, log):
    check(bool(shapely.is_valid(geoms).all()), f"{what}: invalid geometry")
    check(bool(shapely.coverage_is_valid(geoms)), f"{what}: not a valid coverage (overlap or unmatched edge)")
    area = float(shapely.area(geoms).sum())
    check(abs(area - 64800.0) < 1e-6, f"{what}: zones cover {area} square degrees, not 64800 (gap or overlap)")
    log(f"{what}: {len(geoms)} zones, {base.ncoords(geoms)} vertices, all valid, a valid coverage of the "
        f"whole globe (area {area:.9f} square degrees)")


def simplify(geoms, tol: float, log):
    s = shapely.coverage_simplify(geoms, tolerance=tol, simplify_boundary=False)
    fixed = []
    for k, g in enumerate(s):
        check(g is not None and not g.is_empty, f"simplification emptied zone {k}")
        fixed.append(base.ensure_valid(base.polygonal(g), f"simplified zone {k}"))
    return np.array(fixed, dtype=object)


# ---------------------------------------------------------------------------------------------
def build(out: str, tol: float | None, log, vers: dict | None = None, also_full: str | None = None,
          faces_cache: str | None = None):
    """Builds OUT/timezones/ (replacing it); tol None = full resolution. also_full: a directory that gets
    the full-resolution build too, from the same run (the noding is the slow part). Returns the folder."""
    vers = vers or versions()
    for k, v in vers.items():
        log(f"input/tool {k}: {v}")
    for k, v in EXPECTED_VERSIONS.items():
        if vers[k] != v:
            log(f"WARNING: {k} is {vers[k]}, pinned {v}: outputs will differ from the committed ones")
    if vers["timezone-boundary-builder"] != EXPECTED_DATA_VERSION:
        log(f"WARNING: timezone-boundary-builder {vers['timezone-boundary-builder']}, pinned {EXPECTED_DATA_VERSION}")
    tf, names, polys, zones = load_source(log)
    log.time("timezones: source read")
    if faces_cache and os.path.exists(faces_cache):
        # development aid only: the polygonized faces of an earlier run with the same inputs
        faces = shapely.from_wkb(np.load(faces_cache, allow_pickle=True))
        log.time("timezones: faces read from cache")
    else:
        faces = faces_of(polys, log)
        if faces_cache:
            np.save(faces_cache, shapely.to_wkb(faces), allow_pickle=True)
    log(f"noded and polygonized: {len(faces)} faces tile the globe")
    zone_of = assign_faces(tf, names, polys, zones, faces, log)
    geoms = zone_geometries(names, faces, zone_of, log)
    log.time("timezones: zones assembled")
    check_coverage(geoms, "timezones (full resolution)", log)
    log.time("timezones: coverage checked")
    if also_full:
        write_dataset(also_full, names, geoms, None, vers, log)
    if tol is not None:
        geoms = simplify(geoms, tol, log)
        log.time("timezones: simplified")
        check_coverage(geoms, f"timezones (coverage_simplify tolerance {tol})", log)
        log.time("timezones: simplified coverage checked")
    return write_dataset(out, names, geoms, tol, vers, log)


def write_dataset(out: str, names, geoms, tol, vers, log):
    if tol is None:
        cmd = "python3 Data/build_timezones.py --full --out DIR"
    elif tol == DEFAULT_TOLERANCE:
        cmd = "python3 Data/build_timezones.py --out Data"
    else:
        cmd = f"python3 Data/build_timezones.py --tolerance {tol} --out DIR"
    d = os.path.join(out, "timezones")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    order = sorted(range(len(names)), key=lambda k: names[k])
    base.write_shapefile(os.path.join(d, "timezones"), [geoms[k] for k in order], ["tzid"],
                         [[names[k]] for k in order], base.PRJ_WGS84_GEOGCS)
    manifest = {
        "format": 1,
        "name": "timezones",
        "role": "overlay",
        "title": "IANA time zones, land and ocean (timezone-boundary-builder via timezonefinder-data)",
        "datum": "wgs84",
        "priority": 200,
        "source": ("timezone-boundary-builder release " + vers["timezone-boundary-builder"]
                   + " (with oceans) as shipped by PyPI timezonefinder-data, read through PyPI timezonefinder "
                   + vers["timezonefinder"] + " (int32 coordinates, 1e-7 degrees)"),
        "sourceVersion": vers["timezonefinder-data"],
        "license": ("ODbL-1.0 (timezone-boundary-builder, Copyright (c) Evan Siroky; OpenStreetMap contributors "
                    "data); see LICENSES/timezone-boundary-builder-ODbL.md"),
        "attribution": ATTRIBUTION.format(version=vers["timezonefinder-data"]),
        "build": cmd,
        "simplification": ("none (full resolution)" if tol is None else
                           f"coverage_simplify tolerance {tol} degrees (GEOS {vers['geos']})"),
        "layers": [{"file": "timezones.shp", "fields": {"timeZone": {"name": "tzid"}}}],
    }
    manifest.update(border_fields(names))
    base.write_dataset_manifest(d, manifest)
    base.log_sizes([d], log)
    log.time("timezones: written")
    return d


def border_fields(tzids) -> dict:
    """The manifest's border fields for the zones `tzids` (see the module's doc)."""
    countries, version = zone_countries(tzids)
    return {"timeZoneCountriesSource": f"tzdata {version} (PyPI): zone1970.tab and zone.tab, public domain",
            "timeZoneCountries": countries, "disputedBorders": DISPUTED_BORDERS}


LOG_BEGIN = "== timezones: timezone-boundary-builder via timezonefinder-data =="
LOG_END = "== end timezones =="


def merge_log(path: str, lines: list[str]):
    """Replaces the timezones section of OUT/build_log.txt (or appends it), keeping build.py's lines."""
    old = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = f.read().splitlines()
    if LOG_BEGIN in old and LOG_END in old:
        i, j = old.index(LOG_BEGIN), old.index(LOG_END)
        old = old[:i] + old[j + 1:]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(old + lines) + "\n")
    os.replace(tmp, path)


def section(log_lines_from: int, log) -> list[str]:
    return [LOG_BEGIN] + log.lines[log_lines_from:] + [LOG_END]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory (gets timezones/)")
    ap.add_argument("--full", action="store_true", help="no simplification: exactly timezonefinder's polygons")
    ap.add_argument("--also-full", metavar="DIR", help="write the full-resolution build into DIR too (same run)")
    ap.add_argument("--faces-cache", metavar="FILE.npy", help=argparse.SUPPRESS)
    ap.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE,
                    help=f"coverage simplification tolerance, degrees (default {DEFAULT_TOLERANCE})")
    args = ap.parse_args(argv)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    log = base.Log()
    tol = None if args.full else args.tolerance
    log(f"# python3 Data/build_timezones.py {'--full' if tol is None else f'--tolerance {tol}'} --out <dir>")
    build(out, tol, log, also_full=os.path.abspath(args.also_full) if args.also_full else None,
          faces_cache=args.faces_cache)
    merge_log(os.path.join(out, "build_log.txt"), section(0, log))


if __name__ == "__main__":
    base.run_script(main)
