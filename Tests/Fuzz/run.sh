#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses (see README.md beside this file).
#
#   Tests/Fuzz/run.sh HARNESS SECONDS [libFuzzer flags...]   fuzz one harness for SECONDS of wall time
#   Tests/Fuzz/run.sh all SECONDS                            every harness in turn, fuzzing
#   Tests/Fuzz/run.sh seeds                                  every harness over its seed corpus
#   Tests/Fuzz/run.sh smoke SECONDS                          seeds, then SECONDS of fuzzing per harness (CI)
#   Tests/Fuzz/run.sh build [HARNESS...]                     build only
#   Tests/Fuzz/run.sh repro HARNESS FILE...                  run saved inputs once (a crash, a regression)
#   Tests/Fuzz/run.sh list                                   the harness names
#
# Environment: FUZZ_JOBS (harnesses built, or fuzzed, side by side by `all`, `seeds` and `smoke`; default
# 1), FUZZ_BUILD_DIR (default Tests/Fuzz/.build), FUZZ_NICE (niceness, default 10).
#
# Each harness is a Swift file in Harnesses/ with an LLVMFuzzerTestOneInput entry point, linked with the
# package's modules compiled by swiftc with -sanitize=fuzzer,address (coverage + AddressSanitizer). Seeds
# are in Corpus/HARNESS (committed); inputs the fuzzer finds go to .build/corpus/HARNESS, crashes to
# .build/artifacts/HARNESS. Every run appends a line (harness, wall s, CPU s, runs, result) to
# .build/runs.tsv: the CPU time a harness has run clean is the sum of its "clean" lines (and "paused"
# ones: a run that ended when its fuzzer was stopped for 10 s or more, see run()).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=${FUZZ_BUILD_DIR:-$HERE/.build}
NICE=${FUZZ_NICE:-10}
JOBS=${FUZZ_JOBS:-1}
BUILD_THREADS=${FUZZ_BUILD_THREADS:-$(nproc)}
HARNESSES=(nmea nmea-stream gpx gpsd manifest shapefile index-cache csv ndjson geojson)

# Modules each harness links, in dependency order.
modules_for() {
    case "$1" in
        nmea|nmea-stream|gpx|gpsd) echo "GeoModel LocationSources" ;;
        manifest|shapefile|index-cache) echo "GeoModel CSHA256 CHotPath ReverseGeocoder" ;;
        csv|ndjson|geojson) echo "GeoModel CSHA256 CHotPath ReverseGeocoder LocationSources CCurlLoader LocationKit GeocodeCLI TestSupport" ;;
        *) echo "unknown harness '$1' (try: ${HARNESSES[*]})" >&2; exit 2 ;;
    esac
}

# Each module's own dependencies, as in Package.swift. A module's build stamp hashes these modules' stamps,
# so it is the same whichever harness asks for it: a stamp built from the harness's preceding modules
# instead made LocationSources rebuild each time the harness group changed (five -O compiles a CI run).
module_deps() {
    case "$1" in
        GeoModel|CCurlLoader|CSHA256|CHotPath) echo "" ;;
        ReverseGeocoder) echo "GeoModel CSHA256 CHotPath" ;;
        LocationSources) echo "GeoModel" ;;
        LocationKit) echo "GeoModel LocationSources CCurlLoader" ;;
        GeocodeCLI) echo "GeoModel ReverseGeocoder LocationSources LocationKit" ;;
        TestSupport) echo "GeoModel ReverseGeocoder GeocodeCLI" ;;
        *) echo "module_deps: unknown module '$1'" >&2; exit 2 ;;
    esac
}

