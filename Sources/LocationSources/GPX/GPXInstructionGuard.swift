/// The markup half of ``GPXEncoding``, streaming: pads processing instructions that have no data and
/// refuses entity declarations, chunk by chunk (see ``GPXEncoding`` for why both are needed).
///
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
///
/// The state (where the scan is, and the few bytes a marker may straddle) carries over between
/// chunks, so the output is the same however the input is cut.
struct GPXInstructionGuard {
    private enum Place { case content, tag, comment, instruction, doctype, cdata }

    /// Longest instruction target followed; libxml2 refuses names over 50,000 bytes anyway (without
    /// XML_PARSE_HUGE), so a longer one is refused here, which bounds what a chunk must carry.
    static let longestTarget = 60_000
    /// Bytes kept back at a chunk's end: the longest marker looked for (`<![CDATA[`, `<!DOCTYPE`).
    private static let lookahead = 16

    /// The bytes that can start or end something the scan follows, in any place: `< > ? - [ ] " '`.
    private static let marks: [Bool] = (0..<256).map { "<>?-[]\"'".utf8.contains(UInt8($0)) }

    private var place = Place.content
    private var inDoctype = false      // a comment or an instruction inside a DOCTYPE returns there
    private var subset = false         // inside the DOCTYPE's [internal subset]
    private var quote: UInt8?          // inside a quoted value of a tag or a DOCTYPE
    private var carry: [UInt8] = []
    /// Line number at the start of `carry`.
    private var line = 1
    private let fileName: String

    init(fileName: String) {
        self.fileName = fileName
    }

    /// The guarded bytes for `chunk` (after what was carried); `final` when no more input follows.
    mutating func feed(_ chunk: [UInt8], final: Bool) throws(GPXParseError) -> [UInt8] {
        let bytes = carry.isEmpty ? chunk : carry + chunk
        let n = bytes.count
        func starts(_ text: StaticString, at i: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard i + count <= n else { return false }
            return text.withUTF8Buffer { t in
                var k = 0
                while k < count, bytes[i + k] == t[k] { k += 1 }
                return k == count
            }
        }
        let lt = UInt8(ascii: "<"), gt = UInt8(ascii: ">"), question = UInt8(ascii: "?")
        func isQuote(_ c: UInt8) -> Bool { c == 0x22 || c == 0x27 }
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        enum Instruction { case none, empty(Int), undecided }
        /// Whether a `<?x?>` without data (nor space before `?>`) starts at `i`, and where its `?>` is.
        func instruction(at i: Int) throws(GPXParseError) -> Instruction {
            guard bytes[i] == lt else { return .none }
            guard i + 1 < n else { return final ? .none : .undecided }
            guard bytes[i + 1] == question else { return .none }
            var j = i + 2
            while j < n, bytes[j] != question, !isSpace(bytes[j]) {
                j += 1
                if j - i > Self.longestTarget {
                    throw GPXParseError(file: fileName, line: lineAt(i),
                                        reason: "processing instruction name longer than \(Self.longestTarget) bytes")
                }
            }
            if !final, j + 1 >= n { return .undecided }
            return j > i + 2 && starts("?>", at: j) ? .empty(j) : .none
        }
        func lineAt(_ i: Int) -> Int { line + bytes[..<i].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
        func entityError(_ i: Int) -> GPXParseError {
            GPXParseError(file: fileName, line: lineAt(i), reason: "entity declarations (<!ENTITY) are not supported in GPX files")
        }

        var out: [UInt8] = []
        out.reserveCapacity(n + 16)
        var i = 0
        scan: while i < n {
            if !final, n - i < Self.lookahead { break }
            // Most bytes mean nothing to the scan in any place: copy a run of them at once.
            if !Self.marks[Int(bytes[i])] {
                var j = i + 1
                while j < n, !Self.marks[Int(bytes[j])] { j += 1 }
                out += bytes[i..<j]
                i = j
                continue
            }
            if place != .cdata, bytes[i] == lt {
                switch try instruction(at: i) {
                case .undecided:
                    break scan
                case .empty(let j):
                    out += bytes[i..<j]
                    out.append(0x20)
                    i = j               // its `?>` is read below, by whatever it ends
                    continue
                case .none:
                    break
                }
            }
            let c = bytes[i]
            switch place {
            case .content:
                guard c == lt else { break }
                if starts("<![CDATA[", at: i) {
                    place = .cdata
                    out += bytes[i..<(i + 9)]
                    i += 9
                    continue
                }
                if starts("<!ENTITY", at: i) { throw entityError(i) }
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
            case .cdata:
                if starts("]]>", at: i) {
                    place = .content
                    out += bytes[i..<(i + 3)]
                    i += 3
                    continue
                }
            case .tag:
                if let q = quote {
                    if c == q { quote = nil }
                } else if isQuote(c) {
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
                } else if isQuote(c) {
                    quote = c
                } else if starts("<!ENTITY", at: i) {
                    throw entityError(i)
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
        line = lineAt(i)
        carry = Array(bytes[i...])
        return out
    }
}
