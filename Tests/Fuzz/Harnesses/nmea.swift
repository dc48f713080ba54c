// libFuzzer harness: one NMEA 0183 sentence through NMEAParser (strict and lenient).
//
// Invariants, each checked against a reference written here independently of the parser:
// - a sentence is accepted only if its checksum is right (recomputed here from the bytes): a bad
//   checksum never yields a sentence, let alone a position;
// - lenient accepts a missing checksum, never a wrong one;
// - a position is a valid coordinate, never the zero-filled 0,0, and equals the value read here
//   from the sentence's own latitude/longitude fields (ddmm.mmmm + hemisphere) to 1e-9 degrees;
// - parsing a String and parsing its bytes give the same answer.
import Foundation
@testable import LocationSources

private let strict = NMEAParser()
private let lenient = NMEAParser(options: .lenient)

/// The reference checksum rule: `$` or `!`, printable body (no `$`/`!`), then `*` and two hex digits
/// equal to the XOR of the body; or, when `allowMissing`, no `*` at all.
private func referenceAccepts(_ input: UnsafeBufferPointer<UInt8>, lowercase: Bool, allowMissing: Bool) -> Bool {
    var end = input.count
    while end > 0, input[end - 1] == 0x0A || input[end - 1] == 0x0D { end -= 1 }
    guard end > 0, input[0] == UInt8(ascii: "$") || input[0] == UInt8(ascii: "!") else { return false }
    var sum: UInt8 = 0
    var i = 1
    while i < end, input[i] != UInt8(ascii: "*") {
        let b = input[i]
        if b < 0x20 || b > 0x7E || b == UInt8(ascii: "$") || b == UInt8(ascii: "!") { return false }
        sum ^= b
        i += 1
    }
    if i == end { return allowMissing }
    guard end - i == 3 else { return false }
    let digits = lowercase ? "0123456789ABCDEFabcdef" : "0123456789ABCDEF"
    let text = String(decoding: input[(i + 1)..<end], as: UTF8.self)
    guard text.allSatisfy({ digits.contains($0) }), let value = UInt8(text, radix: 16) else { return false }
    return value == sum
}

/// The fields of the body (between the delimiter and `*`), split on commas.
private func fields(_ input: UnsafeBufferPointer<UInt8>) -> [String] {
    var end = input.count
    if let star = input.firstIndex(of: UInt8(ascii: "*")) { end = star }
    while end > 0, input[end - 1] == 0x0A || input[end - 1] == 0x0D { end -= 1 }
    return String(decoding: input[1..<max(1, end)], as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
}

/// `ddmm.mmmm` / `dddmm.mmmm` with its hemisphere, read the obvious way with Double.
private func referenceAngle(_ text: String, _ hemisphere: String, positive: String, negative: String) -> Double? {
    guard let value = Double(text), text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return nil }
    let degrees = (value / 100).rounded(.towardZero)
    let angle = degrees + (value - degrees * 100) / 60
    switch hemisphere {
    case positive: return angle
    case negative: return -angle
    default: return nil
    }
}

private func checkPosition(_ sentence: NMEASentence, _ input: UnsafeBufferPointer<UInt8>) {
    guard let c = sentence.fixCoordinate else { return }
    check(c.isValid, "invalid coordinate \(c) from \(excerpt(input))")
    check(!(c.latitude == 0 && c.longitude == 0), "zero-filled position accepted: \(excerpt(input))")
    let f = fields(input)
    let first: Int
    switch sentence {
    case .gga, .gns: first = 2
    case .rmc: first = 3
    case .gll: first = 1
    default: violation("fixCoordinate on \(sentence.address)")
    }
    guard f.count > first + 3,
          let lat = referenceAngle(f[first], f[first + 1], positive: "N", negative: "S"),
          let lon = referenceAngle(f[first + 2], f[first + 3], positive: "E", negative: "W")
    else { violation("position from fields the reference cannot read: \(excerpt(input))") }
    check(abs(lat - c.latitude) < 1e-9 && abs(lon - c.longitude) < 1e-9,
          "position \(c) but the fields say (\(lat), \(lon)): \(excerpt(input))")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    let s = strict.parseResult(input)
    if case .success(let sentence) = s {
        check(referenceAccepts(input, lowercase: false, allowMissing: false), "strict parser accepted \(excerpt(input))")
        checkPosition(sentence, input)
    }
    let l = lenient.parseResult(input)
    if case .success(let sentence) = l {
        check(referenceAccepts(input, lowercase: true, allowMissing: true), "lenient parser accepted \(excerpt(input))")
        checkPosition(sentence, input)
    }
    // Anything strict accepts, lenient accepts identically.
    if case .success(let a) = s { check(l == .success(a), "strict accepted, lenient said \(l): \(excerpt(input))") }
    // The String entry point agrees with the byte one (for input that is a String unchanged).
    if let text = String(validating: input, as: UTF8.self) {
        let viaString: Result<NMEASentence, NMEAParseError> = Result { () throws(NMEAParseError) in try strict.parse(text) }
        check(viaString == s, "parse(String) \(viaString) but parse(bytes) \(s): \(excerpt(input))")
    }
    return 0
}
