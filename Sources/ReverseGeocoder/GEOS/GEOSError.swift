/// A GEOS call that failed: what we asked for, and the message GEOS's error handler gave (GEOS reports
/// an exception as a null pointer or, for predicates, the value 2).
///
/// Internal: the load path wraps it into ``GeocoderError/geos(_:)`` with the file it was reading, the
/// query path into ``GeocoderError/queryFailed(layer:reason:)`` with the layer it was asking.
///
/// A class, not a struct: one pointer, so a typed throw of it (and the `Result` the query path wraps
/// it in) travels in a register on the hot path where two strings would need memory.
final class GEOSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operation, e.g. "prepared containsProperly".
    let operation: String
    /// GEOS's own message ("" when it sent none).
    let message: String

    init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    static func == (a: GEOSError, b: GEOSError) -> Bool { a.operation == b.operation && a.message == b.message }

    var description: String { message.isEmpty ? operation : "\(operation): \(message)" }
}
