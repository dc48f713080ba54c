/// Cuts a byte stream into NMEA sentences and parses them, however the bytes arrive.
///
/// Reads from a serial port or a file hand over arbitrary chunks: half a sentence, three and a bit,
/// a burst of binary junk from a receiver that also speaks a binary protocol. The reader keeps the
/// unfinished sentence between calls, so the chunking never changes the result.
///
/// Framing rules: a sentence starts at `$` or `!` and ends at CR or LF. Bytes outside a sentence
/// (junk, binary protocols, a partial line read on connecting) are skipped silently. A `$` inside a
/// sentence means the line dropped bytes: the unfinished sentence is reported as
/// ``NMEAParseError/truncated`` and the new one starts (so `$$GPGGA…` yields the GGA). A sentence
/// longer than the parser's limit is reported once and skipped to the next `$`, so a noisy line cannot
/// make the buffer grow. A line whose first byte is `#` is a comment and skipped whole: gpsd's logs
/// (and most recorded NMEA logs) annotate with `#` lines, which may mention a `$GPGGA` in passing.
public struct NMEAStreamReader: Sendable {
    public let parser: NMEAParser
    private var buffer: [UInt8] = []
    private var inSentence = false
    private var overflowed = false
    private var line = 1
    private var previousWasCR = false
    private var atLineStart = true
    private var inComment = false

    public init(parser: NMEAParser = NMEAParser()) {
        self.parser = parser
        buffer.reserveCapacity(parser.options.maximumLength + 1)
    }

    /// The 1-based line number the reader is on (LF, CR LF and lone CR all end a line).
    public var currentLine: Int { line }

    /// Feeds the next chunk; returns the sentences (and rejections) it completed, in order.
    public mutating func read<S: Sequence>(_ chunk: S) -> [NMEAStreamItem] where S.Element == UInt8 {
        var items: [NMEAStreamItem] = []
        for byte in chunk { step(byte, into: &items) }
        return items
    }

    /// The end of the input: a sentence still open (no line ending after it) is parsed as it is,
    /// which rejects it unless it is complete with its checksum.
    public mutating func finish() -> [NMEAStreamItem] {
        var items: [NMEAStreamItem] = []
        if inSentence && !overflowed { emit(into: &items) }
        inSentence = false
        overflowed = false
        buffer.removeAll(keepingCapacity: true)
        return items
    }

    /// Drops any unfinished sentence without reporting it (the device it came from went away).
    public mutating func discardPartialSentence() {
        inComment = false
        inSentence = false
        overflowed = false
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func step(_ byte: UInt8, into items: inout [NMEAStreamItem]) {
        switch byte {
        case 0x0A, 0x0D:
            if inSentence && !overflowed { emit(into: &items) }
            inSentence = false
            overflowed = false
            inComment = false
            atLineStart = true
            buffer.removeAll(keepingCapacity: true)
            // CR LF is one line end; a lone CR or LF is one too.
            if !(byte == 0x0A && previousWasCR) { line += 1 }
            previousWasCR = byte == 0x0D
            return
        case UInt8(ascii: "#") where atLineStart:
            inComment = true
        case _ where inComment:
            break
        case UInt8(ascii: "$"), UInt8(ascii: "!"):
            if inSentence && !overflowed {
                items.append(.rejected(.truncated, line: line, text: printable(buffer)))
            }
            buffer.removeAll(keepingCapacity: true)
            buffer.append(byte)
            inSentence = true
            overflowed = false
        default:
            guard inSentence, !overflowed else { break }
            buffer.append(byte)
            let limit = parser.options.maximumLength
            if buffer.count > limit {
                items.append(.rejected(.tooLong(length: buffer.count, limit: limit), line: line,
                                       text: printable(buffer)))
                overflowed = true
                buffer.removeAll(keepingCapacity: true)
            }
        }
        previousWasCR = false
        atLineStart = false
    }

    private mutating func emit(into items: inout [NMEAStreamItem]) {
        switch buffer.withUnsafeBufferPointer({ parser.parseResult($0) }) {
        case .success(let sentence): items.append(.sentence(sentence, line: line))
        case .failure(let error): items.append(.rejected(error, line: line, text: printable(buffer)))
        }
    }

    /// What was read, safe to print: non-printable bytes as `?`, at most 120 characters.
    private func printable(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(120).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
