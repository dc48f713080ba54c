import Foundation
import Testing

/// A GeoJSON feature's own `id` reaches every output format. NDJSON output dropped it (CSV output had it
/// as a column, GeoJSON kept the feature whole). The oracle is Python's `json` made strict
/// (``StrictJSON``): the id each output holds, as Python writes it back, is the id Python reads from the
/// input feature, with its JSON type (a number stays a number, a string a string), one row per feature,
/// in order. A feature without an id: an empty CSV cell, `null` in NDJSON, no `id` member in GeoJSON.
@Suite struct FeatureIdTests {
    /// A number, a string, none, a string of digits, and an integer no Double holds exactly.
    static let features = [
        #"{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":1}}"#,
        #"{"type":"Feature","id":"a-1","geometry":{"type":"Point","coordinates":[120,-45.5]},"properties":{"n":2}}"#,
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":3}}"#,
        #"{"type":"Feature","id":"007","geometry":{"type":"Point","coordinates":[120,-45.5]},"properties":{"n":4}}"#,
        #"{"type":"Feature","id":9007199254740993,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":5}}"#,
    ]
    static let collection = "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
    static let sequence = features.joined(separator: "\n") + "\n"

    static func batch(_ input: String, _ arguments: [String]) async throws -> GeocodeBinary.Result {
        let file = try TemporaryDirectory.shared.newFile("ids", extension: "geojson")
        try Data(input.utf8).write(to: file)
        let r = try await GeocodeBinary.run(["batch", file.path, "-q", "--fields", "country"] + arguments)
        #expect(r.status == 0, "\(r.err)")
        return r
    }

    /// The ids as Python reads them from the input: `json.dumps` of each feature's id, nil for none.
    static func inputIDs(_ input: String) async throws -> [String?] {
        try await StrictJSON.rows(Data(input.utf8), layout: "geojson").map(\.featureID)
    }

    @Test(arguments: ["geojson", "geojsonseq"], ["csv", "tsv", "ndjson", "geojson", "geojsonseq"])
    func everyOutputKeepsTheId(_ input: String, _ output: String) async throws {
        let text = input == "geojson" ? Self.collection : Self.sequence
        let ids = try await Self.inputIDs(Self.collection)
        #expect(ids == ["7", "\"a-1\"", nil, "\"007\"", "9007199254740993"], "the oracle reads the ids")
        let r = try await Self.batch(text, ["--format", input, "--output-format", output])
        #expect(r.err.isEmpty, "\(r.err)")
        switch output {
        case "csv", "tsv":
            let rows = DelimitedRows.parse(r.out, delimiter: output == "csv" ? "," : "\t")
            try #require(rows.count == ids.count + 1, "\(r.out)")
            #expect(rows[0] == ["id", "lat", "lon", "n", "country", "geocode_error"])
            // A string's text, a number's digits, empty for none.
            #expect(rows.dropFirst().map(\.[0]) == ["7", "a-1", "", "007", "9007199254740993"], "\(r.out)")
            #expect(rows.dropFirst().map(\.[3]) == ["1", "2", "3", "4", "5"], "rows in input order")
        case "ndjson":
            let rows = try await StrictJSON.rows(r.stdout, layout: "lines")
            try #require(rows.count == ids.count, "\(r.out)")
            for (row, id) in zip(rows, ids) {
                #expect(row.keys == ["id", "lat", "lon", "n", "country", "geocode_error"], "\(row.keys)")
                #expect(row.valueJSON["id"] == (id ?? "null"), "\(r.out)")
            }
            #expect(rows.map { $0.valueJSON["n"] } == ["1", "2", "3", "4", "5"], "rows in input order")
        default:
            let rows = try await StrictJSON.rows(r.stdout, layout: output == "geojson" ? "geojson" : "lines")
            #expect(rows.map(\.featureID) == ids, "\(r.out)")
            #expect(rows.map { $0.valueJSON["n"] } == ["1", "2", "3", "4", "5"], "rows in input order")
        }
    }

    /// A property named `id` (in any case) keeps its name; the feature's own id gives way to
    /// `feature_id`, in CSV columns and NDJSON keys alike, as `geometry_lat` does to a property `lat`.
    @Test(arguments: ["csv", "ndjson"])
    func aPropertyIdTakesTheName(_ output: String) async throws {
        let input = #"{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"ID":"p"}}"#
            + "\n" + #"{"type":"Feature","id":"x","geometry":{"type":"Point","coordinates":[120,-45.5]},"properties":{"ID":"q"}}"# + "\n"
        let r = try await Self.batch(input, ["--format", "geojsonseq", "--output-format", output])
        if output == "csv" {
            #expect(DelimitedRows.parse(r.out) == [["feature_id", "lat", "lon", "ID", "country", "geocode_error"],
                                                   ["7", "45.5", "12.25", "p", "Testland", ""],
                                                   ["x", "-45.5", "120", "q", "Gridonia", ""]], "\(r.out)")
        } else {
            let rows = try await StrictJSON.rows(r.stdout, layout: "lines")
            #expect(rows.map(\.keys) == Array(repeating: ["feature_id", "lat", "lon", "ID", "country", "geocode_error"], count: 2))
            #expect(rows.map { $0.valueJSON["feature_id"] } == ["7", "\"x\""], "\(r.out)")
            #expect(rows.map { $0.valueJSON["ID"] } == ["\"p\"", "\"q\""], "\(r.out)")
        }
    }
}
