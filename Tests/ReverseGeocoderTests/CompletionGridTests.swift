import Foundation
import Testing
@testable import ReverseGeocoder

/// The completion walk (the manifest's `completedBelow`) into a GCJ-02 dataset: a WGS-84 query reads that
/// dataset's WGS-84 grid (whole cells answered without converting), a GCJ-02 or BD-09 one converts. The
/// bundled data has no GCJ-02 dataset below China, so only this test runs that path. Oracle: the lower
/// dataset loaded alone without cells (no grid, no quadtree: R-tree and GEOS), asked in GCJ-02 at the
/// query converted to GCJ-02.
@Suite(.serialized)
struct CompletionGridTests {
    /// Dataset "upper" (priority 10, WGS-84): one province, P1, over the whole area and beyond, listed in
    /// `completedBelow`. Dataset "lower" (priority 50, GCJ-02): a coverage of cities (units of about
    /// 0.2°, borders wiggling, holes and islands) inside China's rectangle, with a province of its own that
    /// a completed answer must not take.
    struct Setup {
        let root: URL
        let coverage = SyntheticCoverage(n: 10, seed: 41, origin: (112, 28), size: 2, subdivisions: 6)
        /// Cells of 0.02°, so that the grid knows a good part of its cells and not the rest.
        static let cellSize = 0.02

        init(_ name: String = #function) throws {
            root = TestShapefile.directory(name)
            let upper = root.appendingPathComponent("upper"), lower = root.appendingPathComponent("lower")
            for dir in [upper, lower] { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) }
            TestShapefile.write(upper.appendingPathComponent("prov"), fields: ["NAME", "CODE"], records: [
                .init(rings: [TestShapefile.box(110, 26, 116, 32)], ["NAME": "Pone", "CODE": "P1"]),
            ])
            try """
            {"format": 1, "name": "upper", "priority": 10, "completedBelow": {"province": ["P1"]},
             "layers": [{"file": "prov.shp", "level": "province", "fields": {"province": {"name": "NAME", "code": "CODE"}}}]}
            """.write(to: upper.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
            _ = coverage.write(to: lower.appendingPathComponent("city"))
            try """
            {"format": 1, "name": "lower", "priority": 50, "datum": "gcj02",
             "constants": {"province": {"name": "Lowerprov", "code": "LP"}},
             "layers": [{"file": "city.shp", "level": "city", "fields": {"city": {"name": "NAME", "code": "CODE"}}}]}
            """.write(to: lower.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
        }

        var cache: URL { root.appendingPathComponent("cache") }

        func engine(cache: URL? = nil, firstUse: Bool = false) throws -> ReverseGeocoder {
            try ReverseGeocoder(directory: root, options: .init(cellSize: Self.cellSize, cacheDirectory: cache,
                                                                hugePages: false, verifyOnFirstUse: firstUse))
        }

        /// The lower dataset alone, without cells: every query converted, R-tree, GEOS. Without the coast
        /// fallback, as the completion walk: a point outside every unit is in none.
        func oracle() throws -> ReverseGeocoder {
            try alone("lower")
        }

        /// The upper dataset alone: the answer down to the province.
        func upperAlone() throws -> ReverseGeocoder {
            try alone("upper")
        }

        private func alone(_ dataset: String) throws -> ReverseGeocoder {
            var options = ReverseGeocoder.Options(cellSize: nil)
            options.maxDistance = 0
            return try ReverseGeocoder(directory: root.appendingPathComponent(dataset), options: options)
        }

        /// Query points in `datum`: uniform over the coverage and around it, and points on and next to
        /// its borders (every third GCJ-02 border vertex, moved by up to 0.01°, about twice the GCJ-02
        /// offset here, and its edge's midpoint; expressed in `datum`), where a lookup in the wrong datum
        /// answers the neighbouring unit.
        func points(_ datum: Datum) -> [Coordinate] {
            var gcj = coverage.oraclePoints(seed: 3, random: 0, margin: 0, offsets: [-0.01, -0.004, -1e-4, 0, 1e-4, 0.004, 0.01], stride: 3)
                .map { Coordinate(latitude: $0.1, longitude: $0.0) }
            var rng = SplitMix64(seed: 8)
            var all: [Coordinate] = []
            for _ in 0..<3_000 {
                all.append(Coordinate(latitude: coverage.minY - 0.15 + rng.unitInterval() * (coverage.maxY - coverage.minY + 0.3),
                                      longitude: coverage.minX - 0.15 + rng.unitInterval() * (coverage.maxX - coverage.minX + 0.3)))
            }
            gcj = gcj.map { Datum.convert($0, from: .gcj02, to: datum) }
            return all + gcj
        }
    }

    /// Levels below the province: the ones a completion takes from the lower dataset.
    static let below = AdminLevel.allCases.filter { $0 > .province }

