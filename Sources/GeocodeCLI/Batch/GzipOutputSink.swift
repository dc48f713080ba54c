/// OUT ending in `.gz`: the output compressed as one gzip member on its way into another sink (the
/// atomic file), so a reader of OUT sees either the old file or the whole new compressed one.
final class GzipOutputSink: OutputSink {
    private let inner: any OutputSink
    private let deflater: GzipDeflater

    init(wrapping inner: any OutputSink) throws(CLIError) {
        self.inner = inner
        do throws(CompressionError) {
            deflater = try GzipDeflater()
        } catch {
            inner.abandon()
            throw .io("cannot compress the output: \(error)")
        }
    }

    func write(_ bytes: [UInt8]) throws(CLIError) {
        try deflater.compress(bytes) { (compressed: [UInt8]) throws(CLIError) in try inner.write(compressed) }
    }

    func commit() throws(CLIError) {
        try deflater.finish { (compressed: [UInt8]) throws(CLIError) in try inner.write(compressed) }
        try inner.commit()
    }

    func abandon() { inner.abandon() }
}
