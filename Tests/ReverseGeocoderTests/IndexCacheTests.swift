import Foundation
import Testing
@testable import ReverseGeocoder

/// The index cache: a cached load answers exactly like a fresh one; changed sources, a damaged or
/// truncated cache, and an unwritable cache directory all end in a correct engine, never a crash.
struct IndexCacheTests {
    struct Setup {
        let coverage: SyntheticCoverage
        let shp: URL
        let cache: URL
        var manifest: DatasetManifest { TestShapefile.manifest("cov", file: shp) }

        init(_ name: String = #function, seed: UInt64 = 3) {
            let dir = TestShapefile.directory(name)
            coverage = SyntheticCoverage(n: 8, seed: seed)
            shp = coverage.write(to: dir.appendingPathComponent("cov"))
            cache = dir.appendingPathComponent("cache")
        }

        func engine(cacheDirectory: URL? = nil, cellSize: Double? = 0.1) throws -> ReverseGeocoder {
            try ReverseGeocoder(manifests: [(manifest, nil)], options: .init(cellSize: cellSize, cacheDirectory: cacheDirectory ?? cache))
        }

        var cacheFile: URL { IndexCache(directory: cache).file(for: manifest, directory: nil, cellSize: 0.1) }
    }

    /// Placemark codes for random points and every border point.
    static func answers(_ g: ReverseGeocoder, _ coverage: SyntheticCoverage) throws -> [String?] {
        var rng = SplitMix64(seed: 11)
        var points = coverage.borderPoints
        for _ in 0..<20_000 {
            points.append((coverage.minX - 0.3 + rng.unitInterval() * (coverage.maxX - coverage.minX + 0.6),
                           coverage.minY - 0.3 + rng.unitInterval() * (coverage.maxY - coverage.minY + 0.6)))
        }
        return try points.map { try g.placemark(latitude: $0.1, longitude: $0.0)?.administrativeAreaCode }
    }

    @Test func aCachedLoadAnswersLikeAFreshOne() async throws {
        try await offPool {
            let s = Setup()
            let fresh = try ReverseGeocoder(manifests: [(s.manifest, nil)], options: .init(cellSize: 0.1))
            let first = try s.engine()
            #expect(first.datasets[0].cacheStatus == "rebuilt (no cache file yet)")
            #expect(FileManager.default.fileExists(atPath: s.cacheFile.path))
            let cached = try s.engine()
            #expect(cached.datasets[0].cacheStatus == "loaded")
            #expect(cached.datasets[0].cacheFile == s.cacheFile.path)
            var info = cached.datasets[0]
            info.cacheFile = nil
            info.cacheStatus = nil
            #expect(info == fresh.datasets[0])
            let expected = try Self.answers(fresh, s.coverage)
            #expect(expected.compactMap { $0 }.count > 15_000)
            #expect(try Self.answers(cached, s.coverage) == expected)
            // Another cell size is another file.
            let other = try s.engine(cellSize: 0.3)
            #expect(other.datasets[0].cacheStatus == "rebuilt (no cache file yet)")
            #expect(other.datasets[0].cacheFile != s.cacheFile.path)
        }
    }

