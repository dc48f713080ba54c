/// A one-off warning from a worker (e.g. an NDJSON key that has no CSV column), shown once per ``key``.
struct Notice: Sendable, Equatable {
    var key: String
    var message: String
    /// The index in its chunk of the row that gave it (set by ``ChunkProcessor``): a `--strict` stop
    /// still says the notices of the rows before the bad one, and only theirs.
    var row = 0

    /// A JSON record gives `keys` more than once, and their last values were read (as JavaScript and
    /// Python read JSON) and are the ones written: never silently, since the file may have meant
    /// something else. One warning a run, for the first such record: the rule is the same for every
    /// record, and a file that repeats keys usually does so on every line.
    /// `nested`: the paths of keys repeated inside the record's values (`props.x.a`), said as such.
    static func repeatedKeys(_ keys: [String], nested: [String] = [], input: String, line: Int) -> Notice {
        func named(_ keys: [String], _ what: String) -> String? {
            var distinct: [String] = []
            for key in keys where !distinct.contains(key) { distinct.append(key) }
            guard !distinct.isEmpty else { return nil }
            return "\(what)\(distinct.count == 1 ? "key" : "keys") " + distinct.map { "\"\($0)\"" }.joined(separator: ", ")
        }
        let names = [named(keys, ""), named(nested, "nested ")].compactMap { $0 }.joined(separator: " and ")
        return Notice(key: "repeated keys", message: "\(input):\(line): the record gives \(names) more than once; the last "
                      + "value is read, as JavaScript and Python read JSON, and the output writes the key once, with that "
                      + "value (said for the first such record only)")
    }
}
