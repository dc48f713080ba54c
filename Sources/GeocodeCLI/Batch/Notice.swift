/// A one-off warning from a worker (e.g. an NDJSON key that has no CSV column), shown once per ``key``.
struct Notice: Sendable, Equatable {
    var key: String
    var message: String
}
