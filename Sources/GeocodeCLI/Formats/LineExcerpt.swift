/// How a message quotes input text it cannot know the size of (a line, the fields beyond a row's
/// columns): at most ``limit`` bytes, cut at a character boundary, with the whole length when cut, so a
/// 50 MB line costs a 200-byte message.
enum LineExcerpt {
    static let limit = 200

    /// `"text"` with quotes and control characters escaped; `"first 200 bytes…" (50,000,000 bytes)` when longer.
    static func quote(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var end = min(bytes.count, limit)
        // Do not cut a UTF-8 sequence: back up to the start of the character that crosses the limit.
        if end < bytes.count { while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 } }
        var out = "\""
        for scalar in String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self).unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += "\\u{\(String(scalar.value, radix: 16))}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        if end < bytes.count { return out + "…\" (\(NumberFormatting.grouped(bytes.count)) bytes)" }
        return out + "\""
    }

    static func quote(_ bytes: [UInt8]) -> String { bytes.withUnsafeBufferPointer { quote($0) } }
}
