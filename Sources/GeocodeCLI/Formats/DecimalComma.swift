/// Numbers written with a decimal comma (`48,8566`, `-0,5`), as European spreadsheets export them.
enum DecimalComma {
    /// The value of `bytes` read with a decimal comma: exactly one `,` and no `.`, otherwise the usual
    /// grammar (so `48`, `48.85` and `1e3` read as always; `1.234,5` and `1,2,3` are not numbers).
    /// The one function the decoder calls for `--decimal-comma` values.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var comma = -1
        for i in bytes.indices {
            let c = bytes[i]
            if c == UInt8(ascii: ",") {
                guard comma < 0 else { return nil }
                comma = i
            } else if c == UInt8(ascii: ".") {
                if comma >= 0 { return nil }
            }
        }
        guard comma >= 0 else { return DecimalNumber.parse(bytes) }
        if bytes[..<comma].contains(UInt8(ascii: ".")) { return nil }
        guard bytes.count <= DecimalNumber.maxLength + 2 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { copy -> Double? in
            for i in bytes.indices { copy[i] = i == comma ? UInt8(ascii: ".") : bytes[i] }
            return DecimalNumber.parse(UnsafeBufferPointer(copy))
        }
    }

    static func parse(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { parse($0) }
    }

    /// Whether the sampled values of `columns` prove a decimal comma: some hold one (`48,8566`) and
    /// none a decimal point. Whole numbers prove nothing either way.
    static func provenBy(_ sample: InputSample, rows: [Range<Int>], columns: [Int], delimiter: UInt8) -> Bool {
        var commas = 0
        for record in rows {
            let values = sample.bytes.withUnsafeBufferPointer { b in
                CSVField.split(b, record, delimiter: delimiter).fields.map { $0.string(in: b) }
            }
            for column in columns where column < values.count {
                let value = values[column]
                if value.contains(".") && DecimalNumber.parse(value) != nil { return false }
                if value.contains(",") && parse(value) != nil { commas += 1 }
            }
        }
        return commas > 0
    }
}
