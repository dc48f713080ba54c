import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Prepares GPX bytes for `XMLParser` (libxml2 and FoundationXML underneath, on Linux), which crash on
/// some inputs: files in encodings libxml2 does not decode itself are converted to UTF-8 first, and
/// processing instructions without data are padded (see ``guardProcessingInstructions(_:fileName:)``).
///
/// libxml2 2.9 (Debian 12's) hands such encodings (Shift_JIS, GB18030, ISO-2022-JP, UTF-7, …) to iconv,
/// and crashes with a NULL dereference in `xmlSwitchToEncoding` when the bytes after the declaration are
/// not valid in the declared encoding. The gpx fuzzer found it with `<?xml version="1.0" encoding="UTF7"?>`
/// followed by one 0xFF byte. So those files are converted here, strictly: bytes that are not valid in
/// the declared encoding are a `GPXParseError` naming the line, and libxml2 only ever decodes UTF-8,
/// UTF-16 or Latin-1, which it does on its own.
enum GPXEncoding {
    /// Encoding names libxml2 decodes with its own built-in handlers, upper-case, exactly as spelled
    /// (a variant such as `UT-F8` goes to iconv). UTF-16 declared in bytes that are not UTF-16 is ignored
    /// by libxml2; UTF-16/32 text itself is converted before this is consulted.
    static let decodedByLibxml2: Set<String> = ["UTF-8", "UTF8", "UTF-16", "UTF16", "ISO-8859-1", "ISO-LATIN-1", "ASCII", "US-ASCII"]

    /// The data as libxml2 and FoundationXML can safely read it: converted to UTF-8 (or left in Latin-1
    /// or ASCII), its declaration saying so, with no processing instruction lacking data and no entity
    /// declarations (see ``guardProcessingInstructions(_:fileName:)``).
    static func prepare(_ data: Data, fileName: String) throws(GPXParseError) -> Data {
        var bytes = try asciiCompatible([UInt8](data), fileName: fileName)
        let hasBOM = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        if let declared = declaredEncoding(bytes, from: hasBOM ? 3 : 0),
           !decodedByLibxml2.contains(declared.name.uppercased()) {
            if hasBOM {
                // A UTF-8 byte-order mark says what the bytes are, whatever the declaration claims.
                bytes = relabelled(bytes, declared.range)
            } else {
                bytes = try convert(bytes, from: declared.name, fileName: fileName)
                if let again = declaredEncoding(bytes, from: 0) { bytes = relabelled(bytes, again.range) }
            }
        }
        return Data(try guardProcessingInstructions(bytes, fileName: fileName))
    }

    /// UTF-16 and UTF-32 text (by byte-order mark, or by how `<?` looks in it, as libxml2 detects them)
    /// converted to UTF-8, so the checks here can read the markup byte by byte.
    private static func asciiCompatible(_ bytes: [UInt8], fileName: String) throws(GPXParseError) -> [UInt8] {
        let signatures: [([UInt8], String)] = [
            ([0x00, 0x00, 0xFE, 0xFF], "UTF-32"), ([0xFF, 0xFE, 0x00, 0x00], "UTF-32"),
            ([0xFE, 0xFF], "UTF-16"), ([0xFF, 0xFE], "UTF-16"),
            ([0x00, 0x00, 0x00, 0x3C], "UTF-32BE"), ([0x3C, 0x00, 0x00, 0x00], "UTF-32LE"),
            ([0x00, 0x3C, 0x00, 0x3F], "UTF-16BE"), ([0x3C, 0x00, 0x3F, 0x00], "UTF-16LE"),
        ]
        guard let (_, name) = signatures.first(where: { bytes.starts(with: $0.0) }) else { return bytes }
        var utf8 = try convert(bytes, from: name, fileName: fileName)
        if utf8.starts(with: [0xEF, 0xBB, 0xBF]) { utf8.removeFirst(3) }
        if let declared = declaredEncoding(utf8, from: 0) { utf8 = relabelled(utf8, declared.range) }
        return utf8
    }

