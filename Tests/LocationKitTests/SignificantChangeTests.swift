import Foundation
import LocationSources
import ReverseGeocoder
import Testing
@testable import LocationKit

/// `startMonitoringSignificantLocationChanges()`: ≥ 500 m or a heartbeat, ignoring distanceFilter and
/// desiredAccuracy; independent of standard updates.
@Suite struct SignificantChangeTests {
    @Test func filterDeliversFirstFixThenEvery500Metres() {
        var filter = SignificantChangeFilter(options: .init(distance: 500, maximumInterval: nil))
        let start = fix(39.5, t: 0)
        #expect(filter.isSignificant(start))
        filter.delivered(start)
        // 4.4 ms of latitude ≈ 489 m: not yet; 4.5 ≈ 500.4 m: yes.
        #expect(!filter.isSignificant(fix(39.5044, t: 1)))
        #expect(filter.isSignificant(fix(39.5045, t: 1)))
        // Measured from the last *delivered* fix, not the last seen one.
        filter.delivered(fix(39.5045, t: 2))
        #expect(!filter.isSignificant(fix(39.5089, t: 3)))
        #expect(filter.isSignificant(fix(39.5090, t: 3)))
        // Without a heartbeat, waiting forever in place delivers nothing.
        #expect(!filter.isSignificant(fix(39.5045, t: 1_000_000)))
    }

    @Test func heartbeatDeliversAParkedReceiverAndClockJumpsBackResync() {
        var filter = SignificantChangeFilter(options: .init(distance: 500, maximumInterval: 300))
        filter.delivered(fix(39.5, t: 1000))
        #expect(!filter.isSignificant(fix(39.5, t: 1299.9)))
        #expect(filter.isSignificant(fix(39.5, t: 1300)))
        #expect(filter.isSignificant(fix(39.5, t: 999)))  // receiver clock went back
    }

    @Test func optionsAreSanitised() {
        #expect(SignificantChangeOptions.default == SignificantChangeOptions(distance: 500, maximumInterval: 300))
        #expect(SignificantChangeOptions(distance: -3, maximumInterval: -1) == .init(distance: 0, maximumInterval: nil))
        #expect(SignificantChangeOptions(distance: .nan, maximumInterval: .infinity).distance == 500)
    }

    /// A 20 km synthetic drive, one fix per 10 m: the service delivers the first fix and then one per
    /// 500 m, each at least 500 m (and at most one 10 m step more) from the one before; distanceFilter (5 km) and
    /// desiredAccuracy (1 m, worse than every fix) are ignored.
    @Test func managerDeliversOnlySignificantFixesOfADrive() async throws {
        let route = try SyntheticRoute(
            waypoints: [Coordinate(latitude: 39.90, longitude: 116.40), Coordinate(latitude: 40.08, longitude: 116.40)],
            speed: 10, fixInterval: 1, horizontalAccuracy: 30)
        let manager = LocationManager(source: SyntheticRouteSource(route: route, pacing: .asFastAsPossible, startDate: epoch),
                                      geocoder: RegionProvider())
        manager.distanceFilter = 5000
        manager.desiredAccuracy = 1
        manager.significantChangeOptions = .init(distance: 500, maximumInterval: nil)
        let events = await record(manager) { $0.startMonitoringSignificantLocationChanges() }
        #expect(events.delegate == events.stream && events.closures == events.stream)
        let delivered = events.stream.locations
        #expect(delivered.first == route.fix(0, startingAt: epoch))
        let expectedCount = Int(route.length / 500) + 1
        #expect(abs(delivered.count - expectedCount) <= 1, "\(delivered.count) fixes for \(route.length) m")
        for (a, b) in zip(delivered, delivered.dropFirst()) {
            let d = a.coordinate.distance(to: b.coordinate)
            #expect(d >= 500 && d <= 510.001, "\(d) m between deliveries")  // one 10 m step at most
        }
        #expect(events.stream.last == .stopped(.sourceFinished))
        #expect(!manager.isMonitoringSignificantLocationChanges)
    }

    /// The heartbeat delivers a receiver that does not move, by fix time.
    @Test func heartbeatDeliversAParkedReceiver() async {
        let fixes = (0..<25).map { fix(39.5, t: Double($0) * 30) }  // 12 minutes, one fix per 30 s
        let manager = LocationManager(source: ScriptedSource(locations: fixes), geocoder: RegionProvider())
        manager.significantChangeOptions = .init(distance: 500, maximumInterval: 300)
        let events = await record(manager) { $0.startMonitoringSignificantLocationChanges() }
        #expect(events.stream.locations.map { $0.timestamp.timeIntervalSince(epoch) } == [0, 300, 600])
    }

