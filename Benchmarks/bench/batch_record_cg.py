"""Per record, from batch_record_cg.sh's 20,000-row runs: ChunkProcessor.process, inclusive (decode,
lookup, encode; every chunk), and the framing (the framer's nextChunk, or its frameChunk where
nextChunk was inlined), by callgrind_annotate. Whole-run totals are no measure here: the thread
hand-offs move them by millions, and with the engine its background mask builds by far more.
  batch_record_cg.py OUTDIR TAG_A TAG_B"""
import re, subprocess, sys

PROCESS = r"\$s10GeocodeCLI14ChunkProcessorV7process_5cacheAA09ProcessedC0VAA03RawC0V_AA19PlacemarkBytesCacheVztF$"
FRAMING = [r"\$s10GeocodeCLI\d+\w+FramerC9nextChunk11targetBytes10maxRecords\w+KF$",
           r"\$s10GeocodeCLI\d+\w+FramerC10frameChunk\w+KF$"]

def inclusive(path):
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    costs = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\?\?\?:(\S+) \[", line)
        if m:
            costs[m.group(2)] = costs.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return costs

def measure(path):
    costs = inclusive(path)
    process = sum(v for k, v in costs.items() if re.match(PROCESS, k))
    framing = max(sum(v for k, v in costs.items() if re.match(p, k)) for p in FRAMING)
    return process / 20000, framing / 20000

out, a, b = sys.argv[1:4]
print(f"| input → output | process {a} | process {b} | Δ | framing {a} | framing {b} |")
print("|---|---:|---:|---:|---:|---:|")
for conf in ["csv-csv", "ndjson-ndjson", "geojson-csv", "geojson-ndjson"]:
    (pa, fa), (pb, fb) = measure(f"{out}/{a}-20k-{conf}.out"), measure(f"{out}/{b}-20k-{conf}.out")
    print(f"| {conf.replace('-', ' → ')} | {pa:,.0f} | {pb:,.0f} | {pb - pa:+.0f} | {fa:,.0f} | {fb:,.0f} |")
