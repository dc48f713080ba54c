#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Frames a GeoJSON text sequence: one record per Feature, read as a stream.
///
/// Two layouts, told apart by the first byte of the input that is not blank:
/// - an RS (0x1E): RFC 8142 (after RFC 7464, JSON text sequences). Each record starts with an RS and
///   runs to the next, so a record may span lines (`jq --seq` pretty-prints them). JSON text cannot hold
///   a raw RS, so no parsing is needed to find records; blank records (two RS in a row) are skipped, as
///   RFC 7464 says.
/// - anything else: one record per line, as NDJSON (``NDJSONFramer``): what GDAL's GeoJSONSeq writes by
///   default and tippecanoe reads. An RS at the start of such a line is left to the decoder, which drops it
///   (GDAL reads either layout, so files that mix them exist).
///
/// Spans are trimmed of the blank space around the JSON text (the LF that ends each RS record), and a
/// record's line is the physical line its text starts on, so a bad row's message points at it.
final class GeoJSONSeqFramer: RecordFramer {
    let input: ByteInput
    /// The physical line of the next byte to frame, in the RS layout.
    private var line = 1
    /// The line layout's framer, once the layout is known to be lines.
    private var lines: NDJSONFramer?
    private var started = false
    /// Whether the input puts an RS before each record (RFC 8142); known after ``start()``.
    private(set) var separatedByRS = false

    var trailer: [UInt8] { [] }

    init(input: ByteInput) {
        self.input = input
    }

    /// Decides the layout from the first byte that is not blank, reading as far as that (nothing is
    /// consumed). Returns whether records are RS-separated. Called by the first ``nextChunk`` if not before.
    @discardableResult
    func start() throws(CLIError) -> Bool {
        if started { return separatedByRS }
        started = true
        var offset = 0
        while try input.ensure(offset + 1) {
            let c = input[input.cursor + offset]
            guard JSONScanner.isWhitespace(c) else {
                separatedByRS = c == BatchFormat.recordSeparatorByte
                break
            }
            offset += 1
        }
        if !separatedByRS { lines = NDJSONFramer(input: input) }
        return separatedByRS
    }

    /// The error a call threw, which every later call throws again (``RecordFramer``).
    private var failure = FramingFailure()

    func nextChunk(targetBytes: Int, maxRecords: Int) throws(CLIError) -> RawChunk? {
        try failure.check()
        do throws(CLIError) { return try frameChunk(targetBytes: targetBytes, maxRecords: maxRecords) } catch { throw failure.keep(error) }
    }

    private func frameChunk(targetBytes: Int, maxRecords: Int) throws(CLIError) -> RawChunk? {
        try start()
        if let lines { return try lines.nextChunk(targetBytes: targetBytes, maxRecords: maxRecords) }
        var records: [RecordSpan] = []
        var ended = false
        while !ended {
            // The cursor is at the start of a record: just after an RS, or at the input's start (where only
            // blank space comes before the first RS).
            let recordStart = input.cursor - input.mark
            var recordEnd: Int?
            while recordEnd == nil {
                if input.cursor >= input.count {
                    guard let more = try failure.fill(input, framed: !records.isEmpty) else {
                        // The whole records go out; the one the failure cut never was a record.
                        input.cursor = input.mark + recordStart
                        return RawChunk(sequence: 0, bytes: input.take(upTo: input.cursor), records: records, inputOffset: input.offset)
                    }
                    if !more {
                        ended = true
                        break
                    }
                }
                let hit: Int? = input.withBytes { b in
                    let start = b.baseAddress! + input.cursor
                    guard let found = memchr(start, Int32(BatchFormat.recordSeparatorByte), input.count - input.cursor) else { return nil }
                    return input.cursor + (UnsafeRawPointer(found) - UnsafeRawPointer(start))
                }
                if let hit {
                    recordEnd = hit - input.mark
                    input.cursor = hit + 1
                } else {
                    input.cursor = input.count
                }
            }
            addRecord(recordStart..<(recordEnd ?? input.cursor - input.mark), to: &records)
            if !records.isEmpty && (records.count >= maxRecords || input.cursor - input.mark >= targetBytes) { break }
        }
        if records.isEmpty { return nil }
        let bytes = input.take(upTo: input.cursor)
        return RawChunk(sequence: 0, bytes: bytes, records: records, inputOffset: input.offset)
    }

    /// Adds the text of one RS record (`range`, relative to the mark) without the blank space around it,
    /// unless it is all blank; counts the lines it spans.
    private func addRecord(_ range: Range<Int>, to records: inout [RecordSpan]) {
        input.withBytes { b in
            let base = b.baseAddress! + input.mark
            var first = range.lowerBound, end = range.upperBound
            var lineOfFirst = line
            while first < end, JSONScanner.isWhitespace(base[first]) {
                if base[first] == 0x0A { lineOfFirst += 1 }
                first += 1
            }
            while end > first, JSONScanner.isWhitespace(base[end - 1]) { end -= 1 }
            if first < end { records.append(RecordSpan(range: first..<end, line: lineOfFirst)) }
            // Every LF of the record, for the lines of the ones after it.
            var at = range.lowerBound
            while at < range.upperBound, let found = memchr(base + at, 0x0A, range.upperBound - at) {
                line += 1
                at = UnsafeRawPointer(found) - UnsafeRawPointer(base) + 1
            }
        }
    }
}
