import Foundation
import Testing

/// A GeoJSON feature's `bbox` and foreign members (RFC 7946 §6.1), and the FeatureCollection's own, were
/// dropped without a word by the outputs that have no place for them (CSV, TSV, NDJSON: a feature's id,
/// position and properties; a GeoJSON sequence: features only). GeoJSON output keeps them all where they
/// stood, and GeoJSONSeq output a feature's; every other output says once a run what it left out, naming
/// the first line that has them and which output keeps them (a collection's: those before its features
/// before the rows, those after them after). The rows are the ones the same input
/// without those members gives, byte for byte; an input without them gets no warning.
@Suite struct UnwrittenGeoJSONMembersTests {
    static let collection = """
        {"type":"FeatureCollection","name":"pts","bbox":[12.25,-45.5,120.5,45.5],"features":[
        {"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":1}},
        {"type":"Feature","id":2,"bbox":[120.5,-45.5,120.5,-45.5],"geometry":{"type":"Point","coordinates":[120.5,-45.5]},"properties":{"n":2},"source":"survey"},
        {"type":"Feature","id":3,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":3},"source":"gps"}
        ],"generator":"test"}

        """
    /// The same without any member but type, id, geometry, properties (and the collection's features).
    static let plain = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":1}},
        {"type":"Feature","id":2,"geometry":{"type":"Point","coordinates":[120.5,-45.5]},"properties":{"n":2}},
        {"type":"Feature","id":3,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":3}}
        ]}

        """

    static func batch(_ input: String, _ arguments: [String]) async throws -> GeocodeBinary.Result {
        let r = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country"] + arguments, piped: input)
        #expect(r.status == 0, "\(r.err)")
        return r
    }

    static func featureWarning(_ format: String, line: Int = 3) -> String {
        "geocode: warning: <stdin>:\(line): the feature has bbox, \"source\", which \(format) output does not write (it writes a "
            + "feature's id, position and properties); GeoJSON and GeoJSONSeq output keep them on the feature (said for the "
            + "first such feature only)"
    }

    /// The collection's members before its features, said before the rows, and after them, said after.
    static func collectionWarnings(_ format: String) -> (before: Substring, after: Substring) {
        ("geocode: warning: <stdin>:1: the FeatureCollection has \"name\", bbox, which \(format) output does not write (it "
            + "writes the features only); GeoJSON output keeps them",
         "geocode: warning: <stdin>:5: the FeatureCollection has \"generator\" after its features, which \(format) output does "
            + "not write (it writes the features only); GeoJSON output keeps it")
    }

    @Test(arguments: [("csv", "CSV"), ("tsv", "TSV"), ("ndjson", "NDJSON")])
    func tabularAndNDJSONSayWhatTheyLeaveOut(_ output: String, _ name: String) async throws {
        let r = try await Self.batch(Self.collection, ["--format", "geojson", "-F", output])
        let collection = Self.collectionWarnings(name)
        #expect(r.err.split(separator: "\n") == [collection.before, Substring(Self.featureWarning(name)), collection.after],
                "\(r.err)")
        let plain = try await Self.batch(Self.plain, ["--format", "geojson", "-F", output])
        #expect(plain.err.isEmpty, "\(plain.err)")
        #expect(r.out == plain.out && !r.out.isEmpty, "\(r.out)")
    }

    /// A sequence's features keep theirs; the collection's have no place in it.
    @Test func geojsonSequenceKeepsTheFeatures() async throws {
        let r = try await Self.batch(Self.collection, ["--format", "geojson", "-F", "geojsonseq"])
        let collection = Self.collectionWarnings("GeoJSONSeq")
        #expect(r.err.split(separator: "\n") == [collection.before, collection.after], "\(r.err)")
        let lines = r.out.split(separator: "\n")
        try #require(lines.count == 3, "\(r.out)")
        #expect(lines[1].hasPrefix(#"{"type":"Feature","id":2,"bbox":[120.5,-45.5,120.5,-45.5],"geometry":"#), "\(lines[1])")
        #expect(lines[1].hasSuffix(#""geocode_error":null},"source":"survey"}"#), "\(lines[1])")
        #expect(lines[2].hasSuffix(#""geocode_error":null},"source":"gps"}"#), "\(lines[2])")
        // A sequence in, with the members on its features: kept, and nothing to say.
        let features = Self.collection.split(separator: "\n").dropFirst().prefix(3).map { $0.hasSuffix(",") ? $0.dropLast() : $0 }
        let again = try await Self.batch(features.joined(separator: "\n") + "\n", ["--format", "geojsonseq", "-F", "geojsonseq"])
        #expect(again.err.isEmpty, "\(again.err)")
        #expect(again.out.contains(#""source":"survey"}"#) && again.out.contains(#""bbox":[120.5,-45.5,120.5,-45.5]"#), "\(again.out)")
    }

    /// GeoJSON output keeps everything where it stood, and says nothing.
    @Test func geojsonKeepsEverything() async throws {
        let r = try await Self.batch(Self.collection, ["--format", "geojson", "-F", "geojson"])
        #expect(r.err.isEmpty, "\(r.err)")
        #expect(r.out.hasPrefix(#"{"type":"FeatureCollection","name":"pts","bbox":[12.25,-45.5,120.5,45.5],"features":["#), "\(r.out)")
        #expect(r.out.hasSuffix("],\"generator\":\"test\"}\n"), "\(r.out)")
        #expect(r.out.contains(#"{"type":"Feature","id":2,"bbox":[120.5,-45.5,120.5,-45.5],"geometry":"#), "\(r.out)")
        #expect(r.out.contains(#""geocode_error":null},"source":"survey"}"#), "\(r.out)")
    }

    /// One Feature as the document, and a sequence: the feature's warning only, for its first line.
    @Test func singleFeatureAndSequenceInput() async throws {
        let feature = #"{"type":"Feature","bbox":[1,2,3,4],"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{},"source":"x"}"#
        let single = try await Self.batch(feature, ["--format", "geojson", "-F", "csv"])
        #expect(single.err.split(separator: "\n") == [Substring(Self.featureWarning("CSV", line: 1))], "\(single.err)")
        let sequence = try await Self.batch(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{}}"#
                                            + "\n" + feature + "\n" + feature + "\n", ["--format", "geojsonseq", "-F", "ndjson"])
        #expect(sequence.err.split(separator: "\n") == [Substring(Self.featureWarning("NDJSON", line: 2))], "\(sequence.err)")
    }
}
