import Foundation
import Testing

/// What `geocode LAT LON` prints where China's data has no city level, on the bundled Data/ through the real
/// binary. A special administrative region is no "province-level city" (直辖市): the note says what the
/// line is, the province itself for want of a city level, and that is true of Beijing as of Hong Kong.
/// Taiwan, which the data has as one unit, shows the GeoNames place as its city and no district.
@Suite(.serialized)
struct ProvinceLevelCLITests {
    static func run(_ arguments: [String]) async throws -> GeocodeBinary.Result {
        try await GeocodeBinary.run(arguments, environment: TrackAndInfoTests.realData)
    }

    static func line(_ label: String, _ out: String) -> String? {
        out.split(separator: "\n").map(String.init).first { $0.hasPrefix(label + ":") }
    }

    @Test(arguments: [("22.3193", "114.1694", "香港特别行政区 (810000)", "油尖旺区 (810005)"),
                      ("22.1987", "113.5439", "澳门特别行政区 (820000)", "花王堂区 (820002)"),
                      ("39.9087", "116.3975", "北京市 (110000)", "东城区 (110101)")])
    func theCityLineOfAProvinceWithoutCitiesSaysSoAndNoMore(lat: String, lon: String, city: String, district: String) async throws {
        let r = try await Self.run([lat, lon])
        #expect(r.status == 0, "\(r.err)")
        #expect(Self.line("city", r.out) == "city:     \(city) [= province, no city level]", "\(r.out)")
        #expect(Self.line("district", r.out) == "district: \(district)", "\(r.out)")
        #expect(!r.out.contains("province-level city"), "\(r.out)")
    }

    /// Taipei 101: the city is GeoNames' Taipei (geonameid 1668341), not 台湾省 again, and there is no district
    /// line (the data has none; it printed 台湾省 at three levels).
    @Test func taipeiPrintsItsCityAndNoInventedDistrict() async throws {
        let r = try await Self.run(["25.0330", "121.5654"])
        #expect(r.status == 0, "\(r.err)")
        #expect(Self.line("province", r.out) == "province: 台湾省 (710000)", "\(r.out)")
        #expect(Self.line("city", r.out)?.hasPrefix("city:     Taipei (1668341) [nearest place, ") == true, "\(r.out)")
        #expect(Self.line("district", r.out) == nil, "\(r.out)")
        let json = try await Self.run(["--json", "25.0330", "121.5654"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let p = try #require(object["placemark"] as? [String: Any])
        #expect(p["localitySource"] as? String == "nearest_place" && p["localityIsProvinceFallback"] as? Bool == false)
        #expect(p["subLocality"] is NSNull && p["isoCountryCode"] as? String == "TW" && p["dataset"] as? String == "china")
    }
}
