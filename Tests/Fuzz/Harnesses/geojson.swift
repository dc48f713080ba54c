// libFuzzer harness: GeoJSON through `geocode batch`'s streaming readers, record decoder and GeoJSON
// writers (see Support/BatchSupport.swift), every input read twice: as one GeoJSON document (a
// FeatureCollection, one Feature or one bare Point) and as a GeoJSON text sequence (RFC 8142's records
// after an RS, or a Feature a line). First byte: options (bits 0-3 read and chunk sizes); the rest is
// the file.
//
// Invariants of the document, against Foundation's JSONSerialization reading it whole:
// - a document that is a valid JSON object with a "features" array (and no other "type" than
//   FeatureCollection, no member given twice) is never refused, and gives exactly one record per
//   feature, in order: record i parses to the same JSON as feature i; one with two "features" members
//   is refused;
// - exactly one output feature per record; when the input is valid, the output is too, with as many
//   features, and output feature i keeps input feature i's geometry;
// - a valid JSON object whose "type" (given once; no "features" member) is Feature or Point is never
//   refused: one record, the document itself; the output is one Feature, valid JSON, with the Feature's
//   geometry or the Point as its geometry;
// Invariants of the sequence, against a reference framer written here:
// - never refused (but for input the input stack refuses before any record: gzip or zstd magic bytes,
//   a UTF-32 byte-order mark); the records are, byte for byte, the reference's: with an RS as the first
//   byte that is not blank, the text between RSs without the blank space around it, empty ones skipped;
//   else the lines that are not blank, as NDJSON;
// - exactly one output row per record, in order, and in the input's layout: an RS first if the input
//   had them, then one line; a JSON Feature whenever JSONSerialization reads the record; a Feature or
//   Point record keeps its geometry (unless carried whole as text); a row without an error has a Point
//   geometry with a latitude and longitude in range (nothing passes unchecked);
// - the sniffers agree with the layout: an RS first is a sequence;
// - for both: however the input is cut into reads and chunks, the same result.
import Foundation
@testable import GeocodeCLI

private func json(_ bytes: some Collection<UInt8>) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
}

private func same(_ a: Any?, _ b: Any?) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case (let x as NSObject, let y as NSObject): return x.isEqual(y)
    default: return false
    }
}

/// The member names of the top-level object of valid JSON text, in order, decoded.
private func topLevelNames(_ text: [UInt8]) -> [String] {
    var names: [String] = []
    var depth = 0
    var expectName = false
    var i = 0
    while i < text.count {
        let c = text[i]
        if c == UInt8(ascii: "\"") {
            var j = i + 1
            while j < text.count, text[j] != UInt8(ascii: "\"") { j += text[j] == UInt8(ascii: "\\") ? 2 : 1 }
            let end = min(j + 1, text.count)
            if depth == 1, expectName, let name = json(text[i..<end]) as? String { names.append(name) }
            expectName = false
            i = end
            continue
        }
        switch c {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            expectName = depth == 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
        case UInt8(ascii: ","):
            expectName = depth == 1
        default:
            break
        }
        i += 1
    }
    return names
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let content = bytes(data + 1, size - 1)
    let head = Array(content.prefix(4096))
    let sniffed = BatchFormat.sniff(head)
    check(!BatchFormat.startsWithRecordSeparator(head) || (sniffed == .geojsonseq && BatchFormat.startsSequence(head)),
          "an RS first, sniffed as \(sniffed)")
    checkDocument(content, options: data[0])
    checkSequence(content, options: data[0])
    return 0
}

private func checkDocument(_ content: UnsafeBufferPointer<UInt8>, options: UInt8) {
    let outcome = runBatch(content, format: .geojson, output: .geojson, options: options)
    let again = runBatch(content, format: .geojson, output: .geojson, options: options ^ 0x0F)
    checkSameOutcome(outcome, again)
    check(outcome.rows.count == outcome.records.count, "\(outcome.records.count) records, \(outcome.rows.count) output rows")

    guard let document = json(withoutBOM(content)) as? [String: Any] else { return }
    // A repeated member of the collection: JSONSerialization keeps the last; the reader checks every
    // "type" (each must be FeatureCollection) and refuses a second "features" (it would pass through
    // unread, and readers that keep the last would see it, not the geocoded features).
    let names = topLevelNames(Array(withoutBOM(content)))
    guard let features = document["features"] as? [Any],
          document["type"] == nil || (document["type"] as? String) == "FeatureCollection" else {
        checkSingleObject(outcome, document, names: names)
        return
    }
    if names.filter({ $0 == "features" }).count > 1 {
        check(outcome.error != nil, "a collection with two \"features\" members was not refused")
        return
    }
    if names.filter({ $0 == "type" }).count > 1 { return }
    check(outcome.error == nil, "refused a valid FeatureCollection: \(outcome.error!)")
    check(outcome.records.count == features.count, "\(features.count) features, \(outcome.records.count) records")
    for (record, feature) in zip(outcome.records, features) {
        check(same(json(record), feature), "record is not its feature: \(excerpt(record))")
    }
    guard let out = json(outcome.output) as? [String: Any], let written = out["features"] as? [Any] else {
        violation("valid input, invalid output: \(excerpt(outcome.output, limit: 400))")
    }
    check(written.count == features.count, "\(features.count) features in, \(written.count) out")
    for (input, output) in zip(features, written) {
        guard let i = input as? [String: Any], let o = output as? [String: Any], i["type"] as? String == "Feature" else { continue }
        // A feature the CLI could not read (JSONSerialization forgives trailing commas, RFC 8259 and the
        // CLI do not) comes out as a new feature carrying the raw text instead.
        if let properties = o["properties"] as? [String: Any], properties["geocode_input"] != nil { continue }
        check(same(i["geometry"] ?? NSNull(), o["geometry"] ?? NSNull()), "output feature's geometry is not its input's")
    }
}

