"""Small places where the bundled extract has none: the fill of the localities build.

cities15000 keeps localities/ within its size budget, but it leaves whole regions without a place: northern
Canada, Siberia, the outback, and islands far from any town of 15,000 people. There every point's cell was a
distant town's: Kiritimati answered "Tarawa, 3,290 km, Gilbert Islands" (Kiritimati is in the Line Islands,
and has villages of its own), a point in northern Ontario "Timmins, 518 km". CLGeocoder names the small
town nearby. So a cities1000 place joins the build where no place already kept, of its own country, lies
within `km`: the most populous first, each one kept then counting for the next (greedy), so a sparse region
gets its largest village, not all of them. Cells are drawn per province of the place's own country, so a
town across a border does not count as near.

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


def nearest_kept(kept: list[dict], candidates: list[dict]) -> np.ndarray:
    """Per candidate: the chord to the nearest place of its own country in `kept` (inf where the country
    has none)."""
    by_country = collections.defaultdict(list)
    for p in kept:
        by_country[p["cc"]].append(p)
    groups = collections.defaultdict(list)
    for i, p in enumerate(candidates):
        groups[p["cc"]].append(i)
    out = np.full(len(candidates), np.inf)
    for cc, idx in groups.items():
        if by_country[cc]:
            out[idx], _ = cKDTree(places_xyz(by_country[cc])).query(places_xyz([candidates[i] for i in idx]))
    return out


def fill(kept: list[dict], candidates: list[dict], km: float) -> list[dict]:
    """The candidates (not already in `kept`) that are farther than `km` from every place of their own
    country in `kept` and from every candidate chosen before them, most populous first."""
    if km <= 0:
        return []
    r = chord(km)
    ids = {p["geonameid"] for p in kept}
    far = [p for p, d in zip(candidates, nearest_kept(kept, candidates)) if d > r and p["geonameid"] not in ids]
    pending = collections.defaultdict(list)
    for p in far:
        pending[p["cc"]].append(p)
    chosen = []
    for cc in sorted(pending):
        cands = sorted(pending[cc], key=lambda p: (-p["pop"], p["geonameid"]))
        xyz = places_xyz(cands)
        mine = np.empty((0, 3))
        for i in range(len(cands)):
            if len(mine) and np.min(np.linalg.norm(mine - xyz[i], axis=1)) <= r:
                continue
            mine = np.vstack([mine, xyz[i]])
            chosen.append(cands[i])
    return sorted(chosen, key=lambda p: p["geonameid"])


def far_from_kept(kept: list[dict], candidates: list[dict], km: float) -> np.ndarray:
    """Per candidate: whether no place of its country in `kept` lies within `km` (true where the country
    has none)."""
    return nearest_kept(kept, candidates) > chord(km)


def beyond(kept: list[dict], candidates: list[dict], km: float) -> tuple[int, float, int]:
    """How many candidates are farther than `km` from every kept place of their country; the largest
    distance of a candidate to its country's nearest kept place (km), among countries with a kept place;
    and how many of the candidates' countries have none: the build log's before/after figures."""
    d = nearest_kept(kept, candidates)
    finite = d[np.isfinite(d)]
    return (int((d > chord(km)).sum()), arc_km(float(finite.max())) if len(finite) else 0.0,
            len({p["cc"] for p in candidates} - {p["cc"] for p in kept}))


def ground_km(lat1, lon1, lat2, lon2):
    """Haversine kilometres (arrays or numbers), the engine's formula and radius."""
    r = np.radians
    a = np.sin((r(lat2) - r(lat1)) / 2) ** 2 + np.cos(r(lat1)) * np.cos(r(lat2)) * np.sin((r(lon2) - r(lon1)) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.minimum(1.0, np.sqrt(a)))
