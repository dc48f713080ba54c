#!/usr/bin/env bash
# User CPU of `geocode track --gpx FILE --speed max --region REGIONS` for two binaries, alternated
# (A B, B A, A B, ...: each pair's order flips, so neither always runs first on a warmed machine), on a
# long generated track: the region monitor's per-fix cost, which normalized every name of the fix's
# placemark on every fix before the normalized names were kept per placemark (WHAT-PAID.md).
#
#   Benchmarks/region-track-ab.sh A_BINARY B_BINARY [PAIRS (default 7)] [POINTS (default 20000)]
#
# The track: POINTS fixes 1 s apart along a line through Beijing's districts and out to Langfang and
# back (inside the bundled china dataset), written with the regions file into a temporary folder that
# is removed afterwards. The regions: areas by name in three languages and at two levels, by code, and
# a circle, so every fix compares names. Both binaries read the same data (this repo's Data/) and
# first run once each unmeasured (index cache, page cache). Each run's stdout must be byte-identical
# between the binaries (checked on every run). Prints one line per run ("A|B user sys wall") and the
# medians of user CPU.
set -euo pipefail
a=$1; b=$2; pairs=${3:-7}; points=${4:-20000}
repo="$(cd "$(dirname "$0")/.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$points" "$work/track.gpx" <<'PY'
import sys, datetime
n, path = int(sys.argv[1]), sys.argv[2]
start = datetime.datetime(2024, 5, 1, tzinfo=datetime.timezone.utc)
# Tiananmen -> Langfang (39.52 N, 116.70 E) and back, as often as the points last: every leg crosses
# Dongcheng, several districts, the Beijing-Hebei border, and returns.
a, b = (39.9087, 116.3975), (39.5200, 116.7000)
leg = 2000
with open(path, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<gpx version="1.1" creator="Benchmarks/region-track-ab.sh" xmlns="http://www.topografix.com/GPX/1/1">\n'
            '<trk><name>generated</name><trkseg>\n')
    for i in range(n):
        k, j = divmod(i, leg)
        t = j / (leg - 1)
        if k % 2:
            t = 1 - t
        lat, lon = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
        when = (start + datetime.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        f.write(f'<trkpt lat="{lat:.6f}" lon="{lon:.6f}"><time>{when}</time></trkpt>\n')
    f.write('</trkseg></trk></gpx>\n')
PY
cat > "$work/regions.json" <<'JSON'
{
  "format": "offline-geocoder.regions",
  "version": 1,
  "hysteresis": { "margin": 25, "minimumDwell": 5 },
  "regions": [
    { "id": "tiananmen", "circle": { "latitude": 39.9087, "longitude": 116.3975, "radius": 300 } },
    { "id": "beijing-de", "area": { "level": "province", "name": "Peking" } },
    { "id": "hebei-en", "area": { "name": "Hebei" } },
    { "id": "langfang-zh", "area": { "level": "city", "name": "廊坊市" } },
    { "id": "dongcheng", "area": { "level": "district", "name": "东城区" } },
    { "id": "tianjin", "area": "city 120000" }
  ]
}
JSON

run() {  # run NAME BINARY: one measured run, its stdout kept to compare
    /usr/bin/time -f "$1 %U %S %e" -a -o "$work/times" "$2" track --gpx "$work/track.gpx" --speed max \
        --region "$work/regions.json" --data "$repo/Data" > "$work/out.$1"
}
"$a" track --gpx "$work/track.gpx" --speed max --region "$work/regions.json" --data "$repo/Data" > /dev/null
"$b" track --gpx "$work/track.gpx" --speed max --region "$work/regions.json" --data "$repo/Data" > /dev/null
for i in $(seq "$pairs"); do
    if [ $((i % 2)) -eq 1 ]; then run A "$a"; run B "$b"; else run B "$b"; run A "$a"; fi
    cmp -s "$work/out.A" "$work/out.B" || { echo "outputs differ (round $i)" >&2; exit 1; }
done
echo "points $points, lines of output $(wc -l < "$work/out.A"), events $(grep -c -E 'entered|exited' "$work/out.A" || true) entered/exited"
cat "$work/times"
python3 - "$work/times" <<'PY'
import sys, statistics
runs = {}
for line in open(sys.argv[1]):
    name, user, sys_, wall = line.split()
    runs.setdefault(name, []).append(float(user))
for name in sorted(runs):
    print(f"{name}: median user {statistics.median(runs[name]):.2f} s over {len(runs[name])} runs "
          f"(min {min(runs[name]):.2f}, max {max(runs[name]):.2f})")
PY
