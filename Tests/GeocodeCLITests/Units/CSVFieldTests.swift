@testable import GeocodeCLI
import Testing

@Suite struct CSVFieldTests {
    func split(_ record: String, delimiter: Character = ",") -> (fields: [String], unterminated: Bool) {
        let bytes = Array(record.utf8)
        return bytes.withUnsafeBufferPointer { b in
            let (values, unterminated) = CSVField.split(b, 0..<bytes.count, delimiter: delimiter.asciiValue!)
            return (values.map { $0.string(in: b) }, unterminated)
        }
    }

    func join(_ values: [String], delimiter: Character = ",") -> String {
        var out: [UInt8] = []
        for (i, value) in values.enumerated() {
            if i > 0 { out.append(delimiter.asciiValue!) }
            CSVField.append(value, delimiter: delimiter.asciiValue!, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func rfc4180Quoting() {
        #expect(split("a,\"b,c\",\"say \"\"hi\"\"\",\"line\r\nbreak\"").fields == ["a", "b,c", "say \"hi\"", "line\r\nbreak"])
        #expect(split("").fields == [""])
        #expect(split("a,,").fields == ["a", "", ""])
        #expect(split("\"\"").fields == [""])
    }

    @Test func lenientWhereReadersAreLenient() {
        #expect(split("5\" screen,x").fields == ["5\" screen", "x"])        // mid-field quote is literal
        #expect(split("\"ab\"cd,x").fields == ["abcd", "x"])                // text after the closing quote kept
        #expect(split("\"open,x").unterminated)
    }

    @Test func tabDelimiter() {
        #expect(split("a\t\"b\tc\"\td", delimiter: "\t").fields == ["a", "b\tc", "d"])
    }

    @Test func writesMinimalQuoting() {
        #expect(join(["plain", "with,comma", "say \"hi\"", "two\nlines", "", " padded"]) ==
                "plain,\"with,comma\",\"say \"\"hi\"\"\",\"two\nlines\",,\" padded\"")
        #expect(join(["a,b", "c\td"], delimiter: "\t") == "a,b\t\"c\td\"")
    }

    @Test(arguments: [["a", "b,c", "\"", "\"\"", "x\r\ny", "", "中文, ok", " s "]])
    func roundTrip(_ values: [String]) {
        #expect(split(join(values)).fields == values)
        #expect(split(join(values, delimiter: "\t"), delimiter: "\t").fields == values)
    }
}
