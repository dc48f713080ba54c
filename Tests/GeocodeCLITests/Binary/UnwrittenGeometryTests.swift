import Foundation
import Testing

/// A Point geometry's `bbox`, its foreign members (RFC 7946 §6.1: any but type, coordinates and bbox) and
/// an altitude (a third position value, §3.1.1) were dropped without a word by the outputs that write a
/// position as lat and lon (CSV, TSV, NDJSON), where a feature's own bbox and foreign members were said
/// (``UnwrittenGeoJSONMembersTests``). Each kind is now said once a run, naming the first line that has
/// it; the rows are the ones the same input without them gives, byte for byte. GeoJSON and GeoJSONSeq
/// output keep the geometry as it came (Foundation's JSON reader is the judge) and say nothing.
@Suite struct UnwrittenGeometryTests {
    /// Line 3: an altitude. Line 4: a bbox and two foreign members. Line 5: all three kinds again (and
    /// another foreign member), said no more.
    static let collection = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":1}},
        {"type":"Feature","id":2,"geometry":{"type":"Point","coordinates":[120.5,-45.5,812.5]},"properties":{"n":2}},
        {"type":"Feature","id":3,"geometry":{"type":"Point","bbox":[12.25,45.5,12.25,45.5],"coordinates":[12.25,45.5],"accuracy":5,"crs":null},"properties":{"n":3}},
        {"type":"Feature","id":4,"geometry":{"type":"Point","coordinates":[120.5,-45.5,3],"bbox":[120.5,-45.5,120.5,-45.5],"src":"gps"},"properties":{"n":4}}
        ]}

        """
    /// The same, each geometry only its type and [longitude, latitude].
    static let plain = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":1}},
        {"type":"Feature","id":2,"geometry":{"type":"Point","coordinates":[120.5,-45.5]},"properties":{"n":2}},
        {"type":"Feature","id":3,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":3}},
        {"type":"Feature","id":4,"geometry":{"type":"Point","coordinates":[120.5,-45.5]},"properties":{"n":4}}
        ]}

        """

    static func batch(_ input: String, _ arguments: [String]) async throws -> GeocodeBinary.Result {
        let r = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country"] + arguments, piped: input)
        #expect(r.status == 0, "\(r.err)")
        return r
    }

    static func altitudeWarning(_ format: String, line: Int) -> String {
        "geocode: warning: <stdin>:\(line): the Point has an altitude (a third value in its coordinates), which \(format) output "
            + "does not write (it writes the Point's latitude and longitude); GeoJSON and GeoJSONSeq output keep it in the "
            + "coordinates (said for the first such Point only)"
    }

    static func bboxWarning(_ format: String, line: Int) -> String {
        "geocode: warning: <stdin>:\(line): the Point geometry has bbox, which \(format) output does not write (it writes the "
            + "Point's latitude and longitude); GeoJSON and GeoJSONSeq output keep it on the geometry (said for the first such "
            + "geometry only)"
    }

    static func membersWarning(_ format: String, line: Int, _ names: String, _ pronoun: String = "them") -> String {
        "geocode: warning: <stdin>:\(line): the Point geometry has \(names), which \(format) output does not write (it writes "
            + "the Point's latitude and longitude); GeoJSON and GeoJSONSeq output keep \(pronoun) on the geometry (said for the "
            + "first such geometry only)"
    }

    @Test(arguments: [("csv", "CSV"), ("tsv", "TSV"), ("ndjson", "NDJSON")])
    func tabularAndNDJSONSayEachKindOnce(_ output: String, _ name: String) async throws {
        let r = try await Self.batch(Self.collection, ["--format", "geojson", "-F", output])
        #expect(r.err.split(separator: "\n").map(String.init)
                == [Self.altitudeWarning(name, line: 3), Self.bboxWarning(name, line: 4),
                    Self.membersWarning(name, line: 4, #""accuracy", "crs""#)], "\(r.err)")
        let plain = try await Self.batch(Self.plain, ["--format", "geojson", "-F", output])
        #expect(plain.err.isEmpty, "\(plain.err)")
        #expect(r.out == plain.out && r.out.split(separator: "\n").count >= 4, "\(r.out)")
    }

    /// Read from a file, the first thousand features are a chunk each (read ahead, ``BatchSetup``): a
    /// kind is still said once a run, not once a chunk.
    @Test func onceARunAcrossChunks() async throws {
        let file = try TemporaryDirectory.shared.newFile("geometry", extension: "geojson")
        try Data(Self.collection.utf8).write(to: file)
        let r = try await GeocodeBinary.run(["batch", file.path, "-q", "--fields", "country", "-F", "csv"])
        #expect(r.status == 0, "\(r.err)")
        let warnings = r.err.split(separator: "\n").map { $0.replacingOccurrences(of: file.path, with: "<stdin>") }
        #expect(warnings == [Self.altitudeWarning("CSV", line: 3), Self.bboxWarning("CSV", line: 4),
                             Self.membersWarning("CSV", line: 4, #""accuracy", "crs""#)], "\(r.err)")
    }

    /// GeoJSON and GeoJSONSeq output write each geometry as it came: the same JSON value as the input's,
    /// as Foundation reads both, bbox, foreign members and altitude included.
    @Test(arguments: ["geojson", "geojsonseq"])
    func geojsonOutputsKeepTheGeometry(_ output: String) async throws {
        let r = try await Self.batch(Self.collection, ["--format", "geojson", "-F", output])
        #expect(r.err.isEmpty, "\(r.err)")
        let input = try JSONSerialization.jsonObject(with: Data(Self.collection.utf8)) as? [String: Any]
        let inputGeometries = try #require(input?["features"] as? [[String: Any]]).map { $0["geometry"] as? NSDictionary }
        let features: [[String: Any]]
        if output == "geojson" {
            let document = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
            features = try #require(document?["features"] as? [[String: Any]])
        } else {
            features = try r.out.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
        }
        #expect(features.count == 4)
        #expect(features.map { $0["geometry"] as? NSDictionary } == inputGeometries, "\(r.out)")
    }

    /// A document that is one bare Point, and a sequence whose records are bare Points: said the same.
    @Test func bareGeometries() async throws {
        let point = #"{"type":"Point","coordinates":[12.25,45.5,100],"bbox":[12.25,45.5,12.25,45.5]}"#
        let single = try await Self.batch(point, ["--format", "geojson", "-F", "csv"])
        #expect(single.err.split(separator: "\n").map(String.init)
                == [Self.bboxWarning("CSV", line: 1), Self.altitudeWarning("CSV", line: 1)], "\(single.err)")
        let sequence = try await Self.batch(#"{"type":"Point","coordinates":[12.25,45.5]}"# + "\n"
                                            + #"{"type":"Point","coordinates":[12.25,45.5],"crs":{"type":"name"}}"# + "\n",
                                            ["--format", "geojsonseq", "-F", "ndjson"])
        #expect(sequence.err.split(separator: "\n").map(String.init)
                == [Self.membersWarning("NDJSON", line: 2, #""crs""#, "it")], "\(sequence.err)")
        let kept = try await Self.batch(point, ["--format", "geojson", "-F", "geojson"])
        #expect(kept.err.isEmpty && kept.out.contains(#""coordinates":[12.25,45.5,100],"bbox":[12.25,45.5,12.25,45.5]"#),
                "\(kept.err)\(kept.out)")
    }
}
