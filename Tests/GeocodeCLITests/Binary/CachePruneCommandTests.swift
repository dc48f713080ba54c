#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// `geocode index --prune` and the cache directory line of `geocode info`, through the real binary on
/// a three-unit fixture dataset copied into temporary data folders, each with a cache directory of its own.
struct CachePruneCommandTests {
    static let fixture = TrackAndInfoTests.root.appendingPathComponent("Tests/ReverseGeocoderTests/Fixtures/overlay/localities")

    static func run(_ arguments: [String], cache: String) async throws -> GeocodeBinary.Result {
        try await GeocodeBinary.run(arguments, environment: ["GEOCODE_TEST_LOOKUP": "", "GEOCODE_CACHE_DIR": cache])
    }

    /// A data directory holding the fixture dataset, readable by everyone.
    static func dataDirectory() throws -> URL {
        let data = try TemporaryDirectory.shared.newFolder("data")
        try FileManager.default.copyItem(at: fixture, to: data.appendingPathComponent("localities"))
        return data
    }

    static func size(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

    /// Builds a data directory's cache with `geocode index`; returns the cache file's path, read from its output.
    static func index(_ data: URL, cache: URL) async throws -> String {
        let r = try await run(["index", "--data", data.path], cache: cache.path)
        #expect(r.status == 0, "\(r.err)")
        let line = try #require(r.out.split(separator: "\n").first)
        let path = try #require(line.split(separator: " ").dropFirst().first)  // "fixture-localities: PATH (1.2 MB): …"
        #expect(path.hasPrefix(cache.path + "/fixture-localities-") && path.hasSuffix(".geoidx"), "\(line)")
        return String(path)
    }

    @Test func pruneRemovesTheCacheOfADeletedDataFolderAndSaysWhatItFreed() async throws {
        let cache = try TemporaryDirectory.shared.newFolder("prune-cache")
        let gone = try Self.dataDirectory(), live = try Self.dataDirectory()
        let goneFile = try await Self.index(gone, cache: cache)
        let liveFile = try await Self.index(live, cache: cache)
        let goneSize = try Self.size(goneFile), liveSize = try Self.size(liveFile)
        // A file that is not an index cache, named like one: never touched, but counted by info.
        let foreign = cache.appendingPathComponent("notes.geoidx").path
        try Data("mine".utf8).write(to: URL(fileURLWithPath: foreign))
        try FileManager.default.removeItem(at: gone)

        let info = try await Self.run(["info", "--data", live.path], cache: cache.path)
        #expect(info.status == 0, "\(info.err)")
        #expect(info.out.contains("\nindex cache directory: \(cache.path): 3 files, \(Self.megabytes(goneSize + liveSize + 4))\nloaded in "),
                "\(info.out)")

        let pruned = try await Self.run(["index", "--prune"], cache: cache.path)
        #expect(pruned.status == 0, "\(pruned.err)")
        #expect(pruned.out == """
            removed \(goneFile) (\(Self.megabytes(goneSize))): its data folder \(gone.path)/localities no longer exists
            freed \(Self.megabytes(goneSize)) (\(goneSize) bytes) in 1 file; \(cache.path) holds 2 files, \(Self.megabytes(liveSize + 4))

            """)
        #expect(pruned.err.isEmpty, "\(pruned.err)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: cache.path))
                == [URL(fileURLWithPath: liveFile).lastPathComponent, "notes.geoidx"])

        let again = try await Self.run(["index", "--prune"], cache: cache.path)
        #expect(again.status == 0)
        #expect(again.out == "nothing to remove; \(cache.path) holds 2 files, \(Self.megabytes(liveSize + 4))\n")
        // The live folder's cache still serves it.
        let reindex = try await Self.run(["index", "--data", live.path], cache: cache.path)
        #expect(reindex.out.hasPrefix("fixture-localities: \(liveFile) (") && reindex.out.contains("): loaded\n"), "\(reindex.out)")
    }

    @Test func aCacheDirectoryThatCannotBeReadIsExitFiveNamingIt() async throws {
        let file = try TemporaryDirectory.shared.newFile("not-a-directory")
        let prune = try await Self.run(["index", "--prune"], cache: file.path)
        #expect(prune.status == 5, "\(prune.out)")
        #expect(prune.err == "geocode: cannot read the index cache directory \(file.path): Not a directory\n", "\(prune.err)")
        let data = try Self.dataDirectory()
        let info = try await Self.run(["info", "--data", data.path], cache: file.path)
        #expect(info.status == 5)
        #expect(info.out.contains("\nindex cache directory: \(file.path): cannot be read\n"), "\(info.out)")
        #expect(info.err.contains("geocode: cannot read the index cache directory \(file.path): Not a directory\n"), "\(info.err)")
        // Permission: as nobody (root reads mode 000).
        if RobustnessTests.canRunUnprivileged {
            let closed = try TemporaryDirectory.shared.newFolder("closed-cache")
            chmod(TemporaryDirectory.shared.url.path, 0o755)
            chmod(closed.path, 0o000)
            defer { chmod(closed.path, 0o755) }
            let r = try await RobustnessTests.run(["index", "--prune"], unprivileged: true, environment: ["GEOCODE_CACHE_DIR": closed.path])
            #expect(r.status == 5)
            #expect(r.err == "geocode: cannot read the index cache directory \(closed.path): permission denied\n", "\(r.err)")
        }
    }

    @Test func pruneOnAMissingDirectoryHasNothingToDoAndTakesNoBuildOption() async throws {
        let missing = TemporaryDirectory.shared.uniqueURL("never-made", extension: "").path
        let r = try await Self.run(["index", "--prune"], cache: missing)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "nothing to remove: \(missing) does not exist\n")
        #expect(!FileManager.default.fileExists(atPath: missing))
        for option in [["--rebuild"], ["--data", "/tmp"], ["--skip-broken-datasets"]] {
            let bad = try await Self.run(["index", "--prune"] + option, cache: missing)
            #expect(bad.status == 2, "\(option)")
            #expect(bad.err.hasPrefix("geocode: --prune takes no \(option[0]): it removes cache files of every data folder and builds nothing\n"),
                    "\(bad.err)")
        }
        let help = try await Self.run(["index", "--help"], cache: missing)
        #expect(help.out.contains("--prune") && help.out.contains("30 days"))
    }
}
