import Foundation
import Testing
import GeoModel
@testable import LocationSources

@Suite("Synthetic route", .timeLimit(.minutes(30)))  // a hang guard, not a speed bound
struct SyntheticRouteTests {
    private static let start = Date(timeIntervalSince1970: 1_700_000_000)
    /// Leopoldstraße, Munich, roughly south to north: 2.4 km in three legs.
    private static let munich = [Coordinate(latitude: 48.150440, longitude: 11.581130),
                                 Coordinate(latitude: 48.158020, longitude: 11.585410),
                                 Coordinate(latitude: 48.163950, longitude: 11.586590),
                                 Coordinate(latitude: 48.171200, longitude: 11.588100)]

    @Test("the same seed gives the same fixes; another seed other noise")
    func deterministic() throws {
        let a = try SyntheticRoute(waypoints: Self.munich, speed: 13.9, fixInterval: 1, noise: 8, seed: 42)
        let b = try SyntheticRoute(waypoints: Self.munich, speed: 13.9, fixInterval: 1, noise: 8, seed: 42)
        let c = try SyntheticRoute(waypoints: Self.munich, speed: 13.9, fixInterval: 1, noise: 8, seed: 43)
        let fixesA = a.fixes(startingAt: Self.start)
        #expect(fixesA.count > 100)
        #expect(fixesA == b.fixes(startingAt: Self.start))
        #expect(fixesA.map(\.coordinate) != c.fixes(startingAt: Self.start).map(\.coordinate))
        #expect(a.fix(57, startingAt: Self.start) == fixesA[57], "random access agrees with the sequence")
        // Pinned values: a change to the generator or the geometry must be deliberate.
        #expect(abs(fixesA[10].coordinate.latitude - 48.151602542) < 1e-9, "\(fixesA[10].coordinate)")
        #expect(abs(fixesA[10].coordinate.longitude - 11.581698157) < 1e-9, "\(fixesA[10].coordinate)")
    }

    @Test("fixes are speed × interval apart, give or take twice the noise")
    func spacingWithNoise() throws {
        let a = Coordinate(latitude: 52.5163, longitude: 13.3777), b = Coordinate(latitude: 52.5200, longitude: 13.4500)
        let route = try SyntheticRoute(waypoints: [a, b], speed: 12.5, fixInterval: 2, noise: 3, seed: 7)
        let fixes = route.fixes(startingAt: Self.start)
        #expect(fixes.count == route.fixCount)
        for (p, q) in zip(fixes, fixes.dropFirst()).dropLast() {
            let d = p.coordinate.distance(to: q.coordinate)
            #expect(abs(d - 25) <= 6 + 1e-6, "spacing \(d)")
            #expect(q.timestamp.timeIntervalSince(p.timestamp) == 2)
        }
        #expect(fixes.allSatisfy { $0.speed == 12.5 && $0.horizontalAccuracy == 3 && $0.quality == .simulated })
    }

    @Test("without noise, fixes lie exactly speed × interval apart along the path")
    func spacingExact() throws {
        let route = try SyntheticRoute(waypoints: Self.munich, speed: 10, fixInterval: 1.5)
        let fixes = route.fixes(startingAt: Self.start)
        let spacings = zip(fixes, fixes.dropFirst()).dropLast().map { $0.coordinate.distance(to: $1.coordinate) }
        #expect(spacings.allSatisfy { $0 <= 15 + 1e-6 }, "a chord is never longer than the path")
        // Only a pair that straddles a waypoint (two corners here) may be shorter.
        #expect(spacings.filter { abs($0 - 15) > 1e-6 }.count <= Self.munich.count - 2)
        #expect(fixes.allSatisfy { $0.horizontalAccuracy == 0 })
    }

    @Test("the last fix is at the route's end, at the journey's duration")
    func endsAtEnd() throws {
        let route = try SyntheticRoute(waypoints: Self.munich, speed: 7, fixInterval: 3)
        let fixes = route.fixes(startingAt: Self.start)
        let last = try #require(fixes.last)
        #expect(last.coordinate.distance(to: Self.munich.last!) < 1e-6)
        #expect(abs(last.timestamp.timeIntervalSince(Self.start) - route.duration) < 1e-6, "Date keeps ~0.1 µs here")
        #expect(fixes.first!.coordinate == Self.munich.first!)
        #expect(fixes.first!.timestamp == Self.start)
        let expectedCount = Int((route.duration / 3).rounded(.down)) + 2
        #expect(fixes.count == expectedCount, "whole intervals, the start, and the end in between")
        #expect(abs(fixes.last!.course - GreatCircle.bearing(from: Self.munich[2], to: Self.munich[3])) < 0.01)

        let noisy = try SyntheticRoute(waypoints: Self.munich, speed: 7, fixInterval: 3, noise: 4, seed: 1)
        #expect(noisy.fixes(startingAt: Self.start).last!.coordinate.distance(to: Self.munich.last!) <= 4 + 1e-6)
    }

    @Test("an exact number of intervals doesn't report the end twice")
    func wholeIntervals() throws {
        let a = Coordinate(latitude: 0, longitude: 0), b = Coordinate(latitude: 0, longitude: 0.01)
        let length = a.distance(to: b)
        let route = try SyntheticRoute(waypoints: [a, b], speed: length / 10, fixInterval: 1)
        #expect(route.fixCount == 11)
        #expect(route.fix(10, startingAt: Self.start).coordinate.distance(to: b) < 1e-6)
    }