    @Test(arguments: [Datum.wgs84, .gcj02, .bd09])
    func aCompletedAnswerIsTheLowerDatasetsAtTheConvertedPoint(_ datum: Datum) async throws {
        try await offPool {
            let s = try Setup("completion-grid-\(datum)")
            let g = try s.engine(), oracle = try s.oracle(), upper = try s.upperAlone()
            let grid = try #require(g.loaded.first { $0.manifest.name == "lower" }?.wgsGrid)
            var differ = 0, completed = 0, wholeCell = 0, unknownCell = 0
            let points = s.points(datum)
            for q in points {
                let got = try #require(try g.placemark(for: q, datum: datum), "\(q)")
                let own = try #require(try upper.placemark(for: q, datum: datum), "\(q)")
                let lower = try oracle.placemark(for: Datum.convert(q, from: datum, to: .gcj02), datum: .gcj02)
                if datum == .wgs84 {
                    // The kind of cell the walk meets: the grid's unit (no conversion) or unknown (converted).
                    let entry = grid.lookup(x: q.longitude, y: q.latitude)
                    if entry.isUnit { wholeCell += 1 } else if entry == .unknown { unknownCell += 1 }
                }
                // Down to the province the upper dataset's; below it the lower's, or nothing where it has none.
                var expected = own
                for level in Self.below { expected[level] = lower?[level] ?? own[level] }
                if lower?.hasAdministrativeUnit == true { completed += 1 }
                if got != expected {
                    differ += 1
                    if differ <= 5 {
                        Issue.record("\(datum) \(q): \(got.locality ?? "-") \(got.localityCode ?? "-"), the lower dataset alone \(lower?.locality ?? "none")")
                    }
                }
                #expect(got.dataset == "upper" && got.administrativeAreaCode == "P1")
            }
            #expect(differ == 0)
            // Most points are completed, and some are not (outside the lower coverage).
            #expect(completed > 2_500 && completed < points.count - 200, "\(completed) of \(points.count)")
            if datum == .wgs84 {
                // Both of the grid's kinds of cell were met: answered whole by the grid, and converted.
                #expect(wholeCell > 1_000 && unknownCell > 1_000, "whole \(wholeCell), unknown \(unknownCell)")
            }
        }
    }

    /// A load checked on first use: the completion walk proves the grid entry it reads before reading it
    /// (the upper dataset answers first, so the main walk never reads the lower one's grid here). Damaged,
    /// the entry is found by the first WGS-84 query in its cell, which rebuilds the lower dataset and still
    /// answers as the oracle. A walk that skipped the grid, or read it for a query in another datum, fails.
    @Test func theCompletionWalkChecksTheGridEntryItReads() async throws {
        try await offPool {
            let s = try Setup("completion-grid-firstuse")
            let checked = try s.engine(cache: s.cache)  // writes the caches
            let oracle = try s.oracle()
            let grid = try #require(checked.loaded.first { $0.manifest.name == "lower" }?.wgsGrid)
            // A point in a cell the grid answers whole: the coverage's centre unit's, found among the
            // uniform points nearest the centre.
            let centre = Coordinate(latitude: (s.coverage.minY + s.coverage.maxY) / 2, longitude: (s.coverage.minX + s.coverage.maxX) / 2)
            let p = try #require(s.points(.wgs84).filter { grid.lookup(x: $0.longitude, y: $0.latitude).isUnit }
                .min { abs($0.latitude - centre.latitude) + abs($0.longitude - centre.longitude)
                       < abs($1.latitude - centre.latitude) + abs($1.longitude - centre.longitude) })
            let expected = try #require(try oracle.placemark(for: Datum.convert(p, from: .wgs84, to: .gcj02), datum: .gcj02))
            #expect(try checked.placemark(for: p, datum: .wgs84)?.localityCode == expected.localityCode)

            // Intact: before the query nothing of the grid is checked; after it, the block of p's entry.
            let lazy = try s.engine(cache: s.cache, firstUse: true)
            let lowerSet = try #require(lazy.loaded.first { $0.manifest.name == "lower" })
            let firstUse = try #require(lowerSet.firstUse), region = try #require(firstUse.grid?.region)
            #expect(firstUse.verifier.checkedBlocks(region) == 0)
            // A GCJ-02 query reads no grid.
            _ = try lazy.placemark(for: Datum.convert(p, from: .wgs84, to: .gcj02), datum: .gcj02)
            #expect(firstUse.verifier.checkedBlocks(region) == 0)
            let got = try #require(try lazy.placemark(for: p, datum: .wgs84))
            #expect(got.localityCode == expected.localityCode && got.administrativeAreaCode == "P1")
            #expect(firstUse.verifier.checkedBlocks(region) == 1)

            // Damaged: one bit of p's entry flipped.
            let file = URL(fileURLWithPath: try #require(checked.datasets.first { $0.name == "lower" }?.cacheFile))
            var bytes = [UInt8](try Data(contentsOf: file))
            let meta = try IndexCache.meta(ofFile: bytes)
            let entries = try #require(meta.wgsGrid?.entries), g0 = try #require(meta.wgsGrid)
            let i = Int((p.latitude - g0.originY) / g0.cell) * g0.columns + Int((p.longitude - g0.originX) / g0.cell)
            bytes[entries.offset + 4 * i] ^= 0x01
            try Data(bytes).write(to: file)
            let damaged = try s.engine(cache: s.cache, firstUse: true)
            let status = { damaged.datasets.first { $0.name == "lower" }?.cacheStatus ?? "" }
            #expect(status() == "loaded")
            let again = try #require(try damaged.placemark(for: p, datum: .wgs84))
            #expect(status() == "rebuilt (damaged: checksum mismatch in WGS-84 grid (block \(4 * i / CacheVerifier.blockSize)))", "\(status())")
            #expect(damaged.datasets.first { $0.name == "upper" }?.cacheStatus == "loaded")
            #expect(again.localityCode == expected.localityCode && again.administrativeAreaCode == "P1", "\(again)")
        }
    }
}
