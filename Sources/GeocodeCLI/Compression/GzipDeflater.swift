import CZlib

/// One zlib deflate stream writing a single gzip member, owned here from `deflateInit2` to `deflateEnd`.
final class GzipDeflater {
    private let owner: ZlibStream
    private var stream: UnsafeMutablePointer<z_stream> { owner.pointer }
    private var output = [UInt8](repeating: 0, count: 256 << 10)

    /// `level` 1...9; 6 is gzip's own default (a fair trade: most of 9's size at a fraction of its time).
    init(level: Int32 = 6) throws(CompressionError) {
        // 16 + 15: write a gzip header and trailer; memLevel 8 is zlib's default.
        owner = try ZlibStream(operation: "deflateInit2",
                               start: { deflateInit2_($0, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                                                      ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) },
                               end: { deflateEnd($0) })
    }

    /// Compresses `bytes`; `emit` receives compressed output as it fills up.
    func compress(_ bytes: [UInt8], emit: ([UInt8]) throws(CLIError) -> Void) throws(CLIError) {
        try run(bytes, flush: Z_NO_FLUSH, emit: emit)
    }

    /// Ends the member (the gzip trailer: CRC-32 and length).
    func finish(emit: ([UInt8]) throws(CLIError) -> Void) throws(CLIError) {
        try run([], flush: Z_FINISH, emit: emit)
    }

    private func run(_ bytes: [UInt8], flush: Int32, emit: ([UInt8]) throws(CLIError) -> Void) throws(CLIError) {
        try bytes.withUnsafeBufferPointer { (input: UnsafeBufferPointer<UInt8>) throws(CLIError) in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            while true {
                let capacity = output.count
                let status: Int32 = output.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(capacity)
                    return deflate(stream, flush)
                }
                let produced = capacity - Int(stream.pointee.avail_out)
                stream.pointee.next_out = nil
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    stream.pointee.next_in = nil
                    throw CLIError.io("cannot compress the output: zlib deflate status \(status)")
                }
                if produced > 0 { try emit(Array(output[..<produced])) }
                if flush == Z_FINISH {
                    if status == Z_STREAM_END { break }
                } else if stream.pointee.avail_in == 0 && produced < capacity {
                    break
                }
            }
            stream.pointee.next_in = nil
        }
    }
}
