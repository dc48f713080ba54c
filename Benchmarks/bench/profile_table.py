"""Where `geocode batch` spends its time: a perf profile's self samples grouped by pipeline stage.

    perf record -F 2000 -g -o P.data geocode batch -q -j 1 IN -o OUT
    python Benchmarks/bench/profile_table.py P.data [P2.data ...]

Prints a Markdown table: one column per profile, the share of samples of each stage. The stages are told
apart by symbol (Swift mangled names carry the type), e.g. `CSVFramer` is framing, `RecordDecoder`,
`CSVField.split`, `DecimalNumber` decoding, `RecordEncoder`, `CSVField.append`, `PlacemarkField.value`
encoding; engine symbols are the query unless they are loading ones (shapefile, cache, index build);
the kernel's page zeroing and file reads at start are load.
"""
import re
import subprocess
import sys

STAGES = [
    ("load (index cache, pages, hashing)", r"clear_page|folio_zero|pread|ContentHash|IndexCache|PolygonStore|inconsistency|"
     r"DatasetLoader|FileInMemory|ShapefileReader|SHA256|_copy_to_iter|PlacemarkSlots|CellIndexC4load|mmap|page_fault|"
     r"do_anonymous|filemap|Manifest|huge|memcg|lru_|rmqueue|get_page_from|alloc_pages|zap_|unmap|free_pages|release_pages"),
    ("engine query", r"ReverseGeocoder|GEOS|geos|__sin|__cos|sincos|atan|sqrt|QueryContext|LayerIndex|CellIndex|CrossingLists|EmptyMask|WGS84Grid|Datum"),
    ("reader: framing + chunk copy", r"CSVFramer|ByteInput|NDJSONFramer|GeoJSONFramer|ReaderJob"),
    ("decode (split, number parse, checks)", r"RecordDecoder|CSVField\w*5split|DecimalNumber|CoordinateCheck|CSVValue|strtod|____strtod|str_to_mpn|round_and_return"),
    ("encode (placemark columns, quoting, copies)", r"RecordEncoder|CSVField\w*6append|PlacemarkField|PlacemarkColumn|PlacemarkBytesCache|"
     r"JSONWriter|_StringGuts|String|Sa6append|ContiguousArrayBuffer|memmove|memcpy|Placemark"),
    ("per-row loop, chunk hand-off", r"ChunkProcessor|ChunkWindow|WorkQueue|BatchPipeline|ProcessedChunk|RawChunk|DecodedRecord|NSCondition|futex|pthread"),
    ("ARC + malloc/free", r"swift_retain|swift_release|RefCount|malloc|_int_free|cfree|free$|_int_malloc|swift_bridgeObject|swift_allocObject|swift_deallocObject|swift_arrayInit|swift_arrayDestroy|swift_beginAccess|swift_endAccess"),
    ("output write (kernel)", r"write|ext4|xfs|copy_folio|iov_iter|fsync|jbd2|block"),
]


def callgrind(path, rows):
    """Instructions per row of each stage, from a callgrind output file (self cost per function)."""
    out = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", path], capture_output=True, text=True).stdout
    shares = {name: 0.0 for name, _ in STAGES}
    shares["other"] = 0.0
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(\S+)", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        ir, sym = int(m.group(1).replace(",", "")), m.group(2).split(":", 1)[-1]
        for name, pattern in STAGES:
            if re.search(pattern, sym):
                shares[name] += ir / rows
                break
        else:
            shares["other"] += ir / rows
    return shares


def profile(path):
    out = subprocess.run(["perf", "report", "-i", path, "--no-children", "--sort", "symbol", "--stdio", "-g", "none",
                          "--percent-limit", "0"], capture_output=True, text=True).stdout
    shares = {name: 0.0 for name, _ in STAGES}
    shares["other"] = 0.0
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[[.k]\]\s+(\S+)", line)
        if not m:
            continue
        pct, sym = float(m.group(1)), m.group(2)
        for name, pattern in STAGES:
            if re.search(pattern, sym):
                shares[name] += pct
                break
        else:
            shares["other"] += pct
    return shares


def main():
    paths = sys.argv[1:]
    if paths and paths[0] == "--callgrind":
        # --callgrind ROWS LOAD FILE...: instructions per row by stage, beyond what the 1-row run LOAD
        # (the same binary, loading only) spends; LOAD is given once per FILE, as LOAD=FILE pairs.
        rows = int(paths[1])
        pairs = [p.split("=") for p in paths[2:]]
        tables = []
        for load, path in pairs:
            l, f = callgrind(load, rows), callgrind(path, rows)
            tables.append({k: f[k] - l[k] for k in f})
        print("| stage (instructions per row, beyond load) | " + " | ".join(p for _, p in pairs) + " |")
        print("|---|" + "---:|" * len(tables))
        for name in list(tables[0]) + ["total"]:
            print(f"| {name} | " + " | ".join(f"{(sum(t.values()) if name == 'total' else t[name]):,.0f}" for t in tables) + " |")
        return
    tables = [profile(p) for p in paths]
    print("| stage | " + " | ".join(paths) + " |")
    print("|---|" + "---:|" * len(paths))
    for name in list(tables[0]):
        print(f"| {name} | " + " | ".join(f"{t[name]:.1f} %" for t in tables) + " |")


if __name__ == "__main__":
    main()
