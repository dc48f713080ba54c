/// One field value of a CSV/TSV record: either a span of the record's buffer (unquoted fields, the common
/// case, so no copy) or the unquoted content of a quoted field, copied out.
struct CSVValue: Sendable, Equatable {
    var span: Range<Int>
    var owned: [UInt8]?

    init(span: Range<Int>) {
        self.span = span
        self.owned = nil
    }

    init(owned: [UInt8]) {
        self.span = 0..<0
        self.owned = owned
    }

    /// Calls `body` with the value's bytes; `buffer` is the buffer the record was split from.
    @inline(__always)
    func withBytes<R>(in buffer: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let owned { return owned.withUnsafeBufferPointer(body) }
        return body(UnsafeBufferPointer(rebasing: buffer[span]))
    }

    /// The value as a String (invalid UTF-8 repaired), for headers and messages.
    func string(in buffer: UnsafeBufferPointer<UInt8>) -> String {
        withBytes(in: buffer) { String(decoding: $0, as: UTF8.self) }
    }
}
