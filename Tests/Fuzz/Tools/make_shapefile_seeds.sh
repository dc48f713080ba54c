#!/usr/bin/env bash
# Regenerates Corpus/shapefile from Tools/make_shapefile_seeds.swift (needs libshp-dev).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
swiftc -I "$root/Sources/CShapelib" "$here/Tools/make_shapefile_seeds.swift" -lshp -o "$tmp/make-seeds"
"$tmp/make-seeds" "$here/Corpus/shapefile"
