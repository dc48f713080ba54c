#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import GeocodeCLI
import GeoModel
import Testing

/// The parser's value must be strtod's, bit for bit, on every input its grammar accepts: the oracle is
/// the C library's correctly rounded strtod, never our own arithmetic.
@Suite struct DecimalNumberTests {
    @Test(arguments: [("12.5", 12.5), ("-33.86", -33.86), ("+1e3", 1000), (".5", 0.5), ("5.", 5), (" 7 ", 7),
                      ("\t-0\t", 0), ("1E-2", 0.01), ("151.2000000000000001", 151.2)])
    func accepts(_ text: String, _ value: Double) {
        #expect(DecimalNumber.parse(text) == value)
    }

    @Test(arguments: ["", " ", "abc", "NaN", "nan", "inf", "-Infinity", "0x1p3", "1,5", "1.2.3", "1e", "--1", "+", ".", "1 2",
                      "12abc", "+-1", "1e+", "1e-", "e5", ".e5", "1.5e3.2", "1_000", "١٢", "1e5x", " - 1", "0x10"])
    func rejects(_ text: String) {
        #expect(DecimalNumber.parse(text) == nil)
    }

    @Test func longerThan100CharactersIsNotACoordinate() {
        #expect(DecimalNumber.parse(String(repeating: "1", count: 101)) == nil)
        #expect(DecimalNumber.parse(String(repeating: "1", count: 100)) == strtod(String(repeating: "1", count: 100), nil))
    }

