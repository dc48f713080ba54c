/// Reads what ``CompactEncoder`` wrote (the layout is described there).
///
/// Every length is checked against the bytes that hold it before anything is read, so damaged input
/// gives a `DecodingError`, never a read out of bounds. Keys are matched as UTF-8 bytes against the
/// entries of their container, starting where the previous key was found: values come back in the
/// order they were written, so each key is found at the first place looked.
struct CompactDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        let input = Input(bytes: bytes)
        guard let slot = try input.slot(at: 0, codingPath: []), slot.upperBound == bytes.count else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not one value"))
        }
        return try T(from: Reader(input: input, range: slot, codingPath: []))
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0) }
    }

    /// The bytes, with checked reads.
    struct Input {
        let bytes: UnsafeRawBufferPointer

        func corrupted(_ path: [any CodingKey], _ why: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: path, debugDescription: why))
        }

        func word(at offset: Int, end: Int, codingPath: [any CodingKey]) throws -> UInt32 {
            guard offset >= 0, offset <= end - 4, end <= bytes.count else { throw corrupted(codingPath, "truncated at byte \(offset)") }
            return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }

        /// The slot starting at `offset`: its content's byte range, or nil for a nil slot.
        func slot(at offset: Int, end: Int? = nil, codingPath: [any CodingKey]) throws -> Range<Int>? {
            let end = end ?? bytes.count
            let length = try word(at: offset, end: end, codingPath: codingPath)
            if length == CompactEncoder.nilLength { return nil }
            let start = offset + 4
            guard Int(length) <= end - start else { throw corrupted(codingPath, "a value of \(length) bytes runs past its container") }
            return start..<(start + Int(length))
        }
    }

    /// The `Decoder` for one slot's content.
    struct Reader: Decoder {
        let input: Input
        let range: Range<Int>
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(try Keyed<Key>(input: input, range: range, codingPath: codingPath))
        }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try Unkeyed(input: input, range: range, codingPath: codingPath)
        }
        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            Single(input: input, range: range, codingPath: codingPath)
        }
    }

    /// One value's content.
    struct Single: SingleValueDecodingContainer {
        let input: Input
        let range: Range<Int>
        var codingPath: [any CodingKey]

        func decodeNil() -> Bool { false }  // nil is a slot of its own, seen by the container around it

        private func word64() throws -> UInt64 {
            guard range.count == 8 else { throw input.corrupted(codingPath, "a number of \(range.count) bytes, expected 8") }
            return UInt64(littleEndian: input.bytes.loadUnaligned(fromByteOffset: range.lowerBound, as: UInt64.self))
        }
        private func integer<T: FixedWidthInteger>(_ type: T.Type, signed: Bool) throws -> T {
            let raw = try word64()
            let value: T? = signed ? T(exactly: Int64(bitPattern: raw)) : T(exactly: raw)
            guard let value else { throw input.corrupted(codingPath, "\(raw) does not fit \(T.self)") }
            return value
        }

        func decode(_ type: Bool.Type) throws -> Bool {
            guard range.count == 1, input.bytes[range.lowerBound] <= 1 else { throw input.corrupted(codingPath, "not a Bool") }
            return input.bytes[range.lowerBound] == 1
        }
        func decode(_ type: String.Type) throws -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: input.bytes[range]), as: UTF8.self)
        }
        func decode(_ type: Double.Type) throws -> Double { Double(bitPattern: try word64()) }
        func decode(_ type: Float.Type) throws -> Float {
            guard range.count == 4 else { throw input.corrupted(codingPath, "a Float of \(range.count) bytes") }
            return Float(bitPattern: UInt32(littleEndian: input.bytes.loadUnaligned(fromByteOffset: range.lowerBound, as: UInt32.self)))
        }
        func decode(_ type: Int.Type) throws -> Int { try integer(Int.self, signed: true) }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer(Int8.self, signed: true) }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer(Int16.self, signed: true) }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer(Int32.self, signed: true) }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self, signed: true) }
        func decode(_ type: UInt.Type) throws -> UInt { try integer(UInt.self, signed: false) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(UInt8.self, signed: false) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(UInt16.self, signed: false) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(UInt32.self, signed: false) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(UInt64.self, signed: false) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try T(from: Reader(input: input, range: range, codingPath: codingPath))
        }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let input: Input
        var codingPath: [any CodingKey]
        /// Each entry's key bytes and value slot (nil content: a nil value).
        private let entries: [(key: Range<Int>, value: Range<Int>?)]
        /// Where the next lookup starts (the entry after the last one found). A box: the protocol's
        /// reads are non-mutating, and a container is read by one thread.
        private final class Hint { var next = 0 }
        private let hint = Hint()

        init(input: Input, range: Range<Int>, codingPath: [any CodingKey]) throws {
            self.input = input
            self.codingPath = codingPath
            let count = try input.word(at: range.lowerBound, end: range.upperBound, codingPath: codingPath)
            // Each entry needs at least 8 bytes: a bound on the count before reserving for it.
            guard Int(count) <= (range.count - 4) / 8 else { throw input.corrupted(codingPath, "\(count) entries in \(range.count) bytes") }
            var entries: [(key: Range<Int>, value: Range<Int>?)] = []
            entries.reserveCapacity(Int(count))
            var at = range.lowerBound + 4
            for _ in 0..<count {
                let keyLength = Int(try input.word(at: at, end: range.upperBound, codingPath: codingPath))
                guard keyLength <= range.upperBound - at - 4 else { throw input.corrupted(codingPath, "a key runs past its container") }
                let key = (at + 4)..<(at + 4 + keyLength)
                let value = try input.slot(at: key.upperBound, end: range.upperBound, codingPath: codingPath)
                entries.append((key, value))
                at = value?.upperBound ?? key.upperBound + 4
            }
            self.entries = entries
        }

        /// The entry index of `key`, or nil.
        private func find(_ key: Key) -> Int? {
            let name = key.stringValue
            func matches(_ i: Int) -> Bool {
                let k = entries[i].key
                return name.utf8.count == k.count && name.utf8.elementsEqual(UnsafeRawBufferPointer(rebasing: input.bytes[k]))
            }
            for i in hint.next..<entries.count where matches(i) { return i }
            for i in 0..<min(hint.next, entries.count) where matches(i) { return i }
            return nil
        }

        private func slot(_ key: Key) throws -> Range<Int>? {
            guard let i = find(key) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no \"\(key.stringValue)\""))
            }
            hint.next = i + 1
            return entries[i].value
        }

        private func single(_ key: Key) throws -> Single {
            guard let range = try slot(key) else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath + [key], debugDescription: "nil"))
            }
            return Single(input: input, range: range, codingPath: codingPath + [key])
        }

        var allKeys: [Key] {
            entries.compactMap { Key(stringValue: String(decoding: UnsafeRawBufferPointer(rebasing: input.bytes[$0.key]), as: UTF8.self)) }
        }
        func contains(_ key: Key) -> Bool { find(key) != nil }
        // Not moving the hint: `decodeIfPresent` asks this, then decodes the same key.
        func decodeNil(forKey key: Key) throws -> Bool {
            guard let i = find(key) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no \"\(key.stringValue)\""))
            }
            return entries[i].value == nil
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try single(key).decode(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try single(key).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try single(key).decode(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try single(key).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try single(key).decode(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try single(key).decode(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try single(key).decode(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try single(key).decode(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try single(key).decode(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try single(key).decode(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try single(key).decode(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try single(key).decode(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try single(key).decode(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try single(key).decode(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try single(key).decode(type) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            let s = try single(key)
            return KeyedDecodingContainer(try Keyed<NestedKey>(input: input, range: s.range, codingPath: s.codingPath))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let s = try single(key)
            return try Unkeyed(input: input, range: s.range, codingPath: s.codingPath)
        }
        func superDecoder() throws -> any Decoder {
            throw input.corrupted(codingPath, "superDecoder is not supported")
        }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            throw input.corrupted(codingPath, "superDecoder is not supported")
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let input: Input
        var codingPath: [any CodingKey]
        let count: Int?
        private(set) var currentIndex = 0
        private var at: Int
        private let end: Int

        init(input: Input, range: Range<Int>, codingPath: [any CodingKey]) throws {
            self.input = input
            self.codingPath = codingPath
            let n = try input.word(at: range.lowerBound, end: range.upperBound, codingPath: codingPath)
            guard Int(n) <= (range.count - 4) / 4 else { throw input.corrupted(codingPath, "\(n) elements in \(range.count) bytes") }
            count = Int(n)
            at = range.lowerBound + 4
            end = range.upperBound
        }

        var isAtEnd: Bool { currentIndex >= count! }

        private struct Index: CodingKey {
            var intValue: Int?
            var stringValue: String { "\(intValue!)" }
            init(_ i: Int) { intValue = i }
            init?(stringValue: String) { nil }
            init?(intValue: Int) { self.intValue = intValue }
        }

        private mutating func next() throws -> Range<Int>? {
            guard !isAtEnd else { throw input.corrupted(codingPath, "no element \(currentIndex)") }
            let path = codingPath + [Index(currentIndex)]
            let slot = try input.slot(at: at, end: end, codingPath: path)
            at = slot?.upperBound ?? at + 4
            currentIndex += 1
            return slot
        }

        private mutating func single() throws -> Single {
            let path = codingPath + [Index(currentIndex)]
            guard let range = try next() else { throw DecodingError.valueNotFound(Any.self, .init(codingPath: path, debugDescription: "nil")) }
            return Single(input: input, range: range, codingPath: path)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { throw input.corrupted(codingPath, "no element \(currentIndex)") }
            guard try input.word(at: at, end: end, codingPath: codingPath) == CompactEncoder.nilLength else { return false }
            _ = try next()
            return true
        }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try single().decode(type) }
        mutating func decode(_ type: String.Type) throws -> String { try single().decode(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try single().decode(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try single().decode(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try single().decode(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try single().decode(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try single().decode(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try single().decode(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try single().decode(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try single().decode(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try single().decode(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try single().decode(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try single().decode(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try single().decode(type) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try single().decode(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let s = try single()
            return KeyedDecodingContainer(try Keyed<NestedKey>(input: input, range: s.range, codingPath: s.codingPath))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let s = try single()
            return try Unkeyed(input: input, range: s.range, codingPath: s.codingPath)
        }
        mutating func superDecoder() throws -> any Decoder {
            throw input.corrupted(codingPath, "superDecoder is not supported")
        }
    }
}
