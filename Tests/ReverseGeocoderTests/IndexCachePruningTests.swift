import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ReverseGeocoder

/// The index cache directory does not grow without bound: a cache write removes the files of data
/// folders that are gone and of folders unused for a month, a load marks its file used, and
/// ``IndexCacheDirectory/prune(now:)`` removes whatever can never be loaded again. Real files in
/// temporary folders; time moves by back-dated files or the engine's injected clock, never by waiting.
struct IndexCachePruningTests {
    /// A folder of data folders (each a one-dataset data directory) and a cache directory beside them.
    struct Setup {
        let root: URL
        let cache: URL

        init(_ name: String = #function) {
            root = TestShapefile.directory(name)
            cache = root.appendingPathComponent("cache")
        }

        /// A data directory `name` holding one small dataset (two boxes), with its manifest.
        @discardableResult
        func dataFolder(_ name: String) throws -> URL {
            let directory = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            TestShapefile.write(directory.appendingPathComponent("d"), fields: ["NAME", "CODE"], records: [
                .init(rings: [TestShapefile.box(0, 0, 1, 1)], ["NAME": "A", "CODE": "1"]),
                .init(rings: [TestShapefile.box(1, 0, 2, 1)], ["NAME": "B", "CODE": "2"]),
            ])
            let manifest = DatasetManifest(name: "d", layers: [.init(file: "d.shp", level: .province,
                                                                     fields: [.province: .init(name: ["NAME"], code: ["CODE"])])])
            try JSONEncoder().encode(manifest).write(to: directory.appendingPathComponent("manifest.json"))
            return directory
        }

        /// Loads a data folder through the cache (writing its file when it has none); `now`: the engine's clock.
        @discardableResult
        func load(_ name: String, now: Date? = nil) throws -> ReverseGeocoder {
            var options = ReverseGeocoder.Options(cellSize: 0.5, cacheDirectory: cache)
            if let now { options.now = { now } }
            return try ReverseGeocoder(directory: root.appendingPathComponent(name), options: options)
        }