SWIFTC=${SWIFTC:-swiftc}
CLANG=${CLANG:-$(dirname "$(command -v "$SWIFTC")")/clang}
LLD=${LLD:-$(dirname "$(command -v "$SWIFTC")")/ld.lld}
# The Swift runtime's own crash backtracer fights AddressSanitizer's; libFuzzer reports crashes itself.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$HERE/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# -O: speed is coverage. Bounds and overflow checks stay on (they are off only with -Ounchecked).
FLAGS=(-sanitize=fuzzer,address -O -g -swift-version 6 -parse-as-library -use-ld=lld -package-name OfflineGeocoder
       -I "$B/modules" -I "$ROOT/Sources/CGEOS" -I "$ROOT/Sources/CShapelib" -I "$ROOT/Sources/CZlib" -I "$ROOT/Sources/CZstd"
       -I "$ROOT/Sources/CCurlLoader/include" -I "$ROOT/Sources/CSHA256/include"
       -I "$ROOT/Sources/CHotPath/include")

# Rebuilds a module when its sources, the compiler or the flags changed (a hash of all three).
# Our C targets (LocationKit's libcurl loader, the SHA-256 instructions, the query path's thread slot):
# compiled with clang, instrumented like the rest.
build_c_module() {
    local name=$1 dir="$ROOT/Sources/$1" stamp
    mkdir -p "$B/modules"
    stamp=$( { cat "$dir"/*.c "$dir"/include/*.h; echo "$CLANG"; } | sha256sum | cut -c1-16)
    if [ -f "$B/modules/$name.o" ] && [ "$(cat "$B/modules/$name.stamp" 2>/dev/null)" = "$name $stamp" ]; then return; fi
    echo "fuzz: compiling C module $name" >&2
    nice -n "$NICE" "$CLANG" -O1 -g -fsanitize=fuzzer-no-link,address -I "$dir/include" -c "$dir"/*.c -o "$B/modules/$name.o"
    echo "$name $stamp" > "$B/modules/$name.stamp"
}

build_module() {
    local name=$1 dir="$ROOT/Sources/$1"; shift
    [ -f "$dir/include/module.modulemap" ] && { build_c_module "$name"; return; }
    # The test support module (the grid double the batch harnesses use) lives beside the tests.
    [ "$name" = TestSupport ] && dir="$ROOT/Tests/TestSupport"
    local deps=("$@")
    mkdir -p "$B/modules"
    local sources
    sources=$(find "$dir" -name '*.swift' | LC_ALL=C sort)
    # FUZZ_ONONE_MODULES (CI: the facade and the CLI): built unoptimized, a fraction of their -O compile.
    # Not the engine or the parsers: at -Onone one shapefile seed took 14.5 s of CPU, past libFuzzer's
    # 10-second hang limit (at -O the seeds replay within it).
    local flags=("${FLAGS[@]}")
    case " ${FUZZ_ONONE_MODULES:-} " in *" $name "*) flags=("${flags[@]/#-O/-Onone}") ;; esac
    local stamp
    stamp=$( { "$SWIFTC" --version 2>&1; echo "${flags[*]}"; cat $sources; for d in "${deps[@]}"; do cat "$B/modules/$d.stamp"; done; } | sha256sum | cut -c1-16)
    if [ -f "$B/modules/$name.o" ] && [ "$(cat "$B/modules/$name.stamp" 2>/dev/null)" = "$name $stamp" ]; then return; fi
    echo "fuzz: compiling module $name" >&2
    # -num-threads: whole-module optimisation, but code generation on FUZZ_BUILD_THREADS threads (the CI's
    # fuzz build is a chain of modules, so one thread would leave a core idle). With threads, -wmo writes
    # one object file per source, named by an output file map; they are linked into one relocatable
    # $name.o so the harnesses link one file per module.
    local objdir="$B/modules/$name.objs" map="$B/modules/$name.map.json" f n=0
    rm -rf "$objdir"; mkdir -p "$objdir"
    # Numbered, since two folders may hold files of the same name.
    { echo "{"; for f in $sources; do
        [ $n = 0 ] || echo ","; n=$((n + 1))
        printf '"%s": {"object": "%s/%d-%s.o"}' "$f" "$objdir" "$n" "$(basename "$f" .swift)"
    done; echo "}"; } > "$map"
    # shellcheck disable=SC2086
    nice -n "$NICE" "$SWIFTC" "${flags[@]}" -num-threads "$BUILD_THREADS" -enable-testing -wmo -module-name "$name" \
        -emit-module -emit-module-path "$B/modules/$name.swiftmodule" -c $sources -output-file-map "$map" \
        2> >(grep -v "warning:\|^ *[0-9]* |\|^ *|\|^\[#\|^$" >&2 || true)
    "$LLD" -r "$objdir"/*.o -o "$B/modules/$name.o"
    echo "$name $stamp" > "$B/modules/$name.stamp"
}

build() {
    local h=$1 mods objs=() libs=(-lgeos_c -lshp -lz -lzstd -ldl)
    mods=$(modules_for "$h")
    for m in $mods; do build_module "$m" $(module_deps "$m"); objs+=("$B/modules/$m.o"); done
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

# Runs one harness; returns non-zero when it found a crash, a leak, a hang or a broken invariant.
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
    runs=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    local result=clean
    if [ "$status" -eq 70 ] && replays_in_time "$h" "$log"; then
        # libFuzzer's -timeout counts wall time: a fuzzer stopped (SIGSTOP, as while someone benchmarks)
        # or starved for 10 s "times out" on whatever input it was running. That input replays in time,
        # so it is no hang: the run ends there, without a finding (see runs.tsv: "paused").
        echo "fuzz: $h: timeout after ${cpu}s CPU, but the input replays within the limit: the fuzzer was" \
             "stopped or starved, not hung; not a finding" >&2
        rm -f "$(saved_input "$log")"
        status=0 result=paused
    fi
    [ "$status" -ne 0 ] && result="FAILED($status)"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$h" "$wall" "$cpu" "${runs:-?}" "$result" >> "$B/runs.tsv"
    if [ "$status" -ne 0 ]; then
        echo "fuzz: $h FAILED (exit $status) after ${cpu}s CPU; last lines of $log:" >&2
        grep -v '^#[0-9]' "$log" | tail -40 >&2
        report_input "$h" "$log"
        return 1
    fi
    echo "fuzz: $h $result: ${runs:-?} runs, ${cpu}s CPU" >&2
}

# The input libFuzzer saved when a run failed (its "Test unit written to" line), or nothing.
saved_input() {
    grep -a -o 'Test unit written to .*' "$1" | tail -1 | sed 's/^Test unit written to //' || true
}

# Whether the input that "timed out" in a run runs within the same limit on its own.
replays_in_time() {
    local h=$1 saved
    saved=$(saved_input "$2")
    [ -n "$saved" ] && [ -f "$saved" ] && nice -n "$NICE" "$B/bin/fuzz-$h" -runs=1 -timeout=10 -rss_limit_mb=2048 \
        -malloc_limit_mb=1024 "$saved" > "$2.replay" 2>&1 < /dev/null
}

# Names the input that made a run fail (libFuzzer's "Test unit written to" line) and, when it is small,
# prints it in base64 too: a CI machine's build folder is gone after the run, its log is not.
report_input() {
    local h=$1 log=$2 saved
    saved=$(saved_input "$log")
    if [ -z "$saved" ] || [ ! -f "$saved" ]; then
        echo "fuzz: $h: no input saved (see $log)" >&2
        return
    fi
    echo "fuzz: $h: saved input: $saved ($(wc -c < "$saved") bytes); replay: Tests/Fuzz/run.sh repro $h $saved" >&2
    if [ "$(wc -c < "$saved")" -le 65536 ]; then
        echo "fuzz: $h: the input in base64 (base64 -d > FILE):" >&2
        base64 -w 0 "$saved" >&2
        echo >&2
    fi
}

# Builds every harness: the modules first (a dependency chain), then the harnesses, FUZZ_JOBS at a time.
build_all() {
    build csv
    local pids=() pid
    for h in "${HARNESSES[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done
        build "$h" & pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
}

# Runs every harness once over its committed seed corpus (libFuzzer -runs=0 executes the inputs given
# and stops): every input that ever found a bug, checked deterministically. Prints the failed names.
replay_seeds() {
    mkdir -p "$B/logs"
    local h failed=()
    for h in "${HARNESSES[@]}"; do
        mkdir -p "$B/artifacts/$h"
        if "$B/bin/fuzz-$h" -runs=0 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
            -artifact_prefix="$B/artifacts/$h/" "$HERE/Corpus/$h" > "$B/logs/$h.seeds.log" 2>&1 < /dev/null; then
            echo "fuzz: $h seeds clean ($(ls "$HERE/Corpus/$h" | wc -l) inputs)" >&2
        else
            echo "fuzz: $h FAILED on its seeds; last lines of $B/logs/$h.seeds.log:" >&2
            grep -v '^#[0-9]' "$B/logs/$h.seeds.log" | tail -30 >&2
            report_input "$h" "$B/logs/$h.seeds.log"
            failed+=("$h")
        fi
    done
    echo "${failed[*]}"
}

# Fuzzes every harness for SECONDS, FUZZ_JOBS side by side. Prints the failed names.
fuzz_all() {
    local seconds=$1 h i failed=()
    if [ "$JOBS" -le 1 ]; then
        for h in "${HARNESSES[@]}"; do run "$h" "$seconds" || failed+=("$h"); done
    else
        local pids=() names=()
        for h in "${HARNESSES[@]}"; do
            while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.5; done
            run "$h" "$seconds" & pids+=($!); names+=("$h")
        done
        for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed+=("${names[$i]}"); done
    fi
    echo "${failed[*]}"
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
    seeds)
        # Deterministic: build every harness, then run each once over its committed seed corpus.
        build_all
        failed=$(replay_seeds)
        if [ -z "$failed" ]; then
            echo "fuzz: all ${#HARNESSES[@]} harnesses pass their seed corpora"
        else
            echo "fuzz: harnesses FAILED on their seeds: $failed"
            exit 1
        fi ;;
    smoke)
        # CI: the seeds (deterministic), then SECONDS of random fuzzing per harness, FUZZ_JOBS side by
        # side, starting from the seeds (and from .build/corpus when a developer has one). A failure
        # names the harness and the input, in base64 too, to replay with `run.sh repro`.
        seconds=${2:?usage: run.sh smoke SECONDS}
        build_all
        failed=$(replay_seeds)
        if [ -n "$failed" ]; then
            echo "fuzz: harnesses FAILED on their seeds: $failed (fix these first; no random fuzzing run)"
            exit 1
        fi
        failed=$(fuzz_all "$seconds")
        n=${#HARNESSES[@]}
        if [ -z "$failed" ]; then
            echo "fuzz: smoke: all $n harnesses pass their seeds and ran ${seconds}s of fuzzing clean"
        else
            echo "fuzz: smoke: random fuzzing found a failing input in: $failed (the input is named above;"
            echo "fuzz: smoke: it is new, not a seed: reproduce it with Tests/Fuzz/run.sh repro HARNESS FILE)"
            exit 1
        fi ;;
    all)
        seconds=${2:?usage: run.sh all SECONDS}
        build_all
        failed=$(fuzz_all "$seconds")
        n=${#HARNESSES[@]}
        if [ -z "$failed" ]; then
            echo "fuzz: all $n harnesses ran ${seconds}s clean"
        else
            echo "fuzz: harnesses FAILED: $failed (inputs in $B/artifacts)"
            exit 1
        fi ;;
    ""|-h|--help) sed -n '2,19p' "$0" ;;
    *)
        seconds=${2:?usage: run.sh HARNESS SECONDS}
        shift 2
        run "$cmd" "$seconds" "$@" ;;
esac
