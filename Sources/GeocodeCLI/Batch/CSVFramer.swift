#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Frames CSV/TSV input into records: a record ends at a CR, LF or CRLF outside quotes; line breaks inside
/// quoted fields belong to the field. Empty lines are not records (they carry no data) but still count as
/// lines, so reported line numbers are the physical lines of the file.
final class CSVFramer: RecordFramer {
    private enum State { case fieldStart, unquoted, quoted, quoteInQuoted }

    let input: ByteInput
    let delimiter: UInt8
    /// Physical line at the cursor: LF, CRLF and a lone CR each end one line.
    private(set) var line = 1
    private var previousWasCR = false
    /// Whether the first record ended with CRLF (the output then uses CRLF too). Nil until known.
    private(set) var usesCRLF: Bool?
    /// The first record ended at a CR that was the last byte read so far: the next byte decides.
    private var firstEndIsUndecidedCR = false

    /// Bytes that matter outside quotes: the quote and the line breaks.
    private static let special: [Bool] = (0..<256).map { $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }

    /// The index of the first quote or CR in `from..<to` (or `to`).
    private static func nextQuoteOrCR(_ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var end = to
        if let q = memchr(p + from, 0x22, end - from) { end = p.distance(to: q.assumingMemoryBound(to: UInt8.self)) }
        if end > from, let c = memchr(p + from, 0x0D, end - from) { end = p.distance(to: c.assumingMemoryBound(to: UInt8.self)) }
        return end
    }

    /// Chunks of fewer records (the setup's one-record reads) are always framed here.
    static let unframedMinimumRecords = 64

    /// The next chunk as ``RawChunk/Framing/lines(firstLine:)``, when the bytes ahead allow it: no quote
    /// and no CR from the cursor to a line end about `targetBytes` on (or `maxRecords` lines on, as for a
    /// framed chunk: a pipe that delivers fewer bytes than `targetBytes` still gets its chunks). The
    /// reader then only looks for those two bytes and counts lines (memchr and 8 bytes at a time: a few
    /// instructions a row), instead of finding each record: with 2 workers, per-row work on the one
    /// reader thread caps the speed-up. Nil: a quote or CR comes too soon; the state machine below cuts
    /// this chunk.
    private func unframedChunk(targetBytes: Int, maxRecords: Int) throws(CLIError) -> RawChunk? {
        while true {
            // Offsets from the cursor (the chunk's start), which stay valid when fill() moves the buffer.
            var counted = 0, lines = 0
            var cut: (end: Int, lines: Int)?
            while cut == nil {
                let available = input.count - input.cursor
                let regionEnd = min(available, targetBytes)
                var stop = regionEnd
                var quit = false
                input.withBytes { b in
                    let p = b.baseAddress! + input.cursor
                    stop = Self.nextQuoteOrCR(p, from: counted, to: regionEnd)
                    let (n, capped) = Self.countLines(p, from: counted, to: stop, limit: maxRecords - lines)
                    if let capped {
                        cut = (capped, maxRecords)
                        return
                    }
                    lines += n
                    counted = stop
                    guard stop < regionEnd || regionEnd == targetBytes else { return }
                    // A quote or CR, or the target size: end just after the last LF before it (lines are
                    // short: a short walk back). A quote early in the chunk: the framer below takes the
                    // quoted part as one chunk, so a file with quotes in every row does not turn into tiny ones.
                    var i = stop
                    while i > 0 && p[i - 1] != 0x0A { i -= 1 }
                    if i == 0 || (stop < regionEnd && i < targetBytes / 2) {
                        quit = true
                    } else {
                        cut = (i, lines)
                    }
                }
                if quit { return nil }
                if cut != nil { break }
                // Once per read (not per row), so the failed read's care costs the rows nothing.
                guard let more = try failure.fill(input, framed: lines > 0) else {
                    // The read failed after whole lines: they go out, and the error with the next call. The
                    // bytes after the last LF were cut short: never a whole record.
                    cut = (input.withBytes { b in Self.lastLineEnd(b.baseAddress! + input.cursor, before: counted) }, lines)
                    break
                }
                if !more {
                    // End of input: the rest, its last line with or without an LF.
                    let rest = input.count - input.cursor
                    guard rest > 0 else { return nil }
                    cut = (rest, lines)
                }
            }
            let (end, count) = cut!
            let firstLine = line
            line += count
            let endIndex = input.cursor + end
            input.cursor = endIndex
            if end == count {
                // Only empty lines: no record, so no chunk (as the state machine skips them); go on after them,
                // unless a failed read ended them: its error now.
                input.discard()
                try failure.check()
                continue   // a loop, not a call: a file of blank lines is a long run of them
            }
            let bytes = input.take(upTo: endIndex)
            return RawChunk(sequence: 0, bytes: bytes, framing: .lines(firstLine: firstLine), inputOffset: input.offset)
        }
    }

