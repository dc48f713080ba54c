import Foundation
import Testing
import TestSupport

/// An index cache damaged on disk, through the real binary on the bundled Data/: every command answers
/// as from an intact cache, rebuilds the dataset, and says so once on stderr, whether the damage is found
/// at load (`batch`: the copy checked whole) or by a query (`geocode LAT LON` and `track`: the cache
/// mapped and checked as queries read it). Before, a query's find was rebuilt without a word, and so was
/// a damaged file found at load.
@Suite(.serialized)
struct CacheDamageCLITests {
    static let root = TrackAndInfoTests.root

    /// Intact caches of the bundled data without the cell quadtree (the environment of the real-data
    /// tests: a debug binary's quadtree build would dominate), built once by `geocode index`.
    actor IntactCaches {
        private var dir: URL?
        func get() async throws -> URL {
            if let dir { return dir }
            let made = try TemporaryDirectory.shared.newFolder("damage-intact")
            let r = try await TrackAndInfoTests.run(["index"], environment: ["GEOCODE_CACHE_DIR": made.path])
            #expect(r.status == 0, "\(r.err)")
            dir = made
            return made
        }
    }
    static let intactCaches = IntactCaches()

    /// A copy of the intact caches with one byte flipped in every 16 KB of the China file's arrays: the
    /// header, and the block checksum table and metadata at the end (the table is 8 bytes a block) left
    /// whole, so the file opens and only the arrays' checksums can tell.
    static func damagedCopy() async throws -> (dir: URL, china: URL) {
        let copy = try await damagedCopy(alsoOneByteOf: nil)
        return (copy.dir, copy.china)
    }

