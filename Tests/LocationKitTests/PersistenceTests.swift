import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit
#if canImport(Glibc)
import Glibc
#endif

/// The persisted current placemark: round trip, atomic replacement, corrupt files, and the manager's
/// use of it.
@Suite struct PersistenceTests {
    let dir: URL
    var file: URL { dir.appendingPathComponent("current.json") }

    init() throws { dir = try temporaryDirectory() }

    func cleanUp() { try? FileManager.default.removeItem(at: dir) }

    func loadFailure(_ store: PlacemarkStore) -> PlacemarkStore.Failure? {
        do throws(PlacemarkStore.Failure) {
            _ = try store.load()
            return nil
        } catch {
            return error
        }
    }

    @Test func roundTrip() throws {
        defer { cleanUp() }
        let store = PlacemarkStore(url: file)
        #expect(try store.load() == nil)  // no file yet: nothing, no error
        try store.save(.haidian)
        #expect(try store.load() == .haidian)
        try store.save(.hexi)
        #expect(try store.load() == .hexi)
    }

    /// The format is part of the contract: a file written by version 1 keeps loading.
    @Test func readsTheVersion1Fixture() throws {
        let url = try #require(Bundle.module.url(forResource: "current-placemark-v1", withExtension: "json",
                                                 subdirectory: "Fixtures"))
        let placemark = try #require(try PlacemarkStore(url: url).load())
        #expect(placemark.locality == "北京市")
        #expect(placemark.localityCode == "110000")
        #expect(placemark.subLocality == "海淀区")
        #expect(placemark.localityIsProvinceFallback)
    }

    @Test func writesTheDocumentedFormat() throws {
        defer { cleanUp() }
        try PlacemarkStore(url: file).save(.haidian, at: Date(timeIntervalSince1970: 0))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(json["format"] as? String == "offline-geocoder.current-placemark")
        #expect(json["version"] as? Int == 1)
        #expect(json["savedAt"] as? String == "1970-01-01T00:00:00Z")
        #expect((json["placemark"] as? [String: Any])?["localityCode"] as? String == "110000")
    }

    /// Saving goes through a temporary file and a rename: no temporary file is left behind, the file is
    /// a new inode each time (never rewritten in place), and a reader that opened the old file still
    /// reads the whole old content.
    @Test func saveIsTempPlusRename() throws {
        defer { cleanUp() }
        let store = PlacemarkStore(url: file)
        try store.save(.haidian)
        let before = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? UInt64
        let oldReader = try FileHandle(forReadingFrom: file)
        defer { try? oldReader.close() }

        try store.save(.hexi)
        let after = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? UInt64
        #expect(before != nil && after != nil && before != after)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["current.json"])

        let oldContent = try #require(try oldReader.readToEnd())
        let record = try JSONDecoder.iso8601.decode(PlacemarkStore.Record.self, from: oldContent)
        #expect(record.placemark == .haidian)
        #expect(try store.load() == .hexi)
    }

    /// A reader polling the file while it is saved over and over always finds a whole, valid file.
    @Test func concurrentReaderNeverSeesAPartialFile() async throws {
        defer { cleanUp() }
        let store = PlacemarkStore(url: file)
        try store.save(.haidian)
        let writes = 150
        let writer = Task.detached {
            for i in 0..<writes { try store.save(i.isMultiple(of: 2) ? .hexi : .haidian) }
        }
        let reader = Task.detached { () -> (reads: Int, bad: Int) in
            var reads = 0, bad = 0
            while reads < 2000 {
                do throws(PlacemarkStore.Failure) {
                    let p = try store.load()
                    if p != .hexi && p != .haidian { bad += 1 }
                } catch {
                    bad += 1
                }
                reads += 1
            }
            return (reads, bad)
        }
        try await writer.value
        let (reads, bad) = await reader.value
        #expect(reads == 2000)
        #expect(bad == 0)
    }

    /// A save that cannot complete (target is a directory) throws, leaves no temporary file, and leaves
    /// what was there alone.
    @Test func failedSaveLeavesNoTemporaryFile() throws {
        defer { cleanUp() }
        let target = dir.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: target.appendingPathComponent("inside"), withIntermediateDirectories: true)
        #expect(throws: PlacemarkStore.Failure.self) { try PlacemarkStore(url: target).save(.haidian) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["taken"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == ["inside"])

        let missing = dir.appendingPathComponent("no/such/dir/current.json")
        #expect(throws: PlacemarkStore.Failure.self) { try PlacemarkStore(url: missing).save(.haidian) }
    }

    @Test(arguments: [
        ("", "empty file"),
        ("{\"format\":", "not a current-placemark file"),
        ("[1,2,3]", "not a current-placemark file"),
        ("{\"format\":\"something-else\",\"version\":1,\"savedAt\":\"2025-01-01T00:00:00Z\",\"placemark\":{\"dataset\":\"x\",\"localityIsProvinceFallback\":false}}", "format is"),
        ("{\"format\":\"offline-geocoder.current-placemark\",\"version\":99,\"savedAt\":\"2025-01-01T00:00:00Z\",\"placemark\":{\"dataset\":\"x\",\"localityIsProvinceFallback\":false}}", "unsupported version 99"),
        ("{\"format\":\"offline-geocoder.current-placemark\",\"version\":1,\"savedAt\":\"2025-01-01T00:00:00Z\"}", "missing \"placemark\""),
    ])
    func corruptFilesAreReported(content: String, reason: String) throws {
        defer { cleanUp() }
        try Data(content.utf8).write(to: file)
        let failure = loadFailure(PlacemarkStore(url: file))
        guard case .corrupt(let text) = failure else {
            Issue.record("expected .corrupt, got \(String(describing: failure))")
            return
        }
        #expect(text.contains(reason))
    }

    @Test func binaryGarbageIsCorrupt() throws {
        defer { cleanUp() }
        try Data([0xff, 0x00, 0xfe, 0x12, 0x80]).write(to: file)
        guard case .corrupt = loadFailure(PlacemarkStore(url: file)) else {
            Issue.record("binary garbage should be .corrupt")
            return
        }
    }

    // MARK: With the manager

    @Test func managerRestoresOnStart() async throws {
        defer { cleanUp() }
        try PlacemarkStore(url: file).save(.wuqing)
        let m = LocationManager(source: ScriptedSource([], finishes: false), geocoder: RegionProvider(),
                                currentPlacemarkFile: file)
        #expect(m.currentPlacemark == nil)  // not read before a start
        m.startUpdatingLocation()
        #expect(m.currentPlacemark == .wuqing)
        m.stopUpdatingLocation()
    }

    @Test func managerSavesTheCurrentPlacemark() async throws {
        defer { cleanUp() }
        let m = LocationManager(source: ScriptedSource(locations: track([39.5, 39.5, 39.3, 39.3], longitude: 116.4)),
                                geocoder: RegionProvider(), currentPlacemarkFile: file)
        m.cityChangeHysteresis = .init(consecutiveFixes: 2, minimumDistance: 0)
        let events = await drive(m)
        #expect(events.warnings.isEmpty)
        #expect(events.cityChanges.count == 1)
        #expect(try PlacemarkStore(url: file).load() == .wuqing)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["current.json"])

        // A new manager (the next launch) starts from the saved city: Tianjin, then back to Beijing.
        let next = LocationManager(source: ScriptedSource(locations: track([39.5, 39.5], longitude: 116.4)),
                                   geocoder: RegionProvider(), currentPlacemarkFile: file)
        next.cityChangeHysteresis = .init(consecutiveFixes: 2, minimumDistance: 0)
        let again = await drive(next)
        #expect(again.cityChanges == [.init(from: "Tianjin", to: "Beijing", latitude: 39.5)])
        #expect(try PlacemarkStore(url: file).load() == .haidian)
    }

    /// Corrupt file: a warning first, then business as usual, and the file is replaced by a good one.
    @Test func corruptFileIsAWarningNotACrash() async throws {
        defer { cleanUp() }
        try Data("garbage\u{0}\u{1}".utf8).write(to: file)
        let m = LocationManager(source: ScriptedSource(locations: track([39.5])), geocoder: RegionProvider(),
                                currentPlacemarkFile: file)
        let events = await drive(m)
        guard case .warning(.currentPlacemarkUnreadable(let path, let reason)) = events.first else {
            Issue.record("first event should be the warning, got \(events)")
            return
        }
        #expect(path == file.path)
        #expect(reason.hasPrefix("corrupt"))
        #expect(events.locations.count == 1)
        #expect(events.cityChanges.isEmpty)
        #expect(try PlacemarkStore(url: file).load() == .chaoyang)
    }

    @Test func unsavableFileIsAWarning() async throws {
        defer { cleanUp() }
        let target = dir.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: target.appendingPathComponent("inside"), withIntermediateDirectories: true)
        let m = LocationManager(source: ScriptedSource(locations: track([39.5, 39.6])), geocoder: RegionProvider(),
                                currentPlacemarkFile: target)
        let events = await drive(m)
        // Reading a directory is reported too; then the one save (the first placemark) fails.
        #expect(events.warnings.count == 2)
        guard case .currentPlacemarkUnreadable = events.warnings.first,
              case .currentPlacemarkNotSaved(let path, _) = events.warnings.last else {
            Issue.record("unexpected warnings \(events.warnings)")
            return
        }
        #expect(path == target.path)
        #expect(events.locations.count == 2)
        #expect(m.currentPlacemark == .chaoyang)  // kept in memory
    }

    /// Saves happen when the shown placemark changes, not on every fix.
    @Test func savesOnlyOnChange() async throws {
        defer { cleanUp() }
        let m = LocationManager(source: ScriptedSource(locations: track([39.5, 39.51, 39.52])), geocoder: RegionProvider(),
                                currentPlacemarkFile: file)
        let first = await drive(m)
        #expect(first.warnings.isEmpty)
        let inode = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? UInt64
        let holder = try FileHandle(forReadingFrom: file)  // keeps the inode from being reused by a rewrite
        defer { try? holder.close() }
        _ = await drive(m)  // same placemark again: no rewrite
        let inodeAfter = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? UInt64
        #expect(inode == inodeAfter)
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }
}
