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
    /// Compressed bytes not yet given to zlib.
    private var input = ReadBuffer(capacity: 256 << 10)
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
    private var compressedOffset: Int { source.offset - input.count }

    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CLIError) -> Int {
        while !finished {
            if input.count == 0 && !input.sourceEnded { try input.refill(from: source) }
            if betweenMembers {
                guard input.count > 0 else {
                    finished = true   // the input ends right after a member: complete
                    break
                }
                if input[input.start] == 0 {
                    // Padding: only zeros may follow, up to the end.
                    while input.count > 0, input[input.start] == 0 { input.start += 1 }
                    if input.count == 0 { continue }
                    throw trailing()
                }
                guard input.count >= 2 || input.sourceEnded else { try input.refill(from: source); continue }
                guard input.count >= 2, input[input.start] == 0x1F, input[input.start + 1] == 0x8B else { throw trailing() }
                do throws(CompressionError) { try inflater.reset() } catch { throw .io("cannot decompress \(name): \(error)") }
                memberStart = compressedOffset
                members += 1
                betweenMembers = false
            }
            let step: CodecStep
            do throws(CompressionError) {
                let result: Result<CodecStep, CompressionError> = input.withUnused { unused in
                    do throws(CompressionError) {
                        return .success(
                        try inflater.inflate(unused, into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)))
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
            input.start += step.consumed
            produced += step.produced
            if step.ended { betweenMembers = true }
            if step.produced > 0 { return step.produced }
            if !step.ended && input.count == 0 && input.sourceEnded {
                throw .badInput("\(name): the gzip file is truncated: it ends at byte \(compressedOffset) inside member \(members)"
                                + " (which starts at byte \(memberStart)), after \(produced) uncompressed bytes")
            }
        }
        return 0
    }

    private func trailing() -> CLIError {
        .badInput("\(name): unexpected data at byte \(compressedOffset) of the compressed file, after gzip member \(members)"
                  + " ended (not another gzip member)")
    }
}
