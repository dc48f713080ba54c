/// Nested JSON values whose objects give a key more than once (`{"x":{"a":1,"a":2}}`), read and written
/// as the top level of a record is (``DistinctMembers``): each key once, where it first stood, with its
/// last value, at any depth, as JavaScript's `JSON.parse` and Python's `json` rebuild every object.
///
/// Only for a record that does repeat a nested key (the decoder's scanner tells the rest apart on the
/// way, ``JSONScanner/nestedKeyMayRepeat``): everything here scans again and allocates.
enum DistinctJSON {
    /// The key paths (`props.x.a`, `list[2].a`) that objects inside the values of `members` give more
    /// than once, in the order they first stood, appended to `paths`. `path`: where `members` stand
    /// (empty for a record's own members). Only the values that are written (a repeated key's last)
    /// are looked into.
    static func repeatedPaths(in members: [JSONMember], at path: String, _ b: UnsafeBufferPointer<UInt8>,
                              into paths: inout [String]) {
        for member in members where member.kind == .object || member.kind == .array {
            repeatedPaths(b, member.value, kind: member.kind, at: join(path, key(b, member)), into: &paths)
        }
    }

    /// ``repeatedPaths(in:at:_:into:)`` for one value standing at `path`.
    static func repeatedPaths(_ b: UnsafeBufferPointer<UInt8>, _ value: Range<Int>, kind: JSONKind, at path: String,
                              into paths: inout [String]) {
        var scanner = JSONScanner(b, range: value)
        switch kind {
        case .object:
            // Validated when the record was read: the scan cannot fail.
            let members = (try? scanner.objectMembers()) ?? []
            guard let distinct = members.withoutRepeatedKeys(in: b) else {
                repeatedPaths(in: members, at: path, b, into: &paths)
                return
            }
            paths += distinct.repeatedKeys.map { join(path, $0) }
            repeatedPaths(in: distinct.members, at: path, b, into: &paths)
        case .array:
            let elements = (try? scanner.arrayElements()) ?? []
            for (index, element) in elements.enumerated() where element.0 == .object || element.0 == .array {
                repeatedPaths(b, element.1, kind: element.0, at: "\(path)[\(index)]", into: &paths)
            }
        case .string, .number, .bool, .null:
            break
        }
    }

    /// Appends `value` as ``JSONWriter/appendMinified(_:_:to:)`` does, but with each key of every object
    /// in it once: where it first stood, with its last value. An object that repeats nothing comes out
    /// byte for byte as `appendMinified` writes it (keys and scalars are copied as they are).
    static func appendMinified(_ b: UnsafeBufferPointer<UInt8>, _ value: Range<Int>, kind: JSONKind, to out: inout [UInt8]) {
        var scanner = JSONScanner(b, range: value)
        switch kind {
        case .object:
            let members = (try? scanner.objectMembers()) ?? []
            out.append(UInt8(ascii: "{"))
            for (i, member) in (members.withoutRepeatedKeys(in: b)?.members ?? members).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[member.key]))
                out.append(UInt8(ascii: ":"))
                appendMinified(b, member.value, kind: member.kind, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array:
            let elements = (try? scanner.arrayElements()) ?? []
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                appendMinified(b, element.1, kind: element.0, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string, .number, .bool, .null:
            JSONWriter.appendMinified(b, value, to: &out)
        }
    }

    /// A member's key, decoded, for a path.
    private static func key(_ b: UnsafeBufferPointer<UInt8>, _ member: JSONMember) -> String {
        String(decoding: JSONScanner.decodeString(b, member.key), as: UTF8.self)
    }

    private static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }
}
