import Foundation
import Testing
@testable import ReverseGeocoder

/// Every section of an index cache file, damaged one byte at a time, is found damaged before its data is
/// used: at load when the load checks everything, and by the first query that reads it when the load
/// checks nothing (`verifyOnFirstUse`). Either way every answer is the fresh engine's (shapefiles, no
/// cache), which is the oracle here.
struct CacheDamageTests {
    /// A GCJ-02 dataset, so its file has every kind of section: placemarks, polygons, cells, crossing
    /// lists, the empty mask and the WGS-84 grid.
    struct Setup {
        let coverage: SyntheticCoverage
        let manifest: DatasetManifest
        let cache: URL
        let cellSize: Double?

        /// Cells of 0.005° over 3°: a tree 10 levels deep, so below its top grid there are nodes.
        init(_ name: String, cellSize: Double? = 0.005) {
            let dir = TestShapefile.directory(name)
            coverage = SyntheticCoverage(n: 10, seed: 5, size: 3, subdivisions: 40)
            let shp = coverage.write(to: dir.appendingPathComponent("cov"))
            manifest = TestShapefile.manifest("cov", file: shp, datum: .gcj02)
            cache = dir.appendingPathComponent("cache")
            self.cellSize = cellSize
        }

        var cacheFile: URL { IndexCache(directory: cache).file(for: manifest, directory: nil, cellSize: cellSize) }

        func engine(firstUse: Bool) throws -> ReverseGeocoder {
            try ReverseGeocoder(manifests: [(manifest, nil)],
                                options: .init(cellSize: cellSize, cacheDirectory: cache, hugePages: !firstUse, verifyOnFirstUse: firstUse))
        }

        /// Random points over the coverage and beyond, every border vertex, and the midpoint of every
        /// edge (within rounding of the edge: the crossing lists cannot be sure, GEOS decides, so those
        /// queries read the polygons' rings).
        var points: [(Double, Double)] {
            var rng = SplitMix64(seed: 17)
            var all = coverage.borderPoints
            for unit in coverage.units {
                for polygon in unit { for ring in polygon { for k in 1..<ring.count { all.append(((ring[k - 1].0 + ring[k].0) / 2, (ring[k - 1].1 + ring[k].1) / 2)) } } }
            }
            for _ in 0..<2_000 {
                all.append((coverage.minX - 0.2 + rng.unitInterval() * (coverage.maxX - coverage.minX + 0.4),
                            coverage.minY - 0.2 + rng.unitInterval() * (coverage.maxY - coverage.minY + 0.4)))
            }
            return all
        }
    }

    static func answers(_ g: ReverseGeocoder, _ points: [(Double, Double)], datum: Datum) throws -> [String?] {
        try points.map { try g.placemark(latitude: $0.1, longitude: $0.0, datum: datum)?.administrativeAreaCode }
    }

    /// The sections a query set in both datums must read (all but the polygon boxes, which only the
    /// R-tree path reads: a layer without cells, tested below).
    static func isRead(_ name: String, cells: Bool) -> Bool { !cells || !name.hasSuffix("boxes") }

    @Test(arguments: [false, true])
    func everyDamagedSectionIsFoundBeforeItsDataIsUsed(_ firstUse: Bool) async throws {
        try await offPool {
            try Self.damageEverySection(Setup("damage-each-\(firstUse)"), firstUse: firstUse)
        }
    }

    /// Without cells every query goes through the R-tree, built from the boxes: damaged boxes are found.
    @Test func withoutCellsTheBoxesAreCheckedBeforeTheTreeIsBuilt() async throws {
        try await offPool {
            try Self.damageEverySection(Setup("damage-nocells", cellSize: nil), firstUse: true, only: ["boxes", "units", "polygons", "rings", "vertices"])
        }
    }

    static func damageEverySection(_ s: Setup, firstUse: Bool, only: [String]? = nil) throws {
        let fresh = try ReverseGeocoder(manifests: [(s.manifest, nil)], options: .init(cellSize: s.cellSize))
        _ = try s.engine(firstUse: false)  // writes the cache
        let template = [UInt8](try Data(contentsOf: s.cacheFile))
        let meta = try IndexCache.meta(ofFile: template)
        let points = s.points
        let expected = [try answers(fresh, points, datum: .gcj02), try answers(fresh, points, datum: .wgs84)]
        #expect(expected[0].compactMap { $0 }.count > 1_500)
        let sections = meta.sections.filter { entry in
            entry.section.count > 0 && (only == nil || only!.contains { entry.name.hasSuffix($0) })
        }
        #expect(sections.count >= (only?.count ?? 12), "\(sections.map(\.name))")
        var damagedBlocks = 0
        for (section, stride, name) in sections {
            let bytes = section.count * stride
            // One byte in the middle (a later block than the first where there are several): one
            // rebuild per section keeps the test within seconds.
            for position in [bytes / 2] {
                var file = template
                file[section.offset + position] ^= 0x40
                try Data(file).write(to: s.cacheFile)
                let g = try s.engine(firstUse: firstUse)
                let block = position / CacheVerifier.blockSize
                let reason = "rebuilt (damaged: checksum mismatch in \(name) (block \(block)))"
                if !firstUse {
                    #expect(g.datasets[0].cacheStatus == reason)
                } else {
                    #expect(g.datasets[0].cacheStatus == "loaded", "\(name): nothing is checked at load")
                }
                #expect(try Self.answers(g, points, datum: .gcj02) == expected[0], "\(name) byte \(position)")
                #expect(try Self.answers(g, points, datum: .wgs84) == expected[1], "\(name) byte \(position)")
                if firstUse && isRead(name, cells: s.cellSize != nil) {
                    // A query read the block, found it damaged, and the dataset was rebuilt from its
                    // shapefiles (and its cache file written again).
                    #expect(g.datasets[0].cacheStatus == reason, "\(name) byte \(position)")
                    #expect(g.warnings.last?.contains("checksum mismatch in \(name)") == true)
                    #expect(try s.engine(firstUse: true).datasets[0].cacheStatus == "loaded")
                }
                damagedBlocks += 1
            }
        }
        #expect(damagedBlocks == sections.count)
    }

