import Foundation
@testable import ReverseGeocoder

/// A seeded polygon coverage for exactness tests: an n × n grid of cells with jittered corners and
/// jittered, subdivided edges shared exactly between neighbours (no gaps, no overlaps), some cells with a
/// hole that a later "island" unit fills, and some units made of two non-touching cells (multipart).
struct SyntheticCoverage {
    /// Units in file order; each is a list of polygons, each polygon a list of rings (shell first).
    var units: [[[[(Double, Double)]]]] = []
    /// Every vertex of the grid and of the edge subdivisions: points exactly on borders.
    var borderPoints: [(Double, Double)] = []
    let minX: Double, minY: Double, maxX: Double, maxY: Double

    /// `wiggle`: how far (in cell steps, ±half of it) the subdivision points stray from the straight edge.
    /// Past about 1 / subdivisions a ring may cross itself, and the loader then repairs it into pieces.
    init(n: Int, seed: UInt64, origin: (Double, Double) = (100, 20), size: Double = 10, subdivisions: Int = 4, wiggle: Double = 0.1) {
        var rng = SplitMix64(seed: seed)
        let step = size / Double(n)
        minX = origin.0; minY = origin.1; maxX = origin.0 + size; maxY = origin.1 + size
        // Corners: interior ones jittered, boundary ones kept on the outer frame.
        var corner = [[(Double, Double)]](repeating: [], count: n + 1)
        for i in 0...n {
            for j in 0...n {
                let jx = (i > 0 && i < n) ? (rng.unitInterval() - 0.5) * step * 0.5 : 0
                let jy = (j > 0 && j < n) ? (rng.unitInterval() - 0.5) * step * 0.5 : 0
                corner[i].append((origin.0 + Double(i) * step + jx, origin.1 + Double(j) * step + jy))
            }
        }
        // Edge polylines, generated once and shared by both adjacent cells.
        var edges: [String: [(Double, Double)]] = [:]
        func edge(_ a: (Int, Int), _ b: (Int, Int)) -> [(Double, Double)] {
            let key = a < b ? "\(a)-\(b)" : "\(b)-\(a)"
            if let e = edges[key] { return a < b ? e : e.reversed() }
            let (p, q) = a < b ? (corner[a.0][a.1], corner[b.0][b.1]) : (corner[b.0][b.1], corner[a.0][a.1])
            var line = [p]
            for k in 1..<subdivisions {
                let t = Double(k) / Double(subdivisions)
                line.append((p.0 + (q.0 - p.0) * t + (rng.unitInterval() - 0.5) * step * wiggle,
                             p.1 + (q.1 - p.1) * t + (rng.unitInterval() - 0.5) * step * wiggle))
            }
            line.append(q)
            edges[key] = line
            return a < b ? line : line.reversed()
        }
        var cells: [[(Double, Double)]] = []
        for i in 0..<n {
            for j in 0..<n {
                // Clockwise: up the west side, east along the north, down the east, west along the south.
                var ring = edge((i, j), (i, j + 1))
                ring += edge((i, j + 1), (i + 1, j + 1)).dropFirst()
                ring += edge((i + 1, j + 1), (i + 1, j)).dropFirst()
                ring += edge((i + 1, j), (i, j)).dropFirst()
                cells.append(ring)
            }
        }
        for e in edges.values { borderPoints += e }

        var islands: [[[[(Double, Double)]]]] = []
        var taken = Set<Int>()
        for c in cells.indices where !taken.contains(c) {
            let i = c / n, j = c % n
            // Every 7th cell gets a diamond hole around its centre, filled by an island unit listed later.
            if c % 7 == 3 {
                let cx = origin.0 + (Double(i) + 0.5) * step, cy = origin.1 + (Double(j) + 0.5) * step, r = step * 0.15
                let hole = [(cx - r, cy), (cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)]  // counter-clockwise
                units.append([[cells[c], hole]])
                islands.append([[hole.reversed()]])
                borderPoints += hole
            } else if c % 11 == 5, j + 2 < n, !taken.contains(c + 2) {
                // Multipart: this cell and the one two rows up (they do not touch).
                units.append([[cells[c]], [cells[c + 2]]])
                taken.insert(c + 2)
            } else {
                units.append([[cells[c]]])
            }
            taken.insert(c)
        }
        units += islands
    }

    /// Writes the coverage as a shapefile with NAME = "u<index>" and CODE = "<index>".
    func write(to base: URL) -> URL {
        TestShapefile.write(base, fields: ["NAME", "CODE"], records: units.enumerated().map { k, polygons in
            TestShapefile.Record(rings: polygons.flatMap { $0 }, ["NAME": "u\(k)", "CODE": "\(k)"])
        })
    }

    /// WKT of a unit, every number printed so that it parses back to the identical double.
    func wkt(_ k: Int) -> String {
        func ring(_ r: [(Double, Double)]) -> String {
            "(" + r.map { "\($0.0.description) \($0.1.description)" }.joined(separator: ", ") + ")"
        }
        let polys = units[k].map { "(" + $0.map(ring).joined(separator: ", ") + ")" }
        return "MULTIPOLYGON(" + polys.joined(separator: ", ") + ")"
    }
}

extension SyntheticCoverage {
    /// Points for a GEOS brute-force comparison: `random` uniform points over the coverage grown by
    /// `margin` degrees, every `stride`-th border vertex moved by each of `offsets` along each axis (on and
    /// within a hair of the edges), and the midpoint of each such vertex's edge.
    func oraclePoints(seed: UInt64, random: Int, margin: Double, offsets: [Double], stride: Int) -> [(Double, Double)] {
        var rng = SplitMix64(seed: seed)
        var all: [(Double, Double)] = []
        for _ in 0..<random {
            all.append((minX - margin + rng.unitInterval() * (maxX - minX + 2 * margin),
                        minY - margin + rng.unitInterval() * (maxY - minY + 2 * margin)))
        }
        for (i, v) in borderPoints.enumerated() where i % stride == 0 {
            for dx in offsets { for dy in offsets where dx == 0 || dy == 0 { all.append((v.0 + dx, v.1 + dy)) } }
            let w = borderPoints[(i + 1) % borderPoints.count]
            all.append(((v.0 + w.0) / 2, (v.1 + w.1) / 2))
        }
        return all
    }

    /// The coverage written as a shapefile in a fresh test folder `name`, its manifest, and a cache folder
    /// beside it.
    func written(_ name: String) -> (DatasetManifest, URL) {
        let dir = TestShapefile.directory(name)
        let shp = write(to: dir.appendingPathComponent("cov"))
        return (TestShapefile.manifest("cov", file: shp), dir.appendingPathComponent("cache"))
    }

    /// Each point's unit number (the unit code the coverage writes), nil in none.
    static func units(_ g: ReverseGeocoder, _ points: [(Double, Double)]) throws -> [Int?] {
        try points.map { try g.placemark(latitude: $0.1, longitude: $0.0)?.administrativeAreaCode.flatMap { Int($0) } }
    }
}
