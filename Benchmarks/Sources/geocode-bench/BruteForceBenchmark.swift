import CGEOS
import Foundation

/// The floor: no index. Every record's (multi)polygon, as the suite's Python side read it from the same
/// shapefile, is GEOS-prepared once; each point is tested against the records in file order with
/// prepared containsProperly (the first hit answers), then, for a point no interior holds, with prepared
/// intersects (the first record whose boundary holds it): the same rule as the engine. GEOS's prepared
/// predicates reject a point outside a polygon's envelope before any edge is looked at, so "every polygon
/// tested" costs at least one envelope check per polygon.
struct BruteForceBenchmark {
    let polygonsPath: String
    let pointsPath: String
    let limit: Int
    let answersPath: String?

    init(_ o: Options) throws {
        polygonsPath = try o.string("polygons")
        pointsPath = try o.string("points")
        limit = try o.int("limit", default: Int.max)
        answersPath = o.optional("answers")
    }

    func run() throws {
        guard let handle = GEOS_init_r() else { throw UsageError("GEOS_init_r failed") }
        defer { GEOS_finish_r(handle) }
        guard let data = FileManager.default.contents(atPath: polygonsPath) else { throw UsageError("cannot read \(polygonsPath)") }

        // File: repeated (int32 record, int32 length, WKB bytes), little-endian.
        var records: [Int32] = [], geometries: [OpaquePointer] = [], prepared: [OpaquePointer] = []
        let t0 = nowNanos()
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var at = 0
            while at + 8 <= raw.count {
                let rec = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self))
                let len = Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: Int32.self)))
                let bytes = raw.baseAddress!.advanced(by: at + 8).assumingMemoryBound(to: UInt8.self)
                guard let g = GEOSGeomFromWKB_buf_r(handle, bytes, len) else { throw UsageError("bad WKB for record \(rec)") }
                guard let p = GEOSPrepare_r(handle, g) else { throw UsageError("GEOSPrepare_r failed") }
                records.append(rec); geometries.append(g); prepared.append(p)
                at += 8 + len
            }
        }
        defer {
            for p in prepared { GEOSPreparedGeom_destroy_r(handle, p) }
            for g in geometries { GEOSGeom_destroy_r(handle, g) }
        }
        let load = Double(nowNanos() - t0) / 1e9

        let (xs, ys) = try readPoints(pointsPath, limit: limit)
        let n = xs.count
        func locate(_ i: Int) -> Int32 {
            guard let pt = GEOSGeom_createPointFromXY_r(handle, xs[i], ys[i]) else { fatalError("GEOS point") }
            defer { GEOSGeom_destroy_r(handle, pt) }
            for (k, p) in prepared.enumerated() where GEOSPreparedContainsProperly_r(handle, p, pt) == 1 { return records[k] }
            for (k, p) in prepared.enumerated() where GEOSPreparedIntersects_r(handle, p, pt) == 1 { return records[k] }
            return -1
        }
        // Warm-up: GEOS builds each prepared polygon's point locator on its first use; a point in no
        // polygon visits them all.
        let warmCount = min(n, 50)
        var t = nowNanos()
        for i in 0..<warmCount { _ = locate(i) }
        let warm = Double(nowNanos() - t) / 1e9

        var answers = [Int32](repeating: -1, count: n)
        let c = processCPUNanos()
        t = nowNanos()
        for i in 0..<n { answers[i] = locate(i) }
        let elapsed = Double(nowNanos() - t) / 1e9
        let cpu = Double(processCPUNanos() - c) / 1e9
        if let answersPath { try writeAnswers(answers, to: answersPath) }
        log("brute force: \(n) points in \(String(format: "%.3f", elapsed)) s over \(prepared.count) records")
        try printJSON([
            "engine": "brute",
            "records": prepared.count,
            "points": n,
            "found": answers.filter { $0 >= 0 }.count,
            "load_s": load,
            "warmup_s": warm,
            "single_s": elapsed,
            "single_pps": Double(n) / elapsed,
            "single_ns": elapsed * 1e9 / Double(n),
            "single_cpu_ns": cpu * 1e9 / Double(n),
            "peak_rss": peakRSSBytes(),
        ])
    }
}
