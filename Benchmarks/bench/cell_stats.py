"""Border-cell statistics of index cache files (issue 19's growth work): per layer with cells, the tree's
depth, border cells, crossing-list records, how many have no list (more than CrossingLists.maxListed
edges: GEOS decides their points) and the edges per record.

    python Benchmarks/bench/cell_stats.py CACHE_DIR_OR_FILE...

Reads the file's metadata (JSON, offset and length at bytes 16 and 24) and walks the `borders` section's
records (word 1: bit 30 = no list, bits 0-15 = edge count; 4 header words + edges). Needs numpy.
"""
import json, sys, struct, glob, numpy as np
for path in sys.argv[1:]:
    f = glob.glob(path + "/*")[0] if not path.endswith(".idx") else path
    b = open(f, "rb").read()
    off, ln = struct.unpack_from("<QQ", b, 16)
    meta = json.loads(b[off:off+ln])
    for L in meta["layers"]:
        c = L.get("cells")
        if not c: continue
        bs = c["borders"]; words = np.frombuffer(b, dtype="<u4", count=bs["count"], offset=bs["offset"])
        r = 0; counts = []; nolist = 0
        n = len(words)
        while r < n:
            h = int(words[r+1]); cnt = h & 0xFFFF
            if h & (1 << 30): nolist += 1
            counts.append(cnt); r += 4 + cnt
        counts = np.array(counts)
        print(f"{path}: depth {c['depth']} border cells {c['mixedCells']:,} records {len(counts):,} noList {nolist:,} ({100*nolist/len(counts):.2f} %) edges per record p50 {np.percentile(counts,50):.0f} p99 {np.percentile(counts,99):.0f} max {counts.max()} nodes {c['nodes']['count']//16:,}")
