import Dispatch
import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// The README's LocationManager example ("## The location manager"), compiled and run on the bundled
/// data and a real GPX drive. Only the file paths and the pacing (as fast as possible instead of 10×
/// real time) differ from the README; `print` is captured.
@Suite struct ReadmeExampleTests {
    @Test func locationManagerExample() async throws {
        let geocoder = try await DriveTests.loadedGeocoder()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpx = try #require(Bundle.module.url(forResource: "Fixtures/beijing-tianjin", withExtension: "gpx"))
        let printed = Recorder<String>()
        @Sendable func print(_ item: Any) { printed.append("\(item)") }

        // --- README example (keep in sync) ---
        let source = GPXPlaybackSource(contentsOf: gpx,
                                       configuration: .init(pacing: .asFastAsPossible))
        let manager = LocationManager(source: source, geocoder: geocoder,
                                      currentPlacemarkFile: dir.appendingPathComponent("current-city.json"))
        manager.distanceFilter = 50          // metres
        manager.desiredAccuracy = 25         // drop fixes worse than this
        manager.onCityChange = { from, to, _ in print("now in \(to.locality ?? "?") (was \(from.locality ?? "?"))") }
        let updates = manager.updates        // subscribe first: the sequence listens, it starts nothing
        manager.startUpdatingLocation()      // as with CLLocationManager, nothing comes before this
        for await event in updates { print(event) }   // or a delegate, or closures: same events, same order
        // --- end of README example ---

        // The loop ended (it did not wait forever). The closure runs on the delegate queue: once that
        // queue has run what was queued before the loop saw `.stopped`, every city change is printed.
        manager.delegateQueue.sync {}
        let lines = printed.values
        let closureLines = lines.filter { $0.hasPrefix("now in ") }
        let eventLines = lines.filter { !$0.hasPrefix("now in ") }
        // Beijing → Langfang → Tianjin, as shapely says (Fixtures/beijing-tianjin.expected.json).
        #expect(closureLines == ["now in 廊坊市 (was 北京市)", "now in 天津市 (was 廊坊市)"])
        #expect(eventLines.filter { $0.hasPrefix("cityChanged ") }.count == 2)
        #expect(eventLines.last == "stopped sourceFinished")
        #expect(eventLines.filter { $0.hasPrefix("error ") || $0.hasPrefix("warning ") } == [])
        // One location line per fix the 50 m filter keeps (counted here by brute force on the file's
        // trkpts; every hdop is 1, i.e. 5 m, within desiredAccuracy), each followed by its placemark.
        let kept = Self.keptByDistanceFilter(try Self.trackPoints(gpx), metres: 50)
        let locationIndices = eventLines.indices.filter { eventLines[$0].hasPrefix("location ") }
        #expect(locationIndices.count == kept)
        #expect(locationIndices.allSatisfy { eventLines[$0 + 1].hasPrefix("placemark ") })
        // The current city was persisted.
        let saved = try PlacemarkStore(url: dir.appendingPathComponent("current-city.json")).load()
        #expect(saved?.localityCode == "120000")
    }

    /// (latitude, longitude) of every `<trkpt>` in the file.
    static func trackPoints(_ url: URL) throws -> [(Double, Double)] {
        let text = try String(contentsOf: url, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)""#)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            let value = { (i: Int) in Double(text[Range(match.range(at: i), in: text)!])! }
            return (value(1), value(2))
        }
    }

    /// How many points a distance filter keeps: the first, then each at least `metres` (haversine on
    /// the mean Earth radius) from the last kept one.
    static func keptByDistanceFilter(_ points: [(Double, Double)], metres: Double) -> Int {
        func haversine(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
            let r = 6_371_008.8, rad = Double.pi / 180
            let dLat = (b.0 - a.0) * rad, dLon = (b.1 - a.1) * rad
            let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.0 * rad) * cos(b.0 * rad) * sin(dLon / 2) * sin(dLon / 2)
            return 2 * r * asin(min(1, h.squareRoot()))
        }
        var last: (Double, Double)?
        var count = 0
        for point in points where last.map({ haversine($0, point) >= metres }) ?? true {
            last = point
            count += 1
        }
        return count
    }
}
