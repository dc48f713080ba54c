import Foundation
@testable import GeocodeCLI
import Testing

/// The CLI over the real engine and the overlay fixture (real time-zone polygons, place cells around
/// Luxembourg; `Tests/ReverseGeocoderTests/Fixtures/overlay`): the time zone and its UTC offset in every
/// output, "found" meaning an administrative unit, and `geocode info`'s role and attribution.
@Suite struct OverlayCLITests {
    static let data = FieldTableTests.root.appendingPathComponent("Tests/ReverseGeocoderTests/Fixtures/overlay").path
    static let env = ["GEOCODE_TEST_LOOKUP": "", "GEOCODE_DATA": data]

    /// The offset Foundation gives a zone now, formatted as the column writes it.
    static func offsetNow(_ id: String) -> String {
        let s = TimeZone(identifier: id)!.secondsFromGMT()
        return String(format: "%@%02d:%02d", s < 0 ? "-" : "+", abs(s) / 3600, abs(s) / 60 % 60)
    }

    @Test func aPointAtSeaPrintsItsZoneButIsNotFound() async throws {
        let r = try await GeocodeBinary.run(["--json", "53.5", "3.0"], environment: Self.env)
        #expect(r.status == 1, "\(r.err)")
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(o["found"] as? Bool == false)
        #expect(o["utcOffset"] as? String == "+00:00")
        let p = try #require(o["placemark"] as? [String: Any])
        #expect(p["timeZone"] as? String == "Etc/GMT")
        #expect(p["country"] is NSNull && p["locality"] is NSNull)
        #expect(p["dataset"] as? String == "fixture-timezones")
        let text = try await GeocodeBinary.run(["53.5", "3.0"], environment: Self.env)
        #expect(text.status == 1)
        #expect(text.out.contains("time zone: Etc/GMT UTC+00:00"), "\(text.out)")
        #expect(text.err.contains("no administrative unit"))
    }

    @Test func aPointOnLandHasCityDistanceZoneAndOffset() async throws {
        let r = try await GeocodeBinary.run(["49.6", "6.1"], environment: Self.env)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("city:     Luxembourg (2960316) [nearest place, "), "\(r.out)")
        #expect(r.out.contains("time zone: Europe/Luxembourg UTC" + Self.offsetNow("Europe/Luxembourg")), "\(r.out)")
    }

    @Test func batchRowsKeepTheZoneAndCountOnlyAdminUnitsAsFound() async throws {
        let input = "lat,lon\n49.6,6.1\n53.5,3.0\n0,0\n"
        let r = try await GeocodeBinary.run(["batch", "-", "--fields", "locality,locality_source,time_zone,utc_offset"],
                                            piped: input, environment: Self.env)
        #expect(r.status == 0, "\(r.err)")
        let rows = r.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(rows[0] == "lat,lon,locality,locality_source,time_zone,utc_offset,geocode_error")
        #expect(rows[1] == "49.6,6.1,Luxembourg,nearest_place,Europe/Luxembourg,\(Self.offsetNow("Europe/Luxembourg")),")
        #expect(rows[2] == "53.5,3.0,,,Etc/GMT,+00:00,")
        #expect(rows[3] == "0,0,,,,,")
        #expect(r.err.contains("3 rows: 1 found, 2 not found"), "\(r.err)")
    }

    @Test func infoPrintsRoleLicenceAndAttribution() async throws {
        let r = try await GeocodeBinary.run(["info"], environment: Self.env)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("admin, datum wgs84, priority 50"))
        #expect(r.out.contains("overlay, datum wgs84, priority 200"))
        #expect(r.out.contains("attribution: Time zones: timezone-boundary-builder by Evan Siroky, ODbL 1.0"))
        #expect(r.out.contains("attribution: Places: GeoNames, CC BY 4.0"))
        #expect(r.out.contains("   overlay   timezones.shp: "))
    }

    /// Offsets at fixed instants, against the published rules (Paris CET/CEST, India +05:30, Nepal +05:45,
    /// Newfoundland -03:30/-02:30), so the formatting is checked on its own clock, not the test's.
    @Test func utcOffsetsAtFixedInstants() {
        let january = Date(timeIntervalSince1970: 1_768_000_000)  // 2026-01-09
        let july = Date(timeIntervalSince1970: 1_783_000_000)     // 2026-07-02
        let winter = UTCOffsets(at: january), summer = UTCOffsets(at: july)
        #expect(winter.offset(of: "Europe/Paris") == "+01:00")
        #expect(summer.offset(of: "Europe/Paris") == "+02:00")
        #expect(winter.offset(of: "Asia/Kolkata") == "+05:30")
        #expect(winter.offset(of: "Asia/Kathmandu") == "+05:45")
        #expect(winter.offset(of: "America/St_Johns") == "-03:30")
        #expect(summer.offset(of: "America/St_Johns") == "-02:30")
        #expect(winter.offset(of: "Etc/GMT+10") == "-10:00")
        #expect(winter.offset(of: "Mars/Olympus_Mons") == nil)
    }
}