    @Test func changedSourcesRebuildAndTouchedOnesDoNot() async throws {
        try await offPool {
            let s = Setup()
            _ = try s.engine()
            // Same bytes, new time: the content hash says nothing changed.
            let dbf = s.shp.deletingPathExtension().appendingPathExtension("dbf")
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: dbf.path)
            #expect(try s.engine().datasets[0].cacheStatus == "loaded")
            // New polygons in the same place: rebuilt, and answering for the new ones.
            let changed = SyntheticCoverage(n: 9, seed: 4)
            _ = changed.write(to: s.shp.deletingPathExtension())
            let g = try s.engine()
            #expect(g.datasets[0].cacheStatus?.hasPrefix("rebuilt (stale: ") == true, "\(g.datasets[0].cacheStatus ?? "")")
            let fresh = try ReverseGeocoder(manifests: [(s.manifest, nil)], options: .init(cellSize: 0.1))
            #expect(try Self.answers(g, changed) == Self.answers(fresh, changed))
            #expect(try s.engine().datasets[0].cacheStatus == "loaded")
            // A sidecar that appears or goes (a .prj, a .cpg naming the encoding) changes what loading means.
            let prj = s.shp.deletingPathExtension().appendingPathExtension("prj")
            try #"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["Degree",0.017453292519943295]]"#
                .write(to: prj, atomically: true, encoding: .utf8)
            #expect(try s.engine().datasets[0].cacheStatus?.contains("cov.prj appeared") == true)
            try FileManager.default.removeItem(at: s.shp.deletingPathExtension().appendingPathExtension("cpg"))
            #expect(try s.engine().datasets[0].cacheStatus?.contains("cov.cpg is gone") == true)
        }
    }

    @Test(arguments: ["truncated", "flipped", "garbage", "empty", "wrong format"])
    func aDamagedCacheIsRebuiltNotTrusted(_ damage: String) async throws {
        try await offPool {
            let s = Setup("damage\(damage.filter(\.isLetter))")
            let fresh = try s.engine()
            var bytes = try Data(contentsOf: s.cacheFile)
            switch damage {
            case "truncated": bytes = bytes.prefix(bytes.count / 2)
            case "flipped": bytes[bytes.count / 3] ^= 0x10
            case "garbage": bytes = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
            case "empty": bytes = Data()
            default: bytes[8] = 99  // format version
            }
            try bytes.write(to: s.cacheFile)
            let g = try s.engine()
            #expect(g.datasets[0].cacheStatus?.hasPrefix("rebuilt (damaged: ") == true, "\(g.datasets[0].cacheStatus ?? "")")
            #expect(try Self.answers(g, s.coverage) == Self.answers(fresh, s.coverage))
            #expect(try s.engine().datasets[0].cacheStatus == "loaded")  // and written again
        }
    }

    /// A cache written by another format version lives under another name (the key includes the
    /// version), so the new file never replaces it: writing the new one deletes it. Files of this
    /// version under other keys (another cell size), other datasets' files and foreign files stay.
    @Test func writingACacheDeletesTheDatasetsOtherFormats() async throws {
        try await offPool {
            let s = Setup()
            _ = try s.engine(cellSize: 0.3)  // this version, another key
            let fm = FileManager.default
            var old = try Data(contentsOf: IndexCache(directory: s.cache).file(for: s.manifest, directory: nil, cellSize: 0.3))
            old[8] = 3  // an older format version
            let stale = s.cache.appendingPathComponent("cov-00000000000000a3.geoidx")
            let otherDataset = s.cache.appendingPathComponent("world-00000000000000a3.geoidx")
            let foreign = s.cache.appendingPathComponent("cov-notes.geoidx")
            try old.write(to: stale)
            try old.write(to: otherDataset)
            try Data("not a cache".utf8).write(to: foreign)
            let before = Set(try fm.contentsOfDirectory(atPath: s.cache.path))
            _ = try s.engine()
            let after = Set(try fm.contentsOfDirectory(atPath: s.cache.path))
            #expect(!after.contains(stale.lastPathComponent))
            #expect(after.contains(otherDataset.lastPathComponent))
            #expect(after.contains(foreign.lastPathComponent))
            #expect(after.contains(s.cacheFile.lastPathComponent))
            #expect(after == before.subtracting([stale.lastPathComponent]).union([s.cacheFile.lastPathComponent]))
        }
    }

    /// Found by the index-cache fuzz harness: a box so wide its width overflows to infinity passed every
    /// check (finite numbers) and crashed the R-tree's Hilbert sort. Written here with valid checksums,
    /// as a broken writer would: the load must call it damaged and rebuild.
    @Test(arguments: [1e308, -1e308, .nan, 1e4])
    func aCacheWithAnAbsurdCoordinateIsDamaged(_ value: Double) async throws {
        try await offPool {
            let s = Setup("absurd\(value)".filter { $0.isLetter || $0.isNumber })
            let fresh = try s.engine()
            var bytes = [UInt8](try Data(contentsOf: s.cacheFile))
            let meta = try IndexCache.meta(ofFile: bytes)
            // The second polygon's maxX. (The fuzzer's own input, which spreads two boxes to ±1e308, is
            // replayed from Tests/Fuzz/Corpus/index-cache/regression-overflowing-box.)
            let envelopes = meta.layers[0].envelopes.offset
            withUnsafeBytes(of: value) { for (k, b) in $0.enumerated() { bytes[envelopes + 8 * 6 + k] = b } }
            try IndexCache.reseal(&bytes)
            try Data(bytes).write(to: s.cacheFile)
            let g = try s.engine()
            #expect(g.datasets[0].cacheStatus == "rebuilt (damaged: layer 0: boxes out of range)",
                    "\(g.datasets[0].cacheStatus ?? "")")
            #expect(try Self.answers(g, s.coverage) == Self.answers(fresh, s.coverage))
        }
    }

    /// The header's offsets are 64-bit words: one of 2^63 or more (a damaged file, or one a pruner reads
    /// in the cache directory) trapped converting to Int and killed the process instead of rebuilding.
    @Test(arguments: [16, 24, 32])
    func aHeaderWordTooLargeForIntIsDamageNotATrap(_ offset: Int) async throws {
        try await offPool {
            let s = Setup("hugeword\(offset)")
            _ = try s.engine()
            var bytes = try Data(contentsOf: s.cacheFile)
            for k in 0..<8 { bytes[offset + k] = 0xFF }
            try bytes.write(to: s.cacheFile)
            let g = try s.engine()
            #expect(g.datasets[0].cacheStatus == "rebuilt (damaged: metadata out of bounds)", "\(g.datasets[0].cacheStatus ?? "")")
        }
    }

    @Test func anUnwritableCacheDirectoryStillLoads() async throws {
        try await offPool {
            let s = Setup()
            let blocker = s.cache.deletingLastPathComponent().appendingPathComponent("a-file")
            try Data("x".utf8).write(to: blocker)
            let g = try s.engine(cacheDirectory: blocker.appendingPathComponent("cache"))
            #expect(g.datasets[0].cacheStatus?.contains("not written") == true)
            #expect(try g.placemark(latitude: (s.coverage.minY + s.coverage.maxY) / 2, longitude: (s.coverage.minX + s.coverage.maxX) / 2) != nil)
            // Said, on every load: each one builds again. The reason names the file in the way.
            for engine in [g, try s.engine(cacheDirectory: blocker.appendingPathComponent("cache"))] {
                #expect(engine.warnings.count == 1, "\(engine.warnings)")
                let line = engine.warnings.first ?? ""
                #expect(line.hasPrefix("index cache not written for cov: \(blocker.path)/cache: cannot open: cannot create the cache "
                                       + "directory: \(blocker.path) is a file, not a folder; building it took "), "\(line)")
                #expect(line.hasSuffix(" s, which every load will pay again until its cache can be written"), "\(line)")
            }
        }
    }

    /// The CLI's `--data Data` and `--data /abs/Data` name one dataset two ways: the second must load
    /// the first one's cache, not rebuild it. Data/localities names its table as `../world/names.tsv`,
    /// and unstandardized source paths made every switch of spelling "the dataset's files moved" (a 6–8 s
    /// rebuild of the localities' index, each time).
    @Test func aDatasetNamedThroughARelativeOrAbsoluteDirectoryKeepsItsCache() async throws {
        try await offPool {
            let root = TestShapefile.directory(#function)
            let shapes = root.appendingPathComponent("shapes")
            let set = root.appendingPathComponent("set")
            try FileManager.default.createDirectory(at: shapes, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: set, withIntermediateDirectories: true)
            let coverage = SyntheticCoverage(n: 6, seed: 5)
            _ = coverage.write(to: shapes.appendingPathComponent("cov"))
            var manifest = TestShapefile.manifest("cov", file: shapes.appendingPathComponent("cov.shp"))
            manifest.layers[0].file = "../shapes/cov.shp"
            let cache = root.appendingPathComponent("cache")
            func engine(_ directory: URL) throws -> ReverseGeocoder {
                try ReverseGeocoder(manifests: [(manifest, directory)], options: .init(cellSize: 0.1, cacheDirectory: cache))
            }
            let spellings = [URL(fileURLWithPath: set.path, isDirectory: true),
                             URL(fileURLWithPath: "set", relativeTo: URL(fileURLWithPath: root.path, isDirectory: true)),
                             URL(fileURLWithPath: set.path + "/../set", isDirectory: true)]
            #expect(try engine(spellings[0]).datasets[0].cacheStatus == "rebuilt (no cache file yet)")
            for directory in spellings {
                let g = try engine(directory)
                #expect(g.datasets[0].cacheStatus == "loaded", "\(directory): \(g.datasets[0].cacheStatus ?? "")")
            }
        }
    }
}
