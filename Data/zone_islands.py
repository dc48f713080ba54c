"""Islands Natural Earth lacks: a territory for the places that lie in no province, from their time zone.

The localities build draws every cell inside a Natural Earth province, and a place farther than
SNAP_DEGREES from every province is left out. Natural Earth v4.1.0 (QGIS's copy) has no land at all for
Matsu, the Lienchiang County of Taiwan (Nangan, Beigan, Juguang, Dongyin): the fill (sparse_places.py)
keeps its largest GeoNames town, Nangan (7,815 people, TW.01 Fukien, admin-2 Lienchiang), which was then
dropped, 0.17° off Natural Earth's Fujian coast. Points on Matsu answered nothing.

The time zones (OUT/timezones/timezones.shp, timezone-boundary-builder with its ocean zones) do have
them: Asia/Taipei is Taiwan's land and waters, with Matsu's, Pratas's and Wuqiu's island groups as parts
of their own. A part of a zone that is one country's alone (the manifest's `timeZoneCountries`, from
tzdata's zone tables) and that touches no Natural Earth province of that country is an island group
Natural Earth lacks. Such a part, less every Natural Earth province (no cell takes land Natural Earth
gives a unit), is territory for the places of that country and zone that lie in no province, when one of
them is within `km` of it (Dongyin's part is 53 km from Nangan; a part with no place that near,
Pratas, stays empty: no place is better than a far one). The build then draws those places' Voronoi cells
in it as in a province; a place joins only where its own point lies in such a part (else its cell could
lie in other parts only, away from it: Lukunor's).

A place still without a territory (its zone part holds Natural Earth land of its country too: Likiep beside
Majuro's atolls; or its zone is several countries': Indian/Maldives) gets its own waters (`waters`): its
country's part of the zone within 12 nautical miles of it, less every province and territory, shared by
nearest place with the country's other such places (Data/README.md, step 1c).

The zone of a place is the one holding its point, not GeoNames' zone name for it (`holding_zones`).
Deterministic: parts are taken in the zone's stored order, places by index.
"""
from __future__ import annotations

import collections

import numpy as np
import shapely

import sparse_places


class Territory:
    """An island territory: its geometry, its country, the zone it comes from, the places drawn in it
    (indices into the build's place list) and how many zone parts it joins."""

    def __init__(self, geom, cc: str, tzid: str, places: list[int], parts: int):
        self.geom = geom
        self.cc = cc
        self.tzid = tzid
        self.places = places
        self.parts = parts


def part_km(part, lat: float, lon: float) -> float:
    """Ground kilometres from a point to the nearest point of a polygon (the nearest point found in
    longitude/latitude: close enough at the tens of kilometres this is used for)."""
    if part.contains(shapely.Point(lon, lat)):
        return 0.0
    q = shapely.shortest_line(shapely.Point(lon, lat), part).coords[1]
    return float(sparse_places.ground_km(lat, lon, q[1], q[0]))


def holding_zones(places: list[dict], idx: list[int], zones: dict) -> dict:
    """The zone whose closure holds each place's point (the first by name on a border; "" in none).
    GeoNames' own zone name is not always it: Namoluk (FM) is filed under Pacific/Pohnpei and lies in
    Pacific/Chuuk's waters, Jabat (MH) under Pacific/Kwajalein in Pacific/Majuro's."""
    ids = sorted(zones)
    tree = shapely.STRtree([zones[z] for z in ids])
    out = {}
    for i in idx:
        hits = tree.query(shapely.Point(places[i]["lon"], places[i]["lat"]), predicate="intersects")
        out[i] = min((ids[h] for h in hits), default="")
    return out


def territories(places: list[dict], dropped: list[int], zones: dict, zone_country: dict, pgeoms, pcc,
                km: float) -> list[Territory]:
    """Territories for the places `dropped` (indices into `places`: in no province). zones: tzid ->
    geometry; zone_country: tzid -> the one country of the zone; pgeoms/pcc: the Natural Earth provinces
    and their countries."""
    tree = shapely.STRtree(pgeoms)
    groups = collections.defaultdict(list)
    for i, tzid in holding_zones(places, dropped, zones).items():
        if zone_country.get(tzid) == places[i]["cc"]:
            groups[(places[i]["cc"], tzid)].append(i)
    out = []
    for (cc, tzid), idx in sorted(groups.items()):
        kept, users = [], set()
        for part in shapely.get_parts(zones[tzid]):
            hits = tree.query(part, predicate="intersects")
            if any(pcc[h] == cc for h in hits):
                continue  # Natural Earth has this part's land: its provinces' cells cover it
            near = [i for i in idx if part_km(part, places[i]["lat"], places[i]["lon"]) <= km]
            if not near:
                continue
            land = [pgeoms[h] for h in hits]
            rest = shapely.difference(part, shapely.union_all(land)) if land else part
            rest = shapely.get_parts(rest)
            rest = [g for g in rest if g.geom_type == "Polygon" and not g.is_empty]
            if rest:
                kept.extend(rest)
                # a place drawn here lies in such a part: one lying in a part with Natural Earth land of
                # its country (Lukunor, 60 km from Namoluk's atoll) had a cell only in another part, away
                # from its own point; the waters rule below draws it
                users.update(i for i in near if part.intersects(shapely.Point(places[i]["lon"], places[i]["lat"])))
        if kept:
            geom = shapely.union_all(kept)
            out.append(Territory(geom, cc, tzid, sorted(users), len(kept)))
    return out


