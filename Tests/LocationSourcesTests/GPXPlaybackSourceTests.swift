import Foundation
import Testing
import GeoModel
@testable import LocationSources

/// Wall-clock checks here are lower bounds only (pacing never delivers early); a starved machine can make a
/// fix late but cannot fail a test. The exact schedule is checked without a clock in `pacingSchedule`.
/// The time limit is a hang guard only (a wait that was not cut short, a run an hour long), far beyond
/// any starved but working run.
@Suite("GPX playback", .timeLimit(.minutes(30)))
struct GPXPlaybackSourceTests {
    private static let start = Date(timeIntervalSince1970: 1_700_000_000)
    private func locations(_ stream: AsyncStream<LocationSourceEvent>) async -> [Location] {
        var out: [Location] = []
        for await event in stream {
            guard case .location(let location) = event else {
                Issue.record("unexpected \(event)")
                continue
            }
            out.append(location)
        }
        return out
    }

    @Test("a timed track plays on the file's clock, with speed and course from neighbouring points")
    func trackTimeline() throws {
        let points = try GPXParser.parse(contentsOf: try GPXFixtures.url("track-with-time.gpx")).playbackPoints
        let fixes = GPXPlaybackSource.timeline(of: points, startDate: Self.start)
        #expect(fixes.count == points.count)
        #expect(fixes.map(\.timestamp) == points.map { $0.time! }, "file times, not the start date")
        #expect(fixes.map(\.coordinate) == points.map(\.coordinate))
        #expect(fixes.map(\.altitude) == points.map(\.elevation))

        let legMetres = points[0].coordinate.distance(to: points[1].coordinate)
        #expect(abs(fixes[1].speed - legMetres / 5) < 1e-9)
        #expect(abs(fixes[0].speed - legMetres / 5) < 1e-9, "first point takes the leg leaving it")
        #expect(fixes[1].course > 40 && fixes[1].course < 50, "north-east along the path: \(fixes[1].course)")
        #expect(fixes[0].horizontalAccuracy == 0.8 * 5, "hdop × metresPerDOP")
        // No <hdop>: the file says nothing of the accuracy, so neither does the fix (it said 5 m, made up),
        // and it is still a fix to use; a configured figure is used where one is given.
        #expect(fixes[3].horizontalAccuracy < 0 && !fixes[3].horizontalAccuracyIsKnown, "no hdop → unknown")
        #expect(fixes[3].isValid && fixes[3].quality == .simulated)
        let assumed = GPXPlaybackSource.timeline(of: points, configuration: .init(horizontalAccuracy: 5), startDate: Self.start)
        #expect(assumed[3].horizontalAccuracy == 5 && assumed[0].horizontalAccuracy == 0.8 * 5, "configured, only without hdop")
        let garbage = GPXPlaybackSource.timeline(of: points, configuration: .init(horizontalAccuracy: .nan), startDate: Self.start)
        #expect(garbage[3].horizontalAccuracy == -1 && garbage[3].isValid, "a NaN configured is unknown, not an invalid fix")
        #expect(fixes[0].verticalAccuracy == -1)
        #expect(fixes[0].quality == .simulated && fixes[0].isValid)
        #expect(fixes[6].quality == Location.FixQuality.none && !fixes[6].isValid, "<fix>none</fix>")
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
    }

    @Test("an untimed route is paced one second per point from the start date, with no made-up speed")
    func routeTimeline() throws {
        let points = try GPXParser.parse(contentsOf: try GPXFixtures.url("route-without-time.gpx")).playbackPoints
        let fixes = GPXPlaybackSource.timeline(of: points, startDate: Self.start)
        #expect(fixes.count == points.count)
        for (i, fix) in fixes.enumerated() {
            #expect(fix.timestamp == Self.start.addingTimeInterval(Double(i)), "the default: one second apart")
            #expect(fix.speed == -1, "speed from times playback made up would be made up too")
        }
        #expect(fixes[1].course >= 0, "course still comes from the geometry")
        let slower = GPXPlaybackSource.timeline(of: points, configuration: .init(untimedInterval: 2.5), startDate: Self.start)
        #expect(slower.last?.timestamp == Self.start.addingTimeInterval(2.5 * Double(points.count - 1)))
    }

