#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses (see README.md beside this file).
#
#   Tests/Fuzz/run.sh HARNESS SECONDS [libFuzzer flags...]   fuzz one harness for SECONDS of wall time
#   Tests/Fuzz/run.sh all SECONDS                            every harness in turn (the CI smoke run)
#   Tests/Fuzz/run.sh build [HARNESS...]                     build only
#   Tests/Fuzz/run.sh repro HARNESS FILE...                  run saved inputs once (a crash, a regression)
#   Tests/Fuzz/run.sh list                                   the harness names
#
# Environment: FUZZ_JOBS (harnesses run side by side by `all`, default 1), FUZZ_BUILD_DIR (default
# Tests/Fuzz/.build), FUZZ_NICE (niceness, default 10).
#
# Each harness is a Swift file in Harnesses/ with an LLVMFuzzerTestOneInput entry point, linked with the
# package's modules compiled by swiftc with -sanitize=fuzzer,address (coverage + AddressSanitizer). Seeds
# are in Corpus/HARNESS (committed); inputs the fuzzer finds go to .build/corpus/HARNESS, crashes to
# .build/artifacts/HARNESS. Every run appends a line (harness, wall s, CPU s, runs, result) to
# .build/runs.tsv: the CPU time a harness has run clean is the sum of its "clean" lines.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=${FUZZ_BUILD_DIR:-$HERE/.build}
NICE=${FUZZ_NICE:-10}
JOBS=${FUZZ_JOBS:-1}
HARNESSES=(nmea nmea-stream gpx gpsd manifest shapefile csv ndjson geojson)

# Modules each harness links, in dependency order.
modules_for() {
    case "$1" in
        nmea|nmea-stream|gpx|gpsd) echo "ReverseGeocoder LocationSources" ;;
        manifest|shapefile) echo "ReverseGeocoder" ;;
        csv|ndjson|geojson) echo "ReverseGeocoder LocationSources LocationKit GeocodeCLI" ;;
        *) echo "unknown harness '$1' (try: ${HARNESSES[*]})" >&2; exit 2 ;;
    esac
}

SWIFTC=${SWIFTC:-swiftc}
# The Swift runtime's own crash backtracer fights AddressSanitizer's; libFuzzer reports crashes itself.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$HERE/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# -O: speed is coverage. Bounds and overflow checks stay on (they are off only with -Ounchecked).
FLAGS=(-sanitize=fuzzer,address -O -g -swift-version 6 -parse-as-library -use-ld=lld
       -I "$B/modules" -I "$ROOT/Sources/CGEOS" -I "$ROOT/Sources/CShapelib")

# Rebuilds a module when its sources, the compiler or the flags changed (a hash of all three).
build_module() {
    local name=$1 dir="$ROOT/Sources/$1"; shift
    local deps=("$@")
    mkdir -p "$B/modules"
    local sources
    sources=$(find "$dir" -name '*.swift' | LC_ALL=C sort)
    local stamp
    stamp=$( { "$SWIFTC" --version 2>&1; echo "${FLAGS[*]}"; cat $sources; for d in "${deps[@]}"; do cat "$B/modules/$d.stamp"; done; } | sha256sum | cut -c1-16)
    if [ -f "$B/modules/$name.o" ] && [ "$(cat "$B/modules/$name.stamp" 2>/dev/null)" = "$name $stamp" ]; then return; fi
    echo "fuzz: compiling module $name" >&2
    # shellcheck disable=SC2086
    local threads=()
    [ "$JOBS" -gt 1 ] && threads=(-num-threads "$JOBS")   # LLVM code generation on several cores
    nice -n "$NICE" "$SWIFTC" "${FLAGS[@]}" "${threads[@]}" -enable-testing -wmo -module-name "$name" \
        -emit-module -emit-module-path "$B/modules/$name.swiftmodule" -c $sources -o "$B/modules/$name.o" \
        2> >(grep -v "warning:\|^ *[0-9]* |\|^ *|\|^\[#\|^$" >&2 || true)
    echo "$name $stamp" > "$B/modules/$name.stamp"
}

