import Foundation
import TestSupport
import Testing
@testable import ReverseGeocoder

/// The bundled `Data/` through the engine, against answers shapely computed from the same polygons
/// (`Fixtures/data-oracle`, made by `Data/make_oracle.py`: an outside oracle, not our own code).
@Suite(.serialized)
struct BundledDataTests: Sendable {
    /// Loaded once for the whole suite: the bundled data is 2.2 M vertices.
    static let geocoder: Result<ReverseGeocoder, Error> = Result {
        let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data")
        // The oracle's `expect: null` is "no polygon contains the point": today's answer without the coast
        // fallback (NearestUnitTests checks the same fixtures with it on).
        var options = ReverseGeocoder.Options()
        options.maxDistance = 0
        // The oracle is shapely on the polygons: the time zones' border refinement (BorderRefinementTests)
        // moves a few of its random points on purpose.
        options.refinesBordersByTimeZone = false
        _ = data
        return try BundledData.geocoder(options: options)  // one index cache for every suite (TestSupport)
    }

    struct Expected: Decodable, Equatable {
        var country: String?
        var isoCountryCode: String?
        var administrativeArea: String?
        var administrativeAreaCode: String?
        var locality: String?
        var localityCode: String?
        var localityIsProvinceFallback: Bool
        var subLocality: String?
        var subLocalityCode: String?
        var dataset: String

        init(_ p: Placemark) {
            country = p.country; isoCountryCode = p.isoCountryCode
            administrativeArea = p.administrativeArea; administrativeAreaCode = p.administrativeAreaCode
            locality = p.locality; localityCode = p.localityCode; localityIsProvinceFallback = p.localityIsProvinceFallback
            subLocality = p.subLocality; subLocalityCode = p.subLocalityCode; dataset = p.dataset
        }
    }

    struct Point: Decodable {
        var label: String?
        var region: String?
        var lat: Double
        var lon: Double
        var datum: String
        var expect: Expected?
    }

    struct Wrapped: Decodable { var points: [Point] }