    @Test("a point whose time goes backwards comes one interval after the point before")
    func backwardsTime() {
        let a = GPXPoint(kind: .trackPoint, coordinate: Coordinate(latitude: 0, longitude: 0), time: Self.start)
        let b = GPXPoint(kind: .trackPoint, coordinate: Coordinate(latitude: 0, longitude: 0.001),
                         time: Self.start.addingTimeInterval(-30))
        let fixes = GPXPlaybackSource.timeline(of: [a, b], startDate: .distantPast)
        #expect(fixes[1].timestamp == Self.start.addingTimeInterval(1))
    }

    /// Paris → Berlin as two route points without `<time>`: 878 km, a day apart at the old 10 m/s.
    private static let parisBerlin = GPXDocument(routePoints: [
        GPXPoint(kind: .routePoint, coordinate: Coordinate(latitude: 48.8566, longitude: 2.3522), name: "Paris", segment: 1),
        GPXPoint(kind: .routePoint, coordinate: Coordinate(latitude: 52.5200, longitude: 13.4050), name: "Berlin", segment: 1),
    ])

    @Test("an untimed Paris → Berlin route replays in real time one second per point, not a day apart")
    func untimedRouteInRealTime() async throws {
        let clock = VirtualPlaybackClock()
        let source = GPXPlaybackSource(document: Self.parisBerlin, configuration: .init(pacing: .realTime(speedFactor: 5)), clock: clock)
        var arrivals: [Duration] = []
        var fixes: [Location] = []
        for await event in source.events() {
            arrivals.append(clock.now)
            if case .location(let location) = event { fixes.append(location) }
        }
        #expect(fixes.count == 2)
        #expect(fixes[1].timestamp.timeIntervalSince(fixes[0].timestamp) == 1)
        #expect(arrivals[1] - arrivals[0] == .milliseconds(200), "1 s at 5×: \(arrivals)")
    }

