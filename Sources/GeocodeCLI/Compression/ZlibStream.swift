import CZlib

/// One `z_stream`, owned here: allocated zeroed, started by the caller's `*Init2` (whose failure is a
/// typed error), and ended (`inflateEnd`/`deflateEnd`) and freed in deinit. The inflater and the
/// deflater each hold one.
final class ZlibStream {
    let pointer: UnsafeMutablePointer<z_stream>
    private let end: (UnsafeMutablePointer<z_stream>) -> Int32

    /// `start` initializes the stream (e.g. `inflateInit2_`); anything but `Z_OK` is a setup error naming
    /// `operation`. `end` releases zlib's state.
    init(operation: String, start: (UnsafeMutablePointer<z_stream>) -> Int32,
         end: @escaping (UnsafeMutablePointer<z_stream>) -> Int32) throws(CompressionError) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        self.end = end
        let status = start(pointer)
        guard status == Z_OK else {
            pointer.deinitialize(count: 1)
            pointer.deallocate()
            throw CompressionError(kind: .setup, operation: operation, message: "zlib status \(status)")
        }
    }

    deinit {
        _ = end(pointer)
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    /// zlib's message about the last error, if it left one.
    var message: String? { pointer.pointee.msg.map { String(cString: $0) } }
}
