/// Reading and writing single CSV/TSV fields (RFC 4180 quoting, with the delimiter as a parameter).
enum CSVField {
    /// Appends `value` as one field: quoted, with quotes doubled, when it contains the delimiter, a quote,
    /// CR or LF (or starts or ends with a space, which some readers would otherwise trim); verbatim otherwise.
    static func append(_ value: UnsafeBufferPointer<UInt8>, delimiter: UInt8, to out: inout [UInt8]) {
        var needsQuotes = false
        for c in value where c == delimiter || c == UInt8(ascii: "\"") || c == 0x0A || c == 0x0D {
            needsQuotes = true
            break
        }
        if !needsQuotes, let first = value.first, let last = value.last, first == 0x20 || last == 0x20 {
            needsQuotes = true
        }
        guard needsQuotes else {
            out.append(contentsOf: value)
            return
        }
        out.append(UInt8(ascii: "\""))
        for c in value {
            out.append(c)
            if c == UInt8(ascii: "\"") { out.append(c) }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func append(_ value: String, delimiter: UInt8, to out: inout [UInt8]) {
        var copy = value
        copy.withUTF8 { append($0, delimiter: delimiter, to: &out) }
    }

    static func append(_ value: [UInt8], delimiter: UInt8, to out: inout [UInt8]) {
        value.withUnsafeBufferPointer { append($0, delimiter: delimiter, to: &out) }
    }

    /// Splits one record (its bytes without the line terminator) into field values, undoing the quoting.
    ///
    /// Lenient where RFC 4180 is silent or strict, the way common readers are: a quote in the middle of an
    /// unquoted field is a literal character, and text after a closing quote (`"ab"cd`) is kept (`abcd`).
    /// Returns nil for `unterminated` when a quoted field runs to the end of the record.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, _ record: Range<Int>, delimiter: UInt8)
        -> (fields: [CSVValue], unterminated: Bool) {
        var fields: [CSVValue] = []
        var i = record.lowerBound
        let end = record.upperBound
        while true {
            if i < end, bytes[i] == UInt8(ascii: "\"") {
                // Quoted field: copy out the content, undoing "" and keeping any text after the closing quote.
                var value: [UInt8] = []
                i += 1
                var closed = false
                while i < end {
                    let c = bytes[i]
                    if c == UInt8(ascii: "\"") {
                        if i + 1 < end, bytes[i + 1] == UInt8(ascii: "\"") {
                            value.append(c)
                            i += 2
                            continue
                        }
                        i += 1
                        closed = true
                        break
                    }
                    value.append(c)
                    i += 1
                }
                if !closed {
                    fields.append(CSVValue(owned: value))
                    return (fields, true)
                }
                while i < end, bytes[i] != delimiter {
                    value.append(bytes[i])
                    i += 1
                }
                fields.append(CSVValue(owned: value))
            } else {
                let start = i
                while i < end, bytes[i] != delimiter { i += 1 }
                fields.append(CSVValue(span: start..<i))
            }
            if i >= end { return (fields, false) }
            i += 1   // the delimiter; a trailing delimiter means one more (empty) field
        }
    }
}
