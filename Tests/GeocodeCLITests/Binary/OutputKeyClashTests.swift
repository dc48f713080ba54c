import Foundation
import Testing

/// JSON output never gives a key twice (OutputNames). GeoJSON in, NDJSON out wrote the Point's `lat`
/// and `lon` beside properties of those names, and every JSON output wrote an added `country` beside
/// the input's: readers keep the first, or the last, or refuse the file. The oracle is Python's `json`
/// made strict (``StrictJSON``): every output must parse with no object repeating a key, one row per
/// input row, in order, the input's values intact and the geocoded ones under the names given way.
@Suite struct OutputKeyClashTests {
    /// Three features a line each (lines 2–4): the first two with properties that take the names the
    /// output adds (`lat`, `lon`, `country`, `geocode_error`) and some that do not (`latitude`), the
    /// second's property position unlike its Point's; the third with only `country`.
    static let collection = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":1,"lat":45.5,"lon":12.25,"latitude":"45.5","longitude":"12.25","country":"x","geocode_error":"old"}},
        {"type":"Feature","id":"b","geometry":{"type":"Point","coordinates":[120,-45.5]},"properties":{"n":2,"lat":-44,"lon":121,"latitude":null,"longitude":null,"country":"y","geocode_error":null}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":3,"country":"z"}}
        ]}

        """

    static let added = ["country_code", "province", "city", "district"]
    static let countries = ["Testland", "Gridonia", "Testland"]

    static func batch(_ input: String, _ arguments: [String]) async throws -> GeocodeBinary.Result {
        let file = try TemporaryDirectory.shared.newFile("clash", extension: "geojson")
        try Data(input.utf8).write(to: file)
        let r = try await GeocodeBinary.run(["batch", file.path, "-q"] + arguments)
        #expect(r.status == 0, "\(r.err)")
        return r
    }

    @Test(arguments: ["ndjson", "geojson", "geojsonseq"])
    func geojsonInputWritesNoKeyTwice(_ output: String) async throws {
        let r = try await Self.batch(Self.collection, ["--output-format", output])
        let rows = try await StrictJSON.rows(r.stdout, layout: output == "geojson" ? "geojson" : "lines")
        try #require(rows.count == 3, "\(r.out)")
        // The id and the Point: NDJSON's keys (the id null for the third feature, which has none) give
        // way to the properties only where a property has the name (as CSV's columns do), GeoJSON keeps them.
        let own = output == "ndjson" ? ["id", "geometry_lat", "geometry_lon"] : []
        #expect(rows[0].keys == own + ["n", "lat", "lon", "latitude", "longitude", "country", "geocode_error",
                                       "geocode_country"] + Self.added + ["geocode_error_2"], "\(rows[0].keys)")
        #expect(rows[1].keys == rows[0].keys)
        // The third has no lat, lon or geocode_error: the first feature's names, and the usual error key.
        #expect(rows[2].keys == own + ["n", "country", "geocode_country"] + Self.added + ["geocode_error"], "\(rows[2].keys)")
        let points: [[Double]] = [[12.25, 45.5], [120, -45.5], [12.25, 45.5]]
        for (i, row) in rows.enumerated() {
            #expect(row.values["n"] as? Int == i + 1, "rows in input order")
            #expect(row.values["country"] as? String == ["x", "y", "z"][i], "the input's value")
            #expect(row.values["geocode_country"] as? String == Self.countries[i], "the geocoded value")
            if output == "ndjson" {
                #expect([row.values["geometry_lon"], row.values["geometry_lat"]].map { ($0 as? NSNumber)?.doubleValue } == points[i])
                #expect(row.valueJSON["id"] == ["\"a\"", "\"b\"", "null"][i])
            } else {
                #expect(row.point == points[i])
            }
        }
        #expect(rows[0].values["lat"] as? Double == 45.5 && rows[1].values["lat"] as? Int == -44 && rows[1].values["lon"] as? Int == 121)
        #expect(rows[0].values["latitude"] as? String == "45.5" && rows[1].values["latitude"] is NSNull)
        #expect(rows[0].values["geocode_error"] as? String == "old" && rows[1].values["geocode_error"] is NSNull)
        #expect(rows[0].values["geocode_error_2"] is NSNull && rows[2].values["geocode_error"] is NSNull)
        // Said once per key, naming the file's line of the first feature that has it, and the cure.
        let warnings = r.err.split(separator: "\n")
        #expect(warnings.count == 2, "\(r.err)")
        #expect(warnings.contains { $0.hasSuffix(":2: the input already has key \"country\"; a JSON object cannot hold a key twice, "
                                                 + "so the added one is \"geocode_country\" (use --prefix to tell them apart)") }, "\(r.err)")
        #expect(warnings.contains { $0.hasSuffix(":2: the input already has key \"geocode_error\"; a JSON object cannot hold a key twice, "
                                                 + "so the added one is \"geocode_error_2\" (use --prefix to tell them apart)") }, "\(r.err)")
        // --prefix: the usual names, prefixed, and nothing to say.
        let prefixed = try await Self.batch(Self.collection, ["--output-format", output, "--prefix", "geo_"])
        let again = try await StrictJSON.rows(prefixed.stdout, layout: output == "geojson" ? "geojson" : "lines")
        #expect(again.map { $0.values["geo_country"] as? String } == Self.countries)
        #expect(prefixed.err.isEmpty, "\(prefixed.err)")
    }

    /// A later feature whose properties take the names the first left alone: that row's own names.
    @Test func aLaterFeatureGetsItsOwnNames() async throws {
        let input = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":1}}"# + "\n"
            + #"{"type":"Feature","geometry":{"type":"Point","coordinates":[120,-45.5]},"properties":{"n":2,"LAT":1,"geometry_lat":2}}"# + "\n"
        let r = try await Self.batch(input, ["--format", "geojsonseq", "--output-format", "ndjson", "--fields", "country"])
        let rows = try await StrictJSON.rows(r.stdout, layout: "lines")
        #expect(rows.map(\.keys) == [["id", "lat", "lon", "n", "country", "geocode_error"],
                                     ["id", "geometry_lat_2", "geometry_lon", "n", "LAT", "geometry_lat", "country", "geocode_error"]])
        #expect(rows[1].values["geometry_lat_2"] as? Double == -45.5 && rows[1].values["geometry_lat"] as? Int == 2)
    }

    /// The same rule from CSV (decided once, from the header) and NDJSON (per record) input.
    @Test(arguments: [("csv", "n,lat,lon,country,geocode_error\n1,45.5,12.25,x,old\n2,-45.5,120,y,\n"),
                      ("ndjson", #"{"n":1,"lat":45.5,"lon":12.25,"country":"x","geocode_error":"old"}"# + "\n"
                                 + #"{"n":2,"lat":-45.5,"lon":120,"country":"y","geocode_error":null}"# + "\n")])
    func otherInputsToEveryJSONOutput(_ format: String, _ input: String) async throws {
        for output in ["ndjson", "geojson", "geojsonseq"] {
            let r = try await Self.batch(input, ["--format", format, "--output-format", output])
            let rows = try await StrictJSON.rows(r.stdout, layout: output == "geojson" ? "geojson" : "lines")
            #expect(rows.map(\.keys) == Array(repeating: ["n", "lat", "lon", "country", "geocode_error", "geocode_country"]
                                                    + Self.added + ["geocode_error_2"], count: 2), "\(format) → \(output)")
            #expect(rows.map { $0.values["country"] as? String } == ["x", "y"], "\(format) → \(output)")
            #expect(rows.map { $0.values["geocode_country"] as? String } == ["Testland", "Gridonia"], "\(format) → \(output)")
            let said = format == "csv"
                ? ":1: the input already has columns \"country\", \"geocode_error\"; a JSON object cannot hold a key twice, "
                    + "so the added ones are \"geocode_country\", \"geocode_error_2\" (use --prefix to tell them apart)"
                : ":1: the input already has key \"country\"; a JSON object cannot hold a key twice, "
                    + "so the added one is \"geocode_country\" (use --prefix to tell them apart)"
            #expect(r.err.split(separator: "\n").contains { $0.hasSuffix(said) }, "\(format) → \(output): \(r.err)")
        }
    }
}
