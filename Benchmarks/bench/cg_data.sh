# Sourced by the callgrind scripts (query_cg.sh, overlay_cg.sh, overlay_speed_cg.sh): which data they
# measure, said before the figures. A count is only comparable with one made on the same data, and a
# manifest picked up from some scratch copy once made two branches' counts differ by the data alone.
#   cg_data_dir [DIR]      sets CG_DATA to DIR (default: this repository's Data/), absolute, and prints
#                          it with the git commit it is at, the commit that last changed it, and
#                          "+ uncommitted changes" when it differs from that
#   cg_manifest NAME|PATH  prints the manifest of dataset NAME in CG_DATA (a path must lie inside CG_DATA)
#   cg_manifests LIST      the same for a comma-separated list
#   cg_bench_args ARGS...  geocode-bench options: takes `--data DIR` out (cg_data_dir), resolves the
#                          datasets of `--manifest` and `--overlay` in it; the result in the array CG_ARGS
# Also exports SWIFT_DETERMINISTIC_HASHING=1 for the measured process: with Swift's per-process hash
# seed the same binary's count moved by up to ±5 instructions a query between runs.
export SWIFT_DETERMINISTIC_HASHING=1

cg_data_dir() {
    local dir=${1:-$(dirname "${BASH_SOURCE[0]}")/../../Data}
    if [ ! -d "$dir" ]; then echo "data directory $dir: no such directory" >&2; exit 2; fi
    CG_DATA=$(cd "$dir" && pwd -P)
    local commit state=""
    if commit=$(git -C "$CG_DATA" rev-parse --short HEAD 2>/dev/null); then
        [ -n "$(git -C "$CG_DATA" status --porcelain -- . 2>/dev/null)" ] && state=" + uncommitted changes"
        echo "data: $CG_DATA (git $commit, last changed in $(git -C "$CG_DATA" log -1 --format=%h -- .)$state)"
    else
        echo "data: $CG_DATA (not in a git repository)"
    fi
}

cg_manifest() {
    local m=$1 path
    case $m in
        */*) path=$(realpath -m "$m") ;;
        *) path=$CG_DATA/$m ;;
    esac
    [ -d "$path" ] && path=$path/manifest.json
    case $path in
        "$CG_DATA"/*) ;;
        *) echo "manifest $m is outside the data directory $CG_DATA (give a dataset name, or --data DIR)" >&2; exit 2 ;;
    esac
    if [ ! -f "$path" ]; then echo "manifest $m: no file $path" >&2; exit 2; fi
    echo "$path"
}

cg_manifests() {
    local out="" m IFS=,
    for m in $1; do out=${out:+$out,}$(cg_manifest "$m") || exit 2; done
    echo "$out"
}

cg_bench_args() {
    local data= a
    local -a rest=()
    while [ $# -gt 0 ]; do
        if [ "$1" = --data ]; then data=$2; shift 2; else rest+=("$1"); shift; fi
    done
    cg_data_dir "$data"
    CG_ARGS=()
    set -- "${rest[@]}"
    while [ $# -gt 0 ]; do
        case $1 in
            --manifest) a=$(cg_manifest "$2") || exit 2; CG_ARGS+=(--manifest "$a"); shift 2 ;;
            --overlay) a=$(cg_manifests "$2") || exit 2; CG_ARGS+=(--overlay "$a"); shift 2 ;;
            *) CG_ARGS+=("$1"); shift ;;
        esac
    done
}
