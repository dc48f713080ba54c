/// An object that gives a key more than once (`{"a":1,"a":2}`), made into one that gives it once.
///
/// Every reader of JSON output keeps one value per key (JavaScript's `JSON.parse`, Python's `json`,
/// Foundation: the last) or refuses the object, so the batch reads such an object by its last values
/// (``Swift/Array/lastMember(where:)``) and writes each key once, as those readers would rebuild it.
extension Array where Element == JSONMember {
    /// The members with each key once: where it first stood (as a JavaScript object or a Python dict
    /// keeps a key's place), holding its last value. Nil when no key repeats: nearly every object, told
    /// in one pass over the keys (a bit per key from its length and outer bytes); only when two keys take
    /// the same bit are keys compared, without allocating, and only a true repeat builds anything.
    @inline(__always)
    func withoutRepeatedKeys(in b: UnsafeBufferPointer<UInt8>) -> DistinctMembers? {
        guard count > 1, mayRepeatKey(in: b), repeatsKey(in: b) else { return nil }
        return distinct(in: b)
    }

    /// ``withoutRepeatedKeys(in:)`` for an object that does repeat a key.
    private func distinct(in b: UnsafeBufferPointer<UInt8>) -> DistinctMembers {
        // The first member of each key, for every member (its own index for a first).
        var first = Array<Int>(indices)
        for i in indices {
            for j in 0..<i where first[j] == j && Self.sameKey(self[i], self[j], b) {
                first[i] = j
                break
            }
        }
        var members: [JSONMember] = []
        var keys: [String] = []
        var place = Array<Int>(repeating: -1, count: count)
        for i in indices {
            let j = first[i]
            if j == i {
                place[i] = members.count
                members.append(self[i])
                continue
            }
            if members[place[j]].value.upperBound == self[j].value.upperBound {
                // The key's second member: name it once.
                keys.append(String(decoding: JSONScanner.decodeString(b, self[j].key), as: UTF8.self))
            }
            members[place[j]].value = self[i].value
            members[place[j]].kind = self[i].kind
        }
        return DistinctMembers(members: members, repeatedKeys: keys)
    }

    /// False when no two keys can be equal: no key with an escape (`"\u0061"` is `"a"`), and no two keys
    /// alike in length, first and last byte (as far as 64 bits tell them apart).
    @inline(__always)
    private func mayRepeatKey(in b: UnsafeBufferPointer<UInt8>) -> Bool {
        withUnsafeBufferPointer { members in
            let p = b.baseAddress!
            var seen: UInt64 = 0
            for member in members {
                if member.keyHasEscape { return true }
                let bit = JSONMember.keyBit(p, member.key)
                if seen & bit != 0 { return true }
                seen |= bit
            }
            return false
        }
    }

    /// Whether any two members have the same key: the exact test, for when ``mayRepeatKey(in:)`` cannot
    /// tell (two keys on one bit happen in about one object of ten with four keys).
    private func repeatsKey(in b: UnsafeBufferPointer<UInt8>) -> Bool {
        for i in indices.dropFirst() {
            for j in 0..<i where Self.sameKey(self[i], self[j], b) { return true }
        }
        return false
    }

    /// Whether two members' keys are the same text once decoded.
    private static func sameKey(_ x: JSONMember, _ y: JSONMember, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard x.keyHasEscape || y.keyHasEscape else {
            return JSONScanner.sameRawText(b, x.key, y.key)
        }
        return JSONScanner.decodeString(b, x.key) == JSONScanner.decodeString(b, y.key)
    }
}

/// An object's members with each key once (``Swift/Array/withoutRepeatedKeys(in:)``), and the keys it
/// gave more than once, for the warning: each named once, in the order their second members stand.
struct DistinctMembers {
    var members: [JSONMember]
    var repeatedKeys: [String]
}