build() {
    local h=$1 mods objs=() libs=(-lgeos_c -lshp)
    mods=$(modules_for "$h")
    local done_mods=()
    for m in $mods; do build_module "$m" "${done_mods[@]}"; done_mods+=("$m"); objs+=("$B/modules/$m.o"); done
    local out="$B/bin/fuzz-$h" src=("$HERE/Harnesses/$h.swift" "$HERE/Support/FuzzSupport.swift")
    case "$h" in csv|ndjson|geojson) src+=("$HERE/Support/BatchSupport.swift") ;; esac
    mkdir -p "$B/bin"
    local newest
    newest=$(ls -t "${src[@]}" "${objs[@]}" | head -1)
    if [ -x "$out" ] && [ "$out" -nt "$newest" ]; then return; fi
    echo "fuzz: linking fuzz-$h" >&2
    nice -n "$NICE" "$SWIFTC" "${FLAGS[@]}" -module-name "Fuzz_${h//-/_}" "${src[@]}" \
        "${objs[@]}" "${libs[@]}" -o "$out" 2> >(grep -v "warning:\|^ *[0-9]* |\|^ *|\|^\[#\|^$" >&2 || true)
    [ -x "$out" ]
}

# Runs one harness; returns non-zero when it found a crash, a leak, a timeout or a broken invariant.
run() {
    local h=$1 seconds=$2; shift 2
    build "$h"
    local corpus="$B/corpus/$h" artifacts="$B/artifacts/$h" seeds="$HERE/Corpus/$h" log="$B/logs/$h.log"
    mkdir -p "$corpus" "$artifacts" "$B/logs"
    local dict=()
    [ -f "$HERE/Dictionaries/$h.dict" ] && dict=(-dict="$HERE/Dictionaries/$h.dict")
    local seedargs=()
    [ -d "$seeds" ] && seedargs=("$seeds")
    echo "fuzz: $h for ${seconds}s (log: $log)" >&2
    local status wall cpu TIMEFORMAT='%R %U %S'
    # -timeout: an input that takes 10 s is a hang. -rss_limit_mb / -malloc_limit_mb: an input that makes
    # the code allocate absurdly (a header's "count" believed) is a bug too.
    { time {
        nice -n "$NICE" "$B/bin/fuzz-$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
            -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" "$@" \
            "$corpus" "${seedargs[@]}" > "$log" 2>&1 < /dev/null \
            && echo 0 > "$B/logs/$h.status" || echo $? > "$B/logs/$h.status"
    } 2>/dev/null ; } 2> "$B/logs/$h.time" || true
    status=$(cat "$B/logs/$h.status")
    wall=$(awk '{ printf "%.0f", $1 }' "$B/logs/$h.time")
    cpu=$(awk '{ printf "%.1f", $2 + $3 }' "$B/logs/$h.time")
    local runs
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    local result=clean
    [ "$status" -ne 0 ] && result="FAILED($status)"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$h" "$wall" "$cpu" "${runs:-?}" "$result" >> "$B/runs.tsv"
    if [ "$status" -ne 0 ]; then
        echo "fuzz: $h FAILED (exit $status) after ${cpu}s CPU; last lines of $log:" >&2
        grep -v '^#[0-9]' "$log" | tail -40 >&2
        ls -t "$artifacts" 2>/dev/null | head -3 | sed "s|^|fuzz: saved input: $artifacts/|" >&2
        return 1
    fi
    echo "fuzz: $h clean: ${runs:-?} runs, ${cpu}s CPU" >&2
}

cmd=${1:-}
case "$cmd" in
    list) printf '%s\n' "${HARNESSES[@]}" ;;
    build)
        shift
        for h in "${@:-${HARNESSES[@]}}"; do build "$h"; done ;;
    repro)
        h=$2; shift 2
        build "$h"
        "$B/bin/fuzz-$h" -runs=1 "$@" ;;
    all)
        seconds=${2:?usage: run.sh all SECONDS}
        # Modules first (a dependency chain), then the harnesses, linked FUZZ_JOBS at a time.
        build csv
        pids=()
        for h in "${HARNESSES[@]}"; do
            while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done
            build "$h" & pids+=($!)
        done
        for pid in "${pids[@]}"; do wait "$pid"; done
        failed=()
        if [ "$JOBS" -le 1 ]; then
            for h in "${HARNESSES[@]}"; do run "$h" "$seconds" || failed+=("$h"); done
        else
            pids=() names=()
            for h in "${HARNESSES[@]}"; do
                while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.5; done
                run "$h" "$seconds" & pids+=($!); names+=("$h")
            done
            for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed+=("${names[$i]}"); done
        fi
        n=${#HARNESSES[@]}
        if [ "${#failed[@]}" -eq 0 ]; then
            echo "fuzz: all $n harnesses ran ${seconds}s clean"
        else
            echo "fuzz: ${#failed[@]} of $n harnesses FAILED: ${failed[*]} (inputs in $B/artifacts)"
            exit 1
        fi ;;
    ""|-h|--help) sed -n '2,18p' "$0" ;;
    *)
        seconds=${2:?usage: run.sh HARNESS SECONDS}
        shift 2
        run "$cmd" "$seconds" "$@" ;;
esac
