/// A GEOS call that failed: what we asked for, and the message GEOS's error handler gave (GEOS reports
/// an exception as a null pointer or, for predicates, the value 2).
///
/// Internal: the load path wraps it into ``GeocoderError/geos(_:)`` with the file it was reading, the
/// query path into ``GeocoderError/queryFailed(layer:reason:)`` with the layer it was asking.
struct GEOSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operation, e.g. "prepared containsProperly".
    let operation: String
    /// GEOS's own message ("" when it sent none).
    let message: String

    var description: String { message.isEmpty ? operation : "\(operation): \(message)" }
}
