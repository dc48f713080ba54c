#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Frames NDJSON: one record per LF-terminated line (a CR before the LF is dropped). JSON text cannot
/// contain a raw newline, so no parsing is needed to find records. Blank lines are skipped but counted.
final class NDJSONFramer: RecordFramer {
    let input: ByteInput
    private(set) var line = 1

    init(input: ByteInput) {
        self.input = input
    }

    var trailer: [UInt8] { [] }

    /// The error a call threw, which every later call throws again (``RecordFramer``).
    private var failure = FramingFailure()

    func nextChunk(targetBytes: Int, maxRecords: Int) throws(CLIError) -> RawChunk? {
        try failure.check()
        do throws(CLIError) { return try frameChunk(targetBytes: targetBytes, maxRecords: maxRecords) } catch { throw failure.keep(error) }
    }

    private func frameChunk(targetBytes: Int, maxRecords: Int) throws(CLIError) -> RawChunk? {
        var records: [RecordSpan] = []
        var lineStart = input.cursor - input.mark
        while true {
            if input.cursor >= input.count {
                guard let more = try failure.fill(input, framed: !records.isEmpty) else {
                    input.cursor = input.mark + lineStart  // the whole lines go out; the cut one never was a record
                    break
                }
                if !more {
                    let end = input.cursor - input.mark
                    addRecord(lineStart..<end, to: &records)
                    break
                }
            }
            let base = input.mark
            let newline: Int? = input.withBytes { b in
                let start = b.baseAddress! + input.cursor
                guard let hit = memchr(start, 0x0A, input.count - input.cursor) else { return nil }
                return input.cursor + (UnsafeRawPointer(hit) - UnsafeRawPointer(start))
            }
            guard let newline else {
                input.cursor = input.count
                continue
            }
            addRecord(lineStart..<(newline - base), to: &records)
            line += 1
            input.cursor = newline + 1
            lineStart = newline + 1 - base
            if !records.isEmpty && (records.count >= maxRecords || lineStart >= targetBytes) { break }
        }
        if records.isEmpty { return nil }
        let bytes = input.take(upTo: input.cursor)
        return RawChunk(sequence: 0, bytes: bytes, records: records, inputOffset: input.offset)
    }

    /// Adds the line as a record unless it is blank; drops a trailing CR.
    private func addRecord(_ range: Range<Int>, to records: inout [RecordSpan]) {
        var end = range.upperBound
        let blank: Bool = input.withBytes { b in
            let base = input.mark
            if end > range.lowerBound, b[base + end - 1] == 0x0D { end -= 1 }
            return (range.lowerBound..<end).allSatisfy { JSONScanner.isLineWhitespace(b[base + $0]) }
        }
        if !blank { records.append(RecordSpan(range: range.lowerBound..<end, line: line)) }
    }
}
