import Foundation
import Testing

/// Warnings about what the input had (members an output drops, keys with no column) reach the user
/// however the run ends. A `--strict` stop said the warnings of the chunks written before the bad
/// row's, but not those of the rows before it in its own chunk (the chunk was dropped whole), nor a
/// FeatureCollection's members (said after the rows, which a stop never reached): they are said before
/// the rows now. And a GeoJSON file whose framing failed within the records read ahead (the first
/// thousand, ``BatchSetup``) wrote no row, where a pipe of the same bytes wrote the rows before the
/// error: both end the same way now, with the same rows, the same message and exit 3.
///
/// Read from a pipe, the first feature (or object) is a chunk of its own (read while deciding the
/// columns) and the rest come in one: the bad row's chunk then holds rows before it.
@Suite struct WarningsOnEarlyEndTests {
    static let arguments = ["batch", "-", "-q", "--fields", "country", "-F", "csv"]

    /// Line 1: a member before the features. Line 2: a feature bbox (the first chunk). Line 3: an
    /// altitude, in the bad row's chunk, before it. Line 4: the bad row. Line 5: a foreign member of the
    /// geometry after it, and after the features another collection member: neither is reached.
    static let collection = """
        {"type":"FeatureCollection","name":"pts","features":[
        {"type":"Feature","id":1,"bbox":[12.25,45.5,12.25,45.5],"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":1}},
        {"type":"Feature","id":2,"geometry":{"type":"Point","coordinates":[120.5,-45.5,3]},"properties":{"n":2}},
        {"type":"Feature","id":3,"geometry":null,"properties":{"n":3}},
        {"type":"Feature","id":4,"geometry":{"type":"Point","coordinates":[12.25,45.5],"crs":1},"properties":{"n":4}}
        ],"generator":"x"}

        """

    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    @Test func strictStopSaysTheWarningsOfTheRowsBeforeTheBadOne() async throws {
        let r = try await GeocodeBinary.run(Self.arguments + ["--strict"], piped: Self.collection)
        #expect(r.status == 3, "\(r.err)")
        let err = Self.lines(r.err)
        try #require(err.count == 4, "\(r.err)")
        #expect(err[0] == "geocode: warning: <stdin>:1: the FeatureCollection has \"name\", which CSV output does not write "
                + "(it writes the features only); GeoJSON output keeps it")
        #expect(err[1].hasPrefix("geocode: warning: <stdin>:2: the feature has bbox, which CSV output"), "\(err[1])")
        #expect(err[2].hasPrefix("geocode: warning: <stdin>:3: the Point has an altitude"), "\(err[2])")
        #expect(err[3] == "geocode: <stdin>:4: bad row: the feature's geometry is null (stopped at the first bad row: --strict)")
        // Exactly the rows before the bad one, as the run without --strict writes them.
        let all = try await GeocodeBinary.run(Self.arguments, piped: Self.collection)
        #expect(all.status == 0, "\(all.err)")
        #expect(r.out == Self.lines(all.out).prefix(3).joined(separator: "\n") + "\n", "\(r.out)")
        // Without --strict every warning is said, the collection's in the order of the input.
        let allErr = Self.lines(all.err)
        #expect(allErr.count == 6, "\(all.err)")
        #expect(allErr.first == err[0] && allErr.last?.hasPrefix("geocode: warning: <stdin>:6: the FeatureCollection has "
                                                                  + "\"generator\" after its features") == true, "\(all.err)")
    }

    /// The same stop in NDJSON: the key that has no CSV column, in the bad row's chunk, is said.
    @Test func strictStopSaysAKeyWithoutAColumnBeforeTheBadRow() async throws {
        let input = """
            {"lat":45.5,"lon":12.25}
            {"lat":-45.5,"lon":120.5,"extra":1}
            {"lat":"x","lon":12.25}
            {"lat":45.5,"lon":12.25,"later":2}

            """
        let r = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country", "--format", "ndjson", "-F", "csv", "--strict"],
                                            piped: input)
        #expect(r.status == 3, "\(r.err)")
        let err = Self.lines(r.err)
        #expect(err.count == 2, "\(r.err)")
        #expect(err.first == "geocode: warning: <stdin>:2: key \"extra\" is not a column of the CSV output (columns come from "
                + "the first record); its values are dropped", "\(r.err)")
        #expect(err.last?.hasPrefix("geocode: <stdin>:3: bad row:") == true, "\(r.err)")
        #expect(Self.lines(r.out).count == 3, "\(r.out)")
    }

    /// A `--strict` stop says every warning up to and including the bad row's own, in the order a run
    /// without `--strict` says them, then the error: the bad row's were dropped, so the user fixed the
    /// row and met its warning only on the next run. The rows after it are never reached: their warnings
    /// are not said. The oracle is the run without `--strict`, which says every warning.
    @Test(arguments: [
        // NDJSON: a key without a column on line 2; on the bad row a key it repeats and another key
        // without a column; after it a third one.
        ("""
         {"lat":45.5,"lon":12.25}
         {"lat":-45.5,"lon":120.5,"extra":1}
         {"lat":"x","lon":12.25,"other":2,"lon":12.5}
         {"lat":45.5,"lon":12.25,"later":3}

         """, "ndjson", 3),
        // A FeatureCollection: an altitude on line 2; the bad row (no geometry) has a foreign member;
        // the feature after it a foreign member of its Point (each kind is said once a run).
        ("""
         {"type":"FeatureCollection","features":[
         {"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5,3]},"properties":{"n":1}},
         {"type":"Feature","source":"gps","geometry":null,"properties":{"n":2}},
         {"type":"Feature","geometry":{"type":"Point","coordinates":[120.5,-45.5],"crs":1},"properties":{"n":3}}
         ]}

         """, "geojson", 3),
    ])
    func strictStopSaysTheBadRowsOwnWarningsBeforeTheError(_ text: String, _ format: String, _ badLine: Int) async throws {
        let arguments = ["batch", "-", "-q", "--fields", "country", "--format", format, "-F", "csv"]
        let strict = try await GeocodeBinary.run(arguments + ["--strict"], piped: text)
        let all = try await GeocodeBinary.run(arguments, piped: text)
        #expect(strict.status == 3, "\(strict.err)")
        #expect(all.status == 0, "\(all.err)")
        /// The warnings of lines up to `badLine`, in the order said.
        func warningsUpToTheBadRow(_ err: String) -> [String] {
            Self.lines(err).filter { line in
                guard line.hasPrefix("geocode: warning: <stdin>:"),
                      let n = Int(line.dropFirst("geocode: warning: <stdin>:".count).prefix { $0.isNumber }) else { return false }
                return n <= badLine
            }
        }
        let expected = warningsUpToTheBadRow(all.err)
        // The bad row has warnings of its own, and a row after it has one (not to be said).
        #expect(expected.contains { $0.hasPrefix("geocode: warning: <stdin>:\(badLine):") }, "\(all.err)")
        #expect(Self.lines(all.err).count > expected.count, "\(all.err)")
        let err = Self.lines(strict.err)
        #expect(Array(err.dropLast()) == expected, "\(strict.err)")
        #expect(err.last?.hasPrefix("geocode: <stdin>:\(badLine): bad row:") == true, "\(strict.err)")
        #expect(err.last?.hasSuffix("(stopped at the first bad row: --strict)") == true, "\(strict.err)")
        // The rows before the bad one, as the full run writes them (header included).
        #expect(strict.out == Self.lines(all.out).prefix(badLine - (format == "geojson" ? 1 : 0)).joined(separator: "\n") + "\n",
                "\(strict.out)")

        // To a file: the same warnings and error, and no file.
        let target = TemporaryDirectory.shared.uniqueURL("strict", extension: "csv")
        let toFile = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country", "--format", format, "-o", target.path,
                                                  "--strict"], piped: text)
        #expect(toFile.status == 3, "\(toFile.err)")
        let fileErr = Self.lines(toFile.err)
        #expect(Array(fileErr.dropLast()) == expected, "\(toFile.err)")
        #expect(fileErr.last?.hasSuffix("--strict; \(target.path) not written)") == true, "\(toFile.err)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    /// A FeatureCollection whose opening fails, before `"features"` (cut short, malformed): the members it
    /// named before the failure are said, then the error, exit 3, no row, from a file and a pipe alike, and
    /// `-o` writes nothing. They went unsaid, as no row was read. A Feature's own members are no
    /// collection's, and an object that has not said its type yet is not known to be a collection.
    @Test(arguments: [
        ("{\"type\":\"FeatureCollection\",\"name\":\"pts\",\n\"bbox\":[12.25,45.5,",
         "<IN>:1: the FeatureCollection has \"name\", bbox, which CSV output does not write (it writes the features only); "
            + "GeoJSON output keeps them",
         "<IN>:2: GeoJSON: unexpected end of input inside a value"),
        ("{\"type\":\"FeatureCollection\",\n\"crs\":{\"type\":\"name\"},\"features\":{}}\n",
         "<IN>:2: the FeatureCollection has \"crs\", which CSV output does not write (it writes the features only); "
            + "GeoJSON output keeps it",
         "<IN>:2: GeoJSON: \"features\" is not an array"),
        ("{\"type\":\"Feature\",\"source\":\"gps\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[12.25,",
         nil, "<IN>:1: GeoJSON: unexpected end of input inside a value"),
        ("{\"name\":\"pts\",\"bbox\":[12.25,45.5,", nil, "<IN>:1: GeoJSON: unexpected end of input inside a value"),
    ])
    func collectionMembersBeforeAFailedOpeningAreSaid(_ text: String, _ warning: String?, _ message: String) async throws {
        let file = try TemporaryDirectory.shared.newFile("opening", extension: "geojson")
        try Data(text.utf8).write(to: file)
        let target = TemporaryDirectory.shared.uniqueURL("opening", extension: "csv")
        let fromFile = try await GeocodeBinary.run(["batch", file.path, "-q", "--fields", "country", "-o", target.path])
        let fromPipe = try await GeocodeBinary.run(["batch", "-", "-q", "--fields", "country", "--format", "geojson", "-F", "csv"],
                                                   piped: text)
        for (r, name) in [(fromFile, file.path), (fromPipe, "<stdin>")] {
            #expect(r.status == 3, "\(name): \(r.err)")
            let expected = [warning.map { "geocode: warning: " + $0 }, "geocode: " + message].compactMap { $0 }
            #expect(Self.lines(r.err) == expected.map { $0.replacingOccurrences(of: "<IN>", with: name) }, "\(r.err)")
            #expect(r.out.isEmpty, "\(r.out)")
        }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    /// A FeatureCollection cut short inside its third feature (or with text after its end): a file and a
    /// pipe of the same bytes write the rows before the error, say the same things, and exit 3. From a
    /// file, the error came while reading ahead, and no row was written.
    @Test(arguments: [
        // Cut short inside a value; every feature has properties.
        ("""
         {"type":"FeatureCollection","features":[
         {"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":1}},
         {"type":"Feature","geometry":{"type":"Point","coordinates":[120.5,-45.5]},"properties":{"n":2}},
         {"type":"Feature","geometry":{"type":"Point","coordinates":[12.2
         """, "csv", 2, "<IN>:4: GeoJSON: unexpected end of input inside a value"),
        // No feature has properties, so the columns are looked for up to the error, from a pipe too.
        ("""
         {"type":"FeatureCollection","features":[
         {"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":null},
         {"type":"Feature","geometry":{"type":"Point","coordinates":[120.5,-45.5]}},
         {"type":"Feature","geometry":{"type":"Point","coordinates":"
         """, "ndjson", 2, "<IN>:4: GeoJSON: unexpected end of input inside a value"),
        // Text after the end: every row is written, and the member after the features is said.
        ("""
         {"type":"FeatureCollection","features":[
         {"type":"Feature","geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"n":1}}
         ],"generator":"x"} trailing

         """, "csv", 1, "<IN>:3: GeoJSON: unexpected data after the end of the FeatureCollection"),
    ])
    func fileAndPipeEndAlike(_ text: String, _ output: String, _ rows: Int, _ message: String) async throws {
        let arguments = ["-q", "--fields", "country", "--format", "geojson", "-F", output]
        let file = try TemporaryDirectory.shared.newFile("cut", extension: "geojson")
        try Data(text.utf8).write(to: file)
        let fromFile = try await GeocodeBinary.run(["batch", file.path] + arguments)
        let fromPipe = try await GeocodeBinary.run(["batch", "-"] + arguments, piped: text)
        for (r, name) in [(fromFile, file.path), (fromPipe, "<stdin>")] {
            #expect(r.status == 3, "\(name): \(r.err)")
            #expect(Self.lines(r.err).last == "geocode: " + message.replacingOccurrences(of: "<IN>", with: name), "\(r.err)")
            let written = Self.lines(r.out)
            #expect(written.count == rows + (output == "csv" ? 1 : 0), "\(name): \(r.out)")
        }
        #expect(fromFile.out == fromPipe.out && !fromFile.out.isEmpty, "\(fromFile.out)\n--\n\(fromPipe.out)")
        #expect(fromFile.err.replacingOccurrences(of: file.path, with: "<stdin>") == fromPipe.err, "\(fromFile.err)\n--\n\(fromPipe.err)")
        if text.contains("generator") {
            #expect(fromPipe.err.contains("<stdin>:3: the FeatureCollection has \"generator\" after its features"), "\(fromPipe.err)")
        }
    }
}
