import Foundation
import Testing

/// A JSON record that gives a key twice (`{"lat":1,"lat":2}`) was read by its first value, silently;
/// JavaScript, Python and Foundation's JSONSerialization read the last. The batch reads the last too,
/// writes the key once in JSON output (both members were written, which a strict reader refuses and
/// others read differently), and warns once a run, naming the first record's line and key. The oracles
/// are JSONSerialization (what it reads from the input is what the batch geocodes) and Python's `json`
/// made strict (``StrictJSON``: no object of the output gives a key twice).
@Suite struct RepeatedKeyTests {
    static func batch(_ arguments: [String], _ input: String) async throws -> GeocodeBinary.Result {
        try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country"] + arguments, piped: input)
    }

    /// The one warning, for the first record (line) that repeats `keys`.
    static func warning(_ line: Int, _ keys: String, input: String = "<stdin>") -> String {
        "geocode: warning: \(input):\(line): the record gives \(keys) more than once; the last value is read, as JavaScript "
            + "and Python read JSON, and the output writes the key once, with that value (said for the first such record only)"
    }

    static func object(_ line: some StringProtocol) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func ndjsonReadsTheLastValueAsJSONSerializationDoes() async throws {
        // Each line's first and last values lie in different units (locality codes TL-10-2 / TL-13-2,
        // TL-4-2 / GR-4-24, GR-13-24 / GR-4-24).
        let lines = [#"{"lat":10.25,"lat":45.5,"lon":12.25}"#,
                     #"{"lat":-45.5,"lon":12.25,"lon":120.5}"#,
                     #"{"lat":45.5,"lat":-45.5,"lon":120.5}"#]
        let fields = ["--fields", "country,locality_code"]
        let r = try await Self.batch(["--format", "ndjson"] + fields, lines.joined(separator: "\n") + "\n")
        #expect(r.status == 0, "\(r.err)")
        let rows = r.out.split(separator: "\n")
        #expect(rows.count == lines.count, "\(r.out)")
        for (line, row) in zip(lines, rows) {
            // What every other reader sees in the input line, geocoded as a plain point.
            let seen = try Self.object(line)
            let plain = "{\"lat\":\(seen["lat"]!),\"lon\":\(seen["lon"]!)}\n"
            let expected = try await Self.batch(["--format", "ndjson"] + fields, plain)
            let want = try Self.object(expected.out.dropLast())
            let got = try Self.object(row)
            #expect(got["country"] as? String == want["country"] as? String, "\(line) → \(row)")
            #expect(got["locality_code"] as? String == want["locality_code"] as? String, "\(line) → \(row)")
            #expect(want["locality_code"] is String, "\(expected.out)")
            #expect(got["geocode_error"] is NSNull, "\(row)")
        }
        // Each key once in the output.
        let strict = try await StrictJSON.rows(r.stdout, layout: "lines")
        #expect(strict.map(\.keys) == Array(repeating: ["lat", "lon", "country", "locality_code", "geocode_error"], count: 3))
        // Once a run, naming the first line that repeats a key.
        #expect(r.err.split(separator: "\n") == [Substring(Self.warning(1, "key \"lat\""))], "\(r.err)")
    }

    @Test func repeatedKeysOnTheWayToAPairOrANestedPath() async throws {
        let pair = try await Self.batch(["--coords", "p"], "{\"p\":\"0.5,-30\",\"p\":\"45.5,12.25\"}\n")
        #expect(try Self.object(pair.out.dropLast())["country"] as? String == "Testland", "\(pair.out)")
        #expect(pair.err.contains("<stdin>:1: the record gives key \"p\" more than once"), "\(pair.err)")
        let nested = try await Self.batch(["--lat-col", "at.lat", "--lon-col", "at.lon"],
                                          "{\"at\":{\"lat\":0.5,\"lon\":-30},\"at\":{\"lat\":45.5,\"lon\":12.25}}\n")
        #expect(try Self.object(nested.out.dropLast())["country"] as? String == "Testland", "\(nested.out)")
        #expect(nested.err.contains("<stdin>:1: the record gives key \"at\" more than once"), "\(nested.err)")
    }

    /// A CSV column of a key given twice holds the last value, as the coordinate does; one column, not two.
    @Test func csvOutputOfARepeatedKeyHoldsItsLastValue() async throws {
        let r = try await Self.batch(["-F", "csv"], "{\"lat\":45.5,\"lon\":12.25,\"name\":\"old\",\"name\":\"new\"}\n"
                                     + "{\"lat\":45.5,\"lat\":-45.5,\"lon\":120.5,\"name\":\"x\"}\n")
        #expect(r.out == "lat,lon,name,country,geocode_error\n45.5,12.25,new,Testland,\n-45.5,120.5,x,Gridonia,\n", "\(r.out)")
        #expect(r.err.split(separator: "\n") == [Substring(Self.warning(1, "key \"name\""))], "\(r.err)")
    }

    /// A feature giving "geometry" or "properties" twice: the last geometry is geocoded and the fields
    /// go into the last properties, the ones a reader of the output sees (they went into the first).
    @Test func geojsonFeatureReadsAndFillsTheLastMember() async throws {
        let feature = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-30,0.5]},"properties":{"a":1},"#
            + #""geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"b":2}}"#
        let r = try await Self.batch([], "{\"type\":\"FeatureCollection\",\"features\":[" + feature + "]}")
        #expect(r.status == 0, "\(r.err)")
        // One geometry and one properties, where the first of each stood (the strict reader refused two).
        let strict = try await StrictJSON.rows(r.stdout, layout: "geojson")
        #expect(strict.map(\.keys) == [["b", "country", "geocode_error"]] && strict.first?.point == [12.25, 45.5], "\(r.out)")
        #expect(r.out.contains(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"b":2,"#), "\(r.out)")
        let output = try Self.object(r.out)
        let written = try #require((output["features"] as? [[String: Any]])?.first)
        let properties = try #require(written["properties"] as? [String: Any])
        #expect(properties["country"] as? String == "Testland", "\(r.out)")
        #expect(properties["b"] as? Int == 2)
        #expect(r.err.split(separator: "\n") == [Substring(Self.warning(1, "keys \"geometry\", \"properties\""))], "\(r.err)")
        // A single Feature document likewise.
        let single = try await Self.batch([], feature)
        #expect(try Self.object(single.out)["properties"].flatMap { ($0 as? [String: Any])?["country"] as? String } == "Testland",
                "\(single.out)")
    }

    /// Any key, not only the coordinates': JSON output writes it once, where it first stood (as
    /// JavaScript's objects and Python's dicts keep a key's place), with its last value. One warning
    /// for the run, naming the first record; none for clean input.
    @Test(arguments: ["ndjson", "geojson", "geojsonseq"])
    func jsonOutputWritesARepeatedKeyOnce(_ output: String) async throws {
        let lines = [#"{"a":1,"a":2,"lat":45.5,"lon":12.25}"#,
                     #"{"b":"x","lat":-45.5,"b":"y","lon":120.5,"a":[1,{"c":2}]}"#,
                     #"{"lat":45.5,"lon":12.25,"a":null}"#]
        let r = try await Self.batch(["--format", "ndjson", "-F", output], lines.joined(separator: "\n") + "\n")
        #expect(r.status == 0, "\(r.err)")
        let rows = try await StrictJSON.rows(r.stdout, layout: output == "geojson" ? "geojson" : "lines")
        #expect(rows.map(\.keys) == [["a", "lat", "lon", "country", "geocode_error"],
                                     ["b", "lat", "lon", "a", "country", "geocode_error"],
                                     ["lat", "lon", "a", "country", "geocode_error"]], "\(r.out)")
        // The values JSONSerialization reads from each input line (the last of a repeated key).
        for (line, row) in zip(lines, rows) {
            let read = try Self.object(line)
            for key in read.keys {
                #expect(try JSONSerialization.data(withJSONObject: [read[key]!], options: .sortedKeys)
                        == JSONSerialization.data(withJSONObject: [row.values[key]!], options: .sortedKeys), "\(line) → \(row.values)")
            }
        }
        #expect(rows.map { $0.values["country"] as? String } == ["Testland", "Gridonia", "Testland"])
        #expect(r.err.split(separator: "\n") == [Substring(Self.warning(1, "key \"a\""))], "\(r.err)")
        // Without the repeats: the same keys, and nothing to say.
        let clean = try await Self.batch(["--format", "ndjson", "-F", output],
                                         lines.map { $0.replacingOccurrences(of: #""a":1,"#, with: "")
                                             .replacingOccurrences(of: #""b":"x","#, with: "") }.joined(separator: "\n") + "\n")
        #expect(clean.status == 0 && clean.err.isEmpty, "\(clean.err)")
        #expect(try await StrictJSON.rows(clean.stdout, layout: output == "geojson" ? "geojson" : "lines").count == 3)
    }

    /// A feature that gives its `id`, and a property, twice: every output holds the last of each, once.
    @Test(arguments: ["csv", "ndjson", "geojson", "geojsonseq"])
    func geojsonFeatureAndPropertiesRepeatingAKey(_ output: String) async throws {
        let features = [#"{"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"id":2,"properties":{"a":1,"n":1,"a":"two"}}"#,
                        #"{"type":"Feature","id":3,"geometry":{"type":"Point","coordinates":[120.5,-45.5]},"properties":{"a":"x","n":2}}"#]
        let r = try await Self.batch(["--format", "geojsonseq", "-F", output], features.joined(separator: "\n") + "\n")
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.split(separator: "\n") == [Substring(Self.warning(1, "keys \"id\", \"a\""))], "\(r.err)")
        if output == "csv" {
            #expect(DelimitedRows.parse(r.out) == [["id", "lat", "lon", "a", "n", "country", "geocode_error"],
                                                   ["2", "45.5", "12.25", "two", "1", "Testland", ""],
                                                   ["3", "-45.5", "120.5", "x", "2", "Gridonia", ""]], "\(r.out)")
            return
        }
        let rows = try await StrictJSON.rows(r.stdout, layout: output == "geojson" ? "geojson" : "lines")
        try #require(rows.count == 2, "\(r.out)")
        #expect(rows.map { $0.valueJSON["a"] } == ["\"two\"", "\"x\""], "\(r.out)")
        if output == "ndjson" {
            #expect(rows[0].keys == ["id", "lat", "lon", "a", "n", "country", "geocode_error"], "\(rows[0].keys)")
            #expect(rows.map { $0.valueJSON["id"] } == ["2", "3"], "\(r.out)")
        } else {
            #expect(rows[0].keys == ["a", "n", "country", "geocode_error"], "\(rows[0].keys)")
            #expect(rows.map(\.featureID) == ["2", "3"], "\(r.out)")
        }
    }

    /// A CSV header that gives a name twice: CSV output keeps the header byte for byte and both values;
    /// JSON output writes the later column as `a_2` (unused in any case: beside `A_2`, `a_3`), with one
    /// warning naming the header's line and the columns. No warning for CSV output.
    @Test(arguments: [("a,a,lat,lon", ["a", "a_2"]), ("a,A_2,a,lat,lon", ["a", "A_2", "a_3"])])
    func csvHeaderRepeatingAName(_ header: String, _ keys: [String]) async throws {
        let values = keys.count == 2 ? [["1", "2"], ["3", "4"]] : [["1", "x", "2"], ["3", "y", "4"]]
        let input = header + "\n" + values[0].joined(separator: ",") + ",45.5,12.25\n" + values[1].joined(separator: ",") + ",-45.5,120.5\n"
        let csv = try await Self.batch(["--format", "csv"], input)
        #expect(csv.out == header + ",country,geocode_error\n" + values[0].joined(separator: ",") + ",45.5,12.25,Testland,\n"
                + values[1].joined(separator: ",") + ",-45.5,120.5,Gridonia,\n", "\(csv.out)")
        #expect(csv.err.isEmpty, "\(csv.err)")
        let repeated = keys.count == 2 ? "1, 2" : "1, 3"
        let renamed = keys.count == 2 ? "column 2 as \"a_2\"" : "column 3 as \"a_3\""
        for output in ["ndjson", "geojson", "geojsonseq"] {
            let r = try await Self.batch(["--format", "csv", "-F", output], input)
            let rows = try await StrictJSON.rows(r.stdout, layout: output == "geojson" ? "geojson" : "lines")
            #expect(rows.map(\.keys) == Array(repeating: keys + ["lat", "lon", "country"] + ["geocode_error"], count: 2), "\(r.out)")
            for (row, expected) in zip(rows, values) {
                #expect(keys.map { row.values[$0] as? String } == expected, "\(output): \(row.values)")
            }
            #expect(r.err.split(separator: "\n") == [Substring("geocode: warning: <stdin>:1: the header gives \"a\" as columns \(repeated); "
                + "a JSON object cannot hold a key twice, so the JSON output writes \(renamed) (CSV/TSV output keeps the header as it is)")],
                "\(output): \(r.err)")
        }
    }
}