def unused(territories_: list[Territory], places: list[dict], dropped: list[int]) -> list[dict]:
    """The dropped places no territory takes (for the build log)."""
    taken = {i for t in territories_ for i in t.places}
    return [places[i] for i in dropped if i not in taken]


# ---------------------------------------------------------------------------------------------
# The places the island rule leaves: their own waters
# ---------------------------------------------------------------------------------------------
# The breadth of the territorial sea (UNCLOS art. 3), which is also how far timezone-boundary-builder's zones
# reach beyond the coast: a state's sovereignty covers it, so a cell in it is the place's country's.
TERRITORIAL_SEA_KM = 12 * 1.852
DISC_VERTICES = 64


def disc(lat: float, lon: float, km: float):
    """The points within `km` of a place, as a polygon in longitude/latitude (an ellipse: longitude
    stretched by 1/cos(latitude); exact enough for tens of kilometres away from the poles)."""
    t = np.linspace(0, 2 * np.pi, DISC_VERTICES, endpoint=False)
    deg = km / (np.pi * sparse_places.EARTH_RADIUS_KM / 180)
    return shapely.Polygon(np.c_[lon + deg * np.sin(t) / max(np.cos(np.radians(lat)), 0.05), lat + deg * np.cos(t)])


class LeftOut:
    """A place no rule gives a cell, and why (for the build log and Data/README.md)."""

    def __init__(self, place: dict, tzid: str, why: str):
        self.place = place
        self.tzid = tzid
        self.why = why


def country_parts(tzid: str, cc: str, zones: dict, zone_lists: dict, tree, pcc):
    """The parts of zone `tzid` that are country `cc`'s: all of them if the zone is cc's alone (tzdata's
    tables); if it is several countries' and cc is one (Indian/Maldives: MV and TF), the parts that touch
    no Natural Earth province of another country; else none (an Etc/ ocean zone, another country's zone)."""
    countries = zone_lists.get(tzid, set())
    if cc not in countries:
        return []
    parts = list(shapely.get_parts(zones[tzid]))
    if countries == {cc}:
        return parts
    return [g for g in parts if all(pcc[h] == cc for h in tree.query(g, predicate="intersects"))]


def waters(places: list[dict], left: list[int], zones: dict, zone_lists: dict, pgeoms, pcc,
           km: float = TERRITORIAL_SEA_KM) -> tuple[list[Territory], list[LeftOut]]:
    """Territories for the places `left` (indices into `places`: in no province and no island territory).

    A place whose Natural Earth country has land in its zone part (Majuro's atoll beside Likiep's, Malé's
    beside the other Maldivian atolls), or whose zone is several countries' (Indian/Maldives), is left by the
    island rule. Its territory is the rule a reviewer can state in one sentence: the waters of its own
    country's time zone part within `km` (the territorial sea's breadth) of the place, less every province
    and island territory drawn before. The zone is the one holding the place's point (GeoNames' zone name
    is not always it: Namoluk is filed under Pacific/Pohnpei, in Pacific/Chuuk's waters). One territory per
    country; the build draws its places' Voronoi cells in it, so each point goes to the nearest such place
    and lies within `km` of it. It never takes another country's land: a zone part is drawn by
    timezone-boundary-builder from the country's own borders, the country check above keeps the part
    the place's country's, and no Natural Earth province is in it."""
    ptree = shapely.STRtree(pgeoms)
    pieces = collections.defaultdict(list)
    users = collections.defaultdict(list)
    zones_of = collections.defaultdict(set)
    out_left = []
    for i, tzid in holding_zones(places, left, zones).items():
        p = places[i]
        parts = country_parts(tzid, p["cc"], zones, zone_lists, ptree, pcc) if tzid else []
        if not parts:
            others = ",".join(sorted(zone_lists.get(tzid, ()))) or "none: international waters"
            out_left.append(LeftOut(p, tzid, f"its point lies in {tzid or 'no zone'} (countries: {others}), "
                                              f"not in {p['cc']}'s waters"))
            continue
        piece = shapely.intersection(disc(p["lat"], p["lon"], km), shapely.union_all(parts))
        pieces[p["cc"]].append(piece)
        users[p["cc"]].append(i)
        zones_of[p["cc"]].add(tzid)
    out = []
    for cc in sorted(pieces):
        geom = shapely.union_all(pieces[cc])
        land = [pgeoms[h] for h in ptree.query(geom, predicate="intersects")]
        if land:
            geom = shapely.difference(geom, shapely.union_all(land))
        polys = [g for g in shapely.get_parts(geom) if g.geom_type == "Polygon" and not g.is_empty]
        if not polys:
            out_left.extend(LeftOut(places[i], "", "its waters are all Natural Earth land") for i in users[cc])
            continue
        out.append(Territory(shapely.union_all(polys), cc, ",".join(sorted(zones_of[cc])), sorted(users[cc]), len(polys)))
    return out, out_left
