import Foundation

/// What `XMLParser` reads a GPX file through: the raw bytes, a chunk at a time, prepared by
/// ``GPXEncoding`` on the way. `XMLParser(stream:)` feeds libxml2's push parser chunk by chunk, and
/// libxml2 drops what it has parsed as it goes; so nothing holds the whole document, and libxml2's
/// 10,000,000-byte lookahead limit (which `XMLParser(data:)` hits with a file that size, as
/// "XML error 1", since it pushes the whole file as one chunk) never applies.
///
/// A read or preparation error ends the stream (`read` returns -1) and is kept in ``failure``, which
/// the parser reports in place of the XML parser's own complaint.
final class GPXInputStream: InputStream {
    /// Where the raw bytes come from.
    enum Source {
        case file(FileHandle, path: String)
        case data(Data)
    }

    /// Raw bytes read per chunk: large enough that per-chunk costs vanish, small against memory.
    static let chunkSize = 64 * 1024

    private let source: Source
    private let fileName: String
    private var encoding: GPXEncoding
    private var dataOffset = 0
    private var buffer: [UInt8] = []
    private var offset = 0
    private var ended = false
    /// Why the stream ended early, if it did.
    private(set) var failure: GPXParseError?

    init(_ source: Source, fileName: String) {
        self.source = source
        self.fileName = fileName
        self.encoding = GPXEncoding(fileName: fileName)
        super.init(data: Data())
    }

    override func open() {}
    override func close() {}
    override var hasBytesAvailable: Bool { failure == nil && !(ended && offset == buffer.count) }
    // XMLParser asks for this after a failed read; InputStream's own getter crashes on a subclass.
    override var streamError: (any Error)? {
        failure.map { NSError(domain: "GPXParseError", code: 1, userInfo: [NSLocalizedDescriptionKey: $0.description]) }
    }
    override var streamStatus: Stream.Status {
        if failure != nil { return .error }
        return ended && offset == buffer.count ? .atEnd : .open
    }

    override func read(_ out: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        while offset == buffer.count {
            if failure != nil { return -1 }
            if ended { return 0 }
            refill()
        }
        let count = min(length, buffer.count - offset)
        buffer.withUnsafeBufferPointer { bytes in
            out.update(from: bytes.baseAddress! + offset, count: count)
        }
        offset += count
        return count
    }

    private func refill() {
        buffer = []
        offset = 0
        let raw: [UInt8]?
        switch source {
        case .data(let data):
            if dataOffset < data.count {
                let end = min(data.count, dataOffset + Self.chunkSize)
                raw = [UInt8](data[(data.startIndex + dataOffset)..<(data.startIndex + end)])
                dataOffset = end
            } else {
                raw = nil
            }
        case .file(let handle, let path):
            do {
                raw = try handle.read(upToCount: Self.chunkSize).flatMap { $0.isEmpty ? nil : [UInt8]($0) }
            } catch {
                failure = GPXParseError(file: fileName, line: 0, reason: "cannot read \(path): \(error.localizedDescription)")
                return
            }
        }
        do throws(GPXParseError) {
            if let raw {
                buffer = try encoding.feed(raw)
            } else {
                buffer = try encoding.finish()
                ended = true
            }
        } catch {
            failure = error
        }
    }
}
