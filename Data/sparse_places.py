"""Small places where the bundled extract has none: the fill of the localities build.

cities15000 keeps localities/ within its size budget, but it leaves whole regions without a place: northern
Canada, Siberia, the outback, and islands far from any town of 15,000 people. There every point's cell was a
distant town's: Kiritimati answered "Tarawa, 3,290 km, Gilbert Islands" (Kiritimati is in the Line Islands,
and has villages of its own), a point in northern Ontario "Timmins, 518 km". CLGeocoder names the small
town nearby. So a cities1000 place joins the build where no place already kept, of its own country, lies
within `km`: the most populous first, each one kept then counting for the next (greedy), so a sparse region
gets its largest village, not all of them. Cells are drawn per province of the place's own country, so a
town across a border does not count as near.

Cells never cross a province either, so a sparse-region place whose own province had no kept place was
answered by a town of the next province, often farther than `km` (3.9 % of the sparse places the cells
answered, session 26). So the build's fill (`fill_then_admin1`) then repeats the rule among the sparse
places with the unit "country and GeoNames admin-1": 192 more villages, and 99.7 % of the sparse places
answered within `km`. The same rule everywhere (`fill_admin1`) would add 1,481 places instead, mostly in
countries of many small admin-1 units (Slovenia's municipalities), and break the size budget.

Distances are great-circle, by chord length between unit vectors (the KD-tree's metric); deterministic
(ties by geonameid).
"""
from __future__ import annotations

import collections
import math

import numpy as np
from scipy.spatial import cKDTree

EARTH_RADIUS_KM = 6371.0088  # the mean radius (IUGG), as the engine's haversine uses


def unit_vectors(lat, lon) -> np.ndarray:
    """Points on the unit sphere, one row per latitude/longitude (degrees, arrays)."""
    la, lo = np.radians(lat), np.radians(lon)
    return np.c_[np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)]


def places_xyz(places: list[dict]) -> np.ndarray:
    return unit_vectors(np.array([p["lat"] for p in places]), np.array([p["lon"] for p in places]))


def chord(km: float) -> float:
    """The straight-line distance between two unit vectors `km` apart on the sphere."""
    return 2 * math.sin(km / EARTH_RADIUS_KM / 2)


def arc_km(c: float) -> float:
    """The great-circle kilometres between two unit vectors `c` apart (chord's inverse)."""
    return EARTH_RADIUS_KM * 2 * math.asin(min(1.0, c / 2))


def country(p: dict):
    """The unit a place must have a kept place of within the fill distance: its country."""
    return p["cc"]


def country_and_admin1(p: dict):
    """... or its country and GeoNames admin-1 (the fill per admin-1)."""
    return p["cc"], p["admin1code"]


def nearest_kept(kept: list[dict], candidates: list[dict], unit=country) -> np.ndarray:
    """Per candidate: the chord to the nearest place of its own unit (`unit(place)`: its country, or its
    country and admin-1) in `kept` (inf where the unit has none)."""
    by_unit = collections.defaultdict(list)
    for p in kept:
        by_unit[unit(p)].append(p)
    groups = collections.defaultdict(list)
    for i, p in enumerate(candidates):
        groups[unit(p)].append(i)
    out = np.full(len(candidates), np.inf)
    for u, idx in groups.items():
        if by_unit[u]:
            out[idx], _ = cKDTree(places_xyz(by_unit[u])).query(places_xyz([candidates[i] for i in idx]))
    return out


def fill(kept: list[dict], candidates: list[dict], km: float, unit=country) -> list[dict]:
    """The candidates (not already in `kept`) that are farther than `km` from every place of their own
    unit (country, or country and admin-1) in `kept` and from every candidate of that unit chosen before
    them, most populous first."""
    if km <= 0:
        return []
    r = chord(km)
    ids = {p["geonameid"] for p in kept}
    far = [p for p, d in zip(candidates, nearest_kept(kept, candidates, unit)) if d > r and p["geonameid"] not in ids]
    pending = collections.defaultdict(list)
    for p in far:
        pending[unit(p)].append(p)
    chosen = []
    for u in sorted(pending):
        cands = sorted(pending[u], key=lambda p: (-p["pop"], p["geonameid"]))
        xyz = places_xyz(cands)
        mine = np.empty((0, 3))
        for i in range(len(cands)):
            if len(mine) and np.min(np.linalg.norm(mine - xyz[i], axis=1)) <= r:
                continue
            mine = np.vstack([mine, xyz[i]])
            chosen.append(cands[i])
    return sorted(chosen, key=lambda p: p["geonameid"])


def fill_admin1(kept: list[dict], candidates: list[dict], km: float) -> list[dict]:
    """The fill per country and admin-1 everywhere."""
    return fill(kept, candidates, km, country_and_admin1)


def fill_then_admin1(kept: list[dict], candidates: list[dict], km: float) -> list[dict]:
    """The fill per country, then, among the candidates of sparse regions only (no place of their
    country in `kept` within `km`), per country and admin-1: a village joins where its admin-1 has no
    place within `km` yet. Cells never cross a province, so a place whose own province had none was
    answered by a town of the next province, often farther than `km`; in dense regions (Slovenia's 212
    municipalities are its admin-1) the per-admin-1 rule would add places the budget has no room for."""
    first = fill(kept, candidates, km)
    sparse = [p for p, far in zip(candidates, far_from_kept(kept, candidates, km)) if far]
    return sorted(first + fill(kept + first, sparse, km, country_and_admin1), key=lambda p: p["geonameid"])


def far_from_kept(kept: list[dict], candidates: list[dict], km: float, unit=country) -> np.ndarray:
    """Per candidate: whether no place of its unit (country, or country and admin-1) in `kept` lies
    within `km` (true where the unit has none)."""
    return nearest_kept(kept, candidates, unit) > chord(km)


def beyond(kept: list[dict], candidates: list[dict], km: float, unit=country) -> tuple[int, float, int]:
    """How many candidates are farther than `km` from every kept place of their unit; the largest
    distance of a candidate to its unit's nearest kept place (km), among units with a kept place;
    and how many of the candidates' countries have none: the build log's before/after figures."""
    d = nearest_kept(kept, candidates, unit)
    finite = d[np.isfinite(d)]
    return (int((d > chord(km)).sum()), arc_km(float(finite.max())) if len(finite) else 0.0,
            len({p["cc"] for p in candidates} - {p["cc"] for p in kept}))


def ground_km(lat1, lon1, lat2, lon2):
    """Haversine kilometres (arrays or numbers), the engine's formula and radius."""
    r = np.radians
    a = np.sin((r(lat2) - r(lat1)) / 2) ** 2 + np.cos(r(lat1)) * np.cos(r(lat2)) * np.sin((r(lon2) - r(lon1)) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.minimum(1.0, np.sqrt(a)))
