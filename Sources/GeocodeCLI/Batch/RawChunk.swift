#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A run of whole input records, cut by a framer on the reader thread and handed to a worker.
///
/// Chunks are the unit of parallelism and of ordering: each gets a sequence number, workers finish them
/// in any order, and the writer puts them back in sequence.
struct RawChunk: Sendable {
    /// Where the records of ``bytes`` are.
    enum Framing: Sendable {
        /// Found by the framer, one span per record.
        case spans([RecordSpan])
        /// Not framed yet: the bytes hold no quote and no CR, so every LF ends a line and every non-empty
        /// line is a record. The worker finds them as it parses (``forEachRecord(_:)``), so the one reader
        /// thread does no per-row work and does not bound how fast the workers go together. `firstLine`
        /// is the physical line the bytes start on.
        case lines(firstLine: Int)
    }

    var sequence: Int
    /// The input bytes of the records (with their separators).
    var bytes: [UInt8]
    var framing: Framing
    /// Input bytes read up to the end of this chunk (BOM included), for the progress bar.
    var inputOffset: Int

    init(sequence: Int, bytes: [UInt8], records: [RecordSpan], inputOffset: Int) {
        self.init(sequence: sequence, bytes: bytes, framing: .spans(records), inputOffset: inputOffset)
    }

    init(sequence: Int, bytes: [UInt8], framing: Framing, inputOffset: Int) {
        self.sequence = sequence
        self.bytes = bytes
        self.framing = framing
        self.inputOffset = inputOffset
    }

    /// The records, framed if they are not yet (for callers off the hot path: setup, tests).
    var records: [RecordSpan] {
        switch framing {
        case .spans(let spans): return spans
        case .lines:
            var spans: [RecordSpan] = []
            bytes.withUnsafeBufferPointer { b in forEachRecord(in: b) { spans.append($0) } }
            return spans
        }
    }

    /// Calls `body` with each record in order. `b` must be ``bytes``' storage.
    @inline(__always)
    func forEachRecord(in b: UnsafeBufferPointer<UInt8>, _ body: (RecordSpan) -> Void) {
        switch framing {
        case .spans(let spans):
            for span in spans { body(span) }
        case .lines(let firstLine):
            guard let base = b.baseAddress else { return }
            let n = b.count
            var start = 0, line = firstLine
            while start < n {
                let end = memchr(base + start, 0x0A, n - start).map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? n
                if end > start { body(RecordSpan(range: start..<end, line: line)) }
                line += 1
                start = end + 1
            }
        }
    }
}
