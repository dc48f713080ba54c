import Foundation

/// The text encodings batch input may come in. Everything is read as UTF-8; the others are transcoded to
/// it as a stream layer (``TranscodingInput``) before records are framed.
enum TextEncoding: String, Sendable, CaseIterable {
    case utf8 = "utf-8"
    case utf16LE = "utf-16le"
    case utf16BE = "utf-16be"
    /// ISO-8859-1: every byte is the code point of the same number.
    case latin1 = "latin1"
    /// Windows-1252: Latin-1 with printable characters (€, curly quotes, Œ...) in 0x80...0x9F.
    case windows1252 = "cp1252"

    /// `--encoding` values. `utf-16` alone means "by its byte-order mark" and is resolved by the caller.
    init?(name: String) {
        switch name.lowercased().replacingOccurrences(of: "_", with: "-") {
        case "utf-8", "utf8": self = .utf8
        case "utf-16le", "utf16le": self = .utf16LE
        case "utf-16be", "utf16be": self = .utf16BE
        case "latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1": self = .latin1
        case "cp1252", "windows-1252", "win1252": self = .windows1252
        default: return nil
        }
    }

    static let optionNames = "utf-8, utf-16 (by its byte-order mark), utf-16le, utf-16be, latin1, cp1252"
}
