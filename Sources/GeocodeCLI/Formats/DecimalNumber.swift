#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Strict parsing of decimal numbers as people write coordinates: `12.5`, `-33.86`, `+1e3`, `.5`, `5.`,
/// with spaces or tabs around them.
///
/// Stricter than `strtod`/`Double(_:)` on purpose: those also accept `nan`, `inf`, `0x1p3` and trailing
/// garbage handling differs, and none of those is a coordinate. The grammar is checked here, then `strtod`
/// (correctly rounded) does the conversion.
public enum DecimalNumber {
    /// Longest number accepted (after trimming). Real coordinates are under 30 characters.
    static let maxLength = 100

    /// The value of `bytes`, or nil when they are not a decimal number.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        let length = end - start
        guard length > 0, length <= maxLength, isDecimal(bytes, start, end) else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer -> Double? in
            for i in 0..<length { buffer[i] = CChar(bitPattern: bytes[start + i]) }
            buffer[length] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }

    /// The value of `text`, or nil when it is not a decimal number.
    public static func parse(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { parse($0) }
    }

    /// `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`
    static func isDecimal(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var i = start
        if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < end, isDigit(b[i]) { i += 1; digits += 1 }
        if i < end, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, isDigit(b[i]) { i += 1; digits += 1 }
        }
        guard digits > 0 else { return false }
        if i < end, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < end, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            var exponentDigits = 0
            while i < end, isDigit(b[i]) { i += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { return false }
        }
        return i == end
    }

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
}
