"""Inputs shared by every engine of the suite: the benchmark copy of a dataset's finest layer, its polygons
as WKB, seeded random points, and small helpers (answers files, peak RSS, JSON results).

Files in a dataset's work directory (Benchmarks/work/<run>/<dataset>/):
    layer/<name>.shp, .shx, .prj, .cpg   symlinks to the data directory's files: the very same polygons
    layer/<name>.dbf                      the original DBF with one column added, `bench_rec` = record number
    manifest.json                         the dataset's manifest reduced to that layer, with `bench_rec` as
                                          the code of the layer's level, so every engine answers a record number
    parts.wkb                             every polygon part as read by pyshp + shapely: (int32 rec, int32 len, WKB)
    units.json                            per record: name, code and country code, as the dataset's manifest maps them
    points.f64                            seeded points, float64 (x = longitude, y = latitude) pairs
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
import time

import numpy as np

BENCH_FIELD = "bench_rec"
# Manifest keys a one-layer bench dataset leaves out: its own layer and files replace them, the names table's
# path is relative to the source folder, and `completedBelow` names levels (province, city) the one layer
# does not have, which the engine refuses ("no layer of level province answers these units").
ONE_LAYER_DROPS = ("layers", "files", "names", "completedBelow")
LEVELS = ["country", "province", "city", "district"]


def log(msg: str):
    print(f"  {msg}", file=sys.stderr, flush=True)


def peak_rss_bytes(pid="self") -> int:
    """VmHWM: the peak resident set of this process's own address space. (ru_maxrss is not used: Linux
    carries it across exec, so a small engine started by the big orchestrator would report the latter.)"""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def read_manifest(dataset_dir: str) -> dict:
    with open(os.path.join(dataset_dir, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def finest_layer(manifest: dict) -> dict:
    return max(manifest["layers"], key=lambda layer: LEVELS.index(layer["level"]))


def candidates(spec) -> list[str]:
    if spec is None:
        return []
    return [spec] if isinstance(spec, str) else list(spec)


# ------------------------------------------------------------------------------------------------
# The benchmark layer: same .shp/.shx, DBF + record-number column
# ------------------------------------------------------------------------------------------------
def add_record_column(src_dbf: str, dst_dbf: str):
    """Copies a dBASE III file byte for byte and appends a character column `bench_rec` holding each
    record's number (0-based, the order every engine reads records in)."""
    with open(src_dbf, "rb") as f:
        raw = f.read()
    nrec, hdr_len, rec_len = struct.unpack("<IHH", raw[4:12])
    width = max(1, len(str(max(nrec - 1, 0))))
    fields_end = raw.index(b"\x0d", 32)
    desc = bytearray(32)
    desc[0:len(BENCH_FIELD)] = BENCH_FIELD.encode("ascii")
    desc[11] = ord("C")
    desc[16] = width
    new_hdr_len = fields_end + 32 + 1
    header = bytearray(raw[:fields_end]) + desc + b"\x0d"
    struct.pack_into("<IHH", header, 4, nrec, new_hdr_len, rec_len + width)
    out = bytearray(header)
    for i in range(nrec):
        start = hdr_len + i * rec_len
        out += raw[start:start + rec_len]
        out += str(i).ljust(width).encode("ascii")
    out += b"\x1a"
    with open(dst_dbf, "wb") as f:
        f.write(out)


