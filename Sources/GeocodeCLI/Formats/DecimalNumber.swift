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
        if let fast = exactSmallDecimal(bytes, start, end) { return fast }
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

    /// Powers of ten that a Double holds exactly.
    private static let exactPowersOfTen: [Double] = (0...22).map { (0..<$0).reduce(1.0) { x, _ in x * 10 } }

    /// The common case, `-33.868820`, without strtod: at most 15 significant digits, no exponent. Then the
    /// digits as an integer and the power of ten are both exact Doubles, and the one division rounds
    /// correctly, so the result is bit-identical to strtod's (Clinger's fast path).
    @inline(__always)
    static func exactSmallDecimal(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var i = start
        var negative = false
        if b[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if b[i] == UInt8(ascii: "+") { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, fractionDigits = 0
        var inFraction = false
        while i < end {
            let c = b[i]
            if isDigit(c) {
                mantissa = mantissa &* 10 &+ UInt64(c &- 0x30)
                digits += 1
                if inFraction { fractionDigits += 1 }
            } else if c == UInt8(ascii: ".") && !inFraction {
                inFraction = true
            } else {
                return nil   // exponent: leave it to strtod
            }
            i += 1
        }
        guard digits <= 15, fractionDigits <= 22 else { return nil }
        let value = Double(mantissa) / exactPowersOfTen[fractionDigits]
        return negative ? -value : value
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
