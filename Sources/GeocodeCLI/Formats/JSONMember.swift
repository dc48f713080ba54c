/// One `"key": value` member of a JSON object, located in the buffer it was scanned from.
///
/// The pipeline keeps members as raw spans rather than decoding them: values travel from input to output
/// untouched (numbers keep their exact digits), and only the few it looks at get decoded.
struct JSONMember: Sendable, Equatable {
    /// The key's raw text, quotes included.
    var key: Range<Int>
    /// The value's raw text.
    var value: Range<Int>
    var kind: JSONKind
}
