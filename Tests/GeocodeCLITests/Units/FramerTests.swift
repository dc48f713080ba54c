import Foundation
@testable import GeocodeCLI
import Testing

/// Framers must find the same records and lines however the input is cut into reads and chunks.
@Suite struct FramerTests {
    /// A ByteInput over `text`, reading `readSize` bytes at a time.
    func input(_ text: String, readSize: Int) throws -> ByteInput {
        let file = try TemporaryDirectory.shared.newFile("framer")
        try Data(text.utf8).write(to: file)
        let fd = open(file.path, O_RDONLY)
        #expect(fd >= 0)
        return ByteInput(fd: fd, name: "test", readSize: readSize)
    }

    /// Every record's text and line, across all chunks.
    func records(_ framer: any RecordFramer, chunkBytes: Int, chunkRecords: Int) throws -> [(String, Int)] {
        var all: [(String, Int)] = []
        while let chunk = try framer.nextChunk(targetBytes: chunkBytes, maxRecords: chunkRecords) {
            #expect(!chunk.records.isEmpty)
            for record in chunk.records {
                all.append((String(decoding: chunk.bytes[record.range], as: UTF8.self), record.line))
            }
        }
        return all
    }

    static let geometries = [(1, 1, 1), (4, 16, 2), (7, 1, 1000), (64, 40, 3), (1 << 20, 1 << 20, 8192)]

    @Test(arguments: geometries)
    func csvRecordsAndPhysicalLines(readSize: Int, chunkBytes: Int, chunkRecords: Int) throws {
        let text = "\u{FEFF}h1,h2\r\n1,\"a\r\nb\"\r\n\r\n2,\"x\"\"\ny\"\n3,z\r4,\"unterminated\nrest"
        let framer = CSVFramer(input: try input(text, readSize: readSize), delimiter: UInt8(ascii: ","))
        let got = try records(framer, chunkBytes: chunkBytes, chunkRecords: chunkRecords)
        #expect(got.map(\.0) == ["h1,h2", "1,\"a\r\nb\"", "2,\"x\"\"\ny\"", "3,z", "4,\"unterminated\nrest"])
        // Lines: header 1, record 2 spans 2-3, line 4 empty, record 5-6, lone-CR line 7, 8-9.
        #expect(got.map(\.1) == [1, 2, 5, 7, 8])
        #expect(framer.usesCRLF == true)
    }

    /// LF-only text with blank lines, quoted fields (one holding an LF), a long quote-free run and no
    /// final LF: the unframed fast path (the worker frames) must give the records and lines that the
    /// record-by-record state machine gives, wherever reads and chunks fall.
    @Test(arguments: [(1 << 20, 4096), (7, 300), (100, 1 << 20), (1 << 20, 1 << 20)])
    func csvUnframedChunksMatchFramedOnes(readSize: Int, chunkBytes: Int) throws {
        var text = "id,lat,lon\n"
        for i in 0..<3000 {
            switch i % 997 {
            case 5: text += "\n\n"
            case 17: text += "\(i),\"4\n8\",2\n"
            case 400: text += "\"q\(i)\",1,2\n"
            default: text += "\(i),\(i % 90).5,-\(i % 180).25\n"
            }
        }
        text += "last,1,2"
        let expected = try records(CSVFramer(input: try input(text, readSize: readSize), delimiter: UInt8(ascii: ",")),
                                   chunkBytes: chunkBytes, chunkRecords: 1)
        let framer = CSVFramer(input: try input(text, readSize: readSize), delimiter: UInt8(ascii: ","))
        var got: [(String, Int)] = []
        var unframed = 0
        // The header alone first, as the setup reads it (this decides the line ending).
        let header = try #require(try framer.nextChunk(targetBytes: 1, maxRecords: 1))
        got.append((String(decoding: header.bytes[header.records[0].range], as: UTF8.self), header.records[0].line))
        while let chunk = try framer.nextChunk(targetBytes: chunkBytes, maxRecords: 500) {
            if case .lines = chunk.framing { unframed += 1 }
            #expect(chunk.records.count <= 500)
            for record in chunk.records { got.append((String(decoding: chunk.bytes[record.range], as: UTF8.self), record.line)) }
        }
        #expect(unframed > 0)
        #expect(got.count == expected.count)
        #expect(got.map(\.0) == expected.map(\.0))
        #expect(got.map(\.1) == expected.map(\.1))
        #expect(got.last?.0 == "last,1,2")
        #expect(got.contains { $0.0 == "17,\"4\n8\",2" })
    }

