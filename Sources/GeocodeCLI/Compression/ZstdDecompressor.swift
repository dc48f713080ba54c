import CZstd

/// One zstd decompression stream, owned here from `ZSTD_createDStream` to `ZSTD_freeDStream`.
///
/// Frames follow one another in the same stream (as `zstd` concatenates them); ``CodecStep/ended`` says
/// a frame was completed and nothing of a next one is buffered yet, so input ending there is complete.
final class ZstdDecompressor {
    private let stream: OpaquePointer

    init() throws(CompressionError) {
        guard let stream = ZSTD_createDStream() else {
            throw CompressionError(kind: .setup, operation: "ZSTD_createDStream", message: "out of memory")
        }
        self.stream = stream
        let status = ZSTD_initDStream(stream)
        if ZSTD_isError(status) != 0 {
            ZSTD_freeDStream(stream)
            throw CompressionError(kind: .setup, operation: "ZSTD_initDStream", message: String(cString: ZSTD_getErrorName(status)))
        }
    }

    deinit { ZSTD_freeDStream(stream) }

    func decompress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(CompressionError) -> CodecStep {
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var outBuffer = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        let hint = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
        if ZSTD_isError(hint) != 0 {
            throw CompressionError(kind: .corrupt, operation: "ZSTD_decompressStream", message: String(cString: ZSTD_getErrorName(hint)))
        }
        // A hint of 0: a frame is complete and fully flushed.
        return CodecStep(consumed: inBuffer.pos, produced: outBuffer.pos, ended: hint == 0)
    }
}
