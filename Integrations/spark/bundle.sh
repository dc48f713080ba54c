#!/usr/bin/env bash
# Packs what executors need into Integrations/spark/dist/, for spark-submit --files/--archives:
#   dist/geocode               the CLI, built with the Swift runtime linked in (--static-swift-stdlib)
#   dist/geocode-libs.tar.gz   GEOS and shapelib shared libraries (put on LD_LIBRARY_PATH by lib_dir=)
#   dist/geocode-data.tar.gz   the data directory (default: Data/), unpacked as the --data directory
# Build it on the executors' OS and architecture (e.g. in the same container image): glibc and
# libstdc++ still come from the executor, and they must be at least as new as where this ran.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
data="${1:-$root/Data}"
dist="$here/dist"
mkdir -p "$dist/libs"
(cd "$root" && swift build -c release --product geocode --static-swift-stdlib --scratch-path "$here/.build-static")
cp "$here/.build-static/release/geocode" "$dist/geocode"
# The GEOS and shapelib libraries the binary loads (libgeos_c pulls in libgeos).
ldd "$dist/geocode" | awk '$1 ~ /^lib(geos|shp)/ && $3 ~ /^\// {print $3}' | while read -r lib; do
  cp -L "$lib" "$dist/libs/"
done
tar -czf "$dist/geocode-libs.tar.gz" -C "$dist/libs" .
python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import geocode_spark as g; g.make_data_archive(sys.argv[2], sys.argv[3])' \
  "$here" "$data" "$dist/geocode-data.tar.gz"
echo "dist/: $(cd "$dist" && ls -1 geocode geocode-libs.tar.gz geocode-data.tar.gz | tr '\n' ' ')"
echo "libraries shipped: $(ls "$dist/libs" | tr '\n' ' ')"
echo "still needed on executors: $(ldd "$dist/geocode" | awk '$1 !~ /^lib(geos|shp)/ {print $1}' | tr '\n' ' ')"