    /// The index just after the last LF before `end` (0: none). Lines are short: a short walk back.
    private static func lastLineEnd(_ p: UnsafePointer<UInt8>, before end: Int) -> Int {
        var i = end
        while i > 0 && p[i - 1] != 0x0A { i -= 1 }
        return i
    }

    /// LFs in `from..<to`; when they reach `limit`, also the index just after the `limit`-th (the count is
    /// then `limit`). Eight bytes at a time (a byte loop costs ~3 instructions a byte on this thread).
    static func countLines(_ p: UnsafePointer<UInt8>, from: Int, to: Int, limit: Int) -> (count: Int, cappedAt: Int?) {
        var i = from, count = 0
        let raw = UnsafeRawPointer(p)
        // Blocks of at most 255 words, so no byte lane of the sum overflows.
        while i + 8 <= to {
            let words = min((to - i) / 8, 255)
            var lanes: UInt64 = 0
            for w in 0..<words { lanes &+= lineFeedBytes(raw.loadUnaligned(fromByteOffset: i &+ w &* 8, as: UInt64.self)) }
            // The eight lane sums, added: pairs into 16-bit lanes, then a multiply gathers them on top.
            let pairs = (lanes & 0x00FF_00FF_00FF_00FF) &+ ((lanes >> 8) & 0x00FF_00FF_00FF_00FF)
            let block = Int((pairs &* 0x0001_0001_0001_0001) >> 48)
            if count + block >= limit { break }
            count += block
            i += words * 8
        }
        while i < to {
            if p[i] == 0x0A {
                count += 1
                if count == limit { return (count, i + 1) }
            }
            i += 1
        }
        return (count, nil)
    }

