import Foundation

/// Prepares GPX bytes for `XMLParser` (libxml2 and FoundationXML underneath, on Linux), which crash on
/// some inputs: files in encodings libxml2 does not decode itself are converted to UTF-8 first
/// (``GPXTranscoder``), and processing instructions without data are padded and entity declarations
/// refused (``GPXInstructionGuard``). Both work chunk by chunk, so a file of any size is prepared in
/// bounded memory as the parser reads it (``GPXInputStream``).
///
/// libxml2 2.9 (Debian 12's) hands such encodings (Shift_JIS, GB18030, ISO-2022-JP, UTF-7, …) to iconv,
/// and crashes with a NULL dereference in `xmlSwitchToEncoding` when the bytes after the declaration are
/// not valid in the declared encoding. The gpx fuzzer found it with `<?xml version="1.0" encoding="UTF7"?>`
/// followed by one 0xFF byte. So those files are converted here, strictly: bytes that are not valid in
/// the declared encoding are a `GPXParseError` naming the line, and libxml2 only ever decodes UTF-8,
/// UTF-16 or Latin-1, which it does on its own.
struct GPXEncoding {
    /// Encoding names libxml2 decodes with its own built-in handlers, upper-case, exactly as spelled
    /// (a variant such as `UT-F8` goes to iconv). UTF-16 declared in bytes that are not UTF-16 is ignored
    /// by libxml2; UTF-16/32 text itself is converted before this is consulted.
    static let decodedByLibxml2: Set<String> = ["UTF-8", "UTF8", "UTF-16", "UTF16", "ISO-8859-1", "ISO-LATIN-1", "ASCII", "US-ASCII"]

    private var transcoder: GPXTranscoder
    private var guardian: GPXInstructionGuard

    /// A preparation of one file; `fileName` labels errors.
    init(fileName: String) {
        transcoder = GPXTranscoder(fileName: fileName)
        guardian = GPXInstructionGuard(fileName: fileName)
    }

    /// The prepared bytes for the next raw chunk (possibly none: the start is gathered first, and a
    /// marker cut by the chunk's end waits for the next).
    mutating func feed(_ chunk: [UInt8]) throws(GPXParseError) -> [UInt8] {
        try guardian.feed(try transcoder.feed(chunk), final: false)
    }

    /// The last prepared bytes, at the end of the input.
    mutating func finish() throws(GPXParseError) -> [UInt8] {
        try guardian.feed(try transcoder.finish(), final: true)
    }

    /// The whole of `data` as libxml2 and FoundationXML can safely read it (for the fuzz harness's
    /// reference parse, and small inputs).
    static func prepare(_ data: Data, fileName: String) throws(GPXParseError) -> Data {
        var encoding = GPXEncoding(fileName: fileName)
        var out = try encoding.feed([UInt8](data))
        out += try encoding.finish()
        return Data(out)
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
}
