import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// Source errors reach every listener, typed, in order, and do not end a continuous run.
@Suite struct ErrorTests {
    @Test func mapping() {
        #expect(LocationError(.sourceUnavailable("a")) == .sourceUnavailable("a"))
        #expect(LocationError(.deviceDisconnected("b")) == .deviceDisconnected("b"))
        #expect(LocationError(.parse("c")) == .parse("c"))
        #expect(LocationError(.invalidFile("d")) == .invalidFile("d"))
        #expect(LocationError.parse("x.nmea:3: bad checksum").description == "parse error: x.nmea:3: bad checksum")
    }

    @Test func sourceErrorsArriveTypedAndInOrder() async {
        let steps: [ScriptedSource.Step] = [
            .event(.error(.sourceUnavailable("/dev/ttyACM0: permission denied"))),
            .event(.location(fix(39.5, t: 0))),
            .event(.error(.deviceDisconnected("/dev/ttyACM0: hang-up"))),
            .event(.error(.parse("line 12: truncated sentence"))),
            .event(.location(fix(39.5, t: 1))),
        ]
        let m = LocationManager(source: ScriptedSource(steps), geocoder: RegionProvider())
        let recording = await record(m) { $0.startUpdatingLocation() }
        let expectedErrors: [LocationError] = [
            .sourceUnavailable("/dev/ttyACM0: permission denied"),
            .deviceDisconnected("/dev/ttyACM0: hang-up"),
            .parse("line 12: truncated sentence"),
        ]
        for events in [recording.stream, recording.delegate, recording.closures] {
            #expect(events.errors == expectedErrors)
            #expect(events.locations.count == 2)  // the run went on after each error
        }
        #expect(recording.delegate == recording.stream)
        #expect(recording.closures == recording.stream)
    }

    /// Many events, delivered in order through all three styles (no reordering across queues).
    @Test func longRunKeepsOrder() async {
        var steps: [ScriptedSource.Step] = []
        for i in 0..<300 {
            steps.append(.event(.location(fix(39.3 + Double(i % 7) * 0.03, 116 + Double(i) * 0.001, t: Double(i)))))
            if i % 25 == 0 { steps.append(.event(.error(.parse("line \(i)")))) }
        }
        let m = LocationManager(source: ScriptedSource(steps), geocoder: RegionProvider())
        m.cityChangeHysteresis = .off
        let recording = await record(m) { $0.startUpdatingLocation() }
        #expect(recording.stream.locations.count == 300)
        #expect(recording.stream.locations.map(\.timestamp) == (0..<300).map { epoch.addingTimeInterval(Double($0)) })
        #expect(recording.stream.errors.count == 12)
        #expect(recording.delegate == recording.stream)
        #expect(recording.closures == recording.stream)
    }
}
