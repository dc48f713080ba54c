/// A small binary form of `Codable` values: the index cache's metadata (``IndexCache/Meta``).
///
/// Why not JSON: Foundation's `JSONDecoder` took 10 M instructions to read the four bundled caches'
/// 21 KB of metadata, a fifth of a one-point `geocode` run (Benchmarks/results/startup.md): it parses
/// text into a tree, matches every key by string and asks the runtime about protocol conformances for
/// every value. This form is read in place, in the order it was written.
///
/// Layout (all integers little-endian). Every value sits in a *slot*: a `UInt32` byte length (or
/// `0xFFFF_FFFF` for nil) followed by that many bytes. Inside a slot is one of:
/// - a primitive: `Bool` one byte; integers 8 bytes (two's complement); `Double` its 8-byte bit
///   pattern, `Float` its 4; `String` its UTF-8 bytes (the slot's length is the string's);
/// - a keyed container: a `UInt32` count, then per entry the key (a `UInt32` length and its UTF-8
///   bytes) and the value's slot;
/// - an unkeyed container: a `UInt32` count, then the elements' slots.
///
/// Slots carry their length, so a reader can skip what it does not ask for and never reads past a
/// slot: ``CompactDecoder`` checks every length against the bytes it has (the fuzz harness feeds it
/// damaged metadata).
struct CompactEncoder {
    /// The encoded form of `value`: one slot.
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let sink = Sink()
        let start = sink.openSlot()
        try value.encode(to: Writer(sink: sink, codingPath: []))
        sink.closeSlot(start)
        return sink.bytes
    }

    static let nilLength: UInt32 = 0xFFFF_FFFF

    /// The bytes written so far, shared by every container of one encoding (they write in turn: a
    /// container's entries are complete before its parent's next entry starts).
    final class Sink {
        var bytes: [UInt8] = []

        func append(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        func append(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        func append(key: String) {
            append(UInt32(key.utf8.count))
            bytes += key.utf8
        }
        func patch(_ v: UInt32, at offset: Int) {
            withUnsafeBytes(of: v.littleEndian) { for (k, b) in $0.enumerated() { bytes[offset + k] = b } }
        }

        /// Starts a slot; its length is filled in by ``closeSlot(_:)``.
        func openSlot() -> Int {
            append(UInt32(0))
            return bytes.count
        }
        func closeSlot(_ start: Int) { patch(UInt32(bytes.count - start), at: start - 4) }
        func nilSlot() { append(CompactEncoder.nilLength) }

        /// A container's count word, incremented in place as entries are added.
        func openCount() -> Int {
            append(UInt32(0))
            return bytes.count - 4
        }
        func increment(countAt offset: Int) {
            let old = bytes[offset..<(offset + 4)].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            patch(old + 1, at: offset)
        }
    }

    /// The `Encoder` for the value of one slot (already opened by the caller).
    struct Writer: Encoder {
        let sink: Sink
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed<Key>(sink: sink, codingPath: codingPath, count: sink.openCount()))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            Unkeyed(sink: sink, codingPath: codingPath, countAt: sink.openCount())
        }
        func singleValueContainer() -> any SingleValueEncodingContainer { Single(sink: sink, codingPath: codingPath) }
    }

    /// Writes one value into the slot it is in.
    struct Single: SingleValueEncodingContainer {
        let sink: Sink
        var codingPath: [any CodingKey]

        mutating func encodeNil() throws {
            // Only reached inside an already opened slot: nil is marked by the slot itself, so an
            // optional's nil must come through `encodeNil` of the parent container (as synthesized code does).
            throw EncodingError.invalidValue(Optional<Int>.none as Any, .init(codingPath: codingPath, debugDescription: "a nil single value"))
        }
        mutating func encode(_ value: Bool) throws { sink.bytes.append(value ? 1 : 0) }
        mutating func encode(_ value: String) throws { sink.bytes += value.utf8 }
        mutating func encode(_ value: Double) throws { sink.append(value.bitPattern) }
        mutating func encode(_ value: Float) throws { withUnsafeBytes(of: value.bitPattern.littleEndian) { sink.bytes += $0 } }
        mutating func encode(_ value: Int) throws { sink.append(UInt64(bitPattern: Int64(value))) }
        mutating func encode(_ value: Int8) throws { sink.append(UInt64(bitPattern: Int64(value))) }
        mutating func encode(_ value: Int16) throws { sink.append(UInt64(bitPattern: Int64(value))) }
        mutating func encode(_ value: Int32) throws { sink.append(UInt64(bitPattern: Int64(value))) }
        mutating func encode(_ value: Int64) throws { sink.append(UInt64(bitPattern: value)) }
        mutating func encode(_ value: UInt) throws { sink.append(UInt64(value)) }
        mutating func encode(_ value: UInt8) throws { sink.append(UInt64(value)) }
        mutating func encode(_ value: UInt16) throws { sink.append(UInt64(value)) }
        mutating func encode(_ value: UInt32) throws { sink.append(UInt64(value)) }
        mutating func encode(_ value: UInt64) throws { sink.append(value) }
        mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: Writer(sink: sink, codingPath: codingPath)) }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let sink: Sink
        var codingPath: [any CodingKey]
        let count: Int

        /// Writes the key and a slot holding what `body` writes.
        private func entry(_ key: Key, _ body: (Single) throws -> Void) rethrows {
            sink.increment(countAt: count)
            sink.append(key: key.stringValue)
            let start = sink.openSlot()
            try body(Single(sink: sink, codingPath: codingPath + [key]))
            sink.closeSlot(start)
        }

        mutating func encodeNil(forKey key: Key) throws {
            sink.increment(countAt: count)
            sink.append(key: key.stringValue)
            sink.nilSlot()
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: String, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Double, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Float, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Int, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try entry(key) { var s = $0; try s.encode(value) } }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("CompactEncoder: nested containers are not supported (synthesized Codable does not use them)")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            preconditionFailure("CompactEncoder: nested containers are not supported (synthesized Codable does not use them)")
        }
        mutating func superEncoder() -> any Encoder { preconditionFailure("CompactEncoder: superEncoder is not supported") }
        mutating func superEncoder(forKey key: Key) -> any Encoder { preconditionFailure("CompactEncoder: superEncoder is not supported") }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let sink: Sink
        var codingPath: [any CodingKey]
        let countAt: Int
        private(set) var count = 0

        init(sink: Sink, codingPath: [any CodingKey], countAt: Int) {
            self.sink = sink; self.codingPath = codingPath; self.countAt = countAt
        }

        private mutating func element(_ body: (Single) throws -> Void) rethrows {
            sink.increment(countAt: countAt)
            count += 1
            let start = sink.openSlot()
            try body(Single(sink: sink, codingPath: codingPath))
            sink.closeSlot(start)
        }

        mutating func encodeNil() throws {
            sink.increment(countAt: countAt)
            count += 1
            sink.nilSlot()
        }
        mutating func encode(_ value: Bool) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: String) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Double) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Float) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Int) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Int8) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Int16) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Int32) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: Int64) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: UInt) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: UInt8) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: UInt16) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: UInt32) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode(_ value: UInt64) throws { try element { var s = $0; try s.encode(value) } }
        mutating func encode<T: Encodable>(_ value: T) throws { try element { var s = $0; try s.encode(value) } }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure("CompactEncoder: nested containers are not supported (synthesized Codable does not use them)")
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            preconditionFailure("CompactEncoder: nested containers are not supported (synthesized Codable does not use them)")
        }
        mutating func superEncoder() -> any Encoder { preconditionFailure("CompactEncoder: superEncoder is not supported") }
    }
}
