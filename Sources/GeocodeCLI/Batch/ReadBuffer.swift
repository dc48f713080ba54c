/// The bytes a stream layer (``GzipInput``, ``ZstdInput``, ``TranscodingInput``) has read from its
/// source and not yet used: `bytes[start..<end]`. One type, so the three layers compact and refill the
/// same way (each had its own copy of the loop).
struct ReadBuffer {
    private(set) var bytes: [UInt8]
    /// The first unused byte.
    var start = 0
    /// One past the last byte read.
    private(set) var end = 0
    /// True once the source has said it has no more bytes.
    private(set) var sourceEnded = false

    init(capacity: Int) { bytes = [UInt8](repeating: 0, count: capacity) }

    /// Bytes read and not yet used.
    var count: Int { end - start }

    subscript(i: Int) -> UInt8 { bytes[i] }

    /// Moves the unused bytes to the front and reads after them as much as fits; returns the bytes read
    /// (0: the source has ended, and `sourceEnded` is set).
    @discardableResult
    mutating func refill(from source: any ByteSource) throws(CLIError) -> Int {
        let rest = end - start
        if start > 0 {
            if rest > 0 { bytes.withUnsafeMutableBufferPointer { b in b.baseAddress!.update(from: b.baseAddress! + start, count: rest) } }
            start = 0
            end = rest
        }
        let n = try bytes.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<UInt8>) throws(CLIError) in
            try source.read(into: b.baseAddress! + rest, capacity: b.count - rest)
        }
        if n == 0 { sourceEnded = true }
        end += n
        return n
    }

    /// The unused bytes, for a decoder.
    func withUnused<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }
}
