import Foundation
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
