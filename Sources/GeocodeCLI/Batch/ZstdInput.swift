/// A zstd file as the stream of its uncompressed bytes, decompressed block by block. Concatenated frames
/// read as one stream (as `zstd -d` does). Truncated or corrupt input is an error naming the file and the
/// compressed byte offset, exit 3.
final class ZstdInput: ByteSource {
    private let source: FileDescriptorSource
    private let name: String
    private let decompressor: ZstdDecompressor
    private var block = [UInt8](repeating: 0, count: 128 << 10)
    private var start = 0, end = 0
    private var sourceEnded = false
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

    private var compressedOffset: Int { source.offset - (end - start) }

    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CLIError) -> Int {
        while true {
            if start == end {
                if sourceEnded {
                    if atFrameEnd || (produced == 0 && compressedOffset == 0) { return 0 }
                    throw .badInput("\(name): the zstd file is truncated: it ends at byte \(compressedOffset) inside a frame, "
                                    + "after \(produced) uncompressed bytes")
                }
                let n = try block.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<UInt8>) throws(CLIError) in
                    try source.read(into: b.baseAddress!, capacity: b.count)
                }
                start = 0
                end = n
                if n == 0 { sourceEnded = true; continue }
            }
            let step: CodecStep
            do throws(CompressionError) {
                let result: Result<CodecStep, CompressionError> = block.withUnsafeBytes { all in
                    do throws(CompressionError) {
                        return .success(
                        try decompressor.decompress(UnsafeRawBufferPointer(rebasing: all[start..<end]),
                                                    into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)))
                    } catch {
                        return .failure(error)
                    }
                }
                step = try result.get()
            } catch {
                throw .badInput("\(name): corrupt zstd data near byte \(compressedOffset) of the compressed file "
                                + "(after \(produced) uncompressed bytes): \(error.message)")
            }
            start += step.consumed
            produced += step.produced
            atFrameEnd = step.ended
            if step.produced > 0 { return step.produced }
        }
    }
}