    /// U+2212 MINUS SIGN, as word processors and web pages typeset `-`: the value is strtod's of the same
    /// text written with '-', bit for bit, on the fast path, Clinger's and strtod's alike.
    @Test(arguments: ["−33.86", "−0.5", "−0", "−1e3", "1e−2", "−1E−2", " −7 ", "\t−151.2000000000000001",
                      "−9007199254740993", "−1.00000000000000011102230246251565404236316680908203125", "−1e400", "2.5e−324"])
    func typographicMinusIsAMinus(_ text: String) {
        let ascii = text.replacingOccurrences(of: "\u{2212}", with: "-")
        #expect(DecimalNumber.parse(text) != nil, "\(text)")
        #expect(DecimalNumber.parse(text)?.bitPattern == strtod(ascii, nil).bitPattern, "\(text)")
        #expect(DecimalNumber.parse(text.replacingOccurrences(of: ".", with: ","), decimalComma: true)?.bitPattern
                == strtod(ascii, nil).bitPattern, "\(text) with a decimal comma")
    }

    /// Only U+2212 means minus: other dashes also write ranges and joins, and a sign is still one sign.
    @Test(arguments: ["–33.86", "—33.86", "‐33.86", "‑33.86", "－33.86", "﹣33.86", "−−1", "-−1", "−-1", "−+1", "+−1",
                      "−", "− 1", "1−2", "1e−", "−.", "−e5", "1e−−2", "33.86−"])
    func otherDashesAndDoubledSignsAreNot(_ text: String) {
        #expect(DecimalNumber.parse(text) == nil, "\(text)")
    }

    @Test func overflowIsInfiniteNotAnError() {
        // The grammar is fine; range checks later call it out of range, in the digits as written.
        #expect(DecimalNumber.parse("1e400") == .infinity)
        #expect(DecimalNumber.parse("-1e400") == -.infinity)
    }

    @Test func negativeZeroKeepsItsSign() {
        for text in ["-0", "-0.0", "-.0", "-0e5", "-0.000e-400", "-00000000000000000000000"] {
            #expect(DecimalNumber.parse(text)?.bitPattern == (-0.0).bitPattern, "\(text)")
        }
        #expect(DecimalNumber.parse("0")?.bitPattern == 0)
        #expect(DecimalNumber.parse("+0.0")?.bitPattern == 0)
    }

    @Test func decimalComma() {
        #expect(DecimalNumber.parse("48,8566", decimalComma: true) == 48.8566)
        #expect(DecimalNumber.parse(" -2,3522 ", decimalComma: true) == -2.3522)
        #expect(DecimalNumber.parse("1,5e2", decimalComma: true) == 150)
        // A point still reads in a decimal-comma file (one parser for both: `48` and `48.85` as always);
        // both separators in one number do not.
        #expect(DecimalNumber.parse("48.8566", decimalComma: true) == 48.8566)
        #expect(DecimalNumber.parse("1.234,5", decimalComma: true) == nil)
        #expect(DecimalNumber.parse("1,234.5", decimalComma: true) == nil)
        #expect(DecimalNumber.parse("48,8566") == nil)
        // The strtod fallback gets a '.', whatever the file wrote.
        #expect(DecimalNumber.parse("0,12345678901234567890123", decimalComma: true) == strtod("0.12345678901234567890123", nil))
    }

    /// Inputs chosen to break fast paths: halfway cases between two Doubles, more digits than a Double
    /// holds, the edges of the exact powers of ten, subnormals, overflow and underflow.
    @Test(arguments: [
        "9007199254740993", "9007199254740993.0", "9007199254740992.5", "9007199254740991", "9007199254740994",
        "18014398509481985", "0.1", "0.2", "0.3", "1e22", "1e23", "1e-22", "1e-23", "9007199254740991e22",
        "9007199254740993e-22", "123456789012345678", "1234567890123456789", "12345678901234567890",
        "1.00000000000000011102230246251565404236316680908203125", // halfway between 1 and its successor
        "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126",
        "2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308", "4.9e-324", "5e-324",
        "2.4703282292062327e-324", "2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623158e308",
        "1.7976931348623159e308",
        // 100 characters, the longest accepted (maxLength): 2^53 + 1 with 83 more zeros, a halfway case.
        "9007199254740993" + String(repeating: "0", count: 83) + ".",
        "0.000000000000000000000000000000000000000000000001", "00000000000000000000000000000045.5",
        "45.50000000000000000000000000000", "-179.99999999999999999", "89.999999999999999999999",
        "0.1e1", "1000000000000000000000e-21", "7.038531e-26", "3.9999999999999999e0", "8.98846567431158e307",
        "+.5", "-5.", "   12.345678901234567   ", "1e-400", "1e+400", "1e0000000000000000000000001", "1e-0000000000000000001",
        "4503599627370496.5", "4503599627370497.5", "2.5e-324", "1.5e-323",
    ])
    func trickyInputsMatchStrtod(_ text: String) {
        // strtod skips the leading spaces and stops at the trailing ones: the same number.
        #expect(DecimalNumber.parse(text)?.bitPattern == strtod(text, nil).bitPattern, "\(text)")
    }

    /// Two million random decimal strings of every shape the grammar accepts: the parser's Double is
    /// strtod's for each. Built as bytes (no String per case) so the test stays quick.
    @Test func millionsOfRandomDecimalsMatchStrtod() {
        var random = SplitMix64(seed: 0x17_0001)
        var text = [UInt8](repeating: 0, count: 80)
        var mismatches: [String] = []
        for _ in 0..<2_000_000 {
            var n = 0
            switch random.next() % 3 {
            case 0: text[n] = UInt8(ascii: "-"); n += 1
            case 1 where random.next() % 4 == 0: text[n] = UInt8(ascii: "+"); n += 1
            default: break
            }
            // Digit counts around the 15/17/19-digit limits, and long ones now and then.
            let shape = random.next() % 16
            let digits = shape == 0 ? Int(1 + random.next() % 40) : Int(1 + random.next() % 20)
            let point = Int(random.next() % UInt64(digits + 2)) - 1   // -1: no point
            let leadingZeros = random.next() % 8 == 0 ? Int(random.next() % 25) : 0
            for _ in 0..<leadingZeros { text[n] = UInt8(ascii: "0"); n += 1 }
            for d in 0..<digits {
                if d == point { text[n] = UInt8(ascii: "."); n += 1 }
                text[n] = UInt8(ascii: "0") + UInt8(random.next() % 10); n += 1
            }
            if point == digits { text[n] = UInt8(ascii: "."); n += 1 }
            if random.next() % 3 == 0 {
                text[n] = random.next() % 2 == 0 ? UInt8(ascii: "e") : UInt8(ascii: "E"); n += 1
                let sign = random.next() % 3
                if sign == 0 { text[n] = UInt8(ascii: "-"); n += 1 } else if sign == 1 { text[n] = UInt8(ascii: "+"); n += 1 }
                // Mostly within Clinger's ±22, sometimes to the subnormal and overflow ends.
                let exponent = random.next() % 4 == 0 ? random.next() % 340 : random.next() % 30
                for c in String(exponent).utf8 { text[n] = c; n += 1 }
            }
            text[n] = 0
            let ours = text.withUnsafeBufferPointer { DecimalNumber.parse(UnsafeBufferPointer(rebasing: $0[..<n])) }
            let theirs = text.withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: n + 1) { strtod($0, nil) }
            }
            if ours?.bitPattern != theirs.bitPattern, mismatches.count < 10 {
                mismatches.append(String(decoding: text[..<n], as: UTF8.self))
            }
        }
        #expect(mismatches.isEmpty, "differ from strtod: \(mismatches)")
    }

    /// Coordinates as files write them (up to 9 decimals, the fast path's home ground): all exact.
    @Test func coordinateShapedDecimalsMatchStrtod() {
        var random = SplitMix64(seed: 0x17_0002)
        for _ in 0..<200_000 {
            let decimals = Int(random.next() % 10)
            let value = Double(random.next() % 360_000_000_000) / 1e9 - 180
            let text = decimals == 0 ? String(Int(value)) : String(format: "%.\(decimals)f", value)
            #expect(DecimalNumber.parse(text)?.bitPattern == strtod(text, nil).bitPattern, "\(text)")
        }
    }
}
