import Foundation
import Testing

/// GeoJSON text sequences through the binary, on files GDAL's ogr2ogr wrote (Fixtures/inputs/README.md):
/// RFC 8142's layout (an RS before each record) and one Feature a line. Before, such a file was read as
/// NDJSON and every row said "no latitude". Every output is read back by outside readers (Foundation's
/// JSONSerialization record by record, and GDAL itself when it is installed): one record per input
/// record, in order, in the input's layout, bad records flagged in place.
@Suite struct GeoJSONSequenceTests {
    let inputs = Fixture.url("inputs")

    /// The fixtures' records in order: the feature's id (nil: the record cut short), its country, bad?
    static let expected: [(id: Int?, country: String?, bad: Bool)] = [
        (1, "Testland", false), (2, "Gridonia", false), (nil, nil, true), (3, "Testland", false),
        (4, nil, false), (5, nil, true), (6, nil, true),
    ]

    func run(_ arguments: [String]) async throws -> GeocodeBinary.Result {
        try await GeocodeBinary.run(["batch", "-q", "--fields", "country"] + arguments, in: inputs)
    }

    func out(_ ext: String) -> URL { TemporaryDirectory.shared.uniqueURL("seq", extension: ext) }

    /// The records of a sequence, each parsed by JSONSerialization, after checking the layout: with `rs`
    /// every record is RS + text + LF, without it a text + LF with no RS anywhere.
    func records(_ data: Data, rs: Bool, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        let bytes = [UInt8](data)
        #expect(bytes.last == 0x0A, "the output does not end with a line end", sourceLocation: sourceLocation)
        var texts: [ArraySlice<UInt8>]
        if rs {
            #expect(bytes.first == 0x1E, "the output does not start with an RS", sourceLocation: sourceLocation)
            texts = bytes.split(separator: 0x1E, omittingEmptySubsequences: false).dropFirst().map { $0 }
            for text in texts {
                #expect(text.last == 0x0A && !text.dropLast().contains(0x0A), "a record is not one line",
                        sourceLocation: sourceLocation)
            }
            texts = texts.map { $0.dropLast() }
        } else {
            #expect(!bytes.contains(0x1E), "an RS in a sequence of lines", sourceLocation: sourceLocation)
            texts = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map { $0 }
        }
        return texts.compactMap { text in
            let object = try? JSONSerialization.jsonObject(with: Data(text)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(String(decoding: text, as: UTF8.self))", sourceLocation: sourceLocation)
            return object
        }
    }

