import Foundation
@testable import GeocodeCLI
import GeoModel
import TestSupport
import Testing

/// Issue 17's output shape, through the real reader, decoder and encoder (in process, the grid engine):
/// rectangular CSV whatever a row holds, every JSON key on every row, the GeoJSON feature id kept,
/// bounded quotes of input in messages, decimal commas, and the fast row path equal to the general one.
@Suite struct BatchOutputShapeTests {
    struct Run {
        var schema: BatchSchema
        var preamble: [UInt8]
        var rows: [[UInt8]]
        var problems: [RowProblem]
        /// Warnings found before the rows (BatchSetup.notices).
        var notices: [String] = []
        /// Warnings of the workers, as found (the pipeline shows each key's first).
        var rowNotices: [String] = []
        var text: String { String(decoding: preamble + rows.joined(), as: UTF8.self) }
    }

    static func run(_ input: String, format: BatchFormat, output: BatchFormat, plainRows: Bool = true,
                    decimalComma: Bool = false, chunkRecords: Int = 8192, prefix: String = "") throws -> Run {
        let file = try TemporaryDirectory.shared.newFile("shape")
        try Data(input.utf8).write(to: file)
        let fd = open(file.path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        var options = BatchOptions()
        options.inputPath = file.path
        options.format = format
        options.outputFormat = output
        options.prefix = prefix
        let bytes = ByteInput(fd: fd, name: "in", readSize: 1 << 16)
        if format == .geojson { bytes.maxPending = 1 << 30 }
        var setup = try BatchSetup.prepare(input: bytes, format: format, outputFormat: output, options: options)
        setup.schema.decimalComma = decimalComma
        let processor = ChunkProcessor(schema: setup.schema, lookup: GridTestLookup(), plainRows: plainRows)
        var cache = processor.makeCache()
        var run = Run(schema: setup.schema, preamble: setup.preamble, rows: [], problems: [], notices: setup.notices)
        var sequence = 0
        func take(_ raw: RawChunk) {
            var chunk = raw
            chunk.sequence = sequence
            sequence += 1
            let done = processor.process(chunk, cache: &cache)
            var start = 0
            for end in done.rowEnds {
                run.rows.append(Array(done.output[start..<end]))
                start = end
            }
            run.problems += done.problems
            run.rowNotices += done.notices.map(\.message)
        }
        for chunk in setup.pending { take(chunk) }
        while let chunk = try setup.framer.nextChunk(targetBytes: 1 << 20, maxRecords: chunkRecords) { take(chunk) }
        return run
    }

    /// RFC 4180 fields of one output row (line ending removed), written here as the oracle.
    static func fields(_ row: [UInt8], delimiter: UInt8 = UInt8(ascii: ",")) -> [String] {
        var row = row
        while row.last == 0x0A || row.last == 0x0D { row.removeLast() }
        var out: [String] = [], value: [UInt8] = [], i = 0, quoted = false
        while i < row.count {
            let c = row[i]
            if quoted {
                if c == 0x22 {
                    if i + 1 < row.count && row[i + 1] == 0x22 { value.append(c); i += 2; continue }
                    quoted = false
                } else { value.append(c) }
            } else if c == 0x22 && value.isEmpty {
                quoted = true
            } else if c == delimiter {
                out.append(String(decoding: value, as: UTF8.self)); value = []
            } else { value.append(c) }
            i += 1
        }
        out.append(String(decoding: value, as: UTF8.self))
        return out
    }

    @Test func aRowWithTooManyFieldsStaysRectangularAndTheMessageHoldsTheRest() throws {
        let run = try Self.run("id,lat,lon\n1,45.5,12.25\n2,45.5,12.25,extra,\"more, quoted\"\n3,-45.5,120\n", format: .csv, output: .csv)
        let header = Self.fields(run.preamble)
        #expect(header == ["id", "lat", "lon", "country", "country_code", "province", "city", "district", "geocode_error"])
        for row in run.rows { #expect(Self.fields(row).count == header.count, "\(String(decoding: row, as: UTF8.self))") }
        let bad = Self.fields(run.rows[1])
        #expect(bad[0...2] == ["2", "45.5", "12.25"])
        let placeCellsEmpty = bad[3...7].allSatisfy { $0.isEmpty }
        #expect(placeCellsEmpty)
        #expect(bad[8].contains("the row has 5 fields, expected 3"))
        #expect(bad[8].contains(#"extra,""more, quoted"""#) || bad[8].contains(#"extra,\"more, quoted\""#), "\(bad[8])")
        #expect(run.problems.map(\.line) == [3])
        #expect(Self.fields(run.rows[2])[3] == "Gridonia")
    }

    @Test func messagesQuoteAtMost200BytesAndSayHowLongTheTextWas() throws {
        let long = String(repeating: "é", count: 3_000)   // 6,000 bytes, two per character
        let run = try Self.run("id,lat,lon\n1,45.5,12.25,\(long)\n", format: .csv, output: .csv)
        let message = try #require(run.problems.first?.message)
        #expect(message.utf8.count < 400, "\(message.utf8.count) bytes")
        #expect(message.contains("(6,000 bytes)"), "\(message)")
        // Cut at a character boundary: no replacement character.
        #expect(!message.contains("\u{FFFD}"))
        #expect(LineExcerpt.quote(Array("a\"b\n".utf8)) == #""a\"b\n""#)
        #expect(LineExcerpt.quote(Array(repeating: UInt8(ascii: "x"), count: 201))
                == "\"" + String(repeating: "x", count: 200) + "…\" (201 bytes)")
    }

    @Test func geoJSONToCSVKeepsTheFeatureId() throws {
        let input = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[12.25,45.5]},"properties":{"name":"a"}},
        {"type":"Feature","id":"b-2","geometry":{"type":"Point","coordinates":[120,-45.5]},"properties":{"name":"b"}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[-30,10]},"properties":{"name":"c"}}
        ]}
        """
        let run = try Self.run(input, format: .geojson, output: .csv)
        #expect(Self.fields(run.preamble).prefix(4) == ["id", "lat", "lon", "name"])
        #expect(run.rows.map { Self.fields($0)[0] } == ["7", "b-2", ""])
        for row in run.rows { #expect(Self.fields(row).count == Self.fields(run.preamble).count) }
        // A property called id: the feature's column is feature_id.
        let clash = try Self.run(input.replacingOccurrences(of: "\"name\"", with: "\"id\""), format: .geojson, output: .csv)
        #expect(Self.fields(clash.preamble).prefix(4) == ["feature_id", "lat", "lon", "id"])
        #expect(Self.fields(clash.rows[0]).prefix(4) == ["7", "45.5", "12.25", "a"])
    }

    /// Found, found:false (ocean) and bad rows carry the same keys in NDJSON and GeoJSON output.
    @Test(arguments: [BatchFormat.ndjson, .geojson])
    func jsonOutputCarriesEveryKeyOnEveryRow(_ output: BatchFormat) throws {
        let csv = "id,lat,lon,note\n1,45.5,12.25,x\n2,10,-30,y\n3,abc,12,z\n4,45.5\n"
        let run = try Self.run(csv, format: .csv, output: output)
        var keySets: [[String]] = []
        for row in run.rows {
            var text = row
            if output == .geojson { while let c = text.first, c == 0x0A || c == UInt8(ascii: ",") { text.removeFirst() } }
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text)) as? [String: Any])
            let members = output == .geojson ? try #require(object["properties"] as? [String: Any]) : object
            keySets.append(members.keys.sorted())
            if members["geocode_error"] is NSNull { #expect(members["country"] != nil) }
        }
        #expect(Set(keySets.map { $0.joined(separator: ",") }).count == 1, "\(keySets)")
        #expect(keySets[0] == ["city", "country", "country_code", "district", "geocode_error", "id", "lat", "lon", "note", "province"])
        // From NDJSON too: a found:false object has the keys a found one has.
        let nd = try Self.run("{\"lat\":45.5,\"lon\":12.25}\n{\"lat\":10,\"lon\":-30}\n", format: .ndjson, output: .ndjson)
        let objects = try nd.rows.map { try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        #expect(objects[0].keys.sorted() == objects[1].keys.sorted())
        #expect(objects[1]["geocode_error"] is NSNull && objects[1]["country"] is NSNull)
    }

    @Test func decimalCommaWhenTheSchemaSaysSo() throws {
        let csv = "id,lat,lon\n1,\"45,5\",\"12,25\"\n2,\"-45,5\",120\n"
        let with = try Self.run(csv, format: .csv, output: .csv, decimalComma: true)
        #expect(with.problems.isEmpty)
        #expect(Self.fields(with.rows[0])[1...3] == ["45,5", "12,25", "Testland"])
        #expect(Self.fields(with.rows[1])[3] == "Gridonia")
        let without = try Self.run(csv, format: .csv, output: .csv)
        #expect(without.problems.count == 2)
        let tsv = try Self.run("lat\tlon\n45,5\t12,25\n", format: .tsv, output: .tsv, decimalComma: true)
        #expect(Self.fields(tsv.rows[0], delimiter: 0x09)[2] == "Testland")
        let nd = try Self.run("{\"lat\":\"45,5\",\"lon\":\"12,25\"}\n", format: .ndjson, output: .ndjson, decimalComma: true)
        #expect(String(decoding: nd.rows[0], as: UTF8.self).contains("\"country\":\"Testland\""))
    }

    /// The fast path (rows carried byte for byte) writes exactly what the general path (split, unquote,
    /// re-quote) writes, on rows of every shape: quotes, spaces at the edges, short and long rows,
    /// empty and bad values, CRLF, TSV. The general path is the oracle.
    @Test func plainRowsEqualTheGeneralPath() throws {
        var random = SplitMix64(seed: 17)
        let pieces = ["1", "45.5", "-45.5", "12.25", "120", "", " ", " x", "x ", "a\"b", "\"q\"", "\"a,b\"", "abc", "91",
                      "1e1", "+3", "  7  ", "\"\"", "é", "-0"]
        for delimiter in [",", "\t"] {
            for lineEnd in ["\n", "\r\n"] {
                var text = ["id", "lat", "lon", "note"].joined(separator: delimiter) + lineEnd
                for n in 0..<3_000 {
                    // The row number first, so no row is empty (an empty line is no record).
                    let count = Int(random.next() % 6)
                    text += ([String(n)] + (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] })
                        .joined(separator: delimiter) + lineEnd
                }
                let format: BatchFormat = delimiter == "," ? .csv : .tsv
                let fast = try Self.run(text, format: format, output: format, chunkRecords: 97)
                let general = try Self.run(text, format: format, output: format, plainRows: false, chunkRecords: 97)
                #expect(fast.rows == general.rows)
                #expect(fast.problems == general.problems)
                #expect(fast.rows.count == 3_000)
            }
        }
    }

    /// The per-worker cache of encoded columns gives the bytes encoding afresh would, across chunks and
    /// evictions (more placemarks than slots), in every output format.
    @Test(arguments: [BatchFormat.csv, .ndjson, .geojson])
    func cachedPlacemarkColumnsEqualFreshlyEncodedOnes(_ output: BatchFormat) throws {
        var text = "lat,lon\n"
        var random = SplitMix64(seed: 5)
        for _ in 0..<20_000 {
            let lat = Double(random.next() % 1_700) / 10 - 85, lon = Double(random.next() % 3_600) / 10 - 180
            text += "\(lat),\(lon)\n"
        }
        let run = try Self.run(text, format: .csv, output: output, chunkRecords: 1000)
        let schema = run.schema
        let grid = GridTestLookup()
        for (i, line) in text.split(separator: "\n").dropFirst().enumerated() {
            let parts = line.split(separator: ",")
            let placemark = try grid.placemark(for: Coordinate(latitude: Double(parts[0])!, longitude: Double(parts[1])!), datum: .wgs84)
            var expected: [UInt8] = []
            switch output {
            case .csv, .tsv: RecordEncoder.appendFieldCells(schema.fields, placemark, delimiter: UInt8(ascii: ","), to: &expected)
            default:
                var keys: [[UInt8]] = []
                for f in schema.fields { var k: [UInt8] = []; JSONWriter.appendString(f.name, to: &k); k.append(UInt8(ascii: ":")); keys.append(k) }
                RecordEncoder.appendFieldMembers(schema.fields, keys, placemark, to: &expected)
            }
            #expect(run.rows[i].firstRange(of: expected) != nil, "row \(i)")
        }
    }
}
