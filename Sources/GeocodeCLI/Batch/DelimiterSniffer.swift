/// Finds the field delimiter of a delimited file from its first records: `,`, `;`, tab or `|`.
///
/// The delimiter is the candidate that splits the header (first record) into more than one field and
/// every following sampled record into the same number of fields; among those, the one with the most
/// fields, then the first in ``candidates``. A `;` file with decimal commas (`Paris;48,8566;2,3522`)
/// is thus `;`, since `,` splits its header into one field and its rows into three.
enum DelimiterSniffer {
    static let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: "\t"), UInt8(ascii: ";"), UInt8(ascii: "|")]

    /// The delimiter, or nil when no candidate is consistent (a one-column file, or ragged rows).
    static func sniff(_ sample: InputSample, rows: Int = InputSample.decidingRecords - 1) -> UInt8? {
        guard !sample.records.isEmpty else { return nil }
        var best: (delimiter: UInt8, fields: Int)?
        for candidate in candidates {
            let counts = (0..<min(sample.records.count, rows + 1)).map { sample.fields($0, delimiter: candidate).count }
            guard let first = counts.first, first > 1, counts.allSatisfy({ $0 == first }) else { continue }
            if best == nil || first > best!.fields { best = (candidate, first) }
        }
        if let best { return best.delimiter }
        // No consistent candidate: the one whose header splits into most fields, if any splits at all.
        let header = candidates.map { (delimiter: $0, fields: sample.fields(0, delimiter: $0).count) }
        let widest = header.max { $0.fields < $1.fields }!
        return widest.fields > 1 ? widest.delimiter : nil
    }

    /// `tab`, `;` — how messages and `--help` name a delimiter.
    static func name(_ delimiter: UInt8) -> String {
        switch delimiter {
        case 0x09: return "tab"
        default: return "\"\(Character(Unicode.Scalar(delimiter)))\""
        }
    }

    /// `--delimiter` values: one character, or `tab`, `\t`, `comma`, `semicolon`, `pipe`.
    static func parse(_ text: String) -> UInt8? {
        switch text.lowercased() {
        case "tab", "\\t", "\t": return 0x09
        case "comma", ",": return UInt8(ascii: ",")
        case "semicolon", ";": return UInt8(ascii: ";")
        case "pipe", "|": return UInt8(ascii: "|")
        default:
            let bytes = Array(text.utf8)
            guard bytes.count == 1, bytes[0] != UInt8(ascii: "\""), bytes[0] != 0x0A, bytes[0] != 0x0D else { return nil }
            return bytes[0]
        }
    }
}