/// A document that is one Feature or one bare Point: one record, written as one Feature.
private func checkSingleObject(_ outcome: BatchOutcome, _ document: [String: Any], names: [String]) {
    // "type" given once (two different ones are refused; the reader checks each), and no "features"
    // member, which before "type" makes the object a collection to the streaming reader.
    guard let type = document["type"] as? String, type == "Feature" || type == "Point",
          names.filter({ $0 == "type" }).count == 1, !names.contains("features") else { return }
    check(outcome.error == nil, "refused a valid \(type): \(outcome.error!)")
    check(outcome.records.count == 1, "a \(type) document gave \(outcome.records.count) records")
    check(same(json(outcome.records[0]), document), "the record is not the \(type): \(excerpt(outcome.records[0]))")
    guard let out = json(outcome.output) as? [String: Any] else {
        violation("a valid \(type), invalid output: \(excerpt(outcome.output, limit: 400))")
    }
    check(out["type"] as? String == "Feature", "a \(type) was not written as a Feature: \(excerpt(outcome.output))")
    // One the CLI could not read (JSONSerialization forgives trailing commas) is carried as text.
    if let properties = out["properties"] as? [String: Any], properties["geocode_input"] != nil { return }
    let geometry = type == "Feature" ? document["geometry"] ?? NSNull() : document
    check(same(geometry, out["geometry"] ?? NSNull()), "the output Feature's geometry is not the \(type)'s")
}

// MARK: - Sequence

private func blank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }

/// The reference reading of a sequence: whether it has RSs, and its records.
private func referenceSequence(_ text: ArraySlice<UInt8>) -> (separated: Bool, records: [[UInt8]]) {
    guard text.first(where: { !blank($0) }) == 0x1E else { return (false, referenceLines(text)) }
    var records: [[UInt8]] = []
    for part in text.split(separator: 0x1E, omittingEmptySubsequences: false) {
        let trimmed = Array(part.drop(while: blank).reversed().drop(while: blank).reversed())
        if !trimmed.isEmpty { records.append(trimmed) }
    }
    return (true, records)
}

/// What the input stack refuses before a framer reads anything: compressed data that does not
/// decompress, or UTF-32 text.
private func refusedByTheInputStack(_ content: UnsafeBufferPointer<UInt8>) -> Bool {
    let start = Array(content.prefix(4))
    return start.starts(with: [0x1F, 0x8B]) || start.starts(with: [0x28, 0xB5, 0x2F, 0xFD])
        || start.starts(with: [0xFF, 0xFE, 0, 0]) || start.starts(with: [0, 0, 0xFE, 0xFF])
}

private func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

private func checkSequence(_ content: UnsafeBufferPointer<UInt8>, options: UInt8) {
    let outcome = runBatch(content, format: .geojsonseq, output: .geojsonseq, options: options)
    checkSameOutcome(outcome, runBatch(content, format: .geojsonseq, output: .geojsonseq, options: options ^ 0x0F))
    if let error = outcome.error {
        check(refusedByTheInputStack(content), "a sequence was refused: \(error)")
        return
    }
    let reference = referenceSequence(withoutBOM(content))
    check(outcome.records == reference.records,
          "framer cut \(outcome.records.count) records, the reference \(reference.records.count): \(excerpt(content))")
    check(outcome.schema?.recordSeparator == reference.separated, "RS before each record: \(reference.separated), output's differs")
    check(outcome.rows.count == outcome.records.count, "\(outcome.records.count) records, \(outcome.rows.count) output rows")
    check(outcome.preamble.isEmpty && outcome.closing.isEmpty, "text around a sequence's rows")
    for (record, row) in zip(outcome.records, outcome.rows) {
        check(row.last == 0x0A && !row.dropLast().contains(0x0A), "output row is not one line: \(excerpt(row))")
        check((row.first == 0x1E) == reference.separated, "output row's RS is not the input's: \(excerpt(row))")
        let text = row.dropFirst(reference.separated ? 1 : 0).dropLast()
        check(!text.contains(0x1E), "an RS inside an output record: \(excerpt(row))")
        // The record as the reader reads it: an RS before it in a sequence of lines is dropped.
        let input = json(record.drop { $0 == 0x1E || blank($0) })
        guard let out = json(text) as? [String: Any] else {
            // Values are carried through as they are (bytes that are not UTF-8, numbers like 1e400): only
            // a record JSONSerialization reads must come out readable.
            check(input == nil, "output record is not a JSON object: \(excerpt(row))")
            continue
        }
        check(out["type"] as? String == "Feature", "output record is not a Feature: \(excerpt(row))")
        guard let properties = out["properties"] as? [String: Any], let error = properties["geocode_error"] else {
            violation("output Feature has no geocode_error property: \(excerpt(row))")
        }
        if error is NSNull {
            let geometry = out["geometry"] as? [String: Any]
            let position = geometry?["coordinates"] as? [Any] ?? []
            let lon = number(position.first), lat = position.count > 1 ? number(position[1]) : nil
            check(geometry?["type"] as? String == "Point" && lon.map { abs($0) <= 180 } == true && lat.map { abs($0) <= 90 } == true,
                  "a row without an error has no Point in range: \(excerpt(row))")
        }
        guard let object = input as? [String: Any], properties["geocode_input"] == nil else { continue }
        switch object["type"] as? String {
        case "Feature"?:
            check(same(object["geometry"] ?? NSNull(), out["geometry"] ?? NSNull()), "output Feature's geometry is not its record's")
        case "Point"?:
            check(same(object, out["geometry"] ?? NSNull()), "a Point record is not its output Feature's geometry")
        default:
            break
        }
    }
}
