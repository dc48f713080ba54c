@testable import GeocodeCLI
import Testing

@Suite struct JSONScannerTests {
    func members(_ text: String) throws -> [(String, JSONKind, String)] {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { b in
            var scanner = JSONScanner(b)
            return try scanner.objectMembers().map { m in
                (String(decoding: JSONScanner.decodeString(b, m.key), as: UTF8.self), m.kind,
                 String(decoding: Array(b[m.value]), as: UTF8.self))
            }
        }
    }

    @Test func membersKeepRawValues() throws {
        let m = try members(#"{ "a" : 1.50, "b":"x\"y", "c":[1,{"d":null}], "e":true, "f":null, "g":{} }"#)
        #expect(m.map(\.0) == ["a", "b", "c", "e", "f", "g"])
        #expect(m.map(\.1) == [.number, .string, .array, .bool, .null, .object])
        #expect(m[0].2 == "1.50")    // the digits as written, not a re-formatted Double
        #expect(m[2].2 == #"[1,{"d":null}]"#)
    }

    @Test func decodesEscapes() throws {
        let m = try members(#"{"k\u0061y":"tab\tnl\nq\"\u00e9\ud83d\ude00\/"}"#)
        #expect(m[0].0 == "kay")
        let bytes = Array(m[0].2.utf8)
        let decoded = bytes.withUnsafeBufferPointer { String(decoding: JSONScanner.decodeString($0, 0..<bytes.count), as: UTF8.self) }
        #expect(decoded == "tab\tnl\nq\"é😀/")
    }

    /// A key is compared by its decoded text: the scanner's "no escape" flag lets a plain key skip the
    /// search for a backslash, and must never make an escaped key of another raw length unequal.
    @Test func keysCompareByTheirDecodedText() throws {
        let bytes = Array(#"{"l\u0061t":1,"lat":2,"la\"t":3,"LAT":4}"#.utf8)
        try bytes.withUnsafeBufferPointer { b in
            var scanner = JSONScanner(b)
            let m = try scanner.objectMembers()
            #expect(m.map(\.keyHasEscape) == [true, false, true, false])
            #expect(m.map { $0.keyEquals(b, Array("lat".utf8)) } == [true, true, false, false])
            #expect(m.map { $0.keyEquals(b, Array("la\"t".utf8)) } == [false, false, true, false])
            // Both "lat" keys match: the last one is read, and the key is reported as given twice.
            let last = try #require(m.lastMember(named: Array("lat".utf8), in: b))
            #expect(last.index == 1 && last.repeated)
        }
    }

    @Test(arguments: [#"{"a":}"#, #"{"a":1,}"#, #"{"a" 1}"#, #"{a:1}"#, #"{"a":01}"#, #"{"a":1."#, #"{"a":"x"#,
                      #"{"a":tru}"#, "{\"a\":\"ctl\u{1}\"}", #"{"a":"\x"}"#, #"{"a":[1 2]}"#, #"{"a":-}"#])
    func rejectsInvalid(_ text: String) {
        #expect(throws: JSONError.self) { try members(text) }
    }

    @Test func rejectsDeepNesting() {
        let deep = "{\"a\":" + String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000) + "}"
        #expect(throws: JSONError.self) { try members(deep) }
    }

    @Test func minifiesOutsideStrings() {
        let raw = Array("{ \"a b\" : [ 1 ,\n 2 ] }".utf8)
        var out: [UInt8] = []
        raw.withUnsafeBufferPointer { JSONWriter.appendMinified($0, 0..<raw.count, to: &out) }
        #expect(String(decoding: out, as: UTF8.self) == "{\"a b\":[1,2]}")
    }

    @Test func escapesStrings() {
        var out: [UInt8] = []
        JSONWriter.appendString("q\"b\\n\n\u{1}é", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""q\"b\\n\n\u0001é""#)
    }

    @Test func sniffsFormats() {
        #expect(BatchFormat.sniff(Array("{\"lat\":1,\"lon\":2}\n{\"lat\":3".utf8)) == .ndjson)
        #expect(BatchFormat.sniff(Array("{\"type\":\"FeatureCollection\",\"features\":[]}".utf8)) == .geojson)
        #expect(BatchFormat.sniff(Array("{\n  \"type\": \"FeatureCollection\",".utf8)) == .geojson)
        #expect(BatchFormat.sniff(Array("\u{FEFF}lat,lon\n1,2\n".utf8)) == .csv)
        #expect(BatchFormat.sniff(Array("lat\tlon\n1\t2\n".utf8)) == .tsv)
        // A one-line Feature or geometry alone is a GeoJSON document (whose reader takes or names it);
        // a Feature or Point a line is a GeoJSON sequence (it was NDJSON, every row without "lat").
        let feature = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}"
        #expect(BatchFormat.sniff(Array((feature + "\n").utf8)) == .geojson)
        #expect(BatchFormat.sniff(Array("{\"type\":\"Point\",\"coordinates\":[1,2]}".utf8)) == .geojson)
        #expect(BatchFormat.sniff(Array("{\"type\":\"Polygon\",\"coordinates\":[]}\r\n".utf8)) == .geojson)
        #expect(BatchFormat.sniff(Array((feature + "\n" + feature + "\n").utf8)) == .geojsonseq)
        #expect(BatchFormat.sniff(Array(("\n\n" + feature + "\n{\"type\":\"Feature\"").utf8)) == .geojsonseq)
        #expect(BatchFormat.sniff(Array("{\"type\":\"Point\",\"coordinates\":[1,2]}\n{\"type\":\"Point\",".utf8)) == .geojsonseq)
        // RFC 8142: an RS first, whatever follows (a pretty-printed record too).
        #expect(BatchFormat.sniff(Array("\u{FEFF}\u{1E}{\n  \"type\": \"Feature\",".utf8)) == .geojsonseq)
        #expect(BatchFormat.sniff(Array(" \n\u{1E}{}".utf8)) == .geojsonseq)
        // Other objects a line stay NDJSON, a "type" of their own included.
        #expect(BatchFormat.sniff(Array("{\"type\":\"bus\",\"lat\":1,\"lon\":2}\n".utf8)) == .ndjson)
        #expect(BatchFormat.sniff(Array("{\"type\":\"LineString\",\"coordinates\":[]}\n{}\n".utf8)) == .ndjson)
        #expect(BatchFormat.sniff(Array("\n{\"lat\":1,\"lon\":2}\n".utf8)) == .ndjson)
        // A leading tab is an empty first TSV column.
        #expect(BatchFormat.sniff(Array("\tlat\tlon\n".utf8)) == .tsv)
    }

    /// What makes lines of JSON (a .ndjson name) a GeoJSON sequence: the first record's type, or an RS.
    @Test func sequenceStarts() {
        let feature = "{\"type\":\"Feature\",\"geometry\":null}"
        #expect(BatchFormat.startsSequence(Array(feature.utf8)))
        #expect(BatchFormat.startsSequence(Array(("\u{FEFF}\n" + feature + "\n{\"lat\":1}").utf8)))
        #expect(BatchFormat.startsSequence(Array("{\"coordinates\":[1,2],\"type\":\"Point\"}".utf8)))
        #expect(BatchFormat.startsSequence(Array("\u{1E}{".utf8)))
        #expect(!BatchFormat.startsSequence(Array("{\"lat\":1,\"lon\":2}\n".utf8)))
        #expect(!BatchFormat.startsSequence(Array("{\"type\":\"FeatureCollection\",\"features\":[]}".utf8)))
        // A first line that is no complete object says nothing.
        #expect(!BatchFormat.startsSequence(Array("{\"type\":\"Feature\",".utf8)))
        #expect(!BatchFormat.startsSequence([]))
    }
}
