import Foundation
@testable import GeocodeCLI
import Testing

/// Column selection, header detection, format choice and edge-case inputs, through the binary.
@Suite struct BatchOptionsTests {
    func batch(_ arguments: [String], _ input: String) async throws -> GeocodeBinary.Result {
        try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country,city"] + arguments, piped: input)
    }

    @Test func columnsByNameAndByNumber() async throws {
        let input = "name,pickup_lat,pickup_lon\na,45.5,12.25\n"
        let byName = try await batch(["--format", "csv", "--lat-col", "pickup_lat", "--lon-col", "pickup_lon"], input)
        #expect(byName.out == "name,pickup_lat,pickup_lon,country,city,geocode_error\na,45.5,12.25,Testland,Cell 2,\n")
        let byNumber = try await batch(["--format", "csv", "--lat-col", "2", "--lon-col=3", "--header"], input)
        #expect(byNumber.out == byName.out)
    }

    @Test func recognisedNamesAnyCase() async throws {
        #expect(try await batch([], "X,Y\n12.25,45.5\n").out == "X,Y,country,city,geocode_error\n12.25,45.5,Testland,Cell 2,\n")
        #expect(try await batch([], " Latitude ,LNG\n45.5,12.25\n").out.hasSuffix("45.5,12.25,Testland,Cell 2,\n"))
    }