    @Test("noise stays within its radius of the true position and is not degenerate")
    func noiseBound() throws {
        let clean = try SyntheticRoute(waypoints: Self.munich, speed: 10, fixInterval: 1)
        let noisy = try SyntheticRoute(waypoints: Self.munich, speed: 10, fixInterval: 1, noise: 20, seed: 99,
                                       horizontalAccuracy: 25)
        let offsets = zip(clean.fixes(startingAt: Self.start), noisy.fixes(startingAt: Self.start))
            .map { $0.coordinate.distance(to: $1.coordinate) }
        #expect(offsets.allSatisfy { $0 <= 20 + 1e-6 })
        let mean = offsets.reduce(0, +) / Double(offsets.count)
        // Uniform over a disc of radius r: mean distance from the centre is 2r/3.
        #expect(abs(mean - 40.0 / 3) < 1.5, "mean offset \(mean)")
        #expect(noisy.fix(0, startingAt: Self.start).horizontalAccuracy == 25)
    }

    @Test("legs follow great circles, not straight lines in degrees")
    func greatCircle() throws {
        let route = try SyntheticRoute(waypoints: [Coordinate(latitude: 60, longitude: 0),
                                                   Coordinate(latitude: 60, longitude: 90)],
                                       speed: 1000, fixInterval: 1)
        let half = route.duration / 2
        // Half-way lies on the bisecting meridian, well north of the parallel the endpoints share.
        let halfIndex = Int(half.rounded())
        let mid = route.fix(halfIndex, startingAt: Self.start).coordinate
        #expect(abs(mid.longitude - 45) < 0.02, "\(mid)")
        #expect(abs(mid.latitude - 67.792) < 0.01, "\(mid)")
    }

    @Test("a single coordinate is one stationary fix")
    func stationary() throws {
        let here = Coordinate(latitude: -33.8568, longitude: 151.2153)
        let route = try SyntheticRoute(waypoints: [here], speed: 1)
        #expect(route.fixes(startingAt: Self.start).map(\.coordinate) == [here])
        #expect(route.fix(0, startingAt: Self.start).speed == 0)
    }

    @Test("invalid parameters name themselves")
    func invalid() {
        let ok = Self.munich
        #expect(throws: SyntheticRouteError.noWaypoints) { try SyntheticRoute(waypoints: [], speed: 1) }
        #expect(throws: SyntheticRouteError.invalidSpeed(0)) { try SyntheticRoute(waypoints: ok, speed: 0) }
        #expect(throws: SyntheticRouteError.invalidFixInterval(-1)) {
            try SyntheticRoute(waypoints: ok, speed: 1, fixInterval: -1)
        }
        #expect(throws: SyntheticRouteError.invalidNoise(-2)) { try SyntheticRoute(waypoints: ok, speed: 1, noise: -2) }
        #expect(throws: SyntheticRouteError.invalidAccuracy(.infinity)) {
            try SyntheticRoute(waypoints: ok, speed: 1, horizontalAccuracy: .infinity)
        }
        let bad = Coordinate(latitude: 91, longitude: 0)
        #expect(throws: SyntheticRouteError.invalidWaypoint(index: 1, bad)) {
            try SyntheticRoute(waypoints: [ok[0], bad], speed: 1)
        }
        #expect(SyntheticRouteError.invalidSpeed(0).description.contains("speed"))
    }

    @Test("as a source, as fast as possible: the route's fixes in order")
    func sourceFast() async throws {
        let route = try SyntheticRoute(waypoints: Self.munich, speed: 30, fixInterval: 1, noise: 2, seed: 5)
        let source = SyntheticRouteSource(route: route, pacing: .asFastAsPossible, startDate: Self.start)
        var received: [Location] = []
        for await event in source.events() {
            if case .location(let location) = event { received.append(location) }
        }
        #expect(received == route.fixes(startingAt: Self.start))
    }

    @Test("as a source in real time at 10×: one fix per interval / 10")
    func sourceRealTime() async throws {
        let a = Coordinate(latitude: 0, longitude: 0), b = Coordinate(latitude: 0, longitude: 0.0003)
        let route = try SyntheticRoute(waypoints: [a, b], speed: a.distance(to: b) / 3, fixInterval: 1)
        let clock = VirtualPlaybackClock()
        let source = SyntheticRouteSource(route: route, pacing: .realTime(speedFactor: 10), clock: clock)
        var arrivals: [Duration] = []
        var stamps: [Date] = []
        let before = Date()
        var firstSeen: Date?
        for await event in source.events() {
            arrivals.append(clock.now)
            if firstSeen == nil { firstSeen = Date() }
            if case .location(let location) = event { stamps.append(location.timestamp) }
        }
        #expect(stamps.count == 4)
        #expect(stamps[0] >= before && stamps[0] <= firstSeen!, "no start date → the moment the run starts")
        // Waits are anchored to the first fix: fix k is due k × 0.1 s after it.
        for (k, arrival) in arrivals.enumerated().dropFirst() {
            let offset = arrival - arrivals[0]
            #expect(abs((offset - .milliseconds(100 * k)) / .nanoseconds(1)) < 1_000, "fix \(k) at \(offset)")
        }
    }

    @Test("stop() ends a real-time run")
    func stop() async throws {
        let route = try SyntheticRoute(waypoints: Self.munich, speed: 1, fixInterval: 60)
        let source = SyntheticRouteSource(route: route, pacing: .realTime)
        var iterator = source.events().makeAsyncIterator()
        #expect(await iterator.next() != nil)
        Task {
            try await Task.sleep(for: .milliseconds(50))
            source.stop()
        }
        #expect(await iterator.next() == nil)
    }
}
