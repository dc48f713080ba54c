/// Cuts a byte stream into NMEA sentences and parses them, however the bytes arrive.
///
/// Reads from a serial port or a file hand over arbitrary chunks: half a sentence, three and a bit,
/// a burst of binary junk from a receiver that also speaks a binary protocol. The reader keeps the
/// unfinished sentence between calls, so the chunking never changes the result.
///
/// Framing rules: a sentence starts at `$` or `!` and ends at CR or LF. A `$` inside a sentence means
/// the line dropped bytes: the unfinished sentence is reported as ``NMEAParseError/truncated`` and the
/// new one starts (so `$$GPGGA…` yields the GGA). A sentence longer than the parser's limit is reported
/// once and skipped to the next `$`, so a noisy line cannot make the buffer grow. A line whose first
/// byte is `#` is a comment and skipped whole: gpsd's logs (and most recorded NMEA logs) annotate with
/// `#` lines, which may mention a `$GPGGA` in passing.
///
/// A line with no sentence in it is reported as ``NMEAParseError/missingStartDelimiter`` when it is
/// text (`hello world`, a sentence that lost its head: `4.4343,N,01025.5386,E,…`): skipping it unseen
/// would hide damage in a log, or that a file is no NMEA log at all. Silent are only lines that say
/// nothing to an NMEA reader by design: empty or blank lines; binary data (a byte below 0x20 other than tab, or
/// 0x7F: the frames of a binary protocol the receiver also speaks, UBX, SiRF, RTCM, all have them,
/// text never does); a TAG block on a line of its own (`\s:…*hh\`, NMEA 4.10); and gpsd's JSON
/// reports (`{"class":…}`), which `gpspipe -w -r` interleaves with the raw sentences. Bytes before a
/// sentence on its own line (a TAG block, the tail of a binary frame) go with the sentence, which is
/// read or rejected on its own.
public struct NMEAStreamReader: Sendable {
    public let parser: NMEAParser
    private var buffer: [UInt8] = []
    private var inSentence = false
    private var overflowed = false
    private var line = 1
    private var previousWasCR = false
    private var atLineStart = true
    private var inComment = false
    /// The line so far has a sentence start in it: its other bytes are not reported.
    private var lineHasSentence = false
    /// The current line's bytes outside any sentence (the first ``shownLength``), to report a text line
    /// that holds no sentence.
    private var stray: [UInt8] = []
    /// The current line has a byte no text has: it is binary data, not reported.
    private var strayIsBinary = false
    /// The first byte of the current line outside a sentence that is not blank (space or tab).
    private var strayLead: UInt8?

    /// The most of a rejected line a report shows.
    private static let shownLength = 120

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
        endLine(into: &items)
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
        // The rest of a line that was cut off is no line to report.
        resetLine()
    }

    private mutating func step(_ byte: UInt8, into items: inout [NMEAStreamItem]) {
        switch byte {
        case 0x0A, 0x0D:
            if inSentence && !overflowed { emit(into: &items) }
            endLine(into: &items)
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
            lineHasSentence = true
        default:
            guard inSentence else {
                if byte < 0x20 && byte != 0x09 || byte == 0x7F { strayIsBinary = true }
                if strayLead == nil && byte != 0x20 && byte != 0x09 { strayLead = byte }
                if stray.count < Self.shownLength { stray.append(byte) }
                break
            }
            guard !overflowed else { break }
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

    /// The end of a line: reports it if it was text without a sentence (see the type's notes).
    private mutating func endLine(into items: inout [NMEAStreamItem]) {
        defer { resetLine() }
        guard !lineHasSentence, !strayIsBinary, let lead = strayLead,
              lead != UInt8(ascii: "{"), lead != UInt8(ascii: "\\") else { return }
        items.append(.rejected(.missingStartDelimiter, line: line, text: printable(stray)))
    }

    private mutating func resetLine() {
        lineHasSentence = false
        strayIsBinary = false
        strayLead = nil
        stray.removeAll(keepingCapacity: true)
    }

    private mutating func emit(into items: inout [NMEAStreamItem]) {
        switch buffer.withUnsafeBufferPointer({ parser.parseResult($0) }) {
        case .success(let sentence): items.append(.sentence(sentence, line: line))
        case .failure(let error): items.append(.rejected(error, line: line, text: printable(buffer)))
        }
    }

    /// What was read, safe to print: non-printable bytes as `?`, at most 120 characters.
    private func printable(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(Self.shownLength).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