    @Test func headerDetectionAndOverride() async throws {
        // Numbers in the first row: data; the output gets a header naming the added columns (issue 17)...
        #expect(try await batch([], "45.5,12.25\n").out == "lat,lon,country,city,geocode_error\n45.5,12.25,Testland,Cell 2,\n")
        // ...or none with --no-header-out.
        #expect(try await batch(["--no-header-out"], "45.5,12.25\n").out == "45.5,12.25,Testland,Cell 2,\n")
        // Longitude first, no header: say so by number, or with --lon-first.
        #expect(try await batch(["--lat-col", "2", "--lon-col", "1"], "12.25,45.5\n").out == "lon,lat,country,city,geocode_error\n12.25,45.5,Testland,Cell 2,\n")
        #expect(try await batch(["--lon-first"], "12.25,45.5\n").out == "lon,lat,country,city,geocode_error\n12.25,45.5,Testland,Cell 2,\n")
        // --no-header on a file that has one: the header row becomes a bad row, kept.
        let forced = try await batch(["--no-header"], "lat,lon\n45.5,12.25\n")
        #expect(forced.out == "lat,lon,country,city,geocode_error\n" + "lat,lon,,,\"latitude \"\"lat\"\" is not a number (column 1); longitude \"\"lon\"\" is not a number (column 2)\"\n"
                + "45.5,12.25,Testland,Cell 2,\n")
        #expect(forced.err == "<stdin>:1: bad row: latitude \"lat\" is not a number (column 1); longitude \"lon\" is not a number (column 2)\n")
    }

    @Test(arguments: [
        (["--lat-col", "nope"], "a,lat,lon\n1,2,3\n", "<stdin>:1: --lat-col nope: no such column in the header (a, lat, lon)"),
        (["--lat-col", "9"], "a,lat,lon\n1,2,3\n", "<stdin>:1: --lat-col 9: the input has only 3 columns"),
        ([], "x_lat,y_lat,lon\n1,2,3\n", "<stdin>:1: 2 columns could be the latitude: \"x_lat\" (column 1) and \"y_lat\" (column 2)"),
        (["--lat-col", "lat", "--no-header"], "1,2\n", "--lat-col lat names a column, but the input has no header"),
        (["--lat-col", "1", "--lon-col", "1"], "1,2\n", "latitude and longitude are the same column"),
        (["--header", "--no-header"], "1,2\n", "--header and --no-header contradict each other"),
        (["--format", "xml"], "1,2\n", "unknown format \"xml\""),
        (["--threads", "0"], "1,2\n", "--threads needs a whole number from 1 to 1024"),
        (["--fields", "country,planet"], "1,2\n", "unknown field \"planet\" in --fields"),
        (["--format", "geojson", "--lat-col", "y"], "{\"type\":\"FeatureCollection\",\"features\":[]}", "--lat-col/--lon-col do not apply to GeoJSON"),
        (["--format", "ndjson", "--header"], "{}", "--header/--no-header apply to CSV and TSV input only"),
    ])
    func mistakesAreExitTwo(_ arguments: [String], _ input: String, _ message: String) async throws {
        let r = try await batch(arguments, input)
        #expect(r.status == 2, "\(r.err)")
        #expect(r.err.contains(message), "\(r.err)")
        #expect(r.out.isEmpty)
    }

    /// A header without a coordinate column is the file's fault, not the command's: exit 3 (bad input)
    /// naming the file and the header's line (QA: exit 2, and no file named). Blank lines before the
    /// header count, as in every other message's line number.
    @Test func headerWithoutCoordinatesIsBadInputNamingFileAndLine() async throws {
        let file = TemporaryDirectory.shared.uniqueURL("no-coordinates", extension: "csv")
        try Data("\nname,city\nfoo,bar\n".utf8).write(to: file)
        let out = TemporaryDirectory.shared.uniqueURL("no-coordinates-out", extension: "csv")
        let r = try await GeocodeBinary.run(["batch", file.path, "-o", out.path, "-q"])
        #expect(r.status == 3, "\(r.err)")
        #expect(r.err.hasPrefix("geocode: \(file.path):2: cannot find the latitude column in the header (name, city); "), "\(r.err)")
        #expect(r.out.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let longitude = try await batch([], "lat,name\n1,2\n")
        #expect(longitude.status == 3)
        #expect(longitude.err.contains("<stdin>:1: cannot find the longitude column in the header (lat, name)"), "\(longitude.err)")
    }

    @Test func ndjsonKeysConfigurable() async throws {
        let r = try await batch(["--lat-key", "a", "--lon-key", "b"], "{\"a\":45.5,\"b\":12.25,\"lat\":0}\n{\"A\":1,\"b\":2}\n")
        #expect(r.out == "{\"a\":45.5,\"b\":12.25,\"lat\":0,\"country\":\"Testland\",\"city\":\"Cell 2\",\"geocode_error\":null}\n"
                + "{\"A\":1,\"b\":2,\"country\":null,\"city\":null,\"geocode_error\":\"no latitude: the object has no key \\\"a\\\"\"}\n")
    }

    @Test func outputFormatFromOutExtension() async throws {
        let out = TemporaryDirectory.shared.uniqueURL("by-extension", extension: "ndjson")
        let r = try await GeocodeBinary.run(["batch", "-", "-o", out.path, "-q", "--fields", "country"], piped: "lat,lon\n45.5,12.25\n")
        #expect(r.status == 0)
        #expect(String(decoding: try Data(contentsOf: out), as: UTF8.self) == "{\"lat\":\"45.5\",\"lon\":\"12.25\",\"country\":\"Testland\",\"geocode_error\":null}\n")
    }

    /// `.json` names neither JSON format (QA: CSV in, `-o out.json` silently wrote GeoJSON). An OUT.json
    /// keeps a JSON input's format; from CSV the user is asked, before anything is written; an IN.json
    /// is read by its content (NDJSON named .json, as mongoexport and BigQuery write it, was refused as
    /// "not a FeatureCollection").
    @Test func jsonExtensionFollowsTheContentOrAsks() async throws {
        let dir = try TemporaryDirectory.shared.newFolder("json-extension")
        func file(_ name: String, _ text: String) throws -> String {
            let url = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        func output(_ name: String) -> String { dir.appendingPathComponent(name).path }
        func read(_ path: String) -> String? { (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) } }
        let csv = try file("in.csv", "lat,lon\n45.5,12.25\n")
        let refused = try await GeocodeBinary.run(["batch", csv, "-o", output("from-csv.json"), "-q", "--fields", "country"])
        #expect(refused.status == 2, "\(refused.err)")
        #expect(refused.err.contains("from-csv.json: a .json file may be GeoJSON or NDJSON; say which with --output-format geojson"), "\(refused.err)")
        #expect(read(output("from-csv.json")) == nil)
        let told = try await GeocodeBinary.run(["batch", csv, "-o", output("told.json"), "-F", "ndjson", "-q", "--fields", "country"])
        #expect(told.status == 0, "\(told.err)")
        #expect(read(output("told.json")) == "{\"lat\":\"45.5\",\"lon\":\"12.25\",\"country\":\"Testland\",\"geocode_error\":null}\n")

        let ndjson = try file("export.json", "{\"lat\":45.5,\"lon\":12.25}\n{\"lat\":-45.5,\"lon\":120.5}\n")
        let kept = try await GeocodeBinary.run(["batch", ndjson, "-o", output("placed.json"), "-q", "--fields", "country"])
        #expect(kept.status == 0, "\(kept.err)")
        #expect(read(output("placed.json")) == "{\"lat\":45.5,\"lon\":12.25,\"country\":\"Testland\",\"geocode_error\":null}\n"
                + "{\"lat\":-45.5,\"lon\":120.5,\"country\":\"Gridonia\",\"geocode_error\":null}\n")

        let geojson = try file("stops.json", "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":"
                               + "{\"type\":\"Point\",\"coordinates\":[12.25,45.5]},\"properties\":{}}]}\n")
        let collection = try await GeocodeBinary.run(["batch", geojson, "-o", output("stops-placed.json"), "-q", "--fields", "country"])
        #expect(collection.status == 0, "\(collection.err)")
        #expect(read(output("stops-placed.json"))?.hasPrefix("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\"") == true)
        // A .json that is neither is read as GeoJSON, whose error says what it lacks.
        let neither = try await GeocodeBinary.run(["batch", try file("neither.json", "lat,lon\n1,2\n"), "-q"])
        #expect(neither.status == 3)
        #expect(neither.err.contains("neither.json:1: GeoJSON: expected a FeatureCollection"), "\(neither.err)")
    }

    /// A GeoJSON document that is one Feature, or one bare Point, was refused ("expected a
    /// FeatureCollection"). One row in, one out: a Feature keeps its members with the fields added to its
    /// properties; a Point becomes a Feature's geometry with the fields as properties; written atomically,
    /// counted in the summary. Other bare geometries are refused naming their type, with no output.
    @Test func singleFeatureAndBarePoint() async throws {
        let dir = try TemporaryDirectory.shared.newFolder("single-geojson")
        func run(_ text: String, _ extra: [String] = [], name: String = "in.geojson") async throws -> (GeocodeBinary.Result, String?) {
            let input = dir.appendingPathComponent(name), out = dir.appendingPathComponent("out-" + name)
            try Data(text.utf8).write(to: input)
            let r = try await GeocodeBinary.run(["batch", input.path, "-o", out.path, "--fields", "country"] + extra)
            return (r, (try? Data(contentsOf: out)).map { String(decoding: $0, as: UTF8.self) })
        }
        let feature = "{\n  \"type\": \"Feature\",\n  \"id\": \"a\",\n  \"geometry\": {\"type\": \"Point\", \"coordinates\": [12.25, 45.5]},\n"
            + "  \"properties\": {\"name\": \"stop\"}\n}\n"
        let (one, oneOut) = try await run(feature, name: "feature.geojson")
        #expect(one.status == 0, "\(one.err)")
        #expect(oneOut == "{\"type\":\"Feature\",\"id\":\"a\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[12.25,45.5]},"
                + "\"properties\":{\"name\":\"stop\",\"country\":\"Testland\",\"geocode_error\":null}}\n")
        #expect(one.err.hasPrefix("geocode: 1 row: 1 found, 0 not found, 0 bad"), "\(one.err)")

        let (point, pointOut) = try await run("{\"type\": \"Point\", \"coordinates\": [120.5, -45.5, 12]}", name: "point.geojson")
        #expect(point.status == 0, "\(point.err)")
        #expect(pointOut == "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[120.5,-45.5,12]},"
                + "\"properties\":{\"country\":\"Gridonia\",\"geocode_error\":null}}\n")
        let (pointCSV, pointCSVOut) = try await run("{\"type\": \"Point\", \"coordinates\": [120.5, -45.5]}", ["-F", "csv"], name: "p.geojson")
        #expect(pointCSV.status == 0, "\(pointCSV.err)")
        #expect(pointCSVOut == "id,lat,lon,country,geocode_error\n,-45.5,120.5,Gridonia,\n")

        // A bad coordinate is still one flagged row, and exit 0 (a row of data, not a wrong format).
        let (bad, badOut) = try await run("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[12.25,95]},\"properties\":null}",
                                         name: "bad.geojson")
        #expect(bad.status == 0)
        #expect(bad.err.contains("bad.geojson:1: bad row: latitude 95 is outside -90...90 (coordinates[1])"), "\(bad.err)")
        #expect(badOut?.hasSuffix("\"properties\":{\"country\":null,\"geocode_error\":\"latitude 95 is outside -90...90 (coordinates[1])\"}}\n") == true,
                "\(badOut ?? "")")

        let (line, lineOut) = try await run("{\"type\":\"LineString\",\"coordinates\":[[12.25,45.5],[120.5,-45.5]]}\n", name: "line.json")
        #expect(line.status == 3)
        #expect(line.err.contains("line.json:1: GeoJSON: the document is a LineString geometry, which has no point to geocode"), "\(line.err)")
        #expect(lineOut == nil)

        // From stdin, a one-line Feature is sniffed as the GeoJSON document it is, not as NDJSON.
        let piped = try await batch([], "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[12.25,45.5]}}\n")
        #expect(piped.out == "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[12.25,45.5]},"
                + "\"properties\":{\"country\":\"Testland\",\"city\":\"Cell 2\",\"geocode_error\":null}}\n", "\(piped.err)")
    }

    @Test func emptyInputs() async throws {
        #expect(try await batch(["--format", "csv"], "").out == "")
        #expect(try await batch([], "lat,lon\n").out == "lat,lon,country,city,geocode_error\n")
        #expect(try await batch(["--format", "ndjson"], "\n\n").out == "")
        #expect(try await batch([], "{\"type\":\"FeatureCollection\",\"features\":[]}").out == "{\"type\":\"FeatureCollection\",\"features\":[\n]}\n")
        let notGeoJSON = try await batch(["--format", "geojson"], "")
        #expect(notGeoJSON.status == 3)
    }

    @Test func prefixAvoidsClashes() async throws {
        let r = try await batch(["--prefix", "geo_"], "lat,lon,country\n45.5,12.25,Italy\n")
        #expect(r.out == "lat,lon,country,geo_country,geo_city,geo_geocode_error\n45.5,12.25,Italy,Testland,Cell 2,\n")
    }

    /// CSV output of every input format that already has an added column: the same one warning on
    /// stderr, naming the column and --prefix (NDJSON and GeoJSON input said nothing, and GeoJSON's
    /// header also had lat and lon twice), and with --prefix no warning and no repeated name.
    @Test(arguments: ColumnClashTests.inputs)
    func everyFormatWarnsOfAColumnItAlreadyHas(_ format: BatchFormat, _ input: String) async throws {
        let r = try await batch(["--format", format.rawValue, "-F", "csv"], input)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err == "geocode: warning: <stdin>:1: the input already has column \"country\"; the output will have it twice "
                + "(use --prefix to tell them apart)\n", "\(format)")
        let header = String(r.out.prefix { $0 != "\n" })
        #expect(header == (ColumnClashTests.carried(format) + ["country", "city", "geocode_error"]).joined(separator: ","), "\(format)")
        let prefixed = try await batch(["--format", format.rawValue, "-F", "csv", "--prefix", "geo_"], input)
        #expect(prefixed.err.isEmpty, "\(format): \(prefixed.err)")
        let names = prefixed.out.prefix { $0 != "\n" }.split(separator: ",")
        #expect(Set(names).count == names.count, "\(format): \(names)")
        #expect(names.suffix(3) == ["geo_country", "geo_city", "geo_geocode_error"], "\(format)")
    }

    /// An NDJSON or GeoJSON record that already has an added key got it twice (QA found
    /// `"country":"XX","country":"France"` written without a word), and JSON readers keep one of the two:
    /// the added one gives way (`geocode_country`, OutputNames), said once per key, as CSV's clash is.
    /// --prefix names them all apart.
    @Test func jsonKeysTheFieldsRepeatAreSaid() async throws {
        let ndjson = "{\"lat\":45.5,\"lon\":12.25,\"country\":\"XX\"}\n{\"lat\":45.5,\"lon\":12.25,\"country\":\"YY\"}\n"
        let r = try await batch(["--format", "ndjson"], ndjson)
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("{\"lat\":45.5,\"lon\":12.25,\"country\":\"XX\",\"geocode_country\":\"Testland\""))
        #expect(r.err == "geocode: warning: <stdin>:1: the input already has key \"country\"; a JSON object cannot hold a key twice, "
                + "so the added one is \"geocode_country\" (use --prefix to tell them apart)\n")
        let prefixed = try await batch(["--format", "ndjson", "--prefix", "geo_"], ndjson)
        #expect(prefixed.err.isEmpty)
        let feature = "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\","
            + "\"coordinates\":[12.25,45.5]},\"properties\":{\"c\\u0069ty\":\"Old\"}}]}\n"
        let geojson = try await batch(["--format", "geojson"], feature)
        #expect(geojson.err.contains("the input already has key \"city\""), "\(geojson.err)")
    }

    /// A file none of whose rows is a record of its format is not a file with bad rows: CSV text read as
    /// NDJSON exits 3 (it exited 0, QA), with every row still in the output, flagged. Records whose
    /// coordinates are all bad or missing (a Spark partition of nulls) are data: exit 0.
    @Test func aFileWithNoRecordOfItsFormatIsBadInput() async throws {
        let csvAsNDJSON = try await GeocodeBinary.run(["batch", "-", "--format", "ndjson", "--fields", "country"],
                                                      piped: "lat,lon\n45.5,12.25\n")
        #expect(csvAsNDJSON.status == 3)
        #expect(csvAsNDJSON.err.contains("<stdin>: none of its 2 rows is NDJSON"), "\(csvAsNDJSON.err)")
        #expect(csvAsNDJSON.out.split(separator: "\n").count == 2)
        let nulls = try await batch(["--format", "ndjson"], "{\"lat\":null,\"lon\":null}\n{\"lat\":95,\"lon\":0}\n")
        #expect(nulls.status == 0)
        #expect(nulls.out.split(separator: "\n").count == 2)
    }

    @Test func datumAppliesToEveryRow() async throws {
        let r = try await batch(["--datum", "gcj02", "--fields", "city_code"], "lat,lon\n30.0001,120.0001\n")
        #expect(r.out == "lat,lon,city_code,geocode_error\n30.0001,120.0001,GR-12-23,\n")
    }
}