    /// 1 in each byte lane of `word` that holds an LF, 0 elsewhere (exact: no carry between lanes).
    @inline(__always)
    private static func lineFeedBytes(_ word: UInt64) -> UInt64 {
        let x = word ^ 0x0A0A_0A0A_0A0A_0A0A          // zero where the byte is an LF
        let low7 = (x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F
        return (~(low7 | x) & 0x8080_8080_8080_8080) >> 7
    }

    init(input: ByteInput, delimiter: UInt8) {
        self.input = input
        self.delimiter = delimiter
    }

    var trailer: [UInt8] { [] }

    /// The error a call threw, which every later call throws again (``RecordFramer``).
    private var failure = FramingFailure()

    func nextChunk(targetBytes: Int, maxRecords: Int) throws(CLIError) -> RawChunk? {
        try failure.check()
        do throws(CLIError) { return try frameChunk(targetBytes: targetBytes, maxRecords: maxRecords) } catch { throw failure.keep(error) }
    }

    private func frameChunk(targetBytes: Int, maxRecords: Int) throws(CLIError) -> RawChunk? {
        // LF-only input outside quotes (nearly every file): cut at a line end and let the worker frame.
        if maxRecords >= Self.unframedMinimumRecords, usesCRLF == false, !previousWasCR, !firstEndIsUndecidedCR,
           input.mark == input.cursor, let chunk = try unframedChunk(targetBytes: targetBytes, maxRecords: maxRecords) {
            return chunk
        }
        var records: [RecordSpan] = []
        // Positions relative to input.mark, which buffer compaction keeps stable.
        var recordStart = input.cursor - input.mark
        var recordLine = line
        var state = State.fieldStart
        let quote = UInt8(ascii: "\""), lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
        let delimiter = self.delimiter
        let special = Self.special
        var full = false
        while !full {
            if input.cursor >= input.count {
                guard let more = try failure.fill(input, framed: !records.isEmpty) else {
                    // The whole records go out; the one the failed read cut short never was one.
                    input.cursor = input.mark + recordStart
                    break
                }
                if !more {
                    let end = input.cursor - input.mark
                    if end > recordStart { records.append(RecordSpan(range: recordStart..<end, line: recordLine)) }
                    break
                }
            }
            if firstEndIsUndecidedCR {
                firstEndIsUndecidedCR = false
                usesCRLF = input[input.cursor] == lf
            }
            let base = input.mark
            var i = input.cursor
            let n = input.count
            var line = self.line
            var previousWasCR = self.previousWasCR
            input.withBytes { b in
                let recordBase = base
                let start = b.baseAddress!
                // Bytes before this index hold no quote and no CR, so a record there ends at the next LF,
                // which memchr finds many bytes at a time. Found per read (the buffer moves on refill).
                var plainEnd = i
                while i < n {
                    switch state {
                    case .quoted:
                        // Inside quotes only a quote matters; line breaks still count as lines.
                        while i < n {
                            let c = b[i]
                            if c == quote { break }
                            if c == lf {
                                if !previousWasCR { line += 1 }
                                previousWasCR = false
                            } else if c == cr {
                                line += 1
                                previousWasCR = true
                            } else {
                                previousWasCR = false
                            }
                            i += 1
                        }
                        if i == n { return }
                        previousWasCR = false
                        state = .quoteInQuoted
                        i += 1
                        continue
                    case .quoteInQuoted:
                        if b[i] == quote {
                            // A doubled quote: still inside.
                            previousWasCR = false
                            state = .quoted
                            i += 1
                            continue
                        }
                        state = .unquoted
                    case .fieldStart, .unquoted:
                        break
                    }
                    // Outside quotes: skip to the next quote or line break (the common bytes cost one
                    // table load each; delimiters matter only to tell where a quote may open a field).
                    let skipFrom = i
                    if i >= plainEnd { plainEnd = Self.nextQuoteOrCR(start, from: i, to: n) }
                    if i < plainEnd {
                        if let lf = memchr(start + i, 0x0A, plainEnd - i) { i = start.distance(to: lf.assumingMemoryBound(to: UInt8.self)) } else { i = plainEnd }
                    }
                    while i < n, !special[Int(b[i])] { i += 1 }
                    if i > skipFrom { previousWasCR = false }
                    if i == n { return }
                    let c = b[i]
                    if c == quote {
                        // A quote opens a quoted field only at the start of a field; elsewhere it is text.
                        let recordStartIndex = recordBase + recordStart
                        if i == recordStartIndex || b[i - 1] == delimiter { state = .quoted }
                        previousWasCR = false
                        i += 1
                        continue
                    }
                    // A line break outside quotes: the record ends.
                    if c == lf {
                        if !previousWasCR { line += 1 }
                        previousWasCR = false
                    } else {
                        line += 1
                        previousWasCR = true
                    }
                    let end = i - base
                    if end > recordStart {
                        records.append(RecordSpan(range: recordStart..<end, line: recordLine))
                        if usesCRLF == nil && !firstEndIsUndecidedCR {
                            // A read can end between the CR and its LF: then the next byte decides.
                            if c == cr && i + 1 == n { firstEndIsUndecidedCR = true } else { usesCRLF = c == cr && b[i + 1] == lf }
                        }
                    }
                    recordStart = end + 1
                    recordLine = line
                    state = .fieldStart
                    i += 1
                    if !records.isEmpty && (records.count >= maxRecords || recordStart >= targetBytes) {
                        full = true
                        return
                    }
                }
            }
            input.cursor = i
            self.line = line
            self.previousWasCR = previousWasCR
        }
        if records.isEmpty { return nil }
        let bytes = input.take(upTo: input.cursor)
        if firstEndIsUndecidedCR {
            // The chunk ends right after that CR: look at the byte after it now, as the schema needs it.
            firstEndIsUndecidedCR = false
            var more = input.cursor < input.count
            // A failed read here: the chunk's records go out, the error with the next call; nothing
            // followed that CR, as at the end of input.
            if !more { more = try failure.fill(input, framed: true) ?? false }
            usesCRLF = more && input[input.cursor] == lf
        }
        return RawChunk(sequence: 0, bytes: bytes, records: records, inputOffset: input.offset)
    }
}