    static func fixture(_ name: String) throws -> [Point] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/data-oracle/\(name)", withExtension: "json"))
        let data = try Data(contentsOf: url)
        if let list = try? JSONDecoder().decode([Point].self, from: data) { return list }
        return try JSONDecoder().decode(Wrapped.self, from: data).points
    }

    func check(_ points: [Point], minimum: Int) throws {
        let g = try Self.geocoder.get()
        #expect(points.count >= minimum)
        var wrong = 0
        for p in points {
            let datum = try #require(Datum(name: p.datum))
            // A zone-only answer (the time-zone overlay at sea) is no administrative unit: shapely's nil.
            let got = try g.placemark(for: Coordinate(latitude: p.lat, longitude: p.lon), datum: datum)
                .flatMap { $0.hasAdministrativeUnit ? Expected($0) : nil }
            if got != p.expect {
                wrong += 1
                Issue.record("\(p.label ?? p.region ?? "") (\(p.lat), \(p.lon)): engine \(String(describing: got)), shapely \(String(describing: p.expect))")
            }
        }
        #expect(wrong == 0)
    }

    @Test func spotChecks() async throws {
        try await offPool { try Self.spotChecksBody() }
    }

    static func spotChecksBody() throws {
        try BundledDataTests().check(Self.fixture("spot_checks"), minimum: 12)
    }

    @Test func tiananmenIsDongchengInBeijingAsProvinceFallback() async throws {
        try await offPool { try Self.tiananmenIsDongchengInBeijingAsProvinceFallbackBody() }
    }

    static func tiananmenIsDongchengInBeijingAsProvinceFallbackBody() throws {
        let p = try #require(try Self.geocoder.get().placemark(latitude: 39.9087, longitude: 116.3975))
        #expect(p.country == "中国" && p.isoCountryCode == "CN")
        #expect(p.administrativeArea == "北京市" && p.locality == "北京市" && p.localityIsProvinceFallback)
        #expect(p.subLocality == "东城区")
    }

    /// Kinmen, which the China data files as 金门县 in 福建省, is Taiwan's under ISO 3166 (TW-KIN, the
    /// time zone Asia/Taipei), like 台湾省 itself; the dataset's worldview keeps its own CN. Xiamen, across
    /// the strait, stays CN either way.
    @Test func kinmenIsTaiwanUnderISO() async throws {
        try await offPool { try Self.kinmenIsTaiwanUnderISOBody() }
    }

    static func kinmenIsTaiwanUnderISOBody() throws {
        let kinmen = try #require(try Self.geocoder.get().placemark(latitude: 24.4360, longitude: 118.3186))
        #expect(kinmen.subLocality == "金门县" && kinmen.isoCountryCode == "TW", "\(kinmen.subLocality ?? "nil") \(kinmen.isoCountryCode ?? "nil")")
        let xiamen = try #require(try Self.geocoder.get().placemark(latitude: 24.4798, longitude: 118.0894))
        #expect(xiamen.isoCountryCode == "CN")
        let own = try BundledData.geocoder("china", options: .init(worldview: .dataset))
        #expect(try own.placemark(latitude: 24.4360, longitude: 118.3186)?.isoCountryCode == "CN")
    }

    /// WGS-84 points 1–300 m from a district border resolve like their exact GCJ-02 conversion does in
    /// the GCJ-02 polygons (about half would land in the neighbour without the conversion).
    @Test func datumBorderPoints() async throws {
        try await offPool { try Self.datumBorderPointsBody() }
    }

    static func datumBorderPointsBody() throws {
        struct BorderPoint: Decodable {
            var lat: Double, lon: Double, expectAdcode: String, adcodeWithoutConversion: String?
        }
        struct File: Decodable { var points: [BorderPoint] }
        let url = try #require(Bundle.module.url(forResource: "Fixtures/data-oracle/datum_border_points", withExtension: "json"))
        let points = try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).points
        #expect(points.count >= 300)
        // The test has teeth: for many points, skipping the conversion gives another district.
        #expect(points.filter { $0.adcodeWithoutConversion != $0.expectAdcode }.count >= 100)
        let g = try Self.geocoder.get()
        var wrong = 0
        for p in points {
            let got = try g.placemark(latitude: p.lat, longitude: p.lon)?.subLocalityCode
            if got != p.expectAdcode {
                wrong += 1
                Issue.record("(\(p.lat), \(p.lon)): engine \(got ?? "nil"), shapely \(p.expectAdcode)")
            }
        }
        #expect(wrong == 0)
    }

    @Test func randomPointsInChinaAndTheWorld() async throws {
        try await offPool { try Self.randomPointsInChinaAndTheWorldBody() }
    }

    static func randomPointsInChinaAndTheWorldBody() throws {
        try BundledDataTests().check(Self.fixture("random_points"), minimum: 4000)
    }

    @Test func everyLayerLoadedWithTheSourceCounts() async throws {
        try await offPool { try Self.everyLayerLoadedWithTheSourceCountsBody() }
    }

    static func everyLayerLoadedWithTheSourceCountsBody() throws {
        let g = try Self.geocoder.get()
        let units = Dictionary(uniqueKeysWithValues: g.datasets.flatMap { d in d.layers.map { ("\(d.name)/\($0.level?.rawValue ?? "overlay")", $0.units) } })
        #expect(units == ["china/district": 2874,  // 2,875 source rows less Taiwan's, which is its province (Data/README.md)
                          "china/city": 363, "china/province": 34,
                          "world/province": 4556, "world/country": 258, "localities/district": 34436,
                          "timezones/overlay": 444])  // timezone-boundary-builder 2026c: 444 zones with the oceans
        for layer in g.datasets.flatMap(\.layers) {
            #expect(layer.nullShapes == 0 && layer.emptyRecords == 0 && layer.repairedPolygons == 0, "\(layer.file)")
        }
    }
}
