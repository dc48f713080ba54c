import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// A fix whose accuracy is unknown (negative `horizontalAccuracy`: a GPX point without `<hdop>`, gpsd
/// without an error estimate) is a position all the same. It used to be dropped as invalid, which is why
/// GPX playback made up 5 m. Now: delivered under `accuracyAny` (the default) with its placemark and city
/// changes, answering a one-shot request; dropped under a finite `desiredAccuracy` (it cannot be shown to
/// be that good, and -1 must not read as better than 10); let through by the significant-change service,
/// which ignores `desiredAccuracy`; judged by a region monitor.
@Suite struct UnknownAccuracyTests {
    /// `latitudes` as a track whose fixes say nothing of their accuracy.
    static func unknown(_ latitudes: [Double]) -> [Location] {
        track(latitudes).map { known in
            var unknown = known
            unknown.horizontalAccuracy = -1
            return unknown
        }
    }

    @Test func aFixOfUnknownAccuracyIsValidAndSaysSo() {
        let unknown = fix(39.5, accuracy: -1)
        #expect(unknown.isValid && !unknown.horizontalAccuracyIsKnown)
        #expect(fix(39.5, accuracy: 0).horizontalAccuracyIsKnown)
        #expect(!fix(39.5, accuracy: .nan).isValid && !fix(39.5, accuracy: -.infinity).isValid)
        #expect(!fix(39.5, accuracy: -1, quality: .none).isValid, "no position is still no position")
    }

    /// The Beijing → Tianjin crossing of CityChangeTests, without accuracies: every fix delivered, and the
    /// one city change the accurate track gives.
    @Test func aTrackWithoutAccuracyPlaysAndChangesCity() async {
        let fixes = Self.unknown(CityChangeTests.crossing)
        let m = LocationManager(source: ScriptedSource(locations: fixes), geocoder: RegionProvider())
        #expect(m.desiredAccuracy == LocationManager.accuracyAny)
        let events = await drive(m)
        #expect(events.locations == fixes)
        #expect(events.cityChanges == [CityChangeSummary(from: "Beijing", to: "Tianjin", latitude: 39.3990)])
    }

    @Test func aFiniteDesiredAccuracyDropsThem() async {
        let fixes = [fix(39.5, accuracy: -1, t: 0), fix(39.5, accuracy: 10, t: 1), fix(39.5, accuracy: -0.5, t: 2),
                     fix(39.5, accuracy: 0, t: 3)]
        let m = LocationManager(source: ScriptedSource(locations: fixes), geocoder: RegionProvider())
        m.desiredAccuracy = 1e9
        let events = await drive(m)
        #expect(events.locations == [fixes[1], fixes[3]])
        // Said once a run, where the first of them was dropped: a track without accuracies does not vanish
        // without a word.
        let warning = LocationEvent.warning(.unknownAccuracyDropped(desiredAccuracy: 1e9))
        #expect(events.filter { if case .warning = $0 { true } else { false } } == [warning])
        #expect(events.first == warning)
        #expect(await drive(m).filter { $0 == warning }.count == 1, "again in the next run")
        // Anything from accuracyAny up accepts every valid fix.
        m.desiredAccuracy = .infinity
        #expect(await drive(m).locations == fixes)
    }

    @Test func theyAnswerARequestUnderAccuracyAnyOnly() async throws {
        let unknown = fix(39.3, 116.4, accuracy: -1)
        let m = LocationManager(source: ScriptedSource(locations: [unknown], finishes: false), geocoder: RegionProvider(),
                                clock: TestClock())
        #expect(try await m.locate() == LocationManager.Fix(location: unknown, placemark: .wuqing))

        let clock = TestClock()
        let strict = LocationManager(source: ScriptedSource(locations: [unknown], finishes: false), geocoder: RegionProvider(),
                                     clock: clock)
        strict.desiredAccuracy = 100
        strict.requestTimeout = 1
        let recording = await record(strict) {
            $0.requestLocation()
            clock.advance(by: .seconds(1))
        }
        #expect(recording.stream == [.error(.locationUnknown), .stopped(.requestFailed)])
    }

    @Test func theSignificantChangeServiceLetsThemThrough() async {
        // 0.01° of latitude ≈ 1.1 km: each one significant.
        let fixes = Self.unknown([39.50, 39.51, 39.52])
        let m = LocationManager(source: ScriptedSource(locations: fixes), geocoder: RegionProvider())
        m.desiredAccuracy = 1
        let events = await record(m) { $0.startMonitoringSignificantLocationChanges() }
        #expect(events.stream.locations == fixes)
    }

    /// A position report leaves the accuracy out, as every unknown value (a -1 on the wire reads as a
    /// radius), and reads back as unknown; a known one is a number, as before.
    @Test func aReportLeavesAnUnknownAccuracyOut() throws {
        let unknown = PositionReport(seq: 1, location: fix(39.5, accuracy: -1), placemark: nil)
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(unknown)) as? [String: Any])
        #expect(json["horizontalAccuracy"] == nil && json["latitude"] as? Double == 39.5)
        let back = try JSONDecoder().decode(PositionReport.self, from: JSONEncoder().encode(unknown))
        #expect(back == unknown && back.horizontalAccuracy == -1)
        let known = PositionReport(seq: 2, location: fix(39.5, accuracy: 4), placemark: nil)
        let knownJSON = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(known)) as? [String: Any])
        #expect(knownJSON["horizontalAccuracy"] as? Double == 4)
    }

    @Test func aRegionMonitorJudgesThem() async throws {
        let m = LocationManager(source: ScriptedSource(locations: Self.unknown(CityChangeTests.crossing)), geocoder: RegionProvider())
        var monitor: RegionMonitor? = try RegionMonitor(regions: [.administrative("tianjin", .code("120000", level: .city))],
                                                        hysteresis: .off)
        let stream = monitor!.events
        let collector = Task {
            var seen: [RegionEvent] = []
            for await event in stream { seen.append(event) }
            return seen
        }
        monitor!.attach(to: m)
        _ = await drive(m)
        await monitor!.waitUntilIdle()
        monitor = nil
        let events = await collector.value.map(\.description)
        #expect(events.first?.hasPrefix("state tianjin outside") == true, "\(events)")
        #expect(events.contains { $0.hasPrefix("entered tianjin") }, "\(events)")
    }
}
