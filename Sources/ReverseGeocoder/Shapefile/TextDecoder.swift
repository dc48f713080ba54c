import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Decodes DBF attribute bytes to Swift strings in the file's encoding, strictly: bytes that are not
/// valid in the encoding are an error, never replacement characters (mojibake hides data problems).
///
/// UTF-8 and Latin-1 are decoded in Swift; everything else (GBK/CP936, CP1252, CP437, ...) through the
/// C library's iconv, which knows every code page a shapefile is likely to use.
final class TextDecoder {
    enum Encoding: Equatable {
        case utf8
        case latin1
        case iconv(String)
    }

    let encoding: Encoding
    /// The name shown in errors.
    let name: String
    private var converter: iconv_t?

    init(encoding: Encoding, name: String, file: String) throws {
        self.encoding = encoding
        self.name = name
        if case .iconv(let from) = encoding {
            let cd = iconv_open("UTF-8", from)
            if cd == iconv_t(bitPattern: -1) {
                throw GeocoderError.unsupportedEncoding(file: file, encoding: from)
            }
            converter = cd
        }
    }

    deinit {
        if let converter { iconv_close(converter) }
    }

    /// The encoding a `.cpg` file names (its content, e.g. "UTF-8", "GBK", "CP936", "1252", "ISO-8859-1").
    static func encoding(cpg text: String) -> (Encoding, String) {
        let raw = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let key = raw.uppercased().filter { $0.isLetter || $0.isNumber }
        switch key {
        case "UTF8", "65001", "": return (.utf8, "UTF-8")
        case "ISO88591", "LATIN1", "88591", "28591": return (.latin1, "ISO-8859-1")
        // GB18030 is a strict superset of GBK/CP936/GB2312: decoding with it accepts all of them.
        case "GBK", "CP936", "936", "GB2312", "GB18030", "EUCCN", "ANSI936": return (.iconv("GB18030"), "GBK")
        case "1252", "CP1252", "WINDOWS1252", "ANSI1252": return (.iconv("CP1252"), "CP1252")
        case "BIG5", "CP950", "950": return (.iconv("BIG5"), "BIG5")
        default:
            if key.allSatisfy(\.isNumber) { return (.iconv("CP\(key)"), "CP\(key)") }
            return (.iconv(raw), raw)
        }
    }

    /// The encoding named by the DBF language driver id (byte 29), where there is no `.cpg`.
    /// Returns nil for 0 (not declared). Values from the dBase/ESRI code page table.
    static func encoding(languageDriver ldid: UInt8) -> (Encoding, String)? {
        switch ldid {
        case 0: return nil
        case 0x01: return (.iconv("CP437"), "CP437")
        case 0x02: return (.iconv("CP850"), "CP850")
        case 0x03, 0x57, 0x58, 0x59: return (.iconv("CP1252"), "CP1252")
        case 0x4D, 0x7A: return (.iconv("GB18030"), "GBK")
        case 0x4E, 0x79: return (.iconv("CP949"), "CP949")
        case 0x4F, 0x78: return (.iconv("BIG5"), "BIG5")
        case 0x13, 0x7B: return (.iconv("CP932"), "CP932")
        case 0x64: return (.iconv("CP852"), "CP852")
        case 0x65: return (.iconv("CP866"), "CP866")
        case 0xC8: return (.iconv("CP1250"), "CP1250")
        case 0xC9: return (.iconv("CP1251"), "CP1251")
        default: return nil
        }
    }

    /// Decodes `count` bytes; nil when they are not valid in this encoding.
    func decode(_ bytes: UnsafePointer<CChar>, count: Int) -> String? {
        let buffer = UnsafeBufferPointer(start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: count)
        // Pure ASCII is the same in every encoding we accept: the common case, decoded without iconv.
        if buffer.allSatisfy({ $0 < 0x80 }) { return String(decoding: buffer, as: UTF8.self) }
        switch encoding {
        case .utf8:
            return String(validating: buffer, as: UTF8.self)
        case .latin1:
            return String(String.UnicodeScalarView(buffer.map { Unicode.Scalar($0) }))
        case .iconv:
            return convert(buffer)
        }
    }

    private func convert(_ input: UnsafeBufferPointer<UInt8>) -> String? {
        guard let converter else { return nil }
        iconv(converter, nil, nil, nil, nil)  // reset shift state
        var out = [UInt8](repeating: 0, count: input.count * 4 + 8)
        var inLeft = input.count
        var outLeft = out.count
        let ok: Bool = out.withUnsafeMutableBufferPointer { o in
            var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: UnsafeRawPointer(input.baseAddress!).assumingMemoryBound(to: CChar.self))
            var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(o.baseAddress!).assumingMemoryBound(to: CChar.self)
            let r = iconv(converter, &inPtr, &inLeft, &outPtr, &outLeft)
            return r != -1 && inLeft == 0
        }
        guard ok else { return nil }
        return String(validating: out[0..<(out.count - outLeft)], as: UTF8.self)
    }
}
