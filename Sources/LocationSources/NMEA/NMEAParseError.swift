/// Why a line was not accepted as an NMEA 0183 sentence.
///
/// Every rejection names what was wrong so a log can say which receiver misbehaves; none of these
/// is fatal to a stream: the reader reports the line and carries on with the next one.
public enum NMEAParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing between the line terminators.
    case empty
    /// The line does not begin with `$` (or `!` for encapsulated sentences such as AIS).
    case missingStartDelimiter
    /// Longer than the parser's `maximumLength` (NMEA allows 82 bytes; real receivers reach ~100).
    case tooLong(length: Int, limit: Int)
    /// A byte NMEA does not allow inside a sentence (control characters, 8-bit bytes, a second `$`).
    case invalidCharacter(UInt8, offset: Int)
    /// No `*hh` checksum, and the parser is strict.
    case missingChecksum
    /// `*` not followed by exactly two hexadecimal digits (uppercase unless lenient) and the end.
    case malformedChecksum
    /// The checksum does not match the sentence: it was damaged on the way.
    case checksumMismatch(expected: UInt8, computed: UInt8)
    /// A new sentence started before this one ended (a receiver or line dropped bytes).
    case truncated
    /// The address field (`GPGGA`, `PGRME`, …) is not 2–15 uppercase letters or digits.
    case malformedAddress
    /// A known sentence with fewer fields than its definition; usually cut off.
    case tooFewFields(sentence: String, count: Int, required: Int)
    /// A field that is present but cannot mean anything (letters in a latitude, month 13, …).
    case invalidField(sentence: String, index: Int)

    public var description: String {
        switch self {
        case .empty: return "empty line"
        case .missingStartDelimiter: return "does not start with '$' or '!'"
        case .tooLong(let length, let limit): return "sentence of \(length) bytes is longer than \(limit)"
        case .invalidCharacter(let byte, let offset):
            return "invalid byte 0x\(NMEAChecksum.hex(byte)) at offset \(offset)"
        case .missingChecksum: return "no *hh checksum"
        case .malformedChecksum: return "checksum is not two hex digits at the end"
        case .checksumMismatch(let expected, let computed):
            return "checksum mismatch: sentence says \(NMEAChecksum.hex(expected)), content gives \(NMEAChecksum.hex(computed))"
        case .truncated: return "sentence cut off by the start of another"
        case .malformedAddress: return "malformed address field"
        case .tooFewFields(let sentence, let count, let required):
            return "\(sentence) has \(count) fields, needs \(required)"
        case .invalidField(let sentence, let index): return "\(sentence) field \(index) is malformed"
        }
    }
}
