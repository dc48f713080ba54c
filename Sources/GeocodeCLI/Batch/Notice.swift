/// A one-off warning from a worker (e.g. an NDJSON key that has no CSV column), shown once per ``key``.
struct Notice: Sendable, Equatable {
    var key: String
    var message: String

    /// A JSON record gives `key` more than once, and its last value was read (as JavaScript and Python
    /// read JSON): never silently, since the file may have meant something else.
    static func repeatedKey(_ key: String, input: String, line: Int) -> Notice {
        Notice(key: "duplicate " + key, message: "\(input):\(line): the record gives key \"\(key)\" more than once; "
               + "its last value is read, as JavaScript and Python read JSON (warned once per key)")
    }
}
