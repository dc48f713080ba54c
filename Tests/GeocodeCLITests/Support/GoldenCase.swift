/// One golden batch run: an input under `Fixtures/golden`, extra arguments, and the expected output (and
/// stderr, when the run reports anything) under `Fixtures/golden/expected`.
///
/// The expected files were produced by the binary and then checked by hand against the grid's rules
/// (see GridTestLookup) and the format rules; they pin the exact bytes from then on.
struct GoldenCase: Sendable, CustomTestStringConvertible {
    var input: String
    var arguments: [String]
    var expected: String

    var testDescription: String { "\(input) \(arguments.joined(separator: " ")) → \(expected)" }

    static let all: [GoldenCase] = [
        GoldenCase(input: "quoting.csv", arguments: [], expected: "quoting.csv"),
        GoldenCase(input: "quoting.csv", arguments: ["-F", "geojson", "--fields", "country,city,dataset"], expected: "quoting.geojson"),
        GoldenCase(input: "points.tsv", arguments: [], expected: "points.tsv"),
        GoldenCase(input: "headerless.csv", arguments: [], expected: "headerless.csv"),
        GoldenCase(input: "points.ndjson", arguments: [], expected: "points.ndjson"),
        // The ten fields of before Placemark v2, by their old names: byte for byte the output they always gave.
        GoldenCase(input: "points.ndjson", arguments: ["-F", "tsv", "--fields", "country,country_code,province,province_code,city,"
                                                       + "city_code,district,district_code,city_is_province,dataset"],
                   expected: "points-from-ndjson.tsv"),
        // Every field of the table, under its column name.
        GoldenCase(input: "points.ndjson", arguments: ["-F", "tsv", "--fields", "all"], expected: "points-all-fields.tsv"),
        GoldenCase(input: "points.geojson", arguments: [], expected: "points.geojson"),
        GoldenCase(input: "points.geojson", arguments: ["-F", "csv", "--prefix", "geo_"], expected: "points-from-geojson.csv"),
        GoldenCase(input: "bad-rows.csv", arguments: [], expected: "bad-rows.csv"),
        GoldenCase(input: "bad.ndjson", arguments: ["--fields", "country"], expected: "bad.ndjson"),
        GoldenCase(input: "bad.geojson", arguments: ["--fields", "country"], expected: "bad.geojson"),
    ]
}

import Testing
