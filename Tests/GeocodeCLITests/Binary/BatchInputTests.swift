import Foundation
import Testing

/// The inputs data teams really have (issue 17), as real files made by the tools that make them in the
/// wild (see Fixtures/inputs/README.md), through the binary. Every run's output is checked row by row:
/// one output row per input row, in input order, every row as wide as the header, each with the grid's
/// answer for its point (GridTestLookup: 45.5,12.25 is Testland "Cell 2"; -45.5,120 Gridonia; 10.25,35.75
/// Testland "Cell 7"; 0.5,-30 the ocean; latitude 95 a bad row).
@Suite struct BatchInputTests {
    let inputs = Fixture.url("inputs")

    /// The five points of the fixtures, in order: (id, country, city, bad?).
    static let expected: [(id: String, country: String, city: String, bad: Bool)] = [
        ("1", "Testland", "Cell 2", false), ("2", "Gridonia", "Grid \"City\", 24", false),
        ("3", "Testland", "Cell 7", false), ("4", "", "", false), ("5", "", "", true),
    ]

    /// Checks the shape and the answers of a batch output over the five points.
    func checkPoints(_ text: String, delimiter: Character = ",", idColumn: String = "id", rows: Int = 5,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        let table = DelimitedRows.parse(text, delimiter: delimiter)
        guard let header = table.first else {
            Issue.record("no output at all", sourceLocation: sourceLocation)
            return
        }
        #expect(table.count == rows + 1, "rows: \(table.count - 1)\n\(text)", sourceLocation: sourceLocation)
        for (n, row) in table.enumerated() {
            #expect(row.count == header.count, "row \(n) has \(row.count) fields, the header \(header.count): \(row)",
                    sourceLocation: sourceLocation)
        }
        guard let id = header.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == idColumn }),
              let country = header.firstIndex(of: "country"), let city = header.firstIndex(of: "city"),
              let error = header.firstIndex(of: "geocode_error") else {
            Issue.record("columns missing in \(header)", sourceLocation: sourceLocation)
            return
        }
        for (row, want) in zip(table.dropFirst(), Self.expected) where row.count == header.count {
            #expect(row[id] == want.id, sourceLocation: sourceLocation)
            #expect(row[country] == want.country, "row \(want.id)", sourceLocation: sourceLocation)
            #expect(row[city] == want.city, "row \(want.id)", sourceLocation: sourceLocation)
            #expect(row[error].isEmpty != want.bad, "row \(want.id): \(row[error])", sourceLocation: sourceLocation)
        }
    }

    func run(_ arguments: [String], stdin: URL? = nil) async throws -> GeocodeBinary.Result {
        try await GeocodeBinary.run(["batch", "-q"] + arguments, stdin: stdin, in: inputs)
    }

    func out(_ ext: String = "csv") -> URL { TemporaryDirectory.shared.uniqueURL("in", extension: ext) }

    // MARK: - Compressed

    @Test func gzipByExtensionGivesTheSameRowsAsThePlainFile() async throws {
        let plain = try await run(["points.csv"])
        let target = out()
        let r = try await run(["points.csv.gz", "-o", target.path])
        #expect(r.status == 0, "\(r.err)")
        let text = try String(contentsOf: target, encoding: .utf8)
        checkPoints(text)
        #expect(text == plain.out)
    }

    /// From a pipe (`curl … | geocode batch -`) and from a file on stdin (`geocode batch - < points.csv.gz`).
    @Test func gzipOnStdinIsFoundByItsMagicBytes() async throws {
        let gz = inputs.appendingPathComponent("points.csv.gz")
        let piped = try await GeocodeBinary.run(["batch", "-q", "-"], piped: try Data(contentsOf: gz))
        let file = try await run(["-"], stdin: gz)
        for r in [piped, file] {
            #expect(r.status == 0, "\(r.err)")
            checkPoints(r.out)
        }
    }

    @Test func multiMemberGzipReadsAsOneStream() async throws {
        let r = try await run(["multi-member.csv.gz"])
        #expect(r.status == 0, "\(r.err)")
        checkPoints(r.out)
    }

    @Test func zstdByExtension() async throws {
        let r = try await run(["points.csv.zst"])
        #expect(r.status == 0, "\(r.err)")
        checkPoints(r.out)
    }

    @Test(arguments: [("truncated.csv.gz", "truncated.csv.gz: the gzip file is truncated: it ends at byte 60 inside member 1"),
                      ("corrupt.csv.gz", "corrupt.csv.gz: corrupt gzip data at byte ")])
    func brokenGzipIsExitThreeNamingFileAndOffsetAndLeavesNoOutput(_ name: String, _ message: String) async throws {
        let target = out()
        let r = try await run([name, "-o", target.path])
        #expect(r.status == 3)
        #expect(r.err.contains(message), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
        // No temporary file left beside it either.
        let left = try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path)
        #expect(!left.contains { $0.hasPrefix(".\(target.lastPathComponent).geocode-") })
    }

    /// A .csv.gz or .ndjson.gz cut short: the rows before the cut are written, in order, then the error
    /// (exit 3), from a file, a pipe and a file on stdin alike; `-o` writes nothing. The oracle is Python's
    /// zlib: the whole lines it gets out of the same bytes, run as a plain file. Before, the rows of the
    /// CSV chunk being cut when the read failed (up to 256 KiB of them) were lost: every row after the
    /// header of 7,000. And a file whose failure came within what is read ahead before the rows (the
    /// 64 KiB UTF-8 check, the 51 sampled CSV records, the 4 KiB a format is sniffed from) lost every row.
    @Test(arguments: [("csv", 7000), ("csv", 40), ("ndjson", 40), ("ndjson", 3000)])
    func truncatedGzipWritesTheWholeRowsBeforeTheCut(_ format: String, _ count: Int) async throws {
        let folder = try TemporaryDirectory.shared.newFolder("cut")
        var text = format == "csv" ? "id,lat,lon\n" : ""
        for id in 1...count {
            let (lat, lon) = (Double(id % 170) - 85 + 0.5, Double(id % 40) + 0.25)
            text += format == "csv" ? "\(id),\(lat),\(lon)\n" : "{\"id\":\(id),\"lat\":\(lat),\"lon\":\(lon)}\n"
        }
        let plain = folder.appendingPathComponent("all.\(format)")
        try Data(text.utf8).write(to: plain)
        let zipped = try await tool("/usr/bin/gzip", ["-c", "-n", plain.path])
        #expect(zipped.status == 0)
        let cutBytes = zipped.stdout.prefix(zipped.stdout.count * 2 / 3)
        let cut = folder.appendingPathComponent("cut.\(format).gz")
        try cutBytes.write(to: cut)
        let python = try await tool("/usr/bin/python3", ["-c", "import sys, zlib; sys.stdout.buffer.write("
                                                            + "zlib.decompressobj(31).decompress(open(sys.argv[1], 'rb').read()))", cut.path])
        #expect(python.status == 0, "\(python.err)")
        let decompressed = python.stdout
        let whole = decompressed.prefix(through: try #require(decompressed.lastIndex(of: 0x0A)))
        let wholeFile = folder.appendingPathComponent("whole.\(format)")
        try whole.write(to: wholeFile)
        let expected = try await GeocodeBinary.run(["batch", "-q", wholeFile.path, "--fields", "country"])
        #expect(expected.status == 0, "\(expected.err)")
        let rows = expected.out.split(separator: "\n").count - (format == "csv" ? 1 : 0)
        #expect(rows > count / 3 && rows < count, "\(rows) rows of \(count)")

        let fromFile = try await GeocodeBinary.run(["batch", "-q", cut.path, "--fields", "country"])
        let fromPipe = try await GeocodeBinary.run(["batch", "-q", "-", "--fields", "country"], piped: Data(cutBytes))
        let fileOnStdin = try await GeocodeBinary.run(["batch", "-q", "-", "--fields", "country"], stdin: cut)
        for (r, name) in [(fromFile, cut.path), (fromPipe, "<stdin>"), (fileOnStdin, "<stdin>")] {
            #expect(r.status == 3, "\(name): \(r.err)")
            #expect(r.err.hasPrefix("geocode: \(name): the gzip file is truncated: it ends at byte \(cutBytes.count) inside member 1 "
                                    + "(which starts at byte 0), after \(decompressed.count) uncompressed bytes"), "\(r.err)")
            #expect(r.out == expected.out, "\(name): \(r.out.split(separator: "\n").count) lines, not those of \(rows) rows")
        }
        let target = out(format)
        let toFile = try await GeocodeBinary.run(["batch", "-q", cut.path, "--fields", "country", "-o", target.path])
        #expect(toFile.status == 3 && toFile.err == fromFile.err, "\(toFile.err)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    /// A gzip file cut before its header line ends (and one cut after a header without a latitude column)
    /// is refused as truncated, not for the header the cut left: the setup's look ahead stopped at the failed
    /// read, so "cannot find the latitude column in the header (id, la)" would blame a column the file has.
    /// Found by the csv fuzzer (CI, session 31).
    @Test(arguments: ["id,latitude,longitude\n1,35.75,139.5\n", "id,name,lon\n1,Delta,0.5\n2,Epsilon,95\n"])
    func gzipCutWhileTheSetupLooksAheadIsRefusedAsTruncated(_ text: String) async throws {
        let folder = try TemporaryDirectory.shared.newFolder("cut-head")
        let plain = folder.appendingPathComponent("head.csv")
        try Data(text.utf8).write(to: plain)
        let zipped = try await tool("/usr/bin/gzip", ["-c", "-n", plain.path])
        #expect(zipped.status == 0)
        // Cut inside the deflate data: what it decompresses to ends inside the header line or soon after it.
        let cutBytes = zipped.stdout.prefix(zipped.stdout.count - 12)
        let cut = folder.appendingPathComponent("head.csv.gz")
        try cutBytes.write(to: cut)
        for r in [try await GeocodeBinary.run(["batch", "-q", cut.path]),
                  try await GeocodeBinary.run(["batch", "-q", "-"], piped: Data(cutBytes))] {
            #expect(r.status == 3, "\(r.err)")
            #expect(r.err.contains("the gzip file is truncated"), "\(r.err)")
            #expect(!r.err.contains("cannot find"), "\(r.err)")
        }
    }

    @Test func gzipNamedButNotGzipIsRefused() async throws {
        let fake = out("csv.gz")
        try FileManager.default.copyItem(at: inputs.appendingPathComponent("points.csv"), to: fake)
        let r = try await GeocodeBinary.run(["batch", "-q", fake.path])
        #expect(r.status == 3)
        #expect(r.err.contains("is named .gz but is not gzip data (it starts with 69 64 2C 6E)"), "\(r.err)")
    }

    @Test func gzipOutputIsReadBackByGzipItself() async throws {
        let target = out("csv.gz")
        let r = try await run(["points.csv", "-o", target.path])
        #expect(r.status == 0, "\(r.err)")
        let gunzip = try await tool("/usr/bin/gzip", ["-dc", target.path])
        #expect(gunzip.status == 0)
        checkPoints(gunzip.out)
        #expect(gunzip.out == (try await run(["points.csv"])).out)
    }

    /// 60,000 rows in three gzip members made by the gzip tool, read across many 256 KiB blocks and
    /// member boundaries: every row comes back, in order.
    @Test func largeMultiMemberGzipFromTheGzipTool() async throws {
        let folder = try TemporaryDirectory.shared.newFolder("gz")
        var members = Data()
        var id = 0
        for part in 0..<3 {
            var text = part == 0 ? "id,lat,lon\n" : ""
            for _ in 0..<20_000 {
                id += 1
                text += "\(id),\(Double(id % 170) - 85 + 0.5),\(Double(id % 40) + 0.25)\n"
            }
            let file = folder.appendingPathComponent("part\(part).csv")
            try Data(text.utf8).write(to: file)
            let zipped = try await tool("/usr/bin/gzip", ["-c", file.path])
            #expect(zipped.status == 0)
            members.append(zipped.stdout)
        }
        let input = folder.appendingPathComponent("all.csv.gz")
        try members.write(to: input)
        let r = try await GeocodeBinary.run(["batch", "-q", input.path, "--fields", "country"])
        #expect(r.status == 0, "\(r.err)")
        let rows = DelimitedRows.parse(r.out)
        #expect(rows.count == 60_001)
        #expect(rows.dropFirst().enumerated().allSatisfy { $0.element.first == "\($0.offset + 1)" && $0.element.count == 5 })
        #expect(rows.dropFirst().allSatisfy { $0[3] == "Testland" })
    }

    // MARK: - Encodings

    @Test func utf16FromExcelIsDecodedByItsByteOrderMark() async throws {
        let r = try await run(["excel-unicode-text.csv"])
        #expect(r.status == 0, "\(r.err)")
        // UTF-8 out, with the BOM that said "Unicode" kept; tab-separated like the input, CRLF like it.
        #expect(r.stdout.starts(with: [0xEF, 0xBB, 0xBF, UInt8(ascii: "i"), UInt8(ascii: "d"), 0x09]))
        #expect(r.out.contains("\r\n"))
        checkPoints(r.out, delimiter: "\t")
    }

    @Test func latin1IsNamedInTheErrorAndReadWithEncoding() async throws {
        let refused = try await run(["latin1.csv"])
        #expect(refused.status == 3)
        #expect(refused.err.contains("latin1.csv is not UTF-8: byte 0xE7 at offset 22 (line 2)"), "\(refused.err)")
        #expect(refused.err.contains("--encoding latin1"))
        let r = try await run(["latin1.csv", "--encoding", "latin1"])
        #expect(r.status == 0, "\(r.err)")
        checkPoints(r.out)
        #expect(r.out.contains("1,François,45.5,12.25,Testland"))
        #expect(r.out.contains("2,Björk,"))
    }

    @Test func latin1AfterTheFirstReadIsFoundToo() async throws {
        // 40 KiB of ASCII rows, then one Latin-1 name: still within the 64 KiB checked up front.
        var bytes = Array("id,lat,lon\n".utf8)
        for i in 0..<2000 { bytes += Array("\(i),45.5,12.25\n".utf8) }
        let offset = bytes.count
        bytes += [UInt8(ascii: "Z"), 0xFC, UInt8(ascii: ","), UInt8(ascii: "1"), UInt8(ascii: ","), UInt8(ascii: "2"), 0x0A]
        let input = out()
        try Data(bytes).write(to: input)
        let r = try await GeocodeBinary.run(["batch", "-q", input.path])
        #expect(r.status == 3)
        #expect(r.err.contains("is not UTF-8: byte 0xFC at offset \(offset + 1) (line 2002)"), "\(r.err)")
    }

    @Test func utf16WithoutAMarkIsNamed() async throws {
        let input = out()
        let text = "lat,lon\n45.5,12.25\n"
        try text.data(using: .utf16LittleEndian)!.write(to: input)
        let r = try await GeocodeBinary.run(["batch", "-q", input.path])
        #expect(r.status == 3)
        #expect(r.err.contains("looks like UTF-16 text without a byte-order mark"), "\(r.err)")
        let decoded = try await GeocodeBinary.run(["batch", "-q", input.path, "--encoding", "utf-16le", "--fields", "country"])
        #expect(decoded.out == "lat,lon,country,geocode_error\n45.5,12.25,Testland,\n")
    }

    // MARK: - Delimiters and numbers

    @Test func semicolonFileWithDecimalCommasFromPandas() async throws {
        let r = try await run(["semicolon-decimal-comma.csv"])
        #expect(r.status == 0, "\(r.err)")
        // The file's own dialect out: ';', decimal commas as written, CRLF, the BOM, the header byte for byte.
        #expect(r.out.hasPrefix("\u{FEFF}id;Ort;Breitengrad (lat);Längengrad (lon);country;"), "\(r.out)")
        #expect(r.out.contains("1;München;45,5;12,25;Testland;TL;Band 13;Cell 2;Quarter 5;\r\n"))
        checkPoints(r.out, delimiter: ";")
        // The same with the delimiter and decimal comma said.
        let said = try await run(["semicolon-decimal-comma.csv", "--delimiter", ";", "--decimal-comma"])
        #expect(said.out == r.out)
    }

    @Test func decimalCommaIsNotGuessedWhenValuesUseDots() async throws {
        let r = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country"], piped: "lat;lon\n45.5;12.25\n1,5;12.25\n")
        // A dot in the values says the comma is not decimal: 1,5 is a bad row, not 1.5.
        let rows = DelimitedRows.parse(r.out, delimiter: ";")
        #expect(rows.count == 3)
        #expect(rows[1] == ["45.5", "12.25", "Testland", ""])
        #expect(rows[2][3].contains("latitude \"1,5\" is not a number"), "\(rows)")
    }

    @Test(arguments: [("tab-named.csv", Character("\t")), ("pipe.csv", Character("|"))])
    func otherDelimitersBehindACSVName(_ name: String, _ delimiter: Character) async throws {
        let r = try await run([name])
        #expect(r.status == 0, "\(r.err)")
        checkPoints(r.out, delimiter: delimiter)
    }

    @Test func delimiterOptionOverridesTheSniffer() async throws {
        // Read with ',' forced, the tab file has one column: the error says what to try.
        let r = try await run(["tab-named.csv", "--delimiter", ","])
        #expect(r.status == 3)
        #expect(r.err.contains("or --delimiter if the file is not comma-separated"), "\(r.err)")
    }

    // MARK: - Coordinate columns

    @Test func wktPointColumnFromShapely() async throws {
        let r = try await run(["wkt-points.csv", "--coords", "geom"])
        #expect(r.status == 0, "\(r.err)")
        checkPoints(r.out)
    }

    @Test func pairColumnInEveryForm() async throws {
        let r = try await run(["pair-column.csv", "--coords", "position"])
        #expect(r.status == 0, "\(r.err)")
        checkPoints(r.out, rows: 6)
        let last = DelimitedRows.parse(r.out).last!
        #expect(last.first == "6")
        #expect(last.last == "coordinates \"not a point\" are not \"lat,lon\", \"lat lon\" or POINT(lon lat) (column \"position\")")
        #expect(r.err.contains("pair-column.csv:7: bad row: coordinates \"not a point\""))
    }

    @Test func lonFirstPairs() async throws {
        let r = try await GeocodeBinary.run(["batch", "-", "-q", "--coords", "p", "--lon-first", "--fields", "country,city"],
                                            piped: "p\n\"12.25,45.5\"\nPOINT(12.25 45.5)\n")
        #expect(r.out == "p,country,city,geocode_error\n\"12.25,45.5\",Testland,Cell 2,\nPOINT(12.25 45.5),Testland,Cell 2,\n")
    }

    @Test func prefixedAndSuffixedNamesAreRecognised() async throws {
        let r = try await run(["gps-names.csv"])
        #expect(r.status == 0, "\(r.err)")
        checkPoints(r.out, idColumn: "trip")
        for header in ["pickup_latitude,pickup_longitude", "start_lat,start_lng", "Lat (deg),Lon (deg)", "latitude_deg,longitude_deg",
                       "StartLat,StartLon", "gpslatitude,gpslongitude"] {
            let r = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country"], piped: "\(header)\n45.5,12.25\n")
            #expect(r.out.hasSuffix("\n45.5,12.25,Testland,\n"), "\(header): \(r.out) \(r.err)")
        }
        // Errors, ranges and other units are not positions.
        let r2 = try await GeocodeBinary.run(["batch", "-", "-q"], piped: "lat_error,lon_rad\n1,2\n")
        #expect(r2.status == 3)
    }

    @Test func dmsInAPairColumn() async throws {
        let r = try await GeocodeBinary.run(["batch", "-", "-q", "--coords", "where", "--fields", "country,city"],
                                            piped: "where,id\n\"45°30'00\"\"N 12°15'E\",1\n\"12°15'E 45°30'N\",2\n\"45°30'N\",3\n"
                                                + "95°30'N 12°15'E,4\n")
        let rows = DelimitedRows.parse(r.out)
        #expect(rows.count == 5 && rows.allSatisfy { $0.count == 5 }, "\(r.out)")
        #expect(rows[1][2...3] == ["Testland", "Cell 2"])
        #expect(rows[2][2...3] == ["Testland", "Cell 2"])
        #expect(rows[3][4].hasPrefix("coordinates \"45°30'N\" are not"), "\(rows[3])")
        // Out of range: the angle as typed, not the 95.5 it comes to.
        #expect(rows[4][4] == "latitude 95°30'N is outside -90...90 (column \"where\")", "\(rows[4])")
    }

    /// The ideographic space (U+3000) a Chinese input method types between two numbers separates a
    /// --coords pair as a space does, in CSV and in an NDJSON string (it said "are not \"lat,lon\"").
    @Test func ideographicSpaceInAPairColumn() async throws {
        let csv = try await GeocodeBinary.run(["batch", "-", "-q", "--coords", "p", "--fields", "country"],
                                              piped: "p\n45.5\u{3000}12.25\n45.5，\u{3000}120.5\n45°30'N\u{3000}12°15'E\n45\u{3000}.5 12.25\n")
        let rows = DelimitedRows.parse(csv.out)
        #expect(rows.map { $0.count } == [3, 3, 3, 3, 3], "\(csv.out)")
        #expect(rows.dropFirst().map { $0[1] } == ["Testland", "Gridonia", "Testland", ""], "\(csv.out)")
        #expect(rows[4][2] == "coordinates \"45\u{3000}.5 12.25\" are not \"lat,lon\", \"lat lon\" or POINT(lon lat) (column \"p\")",
                "\(rows[4])")
        let ndjson = try await GeocodeBinary.run(["batch", "-", "-q", "--format", "ndjson", "--coords", "p", "--fields", "country"],
                                                 piped: "{\"p\":\"45.5\u{3000}12.25\"}\n")
        #expect(ndjson.out == "{\"p\":\"45.5\u{3000}12.25\",\"country\":\"Testland\",\"geocode_error\":null}\n", "\(ndjson.out)")
    }

    @Test func prefixedNDJSONKeys() async throws {
        let r = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country"],
                                            piped: "{\"pickup_latitude\":45.5,\"pickup_longitude\":12.25}\n{\"pickup_latitude\":-45.5,\"pickup_longitude\":120}\n")
        // Every JSON row carries every added key, geocode_error null on a good row.
        #expect(r.out == "{\"pickup_latitude\":45.5,\"pickup_longitude\":12.25,\"country\":\"Testland\",\"geocode_error\":null}\n"
                + "{\"pickup_latitude\":-45.5,\"pickup_longitude\":120,\"country\":\"Gridonia\",\"geocode_error\":null}\n", "\(r.err)")
        let two = try await GeocodeBinary.run(["batch", "-", "-q"], piped: "{\"start_lat\":1,\"end_lat\":2,\"lon\":3}\n")
        #expect(two.status == 2)
        #expect(two.err.contains("2 keys could be the latitude: \"start_lat\" and \"end_lat\""), "\(two.err)")
    }

    @Test func twoCandidatesAreAnErrorNamingBoth() async throws {
        let r = try await GeocodeBinary.run(["batch", "-", "-q"], piped: "pickup_latitude,dropoff_latitude,lon\n1,2,3\n")
        #expect(r.status == 2)
        #expect(r.err.contains("2 columns could be the latitude: \"pickup_latitude\" (column 1) and \"dropoff_latitude\" (column 2)"), "\(r.err)")
    }

    @Test func headerNamesAreKeptByteForByteAndMatchedTrimmed() async throws {
        let r = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country", "--lat-col", "lat", "--lon-col", "lon"],
                                            piped: "id, lat, lon\n1, 45.5, 12.25\n")
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("id, lat, lon,country,geocode_error\n"), "\(r.out)")
        #expect(DelimitedRows.parse(r.out)[1][3] == "Testland")
    }

    /// The typographic minus (U+2212) reads in text values as in `geocode LAT LON`: a CSV field, an NDJSON
    /// string, a --coords pair (also split at a full-width comma). A JSON number stays JSON's: every JSON
    /// reader refuses `−45.5`, so the row is flagged, by name.
    @Test func typographicMinusInTextValues() async throws {
        let csv = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country"],
                                              piped: "lat,lon\n−45.5,120.5\n\"−45.5\",120.5\n1e400,5\n")
        #expect(csv.out == "lat,lon,country,geocode_error\n−45.5,120.5,Gridonia,\n−45.5,120.5,Gridonia,\n"
                + "1e400,5,,\"latitude \"\"1e400\"\" is outside -90...90 (column \"\"lat\"\")\"\n", "\(csv.out)")
        let pair = try await GeocodeBinary.run(["batch", "-", "-q", "--coords", "p", "--fields", "country"],
                                               piped: "p\n−45.5，120.5\n\"1e400,2\"\n")
        #expect(pair.out == "p,country,geocode_error\n−45.5，120.5,Gridonia,\n"
                + "\"1e400,2\",,\"latitude \"\"1e400\"\" is outside -90...90 (column \"\"p\"\")\"\n", "\(pair.out)")
        let ndjson = try await GeocodeBinary.run(["batch", "-", "-q", "--format", "ndjson", "--fields", "country"],
                                                 piped: "{\"lat\":\"−45.5\",\"lon\":120.5}\n{\"lat\":−45.5,\"lon\":120.5}\n")
        let lines = ndjson.out.split(separator: "\n")
        #expect(lines.count == 2, "\(ndjson.out)")
        #expect(lines.first == "{\"lat\":\"−45.5\",\"lon\":120.5,\"country\":\"Gridonia\",\"geocode_error\":null}")
        #expect(ndjson.err.contains("<stdin>:2: bad row: invalid JSON: a number starts with the minus sign − (U+2212), where JSON needs '-'"),
                "\(ndjson.err)")
    }

    @Test func dottedPathsIntoNestedNDJSON() async throws {
        let r = try await run(["nested.ndjson", "--lat-col", "location.lat", "--lon-col", "location.lon", "--fields", "country"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["id"] as? Int } == [1, 2, 3, 4, 5, 6])
        #expect(objects.map { $0["country"] as? String } == ["Testland", "Gridonia", "Testland", nil, nil, nil])
        #expect((objects[5]["geocode_error"] as? String)?.contains("no latitude") == true)
    }

    // MARK: - Headerless and swapped

    @Test func lonLatHeaderlessFileIsWarnedAboutOnceAndFixedByLonFirst() async throws {
        // Read as asked (id as the latitude): every row is bad, and the warning says what would fix it.
        let asIs = try await run(["lon-lat-headerless.csv", "--fields", "country"])
        #expect(asIs.status == 0)
        let warnings = asIs.err.split(separator: "\n").filter { $0.hasPrefix("geocode: warning:") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("add --lat-col 3 --lon-col 2") == true, "\(asIs.err)")
        let rows = DelimitedRows.parse(asIs.out)
        #expect(rows.count == 4 && rows.allSatisfy { $0.count == 5 })
        #expect(rows[0] == ["lat", "lon", "col3", "country", "geocode_error"])
        let fixed = try await run(["lon-lat-headerless.csv", "--fields", "country", "--lat-col", "3", "--lon-col", "2"])
        #expect(fixed.err.isEmpty, "\(fixed.err)")
        #expect(DelimitedRows.parse(fixed.out).dropFirst().map { $0[3] } == ["Testland", "Gridonia", "Testland"])
        #expect(DelimitedRows.parse(fixed.out)[0] == ["col1", "lon", "lat", "country", "geocode_error"])
        // Two columns the other way round: --lon-first.
        let pairs = try await GeocodeBinary.run(["batch", "-", "--fields", "country"], piped: "12.25,45.5\n120,-45.5\n")
        #expect(pairs.err.contains("add --lon-first"), "\(pairs.err)")
        let good = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country", "--lon-first", "--no-header-out"],
                                               piped: "12.25,45.5\n120,-45.5\n")
        #expect(good.out == "12.25,45.5,Testland,\n120,-45.5,Gridonia,\n")
        #expect(good.err.isEmpty)
    }

    @Test func noWarningWhenSomeRowsAreFound() async throws {
        let r = try await GeocodeBinary.run(["batch", "-", "--fields", "country"], piped: "lat,lon\n0.5,-30\n45.5,12.25\n")
        #expect(!r.err.contains("warning"), "\(r.err)")
    }

    @Test func swappedNDJSONKeysAreWarnedAboutOnceAndFixedByNamingThem() async throws {
        // As written: no object gives a place (lon 45.5 is in no country of the grid, lat 120.5 is out of
        // range); with the keys the other way round all three do.
        let asIs = try await run(["swapped-keys.ndjson", "--fields", "country"])
        #expect(asIs.status == 0)
        let warnings = asIs.err.split(separator: "\n").filter { $0.hasPrefix("geocode: warning:") }
        #expect(warnings.count == 1, "\(asIs.err)")
        #expect(warnings.first?.contains("none of the first 3 objects gives a place") == true, "\(asIs.err)")
        #expect(warnings.first?.contains("3 of 3 do: if that is how the file is laid out, add --lat-col lon --lon-col lat") == true,
                "\(asIs.err)")
        #expect(asIs.out.split(separator: "\n").count == 3)   // the run goes on as asked: one row per object
        let fixed = try await run(["swapped-keys.ndjson", "--fields", "country", "--lat-col", "lon", "--lon-col", "lat"])
        #expect(!fixed.err.contains("warning"), "\(fixed.err)")
        let countries = try fixed.out.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["country"] as? String
        }
        #expect(countries == ["Testland", "Gridonia", "Testland"])
    }

    @Test func latLonGeoJSONPositionsAreWarnedAbout() async throws {
        let r = try await run(["lat-lon-points.geojson", "--fields", "country", "-F", "csv"])
        #expect(r.status == 0)
        let warnings = r.err.split(separator: "\n").filter { $0.hasPrefix("geocode: warning:") }
        #expect(warnings.count == 1, "\(r.err)")
        #expect(warnings.first?.contains("none of the first 3 features gives a place") == true, "\(r.err)")
        #expect(warnings.first?.contains("with the Point coordinates read as [lat, lon], 3 of 3 do") == true, "\(r.err)")
        #expect(warnings.first?.contains("GeoJSON's order is [lon, lat]") == true, "\(r.err)")
        // Nothing is changed: the positions are read as RFC 7946 says, so no country.
        let rows = DelimitedRows.parse(r.out)
        #expect(rows.count == 4)
        #expect(rows.dropFirst().map { $0[4] } == ["", "", ""])
    }

    @Test func noWarningForJSONWhoseFirstRecordsAreFound() async throws {
        let r = try await run(["nested.ndjson", "--lat-col", "location.lat", "--lon-col", "location.lon", "--fields", "country"])
        #expect(!r.err.contains("warning"), "\(r.err)")
        let ok = try await GeocodeBinary.run(["batch", "-", "--fields", "country", "-f", "ndjson"],
                                             piped: "{\"lat\":45.5,\"lon\":12.25}\n{\"lat\":12.25,\"lon\":45.5}\n")
        #expect(!ok.err.contains("warning"), "\(ok.err)")
    }

    func tool(_ path: String, _ arguments: [String]) async throws -> GeocodeBinary.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        return try await GeocodeBinary.capture(process)
    }
}
