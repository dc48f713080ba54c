/// Appends JSON text to a byte buffer: escaped strings, and raw values with insignificant whitespace
/// removed (so a pretty-printed input feature becomes one compact output record).
enum JSONWriter {
    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    static func appendString(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        for i in 0..<text.count {
            let c = text[i]
            guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<i])) }
            runStart = i + 1
            switch c {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            default:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        hex[Int(c >> 4)], hex[Int(c & 0xF)]])
            }
        }
        if runStart < text.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...])) }
        out.append(UInt8(ascii: "\""))
    }

    static func appendString(_ text: String, to out: inout [UInt8]) {
        var copy = text
        copy.withUTF8 { appendString($0, to: &out) }
    }

    static func appendString(_ text: [UInt8], to out: inout [UInt8]) {
        text.withUnsafeBufferPointer { appendString($0, to: &out) }
    }

    /// Appends the (already validated) raw JSON value `raw` without whitespace outside strings. Inlined:
    /// it runs for every carried JSON value, and the choice of writer around it (RecordEncoder's
    /// `appendValue`) made the optimizer call it out of line.
    @inline(__always)
    static func appendMinified(_ bytes: UnsafeBufferPointer<UInt8>, _ raw: Range<Int>, to out: inout [UInt8]) {
        var inString = false, escaped = false
        var runStart = raw.lowerBound
        var i = raw.lowerBound
        while i < raw.upperBound {
            let c = bytes[i]
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if JSONScanner.isWhitespace(c) {
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                runStart = i + 1
            }
            i += 1
        }
        if runStart < raw.upperBound { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<raw.upperBound])) }
    }
}
