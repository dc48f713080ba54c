import Foundation
import GeoModel
import LocationKit
import LocationSources

/// `geocode track --json`'s lines for the per-fix events (location, placemark, city changed), written
/// byte by byte. They are the same bytes `JSONSerialization` (`.sortedKeys`, `.withoutEscapingSlashes`)
/// writes for these objects, the format track has always printed, but `JSONSerialization` spent about
/// 90% of a `--speed max` replay (perf: its sorted-keys path compares keys through ICU collation,
/// per object, per nested placemark). Here the top-level keys are written in their sorted order by
/// hand, and a placemark's object, which stays the same over many fixes, is serialized once and reused.
///
/// Not thread-safe: one writer per printing loop.
final class TrackEventJSON {
    /// The last few placemarks' serialized objects (a track sees one placemark for many fixes; a city
    /// change event holds two).
    private var cache: [(placemark: Placemark, json: [UInt8])] = []
    private static let cacheSize = 4

    /// The line (without newline) for `event`, or `nil` for the events this writer does not handle
    /// (errors, warnings, region events, stops: rare, left to `JSONSerialization`).
    func line(_ event: LocationEvent) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        switch event {
        case .location(let l):
            // accuracy, altitude, course, event, latitude, longitude, speed, time. An unknown accuracy
            // (negative) is null, not -1 (which reads as a radius) and not left out: the key has always
            // been on every location line.
            out.append(contentsOf: "{\"accuracy\":".utf8)
            if l.horizontalAccuracyIsKnown { Self.appendNumber(l.horizontalAccuracy, to: &out) } else { out.append(contentsOf: "null".utf8) }
            if let alt = l.altitude { out.append(contentsOf: ",\"altitude\":".utf8); Self.appendNumber(alt, to: &out) }
            if l.course >= 0 { out.append(contentsOf: ",\"course\":".utf8); Self.appendNumber(l.course, to: &out) }
            out.append(contentsOf: ",\"event\":\"location\"".utf8)
            appendPosition(l, to: &out, speed: l.speed >= 0 ? l.speed : nil)
        case .placemark(let p, let l):
            // event, latitude, longitude, placemark, time
            out.append(contentsOf: "{\"event\":\"placemark\"".utf8)
            appendCoordinate(l, to: &out)
            out.append(contentsOf: ",\"placemark\":".utf8); appendPlacemark(p, to: &out)
            appendTime(l, to: &out)
        case .cityChanged(let from, let to, let l):
            // event, from, latitude, longitude, time, to
            out.append(contentsOf: "{\"event\":\"city_changed\",\"from\":".utf8); appendPlacemark(from, to: &out)
            appendCoordinate(l, to: &out)
            appendTime(l, to: &out)
            out.append(contentsOf: ",\"to\":".utf8); appendPlacemark(to, to: &out)
        case .error, .warning, .region, .stopped:
            return nil
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private func appendCoordinate(_ l: Location, to out: inout [UInt8]) {
        out.append(contentsOf: ",\"latitude\":".utf8); Self.appendNumber(l.coordinate.latitude, to: &out)
        out.append(contentsOf: ",\"longitude\":".utf8); Self.appendNumber(l.coordinate.longitude, to: &out)
    }

    private func appendPosition(_ l: Location, to out: inout [UInt8], speed: Double?) {
        appendCoordinate(l, to: &out)
        if let speed { out.append(contentsOf: ",\"speed\":".utf8); Self.appendNumber(speed, to: &out) }
        appendTime(l, to: &out)
    }

    private func appendTime(_ l: Location, to out: inout [UInt8]) {
        out.append(contentsOf: ",\"time\":".utf8)
        JSONWriter.appendString(TrackCommand.time(l.timestamp), to: &out)
    }

    private func appendPlacemark(_ p: Placemark?, to out: inout [UInt8]) {
        guard let p else {
            out.append(contentsOf: "null".utf8)
            return
        }
        if let hit = cache.firstIndex(where: { $0.placemark == p }) {
            out.append(contentsOf: cache[hit].json)
            return
        }
        let data = (try? JSONSerialization.data(withJSONObject: PlacemarkJSON.object(p), options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("null".utf8)
        let json = [UInt8](data)
        if cache.count == Self.cacheSize { cache.removeFirst() }
        cache.append((p, json))
        out.append(contentsOf: json)
    }

    /// A number as `JSONSerialization` writes a `Double`: the shortest round-trip form, without a
    /// trailing `.0` (`55` for 55.0). Non-finite values (which it refuses) are written as null.
    static func appendNumber(_ d: Double, to out: inout [UInt8]) {
        guard d.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        var text = d.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        out.append(contentsOf: text.utf8)
    }
}
