import Foundation
import Testing
@testable import ReverseGeocoder

/// Cache format 11: a border cell's tree entry holds the word where its records begin, and the cell's
/// last record carries ``CrossingLists/Record/lastFlag``; the query walks a cell's records from the entry
/// to that flag, without the border cell table. Checked here: every walk visits exactly the cell's
/// records, the answers through it are GEOS's (brute force, at random points and on and within
/// 1e-13…1e-6 of edges and vertices), and a file whose entries or flags are wrong, with valid
/// checksums, is damage both at load and on first use.
///
/// Oracle: ``ExactnessTests/BruteForce`` (every unit parsed from WKT, plain GEOS predicates, the
/// documented lowest-unit rule).
struct BorderCellEntryTests {
    /// 10 × 10 units over 3°, each side 40 vertices wiggling by less than a quarter of their spacing (simple
    /// rings, so the oracle's unrepaired polygons are the loader's); 0.005° cells: border cells
    /// on shared edges have two or more candidates, so the walk must go past the first record.
    static let coverage = SyntheticCoverage(n: 10, seed: 5, size: 3, subdivisions: 40, wiggle: 0.5 / 40)
    static let cellSize = 0.005

    static func options(cache: URL? = nil, firstUse: Bool = false) -> ReverseGeocoder.Options {
        var o = ReverseGeocoder.Options(cellSize: cellSize, cacheDirectory: cache, hugePages: !firstUse, verifyOnFirstUse: firstUse)
        o.maxDistance = 0  // containment against GEOS: "in no unit" stays nil
        return o
    }

    /// Random points, every third border vertex with offsets of 1e-13…1e-6 along each axis, and the midpoint
    /// of every edge.
    static var points: [(Double, Double)] {
        coverage.oraclePoints(seed: 23, random: 5_000, margin: 0.2, offsets: [0, 1e-13, -1e-13, 1e-11, -1e-11, 1e-9, -1e-9, 1e-7, -1e-7, 1e-6, -1e-6], stride: 3)
    }

    static func answers(_ g: ReverseGeocoder, _ points: [(Double, Double)]) throws -> [Int?] { try SyntheticCoverage.units(g, points) }

    static func write(_ name: String) -> (DatasetManifest, URL) { coverage.written(name) }

