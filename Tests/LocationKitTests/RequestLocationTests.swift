import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// One-shot requests: `requestLocation()` (events) and `locate()` (async).
@Suite struct RequestLocationTests {
    @Test func requestDeliversTheFirstAcceptableFixAndStops() async {
        let good = fix(39.5, accuracy: 8, t: 3)
        let source = ScriptedSource(locations: [
            fix(39.5, accuracy: -1, t: 0), fix(39.5, t: 1, quality: .none), fix(39.5, accuracy: 80, t: 2),
            good, fix(39.6, t: 4),
        ], finishes: false)
        let clock = TestClock()   // never advanced: the timeout cannot fire
        let m = LocationManager(source: source, geocoder: RegionProvider(), clock: clock)
        m.desiredAccuracy = 10
        let recording = await record(m) { $0.requestLocation() }
        // The fix of unknown accuracy (-1) is dropped by desiredAccuracy, which says so once.
        let expected: [LocationEvent] = [.warning(.unknownAccuracyDropped(desiredAccuracy: 10)),
                                         .location(good), .placemark(.chaoyang, for: good), .stopped(.requestFulfilled)]
        #expect(recording.stream == expected)
        #expect(recording.delegate == expected)
        #expect(recording.closures == expected)
        #expect(!m.isUpdatingLocation)
        #expect(source.stops == 1)
        #expect(m.location == good)
        #expect(clock.pending.isEmpty, "the request's timer was cancelled")
    }

    @Test func requestTimesOutWithLocationUnknown() async {
        let source = ScriptedSource([.event(.location(fix(39.5, quality: .none)))], finishes: false)
        let clock = TestClock()
        let m = LocationManager(source: source, geocoder: RegionProvider(), clock: clock)
        m.requestTimeout = 0.05
        let recording = await record(m) {
            $0.requestLocation()
            #expect(clock.pending == [.milliseconds(50)])
            clock.advance(by: .milliseconds(49))
            #expect($0.isUpdatingLocation, "not timed out before requestTimeout")
            clock.advance(by: .milliseconds(1))
            #expect(!$0.isUpdatingLocation, "timed out at requestTimeout")
        }
        let expected: [LocationEvent] = [.error(.locationUnknown), .stopped(.requestFailed)]
        #expect(recording.stream == expected)
        #expect(recording.delegate == expected)
        #expect(recording.closures == expected)
        #expect(source.stops == 1)
        #expect(!m.isUpdatingLocation)
    }

    @Test func locateReturnsFixAndPlacemark() async throws {
        let m = LocationManager(source: ScriptedSource(locations: [fix(39.3, 116.4)], finishes: false),
                                geocoder: RegionProvider(), clock: TestClock())
        let result = try await m.locate()
        #expect(result == LocationManager.Fix(location: fix(39.3, 116.4), placemark: .wuqing))
        #expect(!m.isUpdatingLocation)
    }

    @Test func locateTimesOut() async {
        let clock = TestClock()
        let m = LocationManager(source: ScriptedSource([], finishes: false), geocoder: RegionProvider(), clock: clock)
        m.requestTimeout = 0.02
        let answer = Task { try await m.locate() }
        await m.waitForPendingLocates(1)
        #expect(clock.pending == [.milliseconds(20)])
        clock.advance(by: .milliseconds(20))
        await #expect(throws: LocationError.locationUnknown) { try await answer.value }
        #expect(!m.isUpdatingLocation)
    }

