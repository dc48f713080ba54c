import Foundation
import Synchronization
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// End to end with real parts: a GPX drive from Tiananmen to Tianjin, played by the GPX source, through
/// the manager, with the engine on the bundled Data/. The expected cities come from shapely on the same
/// polygons (Fixtures/make_drive.py), not from the engine.
@Suite(.serialized)
struct DriveTests {
    struct Expected: Decodable {
        var cities: [String]
        var changes: [[String]]
    }

    static let geocoder: Result<ReverseGeocoder, Error> = Result {
        let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")
        // R-tree path only: the cell index is checked on this data by BundledDataTests, and skipping its
        // build saves CI most of the load time.
        return try ReverseGeocoder(directory: data, options: .init(cellSize: nil))
    }

    /// Loads the data on a thread of its own: in a debug build it takes ~30 s of CPU, which must not
    /// sit on the cooperative pool that the other suites' async tests share.
    static func loadedGeocoder() async throws -> ReverseGeocoder {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: geocoder) }.start()
        }
    }

    @Test func beijingToTianjinChangesCityExactlyAsTheOracleSays() async throws {
        let geocoder = try await Self.loadedGeocoder()
        let gpx = try #require(Bundle.module.url(forResource: "Fixtures/beijing-tianjin", withExtension: "gpx"))
        let json = try #require(Bundle.module.url(forResource: "Fixtures/beijing-tianjin.expected", withExtension: "json"))
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: json))
        try #require(expected.changes == [["110000", "131000"], ["131000", "120000"]])

        let source = GPXPlaybackSource(contentsOf: gpx, configuration: .init(pacing: .asFastAsPossible))
        let manager = LocationManager(source: source, geocoder: geocoder)
        let updates = manager.updates
        manager.startUpdatingLocation()
        var cities: [String?] = []
        var changes: [[String]] = []
        var firstPlacemark: Placemark?
        for await event in updates {
            switch event {
            case .placemark(let p, _):
                cities.append(p?.localityCode)
                if firstPlacemark == nil { firstPlacemark = p }
            case .cityChanged(let from, let to, _):
                changes.append([from.localityCode ?? "?", to.localityCode ?? "?"])
            case .error(let e):
                Issue.record("error \(e)")
            default:
                break
            }
        }
        // Every fix's city equals shapely's, and the changes are exactly the oracle's: Beijing → Langfang →
        // Tianjin, each once, no flapping.
        #expect(cities == expected.cities.map { Optional($0) })
        #expect(changes == expected.changes)
        // Beijing is a province-level city: its locality is the province, flagged as a fallback.
        #expect(firstPlacemark?.locality == "北京市" && firstPlacemark?.localityIsProvinceFallback == true)
        #expect(firstPlacemark?.subLocality == "东城区")
    }
}

/// A drive along the towns of Paris's inner ring over the bundled localities (GeoNames places as Voronoi cells): the
/// nearest-place distance changes on every fix, the place only at a cell border. The cells and distances
/// come from shapely on the same polygons (Fixtures/make_city_drive.py), not from the engine.
@Suite(.serialized)
struct CityCellDriveTests {
    struct Expected: Decodable {
        struct Fix: Decodable { var localityCode: String; var locality: String; var distance: Double }
        var fixes: [Fix]
        var changes: [[String]]
    }