def prepare_layer(dataset_dir: str, work: str) -> dict:
    """Builds work/layer/ and work/manifest.json for one dataset; returns a description."""
    manifest = read_manifest(dataset_dir)
    layer = finest_layer(manifest)
    shp = layer["file"] if os.path.isabs(layer["file"]) else os.path.join(dataset_dir, layer["file"])
    base = os.path.splitext(shp)[0]
    name = os.path.basename(base)
    ldir = os.path.join(work, "layer")
    os.makedirs(ldir, exist_ok=True)
    for ext in (".shp", ".shx", ".prj", ".cpg"):
        src = base + ext
        dst = os.path.join(ldir, name + ext)
        if os.path.lexists(dst):
            os.remove(dst)
        if os.path.exists(src):
            os.symlink(os.path.abspath(src), dst)
    add_record_column(base + ".dbf", os.path.join(ldir, name + ".dbf"))

    level = layer["level"]
    fields = {k: dict(v) for k, v in layer["fields"].items()}
    fields[level] = {"name": fields[level].get("name"), "code": BENCH_FIELD}
    if fields[level]["name"] is None:
        del fields[level]["name"]
    # Without the names table: its path is relative to the dataset's folder, not this one, and the
    # benchmark asks for codes, not translated names.
    bench_manifest = {k: v for k, v in manifest.items() if k not in ONE_LAYER_DROPS}
    bench_manifest["name"] = manifest["name"]
    bench_manifest["layers"] = [{"file": os.path.abspath(os.path.join(ldir, name + ".shp")), "level": level, "fields": fields}]
    # The engine checks each source file against the manifest's sha256 when it builds an index: the
    # original digests would not match the .dbf with the added column, so list this copy's own.
    bench_manifest["files"] = {}
    for ext in (".shp", ".shx", ".dbf", ".prj", ".cpg"):
        path = os.path.join(ldir, name + ext)
        if os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read()
            bench_manifest["files"][os.path.relpath(path, work)] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    with open(os.path.join(work, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(bench_manifest, f, ensure_ascii=False, indent=2)
    return {"manifest": manifest, "layer": layer, "shp": shp, "level": level,
            "bench_manifest": os.path.join(work, "manifest.json")}


# ------------------------------------------------------------------------------------------------
# Polygons as the peers see them
# ------------------------------------------------------------------------------------------------
def read_layer(shp: str, layer: dict, manifest: dict):
    """Reads a shapefile with pyshp (rings classified by winding, as the shapefile spec says) into shapely
    polygon parts. Returns (records, units): records[i] = list of polygon parts of record i (empty for a
    NULL shape), units[i] = {name, code, country} as the manifest's field candidates give them."""
    import shapefile  # pyshp
    import shapely
    from shapely.geometry import shape

    reader = shapefile.Reader(shp)
    names = [f.name for f in reader.fields[1:]]
    level = layer["level"]

    def first(rec, spec):
        for cand in candidates(spec):
            if cand in names:
                v = rec[names.index(cand)]
                v = "" if v is None else str(v).strip()
                if v:
                    return v
        return None

    cfields = layer["fields"].get("country", {})
    const_country = (manifest.get("constants") or {}).get("country", {})
    records, units = [], []
    for sr in reader.iterShapeRecords():
        geom = None
        if sr.shape.shapeType != shapefile.NULL and sr.shape.points:
            geom = shape(sr.shape.__geo_interface__)
        parts = list(shapely.get_parts(geom)) if geom is not None and not geom.is_empty else []
        records.append(parts)
        rec = sr.record
        lf = layer["fields"][level]
        units.append({
            "name": first(rec, lf.get("name")),
            "code": first(rec, lf.get("code")),
            "country": first(rec, cfields.get("code")) or const_country.get("code"),
        })
    return records, units


def write_parts(records, path: str) -> int:
    n = 0
    with open(path, "wb") as f:
        for rec, parts in enumerate(records):
            for p in parts:
                wkb = p.wkb
                f.write(struct.pack("<ii", rec, len(wkb)))
                f.write(wkb)
                n += 1
    return n


def read_parts(path: str):
    """-> (rec ids int32 array, list of WKB bytes), in file order (by record)."""
    with open(path, "rb") as f:
        raw = f.read()
    recs, blobs, at = [], [], 0
    while at + 8 <= len(raw):
        rec, n = struct.unpack_from("<ii", raw, at)
        recs.append(rec)
        blobs.append(raw[at + 8:at + 8 + n])
        at += 8 + n
    return np.array(recs, dtype=np.int32), blobs


def load_parts_shapely(path: str):
    import shapely
    recs, blobs = read_parts(path)
    return recs, shapely.from_wkb(np.array(blobs, dtype=object))


# ------------------------------------------------------------------------------------------------
# Points and answers
# ------------------------------------------------------------------------------------------------
def make_points(path: str, n: int, seed: int, bounds):
    minx, miny, maxx, maxy = bounds
    rng = np.random.default_rng(seed)
    xy = np.empty((n, 2), dtype="<f8")
    xy[:, 0] = rng.uniform(minx, maxx, n)
    xy[:, 1] = rng.uniform(miny, maxy, n)
    xy.tofile(path)


def read_points(path: str, limit: int | None = None):
    xy = np.fromfile(path, dtype="<f8").reshape(-1, 2)
    if limit is not None:
        xy = xy[:limit]
    return np.ascontiguousarray(xy[:, 0]), np.ascontiguousarray(xy[:, 1])


def write_answers(path: str, answers):
    np.asarray(answers, dtype="<i4").tofile(path)


def read_answers(path: str):
    return np.fromfile(path, dtype="<i4")


def first_per_point(n: int, pi, gi_rec):
    """From (point, record) hit pairs, each point's lowest record (-1 for none): the engine's rule for a
    point that several units hold."""
    ans = np.full(n, np.iinfo(np.int32).max, dtype=np.int64)
    np.minimum.at(ans, pi, gi_rec)
    ans[ans == np.iinfo(np.int32).max] = -1
    return ans.astype(np.int32)


def cpu_seconds() -> float:
    """CPU time of this process, all its threads (nanosecond clock), and of its waited-for children
    (user + system, clock ticks)."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


class Timer:
    """Wall time (`lap`), and CPU time beside it (`both`): CPU time does not grow while other work on a
    shared machine holds the cores, and over N busy threads it is the core time spent."""

    def __init__(self, cpu=cpu_seconds):
        self.cpu = cpu
        self.t = time.perf_counter()
        self.c = cpu()

    def lap(self) -> float:
        return self.both()[0]

    def both(self) -> tuple[float, float]:
        now, c = time.perf_counter(), self.cpu()
        d, self.t = now - self.t, now
        dc, self.c = c - self.c, c
        return d, dc
