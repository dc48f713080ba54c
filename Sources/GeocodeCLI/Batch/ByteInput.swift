#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read buffer over a file descriptor for the framers: they scan bytes at ``cursor``, and ``take(upTo:)``
/// hands everything from ``mark`` on to a chunk.
///
/// The buffer keeps only the bytes from ``mark`` on, so memory is one read block plus the longest run of
/// records a chunk is cut from, whatever the size of the input. Indices are into ``buffer`` and move when
/// ``fill()`` compacts it; framers therefore keep their positions relative to ``mark``, which compaction
/// does not change.
final class ByteInput {
    /// Name for messages ("points.csv", "<stdin>").
    let name: String
    private(set) var buffer: [UInt8]
    /// Valid bytes in ``buffer``.
    private(set) var count = 0
    /// First byte still needed (not yet taken into a chunk).
    private(set) var mark = 0
    /// Scanning position of the framer.
    var cursor = 0
    private(set) var isAtEOF = false
    /// Input offset of `buffer[0]`.
    private(set) var bufferOffset = 0
    /// Whether the input started with a UTF-8 byte-order mark (skipped, and repeated in CSV output).
    private(set) var hadByteOrderMark = false
    /// The longest run of bytes one record (plus the records chunked with it) may occupy. Guards against
    /// an unbalanced quote swallowing a huge file into memory. Raised for GeoJSON, where one legitimate
    /// (if bad) feature can be a country-sized polygon.
    var maxPending: Int
    /// Size of each read(2): big enough to make syscalls negligible. Tests use tiny sizes to put buffer
    /// boundaries everywhere.
    let readSize: Int

    /// Where the bytes come from: the file, or the decompressing/transcoding layers over it (``InputStack``).
    private let source: any ByteSource

    convenience init(fd: Int32, name: String, readSize: Int = 1 << 20, maxPending: Int = 256 << 20) {
        self.init(source: FileDescriptorSource(fd: fd, name: name), name: name, readSize: readSize, maxPending: maxPending)
    }

    init(source: any ByteSource, name: String, readSize: Int = 1 << 20, maxPending: Int = 256 << 20) {
        self.source = source
        self.name = name
        self.readSize = max(4, readSize)
        self.maxPending = maxPending
        self.buffer = [UInt8](repeating: 0, count: self.readSize)
    }

    /// Input offset of the cursor.
    var offset: Int { bufferOffset + cursor }

    /// Bytes pending from ``mark`` to ``cursor``.
    var pendingCount: Int { cursor - mark }

    /// The error a ``fill()`` threw, which every later one throws again: what a look ahead stopped at
    /// (``peek(_:)``, ``InputSample``) reaches the framer where the input failed, after the records before it.
    private(set) var failure: CLIError?

    /// Reads more input, keeping everything from ``mark`` on. Returns false at end of input. Once it has
    /// thrown, it throws the same error again.
    ///
    /// Out of line: it runs once a read, and inlined into the framers' byte loops (GeoJSON's `peek`) it
    /// made them too big to inline in turn (+41 instructions a GeoJSON record, callgrind).
    @inline(never)
    func fill() throws(CLIError) -> Bool {
        if let failure { throw failure }
        do throws(CLIError) {
            return try readMore()
        } catch {
            failure = error
            throw error
        }
    }

    private func readMore() throws(CLIError) -> Bool {
        if isAtEOF { return false }
        if mark > 0 {
            // Compact: move the pending bytes to the front.
            let pending = count - mark
            buffer.withUnsafeMutableBufferPointer { b in
                if pending > 0 { _ = memmove(b.baseAddress!, b.baseAddress! + mark, pending) }
            }
            bufferOffset += mark
            cursor -= mark
            count = pending
            mark = 0
        }
        if buffer.count - count < max(1, readSize / 2) {
            guard buffer.count < maxPending else {
                throw .badInput("\(name): a single record is longer than \(maxPending >> 20) MiB (an unbalanced quote or bracket?)")
            }
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
        let space = min(buffer.count - count, readSize)
        let n = try readSome(space)
        if n == 0 {
            isAtEOF = true
            return false
        }
        let first = bufferOffset == 0 && count == 0
        count += n
        if first { try skipByteOrderMark() }
        return true
    }

    /// Skips a UTF-8 BOM at the very start of the input (read more if the first read was tiny).
    private func skipByteOrderMark() throws(CLIError) {
        while count < 3, !isAtEOF {
            let more = try readSome(buffer.count - count)
            if more == 0 { isAtEOF = true; break }
            count += more
        }
        if count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
            hadByteOrderMark = true
            mark = 3
            cursor = 3
        }
    }

    /// One read from the source into the free space after ``count``.
    private func readSome(_ space: Int) throws(CLIError) -> Int {
        let count = self.count
        return try buffer.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<UInt8>) throws(CLIError) in
            try source.read(into: b.baseAddress! + count, capacity: space)
        }
    }

    /// Makes sure at least `n` bytes from the cursor are buffered, if the input has them.
    func ensure(_ n: Int) throws(CLIError) -> Bool {
        while count - cursor < n {
            if try !fill() { return false }
        }
        return true
    }

    /// The first bytes of the input (at most `n`), without consuming them: for sniffing the format. A read
    /// that fails after some bytes ends them early, and the framer meets the error again (``fill()``) after
    /// the records before it; one that fails before any is thrown.
    func peek(_ n: Int) throws(CLIError) -> [UInt8] {
        do throws(CLIError) {
            _ = try ensure(n)
        } catch {
            if count == cursor { throw error }
        }
        return Array(buffer[cursor..<min(count, cursor + n)])
    }

    /// Takes the bytes from ``mark`` to `end` (an index into ``buffer``) and moves ``mark`` there.
    func take(upTo end: Int) -> [UInt8] {
        let bytes = Array(buffer[mark..<end])
        mark = end
        return bytes
    }

    /// Drops the bytes before the cursor without taking them.
    func discard() { mark = cursor }

    /// The byte at buffer index `i` (valid below ``count``).
    @inline(__always) subscript(i: Int) -> UInt8 { buffer[i] }

    /// Runs `body` over the buffer's storage, for tight scanning loops.
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try buffer.withUnsafeBufferPointer(body)
    }
}
