/// The encoding half of ``GPXEncoding``, streaming: raw file bytes in, bytes libxml2 decodes on its
/// own out (UTF-8, or Latin-1/ASCII as declared), with the declaration relabelled when they were
/// converted. It decides from the file's first ``decisionBytes`` (byte-order mark, how `<?` looks,
/// the declaration, which is within its first 1024 bytes), then converts or passes every later
/// chunk through, so memory does not grow with the file.
struct GPXTranscoder {
    private enum Mode {
        case undecided
        case passthrough
        case converting(IconvConverter)
    }

    /// Enough of the file's start to see its signature and declaration.
    static let decisionBytes = 4096

    private var mode = Mode.undecided
    private var head: [UInt8] = []
    private let fileName: String

    init(fileName: String) {
        self.fileName = fileName
    }

    /// The prepared bytes for the next raw chunk (none while the start is still being gathered).
    mutating func feed(_ chunk: [UInt8]) throws(GPXParseError) -> [UInt8] {
        switch mode {
        case .undecided:
            head += chunk
            guard head.count >= Self.decisionBytes else { return [] }
            return try decide(final: false)
        case .passthrough:
            return chunk
        case .converting(let converter):
            return try converter.convert(chunk, final: false)
        }
    }

    /// The last prepared bytes, at the end of the file.
    mutating func finish() throws(GPXParseError) -> [UInt8] {
        switch mode {
        case .undecided: return try decide(final: true)
        case .passthrough: return []
        case .converting(let converter): return try converter.convert([], final: true)
        }
    }

    private mutating func decide(final: Bool) throws(GPXParseError) -> [UInt8] {
        let bytes = head
        head = []
        // UTF-16 and UTF-32 (by byte-order mark, or by how `<?` looks in them, as libxml2 detects
        // them) become UTF-8, so the instruction guard can read the markup byte by byte.
        let signatures: [([UInt8], String)] = [
            ([0x00, 0x00, 0xFE, 0xFF], "UTF-32"), ([0xFF, 0xFE, 0x00, 0x00], "UTF-32"),
            ([0xFE, 0xFF], "UTF-16"), ([0xFF, 0xFE], "UTF-16"),
            ([0x00, 0x00, 0x00, 0x3C], "UTF-32BE"), ([0x3C, 0x00, 0x00, 0x00], "UTF-32LE"),
            ([0x00, 0x3C, 0x00, 0x3F], "UTF-16BE"), ([0x3C, 0x00, 0x3F, 0x00], "UTF-16LE"),
        ]
        if let (_, name) = signatures.first(where: { bytes.starts(with: $0.0) }) {
            let converter = try IconvConverter(from: name, fileName: fileName)
            mode = .converting(converter)
            var utf8 = try converter.convert(bytes, final: final)
            if utf8.starts(with: [0xEF, 0xBB, 0xBF]) { utf8.removeFirst(3) }
            if let declared = GPXEncoding.declaredEncoding(utf8, from: 0) { utf8 = Self.relabelled(utf8, declared.range) }
            return utf8
        }
        let hasBOM = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        if let declared = GPXEncoding.declaredEncoding(bytes, from: hasBOM ? 3 : 0),
           !GPXEncoding.decodedByLibxml2.contains(declared.name.uppercased()) {
            if hasBOM {
                // A UTF-8 byte-order mark says what the bytes are, whatever the declaration claims.
                mode = .passthrough
                return Self.relabelled(bytes, declared.range)
            }
            let converter = try IconvConverter(from: declared.name, fileName: fileName)
            mode = .converting(converter)
            var utf8 = try converter.convert(bytes, final: final)
            if let again = GPXEncoding.declaredEncoding(utf8, from: 0) { utf8 = Self.relabelled(utf8, again.range) }
            return utf8
        }
        mode = .passthrough
        return bytes
    }

    /// `bytes` with the encoding name at `range` replaced by UTF-8.
    private static func relabelled(_ bytes: [UInt8], _ range: Range<Int>) -> [UInt8] {
        var out = bytes
        out.replaceSubrange(range, with: Array("UTF-8".utf8))
        return out
    }
}