    @Test func parisChangesCityExactlyWhenTheCellChanges() async throws {
        let geocoder = try await DriveTests.loadedGeocoder()
        let gpx = try #require(Bundle.module.url(forResource: "Fixtures/paris-drive", withExtension: "gpx"))
        let json = try #require(Bundle.module.url(forResource: "Fixtures/paris-drive.expected", withExtension: "json"))
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: json))
        try #require(expected.changes.count >= 5, "the route should cross several cells")

        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("current.json")
        let source = GPXPlaybackSource(contentsOf: gpx, configuration: .init(pacing: .asFastAsPossible))
        let manager = LocationManager(source: source, geocoder: geocoder, currentPlacemarkFile: file)
        // No hysteresis: the event must come on the very fix that enters a new cell, and never else.
        manager.cityChangeHysteresis = .off
        // Saves, seen from a fix observer (it runs after the previous fix's save): each inode the file has
        // had, kept open so that a rewrite cannot reuse it.
        let inodes = Mutex<[UInt64]>([])
        let holders = Mutex<[FileHandle]>([])
        _ = manager.addFixObserver { _ in
            guard let inode = try? FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? UInt64,
                  let h = try? FileHandle(forReadingFrom: file) else { return }
            inodes.withLock { if $0.last != inode { $0.append(inode); holders.withLock { $0.append(h) } } }
        }
        defer { holders.withLock { for h in $0 { try? h.close() } } }
        // An area by code: one cell of the route, entered and left once.
        let watched = expected.fixes[expected.fixes.count / 2].localityCode
        let regions = RegionBookDriver(.administrative("cell", .code(watched, level: .city)))
        _ = manager.addFixObserver { regions.observe($0) }

        let updates = manager.updates
        manager.startUpdatingLocation()
        var fixes: [Placemark?] = []
        var changes: [[String]] = []
        var changedAt: [Int] = []  // index of the fix whose placemark event the change follows
        for await event in updates {
            switch event {
            case .placemark(let p, _): fixes.append(p)
            case .cityChanged(let from, let to, _):
                changes.append([from.localityCode ?? "?", to.localityCode ?? "?"])
                changedAt.append(fixes.count - 1)
            case .error(let e): Issue.record("unexpected \(e)")
            case .warning(let w): Issue.record("unexpected \(w)")
            default: break
            }
        }
        try #require(fixes.count == expected.fixes.count)
        #expect(fixes.map { $0?.localityCode } == expected.fixes.map(\.localityCode))
        for (p, e) in zip(fixes, expected.fixes) {
            guard let d = p?.provenance(at: .city)?.distance else { Issue.record("no distance: \(String(describing: p))"); continue }
            #expect(abs(d - e.distance) < 0.01, "\(e.locality): \(d) m, shapely/haversine \(e.distance) m")
        }
        // The distance changes on (almost) every fix: this is the drive the bug was about.
        let distinct = Set(expected.fixes.map(\.distance)).count
        #expect(distinct > expected.fixes.count * 9 / 10)
        // City changes exactly at the oracle's cell changes, and one save per place (the first fix's and
        // one per change; the observer sees all but a save made on the last fix, which is none here).
        #expect(changes == expected.changes)
        let cellStarts = expected.fixes.indices.dropFirst().filter { expected.fixes[$0].localityCode != expected.fixes[$0 - 1].localityCode }
        #expect(changedAt == Array(cellStarts))
        #expect(inodes.withLock { $0.count } == expected.changes.count + 1)
        // The shown placemark has the last fix's distance; the file the place as first seen there.
        let lastFix = try #require(expected.fixes.last)
        #expect(manager.currentPlacemark?.localityCode == lastFix.localityCode)
        #expect(manager.currentPlacemark.flatMap { $0.provenance(at: .city)?.distance }.map { abs($0 - lastFix.distance) < 0.01 } == true)
        // The file holds the last cell as its first fix saw it: saved once, at that fix's distance.
        let lastStart = try #require(cellStarts.last)
        let stored = try #require(try PlacemarkStore(url: file).load())
        #expect(stored.isSamePlace(as: try #require(manager.currentPlacemark)))
        #expect(stored.provenance(at: .city)?.distance.map { abs($0 - expected.fixes[lastStart].distance) < 0.01 } == true)
        let seen = expected.fixes.map(\.localityCode).filter { $0 == watched }.count
        try #require(seen > 0 && expected.fixes.last?.localityCode != watched)
        #expect(regions.events == ["cell outside", "cell entered", "cell exited"] || regions.events == ["cell inside", "cell exited"])
    }
}
