/// What ``NMEAStreamReader`` finds in a byte stream.
public enum NMEAStreamItem: Sendable, Hashable {
    /// A sentence that passed the parser. `line` is the 1-based line it ended on.
    case sentence(NMEASentence, line: Int)
    /// Something that started like a sentence (`$` or `!`) but was rejected, or a line of text with no
    /// sentence in it (``NMEAParseError/missingStartDelimiter``); `text` is what was read (printable,
    /// at most 120 characters) so a log can show it.
    case rejected(NMEAParseError, line: Int, text: String)
}
