import Foundation
import Testing
@testable import ReverseGeocoder

/// The reader's validity shortcut must never say "valid" where GEOS says invalid (it may leave a valid
/// ring to GEOS). Oracle: GEOS's `isValid` on the same polygon (the ring as its shell, no holes).
///
/// - Real rings: every ring of the bundled China provinces and world countries (≈ 0.4 M vertices).
/// - Constructed rings: random rings on a 5 × 5 integer grid, where collinear edges, spikes, touching
///   vertices, crossings and repeated points are common, the same moved by 1e-14 ... 1e-9 (the near-
///   degenerate cases), and named invalid shapes (bow-tie, spike, self-touch at a vertex, a vertex on
///   an edge, an edge folded back on itself, a ring not closed, a NaN).
struct SimpleRingProofTests {
    private static func geosValid(_ ring: [Double], _ context: GEOSContext) throws -> Bool {
        try Geometry.polygon(rings: [ring], context: context).isValid
    }

    @Test func provesOnlyWhatGEOSCallsValidOnRealRings() throws {
        let context = try GEOSContext()
        let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")
        var rings = 0, proved = 0
        for file in ["china/china_province.shp", "world/world_country.shp"] {
            let reader = try ShapefileReader(url: data.appendingPathComponent(file))
            for record in 0..<reader.recordCount {
                for ring in try reader.rings(record: record) ?? [] where ring.count >= 8 {
                    rings += 1
                    guard SimpleRingProof.provesValid(ring) else { continue }
                    proved += 1
                    if try !Self.geosValid(ring, context) { Issue.record("\(file) record \(record): proved, GEOS says invalid") }
                }
            }
        }
        // Not vacuous: it proves nearly every real ring (that is what saves GEOS's work).
        #expect(rings > 1_000 && Double(proved) > 0.9 * Double(rings), "proved \(proved) of \(rings)")
    }

    @Test func provesOnlyWhatGEOSCallsValidOnConstructedRings() throws {
        let context = try GEOSContext()
        var rng = SplitMix64(seed: 19)
        var proved = 0, geosInvalid = 0, tried = 0
        func check(_ ring: [Double], _ what: String) throws {
            tried += 1
            let valid = try Self.geosValid(ring, context)
            if !valid { geosInvalid += 1 }
            if SimpleRingProof.provesValid(ring) {
                proved += 1
                if !valid { Issue.record("\(what) \(ring): proved, GEOS says invalid") }
            }
        }
        for _ in 0..<20_000 {
            let n = 3 + Int(rng.next() % 7)
            var ring: [Double] = []
            for _ in 0..<n { ring += [Double(rng.next() % 5), Double(rng.next() % 5)] }
            ring += ring[0..<2]
            try check(ring, "grid ring")
            // Moved by a hair: near-touching, near-collinear.
            let hair = pow(10, -14 + 5 * rng.unitInterval())
            var moved = ring
            for k in 0..<(moved.count - 2) where rng.next() % 2 == 0 { moved[k] += (rng.unitInterval() - 0.5) * hair }
            moved[moved.count - 2] = moved[0]; moved[moved.count - 1] = moved[1]
            try check(moved, "moved ring")
        }
        let named: [(String, [Double])] = [
            ("bow-tie", [0, 0, 2, 2, 2, 0, 0, 2, 0, 0]),
            ("spike", [0, 0, 4, 0, 4, 4, 2, 4, 2, 6, 2, 4, 0, 4, 0, 0]),
            ("self-touch at a vertex", [0, 0, 4, 0, 2, 2, 4, 4, 0, 4, 2, 2, 0, 0]),
            ("vertex on an edge", [0, 0, 4, 0, 4, 4, 2, 0, 0, 4, 0, 0]),
            ("edge folded back", [0, 0, 4, 0, 2, 0, 2, 3, 0, 0]),
            ("collinear overlap of non-adjacent edges", [0, 0, 3, 0, 3, 1, 1, 1, 1, 0, 2, 0, 2, -1, 0, -1, 0, 0]),
            ("repeated point", [0, 0, 4, 0, 4, 0, 4, 4, 0, 4, 0, 0]),
            ("not closed", [0, 0, 4, 0, 4, 4, 0, 4, 0, 1e-12]),
            ("NaN", [0, 0, 4, 0, .nan, 4, 0, 4, 0, 0]),
            ("crossing by 1e-15", [0, 0, 4, 0, 4, 4, 2, -1e-15, 0, 4, 0, 0]),
        ]
        for (what, ring) in named {
            #expect(!SimpleRingProof.provesValid(ring), "\(what)")
            if ring.allSatisfy(\.isFinite), ring.count >= 8, ring[0] == ring[ring.count - 2], ring[1] == ring[ring.count - 1] {
                try check(ring, what)
            }
        }
        #expect(SimpleRingProof.provesValid([0, 0, 4, 0, 4, 4, 2, 1e-9, 0, 4, 0, 0]), "a vertex 1e-9 off an edge is simple")
        #expect(proved > 2_000 && geosInvalid > 10_000, "tried \(tried), proved \(proved), GEOS invalid \(geosInvalid)")
    }

    /// The sweep's sort against the library's, on the shapes of input that take each of its paths: ends
    /// spread evenly (buckets of a few, by insertion), crowded into a hair's width (a bucket of hundreds,
    /// by the library's sort), all equal, and short. Sorted by the west end, and the same edges.
    @Test func theSweepsSortSortsEveryShapeOfInput() {
        var rng = SplitMix64(seed: 28)
        for round in 0..<200 {
            let n = round % 10 == 0 ? Int(rng.unitInterval() * 6) : 100 + Int(rng.unitInterval() * 3_000)
            var starts: [SimpleRingProof.EdgeStart] = (0..<n).map { i in
                let x: Double
                switch round % 4 {
                case 0: x = 100 + rng.unitInterval()
                case 1: x = rng.unitInterval() < 0.5 ? 1e-7 * rng.unitInterval() : 1 + rng.unitInterval()  // crowded
                case 2: x = 7  // all equal
                default: x = -50 + 100 * rng.unitInterval() * rng.unitInterval()  // skewed
                }
                return SimpleRingProof.EdgeStart(minX: x, edge: i)
            }
            let expected = starts.map(\.minX).sorted()
            starts.withUnsafeMutableBufferPointer { SimpleRingProof.sortByMinX($0) }
            #expect(starts.map(\.minX) == expected, "round \(round), \(n) edges: not sorted")
            #expect(Set(starts.map(\.edge)) == Set(0..<n), "round \(round), \(n) edges: edges lost or repeated")
        }
    }
}