    /// The source gives up before any fix: the request fails at once (no waiting for the timeout), and
    /// `locate()` reports the source's reason rather than a bare "location unknown".
    @Test func sourceEndsBeforeAFix() async {
        let source = ScriptedSource([.event(.error(.sourceUnavailable("gpsd at 127.0.0.1:2947: connection refused")))])
        let clock = TestClock()   // never advanced: the failure cannot be the timeout's
        let m = LocationManager(source: source, geocoder: RegionProvider(), clock: clock)
        let recording = await record(m) { $0.requestLocation() }
        #expect(recording.stream == [
            .error(.sourceUnavailable("gpsd at 127.0.0.1:2947: connection refused")),
            .error(.locationUnknown),
            .stopped(.sourceFinished),
        ])
        await #expect(throws: LocationError.sourceUnavailable("gpsd at 127.0.0.1:2947: connection refused")) {
            try await m.locate()
        }
    }

    /// During continuous updates a request is answered by the next accepted fix, even one the distance
    /// filter would drop, and updates go on.
    @Test func requestDuringContinuousUpdates() async throws {
        let gate = Gate()
        let steps: [ScriptedSource.Step] = [.event(.location(fix(39.5, t: 0))), .wait(gate)]
            + (1...3).map { .event(.location(fix(39.5, t: Double($0)))) }
        let m = LocationManager(source: ScriptedSource(steps), geocoder: RegionProvider(), clock: TestClock())
        m.distanceFilter = 100
        let updates = m.updates
        m.startUpdatingLocation()
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == .location(fix(39.5, t: 0)))
        async let answer = m.locate()
        await m.waitForPendingLocates(1)
        gate.open()
        #expect(try await answer.location == fix(39.5, t: 1))
        var rest: [LocationEvent] = []
        while let e = await iterator.next() { rest.append(e) }
        // The placemark of the first fix, then the answer; fixes 2 and 3 are inside the distance filter.
        // The run went on after the answer until the source ended (not `.requestFulfilled`).
        #expect(rest.locations == [fix(39.5, t: 1)])
        #expect(rest.last == .stopped(.sourceFinished))
        #expect(rest.filter(isStop).count == 1)
    }

    /// Starting continuous updates during a one-shot run turns it into a continuous one.
    @Test func startDuringARequest() async {
        let gate = Gate()
        let steps: [ScriptedSource.Step] = [.wait(gate)] + track([39.5, 39.6, 39.7]).map { .event(.location($0)) }
        let m = LocationManager(source: ScriptedSource(steps), geocoder: RegionProvider(), clock: TestClock())
        let recording = await record(m) {
            $0.requestLocation()
            #expect($0.isUpdatingLocation)
            $0.startUpdatingLocation()
            gate.open()
        }
        #expect(recording.stream.locations.count == 3)
        #expect(recording.stream.last == .stopped(.sourceFinished))
    }

    @Test func cancellingLocate() async {
        let m = LocationManager(source: ScriptedSource([], finishes: false), geocoder: RegionProvider(), clock: TestClock())
        let task = Task { try await m.locate() }
        await m.waitForPendingLocates(1)
        #expect(m.isUpdatingLocation)
        task.cancel()
        await #expect(throws: LocationError.cancelled) { try await task.value }
        m.stopUpdatingLocation()
    }

    @Test func locateInAnAlreadyCancelledTask() async {
        let m = LocationManager(source: ScriptedSource(locations: [fix(39.5)], finishes: false), geocoder: RegionProvider(),
                                clock: TestClock())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await m.locate()
        }
        await #expect(throws: LocationError.cancelled) { try await task.value }
        m.stopUpdatingLocation()
    }

    @Test func stopCancelsAPendingRequest() async {
        let clock = TestClock()
        let m = LocationManager(source: ScriptedSource([], finishes: false), geocoder: RegionProvider(), clock: clock)
        let updates = m.updates
        let task = Task { try await m.locate() }
        await m.waitForPendingLocates(1)
        #expect(m.isUpdatingLocation)
        m.stopUpdatingLocation()
        #expect(clock.pending.isEmpty, "the request's timer was cancelled")
        await #expect(throws: LocationError.cancelled) { try await task.value }
        var events: [LocationEvent] = []
        for await e in updates { events.append(e) }
        #expect(events == [.stopped(.requested)])  // no error event: the request was cancelled, not failed
    }

    /// Several waiters share one request.
    @Test func concurrentLocatesShareOneRequest() async throws {
        let gate = Gate()
        let source = ScriptedSource([.wait(gate), .event(.location(fix(39.5)))], finishes: false)
        let clock = TestClock()
        let m = LocationManager(source: source, geocoder: RegionProvider(), clock: clock)
        async let a = m.locate()
        async let b = m.locate()
        await m.waitForPendingLocates(2)
        #expect(clock.pending.count == 1, "one request, one timer")
        gate.open()
        let (x, y) = try await (a, b)
        #expect(x == y)
        #expect(source.runs == 1)
    }

    /// A request after a finished one starts a new run.
    @Test func requestsInARow() async throws {
        let source = ScriptedSource(locations: [fix(39.5)], finishes: false)
        let m = LocationManager(source: source, geocoder: RegionProvider(), clock: TestClock())
        _ = try await m.locate()
        _ = try await m.locate()
        #expect(source.runs == 2)
        #expect(source.stops == 2)
    }
}
