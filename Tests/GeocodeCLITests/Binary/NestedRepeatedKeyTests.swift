import Foundation
import Testing

/// A key repeated inside a record's values (`"props":{"x":{"a":1,"a":2}}`, an array of such objects, a
/// GeoJSON geometry that gives `"type"` twice) was written as it came, so the output repeated keys
/// that its top level no longer did. Now every output writes each nested key once, where it first
/// stood, with its last value (as Python's `json` and JavaScript read it), in JSON output and in the
/// JSON text of a CSV cell alike, with the one warning a run naming the line and the key's path. The
/// oracles: Python's `json` made strict (``StrictJSON``: no object repeats a key), and Python's reading
/// of the input line (the values it holds are the ones written).
@Suite struct NestedRepeatedKeyTests {
    static func batch(_ arguments: [String], _ input: String) async throws -> GeocodeBinary.Result {
        let r = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country"] + arguments, piped: input)
        #expect(r.status == 0, "\(r.err)")
        return r
    }

    static func warning(_ line: Int, _ keys: String) -> String {
        "geocode: warning: <stdin>:\(line): the record gives \(keys) more than once; the last value is read, as JavaScript "
            + "and Python read JSON, and the output writes the key once, with that value (said for the first such record only)"
    }

    static let lines = [#"{"lat":45.5,"lon":12.25,"props":{"x":{"a":1,"a":2},"y":[{"b":1,"b":{"c":1}},{"b":3}]}}"#,
                        #"{"lat":-45.5,"lon":120.5,"props":{"x":{"a":3}}}"#,
                        #"{"lat":45.5,"lon":12.25,"props":{"x":{"a":4, "z" : 0, "a":5}}}"#]

    /// Each record's `props` as Python reads the input line (each key once: its last value, where it
    /// first stood), written back by `json.dumps`, as ``StrictJSON`` writes a value back.
    static func pythonProps() async throws -> [String] {
        let python = try #require(StrictJSON.python, "this test needs python3 on the PATH")
        let input = try TemporaryDirectory.shared.newFile("nested", extension: "ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", "import json, sys\nprint(json.dumps([json.dumps(json.loads(l)['props']) for l in sys.stdin]))"]
        let result = try await GeocodeBinary.capture(process, stdin: try FileHandle(forReadingFrom: input))
        try #require(result.status == 0, "\(result.err)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String])
    }

    @Test(arguments: ["ndjson", "geojson", "geojsonseq"])
    func jsonOutputWritesANestedKeyOnce(_ output: String) async throws {
        let r = try await Self.batch(["--format", "ndjson", "-F", output], Self.lines.joined(separator: "\n") + "\n")
        let rows = try await StrictJSON.rows(r.stdout, layout: output == "geojson" ? "geojson" : "lines")
        // Python's own reading of the input, last value of each key, in the first one's place.
        let expected = try await Self.pythonProps()
        #expect(expected == [#"{"x": {"a": 2}, "y": [{"b": {"c": 1}}, {"b": 3}]}"#, #"{"x": {"a": 3}}"#,
                             #"{"x": {"a": 5, "z": 0}}"#], "the oracle")
        #expect(rows.map { $0.valueJSON["props"] } == expected, "\(r.out)")
        #expect(rows.map { $0.values["country"] as? String } == ["Testland", "Gridonia", "Testland"])
        #expect(r.err.split(separator: "\n") == [Substring(Self.warning(1, "nested keys \"props.x.a\", \"props.y[0].b\""))],
                "\(r.err)")
    }

    /// A nested value in a CSV cell is JSON text: each key once there too.
    @Test(arguments: ["csv", "tsv"])
    func csvCellsHoldEachNestedKeyOnce(_ output: String) async throws {
        let r = try await Self.batch(["--format", "ndjson", "-F", output], Self.lines.joined(separator: "\n") + "\n")
        let rows = DelimitedRows.parse(r.out, delimiter: output == "csv" ? "," : "\t")
        #expect(rows == [["lat", "lon", "props", "country", "geocode_error"],
                         ["45.5", "12.25", #"{"x":{"a":2},"y":[{"b":{"c":1}},{"b":3}]}"#, "Testland", ""],
                         ["-45.5", "120.5", #"{"x":{"a":3}}"#, "Gridonia", ""],
                         ["45.5", "12.25", #"{"x":{"a":5,"z":0}}"#, "Testland", ""]], "\(r.out)")
        #expect(r.err.split(separator: "\n") == [Substring(Self.warning(1, "nested keys \"props.x.a\", \"props.y[0].b\""))],
                "\(r.err)")
    }

    /// A top-level and a nested repeat in one record: one warning naming both.
    @Test func topLevelAndNestedInOneWarning() async throws {
        let r = try await Self.batch(["--format", "ndjson", "-F", "ndjson"],
                                     #"{"lat":45.5,"lon":12.25,"n":1,"n":2,"p":{"q":1,"q":2}}"# + "\n")
        #expect(r.out.hasPrefix(#"{"lat":45.5,"lon":12.25,"n":2,"p":{"q":2},"#), "\(r.out)")
        #expect(r.err.split(separator: "\n") == [Substring(Self.warning(1, "key \"n\" and nested key \"p.q\""))], "\(r.err)")
    }

    /// A feature's geometry that gives a member twice, and a property object that repeats a key: every
    /// output writes each once; the Point read is the last.
    @Test(arguments: ["csv", "ndjson", "geojson", "geojsonseq"])
    func geojsonGeometryAndPropertyObjects(_ output: String) async throws {
        let features = [#"{"type":"Feature","geometry":{"type":"Point","coordinates":[-30,0.5],"type":"Point","coordinates":[12.25,45.5]},"#
                        + #""properties":{"o":{"k":1,"k":2}}}"#,
                        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[120.5,-45.5]},"properties":{"o":{"k":3}}}"#]
        let r = try await Self.batch(["--format", "geojsonseq", "-F", output], features.joined(separator: "\n") + "\n")
        #expect(r.err.split(separator: "\n")
                == [Substring(Self.warning(1, "nested keys \"geometry.type\", \"geometry.coordinates\", \"properties.o.k\""))],
                "\(r.err)")
        if output == "csv" {
            #expect(DelimitedRows.parse(r.out) == [["id", "lat", "lon", "o", "country", "geocode_error"],
                                                   ["", "45.5", "12.25", #"{"k":2}"#, "Testland", ""],
                                                   ["", "-45.5", "120.5", #"{"k":3}"#, "Gridonia", ""]], "\(r.out)")
            return
        }
        let rows = try await StrictJSON.rows(r.stdout, layout: output == "geojson" ? "geojson" : "lines")
        #expect(rows.map { $0.valueJSON["o"] } == [#"{"k": 2}"#, #"{"k": 3}"#], "\(r.out)")
        #expect(rows.map { $0.values["country"] as? String } == ["Testland", "Gridonia"], "\(r.out)")
        if output != "ndjson" {
            #expect(r.out.contains(#""geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"o":{"k":2},"#), "\(r.out)")
        }
    }

    /// A document that is one bare Point giving a member twice: written once in the Feature made of it.
    @Test func bareGeometryDocument() async throws {
        let r = try await Self.batch(["--format", "geojson"], #"{"type":"Point","coordinates":[-30,0.5],"coordinates":[12.25,45.5]}"#)
        #expect(r.out == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"#
                + #""properties":{"country":"Testland","geocode_error":null}}"# + "\n", "\(r.out)")
        #expect(r.err.split(separator: "\n") == [Substring(Self.warning(1, "key \"coordinates\""))], "\(r.err)")
    }
}
