// libFuzzer harness: a GeoJSON FeatureCollection through `geocode batch`'s streaming reader, record
// decoder and GeoJSON writer (see Support/BatchSupport.swift). First byte: options (bits 0-3 read and
// chunk sizes); the rest is the file.
//
// Invariants, against Foundation's JSONSerialization reading the whole document:
// - a document that is a valid JSON object with a "features" array (and no other "type" than
//   FeatureCollection, no member given twice) is never refused, and gives exactly one record per
//   feature, in order: record i parses to the same JSON as feature i; one with two "features" members
//   is refused;
// - exactly one output feature per record; when the input is valid, the output is too, with as many
//   features, and output feature i keeps input feature i's geometry;
// - however the input is cut into reads and chunks, the same result.
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
    let outcome = runBatch(content, format: .geojson, output: .geojson, options: data[0])
    let again = runBatch(content, format: .geojson, output: .geojson, options: data[0] ^ 0x0F)
    checkSameOutcome(outcome, again)
    check(outcome.rows.count == outcome.records.count, "\(outcome.records.count) records, \(outcome.rows.count) output rows")

    let document = json(withoutBOM(content)) as? [String: Any]
    guard let document, let features = document["features"] as? [Any],
          document["type"] == nil || (document["type"] as? String) == "FeatureCollection" else { return 0 }
    // A repeated member of the collection: JSONSerialization keeps the last; the reader checks every
    // "type" (each must be FeatureCollection) and refuses a second "features" (it would pass through
    // unread, and readers that keep the last would see it, not the geocoded features).
    let names = topLevelNames(Array(withoutBOM(content)))
    if names.filter({ $0 == "features" }).count > 1 {
        check(outcome.error != nil, "a collection with two \"features\" members was not refused")
        return 0
    }
    if names.filter({ $0 == "type" }).count > 1 { return 0 }
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
    return 0
}
