/// The kind of a JSON value, as far as the batch pipeline needs to know it.
enum JSONKind: Sendable, Equatable {
    case object, array, string, number, bool, null
}
