#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Strict parsing of decimal numbers as people write coordinates: `12.5`, `-33.86`, `+1e3`, `.5`, `5.`,
/// with spaces or tabs around them (and `48,8566` when the file uses a decimal comma). The minus may
/// also be U+2212 MINUS SIGN (`−33.86`), the one word processors and web pages typeset: it means nothing
/// but minus, so a coordinate copied from a document reads as it looks. Other dashes (en dash, hyphen)
/// are not accepted: they also write ranges and joins.
///
/// Stricter than `strtod`/`Double(_:)` on purpose: those also accept `nan`, `inf`, `0x1p3` and trailing
/// garbage handling differs, and none of those is a coordinate. The grammar is checked here, in the same
/// pass that gathers the digits; the value is always the `Double` that `strtod` gives (correctly rounded):
/// exact arithmetic when it is exact (Clinger's fast path, nearly every coordinate), `strtod` otherwise.
public enum DecimalNumber {
    /// Longest number accepted (after trimming). Real coordinates are under 30 characters.
    static let maxLength = 100

    /// The value of `bytes`, or nil when they are not a decimal number. `decimalComma`: the fraction may
    /// also be separated by `,` (`48,8566`), as European spreadsheets write it; still at most one
    /// separator, so `48`, `48.85` and `1e3` read as always, and `1.234,5` or `1,2,3` are not numbers.
    /// The one parser of every coordinate path, decimal comma or not.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, decimalComma: Bool = false) -> Double? {
        var start = 0, end = bytes.count
        while start < end, isPadding(bytes[start]) { start += 1 }
        while end > start, isPadding(bytes[end - 1]) { end -= 1 }
        let length = end - start
        guard length > 0, length <= maxLength else { return nil }
        let separator = decimalComma ? UInt8(ascii: ",") : UInt8(ascii: ".")
        if let value = plain(bytes.baseAddress!, start, end, separator) { return value }

        // One pass: `[+-]? (digits [sep digits?] | sep digits) ([eE] [+-]? digits)?`, gathering the first
        // 19 significant digits into an integer and the power of ten that scales it. `-` is also U+2212.
        var i = start
        var negative = false
        if bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        } else if bytes[i] == UInt8(ascii: "+") {
            i += 1
        } else if isMinusSign(bytes, i, end) {
            negative = true
            i += 3
        }
        var mantissa: UInt64 = 0
        var significant = 0        // digits from the first non-zero one on
        var digits = 0             // all mantissa digits, for the grammar
        var scale = 0              // power of ten of the last digit gathered
        var droppedNonZero = false // a significant digit beyond the 19th was not zero (value not exact)
        while i < end, isDigit(bytes[i]) {
            let d = bytes[i] &- 0x30
            if significant < 19 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                if mantissa != 0 { significant += 1 }
            } else {
                scale += 1
                if d != 0 { droppedNonZero = true }
            }
            digits += 1
            i += 1
        }
        if i < end, bytes[i] == UInt8(ascii: ".") || bytes[i] == separator {
            i += 1
            while i < end, isDigit(bytes[i]) {
                let d = bytes[i] &- 0x30
                if significant < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    if mantissa != 0 { significant += 1 }
                    scale -= 1
                } else if d != 0 {
                    droppedNonZero = true
                }
                digits += 1
                i += 1
            }
        }
        guard digits > 0 else { return nil }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            var exponentNegative = false
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            } else if isMinusSign(bytes, i, end) {
                exponentNegative = true
                i += 3
            }
            var exponent = 0, exponentDigits = 0
            while i < end, isDigit(bytes[i]) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[i] &- 0x30) }
                exponentDigits += 1
                i += 1
            }
            guard exponentDigits > 0 else { return nil }
            scale += exponentNegative ? -exponent : exponent
        }
        guard i == end else { return nil }

        // Clinger: the integer and the power of ten are both exact Doubles, so the one multiplication or
        // division rounds correctly, bit for bit what strtod gives.
        if !droppedNonZero, mantissa <= 1 << 53, scale >= -22, scale <= 22 {
            let m = Double(mantissa)
            let value = scale < 0 ? m / exactPowersOfTen[-scale] : m * exactPowersOfTen[scale]
            return negative ? -value : value
        }
        if mantissa == 0 && !droppedNonZero { return negative ? -0.0 : 0.0 }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer -> Double? in
            // strtod reads neither a decimal comma nor U+2212: give it '.' and '-'.
            var k = 0, j = start
            while j < end {
                if isMinusSign(bytes, j, end) {
                    buffer[k] = CChar(bitPattern: UInt8(ascii: "-"))
                    j += 3
                } else {
                    let c = bytes[j]
                    buffer[k] = CChar(bitPattern: c == UInt8(ascii: ",") ? UInt8(ascii: ".") : c)
                    j += 1
                }
                k += 1
            }
            buffer[k] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }

    /// The shape nearly every coordinate has, `[+-]? digits [sep digits]` with at most 19 digits and no
    /// exponent, in one tight loop; nil for anything else (then the general pass decides, and rejects).
    @inline(__always)
    static func plain(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ separator: UInt8) -> Double? {
        var i = start
        let negative = p[i] == UInt8(ascii: "-")
        if negative || p[i] == UInt8(ascii: "+") { i += 1 }
        let digitsStart = i
        var mantissa: UInt64 = 0
        var separatorAt = -1
        while i < end {
            let d = p[i] &- 0x30
            if d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
            } else if p[i] == separator && separatorAt < 0 {
                separatorAt = i
            } else {
                return nil
            }
            i += 1
        }
        let digits = end - digitsStart - (separatorAt < 0 ? 0 : 1)
        // 19 digits always fit a UInt64; 2^53 bounds what a Double holds exactly.
        guard digits > 0, digits <= 19, mantissa <= 1 << 53 else { return nil }
        let fraction = separatorAt < 0 ? 0 : end - separatorAt - 1
        guard fraction <= 22 else { return nil }
        let value = Double(mantissa) / exactPowersOfTen[fraction]
        return negative ? -value : value
    }

    /// The value of `text`, or nil when it is not a decimal number.
    public static func parse(_ text: String, decimalComma: Bool = false) -> Double? {
        var copy = text
        return copy.withUTF8 { parse($0, decimalComma: decimalComma) }
    }

    /// Powers of ten that a Double holds exactly: 1e0 ... 1e22.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
        1e19, 1e20, 1e21, 1e22,
    ]

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// Space or tab: what may stand around a number in a cell as people type it (` 12.5`, trimmed), and
    /// all a cell holds when it is empty but for them. Not JSON's white space: CR and LF are not padding
    /// in a CSV/TSV cell (inside a quoted value they are its text), and a JSON number has none.
    @inline(__always) static func isPadding(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    /// Whether U+2212 MINUS SIGN (UTF-8 `E2 88 92`) starts at `i`, before `end`.
    @inline(__always)
    static func isMinusSign(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> Bool {
        i + 2 < end && bytes[i] == 0xE2 && bytes[i + 1] == 0x88 && bytes[i + 2] == 0x92
    }
}
