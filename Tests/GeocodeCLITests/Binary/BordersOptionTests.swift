import Foundation
import Testing

/// `--borders` through the real binary on the bundled Data/: downtown El Paso, which the generalized
/// world border puts in Mexico, is answered in the United States by default (its time zone's country,
/// within 5 km), and in Mexico with `--borders polygons`, in one-point runs (the cache checked on first
/// use) and in batch (checked whole) alike.
@Suite(.serialized)
struct BordersOptionTests {
    // The real binary on Data/, as LanguageTests runs it.
    static func run(_ arguments: [String], input: String? = nil) async throws -> GeocodeBinary.Result {
        try await LanguageTests.run(arguments, input: input)
    }

    static func placemark(_ r: GeocodeBinary.Result) throws -> [String: Any] { try LanguageTests.placemark(r) }

    @Test func elPasoOnePoint() async throws {
        let refined = try await Self.run(["--json", "31.7587", "-106.4869"])
        #expect(refined.status == 0, "\(refined.err)")
        let p = try Self.placemark(refined)
        #expect(p["isoCountryCode"] as? String == "US")
        #expect(p["administrativeAreaCode"] as? String == "US-TX")
        #expect(p["countrySource"] as? String == "nearest_unit")
        #expect((p["countryDistance"] as? Double).map { $0 > 0 && $0 <= 5_000 } == true, "\(p)")
        let polygons = try Self.placemark(try await Self.run(["--json", "--borders", "polygons", "31.7587", "-106.4869"]))
        #expect(polygons["isoCountryCode"] as? String == "MX")
        #expect(polygons["countrySource"] as? String == "inside")
    }

    @Test func batchTakesBorders() async throws {
        let input = "lat,lon\n31.7587,-106.4869\n31.7386,-106.4870\n"
        let refined = try await Self.run(["batch", "-", "-q", "--fields", "country_code"], input: input)
        #expect(refined.status == 0, "\(refined.err)")
        #expect(refined.out == "lat,lon,country_code,geocode_error\n31.7587,-106.4869,US,\n31.7386,-106.4870,MX,\n")
        let polygons = try await Self.run(["batch", "-", "-q", "--fields", "country_code", "--borders", "polygons"], input: input)
        #expect(polygons.out == "lat,lon,country_code,geocode_error\n31.7587,-106.4869,MX,\n31.7386,-106.4870,MX,\n")
    }

    @Test func unknownModeIsAUsageError() async throws {
        let bad = try await Self.run(["--borders", "exact", "1", "2"])
        #expect(bad.status == 2)
        #expect(bad.err.contains("unknown \"exact\" for --borders (use refined or polygons)"), "\(bad.err)")
    }
}