    @Test("as fast as possible, an untimed route plays at once")
    func untimedRouteAsFastAsPossible() async {
        let source = GPXPlaybackSource(document: Self.parisBerlin, configuration: .init(pacing: .asFastAsPossible))
        let fixes = await locations(source.events())
        #expect(fixes.map(\.coordinate) == Self.parisBerlin.routePoints.map(\.coordinate))
        #expect(PlaybackPacing.asFastAsPossible.wallSeconds(for: fixes[1].timestamp.timeIntervalSince(fixes[0].timestamp)) == nil,
                "no wait between them")
    }

    @Test("the pacing schedule: timeline seconds divided by the speed factor, never negative")
    func pacingSchedule() {
        #expect(PlaybackPacing.realTime(speedFactor: 20).wallSeconds(for: 2) == 0.1)
        #expect(PlaybackPacing.realTime.wallSeconds(for: 2.5) == 2.5)
        #expect(PlaybackPacing.realTime(speedFactor: 0.5).wallSeconds(for: 3) == 6)
        #expect(PlaybackPacing.realTime.wallSeconds(for: -4) == 0, "time going backwards doesn't wait")
        #expect(PlaybackPacing.asFastAsPossible.wallSeconds(for: 100) == nil)
        #expect(PlaybackPacing.realTime(speedFactor: 0).wallSeconds(for: 1) == nil, "no factor → don't wait forever")
        #expect(PlaybackPacing.realTime(speedFactor: .infinity).wallSeconds(for: 1) == nil)
    }

    @Test("as fast as possible: every point, in file order, with file timestamps")
    func asFastAsPossible() async throws {
        let url = try GPXFixtures.url("track-with-time.gpx")
        let source = GPXPlaybackSource(contentsOf: url, configuration: .init(pacing: .asFastAsPossible))
        // The file spans five minutes; that nothing waits is the schedule's (pacingSchedule), not timed here.
        let played = await locations(source.events())
        let points = try GPXParser.parse(contentsOf: url).playbackPoints
        #expect(played == GPXPlaybackSource.timeline(of: points, startDate: Self.start))

        let again = await locations(source.events())
        #expect(again == played, "each events() call is a fresh run from the start")
    }

    @Test("real time with a speed factor waits out the recorded gaps, scaled")
    func realTimePacing() async throws {
        // Xcode file: three waypoints two seconds apart; at 20× that is 0.1 s between fixes.
        let url = try GPXFixtures.url("xcode-waypoints.gpx")
        let clock = VirtualPlaybackClock()
        let source = GPXPlaybackSource(contentsOf: url, configuration: .init(pacing: .realTime(speedFactor: 20)), clock: clock)
        var arrivals: [Duration] = []
        var names: [Date] = []
        for await event in source.events() {
            arrivals.append(clock.now)
            if case .location(let location) = event { names.append(location.timestamp) }
        }
        #expect(names.count == 3)
        #expect(names == names.sorted())
        // Waits are anchored to the first fix (a late fix is followed by a shorter wait, by design),
        // so each arrival is checked against the first.
        for (k, arrival) in arrivals.enumerated().dropFirst() {
            let offset = arrival - arrivals[0]
            #expect(abs((offset - .milliseconds(100 * k)) / .nanoseconds(1)) < 1_000, "fix \(k) at \(offset)")
        }
    }

    @Test("an untimed route in real time waits the configured interval")
    func realTimeUntimed() async throws {
        // Two points, 0.5 s apart by configuration, sped up 5× → 0.1 s.
        let points = [GPXPoint(kind: .routePoint, coordinate: Coordinate(latitude: 10, longitude: 20), segment: 1),
                      GPXPoint(kind: .routePoint, coordinate: Coordinate(latitude: 10.001, longitude: 20), segment: 1)]
        let expected = 0.5 / 5
        let clock = VirtualPlaybackClock()
        let source = GPXPlaybackSource(document: GPXDocument(routePoints: points),
                                       configuration: .init(pacing: .realTime(speedFactor: 5), untimedInterval: 0.5), clock: clock)
        var arrivals: [Duration] = []
        for await _ in source.events() { arrivals.append(clock.now) }
        #expect(arrivals.count == 2)
        let gap = arrivals[1] - arrivals[0]
        #expect(abs((gap - .seconds(expected)) / .nanoseconds(1)) < 1_000, "\(gap) for \(expected) s")
    }

    @Test("stop() ends a stream that is waiting for a fix an hour away")
    func stopDuringWait() async throws {
        let points = [GPXPoint(kind: .trackPoint, coordinate: Coordinate(latitude: 1, longitude: 1), time: Self.start),
                      GPXPoint(kind: .trackPoint, coordinate: Coordinate(latitude: 1, longitude: 1.01),
                               time: Self.start.addingTimeInterval(3600))]
        let source = GPXPlaybackSource(document: GPXDocument(trackPoints: points), configuration: .init(pacing: .realTime))
        var iterator = source.events().makeAsyncIterator()
        #expect(await iterator.next() != nil)
        Task {
            try await Task.sleep(for: .milliseconds(100))
            source.stop()
        }
        // An hour's wait cut short: if stop() did not end it, the suite's hang guard would fire.
        #expect(await iterator.next() == nil)
    }

    @Test("cancelling the consuming task ends the run")
    func cancelConsumer() async throws {
        let points = [GPXPoint(kind: .trackPoint, coordinate: Coordinate(latitude: 1, longitude: 1), time: Self.start),
                      GPXPoint(kind: .trackPoint, coordinate: Coordinate(latitude: 1, longitude: 1.01),
                               time: Self.start.addingTimeInterval(3600))]
        let source = GPXPlaybackSource(document: GPXDocument(trackPoints: points), configuration: .init(pacing: .realTime))
        let (firstFix, signal) = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            var count = 0
            for await _ in source.events() {
                count += 1
                signal.yield()
            }
            return count
        }
        // Cancel once the first fix is in (not after a fixed sleep, which a starved consumer may not have used).
        var started = firstFix.makeAsyncIterator()
        _ = await started.next()
        consumer.cancel()
        #expect(await consumer.value == 1)
    }

    @Test("a malformed file becomes one invalid-file error event naming file and line, then the stream ends")
    func malformedFile() async throws {
        let source = GPXPlaybackSource(contentsOf: try GPXFixtures.url("malformed.gpx"),
                                       configuration: .init(pacing: .asFastAsPossible))
        var events: [LocationSourceEvent] = []
        for await event in source.events() { events.append(event) }
        #expect(events.count == 1)
        guard case .error(.invalidFile(let message))? = events.first else {
            Issue.record("expected an invalid-file error, got \(events)")
            return
        }
        #expect(message.hasPrefix("malformed.gpx:7:"), "\(message)")
    }

    @Test("a bad point is one parse error event where it would have played, and the rest of the track plays")
    func badPointsAreReportedAndSkipped() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gpx-bad-point-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bad-points.gpx")
        // Points on lines 3...7; line 5 has a bad time, line 7 (the last) a latitude past the pole.
        try """
            <?xml version="1.0"?>
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="10" lon="20"><time>2024-05-01T00:00:00Z</time></trkpt>
            <trkpt lat="10.001" lon="20"><time>2024-05-01T00:00:01Z</time></trkpt>
            <trkpt lat="10.002" lon="20"><time>soon</time></trkpt>
            <trkpt lat="10.003" lon="20"><time>2024-05-01T00:00:03Z</time></trkpt>
            <trkpt lat="95" lon="20"><time>2024-05-01T00:00:04Z</time></trkpt>
            </trkseg></trk></gpx>

            """.write(to: url, atomically: true, encoding: .utf8)
        let clock = VirtualPlaybackClock()
        let source = GPXPlaybackSource(contentsOf: url, configuration: .init(pacing: .realTime(speedFactor: 10)), clock: clock)
        var events: [String] = []
        for await event in source.events() {
            switch event {
            case .location(let l): events.append("fix \(l.coordinate.latitude)")
            case .error(let e): events.append("\(e)")
            }
        }
        #expect(events == [
            "fix 10.0", "fix 10.001",
            "parse error: bad-points.gpx:5: trkpt time: \"soon\" is not an ISO 8601 date-time like 2024-05-01T12:00:00Z",
            "fix 10.003",
            "parse error: bad-points.gpx:7: trkpt lat: \"95\" is outside -90...90",
        ])
        #expect(clock.deadlines.count == 2, "the good fixes are paced as ever: \(clock.deadlines)")
    }

    @Test("a GPX file with nothing to play says so")
    func emptyDocument() async {
        let source = GPXPlaybackSource(document: GPXDocument(), name: "empty.gpx")
        var events: [LocationSourceEvent] = []
        for await event in source.events() { events.append(event) }
        #expect(events == [.error(.sourceUnavailable("empty.gpx has no trkpt, rtept or wpt to play"))])
    }

    @Test("a stream dropped unread doesn't keep its run alive; stop() reaches one that is held")
    func runBookkeeping() async throws {
        let source = GPXPlaybackSource(contentsOf: try GPXFixtures.url("xcode-waypoints.gpx"))
        _ = source.events()
        _ = source.events()
        #expect(source.runs.count == 0)
        let held = source.events()
        #expect(source.runs.count == 1)
        source.stop()
        #expect(source.runs.count == 0)
        var iterator = held.makeAsyncIterator()
        #expect(await iterator.next() == nil, "a stopped run delivers nothing")
    }
}
