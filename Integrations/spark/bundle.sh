#!/usr/bin/env bash
# Packs what executors need into Integrations/spark/dist/, for spark-submit --files/--archives:
#   dist/geocode               the CLI, with the Swift runtime linked in (--static-swift-stdlib)
#   dist/geocode-libs.tar.gz   every shared library it loads except glibc's: GEOS, shapelib, libstdc++,
#                              and what the static Swift Foundation needs (libxml2, ICU, zlib, lzma;
#                              not libcurl, which the reporter loads with dlopen only to report over HTTP);
#                              lib_dir="geocode-libs" puts them first on LD_LIBRARY_PATH
#   dist/geocode-data.tar.gz   the data directory (default: Data/), unpacked as the --data directory
# Run it on the executors' OS and CPU architecture (e.g. in their container image): glibc still comes
# from the executor and must be at least as new as here.
#   Integrations/spark/bundle.sh [DATA_DIR]
#   Integrations/spark/bundle.sh --build-only   # only the release build (CI starts it early, beside the
#                                               # other compiles; the later full run finds it up to date)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build_only=0
if [ "${1:-}" = "--build-only" ]; then build_only=1; shift; fi
data="${1:-$root/Data}"
dist="$here/dist"
# The static Foundation links its system libraries by name: FoundationXML (GPX) needs libxml2's
# development symlink, which only the -dev package installs.
log="$here/.build-static/build.log"
mkdir -p "$here/.build-static"
if ! (cd "$root" && swift build -c release --product geocode --static-swift-stdlib --scratch-path "$here/.build-static") 2>&1 | tee "$log"; then
  missing=$(grep -o 'cannot find -l[A-Za-z0-9_+.-]*' "$log" | sed 's/cannot find -l//' | sort -u | tr '\n' ' ')
  if [ -n "$missing" ]; then
    echo "bundle.sh: the static link needs the development files of: $missing(Debian 12: libxml2-dev for xml2; libgeos-dev, libshp-dev)" >&2
  fi
  echo "bundle.sh: the release build failed (log: $log)" >&2
  exit 1
fi
[ "$build_only" = 0 ] || exit 0
rm -rf "$dist/libs"
mkdir -p "$dist/libs"
cp "$here/.build-static/release/geocode" "$dist/geocode"
if command -v strip >/dev/null; then strip "$dist/geocode"; fi   # symbols are most of its size
# Every library the binary loads, directly or not, except glibc's own.
glibc='^(linux-vdso|/?lib64/ld-linux|ld-linux|libc|libm|libpthread|libdl|librt|libresolv)[.-]'
ldd "$dist/geocode" | awk -v g="$glibc" '$1 !~ g && $3 ~ /^\// {print $3}' | while read -r lib; do
  cp -L "$lib" "$dist/libs/"
done
tar -czf "$dist/geocode-libs.tar.gz" -C "$dist/libs" .
python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import geocode_spark as g; g.make_data_archive(sys.argv[2], sys.argv[3])' \
  "$here" "$data" "$dist/geocode-data.tar.gz"
echo "dist/: geocode ($(du -h "$dist/geocode" | cut -f1)), geocode-libs.tar.gz ($(du -h "$dist/geocode-libs.tar.gz" | cut -f1)), geocode-data.tar.gz ($(du -h "$dist/geocode-data.tar.gz" | cut -f1))"
echo "libraries shipped: $(ls "$dist/libs" | tr '\n' ' ')"
echo "left to the executor (glibc): $(ldd "$dist/geocode" | awk -v g="$glibc" '$1 ~ g {print $1}' | tr '\n' ' ')"
LD_LIBRARY_PATH="$dist/libs" ldd "$dist/geocode" | grep -q 'not found' && { echo "bundle.sh: a library is missing" >&2; exit 1; }
echo "ok: with LD_LIBRARY_PATH=dist/libs every non-glibc library resolves to dist/libs"
