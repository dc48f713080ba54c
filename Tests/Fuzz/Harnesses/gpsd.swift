// libFuzzer harness: bytes from gpsd's socket through GPSDLineBuffer and GPSDReport.parse, and
// each TPV on to a Location, as GPSDConnection does.
//
// Invariants:
// - chunking never matters: the bytes fed whole and in pieces give the same lines; no line holds a
//   newline or is empty;
// - a report's class is what Foundation's JSONSerialization (an independent JSON parser) finds in
//   the line's "class" string (where both read the line: JSONDecoder also takes raw control characters
//   in strings and numbers like `3840.`, which JSONSerialization refuses);
// - a TPV's latitude/longitude/mode are the line's own numbers; its Location has a position only
//   when mode ≥ 2 and both are present, and then it is exactly those numbers; a Location that
//   calls itself valid has a valid coordinate and a non-negative, finite accuracy.
import Foundation
@testable import LocationSources

private let receivedAt = Date(timeIntervalSince1970: 1_700_000_000)

private func number(_ any: Any?) -> Double? {
    (any as? NSNumber)?.doubleValue
}

/// Equal, or (for numbers of many digits, which the two parsers round differently) within 1e-12.
private func same(_ a: Double?, _ b: Double?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return a == b || abs(a - b) <= 1e-12 * max(abs(a), abs(b))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = bytes(data + 1, size - 1)

    var whole = GPSDLineBuffer()
    let (lines, overlong) = whole.append(input)
    var pieces = GPSDLineBuffer()
    var chunked: [String] = []
    var chunkedOverlong = false
    for r in Chunker(count: input.count, seed: UInt64(data[0]) | 0x100, maximum: Int(data[0]) + 1) {
        let (l, o) = pieces.append(UnsafeBufferPointer(rebasing: input[r]))
        chunked += l
        chunkedOverlong = chunkedOverlong || o
    }
    if !overlong && !chunkedOverlong {
        check(lines == chunked, "chunking changed the lines: \(lines.count) vs \(chunked.count)")
    }

    for line in lines {
        check(!line.isEmpty && !line.utf8.contains(0x0A), "line buffer produced \(line.debugDescription)")
        // JSONDecoder (which the client uses) accepts raw control characters inside strings; strict
        // JSONSerialization does not. That leniency is harmless, so the reference gets them as spaces.
        let controlsAsSpaces = Data(line.utf8.map { $0 < 0x20 ? 0x20 : $0 })
        let object = try? JSONSerialization.jsonObject(with: controlsAsSpaces, options: [.fragmentsAllowed])
        let dictionary = object as? [String: Any]
        let report: GPSDReport
        do {
            report = try GPSDReport.parse(line)
        } catch {
            continue
        }
        // JSONDecoder (the client's) is more lenient than JSONSerialization (e.g. `3840.` is a number to
        // it): a line only one of them reads is not compared.
        guard let dictionary else { continue }
        // With a key given twice, JSONDecoder keeps the first and JSONSerialization the last; gpsd never
        // repeats a key, and RFC 8259 leaves the choice open, so such lines are not compared.
        if ["\"class\"", "\"lat\"", "\"lon\"", "\"mode\""].contains(where: { line.components(separatedBy: $0).count > 2 }) { continue }
        let className = dictionary["class"] as? String
        switch report {
        case .tpv(let tpv):
            check(className == "TPV", "TPV from class \(String(describing: className))")
            check(same(tpv.latitude, number(dictionary["lat"])), "lat \(String(describing: tpv.latitude)) vs \(String(describing: dictionary["lat"]))")
            check(same(tpv.longitude, number(dictionary["lon"])), "lon \(String(describing: tpv.longitude)) vs \(String(describing: dictionary["lon"]))")
            // To 1e-12 too: a mode with more digits than a Double holds is rounded differently by the two
            // (6666666666666664.5 is the Int 6666666666666664 to JSONDecoder, the Double
            // 6666666666666665 to JSONSerialization; 333333333333333332.5 is 333333333333333332 to the
            // one and 333333333333333312 to the other).
            check(same(Double(tpv.mode), number(dictionary["mode"]) ?? 0), "mode \(tpv.mode) vs \(String(describing: dictionary["mode"]))")
            let location = tpv.location(receivedAt: receivedAt, assumedHorizontalAccuracy: 30)
            if tpv.mode >= 2, let lat = tpv.latitude, let lon = tpv.longitude {
                check(location.coordinate.latitude == lat && location.coordinate.longitude == lon, "location moved the position")
            } else {
                check(location.quality == .none && !location.isValid, "a fix without mode ≥ 2 and a position: \(location)")
            }
            if location.isValid {
                check(location.coordinate.isValid && location.horizontalAccuracy.isFinite && location.horizontalAccuracy >= 0,
                      "valid location \(location) from \(line.prefix(200))")
            }
            check(location.timestamp.timeIntervalSince1970.isFinite, "timestamp \(location.timestamp)")
        case .device:
            check(className == "DEVICE", "DEVICE from class \(String(describing: className))")
        case .error:
            check(className == "ERROR", "ERROR from class \(String(describing: className))")
        case .other(let name):
            check(className == name && !["TPV", "DEVICE", "ERROR"].contains(name), "other(\(name)) from class \(String(describing: className))")
        }
    }
    return 0
}