    /// Runs of empty lines alone (at the end, or longer than a chunk) make no chunk without records.
    @Test(arguments: [(1 << 20, 4096), (5, 64)])
    func csvUnframedBlankRunsMakeNoEmptyChunk(readSize: Int, chunkBytes: Int) throws {
        let text = "lat,lon\n1,2\n" + String(repeating: "\n", count: 10_000) + "3,4\n" + String(repeating: "\n", count: 300)
        let framer = CSVFramer(input: try input(text, readSize: readSize), delimiter: UInt8(ascii: ","))
        _ = try framer.nextChunk(targetBytes: 1, maxRecords: 1)
        var got: [(String, Int)] = []
        while let chunk = try framer.nextChunk(targetBytes: chunkBytes, maxRecords: 100) {
            #expect(!chunk.records.isEmpty)
            for r in chunk.records { got.append((String(decoding: chunk.bytes[r.range], as: UTF8.self), r.line)) }
        }
        #expect(got.map(\.0) == ["1,2", "3,4"])
        #expect(got.map(\.1) == [2, 10_003])
    }

    @Test func lineCountMatchesBruteForce() {
        var bytes: [UInt8] = []
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 { bytes.append(Bool.random(using: &generator) ? 0x0A : UInt8.random(in: 0...255, using: &generator)) }
        bytes.withUnsafeBufferPointer { b in
            for (from, to) in [(0, 5000), (3, 4097), (1, 9), (0, 0), (77, 2300)] {
                let brute = b[from..<to].filter { $0 == 0x0A }.count
                #expect(CSVFramer.countLines(b.baseAddress!, from: from, to: to, limit: Int.max).count == brute)
                guard brute > 2 else { continue }
                let limit = brute / 2
                let (count, cappedAt) = CSVFramer.countLines(b.baseAddress!, from: from, to: to, limit: limit)
                #expect(count == limit)
                let end = try! #require(cappedAt)
                #expect(b[end - 1] == 0x0A)
                #expect(b[from..<end].filter { $0 == 0x0A }.count == limit)
            }
        }
    }

    @Test(arguments: geometries)
    func ndjsonLinesSkipBlanks(readSize: Int, chunkBytes: Int, chunkRecords: Int) throws {
        let text = "{\"a\":1}\r\n\n   \n{\"b\":\"x\\ny\"}\nlast"
        let framer = NDJSONFramer(input: try input(text, readSize: readSize))
        let got = try records(framer, chunkBytes: chunkBytes, chunkRecords: chunkRecords)
        #expect(got.map(\.0) == ["{\"a\":1}", "{\"b\":\"x\\ny\"}", "last"])
        #expect(got.map(\.1) == [1, 4, 5])
    }

