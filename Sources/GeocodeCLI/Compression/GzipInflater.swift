import CZlib

/// One zlib inflate stream in gzip mode, owned here from `inflateInit2` to `inflateEnd`.
///
/// One gzip member at a time: after ``CodecStep/ended`` the caller decides whether more members follow
/// and calls ``reset()``. zlib checks each member's CRC-32 and length itself; a mismatch is
/// ``CompressionError/Kind/corrupt``.
final class GzipInflater {
    private let owner: ZlibStream
    private var stream: UnsafeMutablePointer<z_stream> { owner.pointer }

    init() throws(CompressionError) {
        // 16 + 15: a gzip wrapper (not zlib, not raw deflate) with the largest window.
        owner = try ZlibStream(operation: "inflateInit2",
                               start: { inflateInit2_($0, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) },
                               end: { inflateEnd($0) })
    }

    /// Bytes of the current member consumed so far.
    var memberBytesIn: Int { Int(stream.pointee.total_in) }

    /// Inflates as much of `input` into `output` as fits.
    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(CompressionError) -> CodecStep {
        guard !output.isEmpty else { return CodecStep(consumed: 0, produced: 0, ended: false) }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let status = CZlib.inflate(stream, Z_NO_FLUSH)
        let step = CodecStep(consumed: input.count - Int(stream.pointee.avail_in),
                             produced: output.count - Int(stream.pointee.avail_out), ended: status == Z_STREAM_END)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        switch status {
        case Z_OK, Z_STREAM_END:
            return step
        case Z_BUF_ERROR:
            // No progress possible with what was given (no input left): not an error, the caller reads more.
            return step
        case Z_DATA_ERROR:
            throw CompressionError(kind: .corrupt, operation: "inflate", message: message ?? "invalid compressed data")
        case Z_MEM_ERROR:
            throw CompressionError(kind: .setup, operation: "inflate", message: "out of memory")
        default:
            throw CompressionError(kind: .corrupt, operation: "inflate", message: message ?? "zlib status \(status)")
        }
    }

    /// Starts over for the next member (keeps the allocated window).
    func reset() throws(CompressionError) {
        guard inflateReset(stream) == Z_OK else {
            throw CompressionError(kind: .setup, operation: "inflateReset", message: message ?? "")
        }
    }

    private var message: String? { owner.message }
}
