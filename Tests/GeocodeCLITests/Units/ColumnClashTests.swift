import Foundation
@testable import GeocodeCLI
import Testing

/// CSV/TSV output never repeats a column name without a word, whatever the input format: an added
/// column the input already has is warned about once (it was, for CSV input only; NDJSON and GeoJSON
/// wrote `country` twice silently), `--prefix` resolves it for every format, and a GeoJSON feature's
/// own `lat`/`lon` columns give way to properties of those names (they were written twice).
@Suite struct ColumnClashTests {
    /// Two records holding id, lat, lon and country, in each input format; the GeoJSON ones also have a
    /// feature id and a Point equal to the properties' coordinates.
    static let inputs: [(BatchFormat, String)] = [
        (.csv, "id,lat,lon,country\n1,45.5,12.25,x\n2,-45.5,120,y\n"),
        (.tsv, "id\tlat\tlon\tcountry\n1\t45.5\t12.25\tx\n2\t-45.5\t120\ty\n"),
        (.ndjson, #"{"id":1,"lat":45.5,"lon":12.25,"country":"x"}"# + "\n" + #"{"id":2,"lat":-45.5,"lon":120,"country":"y"}"# + "\n"),
        (.geojson, #"{"type":"FeatureCollection","features":["# + feature(1, 45.5, 12.25, "x") + "," + feature(2, -45.5, 120, "y") + "]}"),
        (.geojsonseq, feature(1, 45.5, 12.25, "x") + "\n" + feature(2, -45.5, 120, "y") + "\n"),
    ]

    static func feature(_ id: Int, _ lat: Double, _ lon: Double, _ country: String) -> String {
        #"{"type":"Feature","id":"f\#(id)","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"#
            + #""properties":{"id":\#(id),"lat":\#(lat),"lon":\#(lon),"country":"\#(country)"}}"#
    }

    static let added = ["country", "country_code", "province", "city", "district", "geocode_error"]

    /// The columns carried from each input, before the added ones.
    static func carried(_ format: BatchFormat) -> [String] {
        switch format {
        case .geojson, .geojsonseq: ["feature_id", "geometry_lat", "geometry_lon", "id", "lat", "lon", "country"]
        default: ["id", "lat", "lon", "country"]
        }
    }

    @Test(arguments: inputs)
    func anAddedColumnTheInputHasIsSaidOnceWhateverTheFormat(_ format: BatchFormat, _ input: String) throws {
        let run = try BatchOutputShapeTests.run(input, format: format, output: .csv)
        let header = BatchOutputShapeTests.fields(run.preamble)
        #expect(header == Self.carried(format) + Self.added, "\(format)")
        // One warning, naming the column, the line its name comes from and the remedy.
        #expect(run.notices.count == 1, "\(format): \(run.notices)")
        let notice = try #require(run.notices.first)
        #expect(notice.hasSuffix(":1: the input already has column \"country\"; the output will have it twice "
                                 + "(use --prefix to tell them apart)"), "\(format): \(notice)")
        #expect(notice.hasPrefix(run.schema.inputName), "\(notice)")
        for row in run.rows { #expect(BatchOutputShapeTests.fields(row).count == header.count, "\(format)") }
    }

    @Test(arguments: inputs)
    func prefixResolvesTheClashForEveryFormat(_ format: BatchFormat, _ input: String) throws {
        let run = try BatchOutputShapeTests.run(input, format: format, output: .csv, prefix: "geo_")
        let header = BatchOutputShapeTests.fields(run.preamble)
        #expect(header == Self.carried(format) + Self.added.map { "geo_" + $0 }, "\(format)")
        #expect(Set(header).count == header.count, "\(format): \(header)")
        #expect(run.notices.isEmpty, "\(format): \(run.notices)")
        // Both values are there, each under its own name: the input's and the geocoded one.
        let rows = run.rows.map { Dictionary(zip(header, BatchOutputShapeTests.fields($0)), uniquingKeysWith: { a, _ in a }) }
        #expect(rows.map { $0["country"] } == ["x", "y"], "\(format)")
        #expect(rows.map { $0["geo_country"] } == ["Testland", "Gridonia"], "\(format)")
        for row in run.rows { #expect(BatchOutputShapeTests.fields(row).count == header.count, "\(format)") }
    }

    /// The Point and the properties may disagree (a property `lat` from an older survey): each column
    /// holds its own, and the geocoded place is the Point's.
    @Test func geometryColumnsHoldThePointAndPropertiesTheirOwnValues() throws {
        let input = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[120,-45.5]},"#
            + #""properties":{"lat":45.5,"name":"a"}}]}"#
        let run = try BatchOutputShapeTests.run(input, format: .geojson, output: .csv)
        let header = BatchOutputShapeTests.fields(run.preamble)
        #expect(header.prefix(5) == ["id", "geometry_lat", "geometry_lon", "lat", "name"])
        let row = BatchOutputShapeTests.fields(run.rows[0])
        #expect(row.prefix(6) == ["", "-45.5", "120", "45.5", "a", "Gridonia"])
        #expect(run.notices.isEmpty, "\(run.notices)")
        // Without a lat or lon property the names stay as they always were.
        let plain = try BatchOutputShapeTests.run(input.replacingOccurrences(of: "\"lat\":45.5,", with: ""), format: .geojson, output: .csv)
        #expect(BatchOutputShapeTests.fields(plain.preamble).prefix(4) == ["id", "lat", "lon", "name"])
    }

    /// A file written by an earlier run already has `geometry_lat` and `feature_id` properties: the
    /// feature's columns take the next free name rather than repeat one.
    @Test func theFeaturesOwnColumnsTakeTheNextFreeName() throws {
        let input = #"{"type":"Feature","id":9,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"#
            + #""properties":{"feature_id":1,"id":2,"geometry_lat":3,"lon":4}}"#
        let run = try BatchOutputShapeTests.run(input, format: .geojson, output: .csv)
        let header = BatchOutputShapeTests.fields(run.preamble)
        #expect(header.prefix(7) == ["feature_id_2", "geometry_lat_2", "geometry_lon", "feature_id", "id", "geometry_lat", "lon"])
        #expect(Set(header).count == header.count, "\(header)")
        #expect(BatchOutputShapeTests.fields(run.rows[0]).prefix(8) == ["9", "45.5", "12.25", "1", "2", "3", "4", "Testland"])
    }

    /// JSON input with JSON output keeps its per-key warning (RecordEncoder), not a second one before
    /// the rows; CSV input warns before the rows whatever the output, as it did.
    @Test func jsonOutputIsToldByTheEncoderAndCSVInputBeforeTheRows() throws {
        let ndjson = try BatchOutputShapeTests.run(Self.inputs[2].1, format: .ndjson, output: .ndjson)
        #expect(ndjson.notices.isEmpty, "\(ndjson.notices)")
        let csv = try BatchOutputShapeTests.run(Self.inputs[0].1, format: .csv, output: .ndjson)
        #expect(csv.notices.count == 1 && csv.notices[0].contains("already has column \"country\""), "\(csv.notices)")
    }

    // MARK: Names that differ only in case

    /// `Country` beside our `country`: two distinct names to pandas, one to the tools that fold case.
    static let caseInputs: [(BatchFormat, String)] = [
        (.csv, "id,lat,lon,Country,City\n1,45.5,12.25,x,a\n"),
        (.tsv, "id\tlat\tlon\tCountry\tCity\n1\t45.5\t12.25\tx\ta\n"),
        (.ndjson, #"{"id":1,"lat":45.5,"lon":12.25,"Country":"x","City":"a"}"# + "\n"),
        (.geojson, #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"#
            + #""properties":{"Country":"x","City":"a"}}]}"#),
        (.geojsonseq, #"{"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"Country":"x","City":"a"}}"# + "\n"),
    ]

    static let caseWarning = ":1: the input's columns \"Country\", \"City\" and the added \"country\", \"city\" differ only in case, "
        + "which DuckDB, PostgreSQL (unquoted), BigQuery, Spark SQL and Power Query fold: loading the output there fails or "
        + "drops one of each pair (use --prefix to tell them apart)"

    @Test(arguments: caseInputs)
    func aNameThatDiffersOnlyInCaseIsSaidOnceAndKept(_ format: BatchFormat, _ input: String) throws {
        let run = try BatchOutputShapeTests.run(input, format: format, output: .csv)
        let header = BatchOutputShapeTests.fields(run.preamble)
        // Distinct bytes: both kept as they are, nothing renamed.
        #expect(header.filter { $0.lowercased() == "country" } == ["Country", "country"], "\(format): \(header)")
        #expect(header.filter { $0.lowercased() == "city" } == ["City", "city"], "\(format): \(header)")
        #expect(run.notices.count == 1, "\(format): \(run.notices)")
        let notice = try #require(run.notices.first)
        #expect(notice == run.schema.inputName + Self.caseWarning, "\(format): \(notice)")
        let row = Dictionary(zip(header, BatchOutputShapeTests.fields(run.rows[0])), uniquingKeysWith: { a, _ in a })
        #expect(row["Country"] == "x" && row["country"] == "Testland", "\(format): \(row)")
        // The cure the warning names.
        let prefixed = try BatchOutputShapeTests.run(input, format: format, output: .csv, prefix: "geo_")
        #expect(prefixed.notices.isEmpty, "\(format): \(prefixed.notices)")
        // JSON output: the same, before the rows from a header, else per key as the records show them.
        for output in [BatchFormat.ndjson, .geojson, .geojsonseq] {
            let json = try BatchOutputShapeTests.run(input, format: format, output: output)
            let said = json.notices + json.rowNotices
            if format.delimiter != nil {
                #expect(said == [json.schema.inputName + Self.caseWarning], "\(format) → \(output): \(said)")
            } else {
                let key = { (carried: String, added: String) in
                    json.schema.inputName + ":1: the input's key \"\(carried)\" and the added \"\(added)\" differ only in case, "
                        + "which DuckDB, PostgreSQL (unquoted), BigQuery, Spark SQL and Power Query fold: loading the output there "
                        + "fails or drops one of the two (use --prefix to tell them apart)"
                }
                #expect(said == [key("Country", "country"), key("City", "city")], "\(format) → \(output): \(said)")
            }
            let row = json.text
            #expect(row.contains(#""Country":"x""#) && row.contains(#""country":"Testland""#), "\(format) → \(output): \(row)")
        }
    }

    /// An exact clash and one of case only: still the one warning, saying both.
    @Test func anExactAndACaseClashAreOneWarning() throws {
        let run = try BatchOutputShapeTests.run("lat,lon,country,City\n45.5,12.25,x,a\n", format: .csv, output: .csv)
        #expect(run.notices == [run.schema.inputName + ":1: the input already has column \"country\"; the output will have it twice; "
                                + "the input's column \"City\" and the added \"city\" differ only in case, which DuckDB, PostgreSQL "
                                + "(unquoted), BigQuery, Spark SQL and Power Query fold: loading the output there fails or drops one "
                                + "of the two (use --prefix to tell them apart)"], "\(run.notices)")
    }

    /// Names near ours but not ours in any case say nothing, whatever the formats.
    @Test(arguments: [BatchFormat.csv, .ndjson, .geojson])
    func namesThatOnlyResembleOursSayNothing(_ output: BatchFormat) throws {
        let inputs: [(BatchFormat, String)] = [
            (.csv, "lat,lon,COUNTRY_NAME,Countries,citycode\n45.5,12.25,x,y,z\n"),
            (.ndjson, #"{"lat":45.5,"lon":12.25,"COUNTRY_NAME":"x","Countries":"y","citycode":"z"}"# + "\n"),
            (.geojson, #"{"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"#
                + #""properties":{"COUNTRY_NAME":"x","Countries":"y","citycode":"z"}}"#),
        ]
        for (format, input) in inputs {
            let run = try BatchOutputShapeTests.run(input, format: format, output: output)
            #expect(run.notices.isEmpty && run.rowNotices.isEmpty, "\(format) → \(output): \(run.notices + run.rowNotices)")
            #expect(run.rows.count == 1)
        }
    }
}
