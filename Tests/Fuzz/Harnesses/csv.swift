// libFuzzer harness: CSV and TSV input through `geocode batch`'s input stack, reader, schema detection
// (delimiter sniffing, header and column detection), record decoder and CSV/TSV writer (see
// Support/BatchSupport.swift). First byte: options (bits 0-3 read and chunk sizes, bit 4 TSV instead of
// CSV, bit 5 write the other delimited format, bit 6 also read the file through gzip, bit 7 the input
// variants: --decimal-comma, and by the content's length --coords 1 and --lon-first); the rest is the file.
//
// Invariants, against a reference RFC 4180 reader written here:
// - exactly one record per input row, in order: the records the framer cuts are, byte for byte, the
//   reference's rows for the delimiter the run chose (a row ends at CR, LF or CRLF outside quotes; empty
//   rows are no records; the header row, when the schema has one, is not a record);
// - exactly one output row per record, and row i carries record i: its first columns are record i's
//   fields, unquoted, unchanged (missing fields empty);
// - however the input is cut into reads and chunks, the same result;
// - through gzip (1 to 3 members): exactly the same result as the plain file; the gzip file cut inside its
//   last member: always an error (exit 3) that says "truncated" or "corrupt", never rows from a cut file
//   passed as complete; one byte of it inverted: that error, or (a byte gzip does not check, such as the
//   header's time) exactly the plain result.
import Foundation
@testable import GeocodeCLI

/// Rows of delimited text. A quote opens a quoted field only at the start of a field; inside, `""` is a
/// quote and CR/LF belong to the field; after the closing quote the field goes on unquoted.
private func referenceRows(_ text: ArraySlice<UInt8>, delimiter: UInt8) -> [[UInt8]] {
    enum State { case fieldStart, unquoted, quoted, afterQuote }
    var rows: [[UInt8]] = []
    var current: [UInt8] = []
    var state = State.fieldStart
    let q = UInt8(ascii: "\"")
    for c in text {
        switch state {
        case .quoted:
            current.append(c)
            if c == q { state = .afterQuote }
            continue
        case .afterQuote where c == q:
            current.append(c)
            state = .quoted
            continue
        case .fieldStart where c == q:
            current.append(c)
            state = .quoted
            continue
        default:
            break
        }
        if c == 0x0A || c == 0x0D {
            if !current.isEmpty { rows.append(current) }
            current = []
            state = .fieldStart
        } else {
            current.append(c)
            state = c == delimiter ? .fieldStart : .unquoted
        }
    }
    if !current.isEmpty { rows.append(current) }
    return rows
}

/// The fields of one row, quoting undone: `"a""b"` is `a"b`, text after a closing quote is kept,
/// a quote inside an unquoted field is a character.
private func referenceFields(_ row: [UInt8], delimiter: UInt8) -> [[UInt8]] {
    var fields: [[UInt8]] = []
    var i = 0
    let q = UInt8(ascii: "\"")
    while true {
        var value: [UInt8] = []
        if i < row.count && row[i] == q {
            i += 1
            while i < row.count {
                if row[i] == q {
                    if i + 1 < row.count && row[i + 1] == q { value.append(q); i += 2; continue }
                    i += 1
                    break
                }
                value.append(row[i]); i += 1
            }
        }
        while i < row.count && row[i] != delimiter { value.append(row[i]); i += 1 }
        fields.append(value)
        if i >= row.count { return fields }
        i += 1
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let options = data[0]
    let format: BatchFormat = options & 0x10 == 0 ? .csv : .tsv
    let output: BatchFormat = options & 0x20 == 0 ? format : (format == .csv ? .tsv : .csv)
    let content = bytes(data + 1, size - 1)
    let variant: (inout BatchOptions) -> Void = { o in
        guard options & 0x80 != 0 else { return }
        o.decimalComma = true
        if content.count % 2 == 1 { o.coordsColumn = "1" }
        if content.count % 4 == 3 { o.lonFirst = true }
    }
    let outcome = runBatch(content, format: format, output: output, options: options, configure: variant)
    let again = runBatch(content, format: format, output: output, options: options ^ 0x0F, configure: variant)
    checkSameOutcome(outcome, again)
    if options & 0x40 != 0 { checkGzip(content, format: format, output: output, options: options, plain: outcome, variant: variant) }
    guard outcome.error == nil, let schema = outcome.schema else { return 0 }

    let delimiter = schema.delimiter
    let rows = referenceRows(withoutBOM(content), delimiter: delimiter)
    let dataRows = schema.header != nil ? Array(rows.dropFirst()) : rows
    check(outcome.records == dataRows,
          "framer cut \(outcome.records.count) records, reference \(dataRows.count) rows: \(excerpt(content))")
    check(outcome.rows.count == outcome.records.count, "\(outcome.records.count) records, \(outcome.rows.count) output rows")
    let outDelimiter = schema.outputDelimiter
    for (record, row) in zip(outcome.records, outcome.rows) {
        var text = row
        if text.last == 0x0A { text.removeLast() }
        if text.last == 0x0D { text.removeLast() }
        let got = referenceFields(text, delimiter: outDelimiter)
        let want = referenceFields(record, delimiter: delimiter)
        for c in 0..<schema.columnCount {
            let expected = c < want.count ? want[c] : []
            check(c < got.count && got[c] == expected,
                  "output row does not carry its record: column \(c) is \(c < got.count ? excerpt(got[c]) : "missing"), input \(excerpt(expected))")
        }
    }
    return 0
}

/// The gzip invariants (shared in spirit with the ndjson harness).
func checkGzip(_ content: UnsafeBufferPointer<UInt8>, format: BatchFormat, output: BatchFormat, options: UInt8,
               plain: BatchOutcome, variant: @escaping (inout BatchOptions) -> Void) {
    let members = 1 + content.count % 3
    let zipped = runBatch(content, format: format, output: output, options: options, stored: .gzip(members: members), configure: variant)
    checkSameOutcome(plain, zipped)
    let fraction = Double(content.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF }) / 65536
    let cut = runBatch(content, format: format, output: output, options: options,
                       stored: .gzipTruncated(members: members, fraction: fraction), configure: variant)
    check(cut.error?.code == .badInput && (cut.error!.message.contains("truncated") || cut.error!.message.contains("corrupt")),
          "a gzip file cut in its last member was not refused as truncated: \(String(describing: cut.error))")
    let damaged = runBatch(content, format: format, output: output, options: options,
                           stored: .gzipCorrupted(members: members, position: Int(fraction * 1000)), configure: variant)
    if let error = damaged.error, error != plain.error {
        check(error.code == .badInput && (error.message.contains("corrupt") || error.message.contains("truncated")
                                          || error.message.contains("unexpected data")),
              "a damaged gzip file gave an unexpected error: \(error)")
    } else {
        checkSameOutcome(plain, damaged)
    }
}
