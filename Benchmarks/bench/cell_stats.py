"""Border-cell statistics of index cache files (issue 19's growth work): per layer with cells, the tree's
depth, border cells, crossing-list records, how many have no list (more than CrossingLists.maxListed
edges: GEOS decides their points), the edges per record, and the two-level nodes (how many sit right
below the top grid, the block a query reads first since cache format 15).

    python Benchmarks/bench/cell_stats.py CACHE_DIR_OR_FILE...

Reads the file's metadata (offset and length at header bytes 16 and 24), which since cache format 10 is
CompactEncoder's binary form (Sources/ReverseGeocoder/Storage/CompactEncoder.swift): every value a slot
(a UInt32 length, 0xFFFFFFFF for nil, then the bytes); a keyed container a UInt32 count, then per entry a
UInt32 key length, the key's UTF-8 and the value's slot; a list a UInt32 count, then the slots; integers
8 bytes. Then walks the `borders` section's records (word 1: bit 30 = no list, bit 29 = the cell's last
record, bits 0-15 = edge count; 4 header words + edges). Needs numpy.
"""
import glob
import os
import struct
import sys

import numpy as np

NIL = 0xFFFFFFFF


def slot(b: bytes, at: int):
    """The bytes of the slot at `at` (None for nil) and where the next slot begins."""
    (n,) = struct.unpack_from("<I", b, at)
    if n == NIL:
        return None, at + 4
    return b[at + 4:at + 4 + n], at + 4 + n


def keyed(b: bytes) -> dict:
    """A keyed container's entries: key -> the value's slot bytes (None for nil)."""
    (count,) = struct.unpack_from("<I", b, 0)
    at, out = 4, {}
    for _ in range(count):
        (k,) = struct.unpack_from("<I", b, at)
        key = b[at + 4:at + 4 + k].decode("utf-8")
        out[key], at = slot(b, at + 4 + k)
    return out


def unkeyed(b: bytes) -> list:
    (count,) = struct.unpack_from("<I", b, 0)
    at, out = 4, []
    for _ in range(count):
        value, at = slot(b, at)
        out.append(value)
    return out


def integer(b: bytes) -> int:
    return struct.unpack_from("<q", b, 0)[0]


def section(b: bytes) -> dict:
    return {k: integer(v) for k, v in keyed(b).items()}


def stats(path: str):
    b = open(path, "rb").read()
    off, ln = struct.unpack_from("<QQ", b, 16)
    meta, _ = slot(b, off)
    meta = keyed(meta)
    for i, layer in enumerate(unkeyed(meta["layers"])):
        cells = keyed(layer).get("cells")
        if not cells:
            continue
        c = keyed(cells)
        depth, top_levels, mixed = integer(c["depth"]), integer(c["topLevels"]), integer(c["mixedCells"])
        borders, nodes, top = section(c["borders"]), section(c["nodes"]), section(c["top"])
        words = np.frombuffer(b, dtype="<u4", count=borders["count"], offset=borders["offset"])
        r, counts, nolist = 0, [], 0
        while r < len(words):
            h = int(words[r + 1])
            cnt = h & 0xFFFF
            if h & (1 << 30):
                nolist += 1
            counts.append(cnt)
            r += 4 + cnt
        counts = np.array(counts) if counts else np.zeros(1, dtype=int)
        top_entries = np.frombuffer(b, dtype="<u4", count=top["count"], offset=top["offset"])
        first_level = int(np.count_nonzero(top_entries >> 30 == 0))
        print(f"{path} layer {i}: depth {depth} (top grid {top_levels} levels, {top['count'] * 4 / 1e6:.1f} MB), "
              f"border cells {mixed:,}, records {len(counts):,}, no list {nolist:,} "
              f"({100 * nolist / max(1, len(counts)):.2f} %), edges per record p50 {np.percentile(counts, 50):.0f} "
              f"p99 {np.percentile(counts, 99):.0f} max {counts.max()}; two-level nodes {nodes['count'] // 16:,} "
              f"({nodes['count'] * 4 / 1e6:.1f} MB), {first_level:,} right below the top grid "
              f"({first_level * 64 / 1e6:.1f} MB)")


for arg in sys.argv[1:]:
    for f in (sorted(glob.glob(os.path.join(arg, "*.geoidx"))) if os.path.isdir(arg) else [arg]):
        stats(f)