    /// Each output record against ``expected``, and against its input record (parsed on its own), whose
    /// members it keeps.
    func check(_ output: [[String: Any]], input: [[String: Any]?], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.count == input.count, "\(input.count) records in, \(output.count) out", sourceLocation: sourceLocation)
        for (n, (record, want)) in zip(output, Self.expected.filter { input.count == 7 || $0.id != nil }).enumerated() {
            #expect(record["type"] as? String == "Feature", "record \(n + 1)", sourceLocation: sourceLocation)
            let properties = record["properties"] as? [String: Any] ?? [:]
            #expect(properties["id"] as? Int == want.id, "record \(n + 1): \(properties)", sourceLocation: sourceLocation)
            #expect(properties["country"] as? String == want.country, "record \(n + 1): \(properties)", sourceLocation: sourceLocation)
            #expect((properties["geocode_error"] as? String != nil) == want.bad, "record \(n + 1): \(properties)",
                    sourceLocation: sourceLocation)
            if let original = input[n] {
                #expect((original["geometry"] as? NSObject ?? NSNull()).isEqual(record["geometry"] as? NSObject ?? NSNull()),
                        "record \(n + 1)'s geometry changed", sourceLocation: sourceLocation)
                #expect((original["properties"] as? [String: Any])?["name"] as? String == properties["name"] as? String,
                        sourceLocation: sourceLocation)
            } else {
                // The record cut short is carried whole as text, so nothing is lost.
                #expect((properties["geocode_input"] as? String)?.hasPrefix("{ \"type\": \"Feature\", \"properties\": { \"id\": 9") == true,
                        "\(properties)", sourceLocation: sourceLocation)
            }
        }
    }

    /// The fixture's records parsed one by one (nil where the text is no JSON: the cut record).
    func inputRecords(_ name: String) throws -> [[String: Any]?] {
        let bytes = [UInt8](try Data(contentsOf: inputs.appendingPathComponent(name)))
        let separator: UInt8 = bytes.first == 0x1E ? 0x1E : 0x0A
        return bytes.split(separator: separator).filter { $0.contains { $0 > 0x20 } }
            .map { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    @Test(arguments: [("points.geojsons", true), ("points.geojsonl", false), ("points.geojsonl.gz", false)])
    func everyRecordOnceInOrderInTheInputsLayout(_ name: String, _ rs: Bool) async throws {
        let r = try await run([name])
        #expect(r.status == 0, "\(r.err)")
        check(records(r.stdout, rs: rs), input: try inputRecords(name.replacingOccurrences(of: ".gz", with: "")))
        // Each bad record on stderr by the line it starts on.
        #expect(r.err == "\(name):3: bad row: invalid JSON in feature: unterminated JSON string at column 59\n"
                + "\(name):6: bad row: latitude 95.0 is outside -90...90 (coordinates[1])\n"
                + "\(name):7: bad row: the feature's geometry is null\n", "\(r.err)")
    }

    /// `jq --seq` pretty-prints each record over many lines after its RS: one record each still, its line
    /// the one its text starts on; the output is one Feature a line, each after an RS.
    @Test func prettyPrintedRecordsAfterAnRS() async throws {
        let r = try await run(["points-pretty.geojsons"])
        #expect(r.status == 0, "\(r.err)")
        check(records(r.stdout, rs: true), input: try inputRecords("points-pretty.geojsons"))
        #expect(r.err.contains("points-pretty.geojsons:57: bad row: latitude 95 is outside -90...90"), "\(r.err)")
        #expect(r.err.contains("points-pretty.geojsons:71: bad row: the feature's geometry is null"), "\(r.err)")
    }

    /// Lines of Features under any name but a CSV's, or none (stdin), are a sequence: the first record
    /// says so. The same output for all.
    @Test(arguments: ["x.ndjson", "x.jsonl", "x.json", "x.geojson", "x.txt", "-"])
    func featureLinesAreASequenceWhateverTheName(_ name: String) async throws {
        let source = inputs.appendingPathComponent("points.geojsonl")
        let expected = try await run(["points.geojsonl"])
        let r: GeocodeBinary.Result
        if name == "-" {
            r = try await GeocodeBinary.run(["batch", "-q", "--fields", "country", "-"], piped: try Data(contentsOf: source))
        } else {
            let copy = try TemporaryDirectory.shared.newFolder("named").appendingPathComponent(name)
            try FileManager.default.copyItem(at: source, to: copy)
            r = try await run([copy.path])
        }
        #expect(r.status == 0, "\(name): \(r.err)")
        #expect(r.out == expected.out, "\(name)")
        #expect(!r.out.isEmpty)
    }

    /// Plain objects a line stay NDJSON, and a Feature among them is a row without "lat" (the first
    /// record decides, as the help says).
    @Test func plainObjectsStayNDJSON() async throws {
        let text = "{\"lat\":45.5,\"lon\":12.25}\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}\n"
        let file = out("ndjson")
        try Data(text.utf8).write(to: file)
        let r = try await GeocodeBinary.run(["batch", "-q", "--fields", "country", file.path])
        let lines = r.out.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first == "{\"lat\":45.5,\"lon\":12.25,\"country\":\"Testland\",\"geocode_error\":null}")
        #expect(r.err.contains(":2: bad row: no latitude"), "\(r.err)")
    }

    /// The RS goes by OUT's name where it says (`.geojsons` yes, GDAL's rule; `.geojsonl` and `.ndjson`,
    /// names for lines, no), else as the input had it; from another format, none.
    @Test(arguments: [("points.geojsons", "geojsonl", false), ("points.geojsons", "geojsonseq", true),
                      ("points.geojsons", "ndjson", false), ("points.geojsonl", "geojsons", true),
                      ("points.geojsonl", "geojsonseq", false), ("points.geojsonl", "jsonl", false),
                      ("points.geojsons", "json", true)])
    func outputLayoutFromTheNameOrTheInput(_ name: String, _ ext: String, _ rs: Bool) async throws {
        let target = out(ext)
        let r = try await run([name, "-o", target.path])
        #expect(r.status == 0, "\(r.err)")
        check(records(try Data(contentsOf: target), rs: rs), input: try inputRecords(name))
    }

    @Test func compressedOutputIsTheSameSequence() async throws {
        let target = out("geojsons.gz")
        let r = try await run(["points.geojsonl.gz", "-o", target.path])
        #expect(r.status == 0, "\(r.err)")
        let gunzip = Process()
        gunzip.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
        gunzip.arguments = ["-dc", target.path]
        let plain = try await GeocodeBinary.capture(gunzip)
        #expect(plain.status == 0)
        check(records(plain.stdout, rs: true), input: try inputRecords("points.geojsonl"))
    }

    /// Converting: CSV rows become Feature lines; a sequence becomes a FeatureCollection, CSV rows, or
    /// (asked for by --output-format) flat NDJSON objects. One row per record, in order, each way.
    @Test func convertingToAndFromASequence() async throws {
        let lines = out("geojsonl")
        let fromCSV = try await run(["points.csv", "-o", lines.path])
        #expect(fromCSV.status == 0, "\(fromCSV.err)")
        let features = records(try Data(contentsOf: lines), rs: false)
        #expect(features.map { ($0["properties"] as? [String: Any])?["id"] as? String } == ["1", "2", "3", "4", "5"])
        #expect(features.map { (($0["geometry"] as? [String: Any])?["coordinates"] as? [Double]) ?? [] }
                == [[12.25, 45.5], [120, -45.5], [35.75, 10.25], [-30, 0.5], []])

        let collection = out("geojson")
        #expect(try await run(["points.geojsons", "-o", collection.path]).status == 0)
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: collection)) as? [String: Any]
        let members = document?["features"] as? [[String: Any]] ?? []
        check(members, input: try inputRecords("points.geojsons"))

        let csv = try await run(["points.geojsons", "-o", "-", "--output-format", "csv"])
        let rows = DelimitedRows.parse(csv.out)
        #expect(rows.first == ["feature_id", "lat", "lon", "id", "name", "country", "geocode_error"], "\(csv.out)")
        #expect(rows.count == 8 && rows.allSatisfy { $0.count == 7 }, "\(csv.out)")
        #expect(rows.dropFirst().map { $0[5] } == Self.expected.map { $0.country ?? "" })

        let flat = try await run(["points.geojsons", "--output-format", "ndjson"])
        let objects = flat.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.count == 7)
        #expect(objects.first?["lat"] as? Double == 45.5 && objects.first?["type"] == nil, "\(flat.out)")
    }

    /// A record that is no Feature (nor Point) is flagged and written as a Feature carrying its text:
    /// written back as it was, GDAL would skip the line without a word. Not one record a Feature: exit 3.
    @Test func recordsThatAreNoFeatureAreCarriedInAFeature() async throws {
        let text = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[12.25,45.5]}}\n"
            + "{\"type\":\"bus\",\"lat\":45.5,\"lon\":12.25}\n[1,2]\n{\"type\":\"Point\",\"coordinates\":[120.5,-45.5]}\n"
        let file = out("geojsonl")
        try Data(text.utf8).write(to: file)
        let r = try await GeocodeBinary.run(["batch", "-q", "--fields", "country", file.path])
        #expect(r.status == 0, "\(r.err)")
        let rows = records(r.stdout, rs: false)
        #expect(rows.count == 4)
        let properties = rows.map { $0["properties"] as? [String: Any] ?? [:] }
        #expect(properties.map { $0["country"] as? String } == ["Testland", nil, nil, "Gridonia"])
        #expect(properties[1]["geocode_input"] as? String == "{\"type\":\"bus\",\"lat\":45.5,\"lon\":12.25}")
        #expect(properties[1]["geocode_error"] as? String == "not a Feature (its \"type\" is \"bus\")")
        #expect(properties[2]["geocode_input"] as? String == "[1,2]")
        #expect(rows.allSatisfy { $0["type"] as? String == "Feature" })
        let ndjson = try await GeocodeBinary.run(["batch", "-q", "--format", "geojsonseq", "-"],
                                                 piped: "{\"lat\":45.5,\"lon\":12.25}\n{\"lat\":1,\"lon\":2}\n")
        #expect(ndjson.status == 3)
        #expect(ndjson.err.contains("<stdin>: none of its 2 rows is a GeoJSON Feature"), "\(ndjson.err)")
    }

    /// --strict stops at the first bad record (the cut one, line 3), exit 3, and writes no OUT.
    @Test func strictStopsAtTheFirstBadRecord() async throws {
        let target = out("geojsons")
        let r = try await run(["points.geojsons", "--strict", "-o", target.path])
        #expect(r.status == 3)
        #expect(r.err.contains("points.geojsons:3: bad row: invalid JSON in feature"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    /// Told it is one GeoJSON document, a sequence is refused (exit 3) with the option that reads it.
    @Test(arguments: ["points.geojsons", "points.geojsonl"])
    func aSequenceReadAsOneDocumentSaysHowToReadIt(_ name: String) async throws {
        let r = try await run([name, "--format", "geojson"])
        #expect(r.status == 3)
        #expect(r.err.contains("--format geojsonseq"), "\(r.err)")
    }

    /// --format ndjson on Feature lines is what was asked for, but every row lacks "lat": a warning names
    /// the option that reads them.
    @Test func featureLinesReadAsNDJSONAreSaid() async throws {
        let r = try await run(["points.geojsonl", "--format", "ndjson"])
        #expect(r.status == 0)
        #expect(r.err.hasPrefix("geocode: warning: points.geojsonl:1: the records are GeoJSON (a Feature or a Point a line), "
                                + "which have no latitude key as NDJSON; --format geojsonseq reads each one's Point\n"), "\(r.err)")
    }

    /// Keys named for NDJSON keep Feature lines NDJSON (`--coords geometry.coordinates --lon-first` read
    /// them before sequences were); an RS-separated file is no NDJSON, and is refused the options.
    @Test func keysNamedForNDJSONKeepFeatureLinesNDJSON() async throws {
        let copy = try TemporaryDirectory.shared.newFolder("keys").appendingPathComponent("features.ndjson")
        try FileManager.default.copyItem(at: inputs.appendingPathComponent("points.geojsonl"), to: copy)
        let r = try await run([copy.path, "--coords", "geometry.coordinates", "--lon-first"])
        #expect(r.status == 0, "\(r.err)")
        let first = r.out.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("{\"type\":\"Feature\",\"properties\":{\"id\":1,\"name\":\"Alpha\"},\"geometry\":"), "\(first)")
        #expect(first.hasSuffix(",\"country\":\"Testland\",\"geocode_error\":null}"), "\(first)")
        let rs = try await GeocodeBinary.run(["batch", "-q", "--fields", "country", "-", "--coords", "geometry.coordinates"],
                                             piped: try Data(contentsOf: inputs.appendingPathComponent("points.geojsons")))
        #expect(rs.status == 2)
        #expect(rs.err.contains("do not apply to GeoJSON"), "\(rs.err)")
    }

    static let ogr2ogr = ["/usr/bin/ogr2ogr", "/usr/local/bin/ogr2ogr"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// GDAL, the writer of the fixtures, reads the output back: every record, in order, with the fields.
    @Test(.enabled(if: ogr2ogr != nil, "GDAL's ogr2ogr is not installed (apt-get install gdal-bin)"),
          arguments: [("points.geojsons", "geojsons"), ("points.geojsonl", "geojsonl")])
    func gdalReadsTheOutput(_ name: String, _ ext: String) async throws {
        let target = out(ext)
        #expect(try await run([name, "-o", target.path]).status == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.ogr2ogr!)
        process.arguments = ["-f", "CSV", "/vsistdout/", target.path]
        let gdal = try await GeocodeBinary.capture(process)
        #expect(gdal.status == 0, "\(gdal.err)")
        let rows = DelimitedRows.parse(gdal.out)
        guard let header = rows.first, let id = header.firstIndex(of: "id"), let country = header.firstIndex(of: "country"),
              let error = header.firstIndex(of: "geocode_error") else {
            Issue.record("GDAL's columns: \(gdal.out)")
            return
        }
        #expect(rows.count == 8, "\(gdal.out)")
        #expect(rows.dropFirst().map { $0[id] } == Self.expected.map { $0.id.map(String.init) ?? "" })
        #expect(rows.dropFirst().map { $0[country] } == Self.expected.map { $0.country ?? "" })
        #expect(rows.dropFirst().map { !$0[error].isEmpty } == Self.expected.map(\.bad))
    }
}
