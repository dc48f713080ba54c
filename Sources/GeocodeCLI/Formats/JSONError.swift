/// A JSON syntax error at a byte offset of the text being scanned.
struct JSONError: Error, Sendable, Equatable {
    var message: String
    /// Offset into the scanned buffer; turned into a line number by whoever knows where the text started.
    var offset: Int
}
