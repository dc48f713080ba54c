#!/usr/bin/env bash
# GPX at any size (issue 18): generates a GPX track of POINTS points (default 1,000,000, about 100 MB)
# and plays it twice, printing the file size, the points played and the peak RSS (/usr/bin/time -v):
#   1. `gpx-play` (Benchmarks/gpx-play): GPXPlaybackSource alone, as fast as possible.
#      Goal: every point played, peak RSS <= 100 MB, whatever the file size.
#   2. the CLI end to end, `geocode track --gpx FILE --speed max --json` (parse, playback,
#      LocationManager, a placemark per fix), beside the same command on a 1,000-point file: that
#      is the baseline, the geocoder's datasets mapped from the warm index cache (about 180 MB).
#      Goal: every point played (one location and one placemark line each), peak RSS at most
#      100 MB over the baseline. Prints CPU time and points per CPU second.
#
# Measured on 2026-12-01 (2 shared cores, load average 11-12, warm cache), 1 M points:
#   before: peak 466 MB (baseline 172 MB), 15 min 48 s wall: the manager's .unbounded `updates`
#           stream queued every event ahead of the printer, and JSONSerialization(.sortedKeys)
#           took 87.5% of the CPU (perf). 100 k points with that binary: peak 209 MB (baseline
#           181 MB), 2 min 35 s wall, 91 s CPU, about 1,100 points per CPU second.
#   after:  peak 177 MB (baseline 176 MB), 36 s wall, 37.7 s CPU, about 26,500 points per CPU
#           second; 1,000,000 location + 1,000,000 placemark lines. (100 k points: 181 MB, 5.6 s
#           wall, 4.0 s CPU, output byte-identical to the old binary's, JSON and text.)
#           What is left (perf, 100 k points): GPX XML parsing ~35%, thread hand-offs (futex)
#           ~14%, opening the datasets ~11%, writing the JSON lines ~10%, the manager's per-fix
#           work with the engine lookup ~6%.
#
#   Benchmarks/gpx-large.sh [POINTS] [--data DIR] [--no-cli] [--cli-only]
#
# The track is a line of 1 Hz points in Beijing (inside the bundled china dataset), written into a
# temporary folder that is removed afterwards. Builds what is missing, in release mode.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
points=1000000
data=()
cli=1
player_run=1
while [ $# -gt 0 ]; do
    case "$1" in
        --data) data=(--data "$2"); shift 2 ;;
        --no-cli) cli=0; shift ;;
        --cli-only) player_run=0; shift ;;
        *) points=$1; shift ;;
    esac
done

cd "$repo"
player=$here/gpx-play/.build/release/gpx-play
[ $player_run -eq 0 ] || swift build -c release --package-path "$here/gpx-play" >&2
geocode=.build/release/geocode
[ $cli -eq 0 ] || [ -x "$geocode" ] || swift build -c release --product geocode >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
generate() {
python3 - "$1" "$2" <<'PY'
import sys, datetime
n, path = int(sys.argv[1]), sys.argv[2]
start = datetime.datetime(2024, 5, 1, tzinfo=datetime.timezone.utc)
with open(path, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<gpx version="1.1" creator="Benchmarks/gpx-large.sh" xmlns="http://www.topografix.com/GPX/1/1">\n'
            '<trk><name>generated</name><trkseg>\n')
    for i in range(n):
        t = (start + datetime.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        # 0.2 m steps along a 20 km line, back and forth, so every point stays inside Beijing.
        k = i % 200000
        k = k if (i // 200000) % 2 == 0 else 200000 - k
        f.write('<trkpt lat="%.7f" lon="%.7f"><ele>%.1f</ele><time>%s</time><hdop>0.9</hdop></trkpt>\n'
                % (39.85 + k * 1e-6, 116.30 + k * 1e-6, 50 + i % 7, t))
    f.write('</trkseg></trk>\n</gpx>\n')
PY
}
gpx=$work/track.gpx
generate "$points" "$gpx"
bytes=$(stat -c %s "$gpx")
echo "gpx-large: $points points, $bytes bytes ($((bytes / 1000000)) MB)"

rss_kb() { awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$1"; }
wall() { awk '/Elapsed \(wall clock\)/ {print $NF}' "$1"; }
# user + system CPU seconds
cpu() { awk -F: '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$1"; }

ok=1
if [ $player_run -eq 1 ]; then
/usr/bin/time -v "$player" "$gpx" > "$work/play.txt" 2> "$work/play-time.txt" || {
    echo "gpx-play failed:" >&2; cat "$work/play-time.txt" >&2; exit 1; }
played=$(awk '/^played/ {print $2}' "$work/play.txt")
rss=$(rss_kb "$work/play-time.txt")
echo "gpx-large: GPXPlaybackSource: played $played, peak RSS $((rss / 1024)) MB ($rss kB), wall $(wall "$work/play-time.txt")"
sed 's/^/gpx-large:   /' "$work/play.txt" | grep -v played
[ "$played" -eq "$points" ] || { echo "gpx-large: FAIL: $played of $points points played" >&2; ok=0; }
[ "$rss" -le $((100 * 1024)) ] || { echo "gpx-large: FAIL: peak RSS over 100 MB" >&2; ok=0; }
fi

if [ $cli -eq 1 ]; then
    small=$work/small.gpx
    generate 1000 "$small"
    for f in "$small" "$gpx"; do
        n=$([ "$f" = "$small" ] && echo 1000 || echo "$points")
        /usr/bin/time -v "$geocode" track --gpx "$f" --speed max --json "${data[@]}" > "$work/events.ndjson" 2> "$work/cli-time.txt" || {
            echo "geocode track failed:" >&2; tail -20 "$work/cli-time.txt" >&2; exit 1; }
        played=$(grep -c '"event":"location"' "$work/events.ndjson" || true)
        placemarks=$(grep -c '"event":"placemark"' "$work/events.ndjson" || true)
        rss=$(rss_kb "$work/cli-time.txt")
        seconds=$(cpu "$work/cli-time.txt")
        rate=$(awk -v n="$n" -v s="$seconds" 'BEGIN { printf "%d", (s > 0 ? n / s : 0) }')
        echo "gpx-large: geocode track, $n points: played $played (placemarks $placemarks), peak RSS $((rss / 1024)) MB ($rss kB), wall $(wall "$work/cli-time.txt"), CPU ${seconds} s, $rate points per CPU second"
        [ "$played" -eq "$n" ] && [ "$placemarks" -eq "$n" ] || { echo "gpx-large: FAIL: the CLI played $played of $n points" >&2; ok=0; }
        if [ "$f" = "$small" ]; then
            baseline=$rss
        elif [ $((rss - baseline)) -gt $((100 * 1024)) ]; then
            echo "gpx-large: FAIL: the CLI grew $(((rss - baseline) / 1024)) MB over its 1,000-point baseline (limit 100 MB)" >&2; ok=0
        fi
    done
fi
[ $ok -eq 1 ] && echo "gpx-large: ok"
[ $ok -eq 1 ]
