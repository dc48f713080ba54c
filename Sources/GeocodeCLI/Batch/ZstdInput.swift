/// A zstd file as the stream of its uncompressed bytes, decompressed block by block. Concatenated frames
/// read as one stream (as `zstd -d` does). Truncated or corrupt input is an error naming the file and the
/// compressed byte offset, exit 3.
final class ZstdInput: ByteSource {
    private let source: FileDescriptorSource
    private let name: String
    private let decompressor: ZstdDecompressor
    /// Compressed bytes not yet given to zstd.
    private var input = ReadBuffer(capacity: 128 << 10)
    /// Whether everything given so far ends exactly at a frame boundary.
    private var atFrameEnd = false
    private var produced = 0

    init(source: FileDescriptorSource, name: String) throws(CLIError) {
        self.source = source
        self.name = name
        do throws(CompressionError) {
            decompressor = try ZstdDecompressor()
        } catch {
            throw .io("cannot decompress \(name): \(error)")
        }
    }

    private var compressedOffset: Int { source.offset - input.count }

    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CLIError) -> Int {
        while true {
            if input.count == 0 {
                if input.sourceEnded {
                    if atFrameEnd || (produced == 0 && compressedOffset == 0) { return 0 }
                    throw .badInput("\(name): the zstd file is truncated: it ends at byte \(compressedOffset) inside a frame, "
                                    + "after \(produced) uncompressed bytes")
                }
                if try input.refill(from: source) == 0 { continue }
            }
            let step: CodecStep
            do throws(CompressionError) {
                let result: Result<CodecStep, CompressionError> = input.withUnused { unused in
                    do throws(CompressionError) {
                        return .success(
                        try decompressor.decompress(unused, into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)))
                    } catch {
                        return .failure(error)
                    }
                }
                step = try result.get()
            } catch {
                throw .badInput("\(name): corrupt zstd data near byte \(compressedOffset) of the compressed file "
                                + "(after \(produced) uncompressed bytes): \(error.message)")
            }
            input.start += step.consumed
            produced += step.produced
            atFrameEnd = step.ended
            if step.produced > 0 { return step.produced }
        }
    }
}
