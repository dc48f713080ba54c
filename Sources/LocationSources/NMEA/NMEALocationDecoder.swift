/// Bytes in, locations out: an ``NMEAStreamReader`` feeding an ``NMEAFixAssembler``.
///
/// The one piece the replay and serial sources share; pure, so tests drive it directly.
public struct NMEALocationDecoder: Sendable {
    /// What decoding produces.
    public enum Output: Sendable, Equatable {
        /// One reporting cycle's fix.
        case location(Location)
        /// A line that was rejected: a sentence that failed, or text that is no sentence (1-based line
        /// number, text as read).
        case rejected(NMEAParseError, line: Int, text: String)
    }

    private var reader: NMEAStreamReader
    private var assembler: NMEAFixAssembler

    public init(parser: NMEAParser = NMEAParser(), assembler: NMEAFixAssembler.Configuration = .init()) {
        reader = NMEAStreamReader(parser: parser)
        self.assembler = NMEAFixAssembler(configuration: assembler)
    }

    /// True while sentences of an unreported cycle are held.
    public var hasPendingCycle: Bool { assembler.hasPendingCycle }

    /// Feeds the next chunk of bytes.
    public mutating func decode<S: Sequence>(_ chunk: S) -> [Output] where S.Element == UInt8 {
        var outputs: [Output] = []
        for item in reader.read(chunk) { handle(item, into: &outputs) }
        return outputs
    }

    /// Reports the cycle in progress now (the line went quiet; the burst is over).
    public mutating func flushCycle() -> [Output] {
        assembler.flush().map { .location($0) }
    }

    /// End of input: the last unterminated line is parsed (or rejected) and the last cycle reported.
    public mutating func finish() -> [Output] {
        var outputs: [Output] = []
        for item in reader.finish() { handle(item, into: &outputs) }
        outputs += assembler.flush(endOfInput: true).map { .location($0) }
        return outputs
    }

    /// The device went away: its unfinished sentence is dropped, its last complete cycle reported.
    public mutating func disconnect() -> [Output] {
        reader.discardPartialSentence()
        return flushCycle()
    }

    private mutating func handle(_ item: NMEAStreamItem, into outputs: inout [Output]) {
        switch item {
        case .sentence(let sentence, _):
            for location in assembler.consume(sentence) { outputs.append(.location(location)) }
        case .rejected(let error, let line, let text):
            outputs.append(.rejected(error, line: line, text: text))
        }
    }
}
