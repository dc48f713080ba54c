import Foundation
import Testing

/// A JSON record that gives a key twice (`{"lat":1,"lat":2}`) was read by its first value, silently;
/// JavaScript, Python and Foundation's JSONSerialization read the last. The batch reads the last too,
/// and warns once per key, naming the line. The oracle is JSONSerialization: what it reads from the
/// input is what the batch geocodes, and what it reads from the output carries the fields.
@Suite struct RepeatedKeyTests {
    static func batch(_ arguments: [String], _ input: String) async throws -> GeocodeBinary.Result {
        try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country"] + arguments, input: input)
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
        // Once per key, naming the first line that repeats it.
        let warnings = r.err.split(separator: "\n")
        #expect(warnings == [
            "geocode: warning: <stdin>:1: the record gives key \"lat\" more than once; its last value is read, as JavaScript and Python read JSON (warned once per key)",
            "geocode: warning: <stdin>:2: the record gives key \"lon\" more than once; its last value is read, as JavaScript and Python read JSON (warned once per key)",
        ], "\(r.err)")
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
        #expect(r.err.contains("<stdin>:1: the record gives key \"name\" more than once"), "\(r.err)")
        #expect(r.err.contains("<stdin>:2: the record gives key \"lat\" more than once"), "\(r.err)")
    }

    /// A feature giving "geometry" or "properties" twice: the last geometry is geocoded and the fields
    /// go into the last properties, the ones a reader of the output sees (they went into the first).
    @Test func geojsonFeatureReadsAndFillsTheLastMember() async throws {
        let feature = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-30,0.5]},"properties":{"a":1},"#
            + #""geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"b":2}}"#
        let r = try await Self.batch([], "{\"type\":\"FeatureCollection\",\"features\":[" + feature + "]}")
        #expect(r.status == 0, "\(r.err)")
        let output = try Self.object(r.out)
        let written = try #require((output["features"] as? [[String: Any]])?.first)
        let properties = try #require(written["properties"] as? [String: Any])
        #expect(properties["country"] as? String == "Testland", "\(r.out)")
        #expect(properties["b"] as? Int == 2)
        #expect(r.err.contains("<stdin>:1: the record gives key \"properties\" more than once"), "\(r.err)")
        #expect(r.err.contains("<stdin>:1: the record gives key \"geometry\" more than once"), "\(r.err)")
        // A single Feature document likewise.
        let single = try await Self.batch([], feature)
        #expect(try Self.object(single.out)["properties"].flatMap { ($0 as? [String: Any])?["country"] as? String } == "Testland",
                "\(single.out)")
    }
}
