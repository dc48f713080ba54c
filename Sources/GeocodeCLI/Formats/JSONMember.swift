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
    /// Whether the key's text holds a backslash escape (`"l\u0061t"`): only then can it equal a name of
    /// another length. Set by the scanner, which passes over the key anyway; comparing a key with a name
    /// otherwise scanned every unequal key for a backslash, for every name it was compared with (on
    /// each row of a batch). True, the safe value, for a member made by hand.
    var keyHasEscape: Bool = true

    /// One bit of 64 for the raw key at `key` (quotes included), from its length and its first and last
    /// bytes (an empty key's are its quotes): keys on different bits differ, so an object whose keys
    /// all take bits of their own repeats none (unless a key has an escape). One multiply spreads the
    /// shape over the top bits; keys that still meet on a bit (any fixed hash has such pairs) cost the
    /// exact test, not an allocation.
    @inline(__always)
    static func keyBit(_ p: UnsafePointer<UInt8>, _ key: Range<Int>) -> UInt64 {
        let shape = UInt64(truncatingIfNeeded: key.count) | UInt64(p[key.lowerBound + 1]) << 16
            | UInt64(p[key.upperBound - 2]) << 24
        return 1 << ((shape &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }

    /// Whether the key, decoded, is `name`.
    @inline(__always)
    func keyEquals(_ b: UnsafeBufferPointer<UInt8>, _ name: [UInt8]) -> Bool {
        guard keyHasEscape else { return JSONScanner.plainStringEquals(b, key, name) }
        return JSONScanner.stringEquals(b, key, name)
    }

    /// Whether the key, decoded, is `folded` in any ASCII case (`folded` is lower case: the built-in
    /// coordinate names, ``OutputNames/folded(_:)``).
    @inline(__always)
    func keyEqualsIgnoringCase(_ b: UnsafeBufferPointer<UInt8>, _ folded: [UInt8]) -> Bool {
        guard !keyHasEscape else { return OutputNames.folded(JSONScanner.decodeString(b, key)) == folded }
        let inner = (key.lowerBound + 1)..<(key.upperBound - 1)
        guard inner.count == folded.count else { return false }
        for (offset, i) in inner.enumerated() {
            var c = b[i]
            if c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") { c += 32 }
            if c != folded[offset] { return false }
        }
        return true
    }
}

extension Array where Element == JSONMember {
    /// The last member whose key `matches`, and whether an earlier member matched too (a key given
    /// twice). The last, because that is the value JavaScript's `JSON.parse`, Python's `json` and
    /// Foundation's `JSONSerialization` keep: a file that gives `"lat"` twice then means to us what it
    /// means to every other program that reads it. RFC 8259 leaves the choice to the reader.
    func lastMember(where matches: (JSONMember) -> Bool) -> (index: Int, repeated: Bool)? {
        var found: Int?
        var repeated = false
        for i in indices where matches(self[i]) {
            if found != nil { repeated = true }
            found = i
        }
        return found.map { ($0, repeated) }
    }

    /// ``lastMember(where:)`` for a key given as its decoded bytes, matched exactly.
    func lastMember(named name: [UInt8], in b: UnsafeBufferPointer<UInt8>) -> (index: Int, repeated: Bool)? {
        lastMember { $0.keyEquals(b, name) }
    }
}
