/// A compression library call that failed, as a Swift value: which library and operation, what it said.
///
/// The batch layer adds the file name and the byte offset (``GzipInput``, ``ZstdInput``), which only it
/// knows; this folder knows only the C calls.
struct CompressionError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        /// The compressed bytes are not a valid stream (bad header, bad block, wrong checksum).
        case corrupt
        /// The library could not start (out of memory, version mismatch).
        case setup
    }

    var kind: Kind
    /// "inflate", "deflate", "ZSTD_decompressStream".
    var operation: String
    /// The library's own message ("incorrect header check", "Unknown frame descriptor").
    var message: String

    var description: String { message.isEmpty ? operation : "\(operation): \(message)" }
}

/// What one call to a streaming codec did.
struct CodecStep: Sendable, Equatable {
    /// Input bytes it used.
    var consumed: Int
    /// Output bytes it wrote.
    var produced: Int
    /// Whether a whole member (gzip) or frame (zstd) ended within this call.
    var ended: Bool
}
