import Foundation
import Testing
import TestSupport
@testable import ReverseGeocoder

/// Issue 18, faults 2, 8 and 9: the manifest's sha256 digests are checked when an index is built, broken
/// dataset folders are errors (or named warnings), and the cache's temporary files of dead writers go.
/// Oracles from outside: FIPS 180-4's published SHA-256 vectors and coreutils' `sha256sum`.
struct DataIntegrityTests {
    // MARK: SHA-256

    @Test func sha256MatchesThePublishedVectors() {
        #expect(SHA256.hex(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(of: Data(repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func sha256FedInPiecesEqualsOneShot() {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let whole = bytes.withUnsafeBytes { SHA256.hex(of: $0) }
        for cut in [1, 55, 56, 63, 64, 65, 127, 4999] {
            var s = SHA256()
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = min(cut, raw.count - offset)
                    s.update(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + n)]))
                    offset += n
                }
            }
            #expect(s.finish() == whole, "pieces of \(cut)")
        }
    }

    /// The SHA instructions (CSHA256) against the Swift rounds, which the published vectors above hold to
    /// FIPS 180-4 whichever path this CPU takes: every length across the one- and two-block paddings,
    /// pieces of odd sizes, and a megabyte.
    @Test func sha256HardwareRoundsEqualTheSwiftRounds() {
        var rng = SplitMix64(seed: 256)
        let bytes = (0..<(1 << 20)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        bytes.withUnsafeBytes { raw in
            func both(_ n: Int, piece: Int) -> (String, String) {
                var fast = SHA256(), slow = SHA256(portable: true)
                var offset = 0
                while offset < n {
                    let k = min(piece, n - offset)
                    fast.update(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + k)]))
                    slow.update(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + k)]))
                    offset += k
                }
                return (fast.finish(), slow.finish())
            }
            for n in 0...300 {
                let (a, b) = both(n, piece: n == 0 ? 1 : n)
                #expect(a == b, "\(n) bytes")
            }
            for piece in [7, 64, 1000] {
                let (a, b) = both(raw.count, piece: piece)
                #expect(a == b, "1 MB in pieces of \(piece)")
            }
        }
    }

    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { dir.deleteLastPathComponent() }
        return dir
    }()

    /// The bundled manifests' digests are the files' (as `sha256sum` computes them), and ours agrees.
    @Test(arguments: ["china", "world"]) func bundledManifestsListTheRightDigests(_ dataset: String) throws {
        let dir = Self.root.appendingPathComponent("Data/\(dataset)")
        let manifest = try DatasetManifest.load(from: dir.appendingPathComponent("manifest.json"))
        let files = try #require(manifest.files)
        // Every file of the dataset is listed (the manifest itself excluded).
        let present = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "manifest.json" }
        #expect(Set(files.keys) == Set(present))
        for (name, digest) in files {
            let path = dir.appendingPathComponent(name).path
            let oracle = try SHA256Sum.of(path)
            #expect(digest.sha256 == oracle, "\(name)")
            #expect(try SHA256.hex(ofFile: path) == oracle, "\(name)")
            #expect(digest.bytes == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
        }
    }

    // MARK: Modified data

    /// A dataset folder with two districts (codes 110101, 110102) and a manifest listing its files' digests.
    struct Folder {
        let directory: URL
        let cache: URL
        var dbf: URL { directory.appendingPathComponent("d.dbf") }

        init(_ name: String = #function, listDigests: Bool = true) throws {
            let base = TestShapefile.directory(name)
            directory = base.appendingPathComponent("data")
            cache = base.appendingPathComponent("cache")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            TestShapefile.write(directory.appendingPathComponent("d"), fields: ["NAME", "CODE"], records: [
                .init(rings: [TestShapefile.box(0, 0, 1, 1)], ["NAME": "东城区", "CODE": "110101"]),
                .init(rings: [TestShapefile.box(1, 0, 2, 1)], ["NAME": "西城区", "CODE": "110102"]),
            ])
            var manifest = DatasetManifest(name: "d", layers: [.init(file: "d.shp", level: .district,
                                                                     fields: [.district: .init(name: ["NAME"], code: ["CODE"])])])
            if listDigests {
                var files: [String: DatasetManifest.FileDigest] = [:]
                for ext in ["shp", "shx", "dbf", "cpg"] {
                    let path = directory.appendingPathComponent("d.\(ext)").path
                    files["d.\(ext)"] = .init(bytes: nil, sha256: try SHA256Sum.of(path))
                }
                manifest.files = files
            }
            try JSONEncoder().encode(manifest).write(to: directory.appendingPathComponent("manifest.json"))
        }

        /// Changes the last digit of 110101 to 9, as one mistyped digit would.
        func mistypeACode() throws {
            var bytes = try Data(contentsOf: dbf)
            let at = try #require(bytes.firstRange(of: Data("110101".utf8)))
            bytes[at.upperBound - 1] = UInt8(ascii: "9")
            try bytes.write(to: dbf)
        }

        func engine(allowModified: Bool = false, cached: Bool = false) throws -> ReverseGeocoder {
            try ReverseGeocoder(directory: directory, options: .init(cellSize: nil, cacheDirectory: cached ? cache : nil,
                                                                     allowModifiedData: allowModified))
        }
    }

    @Test func aMistypedCodeInTheDBFIsAnErrorNamingTheFileAndBothDigests() throws {
        let folder = try Folder()
        #expect(try folder.engine().placemark(latitude: 0.5, longitude: 0.5)?.subLocalityCode == "110101")
        let expected = try SHA256Sum.of(folder.dbf.path)
        try folder.mistypeACode()
        let actual = try SHA256Sum.of(folder.dbf.path)
        #expect(throws: GeocoderError.modifiedFile(file: folder.dbf.path, expected: expected, actual: actual)) {
            try folder.engine()
        }
    }

    /// The digests run on a thread of their own while the layer is read (when a second core may be
    /// used); a file both changed and unreadable must still be named as changed, on one core or two.
    @Test(arguments: [1, 2]) func aChangedFileThatNoLongerReadsIsNamedAsChanged(threads: Int) throws {
        let folder = try Folder()
        let shp = folder.directory.appendingPathComponent("d.shp")
        let expected = try SHA256Sum.of(shp.path)
        try Data(try Data(contentsOf: shp).prefix(120)).write(to: shp)  // a header cut short: the reader refuses it
        let actual = try SHA256Sum.of(shp.path)
        var options = ReverseGeocoder.Options(cellSize: nil)
        options.buildThreads = threads
        #expect(throws: GeocoderError.modifiedFile(file: shp.path, expected: expected, actual: actual)) {
            try ReverseGeocoder(directory: folder.directory, options: options)
        }
        // The same file without the check is a reading error, not a digest one.
        options.allowModifiedData = true
        #expect(throws: (any Error).self) { try ReverseGeocoder(directory: folder.directory, options: options) }
    }

    @Test func allowModifiedDataLoadsItWithAWarning() throws {
        let folder = try Folder()
        let expected = try SHA256Sum.of(folder.dbf.path)
        try folder.mistypeACode()
        let engine = try folder.engine(allowModified: true)
        #expect(try engine.placemark(latitude: 0.5, longitude: 0.5)?.subLocalityCode == "110109")
        #expect(engine.datasets[0].modifiedFiles == [ModifiedFile(file: folder.dbf.path, expected: expected,
                                                                  actual: try SHA256Sum.of(folder.dbf.path))])
        #expect(engine.warnings.count == 1 && engine.warnings[0].contains("d.dbf") && engine.warnings[0].contains("(allowed)"))
    }

    /// A cache built from modified files under the option must not let a later run without it use them.
    @Test func aCacheBuiltFromModifiedDataIsRefusedWithoutTheOption() throws {
        let folder = try Folder()
        try folder.mistypeACode()
        let first = try folder.engine(allowModified: true, cached: true)
        #expect(first.datasets[0].cacheStatus?.hasPrefix("rebuilt") == true)
        #expect(try folder.engine(allowModified: true, cached: true).datasets[0].cacheStatus == "loaded")
        #expect(throws: GeocoderError.self) { try folder.engine(cached: true) }
        do {
            _ = try folder.engine(cached: true)
        } catch let GeocoderError.modifiedFile(file, _, _) {
            #expect(file == folder.dbf.path)
        }
    }

    /// Unlisted files are not checked: a manifest without `files` (written by hand) loads as before.
    @Test func aManifestWithoutDigestsIsNotChecked() throws {
        let folder = try Folder(listDigests: false)
        try folder.mistypeACode()
        let engine = try folder.engine()
        #expect(try engine.placemark(latitude: 0.5, longitude: 0.5)?.subLocalityCode == "110109")
        #expect(engine.warnings.isEmpty)
    }

    // MARK: Broken dataset folders

    /// A data directory with the dataset `d`, a stray `LICENSES/` folder, and `more/` holding a shapefile
    /// without a manifest.
    static func dataDirectoryWithAFolderMissingItsManifest(_ name: String = #function) throws -> (root: URL, broken: URL) {
        let folder = try Folder(name)
        let root = folder.directory.deletingLastPathComponent().appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: folder.directory, to: root.appendingPathComponent("d"))
        let licences = root.appendingPathComponent("LICENSES")
        try FileManager.default.createDirectory(at: licences, withIntermediateDirectories: true)
        try Data("public domain".utf8).write(to: licences.appendingPathComponent("README.md"))
        let broken = root.appendingPathComponent("more")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        TestShapefile.write(broken.appendingPathComponent("m"), fields: ["NAME", "CODE"],
                            records: [.init(rings: [TestShapefile.box(5, 5, 6, 6)], ["NAME": "m", "CODE": "1"])])
        return (root, broken)
    }

    @Test func aFolderWithShapefilesButNoManifestIsAnError() throws {
        let (root, broken) = try Self.dataDirectoryWithAFolderMissingItsManifest()
        #expect(throws: GeocoderError.brokenDataset(directory: broken.path, reason: "has shapefiles (m.shp) but no manifest.json")) {
            try ReverseGeocoder(directory: root, options: .init(cellSize: nil))
        }
        #expect(throws: GeocoderError.self) { try ReverseGeocoder.manifests(in: root) }
    }

    @Test func skipBrokenDatasetsLoadsTheRestAndSaysWhatItSkipped() throws {
        let (root, broken) = try Self.dataDirectoryWithAFolderMissingItsManifest()
        let engine = try ReverseGeocoder(directory: root, options: .init(cellSize: nil, skipBrokenDatasets: true))
        #expect(engine.datasets.map(\.name) == ["d"])
        #expect(engine.warnings == ["skipped dataset folder \(broken.path): has shapefiles (m.shp) but no manifest.json"])
        #expect(try engine.placemark(latitude: 0.5, longitude: 0.5)?.subLocalityCode == "110101")
    }

    /// `--data` pointing at a dataset folder that lost its manifest is an error, not "no manifest anywhere".
    @Test func aDataDirectoryThatIsItselfADatasetWithoutManifest() throws {
        let folder = try Folder()
        try FileManager.default.removeItem(at: folder.directory.appendingPathComponent("manifest.json"))
        #expect(throws: GeocoderError.brokenDataset(directory: folder.directory.path, reason: "has shapefiles (d.shp) but no manifest.json")) {
            try ReverseGeocoder(directory: folder.directory, options: .init(cellSize: nil))
        }
    }

    /// The benchmark suite's layout: a manifest naming shapefiles in its `layer/` subfolder, with their
    /// digests under `layer/…` keys. The subfolder is no orphan dataset, and its files are checked.
    @Test func shapefilesInASubfolderNamedByTheManifestAreNoOrphansAndAreChecked() throws {
        let base = TestShapefile.directory()
        let layer = base.appendingPathComponent("layer")
        try FileManager.default.createDirectory(at: layer, withIntermediateDirectories: true)
        TestShapefile.write(layer.appendingPathComponent("d"), fields: ["NAME", "CODE"],
                            records: [.init(rings: [TestShapefile.box(0, 0, 1, 1)], ["NAME": "东城区", "CODE": "110101"])])
        var manifest = DatasetManifest(name: "bench", layers: [.init(file: layer.appendingPathComponent("d.shp").path, level: .district,
                                                                     fields: [.district: .init(name: ["NAME"], code: ["CODE"])])])
        manifest.files = ["layer/d.dbf": .init(sha256: try SHA256Sum.of(layer.appendingPathComponent("d.dbf").path))]
        try JSONEncoder().encode(manifest).write(to: base.appendingPathComponent("manifest.json"))
        #expect(try ReverseGeocoder(directory: base, options: .init(cellSize: nil)).placemark(latitude: 0.5, longitude: 0.5)?.subLocalityCode == "110101")
        try Data("changed".utf8).write(to: layer.appendingPathComponent("d.dbf"))
        #expect(throws: GeocoderError.self) { try ReverseGeocoder(directory: base, options: .init(cellSize: nil)) }
    }

    @Test func aManifestThatIsADirectoryOrUnreadableIsNamedAsSuch() throws {
        let folder = try Folder()
        let manifest = folder.directory.appendingPathComponent("manifest.json")
        try FileManager.default.removeItem(at: manifest)
        try FileManager.default.createDirectory(at: manifest, withIntermediateDirectories: false)
        #expect(throws: GeocoderError.brokenDataset(directory: folder.directory.path, reason: "manifest.json cannot be read: is a directory")) {
            try ReverseGeocoder(directory: folder.directory, options: .init(cellSize: nil))
        }
    }
}
