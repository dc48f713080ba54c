import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Converts a GPX file that declares an encoding libxml2 does not decode itself to UTF-8, before
/// `XMLParser` (libxml2 underneath, on Linux) sees it.
///
/// libxml2 2.9 (Debian 12's) hands such encodings (Shift_JIS, GB18030, ISO-2022-JP, UTF-7, …) to iconv,
/// and crashes with a NULL dereference in `xmlSwitchToEncoding` when the bytes after the declaration are
/// not valid in the declared encoding. The gpx fuzzer found it with `<?xml version="1.0" encoding="UTF7"?>`
/// followed by one 0xFF byte. So those files are converted here, strictly: bytes that are not valid in
/// the declared encoding are a `GPXParseError` naming the line, and libxml2 only ever decodes UTF-8,
/// UTF-16 or Latin-1, which it does on its own.
enum GPXEncoding {
    /// Encodings libxml2 decodes itself (names compared upper-case, without `-` and `_`).
    static let decodedByLibxml2: Set<String> = ["UTF8", "UTF16", "UTF16LE", "UTF16BE", "ISO88591", "LATIN1", "ASCII", "USASCII"]

    /// The data as libxml2 can safely read it: unchanged, or converted to UTF-8 with its declaration
    /// saying so.
    static func prepare(_ data: Data, fileName: String) throws(GPXParseError) -> Data {
        let bytes = [UInt8](data)
        let hasBOM = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        guard let declared = declaredEncoding(bytes, from: hasBOM ? 3 : 0) else { return data }
        let key = declared.name.uppercased().filter { $0 != "-" && $0 != "_" }
        if decodedByLibxml2.contains(key) { return data }
        // A UTF-8 byte-order mark says what the bytes are, whatever the declaration claims.
        if hasBOM { return Data(relabelled(bytes, declared.range)) }
        let utf8 = try convert(bytes, from: declared.name, fileName: fileName)
        guard let again = declaredEncoding(utf8, from: 0) else { return Data(utf8) }
        return Data(relabelled(utf8, again.range))
    }

    /// `bytes` with the encoding name at `range` replaced by UTF-8.
    private static func relabelled(_ bytes: [UInt8], _ range: Range<Int>) -> [UInt8] {
        var out = bytes
        out.replaceSubrange(range, with: Array("UTF-8".utf8))
        return out
    }

    /// The `encoding="…"` of an XML declaration at `start`, and where its value is.
    static func declaredEncoding(_ b: [UInt8], from start: Int) -> (name: String, range: Range<Int>)? {
        guard b.count >= start + 5, b[start..<(start + 5)].elementsEqual("<?xml".utf8) else { return nil }
        // Up to the declaration's end, or what libxml2 would read of it when it has none (it still
        // switches encodings on a declaration that is cut off).
        let limit = min(b.count, start + 1024)
        let end = (start..<limit).first { b[$0] == UInt8(ascii: ">") } ?? limit
        let key = Array("encoding".utf8)
        var i = start + 5
        while i + key.count <= end, !b[i..<(i + key.count)].elementsEqual(key) { i += 1 }
        guard i + key.count <= end else { return nil }
        i += key.count
        func skipSpace() { while i < end, [0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 } }
        skipSpace()
        guard i < end, b[i] == UInt8(ascii: "=") else { return nil }
        i += 1
        skipSpace()
        guard i < end, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else { return nil }
        let quote = b[i]
        i += 1
        let nameStart = i
        while i < end, b[i] != quote { i += 1 }
        guard i < end, i > nameStart else { return nil }
        return (String(decoding: b[nameStart..<i], as: UTF8.self), nameStart..<i)
    }

    /// Strict conversion with iconv: the first invalid or incomplete sequence is an error.
    private static func convert(_ input: [UInt8], from name: String, fileName: String) throws(GPXParseError) -> [UInt8] {
        let cd = iconv_open("UTF-8", name)
        guard cd != iconv_t(bitPattern: -1) else {
            throw GPXParseError(file: fileName, line: 1, reason: "encoding \"\(name)\" is not supported (convert the file to UTF-8)")
        }
        defer { iconv_close(cd) }
        var output = [UInt8](repeating: 0, count: input.count * 4 + 64)
        var produced = 0
        var consumed = 0
        var failed = false
        input.withUnsafeBufferPointer { inBuffer in
            while consumed < input.count {
                var inLeft = input.count - consumed
                var outLeft = output.count - produced
                let r: Int = output.withUnsafeMutableBufferPointer { outBuffer in
                    var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(
                        mutating: UnsafeRawPointer(inBuffer.baseAddress! + consumed).assumingMemoryBound(to: CChar.self))
                    var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress! + produced)
                        .assumingMemoryBound(to: CChar.self)
                    return iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                }
                consumed = input.count - inLeft
                produced = output.count - outLeft
                if r != -1 { break }
                if errno == E2BIG {
                    output += [UInt8](repeating: 0, count: output.count)
                    continue
                }
                failed = true   // EILSEQ or EINVAL: invalid or cut-off sequence
                break
            }
        }
        if failed {
            let line = input[..<consumed].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw GPXParseError(file: fileName, line: line, reason: "bytes that are not valid \(name), the encoding the file declares")
        }
        return Array(output[..<produced])
    }
}
