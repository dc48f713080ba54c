import Foundation
import TestSupport
import Testing
@testable import ReverseGeocoder

/// The bundled time-zone overlay (`Data/timezones`) through the engine, against two outside oracles
/// (`Fixtures/timezone-oracle`, made by `Data/make_timezone_oracle.py`):
///
/// * shapely (GEOS) on the very same bundled polygons, by the engine's rule: the engine must give exactly
///   its answer on every point;
/// * timezonefinder on its own full-resolution polygons: the bundled (simplified) data must agree on at
///   least the share measured when the tolerance was chosen (Data/README.md).
///
/// Needs the overlay engine (manifest `"role": "overlay"`, issue 16): with an engine that cannot load an
/// overlay dataset the first test fails at load, naming the manifest.
@Suite(.serialized)
struct TimeZoneOracleTests: Sendable {
    static let dataDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Data").appendingPathComponent("timezones")

    /// Loaded once for the suite: only the time-zone dataset, so every answer comes from it.
    static let geocoder: Result<ReverseGeocoder, Error> = Result {
        try BundledData.geocoder("timezones")  // the shared index cache of the bundled-data suites
    }

    /// One fixture row: the point, shapely's zone on the bundled polygons, timezonefinder's zone.
    struct Row {
        var lat: Double
        var lon: Double
        var shapely: String
        var timezonefinder: String
        var line: Int
    }

    /// The fixture's tab-separated rows (`lat lon shapely timezonefinder`; `#` lines are comments).
    static func rows(_ name: String) throws -> [Row] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/timezone-oracle/\(name)", withExtension: "tsv"))
        let text = try String(contentsOf: url, encoding: .utf8)
        var rows: [Row] = []
        for (k, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty && !line.hasPrefix("#") && !line.hasPrefix("lat\t") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count >= 4, let lat = Double(f[0]), let lon = Double(f[1]) else {
                Issue.record("\(name).tsv line \(k + 1): not `lat lon shapely timezonefinder`: \(line)")
                continue
            }
            rows.append(Row(lat: lat, lon: lon, shapely: String(f[2]), timezonefinder: String(f[3]), line: k + 1))
        }
        return rows
    }

    /// Share of rows (as a fraction) where the bundled data agreed with timezonefinder when the fixture was made;
    /// the fixture's header states it (`# agreement-with-timezonefinder: 0.99…`).
    static func measuredAgreement(_ name: String) throws -> Double {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/timezone-oracle/\(name)", withExtension: "tsv"))
        let text = try String(contentsOf: url, encoding: .utf8)
        let key = "# agreement-with-timezonefinder: "
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(key) })
        return try #require(Double(line.dropFirst(key.count)))
    }

    func check(_ name: String, minimum: Int) throws {
        let g = try Self.geocoder.get()
        let rows = try Self.rows(name)
        #expect(rows.count >= minimum)
        var wrong = 0, agreeTF = 0
        for r in rows {
            let got = try g.placemark(for: Coordinate(latitude: r.lat, longitude: r.lon))?.timeZone
            if got != r.shapely {
                wrong += 1
                if wrong <= 20 {
                    Issue.record("\(name).tsv line \(r.line) (\(r.lat), \(r.lon)): engine \(got ?? "nil"), shapely \(r.shapely)")
                }
            }
            if got == r.timezonefinder { agreeTF += 1 }
        }
        #expect(wrong == 0, "\(wrong) of \(rows.count) points differ from shapely on the same polygons")
        // Against timezonefinder: at least what was measured for this fixture (the engine answers as shapely,
        // so anything lower means the engine, not the simplification, moved away from the source).
        let share = Double(agreeTF) / Double(max(rows.count, 1))
        let measured = try Self.measuredAgreement(name)
        #expect(share >= measured - 1e-12, "agreement with timezonefinder \(share), measured \(measured)")
    }

    @Test func randomPointsOnTheSphereGetShapelysZone() async throws {
        try await offPool { try check("random_points", minimum: 20_000) }
    }

    @Test func geonamesPlacesGetShapelysZone() async throws {
        try await offPool { try check("geonames_places", minimum: 5_000) }
    }

    /// Every point of the globe has a zone (the ocean zones `Etc/GMT±N` fill the seas), the poles and the
    /// antimeridian included.
    @Test func everyPointOnEarthHasAZone() async throws {
        let g = try Self.geocoder.get()
        var missing: [String] = []
        for lat in stride(from: -90.0, through: 90.0, by: 7.5) {
            for lon in stride(from: -180.0, through: 180.0, by: 7.5) {
                if try g.placemark(for: Coordinate(latitude: lat, longitude: lon))?.timeZone == nil {
                    missing.append("(\(lat), \(lon))")
                }
            }
        }
        #expect(missing.isEmpty, "no time zone at \(missing.prefix(10).joined(separator: " "))")
    }
}
