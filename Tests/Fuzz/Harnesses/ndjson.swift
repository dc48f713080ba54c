// libFuzzer harness: NDJSON input through `geocode batch`'s input stack, reader, record decoder and NDJSON
// writer (see Support/BatchSupport.swift). First byte: options (bits 0-3 read and chunk sizes, bit 6 also
// read the file through gzip, bit 7 the key variants: dotted paths `a.lat`/`a.lon`, or by the content's
// length `--coords p`); the rest is the file.
//
// Invariants:
// - exactly one record per input line, in order: the records are, byte for byte, the input's lines
//   (split at LF, one trailing CR dropped) that are not blank (only spaces, tabs, CR);
// - exactly one output line per record, a JSON object (checked with Foundation's JSONSerialization)
//   whenever JSONSerialization reads its input line (values are carried through as they are); its
//   output line has every one of the input line's keys (so rows did not trade places or lose members);
//   a line the CLI could not read is carried verbatim as text;
// - however the input is cut into reads and chunks, the same result;
// - through gzip, whole: the same result; cut inside the last member: an error saying "truncated" or
//   "corrupt"; one byte inverted: that error or the same result (the csv harness's checkGzip, same rules).
import Foundation
@testable import GeocodeCLI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let content = bytes(data + 1, size - 1)
    let options = data[0]
    let variant: (inout BatchOptions) -> Void = { o in
        guard options & 0x80 != 0 else { return }
        if content.count % 2 == 1 {
            o.coordsColumn = "p"
        } else {
            o.latColumn = "a.lat"
            o.lonColumn = "a.lon"
        }
    }
    let outcome = runBatch(content, format: .ndjson, output: .ndjson, options: options, configure: variant)
    let again = runBatch(content, format: .ndjson, output: .ndjson, options: options ^ 0x0F, configure: variant)
    checkSameOutcome(outcome, again)
    if options & 0x40 != 0 {
        let members = 1 + content.count % 3
        checkSameOutcome(outcome, runBatch(content, format: .ndjson, output: .ndjson, options: options,
                                           stored: .gzip(members: members), configure: variant))
        let cut = runBatch(content, format: .ndjson, output: .ndjson, options: options,
                           stored: .gzipTruncated(members: members, fraction: Double(content.count % 97) / 97), configure: variant)
        check(cut.error?.code == .badInput && (cut.error!.message.contains("truncated") || cut.error!.message.contains("corrupt")),
              "a gzip file cut in its last member was not refused as truncated: \(String(describing: cut.error))")
        let damaged = runBatch(content, format: .ndjson, output: .ndjson, options: options,
                               stored: .gzipCorrupted(members: members, position: content.count * 7), configure: variant)
        if let error = damaged.error, error != outcome.error {
            check(error.code == .badInput && (error.message.contains("corrupt") || error.message.contains("truncated")
                                              || error.message.contains("unexpected data")),
                  "a damaged gzip file gave an unexpected error: \(error)")
        } else {
            checkSameOutcome(outcome, damaged)
        }
    }
    guard outcome.error == nil, let schema = outcome.schema else { return 0 }

    let lines = referenceLines(withoutBOM(content))
    check(outcome.records == lines, "framer cut \(outcome.records.count) records, the input has \(lines.count) lines: \(excerpt(content))")
    check(outcome.rows.count == lines.count, "\(lines.count) lines, \(outcome.rows.count) output rows")
    let added = Set(schema.addedNames + [schema.rawInputName])
    for (line, row) in zip(lines, outcome.rows) {
        check(row.last == 0x0A && !row.dropLast().contains(0x0A), "output row is not one line: \(excerpt(row))")
        // Values are carried through as they are (bytes that are not UTF-8, numbers like 1e400 that
        // JSONSerialization will not hold in a Double): a line it reads must come out readable too.
        let input = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
        guard let out = (try? JSONSerialization.jsonObject(with: Data(row))) as? [String: Any] else {
            check(input == nil, "output row is not a JSON object: \(excerpt(row))")
            continue
        }
        if let raw = out[schema.rawInputName] {
            // A line the CLI could not read as JSON is carried whole, as text.
            check(raw as? String == String(decoding: line, as: UTF8.self), "unreadable line not carried verbatim: \(excerpt(line))")
            continue
        }
        guard let input else { continue }
        for key in input.keys where !added.contains(key) {
            check(out[key] != nil, "output row lost key \(key.debugDescription) of its input line \(excerpt(line))")
        }
    }
    return 0
}