    @Test func eachWalkIsItsCellsRecordsAndAnswersAsGEOSBruteForce() async throws {
        try await offPool {
            let (manifest, _) = Self.write("border-entry-oracle")
            let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: Self.options())
            let layer = g.loaded[0].layers[0]
            let cells = try #require(layer.cells)
            let l = cells.layout
            // The walk from each cell's start is exactly the records between its start and the next cell's.
            var several = 0
            for m in 0..<l.mixedCells {
                var expected: [Int] = [], r = Int(l.mixedStart[m])
                while r < Int(l.mixedStart[m + 1]) {
                    expected.append(r)
                    r += CrossingLists.Record.headerWords + Int(l.borders[r + 1] & CrossingLists.Record.countMask)
                }
                let walked = Array(cells.records(Int(l.mixedStart[m])))
                if walked != expected { Issue.record("cell \(m): walked \(walked), records \(expected)") }
                if expected.count >= 2 { several += 1 }
            }
            #expect(several > l.mixedCells / 2, "\(several) of \(l.mixedCells) border cells have two or more records")

            let points = Self.points
            let oracle = ExactnessTests.BruteForce(Self.coverage)
            let got = try Self.answers(g, points)
            var mismatches = 0, byLaterRecord = 0
            for (k, p) in points.enumerated() {
                let expected = oracle.unit(x: p.0, y: p.1)
                if got[k] != expected {
                    mismatches += 1
                    if mismatches <= 10 { Issue.record("(\(p.1), \(p.0)): engine \(String(describing: got[k])), GEOS \(String(describing: expected))") }
                }
                // Points whose unit is a candidate after the first of their cell: the walk past the first
                // record decided them.
                if let expected, case .candidates(let start) = cells.answer(x: p.0, y: p.1) {
                    let parts = Array(cells.records(start)).map { cells.part(record: $0) }
                    if parts.dropFirst().contains(where: { Int(layer.partUnit[$0]) == expected })
                        && Int(layer.partUnit[parts[0]]) != expected {
                        byLaterRecord += 1
                    }
                }
            }
            #expect(mismatches == 0)
            #expect(byLaterRecord > 1_000, "\(byLaterRecord) points decided by a later record")
        }
    }

    /// A record with no edge and its reach outside its part says "exterior" at every point of its cell, so
    /// the index writes none (``CrossingLists/Entry/onlyExterior``), except a cell's only record. Checked
    /// on the coverage above: its wiggling units' boxes reach their neighbours' border cells, which made
    /// such records before; the answers stay GEOS's (the test above).
    @Test func noRecordCanOnlySayExterior() async throws {
        try await offPool {
            let (manifest, _) = Self.write("border-entry-exterior")
            let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: Self.options())
            let cells = try #require(g.loaded[0].layers[0].cells)
            let l = cells.layout
            var onlyExterior = 0, alone = 0, records = 0
            for m in 0..<l.mixedCells {
                let walked = Array(cells.records(Int(l.mixedStart[m])))
                records += walked.count
                for r in walked where l.borders[r + 1] & CrossingLists.Record.countMask == 0 {
                    guard let reach = cells.reach(record: r), !reach.inside else { continue }
                    if walked.count == 1 { alone += 1 } else { onlyExterior += 1 }
                }
            }
            #expect(onlyExterior == 0, "\(onlyExterior) of \(records) records can only say exterior")
            #expect(alone < l.mixedCells / 100, "\(alone) border cells hold a lone record that can only say exterior")
        }
    }

    /// Every border cell's entry in the tree (top grid and nodes) rewritten by `edit`, or the records by
    /// `editRecords`, then the file resealed (checksums valid, as a broken writer would leave it): the
    /// load's structure check and, on first use, the queries' own checks must call it damage, and the
    /// answers stay the fresh engine's.
    static func resealedDamage(_ name: String, reason: String, edit: (inout [UInt8], IndexCache.Meta) throws -> Int) throws {
        let (manifest, cache) = write(name)
        let fresh = try ReverseGeocoder(manifests: [(manifest, nil)], options: options())
        let built = try ReverseGeocoder(manifests: [(manifest, nil)], options: options(cache: cache))
        let file = URL(fileURLWithPath: try #require(built.datasets[0].cacheFile))
        var bytes = [UInt8](try Data(contentsOf: file))
        let edited = try edit(&bytes, try IndexCache.meta(ofFile: bytes))
        #expect(edited > 100, "\(edited) words edited")
        try IndexCache.reseal(&bytes)
        let points = Self.points
        let expected = try answers(fresh, points)
        for firstUse in [false, true] {
            try Data(bytes).write(to: file)
            let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: options(cache: cache, firstUse: firstUse))
            #expect(try answers(g, points) == expected, "first use \(firstUse)")
            let status = g.datasets[0].cacheStatus ?? ""
            #expect(status.hasPrefix("rebuilt (damaged: ") && status.contains(reason) && !status.contains("checksum"),
                    "first use \(firstUse): \(status)")
        }
    }

    static func word(_ bytes: [UInt8], _ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
    static func put(_ v: UInt32, _ bytes: inout [UInt8], _ at: Int) { for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: v >> (8 * k)) } }

    @Test func anEntryAtACellsSecondRecordIsDamage() async throws {
        try await offPool {
            try Self.resealedDamage("border-entry-second", reason: "border cell entry") { bytes, meta in
                let c = try #require(meta.layers[0].cells)
                var edited = 0
                for section in [c.top, c.nodes] {
                    for k in 0..<section.count {
                        let at = section.offset + 4 * k, e = Self.word(bytes, at)
                        guard e >> 30 == CellIndex.tagMixed else { continue }
                        // The cell's second record: a record's start, but not a cell's.
                        let first = c.borders.offset + 4 * Int(e & 0x3FFF_FFFF)
                        let header = Self.word(bytes, first + 4)
                        guard header & CrossingLists.Record.lastFlag == 0 else { continue }
                        let second = Int(e & 0x3FFF_FFFF) + CrossingLists.Record.headerWords + Int(header & CrossingLists.Record.countMask)
                        Self.put(CellIndex.tagMixed << 30 | UInt32(second), &bytes, at)
                        edited += 1
                    }
                }
                return edited
            }
        }
    }

    /// An edge naming a vertex past the layer's last (every 50th edge, so both the record walks of the
    /// whole-file check and the first-use checks meet one).
    @Test func anEdgePastTheLastVertexIsDamage() async throws {
        try await offPool {
            try Self.resealedDamage("border-edge-vertex", reason: "edge") { bytes, meta in
                let c = try #require(meta.layers[0].cells)
                let vertices = meta.layers[0].vertices.count / 2
                var edited = 0, seen = 0
                var r = 0
                while r < c.borders.count {
                    let header = Self.word(bytes, c.borders.offset + 4 * (r + 1))
                    let count = Int(header & CrossingLists.Record.countMask)
                    for k in 0..<count {
                        seen += 1
                        // Vertex `vertices - 1` has no second vertex; later ones do not exist at all.
                        if seen % 50 == 0 {
                            Self.put(UInt32(vertices - 1 + k % 3), &bytes, c.borders.offset + 4 * (r + CrossingLists.Record.headerWords + k))
                            edited += 1
                        }
                    }
                    r += CrossingLists.Record.headerWords + count
                }
                return edited
            }
        }
    }

    @Test func aCellWithoutItsLastFlagIsDamage() async throws {
        try await offPool {
            try Self.resealedDamage("border-entry-flag", reason: "crossing lists") { bytes, meta in
                let c = try #require(meta.layers[0].cells)
                var edited = 0
                var r = 0
                while r < c.borders.count {
                    let at = c.borders.offset + 4 * (r + 1), header = Self.word(bytes, at)
                    if header & CrossingLists.Record.lastFlag != 0 {
                        Self.put(header & ~CrossingLists.Record.lastFlag, &bytes, at)
                        edited += 1
                    }
                    r += CrossingLists.Record.headerWords + Int(header & CrossingLists.Record.countMask)
                }
                return edited
            }
        }
    }
}
