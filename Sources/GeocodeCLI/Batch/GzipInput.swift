/// A gzip file as the stream of its uncompressed bytes (RFC 1952), decompressed block by block.
///
/// Several members one after the other (`cat a.gz b.gz`, `pigz`, `bgzip`) read as one stream, as
/// `gunzip` does; zero bytes after the last member (tape padding) are ignored, anything else after it is
/// an error. A stream that ends inside a member is truncated, one that zlib rejects (bad header, bad
/// block, CRC or length mismatch) is corrupt: both are errors that name the file and the compressed byte
/// offset, exit 3 like every other input that is not what it claims to be.
final class GzipInput: ByteSource {
    private let source: FileDescriptorSource
    private let name: String
    private var inflater: GzipInflater
    private var block = [UInt8](repeating: 0, count: 256 << 10)
    /// Compressed bytes in `block` not yet given to zlib: `block[start..<end]`.
    private var start = 0, end = 0
    private var sourceEnded = false
    /// Compressed offset where the current member starts, members seen, uncompressed bytes produced.
    private var memberStart = 0
    private var members = 1
    private var produced = 0
    /// Between members: the last one ended and the next has not started.
    private var betweenMembers = false
    private var finished = false

    init(source: FileDescriptorSource, name: String) throws(CLIError) {
        self.source = source
        self.name = name
        do throws(CompressionError) {
            inflater = try GzipInflater()
        } catch {
            throw .io("cannot decompress \(name): \(error)")
        }
        memberStart = source.offset
    }

    /// Compressed offset of the next byte zlib will see.
    private var compressedOffset: Int { source.offset - (end - start) }

    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CLIError) -> Int {
        while !finished {
            if start == end && !sourceEnded { try refill() }
            if betweenMembers {
                guard start < end else {
                    finished = true   // the input ends right after a member: complete
                    break
                }
                if block[start] == 0 {
                    // Padding: only zeros may follow, up to the end.
                    while start < end, block[start] == 0 { start += 1 }
                    if start == end { continue }
                    throw trailing()
                }
                guard end - start >= 2 || sourceEnded else { try refill(); continue }
                guard end - start >= 2, block[start] == 0x1F, block[start + 1] == 0x8B else { throw trailing() }
                do throws(CompressionError) { try inflater.reset() } catch { throw .io("cannot decompress \(name): \(error)") }
                memberStart = compressedOffset
                members += 1
                betweenMembers = false
            }
            let step: CodecStep
            do throws(CompressionError) {
                let result: Result<CodecStep, CompressionError> = block.withUnsafeBytes { all in
                    do throws(CompressionError) {
                        return .success(
                        try inflater.inflate(UnsafeRawBufferPointer(rebasing: all[start..<end]),
                                             into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)))
                    } catch {
                        return .failure(error)
                    }
                }
                step = try result.get()
            } catch {
                let at = memberStart + inflater.memberBytesIn
                throw .badInput("\(name): corrupt gzip data at byte \(at) of the compressed file (member \(members)"
                                + ", after \(produced) uncompressed bytes): \(error.message)")
            }
            start += step.consumed
            produced += step.produced
            if step.ended { betweenMembers = true }
            if step.produced > 0 { return step.produced }
            if !step.ended && start == end && sourceEnded {
                throw .badInput("\(name): the gzip file is truncated: it ends at byte \(compressedOffset) inside member \(members)"
                                + " (which starts at byte \(memberStart)), after \(produced) uncompressed bytes")
            }
        }
        return 0
    }

    /// Reads the next compressed block after the bytes not yet given to zlib.
    private func refill() throws(CLIError) {
        if start > 0 {
            let rest = end - start
            if rest > 0 { block.withUnsafeMutableBufferPointer { b in b.baseAddress!.update(from: b.baseAddress! + start, count: rest) } }
            start = 0
            end = rest
        }
        let n = try block.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<UInt8>) throws(CLIError) in
            try source.read(into: b.baseAddress! + end, capacity: b.count - end)
        }
        if n == 0 { sourceEnded = true }
        end += n
    }

    private func trailing() -> CLIError {
        .badInput("\(name): unexpected data at byte \(compressedOffset) of the compressed file, after gzip member \(members)"
                  + " ended (not another gzip member)")
    }
}