    /// FoundationXML (Swift 6.3.1) calls `strlen` on a processing instruction's data without checking
    /// for NULL, which is what libxml2 passes for one with no data (`<?x?>`): a crash, in the prolog, in
    /// the document or in an entity's replacement text (found by the gpx fuzzer). With a space before
    /// the `?>` the data is empty instead, which means the same, so such instructions get one, wherever
    /// they are except inside a CDATA section, where `<?x?>` is text. Entity declarations are refused
    /// outright: their values can spell a `<?x?>` with character references, GPX has no use for them,
    /// and refusing them also shuts out entity-expansion bombs.
    ///
    /// A `<![CDATA[` is only text (not a section, and so no reason to leave what follows alone) inside
    /// a comment, a processing instruction's data, a tag or a DOCTYPE, as the fuzzer found with
    /// `<?a <![CDATA[ ?> <?x?>`: so the scan follows those, as libxml2 does, and skips a section only
    /// where it starts in content. Anywhere else padding an instruction is harmless: it changes a
    /// comment's or an instruction's text at most, or bytes libxml2 refuses anyway.
    static func guardProcessingInstructions(_ bytes: [UInt8], fileName: String) throws(GPXParseError) -> [UInt8] {
        let n = bytes.count
        func starts(_ text: String, at i: Int) -> Bool {
            let t = text.utf8
            return i + t.count <= n && bytes[i..<(i + t.count)].elementsEqual(t)
        }
        let lt = UInt8(ascii: "<"), gt = UInt8(ascii: ">"), question = UInt8(ascii: "?")
        let quotes: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "'")]
        let spaces: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        /// Where a `<?x?>` starting at `i` has its `?>`, when it has no data (nor space before `?>`).
        func emptyInstruction(at i: Int) -> Int? {
            guard i + 1 < n, bytes[i] == lt, bytes[i + 1] == question else { return nil }
            var j = i + 2
            while j < n, bytes[j] != question, !spaces.contains(bytes[j]) { j += 1 }
            return j > i + 2 && starts("?>", at: j) ? j : nil
        }
        func line(at i: Int) -> Int { bytes[..<i].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) } }

        enum Where { case content, tag, comment, instruction, doctype }
        var place = Where.content
        var inDoctype = false      // a comment or an instruction inside a DOCTYPE returns there
        var subset = false         // inside the DOCTYPE's [internal subset]
        var quote: UInt8?          // inside a quoted value of a tag or a DOCTYPE
        var out: [UInt8] = []
        out.reserveCapacity(n + 16)
        var i = 0
        while i < n {
            if let j = emptyInstruction(at: i) {
                out += bytes[i..<j]
                out.append(0x20)
                i = j               // its `?>` is read below, by whatever it ends
                continue
            }
            let c = bytes[i]
            switch place {
            case .content:
                guard c == lt else { break }
                if starts("<![CDATA[", at: i) {
                    var end = i + 9
                    while end < n, !starts("]]>", at: end) { end += 1 }
                    end = min(n, end + 3)
                    out += bytes[i..<end]
                    i = end
                    continue
                }
                if starts("<!ENTITY", at: i) {
                    throw GPXParseError(file: fileName, line: line(at: i), reason: "entity declarations (<!ENTITY) are not supported in GPX files")
                }
                if starts("<!--", at: i) {
                    place = .comment
                    out += bytes[i..<(i + 4)]
                    i += 4
                    continue
                }
                if starts("<?", at: i) {
                    place = .instruction
                    out += bytes[i..<(i + 2)]
                    i += 2
                    continue
                }
                if starts("<!DOCTYPE", at: i) {
                    place = .doctype
                    inDoctype = true
                } else {
                    place = .tag    // a start or end tag, or markup libxml2 refuses
                }
            case .tag:
                if let q = quote {
                    if c == q { quote = nil }
                } else if quotes.contains(c) {
                    quote = c
                } else if c == gt {
                    place = .content
                }
            case .comment:
                if starts("-->", at: i) {
                    place = inDoctype ? .doctype : .content
                    out += bytes[i..<(i + 3)]
                    i += 3
                    continue
                }
            case .instruction:
                if starts("?>", at: i) {
                    place = inDoctype ? .doctype : .content
                    out += bytes[i..<(i + 2)]
                    i += 2
                    continue
                }
            case .doctype:
                if let q = quote {
                    if c == q { quote = nil }
                } else if quotes.contains(c) {
                    quote = c
                } else if starts("<!ENTITY", at: i) {
                    throw GPXParseError(file: fileName, line: line(at: i), reason: "entity declarations (<!ENTITY) are not supported in GPX files")
                } else if starts("<!--", at: i) {
                    place = .comment
                    out += bytes[i..<(i + 4)]
                    i += 4
                    continue
                } else if starts("<?", at: i) {
                    place = .instruction
                    out += bytes[i..<(i + 2)]
                    i += 2
                    continue
                } else if c == UInt8(ascii: "[") {
                    subset = true
                } else if c == UInt8(ascii: "]") {
                    subset = false
                } else if c == gt, !subset {
                    place = .content
                    inDoctype = false
                }
            }
            out.append(c)
            i += 1
        }
        return out
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
