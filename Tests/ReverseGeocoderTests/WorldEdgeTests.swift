import Foundation
import GeoModel
import TestSupport
import Testing
@testable import ReverseGeocoder

/// The world dataset reaches the antimeridian and the South Pole. Its source, QGIS's copy of Natural
/// Earth, is cut at ±179.9° and -89.9°, so Taveuni, Chukotka and Wrangel Island, and the polar plateau
/// found no country until the build gave the cut edges back their strips (Data/build.py, `unclip`).
@Suite(.serialized)
struct WorldEdgeTests: Sendable {
    /// The world dataset alone, containment only.
    static let geocoder = Result {
        var options = ReverseGeocoder.Options()
        options.maxDistance = 0
        return try BundledData.geocoder("world", options: options)
    }

    /// Land within 0.1° of the cut, with its country: islands and coasts the 180th meridian crosses
    /// (Wrangel Island spans 178.6° E to 177.4° W, Chukotka's interior 64–69° N, Taveuni's north), the
    /// Transantarctic plateau where the meridian meets it, and the pole.
    static let places: [(name: String, lat: Double, lon: Double, country: String)] = [
        ("Wrangel Island, west of 180°", 71.2, 179.95, "RU"),
        ("Wrangel Island, east of 180°", 71.2, -179.95, "RU"),
        ("Chukotka, west of 180°", 67.0, 179.95, "RU"),
        ("Chukotka, east of 180°", 67.0, -179.95, "RU"),
        ("Taveuni, west of 180°", -16.75, 179.95, "FJ"),
        ("Taveuni, east of 180°", -16.75, -179.95, "FJ"),
        ("Antarctic plateau, west of 180°", -86, 179.95, "AQ"),
        ("Antarctic plateau, east of 180°", -86, -179.95, "AQ"),
        ("Polar plateau", -89.95, 123.4, "AQ"),
        ("South Pole", -90, 0, "AQ"),
    ]

    @Test func landAtTheCutAnswersItsCountry() async throws {
        try await offPool { try Self.placesBody() }
    }

    static func placesBody() throws {
        let g = try Self.geocoder.get()
        for p in places {
            let answer = try g.placemark(for: Coordinate(latitude: p.lat, longitude: p.lon))
            #expect(answer?.isoCountryCode == p.country, "\(p.name) (\(p.lat), \(p.lon)): \(answer?.isoCountryCode ?? "no country")")
        }
    }

    /// Land is continuous across the antimeridian: wherever one country holds the points just inside the
    /// cut on both sides (±179.8999°), it holds every point between them too; and the polar strip is all
    /// Antarctica. Before the fix every such point was in no country.
    @Test func landAcrossTheAntimeridianAndAtThePoleIsContinuous() async throws {
        try await offPool { try Self.continuityBody() }
    }

    static func continuityBody() throws {
        let g = try Self.geocoder.get()
        func country(_ lat: Double, _ lon: Double) throws -> String? {
            try g.placemark(for: Coordinate(latitude: lat, longitude: lon))?.isoCountryCode
        }
        var crossings = 0
        var gaps: [String] = []
        for i in 0...17_000 {
            let lat = -85 + Double(i) * 0.01
            guard let west = try country(lat, 179.8999), try country(lat, -179.8999) == west else { continue }
            crossings += 1
            for k in 0...20 {
                let lon = 179.9 + Double(k) * 0.005
                for x in [lon, -lon] where try country(lat, x) != west {
                    gaps.append("(\(lat), \(x)): \(try country(lat, x) ?? "none"), not \(west)")
                }
            }
        }
        // Chukotka with Wrangel Island, Fiji, Antarctica: some 1,000 rows of 0.01° cross.
        #expect(crossings > 500, "only \(crossings) latitudes where land crosses the antimeridian")
        for i in 0..<360 {
            for k in 0...10 {
                let lat = -89.9 - Double(k) * 0.01, lon = -180 + Double(i)
                if try country(lat, lon) != "AQ" { gaps.append("(\(lat), \(lon)): \(try country(lat, lon) ?? "none"), not AQ") }
            }
        }
        #expect(gaps.isEmpty, "\(gaps.count) gaps, e.g. \(gaps.prefix(10))")
    }
}
