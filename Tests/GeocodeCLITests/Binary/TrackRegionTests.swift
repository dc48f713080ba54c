import Foundation
import Testing

/// `geocode track --region FILE` checks each administrative area of the file against the loaded data:
/// one that no unit has (a mistyped code) used to be accepted and then never fired (exit 0, not a word).
/// Now the run stops at start, exit 3 (the file is the bad input; the data loaded fine), naming the file,
/// the region and the code. Through the binary on the test grid (Testland: band 13 is latitude 40–50,
/// its cities `TL-13-0` … `TL-13-7` five degrees of longitude each; no `TL-13-9`).
@Suite struct TrackRegionTests {
    static func regions(_ json: String) throws -> URL {
        let file = TemporaryDirectory.shared.uniqueURL("regions", extension: "json")
        try Data(json.utf8).write(to: file)
        return file
    }

    static func run(_ regions: URL) async throws -> GeocodeBinary.Result {
        let gpx = try TrackAccuracyTests.gpx(hdop: 1)
        return try await GeocodeBinary.run(["track", "--gpx", gpx.path, "--speed", "max", "--region", regions.path])
    }

    @Test(arguments: [
        (#"{"id": "typo", "area": {"level": "city", "code": "TL-13-9"}}"#,
         #"region "typo": no city in the loaded data has code "TL-13-9""#),
        (#"{"id": "nowhere", "area": "city name Atlantis"}"#,
         #"region "nowhere": no city in the loaded data has name "Atlantis""#),
        (#"{"id": "wrong-level", "area": {"level": "province", "code": "TL-13-1"}}"#,
         #"region "wrong-level": no province in the loaded data has code "TL-13-1" (the data has it as: city in TL)"#),
        (#"{"id": "wrong-country", "area": {"code": "TL-13-1", "country": "GR"}}"#,
         #"region "wrong-country": no unit in the loaded data has code "TL-13-1" in country GR (the data has it as: city in TL)"#),
    ])
    func anAreaTheDataDoesNotHaveStopsTheRunNamingIt(_ region: String, _ message: String) async throws {
        let file = try Self.regions(#"{"regions": [{"id": "cell1", "area": "city code TL-13-1"}, "# + region + "]}")
        let r = try await Self.run(file)
        #expect(r.status == 3, "\(r.out)")
        #expect(r.err == "geocode: \(file.path): \(message)\n")
        #expect(r.out.isEmpty, "nothing played")
    }

    /// Areas the data has play as before: the track enters Cell 1 at 5° E.
    @Test func areasTheDataHasPlay() async throws {
        let file = try Self.regions(#"{"regions": [{"id": "cell1", "area": "city code TL-13-1"}, {"id": "band", "area": "Band 13"}]}"#)
        let r = try await Self.run(file)
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").filter { $0.contains(" region ") }.map { $0.split(separator: " ", maxSplits: 1)[1] }
        #expect(lines == ["region cell1 outside", "region band inside", "region entered cell1"])
    }

    /// A file that is no regions file is refused before the data is loaded, exit 3, naming the JSON path.
    @Test func aBrokenRegionsFileIsNamedBeforeTheDataLoads() async throws {
        let file = try Self.regions(#"{"regions": [{"id": "x", "area": {"level": "city", "cod": "1"}}]}"#)
        let r = try await GeocodeBinary.run(["track", "--gpx", try TrackAccuracyTests.gpx(hdop: 1).path, "--region", file.path,
                                             "--data", "/nonexistent/data"], environment: ["GEOCODE_TEST_LOOKUP": ""])
        #expect(r.status == 3, "\(r.err)")
        #expect(r.err.hasPrefix("geocode: \(file.path): regions[0].area.cod: unknown key"), "\(r.err)")
    }
}