    @Test(arguments: geometries)
    func geojsonStreamsFeatures(readSize: Int, chunkBytes: Int, chunkRecords: Int) throws {
        let text = """
            {"type": "FeatureCollection", "name": "a]}\\"[{",
             "features": [ {"type":"Feature","properties":{"s":"}]"},"geometry":{"type":"Point","coordinates":[1,2]}},
              42 ,
              {"type":"Feature",
               "geometry":null} ,
             ],
             "bbox": [0, 0, 1, 1]}

            """
        let framer = GeoJSONFramer(input: try input(text, readSize: readSize))
        let prefix = try framer.readPrefix()
        #expect(String(decoding: prefix, as: UTF8.self).hasSuffix("\"features\": ["))
        let got = try records(framer, chunkBytes: chunkBytes, chunkRecords: chunkRecords)
        #expect(got.map(\.0) == [#"{"type":"Feature","properties":{"s":"}]"},"geometry":{"type":"Point","coordinates":[1,2]}}"#,
                                 "42", "{\"type\":\"Feature\",\n   \"geometry\":null}"])
        #expect(got.map(\.1) == [2, 3, 4])
        #expect(String(decoding: framer.trailer, as: UTF8.self) == "],\n \"bbox\": [0, 0, 1, 1]}\n")
    }

    @Test(arguments: [
        ("[1,2]", "expected a FeatureCollection, a Feature or a Point object"),
        (#"{"type":"LineString","coordinates":[[1,2],[3,4]]}"#, "the document is a LineString geometry, which has no point to geocode"),
        (#"{"type":"Topology","objects":{}}"#, "top-level \"type\" is \"Topology\", expected"),
        (#"{"type":"Feature","type":"Point"}"#, "gives \"type\" twice: \"Feature\", then \"Point\""),
        (#"{"id":1}"#, "the top-level object has no \"type\""),
        ("{\"type\":\"Feature\",\"geometry\":null}\n{\"type\":\"Feature\",\"geometry\":null}", "unexpected data after the end of the Feature"),
        (#"{"type":"FeatureCollection"}"#, "no \"features\" array"),
        (#"{"features": {}}"#, "\"features\" is not an array"),
        (#"{"features": [{"type":"Feature"} {"#, "expected ',' or ']' after a feature"),
        (#"{"features": [] } extra"#, "unexpected data after the end"),
        (#"{"features": [{"a":1}"#, "unexpected end of input"),
    ])
    func geojsonStructureErrorsAreFatal(text: String, message: String) throws {
        let framer = GeoJSONFramer(input: try input(text, readSize: 3))
        do {
            _ = try framer.readPrefix()
            while try framer.nextChunk(targetBytes: 10, maxRecords: 10) != nil {}
            Issue.record("no error for \(text)")
        } catch {
            #expect(error.code == .badInput)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    /// After a framing error every later call throws the same error (``RecordFramer``), which lets a
    /// reader that looked ahead stop at it and leave it to the pipeline: it threw another, about where
    /// the failure had left the input ("inside the features array" after a cut-off value; "expected ','
    /// or ']'" after text following the collection).
    @Test(arguments: [#"{"features": [{"a":1}, {"b":[1,"#, #"{"features": [{"a":1}, {"b":"x"#, #"{"features": [{"a":1}] } extra"#])
    func geojsonFramingErrorIsThrownAgain(text: String) throws {
        let framer = GeoJSONFramer(input: try input(text, readSize: 3))
        _ = try framer.readPrefix()
        var first: CLIError?
        do {
            while try framer.nextChunk(targetBytes: 1, maxRecords: 1) != nil {}
        } catch {
            first = error
        }
        let firstError = try #require(first, "no error for \(text)")
        for _ in 0..<2 {
            do {
                let chunk = try framer.nextChunk(targetBytes: 1, maxRecords: 1)
                Issue.record("a chunk after the error: \(String(describing: chunk))")
            } catch {
                #expect(error == firstError, "\(error.message), first \(firstError.message)")
            }
        }
    }

    /// A document that is one Feature or one Point is one record: the whole object, from its own line,
    /// however the reads cut it; members after "type" (a "features" inside a Feature too) are its own.
    @Test(arguments: geometries)
    func geojsonSingleObjectIsOneRecord(readSize: Int, chunkBytes: Int, chunkRecords: Int) throws {
        let feature = "{\"id\": 7,\n  \"type\": \"Feature\", \"features\": [1],\n  \"geometry\": {\"type\": \"Point\", \"coordinates\": [1, 2]}}"
        for (text, kind) in [("\n\n" + feature + "\n \n", GeoJSONFramer.TopLevel.feature),
                             ("\u{FEFF}  {\"coordinates\": [1, 2], \"type\": \"Point\"}", .point)] {
            let framer = GeoJSONFramer(input: try input(text, readSize: readSize))
            #expect(try framer.readPrefix().isEmpty)
            #expect(framer.topLevel == kind)
            let got = try records(framer, chunkBytes: chunkBytes, chunkRecords: chunkRecords)
            let object = kind == .feature ? feature : "{\"coordinates\": [1, 2], \"type\": \"Point\"}"
            #expect(got.map(\.0) == [object])
            #expect(got.map(\.1) == [kind == .feature ? 3 : 1])
        }
    }

    /// RFC 8142's layout: each record after an RS, to the next RS, so one may span lines (as `jq --seq`
    /// pretty-prints); blank records (RS RS) skipped; text trimmed; the line where each record's text starts.
    @Test(arguments: geometries)
    func geojsonSequenceWithRecordSeparators(readSize: Int, chunkBytes: Int, chunkRecords: Int) throws {
        let text = "\u{FEFF}\n \u{1E}{\"type\":\"Feature\",\"id\":1}\n\u{1E}\u{1E}\n\u{1E}{\n  \"type\": \"Feature\",\n  \"id\": 2\n}\n"
            + "\u{1E}{\"id\":\"cut\n\u{1E} {\"s\":\"\u{1E}\"}\r\n\u{1E}last"
        let framer = GeoJSONSeqFramer(input: try input(text, readSize: readSize))
        #expect(try framer.start() == true)
        let got = try records(framer, chunkBytes: chunkBytes, chunkRecords: chunkRecords)
        #expect(got.map(\.0) == ["{\"type\":\"Feature\",\"id\":1}", "{\n  \"type\": \"Feature\",\n  \"id\": 2\n}", "{\"id\":\"cut",
                                 "{\"s\":\"", "\"}", "last"])
        #expect(got.map(\.1) == [2, 4, 8, 9, 9, 10])
    }

    /// Without an RS before the first record, a sequence is one record a line (GDAL's default layout): as
    /// NDJSON, blank lines skipped, an RS that some lines carry left to the decoder.
    @Test(arguments: geometries)
    func geojsonSequenceOfLines(readSize: Int, chunkBytes: Int, chunkRecords: Int) throws {
        let text = "\n{\"type\":\"Feature\",\"id\":1}\r\n\n\u{1E}{\"type\":\"Feature\",\"id\":2}\n{\"id\":\"cut\nlast"
        let framer = GeoJSONSeqFramer(input: try input(text, readSize: readSize))
        #expect(try framer.start() == false)
        let got = try records(framer, chunkBytes: chunkBytes, chunkRecords: chunkRecords)
        #expect(got.map(\.0) == ["{\"type\":\"Feature\",\"id\":1}", "\u{1E}{\"type\":\"Feature\",\"id\":2}", "{\"id\":\"cut", "last"])
        #expect(got.map(\.1) == [2, 4, 5, 6])
    }

    @Test(arguments: [("", false), ("  \n\t", false), ("\u{1E}", true)])
    func geojsonSequenceWithoutRecords(text: String, separated: Bool) throws {
        let framer = GeoJSONSeqFramer(input: try input(text, readSize: 1))
        #expect(try framer.start() == separated)
        #expect(try records(framer, chunkBytes: 1, chunkRecords: 1).isEmpty)
    }

    @Test func oversizedRecordIsAnErrorNotUnboundedMemory() throws {
        let text = "a,\"" + String(repeating: "x", count: 5000)
        let file = try TemporaryDirectory.shared.newFile("huge")
        try Data(text.utf8).write(to: file)
        let input = ByteInput(fd: open(file.path, O_RDONLY), name: "huge.csv", readSize: 64, maxPending: 1024)
        let framer = CSVFramer(input: input, delimiter: UInt8(ascii: ","))
        #expect(throws: CLIError.self) { _ = try framer.nextChunk(targetBytes: 1 << 20, maxRecords: 100) }
    }
}
