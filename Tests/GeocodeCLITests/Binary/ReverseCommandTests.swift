import Foundation
import Testing

/// `geocode LAT LON` as a user types it.
@Suite struct ReverseCommandTests {
    @Test func foundPrintsPlaceAndExitsZero() async throws {
        let r = try await GeocodeBinary.run(["45.5", "12.25"])
        #expect(r.status == 0)
        #expect(r.out == """
            country:  Testland (TL)
            province: Band 13 (TL-13)
            city:     Cell 2 (TL-13-2)
            district: Quarter 5 (TL-13-2-5)
            dataset:  testgrid

            """)
        #expect(try await GeocodeBinary.run(["reverse", "45.5", "12.25"]).out == r.out)
        #expect(try await GeocodeBinary.run(["45.5,12.25"]).out == r.out)
    }

    @Test func negativeCoordinatesNeedNoDoubleDash() async throws {
        let r = try await GeocodeBinary.run(["-45.5", "120.5", "--json"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("\"country\":\"Gridonia\""))
        #expect(r.out.hasPrefix("{\"latitude\":-45.5,\"longitude\":120.5,\"datum\":\"wgs84\",\"found\":true,"))
        let sydney = try await GeocodeBinary.run(["-33.86", "151.2"])    // the issue's own example: ocean in the grid
        #expect(sydney.status == 1)
    }

    @Test func oceanIsExitOne() async throws {
        let r = try await GeocodeBinary.run(["10", "-30"])
        #expect(r.status == 1)
        #expect(r.out.isEmpty)
        #expect(r.err.contains("no place at 10.0, -30.0"))
        let json = try await GeocodeBinary.run(["--json", "10", "-30"])
        #expect(json.status == 1)
        #expect(json.out == "{\"latitude\":10.0,\"longitude\":-30.0,\"datum\":\"wgs84\",\"found\":false,\"utcOffset\":null,\"placemark\":null}\n")
    }

    /// The engine failing mid-query (the grid double's failing point, as GEOS throwing would) is exit 4
    /// with the engine's message, prefixed once: main printed "geocode: geocode: ...".
    @Test func anEngineFailureIsExitFourWithOnePrefix() async throws {
        let r = try await GeocodeBinary.run(["-66.6", "-66.6"])
        #expect(r.status == 4)
        #expect(r.out.isEmpty)
        #expect(r.err == "geocode: testgrid.shp: query failed: GEOS: a GEOS exception (the test double's failing point)\n")
        // In a batch the same failure is that row's error, flagged; the other rows are answered.
        let batch = try await GeocodeBinary.run(["batch", "-q", "--fields", "country"], piped: "lat,lon\n45.5,12.25\n-66.6,-66.6\n45.5,120.5\n")
        let rows = batch.out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.count == 5, "\(batch.out)")
        #expect(rows[1].contains("Testland") && rows[3].contains("Gridonia"), "\(batch.out)")
        #expect(rows[2].contains("query failed"), "\(batch.out)")
        #expect(!batch.err.contains("geocode: geocode:"), "\(batch.err)")
    }

    @Test(arguments: [(["91", "0"], "latitude 91 is outside -90...90 (LAT)"),
                      (["0", "-181"], "longitude -181 is outside -180...180 (LON)"),
                      (["abc", "12"], "latitude \"abc\" is not a number (LAT)"),
                      (["NaN", "12"], "latitude \"NaN\" is not a number (LAT)"),
                      // Too large for a Double: out of range, in the digits typed (it said "inf", QA).
                      (["1e400", "2"], "latitude \"1e400\" is outside -90...90 (LAT)"),
                      (["1e400,2"], "latitude \"1e400\" is outside -90...90 (LAT)"),
                      (["45.5", "-1E400"], "longitude \"-1E400\" is outside -180...180 (LON)"),
                      (["91.00,0"], "latitude 91.00 is outside -90...90 (LAT)"),
                      // Degrees, minutes, seconds: as typed too (it said "latitude 95.5").
                      (["95°30'N", "12°15'E"], "latitude 95°30'N is outside -90...90 (LAT)"),
                      (["45°30'N 190°30'00\"W"], "longitude 190°30'00\"W is outside -180...180 (LON)"),
                      (["95 30 N", "12 E"], "latitude 95 30 N is outside -90...90 (LAT)"),
                      // An en dash is not a minus (it also writes ranges): refused, named as typed.
                      (["–45.5", "120.5"], "latitude \"–45.5\" is not a number (LAT)"),
                      (["1", "2", "--datum", "wgs84"], nil)])
    func badCoordinatesAreExitThree(_ arguments: [String], _ message: String?) async throws {
        let r = try await GeocodeBinary.run(arguments)
        if let message {
            #expect(r.status == 3)
            #expect(r.err == "geocode: \(message)\n")
        } else {
            #expect(r.status == 0)
        }
    }

    @Test(arguments: [["1"], ["1", "2", "3"], ["1", "2", "--bogus"], ["1", "2", "--datum", "mars2"], ["frobnicate"], []])
    func commandLineMistakesAreExitTwo(_ arguments: [String]) async throws {
        let r = try await GeocodeBinary.run(arguments)
        #expect(r.status == 2, "\(arguments): \(r.err)")
        #expect(r.err.hasPrefix("geocode") || r.err.contains("Usage"))
    }

    @Test func datumIsPassedToTheLookup() async throws {
        // Outside China GCJ-02 is the identity; inside, the offset is a few hundred metres, enough to cross
        // a grid line placed right at the point.
        let wgs = try await GeocodeBinary.run(["--json", "30.0001", "120.0001"])
        let gcj = try await GeocodeBinary.run(["--json", "30.0001", "120.0001", "--datum", "gcj02"])
        // GCJ-02 → WGS-84 there moves the point about 0.0045° west, across the 120° cell line.
        #expect(wgs.out.contains("\"localityCode\":\"GR-12-24\""), "\(wgs.out)")
        #expect(gcj.out.contains("\"localityCode\":\"GR-12-23\""), "\(gcj.out)")
        #expect(gcj.out.contains("\"datum\":\"gcj02\""))
    }

    @Test func versionAndHelp() async throws {
        let version = try await GeocodeBinary.run(["--version"])
        #expect(version.status == 0)
        #expect(version.out.hasPrefix("geocode "))
        let help = try await GeocodeBinary.run(["--help"])
        #expect(help.status == 0)
        for needle in ["Exit status:", "  1   the point is in no administrative unit", "GEOCODE_DATA", "Examples:", "geocode -33.86 151.2"] {
            #expect(help.out.contains(needle), "\(needle)")
        }
        for command in ["reverse", "batch", "track", "info"] {
            let r = try await GeocodeBinary.run([command, "--help"])
            #expect(r.status == 0)
            #expect(r.out.hasPrefix("Usage:"))
            #expect(r.out.contains("--data DIR"))
            #expect(try await GeocodeBinary.run(["help", command]).out == r.out)
        }
        #expect(try await GeocodeBinary.run(["batch", "--help"]).out.contains("Examples:"))
        #expect(try await GeocodeBinary.run(["reverse", "--help"]).out.contains("Examples:"))
    }

    @Test func dataDirectoryErrorsAreExitFour() async throws {
        // Without the test grid the real engine is asked for, which needs a data directory.
        let missing = try await GeocodeBinary.run(["1", "2", "--data", "/nonexistent/geocode-data"], environment: ["GEOCODE_TEST_LOOKUP": ""])
        #expect(missing.status == 4)
        #expect(missing.err.contains("/nonexistent/geocode-data (--data) does not exist"))
        let env = try await GeocodeBinary.run(["1", "2"], environment: ["GEOCODE_TEST_LOOKUP": "", "GEOCODE_DATA": "/nonexistent/env-data"])
        #expect(env.status == 4)
        #expect(env.err.contains("$GEOCODE_DATA"))
        let dir = try TemporaryDirectory.shared.newFolder("data")
        let engine = try await GeocodeBinary.run(["1", "2", "--data", dir.path], environment: ["GEOCODE_TEST_LOOKUP": ""])
        #expect(engine.status == 4)    // until the engine is wired: "not built into this version yet"
        #expect(engine.err.contains("cannot load data from \(dir.path)"))
    }
}

/// `geocode LAT, LON` as pasted from a map app, and degrees-minutes-seconds (issue 17): each gives
/// exactly the answer of the decimal form, or a clear refusal.
@Suite struct SinglePointFormsTests {
    @Test(arguments: [["45.5,", "12.25"], ["45.5,12.25"], ["45.5", ",", "12.25"], ["45.5, 12.25"],
                      ["45°30'N", "12°15'E"], ["45", "30", "00", "N", "12", "15", "00", "E"], ["45°30′00″N 12°15′00″E"],
                      ["12°15'E", "45°30'N"],
                      // The full-width comma a Chinese input method types (it said "missing LON").
                      ["45.5，12.25"], ["45.5，", "12.25"], ["45.5", "，12.25"], ["45°30'N，12°15'E"],
                      // Its ideographic space, U+3000, where a space goes (the shell splits at none of it).
                      ["45.5\u{3000}12.25"], ["45.5，\u{3000}12.25"], ["45.5\u{3000}", "12.25"], ["45°30'N\u{3000}12°15'E"],
                      ["reverse", "POINT(12.25\u{3000}45.5)"], ["45\u{3000}30\u{3000}00\u{3000}N\u{3000}12\u{3000}15\u{3000}00\u{3000}E"]])
    func sameAnswerAsDecimal(_ arguments: [String]) async throws {
        let decimal = try await GeocodeBinary.run(["45.5", "12.25", "--json"])
        let r = try await GeocodeBinary.run(arguments + ["--json"])
        #expect(r.status == 0, "\(arguments): \(r.err)")
        #expect(r.out == decimal.out, "\(arguments)")
        #expect(r.out.hasPrefix("{\"latitude\":45.5,\"longitude\":12.25,"))
    }

    /// U+2212, the minus that documents and web pages show (it said "not a number"): the same answer as '-'.
    @Test(arguments: [["−45.5", "120.5"], ["−45.5,120.5"], ["−45.5， 120.5"], ["reverse", "POINT(120.5 −45.5)"],
                      ["45°30'S", "120°30'E"], ["--json", "−45.5", "120.5"]])
    func typographicMinusGivesTheSameAnswer(_ arguments: [String]) async throws {
        let decimal = try await GeocodeBinary.run(["-45.5", "120.5", "--json"])
        let r = try await GeocodeBinary.run(arguments + ["--json"])
        #expect(r.status == 0, "\(arguments): \(r.err)")
        #expect(r.out == decimal.out, "\(arguments)")
        #expect(r.out.contains("\"country\":\"Gridonia\""), "\(r.out)")
    }

    @Test(arguments: [(["45,5", "12,25"], "is ambiguous: a comma may be a decimal comma"),
                      (["45,5，12,25"], "\"45,5，12,25\" is ambiguous: a comma may be a decimal comma"),
                      (["45", "30", "00", "12", "15", "00"], "without ° ' \" marks or N/S/E/W letters are ambiguous"),
                      (["45°30'N", "12°15'S"], "two latitudes"),
                      (["45°75'N", "12°E"], "minutes 75.0 are not below 60"),
                      // U+3000 separates; inside a number it is no digit, and the value is quoted as typed.
                      (["45\u{3000}.5", "12.25"], "latitude \"45\u{3000}.5\" is not a number (LAT)"),
                      (["45.5\u{3000}abc"], "longitude \"abc\" is not a number (LON)")])
    func ambiguousOrWrongIsExitThree(_ arguments: [String], _ message: String) async throws {
        let r = try await GeocodeBinary.run(arguments)
        #expect(r.status == 3, "\(arguments): \(r.err)")
        #expect(r.err.contains(message), "\(arguments): \(r.err)")
    }
}