        /// The cache file of a data folder (existing or not).
        func cacheFile(_ name: String) throws -> URL {
            try #require(ReverseGeocoder.cacheFiles(forDataIn: root.appendingPathComponent(name),
                                                    options: .init(cellSize: 0.5, cacheDirectory: cache)).first)
        }

        func names() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: cache.path)) }

        func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }
    }

    static func modified(_ url: URL) throws -> Date {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)
    }

    static func backDate(_ url: URL, days: Double) throws {
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-days * 86_400)], ofItemAtPath: url.path)
    }

    // MARK: - Automatic pruning

    /// QA's 13 copies per dataset: one per data folder ever used, kept forever. A folder deleted since
    /// its cache was written: the next cache write removes its file; a live folder's file stays.
    @Test func aDeletedDataFoldersCacheGoesWhenAnotherCacheIsWritten() async throws {
        try await offPool {
            let s = Setup()
            for name in ["gone", "live", "new"] { try s.dataFolder(name) }
            try s.load("gone")
            try s.load("live")
            let gone = try s.cacheFile("gone"), live = try s.cacheFile("live")
            #expect(s.exists(gone) && s.exists(live))
            try FileManager.default.removeItem(at: s.root.appendingPathComponent("gone"))
            // Loading without writing prunes nothing (a one-point start stays cheap)...
            try s.load("live")
            #expect(s.exists(gone))
            // ...a write does.
            let g = try s.load("new")
            #expect(g.datasets[0].cacheStatus == "rebuilt (no cache file yet)")
            #expect(!s.exists(gone))
            #expect(try s.names() == [live.lastPathComponent, try s.cacheFile("new").lastPathComponent])
        }
    }

    /// A dataset given in code has no manifest folder in its cache's header: the folder of its
    /// shapefiles stands for it.
    @Test func aCacheOfShapefilesGivenInCodeGoesWithTheirFolder() async throws {
        try await offPool {
            let s = Setup()
            let loose = try s.dataFolder("loose")
            try s.dataFolder("new")
            let shp = loose.appendingPathComponent("d.shp")
            let manifest = TestShapefile.manifest("d", file: shp)
            let g = try ReverseGeocoder(manifests: [(manifest, nil)], options: .init(cellSize: 0.5, cacheDirectory: s.cache))
            let file = URL(fileURLWithPath: try #require(g.datasets[0].cacheFile))
            #expect(s.exists(file))
            try s.load("new")
            #expect(s.exists(file), "its shapefiles' folder exists")
            try FileManager.default.removeItem(at: loose)
            try FileManager.default.removeItem(at: try s.cacheFile("new"))
            try s.load("new")
            #expect(!s.exists(file))
        }
    }

    /// A folder that still exists but whose cache nobody loaded for a month (an old install, a clone
    /// left behind): removed by the next write. One loaded since is marked used and stays.
    @Test func aCacheUnusedForAMonthGoesAndOneLoadedSinceStays() async throws {
        try await offPool {
            let s = Setup()
            for name in ["used", "unused", "new"] { try s.dataFolder(name) }
            try s.load("used")
            try s.load("unused")
            let used = try s.cacheFile("used"), unused = try s.cacheFile("unused")
            try Self.backDate(used, days: 40)
            try Self.backDate(unused, days: 40)
            #expect(try s.load("used").datasets[0].cacheStatus == "loaded")
            try s.load("new")
            #expect(s.exists(used))
            #expect(!s.exists(unused))
            #expect(s.exists(s.root.appendingPathComponent("unused/manifest.json")), "the data is never touched")
        }
    }

    /// The age is measured by the engine's clock: 29 days unused keeps every file, 31 removes every
    /// file but the ones the load uses.
    @Test func theAgeRuleGoesByTheEnginesClock() async throws {
        try await offPool {
            let s = Setup()
            for name in ["a", "b", "c", "d"] { try s.dataFolder(name) }
            try s.load("a")
            try s.load("b")
            let a = try s.cacheFile("a"), b = try s.cacheFile("b")
            try s.load("c", now: Date().addingTimeInterval(29 * 86_400))
            #expect(s.exists(a) && s.exists(b))
            try s.load("d", now: Date().addingTimeInterval(31 * 86_400))
            #expect(try s.names() == [try s.cacheFile("d").lastPathComponent])
        }
    }

    /// One rule for files of other format versions (they were removed by a second mechanism, which
    /// followed links): the loaded dataset's go when its cache is written, however new; another
    /// dataset's (here `x`, and `d-extra`, whose names start like `d`'s) wait for the age rule; a link
    /// named like the dataset's file is never followed or removed.
    @Test func theLoadedDatasetsOtherFormatsGoAtOnceAndOthersByAge() async throws {
        try await offPool {
            let s = Setup()
            for name in ["a", "b", "c"] { try s.dataFolder(name) }
            try s.load("a")
            var bytes = try Data(contentsOf: try s.cacheFile("a"))
            bytes[8] = 14  // an older format version
            let own = s.cache.appendingPathComponent("d-00000000000000aa.geoidx")
            let other = s.cache.appendingPathComponent("x-00000000000000aa.geoidx")
            let alike = s.cache.appendingPathComponent("d-extra-00000000000000aa.geoidx")
            let target = s.root.appendingPathComponent("old-format.geoidx")
            let link = s.cache.appendingPathComponent("d-00000000000000dd.geoidx")
            for file in [own, other, alike, target] { try bytes.write(to: file) }
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            try Self.backDate(other, days: 29)

            try s.load("b")  // writes d's cache for folder b
            #expect(!s.exists(own), "the loaded dataset's other format goes at once")
            #expect(s.exists(other) && s.exists(alike), "other datasets' are not its own")
            #expect(s.exists(target) && (try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == target.path)
            // Two days on, the other dataset's file is 31 days unused: the age rule takes it.
            try s.load("c", now: Date().addingTimeInterval(2 * 86_400))
            #expect(!s.exists(other))
            #expect(s.exists(alike) && s.exists(target))
        }
    }

    /// "Used" is recorded in the file's modification time, at most once a day: a load that finds it
    /// older than a day sets it to the engine's now; loads within the day write nothing.
    @Test func aLoadMarksItsFileUsedAtMostOnceADay() async throws {
        try await offPool {
            let s = Setup()
            try s.dataFolder("a")
            try s.load("a")
            let file = try s.cacheFile("a")
            try Self.backDate(file, days: 2)
            let marked = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 5 * 86_400).rounded(.down))
            #expect(try s.load("a", now: marked).datasets[0].cacheStatus == "loaded")
            #expect(try Self.modified(file) == marked)
            try s.load("a", now: marked.addingTimeInterval(23 * 3600))
            #expect(try Self.modified(file) == marked, "no write within the day")
            try s.load("a", now: marked.addingTimeInterval(25 * 3600))
            #expect(try Self.modified(file) == marked.addingTimeInterval(25 * 3600))
        }
    }

    /// Never pruned: a file without our magic (whatever its name), a directory or a symbolic link named
    /// like a cache (its target may be anywhere: here a cache of a deleted folder, outside the cache
    /// directory), and a temporary file a live process may still be writing. A temporary file unchanged
    /// for over a day with its lock free is abandoned even when its pid names a live process (pids are
    /// reused; containers reuse the same ones every run).
    @Test func foreignFilesLinksAndFreshTemporariesAreLeftAlone() async throws {
        try await offPool {
            let s = Setup()
            for name in ["gone", "new"] { try s.dataFolder(name) }
            try s.load("gone")
            let gone = try s.cacheFile("gone")
            let fm = FileManager.default
            // The dead folder's cache moved out of the directory, a link to it left in.
            let outside = s.root.appendingPathComponent("elsewhere.geoidx")
            try fm.moveItem(at: gone, to: outside)
            try fm.createSymbolicLink(at: s.cache.appendingPathComponent("link-0.geoidx"), withDestinationURL: outside)
            try fm.copyItem(at: outside, to: gone)  // and the dead folder's own file, which must go
            try Data("not a cache".utf8).write(to: s.cache.appendingPathComponent("d-0123456789abcdef.geoidx"))
            try Data("notes".utf8).write(to: s.cache.appendingPathComponent("README"))
            try fm.createDirectory(at: s.cache.appendingPathComponent("dir.geoidx"), withIntermediateDirectories: false)
            let pid = getpid()  // alive, and holding no lock on the files
            let fresh = s.cache.appendingPathComponent(".d-1.geoidx.tmp-\(pid)-fresh")
            let stale = s.cache.appendingPathComponent(".d-2.geoidx.tmp-\(pid)-stale")
            try Data(count: 4096).write(to: fresh)
            try Data(count: 4096).write(to: stale)
            try Self.backDate(stale, days: 2)
            try Self.backDate(s.cache.appendingPathComponent("d-0123456789abcdef.geoidx"), days: 400)
            try FileManager.default.removeItem(at: s.root.appendingPathComponent("gone"))

            try s.load("new")
            #expect(!s.exists(gone))
            #expect(!s.exists(stale))
            let left = try s.names()
            #expect(left == ["link-0.geoidx", "d-0123456789abcdef.geoidx", "README", "dir.geoidx", fresh.lastPathComponent,
                             try s.cacheFile("new").lastPathComponent], "\(left)")
            #expect(s.exists(outside))
        }
    }

    // MARK: - Explicit pruning

    /// `geocode index --prune`'s rule: everything that does not belong to an existing data folder of
    /// this format goes, however new; a live folder's file stays, however old. Each removal says why
    /// and counts its bytes.
    @Test func pruneRemovesWhatNoExistingDataFolderOfThisFormatCanUse() async throws {
        try await offPool {
            let s = Setup()
            for name in ["gone", "live"] { try s.dataFolder(name) }
            try s.load("gone")
            try s.load("live")
            let gone = try s.cacheFile("gone"), live = try s.cacheFile("live")
            let bytes = try Data(contentsOf: live)
            var oldFormat = bytes
            oldFormat[8] = 14
            let otherFormat = s.cache.appendingPathComponent("world-00000000000000aa.geoidx")
            try oldFormat.write(to: otherFormat)
            var damaged = bytes
            for k in 16..<24 { damaged[k] = 0xFF }  // a header offset of 2^64 - 1
            let broken = s.cache.appendingPathComponent("d-00000000000000bb.geoidx")
            try damaged.write(to: broken)
            let foreign = s.cache.appendingPathComponent("d-00000000000000cc.geoidx")
            try Data("GEOIDY".utf8).write(to: foreign)
            try Self.backDate(live, days: 400)
            try FileManager.default.removeItem(at: s.root.appendingPathComponent("gone"))
            let sizes = try [gone, otherFormat, broken].map { try #require(try FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) }

            let report = try IndexCacheDirectory(s.cache).prune()
            #expect(report.failures.isEmpty)
            let removed = Dictionary(uniqueKeysWithValues: report.removed.map { ($0.path, $0) })
            #expect(Set(removed.keys) == [gone.path, otherFormat.path, broken.path])
            #expect(removed[gone.path]?.reason == "its data folder \(s.root.appendingPathComponent("gone").path) no longer exists")
            #expect(removed[otherFormat.path]?.reason == "written by index format 14; this engine reads format \(IndexCache.formatVersion)")
            #expect(removed[broken.path]?.reason == "damaged (metadata out of bounds): every load rejects it")
            #expect(report.bytesFreed == Int64(sizes.reduce(0, +)))
            #expect(removed[gone.path]?.bytes == Int64(sizes[0]))
            #expect(try s.names() == [live.lastPathComponent, foreign.lastPathComponent])
            let summary = try IndexCacheDirectory(s.cache).summary()
            #expect(summary == .init(exists: true, files: 2, bytes: Int64(bytes.count + 6)))
        }
    }

    @Test func aMissingDirectoryHasNothingAndOneThatCannotBeListedIsNamed() throws {
        let s = Setup()
        #expect(try IndexCacheDirectory(s.cache).summary() == .init(exists: false, files: 0, bytes: 0))
        #expect(try IndexCacheDirectory(s.cache).prune() == .init())
        let file = s.root.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        #expect(throws: GeocoderError.cannotOpen(file: file.path, reason: "Not a directory")) { try IndexCacheDirectory(file).prune() }
        #expect(throws: GeocoderError.cannotOpen(file: file.path, reason: "Not a directory")) { try IndexCacheDirectory(file).summary() }
    }

    /// Two processes pruning one directory at once: each file is removed once, by one of them, and
    /// neither reports the other's removals as failures or throws.
    @Test func concurrentPrunersNeitherFailNorRemoveAFileTwice() async throws {
        try await offPool {
            let s = Setup()
            try s.dataFolder("gone")
            try s.load("gone")
            let original = s.root.appendingPathComponent("template.geoidx")  // outside the directory
            try FileManager.default.moveItem(at: try s.cacheFile("gone"), to: original)
            try FileManager.default.removeItem(at: s.root.appendingPathComponent("gone"))
            for round in 0..<5 {
                var copies: Set<String> = []
                for k in 0..<40 {
                    let copy = s.cache.appendingPathComponent("d-\(round)\(k)0000000000000.geoidx")
                    try FileManager.default.copyItem(at: original, to: copy)
                    copies.insert(copy.path)
                }
                let threads = 3
                let results = Mutex<[Result<IndexCacheDirectory.PruneReport, GeocoderError>]>([])
                DispatchQueue.concurrentPerform(iterations: threads) { t in
                    // Half explicit, half as the engine prunes after a write.
                    let result: Result<IndexCacheDirectory.PruneReport, GeocoderError>
                    if t % 2 == 0 {
                        result = Result { () throws(GeocoderError) in try IndexCacheDirectory(s.cache).prune() }
                    } else {
                        var report = IndexCacheDirectory.PruneReport()
                        result = Result { () throws(GeocoderError) in
                            try IndexCacheDirectory(s.cache).prune(.automatic(keeping: []), now: Date(), into: &report)
                            return report
                        }
                    }
                    results.withLock { $0.append(result) }
                }
                let reports = try results.withLock { try $0.map { try $0.get() } }
                #expect(reports.map(\.failures) == Array(repeating: [], count: threads))
                let removed = reports.flatMap { $0.removed.map(\.path) }
                #expect(removed.count == Set(removed).count, "a file reported removed twice")
                #expect(Set(removed) == copies)
                #expect(try s.names().isEmpty)
            }
        }
    }
}
