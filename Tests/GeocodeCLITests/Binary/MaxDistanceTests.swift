import Foundation
import Testing
@testable import GeocodeCLI

/// `--max-distance` on reverse, batch and track: the real engine on the bundled data for the answers, and
/// the option's errors (exit 2, naming the option and the text).
@Suite struct MaxDistanceTests {
    /// Off Tromsø (a sea point of the coast oracle, 2–3 km from Troms's polygon).
    static let sea = ["69.68", "18.98"]

    @Test func reverseAnswersTheNearestUnitAndZeroTurnsItOff() async throws {
        let r = try await TrackAndInfoTests.run(Self.sea)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("country:  Norway (NO) [nearest, "), "\(r.out)")
        let json = try await TrackAndInfoTests.run(Self.sea + ["--json"])
        #expect(json.out.contains("\"found\":true"))
        #expect(json.out.contains("\"countrySource\":\"nearest_unit\""), "\(json.out)")
        for off in ["0", "0m", "0km", "100"] {
            let r = try await TrackAndInfoTests.run(Self.sea + ["--max-distance", off])
            #expect(r.status == 1, "\(off): \(r.out)")
        }
        // The same reach in metres and in kilometres.
        let km = try await TrackAndInfoTests.run(Self.sea + ["--max-distance", "5km"])
        let m = try await TrackAndInfoTests.run(Self.sea + ["--max-distance", "5000"])
        #expect(km.status == 0 && km.out == m.out)
        // The environment variable the option sets is read (and checked) the same way.
        let env = try await TrackAndInfoTests.run(Self.sea, environment: ["GEOCODE_MAX_DISTANCE": "0"])
        #expect(env.status == 1)
    }

    /// Batch rows the fallback answered carry their provenance and distance; inside rows keep "inside"
    /// (empty distance); rows stay one per input row, in order.
    @Test func batchShowsProvenanceAndDistance() async throws {
        let input = "lat,lon\n59.9139,10.7522\n69.68,18.98\n0,-30\n"
        let fields = ["--fields", "country_code,country_source,country_distance,administrative_area_source", "--quiet"]
        let file = try TemporaryDirectory.shared.newFile("coast", extension: "csv")
        try Data(input.utf8).write(to: file)
        let r = try await GeocodeBinary.run(["batch", file.path, "--format", "csv"] + fields, environment: TrackAndInfoTests.realData)
        #expect(r.status == 0, "\(r.err)")
        let rows = r.out.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        try #require(rows.count == 4)
        #expect(rows[0] == ["lat", "lon", "country_code", "country_source", "country_distance", "administrative_area_source", "geocode_error"])
        #expect(rows[1][2] == "NO" && rows[1][3] == "inside" && rows[1][4] == "")
        #expect(rows[2][2] == "NO" && rows[2][3] == "nearest_unit" && rows[2][5] == "nearest_unit")
        let d = try #require(Double(rows[2][4]))
        #expect(d > 1000 && d < 5000)
        #expect(rows[3][2...].allSatisfy { $0.isEmpty })
        let off = try await GeocodeBinary.run(["batch", file.path, "--format", "csv", "--max-distance", "0"] + fields,
                                              environment: TrackAndInfoTests.realData)
        #expect(off.out.split(separator: "\n")[2] == "69.68,18.98,,,,,")
    }

    @Test(arguments: [["reverse", "1", "2"], ["batch", "-"], ["track", "--gpx", "/nonexistent.gpx"]])
    func badValuesAreExitTwo(_ command: [String]) async throws {
        for bad in ["-1", "-5km", "abc", "nan", "inf", "1e999", "5 km", "5KM", "5mi", "", "km", "0x10"] {
            let r = try await GeocodeBinary.run(command + ["--max-distance", bad])
            #expect(r.status == 2, "\(command) \(bad): \(r.err)")
            #expect(r.err.hasPrefix("geocode: --max-distance takes a distance ≥ 0 in metres"), "\(bad): \(r.err)")
            #expect(r.err.contains("\"\(bad)\""))
        }
        let env = try await GeocodeBinary.run(command, environment: ["GEOCODE_MAX_DISTANCE": "-3"])
        #expect(env.status == 2)
        #expect(env.err.hasPrefix("geocode: GEOCODE_MAX_DISTANCE takes a distance ≥ 0 in metres"), "\(env.err)")
    }

    @Test func unitsParse() {
        #expect(MaxDistanceOption.metres("0") == 0)
        #expect(MaxDistanceOption.metres("2500") == 2500)
        #expect(MaxDistanceOption.metres("2500m") == 2500)
        #expect(MaxDistanceOption.metres("2.5km") == 2500)
        #expect(MaxDistanceOption.metres("1e4") == 10_000)
        for bad in ["-1", "m", "km", "5 km", "5Km", "nan", "inf", "1e400", "5nm", "+"] {
            #expect(MaxDistanceOption.metres(bad) == nil, "\(bad)")
        }
    }
}
