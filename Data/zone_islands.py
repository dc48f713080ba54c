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
in it as in a province.

Deterministic: parts are taken in the zone's stored order, places by index.
"""
from __future__ import annotations

import collections

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


def territories(places: list[dict], dropped: list[int], zones: dict, zone_country: dict, pgeoms, pcc,
                km: float) -> list[Territory]:
    """Territories for the places `dropped` (indices into `places`: in no province). zones: tzid ->
    geometry; zone_country: tzid -> the one country of the zone; pgeoms/pcc: the Natural Earth provinces
    and their countries."""
    tree = shapely.STRtree(pgeoms)
    groups = collections.defaultdict(list)
    for i in dropped:
        p = places[i]
        if p["tz"] in zones and zone_country.get(p["tz"]) == p["cc"]:
            groups[(p["cc"], p["tz"])].append(i)
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
                users.update(near)
        if kept:
            geom = shapely.union_all(kept)
            out.append(Territory(geom, cc, tzid, sorted(users), len(kept)))
    return out


def unused(territories_: list[Territory], places: list[dict], dropped: list[int]) -> list[dict]:
    """The dropped places no territory takes (for the build log)."""
    taken = {i for t in territories_ for i in t.places}
    return [places[i] for i in dropped if i not in taken]