    /// ``damagedCopy()``, and with one byte flipped in the middle of the arrays of the dataset
    /// `second`'s file (nil: none), returned too.
    static func damagedCopy(alsoOneByteOf second: String?) async throws -> (dir: URL, china: URL, second: URL?) {
        let intact = try await intactCaches.get()
        let dir = try TemporaryDirectory.shared.newFolder("damage")
        var china: URL?, other: URL?
        for name in try FileManager.default.contentsOfDirectory(atPath: intact.path) where name.hasSuffix(".geoidx") {
            let to = dir.appendingPathComponent(name)
            try FileManager.default.copyItem(at: intact.appendingPathComponent(name), to: to)
            if name.hasPrefix("china-") { china = to }
            if let second, name.hasPrefix(second + "-") { other = to }
        }
        func flip(_ file: URL, _ positions: (_ metaOffset: Int) -> [Int]) throws {
            var bytes = [UInt8](try Data(contentsOf: file))
            // The header: 8 bytes of magic, the format and byte-order words, then the metadata's offset.
            let metaOffset = bytes[16..<24].reversed().reduce(0) { $0 << 8 | Int($1) }
            #expect(metaOffset > 1 << 20 && metaOffset < bytes.count)
            for at in positions(metaOffset) { bytes[at] ^= 0x20 }
            try Data(bytes).write(to: file)
        }
        let file = try #require(china)
        try flip(file) { Array(stride(from: 64 + 7, to: $0 - (256 << 10), by: 16_384)) }
        if second != nil { try flip(try #require(other)) { [$0 / 2] } }
        return (dir, file, other)
    }

    static func run(_ arguments: [String], cache: URL) async throws -> GeocodeBinary.Result {
        try await TrackAndInfoTests.run(arguments, environment: ["GEOCODE_CACHE_DIR": cache.path])
    }

    /// The one line that says `file` was damaged and its dataset rebuilt, and nothing else on stderr but `allowed`.
    static func expectOneDamageWarning(_ err: String, file: URL, allowing allowed: (Substring) -> Bool = { _ in false }) {
        let lines = err.split(separator: "\n")
        let warnings = lines.filter { $0.hasPrefix("geocode: warning: index cache \(file.path) was damaged (checksum mismatch in layer ") }
        #expect(warnings.count == 1, "\(err)")
        #expect(warnings.first?.hasSuffix("); dataset china rebuilt") == true, "\(err)")
        #expect(lines.allSatisfy { $0.hasPrefix("geocode: warning: index cache ") || allowed($0) }, "\(err)")
    }

    @Test func onePointFindsTheDamageAnswersAndSaysSo() async throws {
        let intact = try await Self.run(["39.9087", "116.3975"], cache: try await Self.intactCaches.get())
        #expect(intact.status == 0 && intact.out.contains("东城区") && intact.err.isEmpty, "\(intact.err)")
        let (dir, china) = try await Self.damagedCopy()
        let damaged = try await Self.run(["39.9087", "116.3975"], cache: dir)
        #expect(damaged.status == 0)
        #expect(damaged.out == intact.out)
        Self.expectOneDamageWarning(damaged.err, file: china)
        // Rebuilt in place: the next run finds nothing to say.
        let again = try await Self.run(["39.9087", "116.3975"], cache: dir)
        #expect(again.out == intact.out && again.err.isEmpty, "\(again.err)")
    }

    /// A second damaged cache (the world's), which no query reads: the engine that replaces the one whose
    /// query met China's damage checks every other cache whole at its load, finds it and rebuilds it
    /// too. Both are said, once each; before, the second was rebuilt without a word.
    @Test func aSecondDamageFoundByTheRebuildIsSaidToo() async throws {
        let intact = try await Self.run(["39.9087", "116.3975"], cache: try await Self.intactCaches.get())
        #expect(intact.status == 0 && intact.out.contains("东城区") && intact.err.isEmpty, "\(intact.err)")
        let (dir, china, world) = try await Self.damagedCopy(alsoOneByteOf: "world")
        let worldFile = try #require(world)
        let damaged = try await Self.run(["39.9087", "116.3975"], cache: dir)
        #expect(damaged.status == 0)
        #expect(damaged.out == intact.out)
        let lines = damaged.err.split(separator: "\n")
        #expect(lines.count == 2, "\(damaged.err)")
        #expect(lines.filter { $0.hasPrefix("geocode: warning: index cache \(china.path) was damaged (checksum mismatch in layer ")
            && $0.hasSuffix("); dataset china rebuilt") }.count == 1, "\(damaged.err)")
        #expect(lines.filter { $0.hasPrefix("geocode: warning: index cache \(worldFile.path) was damaged (checksum mismatch in ")
            && $0.hasSuffix("); dataset world rebuilt") }.count == 1, "\(damaged.err)")
        let again = try await Self.run(["39.9087", "116.3975"], cache: dir)
        #expect(again.out == intact.out && again.err.isEmpty, "\(again.err)")
    }

    /// A damaged cache the process cannot remove (made immutable, `chattr +i`, which stops root too):
    /// one line for China, which says the file could not be removed and why, so that the user knows the
    /// next start will rebuild again, as it does. Before, the rebuild's own load met the same file damaged
    /// at another block and said it in a second line.
    @Test(.enabled(if: ImmutableFile.isSupported, "needs chattr +i (CAP_LINUX_IMMUTABLE and ext4, XFS or btrfs) in the temporary directory"))
    func aDamagedCacheThatCannotBeRemovedIsSaidOnceWithWhy() async throws {
        let intact = try await Self.run(["39.9087", "116.3975"], cache: try await Self.intactCaches.get())
        #expect(intact.status == 0 && intact.out.contains("东城区") && intact.err.isEmpty, "\(intact.err)")
        let (dir, china) = try await Self.damagedCopy()
        let failure = ImmutableFile.set(china, immutable: true)
        try #require(failure == nil, "\(failure ?? "")")
        defer { ImmutableFile.set(china, immutable: false) }
        for _ in 0..<2 {
            let damaged = try await Self.run(["39.9087", "116.3975"], cache: dir)
            #expect(damaged.status == 0)
            #expect(damaged.out == intact.out)
            let lines = damaged.err.split(separator: "\n")
            #expect(lines.count == 1, "\(damaged.err)")
            #expect(lines.first?.hasPrefix("geocode: warning: index cache \(china.path) was damaged (checksum mismatch in layer ") == true
                && lines.first?.hasSuffix("); dataset china rebuilt, but the file could not be removed (permission denied): "
                                          + "the next start will find it damaged and rebuild it again") == true, "\(damaged.err)")
        }
    }

    @Test func trackFindsTheDamageOnTheFirstFixAndPrintsTheSameEvents() async throws {
        let gpx = Self.root.appendingPathComponent("Tests/LocationKitTests/Fixtures/beijing-tianjin.gpx").path
        let arguments = ["track", "--gpx", gpx, "--speed", "max"]
        let intact = try await Self.run(arguments, cache: try await Self.intactCaches.get())
        #expect(intact.status == 0 && intact.err.isEmpty, "\(intact.err)")
        #expect(intact.out.split(separator: "\n").filter { $0.contains(" placemark ") }.count == 445)
        let (dir, china) = try await Self.damagedCopy()
        let damaged = try await Self.run(arguments, cache: dir)
        #expect(damaged.status == 0)
        #expect(damaged.out == intact.out)
        Self.expectOneDamageWarning(damaged.err, file: china)
    }

    /// `track` maps the caches and checks what its fixes read, as one point does, instead of copying and
    /// checking all of them at start (350 MB for the bundled data): a drive in Berlin never reads the
    /// China file, so its damage is neither met nor rebuilt, and the answers are the intact caches'.
    @Test func trackChecksOnlyWhatItsFixesRead() async throws {
        let gpx = try TemporaryDirectory.shared.newFile("berlin", extension: "gpx")
        try Data("""
            <?xml version="1.0"?><gpx version="1.1" creator="test"><trk><trkseg>
            <trkpt lat="52.5200" lon="13.4050"><time>2024-05-01T10:00:00Z</time></trkpt>
            <trkpt lat="52.5163" lon="13.3777"><time>2024-05-01T10:05:00Z</time></trkpt>
            <trkpt lat="52.4000" lon="13.0650"><time>2024-05-01T10:40:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """.utf8).write(to: gpx)
        let arguments = ["track", "--gpx", gpx.path, "--speed", "max"]
        let intact = try await Self.run(arguments, cache: try await Self.intactCaches.get())
        #expect(intact.status == 0 && intact.err.isEmpty, "\(intact.err)")
        #expect(intact.out.contains("Berlin") && intact.out.contains("Brandenburg"), "\(intact.out)")
        let (dir, china) = try await Self.damagedCopy()
        let before = try Data(contentsOf: china)
        let damaged = try await Self.run(arguments, cache: dir)
        #expect(damaged.status == 0 && damaged.out == intact.out)
        #expect(damaged.err.isEmpty, "\(damaged.err)")
        #expect(try Data(contentsOf: china) == before, "the China cache was read (and rebuilt)")
    }

    @Test func batchFindsTheDamageAtLoadAndSaysSo() async throws {
        let input = try TemporaryDirectory.shared.newFile("damage-batch", extension: "csv")
        try Data("id,lat,lon\n1,39.9087,116.3975\n2,31.2397,121.4998\n3,52.52,13.405\n".utf8).write(to: input)
        let arguments = ["batch", input.path, "--quiet"]
        let intact = try await Self.run(arguments, cache: try await Self.intactCaches.get())
        #expect(intact.status == 0 && intact.err.isEmpty, "\(intact.err)")
        #expect(intact.out.contains("东城区") && intact.out.contains("Berlin"), "\(intact.out)")
        let (dir, china) = try await Self.damagedCopy()
        let damaged = try await Self.run(arguments, cache: dir)
        #expect(damaged.status == 0)
        #expect(damaged.out == intact.out)
        Self.expectOneDamageWarning(damaged.err, file: china)
    }
}