    /// Standard and significant services are independent: while both are on every fix is delivered;
    /// stopping standard updates leaves the significant service running; stopping that ends the run.
    @Test func servicesAreIndependent() async {
        let gate1 = Gate(), gate2 = Gate(), gate3 = Gate()
        // 0.001° ≈ 111 m per fix.
        let lat = (0..<16).map { 39.5 + Double($0) * 0.001 }
        var steps: [ScriptedSource.Step] = []
        for (i, l) in lat.enumerated() {
            if i == 4 { steps.append(.wait(gate1)) }
            if i == 8 { steps.append(.wait(gate2)) }
            if i == 12 { steps.append(.wait(gate3)) }
            steps.append(.event(.location(fix(l, t: Double(i)))))
        }
        let manager = LocationManager(source: ScriptedSource(steps, finishes: false), geocoder: RegionProvider())
        manager.significantChangeOptions = .init(distance: 300, maximumInterval: nil)
        let (seen, collector) = streamRecorder(manager)
        /// Returns once the placemark of the fix at `lat[i]` is out (the fixes before the next gate are
        /// then all handled: the source is held at the gate).
        func handled(_ i: Int) async {
            await seen.wait { $0.last == .placemark(.chaoyang, for: fix(lat[i], t: Double(i))) }
        }
        manager.startMonitoringSignificantLocationChanges()
        #expect(manager.isMonitoringSignificantLocationChanges && manager.isUpdatingLocation)
        await handled(3)                            // 0, 3 (≥ 300 m)
        #expect(manager.location?.coordinate.latitude == lat[3])
        manager.startUpdatingLocation()             // both on: every fix
        gate1.open()
        await handled(7)
        #expect(manager.location?.coordinate.latitude == lat[7])
        manager.stopUpdatingLocation()              // significant only again
        #expect(manager.isUpdatingLocation && manager.isMonitoringSignificantLocationChanges)
        gate2.open()
        await handled(10)                           // 7 → 10 (333 m)
        #expect(manager.location?.coordinate.latitude == lat[10])
        manager.stopMonitoringSignificantLocationChanges()
        #expect(!manager.isUpdatingLocation && !manager.isMonitoringSignificantLocationChanges)
        gate3.open()
        let events = await collector.value
        let indices = events.locations.map { Int((($0.coordinate.latitude - 39.5) / 0.001).rounded()) }
        #expect(indices == [0, 3, 4, 5, 6, 7, 10])
        #expect(events.last == .stopped(.requested))
    }

    /// A one-shot request during significant-only monitoring is answered by the next fix that meets
    /// desiredAccuracy; the run goes on afterwards.
    @Test func requestDuringSignificantMonitoringNeedsAnAccurateFix() async throws {
        let gate = Gate()
        let steps: [ScriptedSource.Step] = [
            .event(.location(fix(39.5, accuracy: 5, t: 0))),
            .wait(gate),
            .event(.location(fix(39.6, accuracy: 900, t: 1))),   // significant, but not accurate enough
            .event(.location(fix(39.6, accuracy: 8, t: 2))),     // not significant, accurate: answers
        ]
        let manager = LocationManager(source: ScriptedSource(steps, finishes: false), geocoder: RegionProvider(),
                                      clock: TestClock())
        manager.desiredAccuracy = 10
        let (seen, collector) = streamRecorder(manager)
        manager.startMonitoringSignificantLocationChanges()
        await seen.wait { $0.placemarks.count == 1 }
        #expect(manager.location == fix(39.5, accuracy: 5, t: 0))
        let answer = Task { try await manager.locate() }
        await manager.waitForPendingLocates(1)
        gate.open()
        let result = try await answer.value
        #expect(result.location == fix(39.6, accuracy: 8, t: 2))
        #expect(manager.isUpdatingLocation && manager.isMonitoringSignificantLocationChanges)
        manager.stopMonitoringSignificantLocationChanges()
        let events = await collector.value
        #expect(events.locations.map(\.horizontalAccuracy) == [5, 900, 8])
        #expect(events.last == .stopped(.requested))
    }

    /// The standard filters are untouched by the change: without the significant service, the same
    /// fixes are filtered exactly as before.
    @Test func standardFiltersUnchanged() async {
        let fixes = [fix(39.5, accuracy: 3, t: 0), fix(39.5001, accuracy: 3, t: 1), fix(39.6, accuracy: 50, t: 2),
                     fix(39.6, accuracy: 3, t: 3)]
        let manager = LocationManager(source: ScriptedSource(locations: fixes), geocoder: RegionProvider())
        manager.distanceFilter = 100
        manager.desiredAccuracy = 10
        let events = await drive(manager)
        #expect(events.locations == [fixes[0], fixes[3]])
    }
}
