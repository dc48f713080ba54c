#!/usr/bin/env bash
# Development stand-in for the bundled Data/ while it is not on this branch: Natural Earth from Debian's
# qgis-common (world_map.gpkg) converted with ogr2ogr into Benchmarks/work/interim/ with manifests.
#   world/  admin-1 (states_provinces) + admin-0 (countries), WGS-84
#   china/  China's admin-1 units only, declared GCJ-02 so the suite's GCJ-02 path is exercised
#           (the geometry is really WGS-84: numbers from it say nothing about the real China data).
# Usage: Benchmarks/interim-data.sh [OUT]   then   Benchmarks/run.sh --data OUT
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/work/interim}"
gpkg=/usr/share/qgis/resources/data/world_map.gpkg
[ -f "$gpkg" ] || { echo "interim-data: $gpkg missing (apt-get install qgis-common)" >&2; exit 1; }
command -v ogr2ogr >/dev/null || { echo "interim-data: ogr2ogr missing (apt-get install gdal-bin)" >&2; exit 1; }
mkdir -p "$out/world" "$out/china"
rm -f "$out"/world/* "$out"/china/*
conv() { ogr2ogr -f "ESRI Shapefile" -lco ENCODING=UTF-8 -nlt MULTIPOLYGON "$@"; }
conv "$out/world/world_province.shp" "$gpkg" states_provinces -select name,fips,admin,iso_a2
conv "$out/world/world_country.shp" "$gpkg" countries -select NAME,ISO_A2
conv "$out/china/china_province.shp" "$gpkg" states_provinces -select name,fips,admin,iso_a2 -where "iso_a2 = 'CN'"
cat >"$out/world/manifest.json" <<'JSON'
{ "format": 1, "name": "world", "title": "INTERIM Natural Earth (qgis-common world_map.gpkg)", "datum": "wgs84",
  "priority": 100,
  "layers": [
    { "file": "world_province.shp", "level": "province",
      "fields": { "province": { "name": "name", "code": "fips" }, "country": { "name": "admin", "code": "iso_a2" } } },
    { "file": "world_country.shp", "level": "country",
      "fields": { "country": { "name": "NAME", "code": "ISO_A2" } } } ] }
JSON
cat >"$out/china/manifest.json" <<'JSON'
{ "format": 1, "name": "china", "title": "INTERIM China provinces from Natural Earth (really WGS-84)", "datum": "gcj02",
  "priority": 10, "constants": { "country": { "name": "中国", "code": "CN" } },
  "layers": [
    { "file": "china_province.shp", "level": "province",
      "fields": { "province": { "name": "name", "code": "fips" } } } ] }
JSON
echo "interim-data: wrote $out/world and $out/china"