    /// The WGS-84 grid is read only by WGS-84 queries: damaged, it goes unnoticed by GCJ-02 queries
    /// (which never read it) and is found by the first WGS-84 one, which still answers right.
    @Test func aSectionFirstUsedLateIsCheckedThen() async throws {
        try await offPool {
            let s = Setup("damage-late")
            let fresh = try ReverseGeocoder(manifests: [(s.manifest, nil)], options: .init(cellSize: s.cellSize))
            _ = try s.engine(firstUse: false)
            var file = [UInt8](try Data(contentsOf: s.cacheFile))
            let meta = try IndexCache.meta(ofFile: file)
            let grid = try #require(meta.wgsGrid?.entries)
            // The entry of the coverage's centre, where the grid knows the unit.
            let (x, y) = ((s.coverage.minX + s.coverage.maxX) / 2, (s.coverage.minY + s.coverage.maxY) / 2)
            let g0 = try #require(meta.wgsGrid)
            let i = Int((y - g0.originY) / g0.cell) * g0.columns + Int((x - g0.originX) / g0.cell)
            file[grid.offset + 4 * i] ^= 0x01
            try Data(file).write(to: s.cacheFile)
            let g = try s.engine(firstUse: true)
            let points = s.points
            #expect(try Self.answers(g, points, datum: .gcj02) == Self.answers(fresh, points, datum: .gcj02))
            #expect(g.datasets[0].cacheStatus == "loaded")
            #expect(try g.placemark(latitude: y, longitude: x, datum: .wgs84) == fresh.placemark(latitude: y, longitude: x, datum: .wgs84))
            #expect(g.datasets[0].cacheStatus == "rebuilt (damaged: checksum mismatch in WGS-84 grid (block \(4 * i / CacheVerifier.blockSize)))")
            #expect(try Self.answers(g, points, datum: .wgs84) == Self.answers(fresh, points, datum: .wgs84))
        }
    }

    /// A file resealed after damage (valid checksums, as a broken writer would leave it) is still
    /// stopped by the structural checks a query makes along its path: an out-of-range cell-tree
    /// pointer, crossing-list edge and border-cell range.
    @Test(arguments: ["cell nodes", "crossing lists", "border cell table"])
    func aResealedDamageIsStoppedByThePathChecks(_ target: String) async throws {
        try await offPool {
            let s = Setup("damage-resealed-\(target.filter(\.isLetter))")
            let fresh = try ReverseGeocoder(manifests: [(s.manifest, nil)], options: .init(cellSize: s.cellSize))
            _ = try s.engine(firstUse: false)
            var file = [UInt8](try Data(contentsOf: s.cacheFile))
            let meta = try IndexCache.meta(ofFile: file)
            let section = try #require(meta.sections.first { $0.name.hasSuffix(target) }?.section)
            // Every word set to an index far beyond any array (a pointer / edge / offset gone wild).
            for k in 0..<section.count { withUnsafeBytes(of: UInt32(0x3FFF_FFF0).littleEndian) { for (b, v) in $0.enumerated() { file[section.offset + 4 * k + b] = v } } }
            try IndexCache.reseal(&file)
            try Data(file).write(to: s.cacheFile)
            let g = try s.engine(firstUse: true)
            #expect(g.datasets[0].cacheStatus == "loaded")
            let points = s.points
            #expect(try Self.answers(g, points, datum: .gcj02) == Self.answers(fresh, points, datum: .gcj02))
            let status = g.datasets[0].cacheStatus ?? ""
            #expect(section.count > 0)
            #expect(status.hasPrefix("rebuilt (damaged: layer 0: "), "\(target): \(status)")
            #expect(!status.contains("checksum"), "\(status)")
        }
    }
    /// Fuzz regression (index-cache, `Corpus/index-cache/regression-negative-units`): a resealed file
    /// whose metadata gives a layer a negative (or any wrong) unit count. A lazy load reads no placemark
    /// yet, and every thread sized its placemark table by that count: a crash on the first query. The
    /// count is now checked against the placemark table's size at load, lazy or not.
    @Test(arguments: [-3, 7])
    func aWrongUnitCountIsDamage(_ units: Int) async throws {
        try await offPool {
            let s = Setup("damage-units\(units)")
            let fresh = try ReverseGeocoder(manifests: [(s.manifest, nil)], options: .init(cellSize: s.cellSize))
            _ = try s.engine(firstUse: false)
            var file = [UInt8](try Data(contentsOf: s.cacheFile))
            var meta = try IndexCache.meta(ofFile: file)
            meta.layers[0].units = units
            try IndexCache.reseal(&file, meta: meta)
            try Data(file).write(to: s.cacheFile)
            let g = try s.engine(firstUse: true)
            #expect(g.datasets[0].cacheStatus == "rebuilt (damaged: layer 0: placemark table size)")
            let points = s.points
            #expect(try Self.answers(g, points, datum: .gcj02) == Self.answers(fresh, points, datum: .gcj02))
        }
    }
}

